"""Replaying a recording through the agent: turns in order, results by id, follow-ups, the end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from contextfold import (
    END_OF_RECORDING,
    Agent,
    BytesCounter,
    ConfigError,
    Context,
    GuardConfig,
    InputError,
    LocalWorkspace,
    Message,
    ReplayExhausted,
    ReplayModel,
    ReplayTools,
    SteeringChannel,
    parse_transcripts,
    replay,
    validate,
)
from contextfold._agent._replay import ReplayScript

NO_FENCE = GuardConfig(fence=False)


def conv(*messages: dict[str, Any], tools: list[dict[str, Any]] | None = None) -> Any:
    doc: dict[str, Any] = {"id": "t", "messages": list(messages)}
    if tools is not None:
        doc["tools"] = tools
    return parse_transcripts(json.dumps(doc))[0]


def call(cid: str, name: str = "bash", args: str = '{"command": "ls"}', text: str | None = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}}],
    }


def result(cid: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": text}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


SYSTEM = {"role": "system", "content": "You are a shell agent."}


def build(
    transcript: Any, *, window: int = 50_000, workspace: LocalWorkspace | None = None
) -> tuple[Agent, ReplayModel]:
    model = ReplayModel(transcript)
    tools = ReplayTools(model.script, steering=model.steering)
    context = Context(window=window, counter=BytesCounter(), hints=False, workspace=workspace)
    agent = Agent(model, tools=tools, context=context, steering=model.steering, guard=NO_FENCE, max_steps=500)
    return agent, model


def valid(messages: Any) -> None:
    for provider in ("openai", "anthropic"):
        assert [p for p in validate(messages, provider) if p.blocking or p.code == "pending_tool_call"] == []


async def test_replays_turns_results_and_follow_ups_in_recording_order() -> None:
    t = conv(
        SYSTEM,
        user("list files"),
        call("c1", text="Looking."),
        result("c1", "a.txt"),
        user("Please use exactly one command."),
        call("c2"),
        result("c2", "b.txt"),
        assistant("Two files."),
    )
    agent, model = build(t)
    out = await replay(agent, model)
    assert out.stop_reason == "end_turn" and out.output == "Two files."
    assert [m.role for m in out.messages] == [m.role for m in t.messages]
    assert [m.text for m in out.messages] == [m.text for m in t.messages]
    assert [r.text for m in out.messages for r in m.tool_results] == ["a.txt", "b.txt"]
    assert model.remaining == 0 and model.served == 3
    assert [n for n, _ in model.requests] == [2, 5, 7]


async def test_usage_is_estimated_from_what_is_sent() -> None:
    t = conv(SYSTEM, user("hi"), assistant("hello"))
    model = ReplayModel(t)
    response = await model.complete(t.messages[:2])
    counter = BytesCounter()
    assert response.usage.prompt_tokens == sum(counter.count_message(m) for m in t.messages[:2])
    assert response.usage.completion_tokens == counter.count_message(t.messages[2])
    with pytest.raises(ReplayExhausted, match="no assistant turn left"):
        await model.complete(t.messages)


async def test_trailing_call_without_result_gets_an_error_and_the_run_stops_cleanly() -> None:
    t = conv(SYSTEM, user("fix it"), call("c1"), result("c1", "ok"), call("c2", name="finish", args="{}"))
    agent, model = build(t)
    tools = agent.tools
    out = await replay(agent, model)
    assert out.stop_reason == "cancelled" and out.cancel_reason == END_OF_RECORDING
    last = out.messages[-1].tool_results[0]
    assert last.is_error and "no result was recorded" in last.text
    assert isinstance(tools, ReplayTools) and (tools.answered, tools.missing) == (1, 1)
    valid(out.messages)


async def test_trailing_user_messages_are_not_fed() -> None:
    t = conv(
        SYSTEM, user("book a flight"), assistant("Which date?"), user("Tomorrow"), assistant("Booked."), user("thanks")
    )
    agent, model = build(t)
    out = await replay(agent, model)
    assert out.output == "Booked." and out.messages[-1].text == "Booked."
    assert model.script.trailing[0].text == "thanks"
    assert [m.text for m in out.messages if m.role == "user"] == ["book a flight", "Tomorrow"]


async def test_two_assistant_turns_in_a_row_resume_the_run() -> None:
    t = conv(SYSTEM, user("go"), assistant("thinking"), assistant("done"))
    agent, model = build(t)
    out = await replay(agent, model)
    assert out.output == "done" and len(out.steps) == 2 and model.remaining == 0


async def test_repeated_call_ids_are_renamed_so_requests_stay_valid() -> None:
    t = conv(SYSTEM, user("x"), call("dup"), result("dup", "one"), call("dup"), result("dup", "two"), assistant("ok"))
    script = ReplayScript.from_recording(t)
    ids = [c.id for turn in script.turns for c in turn.message.tool_calls]
    assert ids == ["dup", "dup_r2"]
    agent, model = build(t)
    out = await replay(agent, model)
    assert [r.text for m in out.messages for r in m.tool_results] == ["one", "two"]
    valid(out.messages)


def test_tools_are_derived_when_the_recording_has_none() -> None:
    t = conv(SYSTEM, user("x"), call("a", name="search"), result("a", "r"), call("b", name="book"), result("b", "r"))
    assert [s.name for s in ReplayModel(t).tools] == ["search", "book"]
    with_tools = conv(
        SYSTEM, user("x"), assistant("y"), tools=[{"type": "function", "function": {"name": "bash", "parameters": {}}}]
    )
    assert [s.name for s in ReplayModel(with_tools).tools] == ["bash"]


def test_a_recording_without_assistant_turns_is_refused() -> None:
    with pytest.raises(InputError, match="no assistant turn"):
        ReplayModel([Message.text_message("user", "hello")])


async def test_replay_needs_the_models_steering_channel() -> None:
    t = conv(SYSTEM, user("x"), assistant("y"))
    model = ReplayModel(t)
    agent = Agent(model, context=Context(window=10_000, hints=False), steering=SteeringChannel())
    with pytest.raises(ConfigError, match="steering channel"):
        await replay(agent, model)


async def test_shipped_demo_transcript_replays_with_compaction_and_valid_requests(tmp_path: Path) -> None:
    from contextfold._cli._demo import load_demo_transcript

    transcript = load_demo_transcript()
    agent, model = build(transcript, window=16_000, workspace=LocalWorkspace(tmp_path))
    requests: list[list[Message]] = []
    inner = model.complete

    async def spy(messages: Any, **kwargs: Any) -> Any:
        requests.append(list(messages))
        return await inner(messages, **kwargs)

    model.complete = spy  # type: ignore[method-assign]
    out = await replay(agent, model)
    assert out.cancel_reason == END_OF_RECORDING and model.remaining == 0
    assert len(out.compactions) >= 3
    assert len(requests) == len(model.script.turns)
    for request in requests[:: max(1, len(requests) // 25)]:
        valid(request)
    assert max(s.tokens for s in out.steps) <= 16_000
    # Nothing is lost: every recorded result is in the final context, a context archive or an offloaded file.
    workspace = LocalWorkspace.open(next(p.parent for p in tmp_path.rglob("index.jsonl")))
    pool: list[str] = [r.text for m in out.messages for r in m.tool_results]
    for item in workspace.items():
        if item.kind == "context":
            pool += [r.text for m in workspace.read_messages(item) for r in m.tool_results]
        elif item.kind == "tool_result":
            pool.append(workspace.read_text(item))
    everything = "\n".join(pool)
    recorded = [r.text for m in transcript.messages for r in m.tool_results]
    assert all(text[:200] in everything for text in recorded)


def test_replay_is_deterministic() -> None:
    t = conv(
        SYSTEM, user("go"), call("c1"), result("c1", "x" * 5000), call("c2"), result("c2", "y" * 5000), assistant("z")
    )

    def once() -> list[str]:
        agent, model = build(t, window=3_000)
        out = asyncio.run(replay(agent, model))
        return [m.text + "".join(r.text for r in m.tool_results) for m in out.messages]

    assert once() == once()
