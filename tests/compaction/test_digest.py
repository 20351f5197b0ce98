from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold.compaction._digest import (
    Digest,
    Tier,
    _result_line,
    build_digest,
    cut_text,
    digest_lines,
    stretch_sentence,
    stretches,
)
from contextfold.compaction._groups import call_names
from conversation_gen import conversations

COUNTER = BytesCounter()
IMAGE = DataBlock(media="image", media_type="image/png", data="AAAA")


def compact(message: Message, names: dict[str, str] | None = None) -> list[str]:
    return digest_lines(message, Tier.COMPACT, names or {})


def test_user_first_non_empty_line_cut_to_200_chars_with_media_note() -> None:
    text = "\n  \n" + "é" * 300 + "\nsecond line"
    message = Message(role="user", content=(TextBlock(text=text), IMAGE, HintBlock(text="time")))
    (line,) = compact(message)
    assert line == "User: " + "é" * 199 + "… [media omitted]"
    assert compact(Message(role="user", content=(IMAGE,))) == ["User: [media omitted]"]
    assert compact(Message(role="user", content=(HintBlock(text="hint only"),))) == []


def test_assistant_first_line_and_calls_without_arguments() -> None:
    message = Message(
        role="assistant",
        content=(
            ThinkingBlock(thinking="secret reasoning", signature="s"),
            TextBlock(text="I will look.\nDetails follow"),
            ToolCallBlock(id="1", name="read_file", arguments='{"path": "/etc/hosts"}'),
            ToolCallBlock(id="2", name="bash", arguments='{"cmd": "ls"}'),
        ),
    )
    assert compact(message) == ["Assistant: I will look.", "Called read_file", "Called bash"]
    truncated = digest_lines(message, Tier.TRUNCATED, {}, truncate_chars=400)
    assert truncated[0] == "Assistant: I will look. Details follow"
    assert truncated[1] == 'Called read_file({"path": "/etc/hosts"})'
    assert all("secret" not in line for line in truncated)


def test_tool_results_name_status_and_first_100_chars() -> None:
    long = ToolResultBlock(call_id="1", content=(TextBlock(text="x" * 500),), name="grep")
    failed = ToolResultBlock(call_id="2", content=(TextBlock(text="boom\ntrace"),), is_error=True)
    empty = ToolResultBlock(call_id="3", content=(IMAGE,), name="shot")
    message = Message(role="tool", content=(long, failed, empty))
    lines = compact(message, {"2": "bash"})
    assert lines[0] == "grep: ok - " + "x" * 99 + "…"
    assert lines[1] == "bash: error - boom"  # the name comes from the matching call
    assert lines[2] == "shot: ok [media omitted]"


def test_system_text_is_context() -> None:
    assert compact(Message.text_message("system", "Repo is at /srv/app\nmore")) == ["Context: Repo is at /srv/app"]


def test_full_and_summary_tiers_are_not_line_tiers() -> None:
    with pytest.raises(ValueError, match="Truncated and Compact"):
        digest_lines(Message.text_message("user", "x"), Tier.FULL, {})


def test_cut_text_never_exceeds_the_limit() -> None:
    assert cut_text("abc", 3) == "abc"
    assert cut_text("abcd", 3) == "ab…"
    assert cut_text("🙂🙂🙂🙂", 2) == "🙂…"


def test_stretches_start_at_user_messages_and_sentences_count_tools() -> None:
    messages = [
        Message.text_message("assistant", "warming up"),
        Message.text_message("user", "fix the bug in src/app.py"),
        Message(role="assistant", content=(ToolCallBlock(id="1", name="bash"), ToolCallBlock(id="2", name="bash"))),
        Message(role="tool", content=(ToolResultBlock(call_id="1", is_error=True), ToolResultBlock(call_id="2"))),
        Message.text_message("assistant", "Fixed."),
        Message.text_message("user", "thanks"),
    ]
    assert stretches(messages) == [(0, 1), (1, 5), (5, 6)]
    assert stretch_sentence(messages[1:5], {}) == (
        'User asked "fix the bug in src/app.py"; then 2 tool calls (bash ×2; 1 failed) and 1 reply.'
    )
    assert stretch_sentence(messages[5:], {}) == 'User asked "thanks".'
    assert stretch_sentence(messages[:1], {}) == "Earlier; then 1 reply."


