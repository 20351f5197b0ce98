"""The agent loop through our adapters and the official SDKs, against the local fake provider.

The fake server rejects what the real providers reject (Anthropic role
alternation, OpenAI tool results without a call), so a request that reaches a
scripted reply is a request the provider would have accepted.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contextfold import (
    Agent,
    AgentEvent,
    BytesCounter,
    Context,
    ContextConfig,
    FollowUp,
    LocalWorkspace,
    SteeringChannel,
    validate,
)
from contextfold.models import AnthropicChatModel, ChatModel, OpenAIChatModel
from provider_server import ErrorReply, ProviderServer, Reply, ToolCall

PROVIDERS = ["openai", "anthropic"]
AWS_KEY = "AKIAZ3MHQW5LPVXA7RQB"


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def adapter(provider: str, server: ProviderServer) -> ChatModel:
    if provider == "openai":
        return OpenAIChatModel("gpt-test", base_url=server.openai_base_url, api_key="sk-test", max_retries=0)
    return AnthropicChatModel("claude-test", base_url=server.anthropic_base_url, api_key="sk-test", max_retries=0)


def context(window: int, workspace: LocalWorkspace | None = None) -> Context:
    config = ContextConfig(window=window, tool_result_limit=max(200, window // 8))
    return Context(config, counter=BytesCounter(), hints=False, workspace=workspace, system="You read files.")


def body_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return list(body["messages"])


def consistent(messages: Any) -> None:
    for provider in PROVIDERS:
        assert [p for p in validate(messages, provider) if p.blocking or p.code == "pending_tool_call"] == []


def read_chunk(n: int) -> str:
    """Read chunk n of a long file."""
    return f"chunk {n}\n" + f"data line for chunk {n}\n" * 120


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_multi_turn_session_crosses_the_trigger_and_compacts(provider: str, server: ProviderServer) -> None:
    turns = 14

    def respond(body: dict[str, Any]) -> Reply:
        n = len(server.requests)
        if n <= turns:
            return Reply(text=f"Reading chunk {n}.", tool_calls=[ToolCall("read_chunk", {"n": n})])
        return Reply(text="I read every chunk.")

    server.respond_with(respond)
    ctx = context(8_000)
    streamed: list[str] = []
    events: list[AgentEvent] = []
    async with adapter(provider, server) as model:  # type: ignore[attr-defined]
        agent = Agent(model, tools=[read_chunk], context=ctx, on_event=events.append, stream=streamed.append)
        result = await agent.run("Read the whole file, chunk by chunk.")
    assert result.stop_reason == "end_turn" and result.output == "I read every chunk."
    assert result.compactions and any(e.kind == "compaction" for e in events)
    bodies = server.bodies(provider)
    assert len(bodies) == turns + 1  # every request was accepted: no 400 from the validating server
    sizes = [len(body_messages(b)) for b in bodies]
    assert max(sizes) < 2 * turns and sizes[-1] < sizes[turns // 2 + 2] + 2 * turns
    assert "".join(streamed).startswith("Reading chunk 1.")
    assert all(s.prompt_tokens > 0 for s in result.steps)
    consistent(result.messages)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_context_length_exceeded_triggers_emergency_compaction_and_retry(
    provider: str, server: ProviderServer
) -> None:
    ctx = context(40_000)
    for i in range(30):
        ctx.append({"role": "user", "content": f"question {i} " + "q" * 300})
        ctx.append({"role": "assistant", "content": f"answer {i} " + "a" * 300})
    server.queue(ErrorReply.context_length_exceeded(), Reply(text="Recovered."))
    events: list[AgentEvent] = []
    async with adapter(provider, server) as model:  # type: ignore[attr-defined]
        result = await Agent(model, context=ctx, on_event=events.append).run("Summarize.")
    assert result.output == "Recovered."
    kinds = [e.kind for e in events]
    assert kinds.index("retry") < kinds.index("compaction")
    assert result.compactions[0].reason == "emergency"
    first, retry = server.bodies(provider)
    assert len(body_messages(retry)) < len(body_messages(first))


async def test_cancel_mid_tool_finishes_the_running_tools_and_stops(server: ProviderServer) -> None:
    channel = SteeringChannel()
    started = asyncio.Event()

    async def long_job() -> str:
        started.set()
        await asyncio.sleep(0.1)
        return "job finished"

    async def watcher() -> str:
        await started.wait()
        channel.cancel("stop button")
        return "cancel requested"

    server.queue(Reply(tool_calls=[ToolCall("long_job", {}), ToolCall("watcher", {})]), Reply(text="never sent"))
    async with adapter("openai", server) as model:  # type: ignore[attr-defined]
        agent = Agent(model, tools=[long_job, watcher], context=context(20_000), steering=channel)
        result = await agent.run("Run the job.")
    assert result.stop_reason == "cancelled" and result.cancel_reason == "stop button"
    assert len(server.bodies("openai")) == 1 and server.replies_left == 1
    texts = [m.tool_results[0].text for m in result.messages if m.role == "tool"]
    assert "job finished" in texts[0] and "cancel requested" in texts[1]
    consistent(result.messages)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_follow_up_injected_mid_run_reaches_the_next_request(provider: str, server: ProviderServer) -> None:
    channel = SteeringChannel()

    def look() -> str:
        """Look around."""
        channel.send(FollowUp("Also list the tests, please."))
        return "src/ lib/"

    server.queue(Reply(tool_calls=[ToolCall("look", {})]), Reply(text="Listed."))
    async with adapter(provider, server) as model:  # type: ignore[attr-defined]
        result = await Agent(model, tools=[look], context=context(20_000), steering=channel).run("Look.")
    assert result.output == "Listed."
    last = body_messages(server.bodies(provider)[1])[-1]
    assert last["role"] == "user" and "Also list the tests, please." in json.dumps(last)
    if provider == "anthropic":  # tool result and follow-up share the one user turn, result first
        assert next(b["type"] for b in last["content"]) == "tool_result"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_guard_redacts_a_leaked_key_before_the_next_request(provider: str, server: ProviderServer) -> None:
    def env_dump() -> str:
        """Print the environment."""
        return f"HOME=/home/dev\nAWS_ACCESS_KEY_ID={AWS_KEY}\nPATH=/usr/bin\n"

    server.queue(Reply(tool_calls=[ToolCall("env_dump", {})]), Reply(text="Done."))
    events: list[AgentEvent] = []
    async with adapter(provider, server) as model:  # type: ignore[attr-defined]
        await Agent(model, tools=[env_dump], context=context(20_000), on_event=events.append).run("Check env.")
    second = json.dumps(server.bodies(provider)[1])
    assert AWS_KEY not in second and "[redacted:aws-access-key]" in second and "PATH=/usr/bin" in second
    assert [e.kind for e in events].count("guard") == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_oversized_result_is_offloaded_and_read_back_by_the_model(
    provider: str, server: ProviderServer, tmp_path: Path
) -> None:
    lines = [f"row {i:05d} value={i * 7}" for i in range(3000)]

    def export() -> str:
        """Export the table."""
        return "\n".join(lines)

    def respond(body: dict[str, Any]) -> Reply:
        n = len(server.requests)
        if n == 1:
            return Reply(tool_calls=[ToolCall("export", {})])
        if n == 2:
            text = json.dumps(body_messages(body)[-1])
            path = re.search(r"tool_results/[\w.-]+\.txt", text)
            assert path is not None, "the reminder names the workspace file"
            return Reply(tool_calls=[ToolCall("read_offloaded", {"path": path.group(0), "offset": 2000, "limit": 3})])
        return Reply(text="Row found.")

    server.respond_with(respond)
    workspace = LocalWorkspace(tmp_path)
    async with adapter(provider, server) as model:  # type: ignore[attr-defined]
        agent = Agent(model, tools=[export], context=context(16_000, workspace))
        result = await agent.run("Find row 2500.")
    assert result.output == "Row found." and len(result.offloaded) == 1
    stored = workspace.read_text(result.offloaded[0]).splitlines()
    assert stored[-1] == lines[-1]
    first_request_tools = {t.get("name") or t["function"]["name"] for t in server.bodies(provider)[0]["tools"]}
    assert {"read_offloaded", "search_offloaded", "export"} <= first_request_tools
    read_back = json.dumps(body_messages(server.bodies(provider)[2])[-1])
    for wanted in stored[2000:2003]:
        assert wanted in read_back
    assert lines[-1] not in json.dumps(server.bodies(provider)[1])  # the rest never reached the model unasked
