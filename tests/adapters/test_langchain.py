"""contextfold inside LangChain v1's create_agent, against the real framework and its fake chat models."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

import contextfold
from contextfold import LocalWorkspace, Message
from contextfold.adapters.langchain import (
    STATE_KEY,
    ContextfoldMiddleware,
    messages_from_langchain,
    messages_to_langchain,
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


def run(cmd: str) -> str:
    """Run a shell command and return its output."""
    return tool_output(cmd)


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, answering with ``script(messages)``; records every request."""

    script: Callable[[list[BaseMessage]], AIMessage]
    requests: list[list[BaseMessage]]

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.requests.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.script(list(messages)))])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        # The generic fake model streams the text only; a real one streams the tool calls too.
        message = self._generate(messages).generations[0].message
        for token in re.split(r"(\s)", message.text):
            if token:
                yield ChatGenerationChunk(message=AIMessageChunk(content=token, id=message.id))
        calls = [
            {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
            for i, c in enumerate(message.tool_calls)
        ]
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", id=message.id, tool_call_chunks=calls, chunk_position="last")
        )


def _session_script(*, readback: bool = False, final: AIMessage | None = None) -> Callable[..., AIMessage]:
    state: dict[str, Any] = {"step": 0, "path": None, "reads": 0}

    def script(messages: list[BaseMessage]) -> AIMessage:
        results = []
        for m in reversed(messages):
            if isinstance(m, HumanMessage) and m.text.startswith("<system-reminder>"):
                continue  # a runtime hint after the results
            if not isinstance(m, ToolMessage):
                break
            results.append(m.text)
        if readback:
            offset: int | None = None
            for text in results:
                if state["path"] is None and offload_path(text) is not None:
                    state["path"], offset = offload_path(text), 0
                elif state["path"] is not None and state["reads"]:
                    offset = next_read(text)
            if offset is not None:
                state["reads"] += 1
                call = {"name": "read_offloaded", "args": {"path": state["path"], "offset": offset}}
                return AIMessage(content="", tool_calls=[{**call, "id": f"rb-{state['reads']}"}])
        step = state["step"]
        state["step"] = step + 1
        if step < STEPS:
            call = {"name": "run", "args": {"cmd": command(step)}, "id": f"c{step}"}
            return AIMessage(content=f"step {step}", tool_calls=[call])
        return final if final is not None else AIMessage(content="all done")

    return script


def _model(script: Callable[..., AIMessage]) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(()), script=script, requests=[])


def _canonical(model: ScriptedChatModel) -> list[list[Message]]:
    return [messages_from_langchain(r) for r in model.requests]


CONFIG: dict[str, Any] = {"configurable": {"thread_id": "t1"}, "recursion_limit": 500}


# --- the mapping -------------------------------------------------------------------------------------------------

_text = st.text(max_size=30)
_ids = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ids, inner, max_size=3),
    max_leaves=5,
)
_blocks = st.lists(
    st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, _text),
        st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, _text, _ids),
    ),
    min_size=1,
    max_size=3,
)
_message = st.one_of(
    st.builds(SystemMessage, content=_text),
    st.builds(HumanMessage, content=_text, id=st.none() | _ids),
    st.builds(
        HumanMessage,
        content=st.lists(
            st.one_of(
                st.builds(lambda t: {"type": "text", "text": t}, _text),
                st.just({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}),
            ),
            min_size=1,
            max_size=3,
        ),
    ),
    st.builds(
        AIMessage,
        content=_text | _blocks,
        id=st.none() | _ids,
        tool_calls=st.lists(
            st.builds(lambda n, a, i: {"name": n, "args": a, "id": i}, _ids, st.dictionaries(_ids, _json), _ids),
            max_size=2,
        ),
        response_metadata=st.dictionaries(_ids, _text, max_size=2),
        usage_metadata=st.none()
        | st.builds(
            lambda a, b: {"input_tokens": a, "output_tokens": b, "total_tokens": a + b},
            st.integers(0, 99),
            st.integers(0, 99),
        ),
    ),
    st.builds(
        ToolMessage,
        content=_text | st.lists(st.builds(lambda t: {"type": "text", "text": t}, _text), min_size=1, max_size=2),
        tool_call_id=_ids,
        name=st.none() | _ids,
        status=st.sampled_from(["success", "error"]),
        artifact=st.none() | _json,
        id=st.none() | _ids,
    ),
)


@given(st.lists(_message, max_size=6))
def test_round_trip_keeps_every_field(history: list[BaseMessage]) -> None:
    back = messages_to_langchain(messages_from_langchain(history))
    assert back == history
    assert messages_to_dict(back) == messages_to_dict(history)


def test_mapping_gives_canonical_blocks() -> None:
    history: list[BaseMessage] = [
        HumanMessage("list files", id="h1"),
        AIMessage(
            content=[{"type": "thinking", "thinking": "look", "signature": "sig"}, {"type": "text", "text": "ok"}],
            tool_calls=[{"name": "ls", "args": {"path": "/srv"}, "id": "call-1"}],
        ),
        ToolMessage(content="a.py", tool_call_id="call-1", name="ls"),
    ]
    messages = messages_from_langchain(history)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    kinds = [b.kind for b in messages[1].content]
    assert kinds == ["thinking", "text", "tool_call"]
    assert contextfold.validate(messages, "openai") == []
    assert messages_from_dict(messages_to_dict(messages_to_langchain(messages))) == history


