"""The agent loop: order of operations, tools, guard, offload, steering, emergency compaction."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from contextfold import (
    Agent,
    AgentEvent,
    BytesCounter,
    ConfigError,
    Context,
    ContextConfig,
    Fence,
    FollowUp,
    GuardConfig,
    GuardInfo,
    HintBlock,
    LocalWorkspace,
    Message,
    ModelCallInfo,
    RequestPause,
    SteeringChannel,
    SteeringInfo,
    SystemReminder,
    TextBlock,
    ToolCallBlock,
    ToolSpec,
    validate,
)
from contextfold.models import ContextLengthExceeded, ModelResponse, Usage

AWS_KEY = "AKIAZ3MHQW5LPVXA7RQB"
AWS_SECRET = "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"

Script = Callable[[int, Sequence[Message]], Message | BaseException]


class FnModel:
    """A model whose turns come from a function of (call index, messages); records every request."""

    def __init__(self, script: Script | Sequence[Message | BaseException]) -> None:
        self.script = script
        self.requests: list[tuple[list[Message], list[ToolSpec]]] = []

    async def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (), stream: Any = None
    ) -> ModelResponse:
        index = len(self.requests)
        self.requests.append((list(messages), list(tools)))
        out = self.script(index, messages) if callable(self.script) else self.script[index]
        if isinstance(out, BaseException):
            raise out
        if stream is not None and out.text:
            stream(out.text)
        return ModelResponse(
            message=out,
            usage=Usage(prompt_tokens=0, completion_tokens=1),
            stop_reason="tool_use" if out.tool_calls else "end_turn",
        )


_ids = itertools.count(1)


def calls(*specs: tuple[str, object]) -> Message:
    import json

    blocks = tuple(
        ToolCallBlock(id=f"call_{next(_ids)}", name=name, arguments=args if isinstance(args, str) else json.dumps(args))
        for name, args in specs
    )
    return Message(role="assistant", content=blocks)


def say(text: str) -> Message:
    return Message.text_message("assistant", text)


def inner(text: str) -> str:
    """A tool result's text without the guard's fence lines."""
    return re.sub(r"</?untrusted-tool-output[^>]*>\n?", "", text).strip()


def offloaded_path(notice: str) -> str:
    """The workspace path a truncation notice names (``tool_results/<h>.txt``)."""
    word = next(w for w in notice.replace("`", " ").split() if w.startswith("tool_results/"))
    return word.rstrip(".,;'\"")


def make_context(window: int = 50_000, **kwargs: Any) -> Context:
    return Context(window=window, counter=BytesCounter(), hints=False, **kwargs)


def events_of(agent: Agent) -> list[AgentEvent]:
    seen: list[AgentEvent] = []
    agent.subscribe(seen.append)
    return seen


def assert_consistent(messages: Sequence[Message]) -> None:
    for provider in ("openai", "anthropic"):
        problems = [p for p in validate(messages, provider) if p.blocking or p.code == "pending_tool_call"]
        assert problems == [], (provider, problems)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_runs_tools_until_the_model_answers() -> None:
    model = FnModel([calls(("add", {"a": 2, "b": 3})), say("It is 5.")])
    agent = Agent(model, tools=[add], context=make_context())
    seen = events_of(agent)
    result = await agent.run("What is 2+3?")
    assert result.stop_reason == "end_turn" and result.output == "It is 5."
    assert [e.kind for e in seen] == ["model_call", "tool_call", "tool_result", "model_call"]
    assert isinstance(seen[0].data, ModelCallInfo) and seen[0].data.tool_calls == ("add",)
    second_request = model.requests[1][0]
    assert "5" in second_request[-1].tool_results[0].text
    assert [t.name for t in model.requests[0][1]] == ["add"]
    assert len(result.steps) == 2 and all(s.overhead_seconds >= 0 for s in result.steps)
    assert_consistent(result.messages)


async def test_parallel_calls_run_concurrently_and_results_keep_call_order() -> None:
    both = asyncio.Event()
    started: list[str] = []

    async def slow(name: str) -> str:
        started.append(name)
        if len(started) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5)  # only returns if the other call is running too
        return f"done {name}"

    model = FnModel([calls(("slow", {"name": "a"}), ("slow", {"name": "b"})), say("ok")])
    result = await Agent(model, tools=[slow], context=make_context()).run("go")
    tool_msgs = [m for m in result.messages if m.role == "tool"]
    assert [inner(m.tool_results[0].text) for m in tool_msgs] == ["done a", "done b"]
    assert_consistent(result.messages)


async def test_tool_failures_are_results_the_model_sees() -> None:
    def explode() -> str:
        raise ValueError("nope")

    model = FnModel(
        [calls(("explode", {}), ("missing", {}), ("add", "{broken"), ("add", {"a": "x", "b": 1})), say("sorry")]
    )
    result = await Agent(model, tools=[explode, add], context=make_context()).run("try")
    results = [m.tool_results[0] for m in result.messages if m.role == "tool"]
    assert all(r.is_error for r in results)
    texts = [r.text for r in results]
    assert "ValueError: nope" in texts[0]
    assert "no tool named 'missing'" in texts[1]
    assert "not valid JSON" in texts[2]
    assert "valid integer" in texts[3]
    assert result.stop_reason == "end_turn"
    assert_consistent(result.messages)


async def test_guard_redacts_before_the_next_request_and_fences() -> None:
    def leak() -> str:
        return f"key {AWS_KEY}\nsecret={AWS_SECRET}\n"

    fence = Fence("n0nce")
    model = FnModel([calls(("leak", {})), say("done")])
    agent = Agent(model, tools=[leak], window=50_000, counter=BytesCounter(), system="Be brief.", fence=fence)
    seen = events_of(agent)
    await agent.run("show credentials")
    sent = "\n".join(m.text + "".join(r.text for r in m.tool_results) for m in model.requests[1][0])
    assert AWS_KEY not in sent and AWS_SECRET not in sent
    assert fence.opening in sent
    assert model.requests[0][0][0].role == "system" and fence.system_prompt_layer() in model.requests[0][0][0].text
    guard = [e.data for e in seen if e.kind == "guard"]
    assert len(guard) == 1 and isinstance(guard[0], GuardInfo) and guard[0].redactions


async def test_guard_off_leaves_output_and_prompt_alone() -> None:
    model = FnModel([calls(("add", {"a": 1, "b": 1})), say("2")])
    agent = Agent(model, tools=[add], context=make_context(), guard=GuardConfig(mode="off", fence=False))
    result = await agent.run([Message.text_message("system", "S"), Message.text_message("user", "1+1")])
    assert result.messages[0].text == "S"
    assert next(m for m in result.messages if m.role == "tool").tool_results[0].text == "2"


async def test_oversized_result_is_offloaded_and_read_back(tmp_path: Path) -> None:
    big = "\n".join(f"line {i}: {'x' * 60}" for i in range(2000))
    workspace = LocalWorkspace(tmp_path)

    def dump() -> str:
        return big

    def script(index: int, messages: Sequence[Message]) -> Message:
        if index == 0:
            return calls(("dump", {}))
        if index == 1:
            path = offloaded_path(messages[-1].tool_results[0].text)
            return calls(("read_offloaded", {"path": path, "offset": 1500, "limit": 2}))
        return say("found it")

    model = FnModel(script)
    agent = Agent(model, tools=[dump], window=20_000, counter=BytesCounter(), workspace=workspace)
    assert [t.name for t in agent.tools.specs] == ["read_offloaded", "search_offloaded", "dump"]
    seen = events_of(agent)
    result = await agent.run("dump it")
    assert len(result.offloaded) == 1 and any(e.kind == "offload" for e in seen)
    kept = next(m for m in result.messages if m.role == "tool").tool_results[0].text
    assert "line 1999" not in kept
    read_back = [m for m in result.messages if m.role == "tool"][-1].tool_results[0].text
    stored = workspace.read_text(result.offloaded[0])
    assert stored.endswith("line 1999: " + "x" * 60)
    assert stored.splitlines()[1500] in read_back and stored.splitlines()[1501] in read_back


@pytest.mark.parametrize("fence", [True, False])
async def test_a_full_page_read_back_fits_the_result_limit_and_is_not_offloaded_again(
    tmp_path: Path, fence: bool
) -> None:
    """The read-back tools aim below the tool-result limit by the tool message's framing (and the fence's tags)."""
    big = "\n".join(f"line {i}: {'x' * 60}" for i in range(4000))

    def dump() -> str:
        return big

    def script(index: int, messages: Sequence[Message]) -> Message:
        if index == 0:
            return calls(("dump", {}))
        if index == 1:
            path = offloaded_path(messages[-1].tool_results[0].text)
            return calls(("read_offloaded", {"path": path, "offset": 0, "limit": 4000}))
        return say("read it")

    guard = GuardConfig(fence=fence)
    agent = Agent(
        FnModel(script), tools=[dump], window=20_000, counter=BytesCounter(), workspace=LocalWorkspace(tmp_path),
        guard=guard,
    )  # fmt: skip
    seen = events_of(agent)
    result = await agent.run("dump it")
    offloads = [e for e in seen if e.kind == "offload"]
    assert len(offloads) == 1 and len(result.offloaded) == 1  # the dump; the page read back stays whole
    page = [m for m in result.messages if m.role == "tool"][-1]
    assert "<<<TRUNCATED>>>" not in page.tool_results[0].text and "line 0:" in page.tool_results[0].text
    limit = agent.context.config.result_limit
    assert BytesCounter().count_message(page) <= limit
    assert BytesCounter().count_message(page) > limit * 0.9  # a full page: the cap, not the file, ended it


async def test_context_length_exceeded_compacts_once_and_retries() -> None:
    history = [Message.text_message("user" if i % 2 == 0 else "assistant", f"turn {i} " + "y" * 400) for i in range(40)]
    context = make_context(window=20_000)
    context.extend(history)
    before = len(context.messages)
    error = ContextLengthExceeded("prompt is too long", provider="test")
    model = FnModel([error, say("fine now")])
    agent = Agent(model, tools=[], context=context)
    seen = events_of(agent)
    result = await agent.run("and now?")
    assert result.output == "fine now"
    assert [e.kind for e in seen][:2] == ["retry", "compaction"]
    assert result.compactions and result.compactions[0].reason == "emergency"
    assert len(model.requests[1][0]) < before
    assert result.steps[0].compacted


async def test_context_length_exceeded_twice_propagates() -> None:
    context = make_context(window=20_000)
    context.extend([Message.text_message("user", "q " * 300), Message.text_message("assistant", "a " * 300)] * 10)
    error = ContextLengthExceeded("prompt is too long", provider="test")
    with pytest.raises(ContextLengthExceeded):
        await Agent(FnModel([error, error]), context=context).run("again")


async def test_follow_up_and_reminder_are_drained_before_the_next_call() -> None:
    channel = SteeringChannel()

    def notify() -> str:
        channel.send(FollowUp("Also check the README."))
        channel.send(SystemReminder("Tests are slow."))
        return "noted"

    model = FnModel([calls(("notify", {})), say("ok")])
    agent = Agent(model, tools=[notify], context=make_context(), steering=channel)
    seen = events_of(agent)
    await agent.run("start")
    second = model.requests[1][0]
    assert second[-2].role == "tool"
    assert second[-1].role == "user" and second[-1].text.startswith("Also check the README.")
    assert any(isinstance(b, HintBlock) and b.text == "Tests are slow." for b in second[-1].content)
    info = next(e.data for e in seen if e.kind == "steering")
    assert isinstance(info, SteeringInfo) and (info.follow_ups, info.reminders) == (1, 1)


async def test_follow_up_waiting_after_a_final_answer_keeps_the_run_going() -> None:
    channel = SteeringChannel()

    def script(index: int, messages: Sequence[Message]) -> Message:
        if index == 0:
            channel.send(FollowUp("One more thing."))
            return say("first answer")
        return say("second answer")

    result = await Agent(FnModel(script), context=make_context(), steering=channel).run("hi")
    assert result.output == "second answer" and len(result.steps) == 2


async def test_cancel_mid_tool_lets_running_tools_finish_then_stops() -> None:
    channel = SteeringChannel()
    finished: list[str] = []

    async def stopper() -> str:
        channel.cancel("user pressed stop")
        return "cancel sent"

    async def worker() -> str:
        await asyncio.sleep(0.05)
        finished.append("worker")
        return "work done"

    model = FnModel([calls(("stopper", {}), ("worker", {})), say("never")])
    result = await Agent(model, tools=[stopper, worker], context=make_context(), steering=channel).run("go")
    assert result.stop_reason == "cancelled" and result.cancel_reason == "user pressed stop"
    assert finished == ["worker"] and len(model.requests) == 1
    assert [inner(m.tool_results[0].text) for m in result.messages if m.role == "tool"] == ["cancel sent", "work done"]
    assert_consistent(result.messages)


async def test_cancel_during_the_model_call_answers_calls_without_running_them() -> None:
    channel = SteeringChannel()
    ran: list[int] = []

    def side_effect() -> str:
        ran.append(1)
        return "ran"

    def script(index: int, messages: Sequence[Message]) -> Message:
        channel.cancel()
        return calls(("side_effect", {}))

    result = await Agent(FnModel(script), tools=[side_effect], context=make_context(), steering=channel).run("go")
    assert ran == [] and result.stop_reason == "cancelled"
    answer = next(m for m in result.messages if m.role == "tool").tool_results[0]
    assert answer.is_error and "not run" in answer.text
    assert_consistent(result.messages)


async def test_pause_waits_until_resumed() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    model = FnModel([say("hello")])
    task = asyncio.create_task(Agent(model, context=make_context(), steering=channel).run("hi"))
    await asyncio.sleep(0.05)
    assert not task.done() and model.requests == []
    channel.send(FollowUp("while paused"))
    channel.resume()
    result = await asyncio.wait_for(task, 5)
    assert result.output == "hello"
    assert model.requests[0][0][-1].text == "while paused"


async def test_pause_then_cancel_stops_without_calling_the_model() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    model = FnModel([say("never")])
    task = asyncio.create_task(Agent(model, context=make_context(), steering=channel).run("hi"))
    await asyncio.sleep(0.02)
    channel.cancel("bye")
    result = await asyncio.wait_for(task, 5)
    assert result.stop_reason == "cancelled" and model.requests == []


async def test_max_steps_stops_with_a_consistent_context() -> None:
    model = FnModel(lambda i, m: calls(("add", {"a": i, "b": 1})))
    result = await Agent(model, tools=[add], context=make_context(), max_steps=3).run("loop")
    assert result.stop_reason == "max_steps" and len(model.requests) == 3
    assert_consistent(result.messages)


async def test_hard_task_cancel_during_tools_leaves_no_dangling_call() -> None:
    entered = asyncio.Event()

    async def hang() -> str:
        entered.set()
        await asyncio.sleep(60)
        return "never"

    context = make_context()
    task = asyncio.create_task(Agent(FnModel([calls(("hang", {}))]), tools=[hang], context=context).run("go"))
    await asyncio.wait_for(entered.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    last = context.messages[-1]
    assert last.role == "tool" and last.tool_results[0].is_error
    assert_consistent(context.messages)


async def test_compaction_during_a_long_run_keeps_requests_valid() -> None:
    def cat(n: int) -> str:
        return f"file {n}\n" + "content " * 300

    model = FnModel(lambda i, m: calls(("cat", {"n": i})) if i < 30 else say("done"))
    agent = Agent(model, tools=[cat], context=make_context(window=8_000))
    seen = events_of(agent)
    result = await agent.run("read all files")
    assert result.compactions and any(e.kind == "compaction" for e in seen)
    for messages, _ in model.requests:
        assert_consistent(messages)
    assert max(s.tokens for s in result.steps) <= 8_000


async def test_streamed_text_reaches_the_handler() -> None:
    chunks: list[str] = []
    agent = Agent(FnModel([say("streamed")]), context=make_context(), stream=chunks.append)
    await agent.run("hi")
    assert chunks == ["streamed"]


async def test_fence_layer_added_when_the_input_has_no_system_prompt() -> None:
    model = FnModel([say("ok")])
    fence = Fence("abc")
    await Agent(model, context=make_context(), fence=fence).run("hi")
    first = model.requests[0][0][0]
    assert first.role == "system" and first.text == fence.system_prompt_layer()


def test_configuration_mistakes() -> None:
    with pytest.raises(ConfigError, match="context, a config or a window"):
        Agent(FnModel([]))
    with pytest.raises(ConfigError, match="not both"):
        Agent(FnModel([]), context=make_context(), window=1000)
    with pytest.raises(ConfigError, match="max_steps"):
        Agent(FnModel([]), window=1000, max_steps=0)


def test_agent_built_context_caps_the_tool_result_limit() -> None:
    agent = Agent(FnModel([]), window=16_000)
    config = ContextConfig(window=16_000)
    assert agent.context.config.result_limit == int(config.budget * 0.25) < config.tool_result_limit
    assert agent.context.tools == ()


async def test_message_text_blocks_stay_canonical() -> None:
    result = await Agent(FnModel([say("x")]), context=make_context()).run(Message.text_message("user", "q"))
    assert isinstance(result.messages[-1].content[0], TextBlock)
