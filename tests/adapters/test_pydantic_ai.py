"""contextfold inside pydantic-ai, against the real framework and its own test models (FunctionModel, TestModel)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage

import contextfold
from contextfold import LocalWorkspace, Message, ToolResultBlock
from contextfold._runtime._hints import FixedClock
from contextfold.adapters.pydantic_ai import (
    ContextfoldCapability,
    ContextfoldHistory,
    messages_from_pydantic_ai,
    messages_to_pydantic_ai,
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

WINDOW = 6000


def _json(messages: list[ModelMessage]) -> Any:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


# --- the mapping -------------------------------------------------------------------------------------------------

_text = st.text(min_size=0, max_size=40)
_ids = st.text(alphabet="abcdefghij0123456789", min_size=1, max_size=8)
_when = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC))
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_media = st.one_of(
    st.builds(ImageUrl, url=st.sampled_from(["https://example.com/a.png", "https://example.com/b.jpg"])),
    st.builds(BinaryContent, data=st.binary(min_size=1, max_size=20), media_type=st.just("image/png")),
)
_request_part = st.one_of(
    st.builds(SystemPromptPart, content=_text, timestamp=_when),
    st.builds(UserPromptPart, content=_text, timestamp=_when),
    st.builds(UserPromptPart, content=st.lists(_text | _media, min_size=1, max_size=3), timestamp=_when),
    st.builds(
        ToolReturnPart,
        tool_name=_ids,
        content=_text | st.dictionaries(_ids, _json_values, max_size=3),
        tool_call_id=_ids,
        timestamp=_when,
        metadata=st.none() | st.dictionaries(_ids, _text, max_size=2),
    ),
)
_response_part = st.one_of(
    st.builds(TextPart, content=_text, id=st.none() | _ids),
    st.builds(
        ThinkingPart,
        content=_text,
        signature=st.none() | _ids,
        provider_name=st.none() | st.just("anthropic"),
    ),
    st.builds(
        ToolCallPart,
        tool_name=_ids,
        args=_text | st.dictionaries(_ids, _json_values, max_size=3),
        tool_call_id=_ids,
        provider_details=st.none() | st.dictionaries(_ids, _text, max_size=2),
    ),
)
_message = st.one_of(
    st.builds(
        ModelRequest,
        parts=st.lists(_request_part, min_size=0, max_size=4),
        instructions=st.none() | _text,
        timestamp=st.none() | _when,
    ),
    st.builds(
        ModelResponse,
        parts=st.lists(_response_part, min_size=0, max_size=4),
        usage=st.builds(RequestUsage, input_tokens=st.integers(0, 10**6), output_tokens=st.integers(0, 10**4)),
        model_name=st.none() | _ids,
        timestamp=_when,
        provider_response_id=st.none() | _ids,
    ),
)


@given(st.lists(_message, max_size=6))
def test_round_trip_keeps_every_field(history: list[ModelMessage]) -> None:
    # pydantic-ai's own JSON round trip fills in derived fields (an ImageUrl's media type); what comes back
    # through contextfold must be exactly what comes back through pydantic-ai's own serialization.
    own = ModelMessagesTypeAdapter.validate_python(_json(history))
    back = messages_to_pydantic_ai(messages_from_pydantic_ai(history))
    assert _json(back) == _json(own)


def test_mapping_gives_canonical_blocks() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("be brief"), UserPromptPart("list files")]),
        ModelResponse(
            parts=[
                ThinkingPart("let me look", signature="sig-1"),
                ToolCallPart("ls", {"path": "/srv"}, "call-1"),
            ]
        ),
        ModelRequest(parts=[ToolReturnPart("ls", {"files": ["a.py"]}, "call-1")]),
    ]
    messages = messages_from_pydantic_ai(history)
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]
    thinking, call = messages[2].content
    assert isinstance(thinking, contextfold.ThinkingBlock) and thinking.signature == "sig-1"
    assert isinstance(call, contextfold.ToolCallBlock) and call.id == "call-1" and call.arguments == '{"path":"/srv"}'
    (result,) = messages[3].content
    assert isinstance(result, ToolResultBlock) and result.call_id == "call-1" and result.text == '{"files":["a.py"]}'
    assert contextfold.validate(messages, "openai") == []


def test_a_rewritten_result_goes_back_as_its_new_text() -> None:
    # A compaction may rewrite a kept result (the clear tier keeps the block's meta): the structured
    # return carried in meta must not come back in place of the new text.
    history: list[ModelMessage] = [
        ModelResponse(parts=[ToolCallPart("ls", {}, "c1")]),
        ModelRequest(parts=[ToolReturnPart("ls", {"files": ["a.py"]}, "c1")]),
    ]
    messages = messages_from_pydantic_ai(history)
    (block,) = messages[1].content
    assert isinstance(block, ToolResultBlock)
    cleared = Message(
        role="tool",
        content=(
            ToolResultBlock(
                call_id="c1", content=(contextfold.TextBlock(text="[cleared]"),), name="ls", meta=block.meta
            ),
        ),
    )
    back = messages_to_pydantic_ai([messages[0], cleared])
    part = back[1].parts[0]
    assert isinstance(part, ToolReturnPart) and part.content == "[cleared]" and part.tool_call_id == "c1"


# --- a real agent ------------------------------------------------------------------------------------------------


def _scripted(requests: list[list[Message]], *, readback: bool = False) -> FunctionModel:
    """A model that runs ``run`` STEPS times (reading an offloaded output back when told), then answers."""
    state: dict[str, Any] = {"step": 0, "path": None, "reads": 0}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(messages_from_pydantic_ai(messages))
        last = messages[-1]
        texts = [p.model_response_str() for p in getattr(last, "parts", []) if isinstance(p, ToolReturnPart)]
        if readback:
            offset: int | None = None
            for text in texts:
                if state["path"] is None and offload_path(text) is not None:
                    state["path"], offset = offload_path(text), 0
                elif state["path"] is not None and state["reads"]:
                    offset = next_read(text)
            if offset is not None:
                state["reads"] += 1
                args = {"path": state["path"], "offset": offset}
                return ModelResponse(parts=[ToolCallPart("read_offloaded", args, f"rb-{state['reads']}")])
        step = state["step"]
        state["step"] = step + 1
        if step < STEPS:
            return ModelResponse(
                parts=[TextPart(f"step {step}"), ToolCallPart("run", {"cmd": command(step)}, f"c{step}")]
            )
        return ModelResponse(parts=[TextPart("all done")])

    return FunctionModel(respond)


def _run(agent: Agent[None, Any], prompt: str, **kwargs: Any) -> Any:
    """``agent.run`` on a fresh event loop (``run_sync`` keeps a per-thread loop open, a ResourceWarning)."""
    return asyncio.run(agent.run(prompt, **kwargs))


def _agent(model: Any, capability: Any, **kwargs: Any) -> Agent[None, Any]:
    agent: Agent[None, Any] = Agent(model, capabilities=[capability], **kwargs)

    @agent.tool_plain
    def run(cmd: str) -> str:
        """Run a shell command and return its output."""
        return tool_output(cmd)

    return agent


def test_a_long_tool_session_compacts_and_every_request_is_valid_and_fits(tmp_path: Path) -> None:
    requests: list[list[Message]] = []
    capability = ContextfoldCapability(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    result = _run(_agent(_scripted(requests), capability), "inspect every module")
    assert result.output == "all done"
    assert capability.context.compactions >= 2
    assert len(requests) == STEPS + 1
    counter = capability.history.settings.counter
    assert counter is not None
    tools = contextfold.count_tools(counter, capability.context.tools)
    assert tools > 0  # the request's tool definitions are counted
    assert_valid_and_fits(requests, counter, WINDOW - tools)
    # What the run keeps is the compacted history (ProcessHistory writes it back): a summary leads it.
    first_user = next(m for m in messages_from_pydantic_ai(result.all_messages()) if m.role == "user")
    assert first_user.text.startswith("Summary of earlier conversation")


def test_the_model_reads_offloaded_output_back_byte_for_byte(tmp_path: Path) -> None:
    requests: list[list[Message]] = []
    workspace = LocalWorkspace(tmp_path)
    capability = ContextfoldCapability(window=WINDOW, workspace=workspace)
    result = _run(_agent(_scripted(requests, readback=True), capability), "inspect every module")
    assert result.output == "all done"
    offloaded = [ref for ref in workspace.items() if ref.kind == "tool_result"]
    assert offloaded
    read_back = read_back_pages(requests)
    original = workspace.resolve(offloaded[0]).read_text(encoding="utf-8")
    assert original.count("\n") > 40  # several pages
    assert read_back == original.rstrip("\n")


def test_the_sync_and_async_processor_forms_run_under_process_history() -> None:
    async_history = ContextfoldHistory(window=WINDOW)
    sync_history = ContextfoldHistory(window=WINDOW)
    for processor, history in ((async_history, async_history), (sync_history.sync, sync_history)):
        requests: list[list[Message]] = []
        result = _run(_agent(_scripted(requests), ProcessHistory(processor)), "inspect every module")
        assert result.output == "all done"
        assert history.context.compactions >= 2
        assert history.settings.counter is not None
        assert_valid_and_fits(requests, history.settings.counter, WINDOW)


def test_streaming_runs_through_the_capability(tmp_path: Path) -> None:
    requests: list[list[Message]] = []
    step = {"n": 0}

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        requests.append(messages_from_pydantic_ai(messages))
        n = step["n"]
        step["n"] = n + 1
        if n < STEPS:
            yield {0: DeltaToolCall(name="run", json_args=f'{{"cmd": "{command(n)}"}}', tool_call_id=f"s{n}")}
        else:
            for word in ("all ", "streamed ", "done"):
                yield word

    capability = ContextfoldCapability(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    agent = _agent(FunctionModel(stream_function=stream), capability)

    async def main() -> list[str]:
        async with agent.run_stream("inspect every module") as run:
            return [chunk async for chunk in run.stream_text(delta=True)]

    chunks = asyncio.run(main())
    assert "".join(chunks) == "all streamed done"
    assert capability.context.compactions >= 2
    assert capability.history.settings.counter is not None
    assert_valid_and_fits(requests, capability.history.settings.counter, WINDOW)


class Report(BaseModel):
    modules: int
    summary: str


def test_structured_output_and_the_output_tool_are_kept(tmp_path: Path) -> None:
    capability = ContextfoldCapability(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    agent = _agent(TestModel(custom_output_args={"modules": 3, "summary": "ok"}), capability, output_type=Report)
    result = _run(agent, "inspect")
    assert result.output == Report(modules=3, summary="ok")
    assert any(spec.name == "final_result" for spec in capability.context.tools)


def test_hints_go_in_as_a_user_prompt_part_of_the_last_request() -> None:
    clock = FixedClock(datetime(2026, 3, 1, 9, 30, tzinfo=UTC))
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart("hello")])

    capability = ContextfoldCapability(window=WINDOW, clock=clock)
    _run(Agent(FunctionModel(respond), capabilities=[capability]), "what time is it?")
    last = seen[0][-1]
    assert isinstance(last, ModelRequest)
    hint = last.parts[-1]
    assert isinstance(hint, UserPromptPart) and isinstance(hint.content, str)
    assert hint.content.startswith("<system-reminder>\n") and "2026-03-01T09:30:00+00:00" in hint.content


def test_a_saved_history_resumes_with_the_same_prefix(tmp_path: Path) -> None:
    requests: list[list[Message]] = []
    capability = ContextfoldCapability(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    agent = _agent(_scripted(requests), capability)
    first = _run(agent, "inspect every module")
    saved = ModelMessagesTypeAdapter.dump_json(first.all_messages())
    # A new process: a new capability, the history loaded from JSON.
    later: list[list[Message]] = []
    resumed = ContextfoldCapability(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    history = ModelMessagesTypeAdapter.validate_json(saved)
    second = _run(_agent(_scripted(later), resumed), "and again", message_history=history)
    assert second.output == "all done"
    sent = later[0]
    prefix = messages_from_pydantic_ai(history)
    assert [contextfold.render(sent[: len(prefix)], "openai")] == [contextfold.render(prefix, "openai")]


def test_without_pydantic_ai_the_import_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['pydantic_ai'] = None\n"
        "import contextfold.adapters\n"
        "try:\n"
        "    import contextfold.adapters.pydantic_ai\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "MissingExtraError contextfold.adapters.pydantic_ai needs the 'pydantic-ai-slim' package: "
        "pip install 'contextfold[pydantic-ai]'"
    )


@pytest.mark.parametrize("window", [None])
def test_a_missing_window_is_a_config_error(window: int | None) -> None:
    with pytest.raises(contextfold.ConfigError, match="ContextfoldHistory needs a window"):
        ContextfoldHistory(window)
