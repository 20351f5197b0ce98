"""Hypothesis strategies for canonical conversations that stress compaction boundaries.

Layouts covered: leading system prompts, parallel tool calls, results spread
over several tool messages after one assistant message, user messages
interleaved between those tool messages, hint-only user turns, signed and
redacted thinking, media in user messages and tool results, large text
blocks, and a trailing assistant message whose calls are still running
(optionally with some of its results already in).
"""

from __future__ import annotations

from hypothesis import strategies as st

from contextfold import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

WORDS = ["alpha", "beta", "gamma", "src/app.py", "pytest -q", "error:", "ok", "ünïcode", "日本語", "🙂", "\n", "  "]
TOOLS = ["read_file", "bash", "grep", "write_file", "search"]


@st.composite
def texts(draw: st.DrawFn, max_words: int = 60) -> str:
    # Size and a seed are drawn, the words derived: drawing hundreds of words one by one is slow.
    size = draw(st.sampled_from([0, 1, 3, 10, max_words, max_words * 8]))
    seed = draw(st.integers(0, 1000))
    return " ".join(WORDS[(seed + i * (seed % 5 + 1)) % len(WORDS)] for i in range(size))


def media() -> st.SearchStrategy[DataBlock]:
    return st.sampled_from(
        [
            DataBlock(media="image", media_type="image/png", data="iVBORw0KGgo="),
            DataBlock(media="document", url="https://example.com/a.pdf"),
        ]
    )


@st.composite
def user_message(draw: st.DrawFn) -> Message:
    blocks: list[TextBlock | DataBlock | HintBlock] = [TextBlock(text=draw(texts()) or "hi")]
    if draw(st.booleans()) and draw(st.booleans()):
        blocks.append(draw(media()))
    if draw(st.integers(0, 5)) == 0:
        blocks.append(TextBlock(text=draw(texts())))
    return Message(role="user", content=tuple(blocks))


def hint_message(text: str = "It is 2025-01-01 10:00 UTC.") -> Message:
    return Message(role="user", content=(HintBlock(text=text),))


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"call_{self.n}"


@st.composite
def assistant_message(draw: st.DrawFn, ids: _Ids, calls: int) -> Message:
    blocks: list[object] = []
    thinking = draw(st.integers(0, 4))
    if thinking == 0:
        blocks.append(ThinkingBlock(thinking=draw(texts(10)), signature="sig-" + str(ids.n)))
    elif thinking == 1:
        blocks.append(RedactedThinkingBlock(data="opaque=="))
    for _ in range(draw(st.integers(0 if calls else 1, 2))):
        blocks.append(TextBlock(text=draw(texts())))
    for _ in range(calls):
        name = draw(st.sampled_from(TOOLS))
        blocks.append(ToolCallBlock(id=ids.next(), name=name, arguments='{"path": "src/app.py", "n": 1}'))
    return Message(role="assistant", content=tuple(blocks))  # type: ignore[arg-type]


@st.composite
def result_block(draw: st.DrawFn, call: ToolCallBlock) -> ToolResultBlock:
    content: list[TextBlock | DataBlock] = [TextBlock(text=draw(texts()))]
    if draw(st.integers(0, 6)) == 0:
        content.append(draw(media()))
    return ToolResultBlock(
        call_id=call.id,
        content=tuple(content),
        is_error=draw(st.integers(0, 4)) == 0,
        name=call.name if draw(st.booleans()) else None,
    )


@st.composite
def tool_step(draw: st.DrawFn, ids: _Ids, *, answer: str = "all") -> list[Message]:
    """An assistant message with parallel calls and its results over one or more messages.

    ``answer``: ``all`` answers every call, ``some`` leaves at least one call
    running (only for the trailing step), ``none`` answers nothing.
    """
    calls = draw(st.integers(1, 3))
    assistant = draw(assistant_message(ids, calls))
    out = [assistant]
    pending = list(assistant.tool_calls)
    if answer == "none":
        return out
    if answer == "some":
        pending = pending[: draw(st.integers(0, len(pending) - 1))]
    results = [draw(result_block(call)) for call in pending]
    while results:
        take = draw(st.integers(1, len(results)))
        out.append(Message(role="tool", content=tuple(results[:take])))
        results = results[take:]
        if results and draw(st.integers(0, 5)) == 0:
            out.append(draw(user_message()))  # the user interjects while tools run
    return out


@st.composite
def conversations(draw: st.DrawFn, max_turns: int = 8, pending: bool | None = None) -> list[Message]:
    """A whole conversation; ``pending`` forces (or forbids) a trailing running tool call."""
    ids = _Ids()
    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 2))):
        messages.append(Message.text_message("system", draw(texts()) or "You are helpful."))
    for _ in range(draw(st.integers(1, max_turns))):
        if draw(st.integers(0, 6)) == 0:
            messages.append(hint_message())
        messages.append(draw(user_message()))
        for _ in range(draw(st.integers(0, 4))):
            messages.extend(draw(tool_step(ids)))
        if draw(st.booleans()):
            messages.append(draw(assistant_message(ids, 0)))
        if draw(st.integers(0, 8)) == 0:
            messages.append(Message.text_message("system", "Mid-conversation note."))
    trailing = draw(st.booleans()) if pending is None else pending
    if trailing:
        messages.extend(draw(tool_step(ids, answer=draw(st.sampled_from(["none", "some"])))))
    return messages
