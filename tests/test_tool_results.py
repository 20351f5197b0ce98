"""The tool-result path has one owner (issue 13 item 5): guard, split, offload, fence, count.

`Context.append_tool_result` runs it for everyone; the agent calls it with its guard and fence. The kept part is
counted once (the count cached on the final message is what the tally uses), a fenced result is never left with its
closing tag cut off, and provider dicts are accepted as `Context.append` accepts them (issue 14 item 8).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    Agent,
    BytesCounter,
    Context,
    ContextConfig,
    Fence,
    GuardConfig,
    InputError,
    LocalWorkspace,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
)
from contextfold._agent._loop import AgentEvent, GuardInfo
from contextfold.models import ModelResponse, Usage

AWS_KEY = "AKIAZ3MHQW5LPVXA7RQB"
FENCE = Fence("t00l")
FULL = GuardConfig()


class CountingCounter:
    """`BytesCounter` that records every message it counts (to see that a message is counted once)."""

    key = "bytes"

    def __init__(self) -> None:
        self.inner = BytesCounter()
        self.counted: list[Message] = []

    def count_text(self, text: str) -> int:
        return self.inner.count_text(text)

    def count_message(self, message: Message) -> int:
        self.counted.append(message)
        return self.inner.count_message(message)


class FenceTax(BytesCounter):
    """A counter that is not additive: the fence's tags cost more inside a result than alone."""

    key = "fence-tax"

    def count_message(self, message: Message) -> int:
        extra = sum(t.count("untrusted-tool-output") for r in message.tool_results for t in [r.text]) * 9
        return super().count_message(message) + extra


def call(call_id: str = "c1", name: str = "bash") -> Message:
    return Message(role="assistant", content=(ToolCallBlock(id=call_id, name=name, arguments="{}"),))


def result(text: str, call_id: str = "c1", name: str | None = "bash") -> Message:
    return Message(role="tool", content=(ToolResultBlock(call_id=call_id, name=name, content=(TextBlock(text=text),)),))


def context(tmp_path: Path, window: int = 4000, counter: Any = None) -> Context:
    return Context(
        ContextConfig(window=window),
        counter=counter or BytesCounter(),
        workspace=LocalWorkspace(tmp_path / "ws"),
        hints=False,
    )


# -- provider dicts, as `append` takes them ----------------------------------------------------------------------


async def test_append_tool_result_takes_an_openai_tool_message_dict(tmp_path: Path) -> None:
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}],
    }
    tool = {"role": "tool", "tool_call_id": "c1", "content": "ok: 3 files"}
    by_append, by_path = context(tmp_path / "a"), context(tmp_path / "b")
    by_append.extend([assistant, tool])
    by_path.append(assistant)
    assert await by_path.append_tool_result(tool) == []
    assert by_path.messages == by_append.messages
    assert by_path.messages[-1].tool_results[0].text == "ok: 3 files"


async def test_append_tool_result_takes_an_anthropic_user_message_with_results(tmp_path: Path) -> None:
    assistant = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}]}
    user = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x" * 30_000},
            {"type": "text", "text": "and now summarize"},
        ],
    }
    ctx = context(tmp_path)
    ctx.append(assistant, provider="anthropic")
    refs = await ctx.append_tool_result(user, provider="anthropic")
    assert [m.role for m in ctx.messages] == ["assistant", "tool", "user"]  # the text beside the results follows
    assert ctx.messages[-1].text == "and now summarize"
    assert len(refs) == 1 and refs[0].kind == "tool_result"  # the result was over the limit: split and offloaded
    kept = ctx.messages[1].tool_results[0]
    assert kept.call_id == "toolu_1" and "<<<TRUNCATED>>>" in kept.text
    assert ctx.counter.count_message(ctx.messages[1]) <= ctx.config.result_limit


