"""OpenAIChatModel driven through the official openai SDK against the local fake provider."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    ConfigError,
    ContextfoldError,
    Message,
    MissingExtraError,
    StructuredSummarizer,
    StructuredSummary,
    ToolResultBlock,
    ToolSpec,
)
from contextfold.compaction._summary import is_context_length_error
from contextfold.models import (
    ChatModel,
    ContextLengthExceeded,
    ModelError,
    OpenAIChatModel,
    Usage,
    model_from_spec,
)
from contextfold.models._base import looks_like_context_length
from contextfold.models._openai import is_strict
from provider_server import ErrorReply, FakeUsage, ProviderServer, Reply, Thinking, ToolCall

TOOLS = [
    ToolSpec(
        name="read_file",
        description="Read a file.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    ),
    ToolSpec(name="list_dir", description="List a directory."),
]
CONVERSATION = [Message.text_message("system", "You are terse."), Message.text_message("user", "What is in /tmp?")]
SUMMARY = {
    "task_overview": "Inspect /tmp.",
    "current_state": "Listed /tmp.",
    "important_discoveries": "Nothing.",
    "next_steps": "None.",
    "context_to_preserve": "/tmp/a.txt",
}


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def make(server: ProviderServer, **kwargs: Any) -> OpenAIChatModel:
    kwargs.setdefault("api_key", "sk-test")
    kwargs.setdefault("max_retries", 2)
    return OpenAIChatModel("gpt-test", base_url=server.openai_base_url, **kwargs)


def tool_results(*pairs: tuple[str, str]) -> Message:
    return Message(role="tool", content=tuple(ToolResultBlock(call_id=c, content=()) for c, _ in pairs))


async def test_plain_text_reply(server: ProviderServer) -> None:
    server.queue(Reply(text="Nothing much.", usage=FakeUsage(input_tokens=30, output_tokens=4, cache_read_tokens=16)))
    async with make(server) as model:
        assert isinstance(model, ChatModel)
        response = await model.complete(CONVERSATION)
    assert response.message.role == "assistant"
    assert response.message.text == "Nothing much."
    assert response.stop_reason == "end_turn" and response.raw_stop_reason == "stop"
    assert response.usage == Usage(prompt_tokens=30, completion_tokens=4, cache_read_tokens=16)
    assert response.model == "gpt-test"
    (body,) = server.bodies("openai")
    assert body["model"] == "gpt-test"
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is in /tmp?"},
    ]
    assert "tools" not in body and "stream" not in body
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_parallel_tool_calls_and_their_results_round_trip(server: ProviderServer) -> None:
    server.queue(
        Reply(
            tool_calls=[ToolCall("read_file", {"path": "/tmp/a"}, id="call_1"), ToolCall("list_dir", {}, id="call_2")]
        ),
        Reply(text="done"),
    )
    async with make(server, max_tokens=256, options={"temperature": 0}) as model:
        first = await model.complete(CONVERSATION, tools=TOOLS)
        calls = first.message.tool_calls
        assert [(c.id, c.name, c.parsed_arguments()) for c in calls] == [
            ("call_1", "read_file", {"path": "/tmp/a"}),
            ("call_2", "list_dir", {}),
        ]
        assert first.stop_reason == "tool_use"
        follow_up = [*CONVERSATION, first.message, tool_results(("call_1", "a"), ("call_2", "b"))]
        second = await model.complete(follow_up, tools=TOOLS)
    assert second.message.text == "done"
    first_body, second_body = server.bodies("openai")
    assert [t["function"]["name"] for t in first_body["tools"]] == ["read_file", "list_dir"]
    assert first_body["max_completion_tokens"] == 256 and first_body["temperature"] == 0
    assistant = second_body["messages"][2]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_1", "call_2"]
    assert [(m["role"], m["tool_call_id"]) for m in second_body["messages"][3:]] == [
        ("tool", "call_1"),
        ("tool", "call_2"),
    ]


async def test_streaming_delivers_deltas_and_assembles_tool_calls(server: ProviderServer) -> None:
    server.queue(
        Reply(
            text="Let me look at that directory.",
            tool_calls=[ToolCall("read_file", {"path": "/tmp/" + "x" * 30}), ToolCall("list_dir", {"deep": True})],
            usage=FakeUsage(input_tokens=50, output_tokens=20),
        )
    )
    deltas: list[str] = []
    async with make(server) as model:
        response = await model.complete(CONVERSATION, tools=TOOLS, stream=deltas.append)
    assert len(deltas) > 1
    assert "".join(deltas) == response.message.text == "Let me look at that directory."
    calls = response.message.tool_calls
    assert [c.name for c in calls] == ["read_file", "list_dir"]
    assert calls[0].parsed_arguments() == {"path": "/tmp/" + "x" * 30}
    assert calls[1].parsed_arguments() == {"deep": True}
    assert len({c.id for c in calls}) == 2
    assert response.usage.prompt_tokens == 50 and response.usage.completion_tokens == 20
    assert response.stop_reason == "tool_use"
    (body,) = server.bodies()
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_streaming_accepts_an_async_handler(server: ProviderServer) -> None:
    server.queue(Reply(text="abcdefgh", chunk_size=2))
    got: list[str] = []

    async def handler(delta: str) -> None:
        await asyncio.sleep(0)
        got.append(delta)

    async with make(server, stream_usage=False) as model:
        response = await model.complete(CONVERSATION, stream=handler)
    assert got == ["ab", "cd", "ef", "gh"]
    assert response.message.text == "abcdefgh"
    assert "stream_options" not in server.bodies()[0]


async def test_reasoning_content_is_kept_as_thinking_but_not_sent_back(server: ProviderServer) -> None:
    server.queue(Reply(text="4", thinking=[Thinking("2+2 is 4")]), Reply(text="ok"))
    async with make(server) as model:
        first = await model.complete(CONVERSATION)
        assert first.message.content[0].kind == "thinking"
        assert first.message.content[0].thinking == "2+2 is 4"  # type: ignore[union-attr]
        await model.complete([*CONVERSATION, first.message, Message.text_message("user", "thanks")])
    sent = server.bodies()[1]["messages"][2]
    assert sent == {"role": "assistant", "content": "4"}


async def test_structured_output_uses_json_schema_and_returns_the_object(server: ProviderServer) -> None:
    server.queue(Reply(structured=SUMMARY))
    schema = StructuredSummary.model_json_schema()
    async with make(server) as model:
        value = await model(CONVERSATION, schema)
    assert value == SUMMARY
    (body,) = server.bodies()
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "StructuredSummary"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"] == schema


async def test_adapter_serves_the_structured_summarizer(server: ProviderServer) -> None:
    server.queue(Reply(structured=SUMMARY))
    async with make(server) as model:
        outcome = await StructuredSummarizer(model, counter=BytesCounter()).summarize(CONVERSATION)
    assert outcome.summary.context_to_preserve == "/tmp/a.txt"
    sent = server.bodies()[0]["messages"]
    assert sent[0]["role"] == "system" and "What is in /tmp?" in sent[1]["content"]


async def test_structured_output_that_is_not_json_is_a_model_error(server: ProviderServer) -> None:
    server.queue(Reply(text="Sure! Here is the summary"))
    async with make(server) as model:
        with pytest.raises(ModelError, match="not JSON"):
            await model.structured(CONVERSATION, {"type": "object"})


async def test_context_length_exceeded_is_translated(server: ProviderServer) -> None:
    server.queue(ErrorReply.context_length_exceeded())
    async with make(server) as model:
        with pytest.raises(ContextLengthExceeded) as info:
            await model.complete(CONVERSATION)
    error = info.value
    assert isinstance(error, ModelError) and isinstance(error, ContextfoldError)
    assert isinstance(error.__cause__, openai.BadRequestError)
    assert error.status_code == 400 and error.provider == "openai"
    assert is_context_length_error(error)
    assert len(server.requests) == 1  # not retried


async def test_context_length_while_streaming_is_translated(server: ProviderServer) -> None:
    server.queue(ErrorReply.context_length_exceeded())
    async with make(server) as model:
        with pytest.raises(ContextLengthExceeded):
            await model.complete(CONVERSATION, stream=lambda _: None)


async def test_summarizer_drops_oldest_input_when_the_model_says_too_long(server: ProviderServer) -> None:
    server.queue(ErrorReply.context_length_exceeded(), Reply(structured=SUMMARY))
    history = [Message.text_message("user" if i % 2 == 0 else "assistant", f"turn {i}") for i in range(8)]
    async with make(server) as model:
        outcome = await StructuredSummarizer(model, counter=BytesCounter()).summarize(history)
    assert outcome.attempts == 2 and outcome.messages_dropped > 0


@pytest.mark.parametrize("failure", [ErrorReply.server_error(), ErrorReply.rate_limited()])
async def test_transient_errors_are_retried_by_the_sdk(server: ProviderServer, failure: ErrorReply) -> None:
    server.queue(failure, Reply(text="recovered"))
    async with make(server, max_retries=2) as model:
        response = await model.complete(CONVERSATION)
    assert response.message.text == "recovered"
    assert len(server.requests) == 2
    assert server.requests[1].headers.get("x-stainless-retry-count") == "1"


async def test_streaming_is_retried_too(server: ProviderServer) -> None:
    server.queue(ErrorReply.server_error(), Reply(text="streamed"))
    async with make(server) as model:
        response = await model.complete(CONVERSATION, stream=lambda _: None)
    assert response.message.text == "streamed" and len(server.requests) == 2


async def test_without_retries_a_500_is_a_model_error(server: ProviderServer) -> None:
    server.queue(ErrorReply.server_error(), Reply(text="never"))
    async with make(server, max_retries=0) as model:
        with pytest.raises(ModelError) as info:
            await model.complete(CONVERSATION)
    assert not isinstance(info.value, ContextLengthExceeded)
    assert info.value.status_code == 500
    assert isinstance(info.value.__cause__, openai.InternalServerError)
    assert "HTTP 500" in str(info.value)
    assert len(server.requests) == 1


async def test_rate_limit_mentioning_tokens_is_not_a_context_error(server: ProviderServer) -> None:
    server.queue(ErrorReply(429, "Too many tokens per minute; slow down.", kind="rate_limit_error"))
    async with make(server, max_retries=0) as model:
        with pytest.raises(ModelError) as info:
            await model.complete(CONVERSATION)
    assert not isinstance(info.value, ContextLengthExceeded)
    assert info.value.status_code == 429


async def test_connection_failure_is_a_model_error() -> None:
    with ProviderServer() as gone:
        url = gone.openai_base_url
    async with OpenAIChatModel("m", base_url=url, api_key="k", max_retries=0) as model:
        with pytest.raises(ModelError) as info:
            await model.complete(CONVERSATION)
    assert not isinstance(info.value, ContextLengthExceeded)
    assert isinstance(info.value.__cause__, openai.APIConnectionError)


async def test_environment_variables_configure_the_client(
    server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.queue(Reply(text="hi"))
    async with OpenAIChatModel("gpt-test") as model:
        assert (await model.complete(CONVERSATION)).message.text == "hi"
    assert server.requests[0].headers["authorization"] == "Bearer sk-from-env"


async def test_injected_env_and_placeholder_key_for_local_servers(server: ProviderServer) -> None:
    server.queue(Reply(text="local"))
    async with OpenAIChatModel("llama3.1:8b", env={"OPENAI_BASE_URL": server.openai_base_url}) as model:
        assert (await model.complete(CONVERSATION)).message.text == "local"
    assert server.requests[0].headers["authorization"] == "Bearer unused"
    assert server.bodies()[0]["model"] == "llama3.1:8b"


def test_missing_key_without_base_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIChatModel("gpt-test", env={})


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingExtraError) as info:
        OpenAIChatModel("gpt-test", api_key="k")
    assert isinstance(info.value, ImportError)
    assert "pip install 'contextfold[openai]'" in str(info.value)
    assert "\n" not in str(info.value)


async def test_model_from_spec_builds_an_openai_adapter(server: ProviderServer) -> None:
    model = model_from_spec("openai:qwen2.5:7b", base_url=server.openai_base_url, api_key="k", max_retries=0)
    assert isinstance(model, OpenAIChatModel)
    assert model.model == "qwen2.5:7b"
    await model.aclose()


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", ":gpt", "mistral:large"])
def test_model_from_spec_rejects_bad_specs(spec: str) -> None:
    with pytest.raises(ConfigError):
        model_from_spec(spec, api_key="k")


def test_importing_models_loads_no_sdk() -> None:
    code = (
        "import sys, contextfold, contextfold.models\n"
        "bad = [m for m in ('openai', 'anthropic', 'httpx', 'httpx2') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == ""
    assert result.stderr == ""


@pytest.mark.parametrize(
    "text",
    [
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",  # vLLM
        "the request exceeds the available context size, try increasing it",  # llama.cpp
        "prompt is too long: 210000 tokens > 200000 maximum",  # Anthropic
    ],
)
def test_context_length_messages_of_compatible_servers(text: str) -> None:
    assert looks_like_context_length(text)
    assert not looks_like_context_length("Rate limit reached for requests")


def test_strict_mode_detection() -> None:
    assert is_strict(StructuredSummary.model_json_schema())
    assert not is_strict({"type": "object", "properties": {"a": {"type": "string"}}})
    assert not is_strict(
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": [], "additionalProperties": False}
    )
    nested_open = {
        "type": "object",
        "properties": {"a": {"type": "object"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert not is_strict(nested_open)


counts = st.integers(min_value=0, max_value=10**9)
usages = st.builds(
    Usage,
    prompt_tokens=counts,
    completion_tokens=counts,
    cache_read_tokens=counts,
    cache_write_tokens=counts,
    reasoning_tokens=counts,
)


@settings(max_examples=100, deadline=None)
@given(usages, usages, usages)
def test_usage_addition_is_a_commutative_monoid(a: Usage, b: Usage, c: Usage) -> None:
    assert a + b == b + a
    assert (a + b) + c == a + (b + c)
    assert a + Usage() == a
    assert (a + b).total_tokens == a.total_tokens + b.total_tokens


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
arguments = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), texts, st.booleans()), max_size=4)


@settings(max_examples=25, deadline=None)
@given(
    text=texts,
    calls=st.lists(arguments, max_size=3),
    chunk=st.integers(min_value=1, max_value=7),
)
def test_streamed_and_plain_replies_decode_to_the_same_message(
    shared_server: ProviderServer, text: str, calls: list[dict[str, Any]], chunk: int
) -> None:
    tool_calls = [ToolCall("read_file", args, id=f"call_{i}") for i, args in enumerate(calls)]
    reply = Reply(text=text, tool_calls=tool_calls, chunk_size=chunk, usage=FakeUsage(input_tokens=9, output_tokens=3))

    async def run() -> None:
        shared_server.queue(reply, reply)
        async with make(shared_server, max_retries=0) as model:
            plain = await model.complete(CONVERSATION, tools=TOOLS)
            deltas: list[str] = []
            streamed = await model.complete(CONVERSATION, tools=TOOLS, stream=deltas.append)
        assert streamed.message.content == plain.message.content
        assert "".join(deltas) == text
        assert streamed.usage == plain.usage
        assert streamed.stop_reason == plain.stop_reason
        assert [json.loads(c.arguments) for c in plain.message.tool_calls] == calls

    asyncio.run(run())
