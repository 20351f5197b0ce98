"""The fake provider server itself: wire shapes, scripting, recording, validation, lifecycle."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from provider_server import ErrorReply, FakeUsage, ProviderServer, Reply, Thinking, ToolCall


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def post(url: str, body: Any) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers), exc.read()


def sse_events(raw: bytes) -> list[tuple[str | None, str]]:
    events = []
    for frame in raw.decode().split("\n\n"):
        if not frame.strip():
            continue
        name = None
        data = ""
        for line in frame.splitlines():
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
        events.append((name, data))
    return events


OPENAI_BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
ANTHROPIC_BODY = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}


def test_openai_json_reply_shape_and_recording(server: ProviderServer) -> None:
    server.queue(Reply(text="hello", tool_calls=[ToolCall("f", {"x": 1}, id="call_a")]))
    status, _, raw = post(server.openai_base_url + "/chat/completions", OPENAI_BODY)
    assert status == 200
    body = json.loads(raw)
    message = body["choices"][0]["message"]
    assert message["content"] == "hello"
    assert message["tool_calls"] == [
        {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}}
    ]
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert server.bodies("openai") == [OPENAI_BODY]
    assert server.bodies("anthropic") == []
    assert server.requests[0].path == "/v1/chat/completions"


def test_anthropic_json_reply_orders_thinking_text_tools(server: ProviderServer) -> None:
    usage = FakeUsage(input_tokens=10, output_tokens=3, cache_read_tokens=7)
    server.queue(Reply(text="t", thinking=[Thinking("why", "S1")], tool_calls=[ToolCall("f")], usage=usage))
    status, _, raw = post(server.anthropic_base_url + "/v1/messages", ANTHROPIC_BODY)
    assert status == 200
    body = json.loads(raw)
    assert [b["type"] for b in body["content"]] == ["thinking", "text", "tool_use"]
    assert body["content"][0]["signature"] == "S1"
    assert body["stop_reason"] == "tool_use"
    assert body["usage"]["cache_read_input_tokens"] == 7


def test_anthropic_sse_follows_the_real_event_sequence(server: ProviderServer) -> None:
    server.queue(Reply(text="abcdef", thinking=[Thinking("hmm", "SIG")], tool_calls=[ToolCall("f", {"k": "v"})]))
    status, headers, raw = post(server.anthropic_base_url + "/v1/messages", {**ANTHROPIC_BODY, "stream": True})
    assert status == 200
    assert headers["content-type"] == "text/event-stream"
    events = sse_events(raw)
    names = [name for name, _ in events]
    assert names[:2] == ["message_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    datas = [json.loads(data) for _, data in events]
    assert all(d["type"] == n for d, n in zip(datas, names, strict=True))
    deltas = [d["delta"]["type"] for d in datas if d["type"] == "content_block_delta"]
    assert {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"} <= set(deltas)
    starts = [d["index"] for d in datas if d["type"] == "content_block_start"]
    stops = [d["index"] for d in datas if d["type"] == "content_block_stop"]
    assert starts == stops == [0, 1, 2]
    partial = "".join(d["delta"]["partial_json"] for d in datas if d.get("delta", {}).get("type") == "input_json_delta")
    assert json.loads(partial) == {"k": "v"}


def test_openai_sse_ends_with_usage_then_done(server: ProviderServer) -> None:
    server.queue(Reply(text="hello world"))
    body = {**OPENAI_BODY, "stream": True, "stream_options": {"include_usage": True}}
    status, _, raw = post(server.openai_base_url + "/chat/completions", body)
    assert status == 200
    events = sse_events(raw)
    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(data) for _, data in events[:-1]]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "hello world"


def test_no_scripted_reply_is_a_non_retryable_400(server: ProviderServer) -> None:
    status, _, raw = post(server.openai_base_url + "/chat/completions", OPENAI_BODY)
    assert status == 400
    assert "no scripted reply left" in json.loads(raw)["error"]["message"]


def test_responder_function_receives_the_parsed_body(server: ProviderServer) -> None:
    seen: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> Reply:
        seen.append(body)
        return Reply(text=f"you said {body['messages'][-1]['content']}")

    server.respond_with(responder)
    status, _, raw = post(server.openai_base_url + "/chat/completions", OPENAI_BODY)
    assert status == 200
    assert json.loads(raw)["choices"][0]["message"]["content"] == "you said hi"
    assert seen == [OPENAI_BODY]


def test_error_replies_in_each_wire_format(server: ProviderServer) -> None:
    server.queue(ErrorReply.context_length_exceeded(), ErrorReply.context_length_exceeded(), ErrorReply.rate_limited())
    status, headers, raw = post(server.openai_base_url + "/chat/completions", OPENAI_BODY)
    assert status == 400
    assert json.loads(raw)["error"]["code"] == "context_length_exceeded"
    status, _, raw = post(server.anthropic_base_url + "/v1/messages", ANTHROPIC_BODY)
    error = json.loads(raw)
    assert status == 400 and error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith("prompt is too long")
    status, headers, _ = post(server.openai_base_url + "/chat/completions", OPENAI_BODY)
    assert status == 429 and headers["retry-after-ms"] == "1"
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({**ANTHROPIC_BODY, "max_tokens": None}, "max_tokens"),
        ({**ANTHROPIC_BODY, "messages": [{"role": "assistant", "content": "x"}]}, "first message"),
        (
            {**ANTHROPIC_BODY, "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]},
            "alternate",
        ),
    ],
)
def test_anthropic_requests_are_validated(server: ProviderServer, body: dict[str, Any], needle: str) -> None:
    server.queue(Reply(text="never sent"))
    status, _, raw = post(server.anthropic_base_url + "/v1/messages", body)
    assert status == 400
    assert needle in json.loads(raw)["error"]["message"]
    assert server.replies_left == 1


def test_openai_orphan_tool_result_is_rejected(server: ProviderServer) -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c1", "content": "r"}],
    }
    status, _, raw = post(server.openai_base_url + "/chat/completions", body)
    assert status == 400
    assert "does not answer a preceding tool call" in json.loads(raw)["error"]["message"]


def test_unknown_route_is_404(server: ProviderServer) -> None:
    status, _, _ = post(server.url + "/v1/embeddings", {"input": "x"})
    assert status == 404


def test_stop_frees_the_port_and_is_idempotent() -> None:
    server = ProviderServer().start()
    host, port = server.url.removeprefix("http://").split(":")
    server.stop()
    server.stop()
    with pytest.raises(RuntimeError):
        _ = server.url
    with socket.socket() as sock, pytest.raises(OSError):
        sock.settimeout(1)
        sock.connect((host, int(port)))


async def test_official_anthropic_stream_helper_accumulates_our_events(server: ProviderServer) -> None:
    server.queue(
        Reply(text="answer", thinking=[Thinking("step one", "SIGNED==")], tool_calls=[ToolCall("f", {"a": [1, 2]})])
    )
    client = anthropic.AsyncAnthropic(base_url=server.anthropic_base_url, api_key="k", max_retries=0)
    try:
        async with client.messages.stream(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}]) as s:
            final = await s.get_final_message()
    finally:
        await client.close()
    kinds = [b.type for b in final.content]
    assert kinds == ["thinking", "text", "tool_use"]
    assert final.content[0].signature == "SIGNED=="  # type: ignore[union-attr]
    assert final.content[1].text == "answer"  # type: ignore[union-attr]
    assert final.content[2].input == {"a": [1, 2]}  # type: ignore[union-attr]
    assert final.stop_reason == "tool_use"


async def test_official_openai_stream_helper_accumulates_our_chunks(server: ProviderServer) -> None:
    server.queue(Reply(text="partly", tool_calls=[ToolCall("f", {"q": "x" * 40}), ToolCall("g", {"n": 2})]))
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
    try:
        async with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "hi"}]) as s:
            final = await s.get_final_completion()
    finally:
        await client.close()
    message = final.choices[0].message
    assert message.content == "partly"
    calls = message.tool_calls or []
    assert [c.function.name for c in calls] == ["f", "g"]  # type: ignore[union-attr]
    assert json.loads(calls[0].function.arguments) == {"q": "x" * 40}  # type: ignore[union-attr]