def test_tiers_degrade_oldest_first() -> None:
    messages = [Message.text_message("user", f"request {i}: " + "detail " * 100) for i in range(10)]
    roomy = build_digest(messages, counter=COUNTER, target_tokens=100_000)
    assert roomy.tiers == (Tier.TRUNCATED,) * 10
    tight = build_digest(messages, counter=COUNTER, target_tokens=roomy_cost(roomy) * 3 // 4)
    assert list(tight.tiers) == sorted(tight.tiers, reverse=True)  # older messages are never more detailed
    assert Tier.COMPACT in tight.tiers and tight.tiers[-1] is Tier.TRUNCATED
    tiny = build_digest(messages, counter=COUNTER, target_tokens=30)
    assert tiny.omitted > 0 and "omitted here" in tiny.text
    assert build_digest(messages, counter=COUNTER, target_tokens=0).text == ""


def roomy_cost(digest: object) -> int:
    return COUNTER.count_text(digest.text)  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(messages=conversations(), target=st.integers(0, 3000))
def test_digest_fits_target_and_is_deterministic(messages: list[Message], target: int) -> None:
    digest = build_digest(messages, counter=COUNTER, target_tokens=target)
    assert COUNTER.count_text(digest.text) <= target
    assert build_digest(list(messages), counter=COUNTER, target_tokens=target) == digest
    assert digest.omitted + len(digest.tiers) == len(messages) or digest.text == ""
    assert list(digest.tiers) == sorted(digest.tiers, reverse=True)
    assert all(tier is not Tier.FULL for tier in digest.tiers)
    assert "<system-reminder>" not in digest.text


@settings(max_examples=150, deadline=None)
@given(messages=conversations(), target=st.integers(0, 3000))
def test_all_truncated_is_chosen_whenever_it_fits(messages: list[Message], target: int) -> None:
    """The fast path (one count of the all-Truncated text) picks the most detailed digest that fits."""
    digest = build_digest(messages, counter=COUNTER, target_tokens=target)
    names = call_names(messages)
    full = "\n".join(line for m in messages for line in digest_lines(m, Tier.TRUNCATED, names))
    if messages and COUNTER.count_text(full) <= target:
        assert digest.text == full and digest.tiers == (Tier.TRUNCATED,) * len(messages)
    else:
        assert digest.tiers != (Tier.TRUNCATED,) * len(messages) or digest.omitted


@settings(max_examples=500, deadline=None)
@given(
    st.text(st.sampled_from("ab cd\n\t\u3000é-"), max_size=3000) | st.text(max_size=600),
    st.integers(min_value=1, max_value=500),
)
def test_one_line_of_a_head_cuts_like_the_whole_text(text: str, limit: int) -> None:
    # `_one_line` reads only a head of a long text; cut to the limit, the line is the one of the whole text.
    from contextfold.compaction._digest import _one_line

    assert cut_text(_one_line(text, limit), limit) == cut_text(" ".join(text.split()), limit)


# --- Fast paths against the plain computation -------------------------------------------------------------------
# `digest_lines` skips work (a head instead of the whole text, no word split when the head is already one line, a
# short head before the 8 KB scan for the first line). The reference below is the plain computation, kept here.

_WS = " \n\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"
_ODD = "ab-é中🙂…\x00\ud800\u200b"


def _ref_first_line(text: str) -> str:
    for line in text[:8192].splitlines():
        if line.strip():
            return line.strip()
    if len(text) > 8192:
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return ""


def _ref_result_line(result: ToolResultBlock, names: dict[str, str], limit: int, *, whole: bool) -> str:
    name = result.name or names.get(result.call_id, "tool")
    status = "error" if result.is_error else "ok"
    source = result.text if whole else _ref_first_line(result.text) or result.text
    text = " ".join(source.split())
    line = f"{name}: {status} - {cut_text(text, limit)}".rstrip(" -") if text else f"{name}: {status}"
    if any(isinstance(b, DataBlock) for b in result.content):
        line += " [media omitted]"
    return line


def _ref_digest_lines(message: Message, tier: Tier, names: dict[str, str], truncate_chars: int) -> list[str]:
    compact = tier is Tier.COMPACT
    if message.meta.get("contextfold") == "summary":
        return [cut_text(message.text, truncate_chars * 4)] if not compact else [_ref_first_line(message.text)]
    texts = [b.text for b in message.content if isinstance(b, TextBlock)]
    calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    media = any(isinstance(b, DataBlock) for b in message.content)
    text = "\n".join(texts)
    lines: list[str] = []
    if compact:
        body = cut_text(_ref_first_line(text), 200 if message.role == "user" else truncate_chars)
    else:
        body = cut_text(" ".join(text.split()), truncate_chars)
    label = {"user": "User", "assistant": "Assistant", "system": "Context", "tool": "Tool"}[message.role]
    if body or media:
        lines.append(f"{label}: {body}{' ' if body and media else ''}{'[media omitted]' if media else ''}")
    args_limit = max(truncate_chars // 4, 16)
    for call in calls:
        one = " ".join(call.arguments.split())
        lines.append(f"Called {call.name}" if compact else f"Called {call.name}({cut_text(one, args_limit)})")
    for result in results:
        lines.append(_ref_result_line(result, names, 100 if compact else truncate_chars, whole=not compact))
    return lines


@st.composite
def _adversarial_text(draw: st.DrawFn, max_size: int = 1200) -> str:
    """Mostly-normal prose (the fast path), raw mixes of odd whitespace, or any code points."""
    kind = draw(st.integers(0, 4))
    if kind == 4:  # one normal line (only single spaces), then a whitespace tail: the head's edge cases
        words = draw(st.lists(st.text(st.sampled_from(_ODD), min_size=1, max_size=9), max_size=max_size // 6))
        return " ".join(words) + draw(st.text(st.sampled_from(_WS), max_size=3))
    if kind == 0:
        word = st.text(st.sampled_from(_ODD), min_size=1, max_size=9)
        sep = st.sampled_from([" "] * 8 + ["\n", "  ", "\n\n", "\r\n", "\t", "\u2028", "\x85", "\u3000"])
        parts = draw(st.lists(st.tuples(word, sep), max_size=max_size // 6))
        text = "".join(w + s for w, s in parts)
        return draw(st.sampled_from(["", " ", "\n"])) + text
    if kind == 1:
        return draw(st.text(st.sampled_from(_WS + _ODD), max_size=max_size))
    if kind == 2:
        return draw(st.text(max_size=max_size // 4))
    line = st.text(st.sampled_from("ab \t"), max_size=300) | st.sampled_from(["", " ", "x" * 255, "y " * 130])
    sep = st.sampled_from(["\n", "\r\n", "\r", "\x85", "\u2028", "\x1c", "\x0b", "\x0c"])
    return "".join(a + b for a, b in draw(st.lists(st.tuples(line, sep), max_size=8)))


@st.composite
def _text_and_limit(draw: st.DrawFn) -> tuple[str, int]:
    text = draw(_adversarial_text())
    near = draw(st.integers(-3, 3))
    limit = draw(
        st.sampled_from([len(text) + near, len(text.rstrip()) + near, len(text) // 2 + near]) | st.integers(-3, 600)
    )
    return text, limit


@settings(max_examples=500, deadline=None)
@given(_text_and_limit())
def test_cut_line_is_cut_text_of_the_whole_one_line(case: tuple[str, int]) -> None:
    from contextfold.compaction._digest import _cut_line

    text, limit = case
    assert _cut_line(text, limit) == cut_text(" ".join(text.split()), limit)


def test_only_the_space_is_printable_whitespace() -> None:
    # The premise of `_cut_line`'s fast path: a printable head holds no whitespace but " " (what `str.split` splits).
    for code in range(0x110000):
        c = chr(code)
        if c.isprintable() and c != " ":
            assert len(f"a{c}a".split()) == 1, hex(code)


@settings(max_examples=300, deadline=None)
@given(_adversarial_text(max_size=600), st.sampled_from(["", "x" * 8100, " " * 8300, "\n" * 200, "a" * 250]))
def test_first_line_is_the_first_non_empty_line(text: str, pad: str) -> None:
    from contextfold.compaction._digest import _first_line

    for t in (text, pad + text, text + pad, pad[:100] + "\n" + text):
        assert _first_line(t) == _ref_first_line(t)


@dataclass(frozen=True, slots=True, kw_only=True)
class _SubText(TextBlock):
    """A subclass: the fast paths match exact classes, the plain path takes the rest."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _SubResult(ToolResultBlock):
    pass


@st.composite
def _messages(draw: st.DrawFn) -> Message:
    text = _adversarial_text()
    inner = st.one_of(st.builds(TextBlock, text=text), st.builds(_SubText, text=text), st.just(IMAGE), st.just(IMAGE))
    result = st.sampled_from([ToolResultBlock, ToolResultBlock, _SubResult]).flatmap(
        lambda cls: st.builds(
            cls,
            call_id=st.sampled_from(["c1", "c2", "c3"]),
            content=st.lists(inner, max_size=3).map(tuple),
            is_error=st.booleans(),
            name=st.none() | st.sampled_from(["grep", "", "bash"]),
        )
    )
    block = st.one_of(
        st.builds(TextBlock, text=text),
        st.builds(
            ToolCallBlock, id=st.sampled_from(["c1", "c2"]), name=st.sampled_from(["bash", "read"]), arguments=text
        ),
        result,
        st.just(IMAGE),
        st.builds(HintBlock, text=text),
        st.builds(ThinkingBlock, thinking=text),
        st.builds(RedactedThinkingBlock, data=st.just("x")),
    )
    role = draw(st.sampled_from(["user", "assistant", "system", "tool"]))
    content = draw(
        st.lists(result, min_size=1, max_size=3)
        if role == "tool" and draw(st.booleans())
        else st.lists(block, max_size=4)
    )
    meta = draw(st.sampled_from([{}, {"contextfold": "summary"}, {"contextfold": "other"}, {"k": 1}]))
    return Message(role=role, content=tuple(content), meta=meta)


@settings(max_examples=300, deadline=None)
@given(
    _messages(), st.sampled_from([Tier.TRUNCATED, Tier.COMPACT]), st.integers(-2, 600) | st.sampled_from([1, 2, 400])
)
def test_digest_lines_is_the_plain_computation(message: Message, tier: Tier, truncate_chars: int) -> None:
    names = {"c1": "bash", "c2": "read"}
    expected = _ref_digest_lines(message, tier, names, truncate_chars)
    assert digest_lines(message, tier, names, truncate_chars=truncate_chars) == expected


@pytest.mark.parametrize("text", ["", " ", " \n\t ", "\u3000\u2028", "x", " x "])
@pytest.mark.parametrize("limit", [-2, 0, 1, 16])
def test_blank_results_at_any_limit_are_the_plain_result_line(text: str, limit: int) -> None:
    # A blank result gets no " - ..." part even where the limit is too small for any text (cut_text gives "…").
    result = ToolResultBlock(call_id="c1", content=(TextBlock(text=text),))
    for whole in (True, False):
        expected = _ref_result_line(result, {"c1": "bash"}, limit, whole=whole)
        assert _result_line(result, {"c1": "bash"}, limit, whole=whole) == expected


@given(st.lists(st.sampled_from(list(Tier)), max_size=30))
def test_tier_counts_in_order_of_first_appearance(tiers: list[Tier]) -> None:
    expected: dict[str, int] = {}
    for tier in tiers:
        expected[tier.name.lower()] = expected.get(tier.name.lower(), 0) + 1
    counts = Digest(text="", tiers=tuple(tiers), omitted=0).tier_counts()
    assert list(counts.items()) == list(expected.items())