async def test_append_tool_result_refuses_what_is_not_a_tool_result(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    with pytest.raises(InputError, match="takes a tool message"):
        await ctx.append_tool_result({"role": "user", "content": "hello"})
    with pytest.raises(InputError, match="takes a tool message"):
        await ctx.append_tool_result(Message.text_message("assistant", "hi"))
    with pytest.raises(InputError, match="no matching tool call"):  # an orphan is refused before any offload
        await ctx.append_tool_result(result("y" * 40_000, call_id="nowhere"))
    assert ctx.messages == ()
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").rglob("*.txt"))


# -- counted once -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("guarded", [False, True])
async def test_the_appended_result_is_counted_once(tmp_path: Path, guarded: bool) -> None:
    counter = CountingCounter()
    ctx = context(tmp_path, counter=counter)
    ctx.append(call())
    counter.counted.clear()
    guard, fence = (FULL, FENCE) if guarded else (None, None)
    await ctx.append_tool_result(result(f"key {AWS_KEY} and some output"), guard=guard, fence=fence)
    appended = ctx.messages[-1]
    assert sum(1 for m in counter.counted if m is appended) == 1  # counted once, on the message appended
    assert len(counter.counted) == 1  # and nothing else was counted: no second pass over the result
    assert ctx.tokens == BytesCounter().count_message(call()) + BytesCounter().count_message(appended)
    if guarded:
        text = appended.tool_results[0].text
        assert AWS_KEY not in text and FENCE.unwrap(text) is not None


# -- the agent and the context walk the same path ----------------------------------------------------------------


class OneCall:
    """A model that calls ``dump`` once, then answers."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (), stream: Any = None
    ) -> ModelResponse:
        self.calls += 1
        if self.calls == 1:
            message = Message(role="assistant", content=(ToolCallBlock(id="d1", name="dump", arguments="{}"),))
        else:
            message = Message.text_message("assistant", "done")
        return ModelResponse(message=message, usage=Usage(), stop_reason="end_turn")


OUTPUT = f"token={AWS_KEY}\n" + "\n".join(f"row {i}: {'v' * 50}" for i in range(900))


async def test_the_agent_appends_what_the_context_path_appends(tmp_path: Path) -> None:
    def dump() -> str:
        return OUTPUT

    ws = LocalWorkspace(tmp_path / "agent")
    agent_ctx = Context(ContextConfig(window=8000), counter=BytesCounter(), workspace=ws, hints=False)
    agent = Agent(OneCall(), tools=[dump], context=agent_ctx, fence=FENCE)
    seen: list[AgentEvent] = []
    agent.subscribe(seen.append)
    run = await agent.run("dump the table")
    appended = next(m for m in run.messages if m.role == "tool")
    kinds = [e.kind for e in seen if e.kind in ("guard", "offload", "tool_result")]
    assert kinds == ["guard", "offload", "tool_result"]  # reported in the order they happen
    assert isinstance(seen[[e.kind for e in seen].index("guard")].data, GuardInfo)

    ctx = Context(ContextConfig(window=8000), counter=BytesCounter(), workspace=LocalWorkspace(tmp_path / "ctx"))
    ctx.append(Message(role="assistant", content=(ToolCallBlock(id="d1", name="dump", arguments="{}"),)))
    direct = Message(
        role="tool", content=(ToolResultBlock(call_id="d1", name="dump", content=(TextBlock(text=OUTPUT),)),)
    )
    refs = await ctx.append_tool_result(direct, guard=GuardConfig(), fence=FENCE)
    mine, theirs = ctx.messages[-1].tool_results[0], appended.tool_results[0]

    def strip(text: str) -> str:
        return text.split("saved in the workspace file")[0]  # the workspace file names differ

    assert [strip(b.text) for b in mine.content if isinstance(b, TextBlock)] == [
        strip(b.text) for b in theirs.content if isinstance(b, TextBlock)
    ]
    assert len(refs) == len(run.offloaded) == 1
    assert BytesCounter().count_message(ctx.messages[-1]) <= ctx.config.result_limit


# -- the fence survives the split, for any counter -----------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.integers(1, 3000),
    width=st.integers(1, 120),
    window=st.sampled_from([3000, 6000, 20_000]),
    counter=st.sampled_from([BytesCounter(), FenceTax()]),
    secret=st.booleans(),
)
async def test_a_fenced_result_fits_and_keeps_its_fence(
    tmp_path: Path, lines: int, width: int, window: int, counter: Any, secret: bool
) -> None:
    text = (f"password: {AWS_KEY}\n" if secret else "") + "\n".join(f"{i:05d} " + "z" * width for i in range(lines))
    ctx = Context(ContextConfig(window=window), counter=counter, workspace=LocalWorkspace(tmp_path / "ws"), hints=False)
    ctx.append(call())
    refs = await ctx.append_tool_result(result(text), guard=FULL, fence=FENCE)
    kept = ctx.messages[-1].tool_results[0]
    assert counter.count_message(ctx.messages[-1]) <= ctx.config.result_limit
    texts = [b.text for b in kept.content if isinstance(b, TextBlock)]
    if refs:  # split: the fenced head, then our notice outside the fence
        assert len(texts) == 2 and texts[1].startswith("<<<TRUNCATED>>>")
        head = FENCE.unwrap(texts[0])
        assert head is not None
        workspace = ctx.workspace
        assert isinstance(workspace, LocalWorkspace)
        stored = workspace.read_text(refs[0])
        whole = head + stored
        assert AWS_KEY not in whole
        assert whole.endswith(text.rsplit("\n", 1)[-1])  # nothing lost: the head and the offloaded rest
    else:
        assert len(texts) == 1 and FENCE.unwrap(texts[0]) is not None


def test_a_guard_with_a_fence_needs_the_fence(tmp_path: Path) -> None:
    import asyncio

    from contextfold import ConfigError

    ctx = context(tmp_path)
    ctx.append(call())
    with pytest.raises(ConfigError, match="no Fence was given"):
        asyncio.run(ctx.append_tool_result(result("x"), guard=FULL))
    assert len(ctx.messages) == 1
    asyncio.run(ctx.append_tool_result(result("x"), guard=GuardConfig(fence=False)))
    assert ctx.messages[-1].tool_results[0].text == "x"
    assert json.dumps(ctx.messages[-1].tool_results[0].text) == '"x"'
