"""AnthropicChatModel driven through the official anthropic SDK against the local fake provider."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    ConfigError,
    Message,
    MissingExtraError,
    RedactedThinkingBlock,
    StructuredSummarizer,
    StructuredSummary,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
)
from contextfold.compaction._summary import is_context_length_error
from contextfold.models import AnthropicChatModel, ChatModel, ContextLengthExceeded, ModelError, Usage, model_from_spec
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
THINKING = {"type": "enabled", "budget_tokens": 1024}


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def make(server: ProviderServer, **kwargs: Any) -> AnthropicChatModel:
    kwargs.setdefault("api_key", "sk-ant-test")
    return AnthropicChatModel("claude-test", base_url=server.anthropic_base_url, **kwargs)


def sent_key(server: ProviderServer) -> str | None:
    """The API key of the first request (older SDKs send x-api-key, newer ones a bearer token)."""
    headers = server.requests[0].headers
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ") or None


def results_for(message: Message) -> Message:
    blocks = tuple(
        ToolResultBlock(call_id=c.id, name=c.name, content=(TextBlock(text=f"result of {c.name}"),))
        for c in message.tool_calls
    )
    return Message(role="tool", content=blocks)


async def test_plain_text_reply_with_system_and_cache_usage(server: ProviderServer) -> None:
    usage = FakeUsage(input_tokens=12, output_tokens=5, cache_read_tokens=100, cache_write_tokens=20)
    server.queue(Reply(text="Nothing much.", usage=usage))
    async with make(server) as model:
        assert isinstance(model, ChatModel)
        response = await model.complete(CONVERSATION)
    assert response.message.role == "assistant"
    assert response.message.text == "Nothing much."
    assert response.stop_reason == "end_turn"
    assert response.usage == Usage(prompt_tokens=132, completion_tokens=5, cache_read_tokens=100, cache_write_tokens=20)
    (body,) = server.bodies("anthropic")
    assert body["system"] == "You are terse."
    assert body["messages"] == [{"role": "user", "content": "What is in /tmp?"}]
    assert body["max_tokens"] == 4096 and body["model"] == "claude-test"
    assert "thinking" not in body and "tools" not in body
    assert sent_key(server) == "sk-ant-test"


async def test_thinking_signature_and_parallel_calls_round_trip_untouched(server: ProviderServer) -> None:
    signature = "EqQBCkYIARgCKkD+opaque/signature==" * 3
    server.queue(
        Reply(
            thinking=[Thinking("I should read the file and list the directory.", signature)],
            redacted_thinking=["ENCRYPTED-BLOB=="],
            tool_calls=[
                ToolCall("read_file", {"path": "/tmp/a"}, id="toolu_1"),
                ToolCall("list_dir", {}, id="toolu_2"),
            ],
        ),
        Reply(text="Two files."),
    )
    async with make(server, thinking=THINKING, max_tokens=2048) as model:
        first = await model.complete(CONVERSATION, tools=TOOLS)
        content = first.message.content
        assert isinstance(content[0], ThinkingBlock) and content[0].signature == signature
        assert isinstance(content[1], RedactedThinkingBlock) and content[1].data == "ENCRYPTED-BLOB=="
        assert [(c.id, c.name, c.parsed_arguments()) for c in first.message.tool_calls] == [
            ("toolu_1", "read_file", {"path": "/tmp/a"}),
            ("toolu_2", "list_dir", {}),
        ]
        assert first.stop_reason == "tool_use"
        second = await model.complete([*CONVERSATION, first.message, results_for(first.message)], tools=TOOLS)
    assert second.message.text == "Two files."
    first_body, second_body = server.bodies()
    assert first_body["thinking"] == THINKING and first_body["max_tokens"] == 2048
    assert [t["name"] for t in first_body["tools"]] == ["read_file", "list_dir"]
    assistant = second_body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "I should read the file and list the directory.",
        "signature": signature,
    }
    assert assistant["content"][1] == {"type": "redacted_thinking", "data": "ENCRYPTED-BLOB=="}
    assert [b["id"] for b in assistant["content"][2:]] == ["toolu_1", "toolu_2"]
    answer = second_body["messages"][2]
    assert answer["role"] == "user"
    assert [b["tool_use_id"] for b in answer["content"]] == ["toolu_1", "toolu_2"]


async def test_streaming_delivers_text_and_assembles_thinking_and_tool_input(server: ProviderServer) -> None:
    server.queue(
        Reply(
            text="Reading it now.",
            thinking=[Thinking("Plan: read then answer.", "SIG-stream==")],
            tool_calls=[ToolCall("read_file", {"path": "/tmp/" + "y" * 40, "lines": [1, 2, 3]})],
            usage=FakeUsage(input_tokens=40, output_tokens=25, cache_read_tokens=8),
        )
    )
    deltas: list[str] = []
    async with make(server, thinking=THINKING) as model:
        response = await model.complete(CONVERSATION, tools=TOOLS, stream=deltas.append)
    assert len(deltas) > 1 and "".join(deltas) == "Reading it now."
    thinking = response.message.content[0]
    assert isinstance(thinking, ThinkingBlock)
    assert (thinking.thinking, thinking.signature) == ("Plan: read then answer.", "SIG-stream==")
    (call,) = response.message.tool_calls
    assert call.parsed_arguments() == {"path": "/tmp/" + "y" * 40, "lines": [1, 2, 3]}
    assert response.usage == Usage(prompt_tokens=48, completion_tokens=25, cache_read_tokens=8)
    assert response.stop_reason == "tool_use" and response.model == "claude-test"
    assert server.bodies()[0]["stream"] is True


async def test_streamed_tool_call_without_arguments(server: ProviderServer) -> None:
    server.queue(Reply(tool_calls=[ToolCall("list_dir", {})]))
    async with make(server) as model:
        response = await model.complete(CONVERSATION, tools=TOOLS, stream=lambda _: None)
    assert [(c.name, c.parsed_arguments()) for c in response.message.tool_calls] == [("list_dir", {})]


async def test_structured_output_forces_a_tool_and_omits_thinking(server: ProviderServer) -> None:
    server.queue(Reply(structured=SUMMARY))
    schema = StructuredSummary.model_json_schema()
    async with make(server, thinking=THINKING) as model:
        value = await model(CONVERSATION, schema)
    assert value == SUMMARY
    (body,) = server.bodies()
    assert body["tool_choice"] == {"type": "tool", "name": "StructuredSummary"}
    assert body["tools"][0]["name"] == "StructuredSummary"
    assert body["tools"][0]["input_schema"] == schema
    assert "thinking" not in body


async def test_adapter_serves_the_structured_summarizer(server: ProviderServer) -> None:
    server.queue(Reply(structured=SUMMARY))
    async with make(server) as model:
        outcome = await StructuredSummarizer(model, counter=BytesCounter()).summarize(CONVERSATION)
    assert outcome.summary == StructuredSummary(**SUMMARY)
    body = server.bodies()[0]
    assert "compress" in body["system"]


async def test_structured_reply_without_the_tool_call_is_a_model_error(server: ProviderServer) -> None:
    server.queue(Reply(text="I would rather chat."))
    async with make(server) as model:
        with pytest.raises(ModelError, match="did not call the StructuredSummary tool"):
            await model.structured(CONVERSATION, StructuredSummary.model_json_schema())


async def test_prompt_too_long_is_context_length_exceeded(server: ProviderServer) -> None:
    server.queue(ErrorReply.context_length_exceeded(), ErrorReply.context_length_exceeded())
    async with make(server) as model:
        with pytest.raises(ContextLengthExceeded) as info:
            await model.complete(CONVERSATION)
        with pytest.raises(ContextLengthExceeded):
            await model.complete(CONVERSATION, stream=lambda _: None)
    error = info.value
    assert isinstance(error.__cause__, anthropic.BadRequestError)
    assert error.status_code == 400 and error.provider == "anthropic"
    assert "prompt is too long" in str(error)
    assert is_context_length_error(error)
    assert len(server.requests) == 2


@pytest.mark.parametrize("failure", [ErrorReply.server_error(), ErrorReply.overloaded(), ErrorReply.rate_limited()])
async def test_transient_errors_are_retried_by_the_sdk(server: ProviderServer, failure: ErrorReply) -> None:
    server.queue(failure, Reply(text="recovered"))
    async with make(server, max_retries=1) as model:
        response = await model.complete(CONVERSATION, stream=lambda _: None)
    assert response.message.text == "recovered"
    assert len(server.requests) == 2


async def test_without_retries_overload_is_a_model_error(server: ProviderServer) -> None:
    server.queue(ErrorReply.overloaded())
    async with make(server, max_retries=0) as model:
        with pytest.raises(ModelError) as info:
            await model.complete(CONVERSATION)
    assert not isinstance(info.value, ContextLengthExceeded)
    assert info.value.status_code == 529
    assert isinstance(info.value.__cause__, anthropic.APIStatusError)


async def test_environment_variables_configure_the_client(
    server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    server.queue(Reply(text="hi"))
    async with AnthropicChatModel("claude-test") as model:
        assert (await model.complete(CONVERSATION)).message.text == "hi"
    assert sent_key(server) == "sk-ant-env"


async def test_injected_env_mapping(server: ProviderServer) -> None:
    server.queue(Reply(text="hi"))
    env = {"ANTHROPIC_BASE_URL": server.anthropic_base_url, "ANTHROPIC_API_KEY": "sk-ant-injected"}
    async with AnthropicChatModel("claude-test", env=env) as model:
        await model.complete(CONVERSATION)
    assert sent_key(server) == "sk-ant-injected"


async def test_base_url_without_key_sends_a_placeholder(
    server: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    server.queue(Reply(text="local"))
    async with AnthropicChatModel("claude-test", env={"ANTHROPIC_BASE_URL": server.anthropic_base_url}) as model:
        assert (await model.complete(CONVERSATION)).message.text == "local"
    assert sent_key(server) == "unused"


@pytest.mark.parametrize("config_dir_set", [True, False])
def test_no_credentials_at_all_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, config_dir_set: bool
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    if config_dir_set:  # a config dir without the profile: the SDK's credential chain raises
        monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    else:
        monkeypatch.delenv("ANTHROPIC_CONFIG_DIR", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicChatModel("claude-test", env={})


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'contextfold\[anthropic\]'"):
        AnthropicChatModel("claude-test", api_key="k")


@pytest.mark.parametrize("kwargs", [{"max_tokens": 0}, {"max_retries": -1}])
def test_bad_settings_are_config_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        AnthropicChatModel("claude-test", api_key="k", **kwargs)


async def test_model_from_spec_builds_an_anthropic_adapter(server: ProviderServer) -> None:
    model = model_from_spec("anthropic:claude-test", base_url=server.anthropic_base_url, api_key="k", max_tokens=99)
    assert isinstance(model, AnthropicChatModel)
    server.queue(Reply(text="ok"))
    async with model:
        await model.complete(CONVERSATION)
    assert server.bodies()[0]["max_tokens"] == 99


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
arguments = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), texts, st.booleans()), max_size=4)


@settings(max_examples=25, deadline=None)
@given(
    text=texts,
    thoughts=st.lists(st.tuples(texts, st.text(alphabet="ABCdef0123+/=", min_size=1, max_size=40)), max_size=2),
    calls=st.lists(arguments, max_size=3),
    chunk=st.integers(min_value=1, max_value=7),
)
def test_streamed_and_plain_replies_decode_to_the_same_message(
    shared_server: ProviderServer,
    text: str,
    thoughts: list[tuple[str, str]],
    calls: list[dict[str, Any]],
    chunk: int,
) -> None:
    reply = Reply(
        text=text,
        thinking=[Thinking(t, s) for t, s in thoughts],
        tool_calls=[ToolCall("read_file", args, id=f"toolu_{i}") for i, args in enumerate(calls)],
        chunk_size=chunk,
        usage=FakeUsage(input_tokens=9, output_tokens=3),
    )

    async def run() -> None:
        shared_server.queue(reply, reply)
        async with make(shared_server, max_retries=0) as model:
            plain = await model.complete(CONVERSATION, tools=TOOLS)
            deltas: list[str] = []
            streamed = await model.complete(CONVERSATION, tools=TOOLS, stream=deltas.append)
        assert streamed.message.content == plain.message.content
        assert "".join(deltas) == text
        assert (streamed.usage, streamed.stop_reason) == (plain.usage, plain.stop_reason)
        signed = [(b.thinking, b.signature) for b in plain.message.content if isinstance(b, ThinkingBlock)]
        assert signed == thoughts

    asyncio.run(run())
