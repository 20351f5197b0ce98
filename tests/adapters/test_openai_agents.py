"""contextfold inside the OpenAI Agents SDK, against the real SDK and a scripted OpenAI-compatible server.

The SDK talks to tests/provider_server.py on 127.0.0.1 through ``OpenAIChatCompletionsModel`` with its own
``AsyncOpenAI(base_url=...)`` client (the path every non-OpenAI, OpenAI-compatible server takes), and through
a ``ModelProvider`` of our own (what ``RunConfig(model_provider=...)`` is for).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import (
    Agent,
    Model,
    ModelProvider,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.memory.sqlite_session import SQLiteSession
from hypothesis import given
from hypothesis import strategies as st
from openai import AsyncOpenAI
from pydantic import BaseModel

import contextfold
from contextfold import LocalWorkspace, Message
from contextfold.adapters.openai_agents import (
    ContextfoldInputFilter,
    ContextfoldSession,
    items_to_messages,
    messages_to_items,
)
from framework_sessions import (
    STEPS,
    assert_valid_and_fits,
    command,
    next_read,
    offload_path,
    read_back_pages,
    tool_output,
)
from provider_server import ProviderServer, Reply, ToolCall

WINDOW = 6000
set_tracing_disabled(True)


@function_tool
def run(cmd: str) -> str:
    """Run a shell command and return its output."""
    return tool_output(cmd)


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def _client(server: ProviderServer) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0)


def _script(*, readback: bool = False, final: Reply | None = None) -> Callable[[dict[str, Any]], Reply]:
    state: dict[str, Any] = {"step": 0, "path": None, "reads": 0}

    def respond(body: dict[str, Any]) -> Reply:
        results = []
        for m in reversed(body["messages"]):
            if m["role"] == "user" and str(m.get("content", "")).startswith("<system-reminder>"):
                continue
            if m["role"] != "tool":
                break
            results.append(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]))
        if readback:
            offset: int | None = None
            for text in results:
                if state["path"] is None and offload_path(text) is not None:
                    state["path"], offset = offload_path(text), 0
                elif state["path"] is not None and state["reads"]:
                    offset = next_read(text)
            if offset is not None:
                state["reads"] += 1
                args = {"path": state["path"], "offset": offset}
                return Reply(tool_calls=[ToolCall("read_offloaded", args, id=f"rb-{state['reads']}")])
        step = state["step"]
        state["step"] = step + 1
        if step < STEPS:
            return Reply(text=f"step {step}", tool_calls=[ToolCall("run", {"cmd": command(step)})])
        return final if final is not None else Reply(text="all done")

    return respond


def _requests(server: ProviderServer) -> list[list[Message]]:
    return [contextfold.openai_to_messages(body["messages"]) for body in server.bodies("openai")]


def _tool_tokens(server: ProviderServer, counter: Any) -> int:
    body = server.bodies("openai")[-1]
    return contextfold.count_tools(counter, contextfold.tools_from_openai(body.get("tools") or []))


# --- the mapping -------------------------------------------------------------------------------------------------

_text = st.text(max_size=30)
_ids = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)
_item = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, _text),
    st.builds(lambda t: {"role": "system", "content": t}, _text),
    st.builds(lambda t: {"role": "developer", "content": t}, _text),
    st.builds(
        lambda ts: {"type": "message", "role": "user", "content": [{"type": "input_text", "text": t} for t in ts]},
        st.lists(_text, min_size=1, max_size=3),
    ),
    st.builds(
        lambda i, ts: {
            "type": "message",
            "id": i,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": t, "annotations": []} for t in ts],
        },
        _ids,
        st.lists(_text, min_size=1, max_size=2),
    ),
    st.builds(
        lambda i, n, a: {"type": "function_call", "call_id": i, "name": n, "arguments": a, "id": "fc_" + i},
        _ids,
        _ids,
        _text,
    ),
    st.builds(lambda i, o: {"type": "function_call_output", "call_id": i, "output": o}, _ids, _text),
    st.builds(
        lambda i, o: {"type": "function_call_output", "call_id": i, "output": [{"type": "input_text", "text": o}]},
        _ids,
        _text,
    ),
    st.builds(
        lambda i, t, e: {
            "type": "reasoning",
            "id": i,
            "summary": [{"type": "summary_text", "text": t}],
            "encrypted_content": e,
        },
        _ids,
        _text,
        _ids,
    ),
    st.builds(lambda i, t: {"type": "custom_tool_call", "call_id": i, "name": "apply_patch", "input": t}, _ids, _text),
    st.builds(lambda i: {"type": "web_search_call", "id": i, "status": "completed"}, _ids),
)


@given(st.lists(_item, max_size=8))
def test_round_trip_keeps_every_item(items: list[dict[str, Any]]) -> None:
    assert messages_to_items(items_to_messages(items)) == items


def test_mapping_groups_an_assistant_turn() -> None:
    items = [
        {"role": "user", "content": "list files"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "look"}]},
        {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "ls", "arguments": '{"path":"/srv"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        {"type": "function_call_output", "call_id": "c2", "output": "b.py"},
    ]
    messages = items_to_messages(items)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert [b.kind for b in messages[1].content] == ["thinking", "tool_call", "tool_call"]
    assert contextfold.validate(messages, "openai") == []


# --- a real agent ------------------------------------------------------------------------------------------------


def _chat_agent(client: AsyncOpenAI, **kwargs: Any) -> Agent[Any]:
    return Agent(name="a", tools=kwargs.pop("tools", [run]), model=OpenAIChatCompletionsModel("m", client), **kwargs)


def test_a_long_tool_session_compacts_and_every_request_is_valid_and_fits(
    server: ProviderServer, tmp_path: Path
) -> None:
    server.respond_with(_script())
    session = ContextfoldSession("s1", window=WINDOW, workspace=LocalWorkspace(tmp_path))
    flt = session.input_filter

    async def main() -> Any:
        async with _client(server) as client:
            agent = _chat_agent(client, instructions="You are terse.")
            config = RunConfig(call_model_input_filter=flt)
            return await Runner.run(agent, "inspect every module", session=session, run_config=config, max_turns=100)

    result = asyncio.run(main())
    assert result.final_output == "all done"
    assert flt.context.compactions >= 2
    requests = _requests(server)
    assert len(requests) == STEPS + 1
    counter = session.context.counter
    assert_valid_and_fits(requests, counter, WINDOW - _tool_tokens(server, counter))
    # After the run the stored history is compacted too (the store was rewritten).
    assert session.compactions >= 1
    stored = items_to_messages(asyncio.run(session.get_items()))
    assert contextfold.count_messages(counter, stored) <= session.context.config.trigger_tokens


def test_the_model_reads_offloaded_output_back_byte_for_byte(server: ProviderServer, tmp_path: Path) -> None:
    server.respond_with(_script(readback=True))
    workspace = LocalWorkspace(tmp_path)
    flt = ContextfoldInputFilter(window=WINDOW, workspace=workspace)
    readback = flt.readback_tools()

    async def main() -> Any:
        async with _client(server) as client:
            agent = _chat_agent(client, tools=[run, *readback])
            config = RunConfig(call_model_input_filter=flt)
            return await Runner.run(agent, "inspect every module", run_config=config, max_turns=100)

    result = asyncio.run(main())
    assert result.final_output == "all done"
    offloaded = [ref for ref in workspace.items() if ref.kind == "tool_result"]
    assert offloaded
    original = workspace.resolve(offloaded[0]).read_text(encoding="utf-8")
    assert original.count("\n") > 40
    assert read_back_pages(_requests(server)) == original.rstrip("\n")


def test_streaming_keeps_working(server: ProviderServer, tmp_path: Path) -> None:
    server.respond_with(_script())
    flt = ContextfoldInputFilter(window=WINDOW, workspace=LocalWorkspace(tmp_path))

    async def main() -> tuple[Any, int]:
        async with _client(server) as client:
            config = RunConfig(call_model_input_filter=flt)
            streamed = Runner.run_streamed(
                _chat_agent(client), "inspect every module", run_config=config, max_turns=100
            )
            events = 0
            async for _event in streamed.stream_events():
                events += 1
            return streamed.final_output, events

    output, events = asyncio.run(main())
    assert output == "all done" and events > STEPS
    assert all(body.get("stream") for body in server.bodies("openai"))
    assert flt.context.compactions >= 2
    counter = flt.context.counter
    assert_valid_and_fits(_requests(server), counter, WINDOW - _tool_tokens(server, counter))


class Report(BaseModel):
    modules: int
    summary: str


def test_structured_output_keeps_working(server: ProviderServer, tmp_path: Path) -> None:
    server.respond_with(_script(final=Reply(text=json.dumps({"modules": STEPS, "summary": "ok"}))))
    flt = ContextfoldInputFilter(window=WINDOW, workspace=LocalWorkspace(tmp_path))

    async def main() -> Any:
        async with _client(server) as client:
            agent = _chat_agent(client, output_type=Report)
            config = RunConfig(call_model_input_filter=flt)
            return await Runner.run(agent, "inspect every module", run_config=config, max_turns=100)

    result = asyncio.run(main())
    assert result.final_output == Report(modules=STEPS, summary="ok")
    assert server.bodies("openai")[-1]["response_format"]["type"] == "json_schema"
    assert flt.context.compactions >= 2


def test_a_stored_session_resumes_with_the_same_prefix(server: ProviderServer, tmp_path: Path) -> None:
    server.respond_with(_script())
    db = tmp_path / "sessions.db"
    workspace = LocalWorkspace(tmp_path, "s1")

    async def first_run() -> list[Any]:
        first = ContextfoldSession("s1", window=WINDOW, workspace=workspace, store=SQLiteSession("s1", db))
        async with _client(server) as client:
            await Runner.run(_chat_agent(client), "inspect every module", session=first, max_turns=100)
        assert first.compactions >= 1
        return await first.get_items()

    stored = asyncio.run(first_run())
    # Another process: a new session object over the same database.
    server.respond_with(lambda body: Reply(text="resumed"))
    before = len(server.bodies("openai"))

    async def second_run() -> Any:
        second = ContextfoldSession("s1", window=WINDOW, workspace=workspace, store=SQLiteSession("s1", db))
        assert await second.get_items() == stored
        async with _client(server) as client:
            config = RunConfig(call_model_input_filter=second.input_filter)
            return await Runner.run(_chat_agent(client), "one more thing", session=second, run_config=config)

    result = asyncio.run(second_run())
    assert result.final_output == "resumed"
    sent = server.bodies("openai")[before]["messages"]
    expected = contextfold.messages_to_openai(items_to_messages(stored))
    assert sent[: len(expected)] == expected


class LocalProvider(ModelProvider):
    """A model provider for a non-OpenAI, OpenAI-compatible server (what a vLLM or Ollama user writes)."""

    def __init__(self, client: AsyncOpenAI) -> None:
        self.client = client
        self.asked: list[str | None] = []

    def get_model(self, model_name: str | None) -> Model:
        self.asked.append(model_name)
        return OpenAIChatCompletionsModel(model=model_name or "local", openai_client=self.client)


def test_a_non_openai_model_through_a_model_provider(server: ProviderServer, tmp_path: Path) -> None:
    server.respond_with(_script())
    session = ContextfoldSession("s1", window=WINDOW, workspace=LocalWorkspace(tmp_path))

    async def main() -> tuple[Any, LocalProvider]:
        async with _client(server) as client:
            provider = LocalProvider(client)
            agent = Agent(name="a", tools=[run], model="llama-3.3-70b-local")
            config = RunConfig(model_provider=provider, call_model_input_filter=session.input_filter)
            result = await Runner.run(agent, "inspect every module", session=session, run_config=config, max_turns=100)
            return result, provider

    result, provider = asyncio.run(main())
    assert result.final_output == "all done"
    assert provider.asked and provider.asked[0] == "llama-3.3-70b-local"
    assert {body["model"] for body in server.bodies("openai")} == {"llama-3.3-70b-local"}
    counter = session.context.counter
    assert_valid_and_fits(_requests(server), counter, WINDOW - _tool_tokens(server, counter))
    assert session.compactions >= 1


def test_run_compaction_with_force_compacts_now(tmp_path: Path) -> None:
    session = ContextfoldSession("s1", window=WINDOW, workspace=LocalWorkspace(tmp_path))
    items: list[Any] = [{"role": "user", "content": "start"}]
    for i in range(16):
        items.append(
            {"type": "function_call", "call_id": f"c{i}", "name": "run", "arguments": json.dumps({"cmd": command(i)})}
        )
        items.append({"type": "function_call_output", "call_id": f"c{i}", "output": tool_output(command(i))[:600]})
    asyncio.run(session.add_items(items))
    config = session.context.config
    # Over the budget (so there is something to compact) but under the trigger (so nothing compacted yet).
    assert config.budget < session.context.tokens < config.trigger_tokens
    assert session.compactions == 0
    asyncio.run(session.run_compaction({"force": True}))
    assert session.compactions == 1
    stored = asyncio.run(session.get_items())
    assert len(stored) < len(items)
    assert contextfold.validate(items_to_messages(stored), "openai") == []


def test_without_the_sdk_the_import_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['agents'] = None\n"
        "try:\n"
        "    import contextfold.adapters.openai_agents\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "MissingExtraError contextfold.adapters.openai_agents needs the 'openai-agents' package: "
        "pip install 'contextfold[openai-agents]'"
    )


def test_the_runner_calls_run_compaction_with_the_sdk_test_model(tmp_path: Path) -> None:
    # The SDK's own scripted model reports a response id, so after the final turn (no local tool outputs)
    # the runner calls the session's compaction hook.
    from agents.testing import ScriptedModel, assistant_message, function_call

    steps: list[Any] = [[function_call("run", {"cmd": command(i)}, call_id=f"c{i}")] for i in range(STEPS)]
    model = ScriptedModel([*steps, [assistant_message("all done")]])
    session = ContextfoldSession("s1", window=WINDOW, workspace=LocalWorkspace(tmp_path))
    agent = Agent(name="a", tools=[run], model=model)
    config = RunConfig(call_model_input_filter=session.input_filter)
    result = asyncio.run(Runner.run(agent, "inspect every module", session=session, run_config=config, max_turns=100))
    assert result.final_output == "all done"
    assert session.compaction_calls and session.compaction_calls[-1]["response_id"] == "resp-789"
    assert session.compactions >= 1
    requests = [items_to_messages(call.input) for call in model.calls]
    assert_valid_and_fits(requests, session.context.counter, WINDOW)
