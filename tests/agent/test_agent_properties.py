"""Invariant: whatever the model, the tools and the steering do, every request and the final context are valid."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    Agent,
    BytesCounter,
    Context,
    FollowUp,
    LocalWorkspace,
    Message,
    SteeringChannel,
    SystemReminder,
    TextBlock,
    ToolCallBlock,
    ToolSpec,
    validate,
)
from contextfold.models import ModelResponse, Usage

Call = tuple[str, str]  # (tool name, arguments JSON or junk)
Turn = tuple[list[Call], str]  # calls (empty: a plain answer) and text

tool_names = st.sampled_from(["echo", "fail", "big", "nope"])
arguments = st.one_of(
    st.integers(0, 3000).map(lambda n: json.dumps({"n": n})), st.just("{bad json"), st.just('{"m": 1}')
)
turns = st.lists(
    st.tuples(st.lists(st.tuples(tool_names, arguments), max_size=3), st.text(max_size=30)), min_size=1, max_size=12
)
steering_plan = st.lists(st.tuples(st.integers(0, 12), st.sampled_from(["follow", "remind", "cancel"])), max_size=4)


def echo(n: int) -> str:
    """Echo n words."""
    return "word " * n


def fail(n: int) -> str:
    """Always fails."""
    raise RuntimeError(f"failure {n}")


def big(n: int) -> str:
    """A large output."""
    return ("0123456789abcdef " * 200 + "\n") * (1 + n // 100)


class ScriptModel:
    def __init__(self, script: list[Turn], channel: SteeringChannel, plan: list[tuple[int, str]]) -> None:
        self.script = script
        self.channel = channel
        self.plan = plan
        self.requests: list[list[Message]] = []

    async def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (), stream: Any = None
    ) -> ModelResponse:
        index = len(self.requests)
        self.requests.append(list(messages))
        for at, action in self.plan:
            if at == index:
                if action == "follow":
                    self.channel.try_send(FollowUp(f"follow-up {index}"))
                elif action == "remind":
                    self.channel.try_send(SystemReminder(f"reminder {index}"))
                else:
                    self.channel.cancel("plan")
        calls, text = self.script[index] if index < len(self.script) else ([], "the end")
        blocks: list[Any] = [TextBlock(text=text)] if text or not calls else []
        blocks += [ToolCallBlock(id=f"c{index}_{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]
        return ModelResponse(
            message=Message(role="assistant", content=tuple(blocks)),
            usage=Usage(prompt_tokens=0),
            stop_reason="tool_use" if calls else "end_turn",
        )


def no_problems(messages: Sequence[Message]) -> None:
    for provider in ("openai", "anthropic"):
        bad = [p for p in validate(messages, provider) if p.blocking or p.code == "pending_tool_call"]
        assert not bad, (provider, bad[:3])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=turns, plan=steering_plan, window=st.sampled_from([6_000, 12_000, 60_000]), offload=st.booleans())
def test_any_run_leaves_every_request_and_the_context_valid(
    script: list[Turn], plan: list[tuple[int, str]], window: int, offload: bool
) -> None:
    async def go() -> None:
        channel = SteeringChannel()
        model = ScriptModel(script, channel, plan)
        with tempfile.TemporaryDirectory() as tmp:
            workspace = LocalWorkspace(tmp) if offload else None
            context = Context(window=window, counter=BytesCounter(), hints=False, workspace=workspace)
            agent = Agent(model, tools=[echo, fail, big], context=context, steering=channel, max_steps=15)
            result = await agent.run("start")
            for request in model.requests:
                no_problems(request)
            no_problems(result.messages)
            assert max((s.tokens for s in result.steps), default=0) <= window
            if any(action == "cancel" and at < len(model.requests) for at, action in plan):
                assert result.stop_reason == "cancelled"

    asyncio.run(go())