# --- a real agent ------------------------------------------------------------------------------------------------


def test_a_long_tool_session_compacts_and_every_request_is_valid_and_fits(tmp_path: Path) -> None:
    middleware = ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    model = _model(_session_script())
    agent = create_agent(model, tools=[run], middleware=[middleware], system_prompt="You are terse.")
    out = agent.invoke({"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG)
    assert out["messages"][-1].content == "all done"
    # The agent's own history stays whole; what was sent lives in the state.
    assert sum(isinstance(m, ToolMessage) for m in out["messages"]) == STEPS
    assert out[STATE_KEY]["compactions"] >= 2
    counter = middleware.settings.counter
    assert counter is not None
    requests = _canonical(model)
    assert len(requests) == STEPS + 1
    tools = contextfold.count_tools(counter, middleware.context_for(out).tools)  # type: ignore[union-attr]
    assert tools > 0
    system = counter.count_message(Message.text_message("system", "You are terse."))
    assert_valid_and_fits(requests, counter, WINDOW - tools - system)


def test_the_model_reads_offloaded_output_back_byte_for_byte(tmp_path: Path) -> None:
    workspace = LocalWorkspace(tmp_path)
    middleware = ContextfoldMiddleware(window=WINDOW, workspace=workspace)
    assert [t.name for t in middleware.tools] == ["read_offloaded", "search_offloaded"]
    model = _model(_session_script(readback=True))
    agent = create_agent(model, tools=[run], middleware=[middleware])
    agent.invoke({"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG)
    offloaded = [ref for ref in workspace.items() if ref.kind == "tool_result"]
    assert offloaded
    original = workspace.resolve(offloaded[0]).read_text(encoding="utf-8")
    assert original.count("\n") > 40
    assert read_back_pages(_canonical(model)) == original.rstrip("\n")


def test_the_async_path_runs_awrap_model_call(tmp_path: Path) -> None:
    middleware = ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    model = _model(_session_script())
    agent = create_agent(model, tools=[run], middleware=[middleware])
    out = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG))
    assert out["messages"][-1].content == "all done"
    assert out[STATE_KEY]["compactions"] >= 2
    assert middleware.settings.counter is not None
    assert_valid_and_fits(_canonical(model), middleware.settings.counter, WINDOW)


def test_streaming_keeps_working(tmp_path: Path) -> None:
    middleware = ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    model = _model(_session_script())
    agent = create_agent(model, tools=[run], middleware=[middleware])
    tokens = []
    for chunk, _meta in agent.stream(
        {"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG, stream_mode="messages"
    ):
        if isinstance(chunk, AIMessageChunk):
            tokens.append(chunk.text)
    assert "".join(tokens).endswith("step 23all done")
    assert len(model.requests) == STEPS + 1
    assert middleware.settings.counter is not None
    assert_valid_and_fits(_canonical(model), middleware.settings.counter, WINDOW)


class Report(BaseModel):
    modules: int
    summary: str


def test_structured_output_keeps_working(tmp_path: Path) -> None:
    final = AIMessage(
        content="", tool_calls=[{"name": "Report", "args": {"modules": STEPS, "summary": "ok"}, "id": "r1"}]
    )
    middleware = ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path))
    model = _model(_session_script(final=final))
    agent = create_agent(model, tools=[run], middleware=[middleware], response_format=ToolStrategy(Report))
    out = agent.invoke({"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG)
    assert out["structured_response"] == Report(modules=STEPS, summary="ok")
    assert out[STATE_KEY]["compactions"] >= 2


def test_a_checkpointed_thread_resumes_with_the_same_prefix(tmp_path: Path) -> None:
    saver = InMemorySaver()
    first_model = _model(_session_script())
    first = create_agent(
        first_model,
        tools=[run],
        middleware=[ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path, "s1"))],
        checkpointer=saver,
    )
    first.invoke({"messages": [{"role": "user", "content": "inspect every module"}]}, CONFIG)
    last_sent = first_model.requests[-1]
    # Another process: a new middleware (no cache), the same checkpointer and thread.
    second_model = _model(lambda messages: AIMessage(content="resumed"))
    second = create_agent(
        second_model,
        tools=[run],
        middleware=[ContextfoldMiddleware(window=WINDOW, workspace=LocalWorkspace(tmp_path, "s1"))],
        checkpointer=saver,
    )
    out = second.invoke({"messages": [{"role": "user", "content": "one more thing"}]}, CONFIG)
    assert out["messages"][-1].content == "resumed"
    resumed_sent = second_model.requests[0]
    assert messages_to_dict(resumed_sent[: len(last_sent)]) == messages_to_dict(last_sent)
    assert len(resumed_sent) > len(last_sent)


def test_without_langchain_the_import_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['langchain'] = None\n"
        "try:\n"
        "    import contextfold.adapters.langchain\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "MissingExtraError contextfold.adapters.langchain needs the 'langchain' package: "
        "pip install 'contextfold[langchain]'"
    )
