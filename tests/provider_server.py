"""A fake LLM provider on 127.0.0.1 that the official ``openai`` and ``anthropic`` SDKs can talk to.

It speaks enough of two wire formats for real SDK clients to work against it:

- OpenAI chat completions: ``POST /v1/chat/completions`` (JSON, and SSE chunks
  ending in ``data: [DONE]`` when ``"stream": true``; a usage chunk when
  ``stream_options.include_usage`` is set);
- Anthropic messages: ``POST /v1/messages`` (JSON, and SSE with the real event
  sequence: ``message_start``, ``ping``, ``content_block_start`` /
  ``content_block_delta`` (``text_delta``, ``thinking_delta``,
  ``signature_delta``, ``input_json_delta``) / ``content_block_stop``,
  ``message_delta``, ``message_stop``).

- OpenAI Responses: ``POST /v1/responses`` (JSON, and SSE with ``response.created``,
  ``response.output_item.added``, ``response.output_text.delta``,
  ``response.function_call_arguments.delta``, ``response.output_item.done``,
  ``response.completed``); ``POST /v1/responses/compact`` answers with one
  ``compaction`` item.

Usage::

    from provider_server import ProviderServer, Reply, ToolCall, Thinking, ErrorReply  # tests/ is on sys.path

    with ProviderServer() as server:                 # random port, stops cleanly on exit
        server.queue(
            Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]),
            ErrorReply.server_error(),               # the SDK retries this (retry-after-ms: 1)
            Reply(text="done"),
        )
        client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="test")
        anthropic_client = anthropic.AsyncAnthropic(base_url=server.anthropic_base_url, api_key="test")
        ...
        server.bodies("openai")                      # every JSON body received, in order

Scripting:

- ``server.queue(*replies)`` appends provider-neutral replies, served in order to
  whichever endpoint asks next; each is rendered in that endpoint's wire format.
- ``server.respond_with(fn)``: when the queue is empty, ``fn(body)`` gets the
  parsed request body (a dict) and returns a `Reply` or `ErrorReply`.
- With neither, the server answers 400 ``"provider_server: no scripted reply left"``
  (400 so the SDKs do not retry it).

Replies:

- `Reply`: ``text``, ``tool_calls`` (`ToolCall`, several = parallel calls),
  ``thinking`` (`Thinking` with ``signature``; OpenAI gets it as
  ``reasoning_content``), ``redacted_thinking``, ``structured`` (an object:
  OpenAI gets it as JSON content, Anthropic as a ``tool_use`` of the tool named by
  the request's forced ``tool_choice``), ``usage`` (`FakeUsage`; default: bytes/4
  of request and reply), ``stop_reason`` (default ``end_turn`` or ``tool_use``).
  Streamed text is cut into ``chunk_size``-character deltas.
- `ErrorReply`: any status and message; helpers ``context_length_exceeded()``
  (400, OpenAI ``code: context_length_exceeded`` / Anthropic "prompt is too long"),
  ``rate_limited()`` (429), ``server_error()`` (500), ``overloaded()`` (529).
  They carry ``retry-after-ms: 1`` so SDK backoff is instant in tests.

Recording: ``server.requests`` lists `RecordedRequest` (provider, path, headers,
body) for every POST, including the ones answered with an error, so retries are
visible. The server also rejects malformed requests the way the providers do
(missing ``model``, Anthropic ``max_tokens``, Anthropic role alternation, OpenAI
tool results without a matching earlier call) with a 400.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "ErrorReply",
    "FakeUsage",
    "ProviderServer",
    "RecordedRequest",
    "Reply",
    "Thinking",
    "ToolCall",
]

Provider = Literal["openai", "anthropic", "responses"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call in a scripted reply; ``arguments`` may be an object or raw JSON text."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, separators=(",", ":"))

    def arguments_object(self) -> Any:
        return json.loads(self.arguments) if isinstance(self.arguments, str) else dict(self.arguments)


@dataclass(frozen=True)
class Thinking:
    """A reasoning block; Anthropic sends ``signature`` via ``signature_delta`` when streaming."""

    text: str
    signature: str = "sig-fake"


@dataclass(frozen=True)
class FakeUsage:
    """Token counts to report instead of the bytes/4 default."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    """A provider-neutral assistant answer, rendered per endpoint."""

    text: str = ""
    tool_calls: Sequence[ToolCall] = ()
    thinking: Sequence[Thinking] = ()
    redacted_thinking: Sequence[str] = ()
    structured: Mapping[str, Any] | None = None
    usage: FakeUsage | None = None
    stop_reason: str | None = None
    chunk_size: int = 4
    hold_after: int = 0
    """Streaming: after this many events, wait until ``server.release`` is set (tests that relays do not buffer)."""


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer; ``kind`` is the provider error type, ``code`` the OpenAI error code."""

    status: int
    message: str
    kind: str = "invalid_request_error"
    code: str | None = None
    anthropic_message: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: {"retry-after-ms": "1"})
    reset: bool = False
    """Close the connection with a TCP reset instead of answering."""

    @classmethod
    def connection_reset(cls) -> ErrorReply:
        return cls(0, "connection reset", reset=True)

    @classmethod
    def context_length_exceeded(cls) -> ErrorReply:
        return cls(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "131072 tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
            anthropic_message="prompt is too long: 213457 tokens > 200000 maximum",
        )

    @classmethod
    def rate_limited(cls) -> ErrorReply:
        return cls(429, "Rate limit reached; try again shortly.", kind="rate_limit_error", code="rate_limit_exceeded")

    @classmethod
    def server_error(cls) -> ErrorReply:
        return cls(500, "The server had an error while processing your request.", kind="api_error")

    @classmethod
    def overloaded(cls) -> ErrorReply:
        return cls(529, "Overloaded", kind="overloaded_error")


@dataclass(frozen=True)
class RecordedRequest:
    """One POST the server received."""

    provider: Provider | None
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes = b""
    """The request body exactly as received."""


Responder = Callable[[dict[str, Any]], "Reply | ErrorReply"]


class ProviderServer:
    """The fake provider; a context manager that serves on a random port until exit."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self._host = host
        self._lock = threading.Lock()
        self._queue: deque[Reply | ErrorReply] = deque()
        self._responder: Responder | None = None
        self._counter = 0
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.release = threading.Event()
        """Set it to let a stream held by `Reply.hold_after` continue."""
        self.hold_timeouts = 0
        """Held streams that were never released and went on after 30 s (a test that expected a release failed)."""

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> ProviderServer:
        handler = _make_handler(self)
        httpd = ThreadingHTTPServer((self._host, 0), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="provider-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("provider server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    # -- scripting ---------------------------------------------------------------------------------

    def queue(self, *replies: Reply | ErrorReply) -> ProviderServer:
        with self._lock:
            self._queue.extend(replies)
        return self

    def respond_with(self, responder: Responder | None) -> ProviderServer:
        self._responder = responder
        return self

    @property
    def replies_left(self) -> int:
        with self._lock:
            return len(self._queue)

    def bodies(self, provider: Provider | None = None) -> list[Any]:
        """Request bodies received, oldest first, optionally for one provider only."""
        with self._lock:
            return [r.body for r in self.requests if provider is None or r.provider == provider]

    # -- internals used by the handler --------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, body: dict[str, Any]) -> Reply | ErrorReply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return self._responder(body)
        return ErrorReply(400, "provider_server: no scripted reply left", headers={})

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            self._counter += 1
            return f"{prefix}{self._counter:04d}"


# ---------------------------------------------------------------------------------------------------
# HTTP plumbing


def _make_handler(server: ProviderServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10
        disable_nagle_algorithm = True  # headers and body go out in separate writes: avoid 40 ms delayed-ACK stalls

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            server._record(RecordedRequest(None, path, headers, None, b""))
            if path.endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": "scripted-model", "object": "model"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route for {path}", "type": "not_found_error"}})

        def do_POST(self) -> None:
            if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
                parts: list[bytes] = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                raw = b"".join(parts)
            else:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?", 1)[0]
            provider: Provider | None
            if path.endswith("/chat/completions"):
                provider = "openai"
            elif path.endswith("/v1/messages"):
                provider = "anthropic"
            elif path.endswith("/responses") or path.endswith("/responses/compact"):
                provider = "responses"
            else:
                provider = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                body = json.loads(_decode(raw, headers.get("content-encoding", "")) or b"null")
            except ValueError:
                body = None
            server._record(RecordedRequest(provider, path, headers, body, raw))
            if provider is None:
                self._send_json(404, {"error": {"message": f"no route for {path}", "type": "not_found_error"}})
                return
            if not isinstance(body, dict):
                self._send_error(provider, ErrorReply(400, "request body is not a JSON object", headers={}))
                return
            problem = _validate(provider, body)
            if problem is not None:
                self._send_error(provider, ErrorReply(400, problem, headers={}))
                return
            if path.endswith("/responses/compact"):
                item = {"type": "compaction", "encrypted_content": f"compacted:{len(raw)}"}
                self._send_json(200, {"id": server._next_id("cmp_"), "object": "response.compaction", "output": [item]})
                return
            reply = server._next_reply(body)
            if isinstance(reply, ErrorReply):
                if reply.reset:
                    self._reset()
                    return
                self._send_error(provider, reply)
                return
            rendered: _OpenAIRender | _AnthropicRender | _ResponsesRender
            try:
                if provider == "openai":
                    rendered = _OpenAIRender(server, body, reply)
                elif provider == "responses":
                    rendered = _ResponsesRender(server, body, reply)
                else:
                    rendered = _AnthropicRender(server, body, reply)
            except _ScriptError as exc:
                self._send_error(provider, ErrorReply(400, f"provider_server: {exc}", headers={}))
                return
            if body.get("stream"):
                self._send_sse(rendered.sse(), reply.hold_after)
            else:
                self._send_json(200, rendered.json())

        def _reset(self) -> None:
            import socket
            import struct

            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def _send_error(self, provider: Provider, error: ErrorReply) -> None:
            if provider in ("openai", "responses"):
                payload: dict[str, Any] = {
                    "error": {"message": error.message, "type": error.kind, "param": None, "code": error.code}
                }
            else:
                payload = {
                    "type": "error",
                    "error": {"type": error.kind, "message": error.anthropic_message or error.message},
                }
            self._send_json(error.status, payload, error.headers)

        def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_sse(self, events: Iterator[tuple[str | None, str]], hold_after: int = 0) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for n, (name, data) in enumerate(events):
                if hold_after and n == hold_after and not server.release.wait(timeout=30):
                    server.hold_timeouts += 1
                frame = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
                chunk = frame.encode()
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


def _decode(raw: bytes, coding: str) -> bytes:
    """The body under its content-encoding, as a provider reads it (gzip and zstd; anything else as is)."""
    import zstandard

    coding = coding.strip().lower()
    try:
        if coding == "gzip":
            return gzip.decompress(raw)
        if coding == "zstd":
            return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True).read()
    except (OSError, EOFError, zstandard.ZstdError) as exc:
        raise ValueError(f"undecodable {coding} body") from exc
    return raw


class _ScriptError(Exception):
    pass


def _validate(provider: Provider, body: dict[str, Any]) -> str | None:
    """The checks the real providers make that an adapter bug would trip."""
    if not body.get("model"):
        return "model: field required"
    if provider == "responses":
        items = body.get("input")
        if isinstance(items, str):
            return None
        if not isinstance(items, list) or not items:
            return "input: a string or a non-empty list is required"
        calls: set[str] = set()
        for i, item in enumerate(items):
            kind = item.get("type", "message")
            if kind in ("function_call", "custom_tool_call"):
                calls.add(item.get("call_id"))
            elif kind in ("function_call_output", "custom_tool_call_output") and item.get("call_id") not in calls:
                return f"input[{i}]: No tool call found for {kind} with call_id {item.get('call_id')}"
        return None
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if provider == "anthropic":
        if not isinstance(body.get("max_tokens"), int):
            return "max_tokens: field required"
        roles = [m.get("role") for m in messages]
        if any(r not in ("user", "assistant") for r in roles):
            return "messages: roles must be 'user' or 'assistant'"
        if roles[0] != "user":
            return "messages: first message must use the 'user' role"
        for i in range(1, len(roles)):
            if roles[i] == roles[i - 1]:
                return f"messages.{i}: roles must alternate between 'user' and 'assistant'"
        return None
    seen: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{i}].role: invalid role {role!r}"
        for call in message.get("tool_calls") or ():
            seen.add(call.get("id"))
        if role == "tool" and message.get("tool_call_id") not in seen:
            return f"messages[{i}]: tool message does not answer a preceding tool call"
    return None


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _estimate(text: str) -> int:
    return max(1, len(text.encode()) // 4)


class _OpenAIRender:
    def __init__(self, server: ProviderServer, body: dict[str, Any], reply: Reply) -> None:
        self.body = body
        self.reply = reply
        self.model = str(body["model"])
        self.id = server._next_id("chatcmpl-")
        self.calls = [(call, call.id or server._next_id("call_")) for call in reply.tool_calls]
        self.content = json.dumps(reply.structured) if reply.structured is not None else reply.text
        self.reasoning = "".join(t.text for t in reply.thinking)
        default = "tool_calls" if self.calls else "stop"
        self.finish = reply.stop_reason or default

    def usage(self) -> dict[str, Any]:
        u = self.reply.usage
        if u is None:
            out = self.content + self.reasoning + "".join(c.arguments_json() for c, _ in self.calls)
            u = FakeUsage(_estimate(json.dumps(self.body["messages"])), _estimate(out))
        return {
            "prompt_tokens": u.input_tokens,
            "completion_tokens": u.output_tokens,
            "total_tokens": u.input_tokens + u.output_tokens,
            "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens},
            "completion_tokens_details": {"reasoning_tokens": _estimate(self.reasoning) if self.reasoning else 0},
        }

    def json(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None, "refusal": None}
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        if self.calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
                for c, cid in self.calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish, "logprobs": None}],
            "usage": self.usage(),
        }

    def _chunk(self, delta: dict[str, Any], finish: str | None = None, with_usage: bool = False) -> str:
        chunk: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }
        if with_usage:
            chunk["usage"] = None
        return json.dumps(chunk)

    def sse(self) -> Iterator[tuple[str | None, str]]:
        include_usage = bool((self.body.get("stream_options") or {}).get("include_usage"))
        size = self.reply.chunk_size
        yield None, self._chunk({"role": "assistant", "content": ""}, with_usage=include_usage)
        for piece in _chunks(self.reasoning, size):
            yield None, self._chunk({"reasoning_content": piece}, with_usage=include_usage)
        for piece in _chunks(self.content, size):
            yield None, self._chunk({"content": piece}, with_usage=include_usage)
        for index, (call, cid) in enumerate(self.calls):
            head = {"index": index, "id": cid, "type": "function", "function": {"name": call.name, "arguments": ""}}
            yield None, self._chunk({"tool_calls": [head]}, with_usage=include_usage)
            for piece in _chunks(call.arguments_json(), size * 2):
                part = {"index": index, "function": {"arguments": piece}}
                yield None, self._chunk({"tool_calls": [part]}, with_usage=include_usage)
        yield None, self._chunk({}, self.finish, with_usage=include_usage)
        if include_usage:
            final = {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": self.model,
                "choices": [],
                "usage": self.usage(),
            }
            yield None, json.dumps(final)
        yield None, "[DONE]"


class _AnthropicRender:
    def __init__(self, server: ProviderServer, body: dict[str, Any], reply: Reply) -> None:
        self.body = body
        self.reply = reply
        self.model = str(body["model"])
        self.id = server._next_id("msg_")
        calls = list(reply.tool_calls)
        if reply.structured is not None:
            choice = body.get("tool_choice") or {}
            if choice.get("type") != "tool" or not choice.get("name"):
                raise _ScriptError("a structured reply needs a request with a forced tool_choice")
            calls.append(ToolCall(choice["name"], reply.structured))
        self.blocks: list[dict[str, Any]] = []
        for thinking in reply.thinking:
            self.blocks.append({"type": "thinking", "thinking": thinking.text, "signature": thinking.signature})
        for data in reply.redacted_thinking:
            self.blocks.append({"type": "redacted_thinking", "data": data})
        if reply.text:
            self.blocks.append({"type": "text", "text": reply.text})
        for call in calls:
            cid = call.id or server._next_id("toolu_")
            self.blocks.append({"type": "tool_use", "id": cid, "name": call.name, "input": call.arguments_object()})
        self.stop = reply.stop_reason or ("tool_use" if calls else "end_turn")

    def usage(self) -> dict[str, Any]:
        u = self.reply.usage
        if u is None:
            out = json.dumps(self.blocks)
            u = FakeUsage(_estimate(json.dumps(self.body["messages"])), _estimate(out))
        return {
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "cache_read_input_tokens": u.cache_read_tokens,
            "cache_creation_input_tokens": u.cache_write_tokens,
        }

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.blocks,
            "stop_reason": self.stop,
            "stop_sequence": None,
            "usage": self.usage(),
        }

    def sse(self) -> Iterator[tuple[str | None, str]]:
        def event(name: str, **data: Any) -> tuple[str, str]:
            return name, json.dumps({"type": name, **data})

        usage = self.usage()
        start_usage = {**usage, "output_tokens": 1}
        message = {**self.json(), "content": [], "stop_reason": None, "usage": start_usage}
        yield event("message_start", message=message)
        yield event("ping")
        size = self.reply.chunk_size
        for index, block in enumerate(self.blocks):
            kind = block["type"]
            if kind == "thinking":
                yield event(
                    "content_block_start", index=index, content_block={**block, "thinking": "", "signature": ""}
                )
                for piece in _chunks(block["thinking"], size):
                    yield event("content_block_delta", index=index, delta={"type": "thinking_delta", "thinking": piece})
                sig = {"type": "signature_delta", "signature": block["signature"]}
                yield event("content_block_delta", index=index, delta=sig)
            elif kind == "redacted_thinking":
                yield event("content_block_start", index=index, content_block=block)
            elif kind == "text":
                yield event("content_block_start", index=index, content_block={"type": "text", "text": ""})
                for piece in _chunks(block["text"], size):
                    yield event("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
            else:
                yield event("content_block_start", index=index, content_block={**block, "input": {}})
                for piece in _chunks(json.dumps(block["input"], separators=(",", ":")), size * 2):
                    delta = {"type": "input_json_delta", "partial_json": piece}
                    yield event("content_block_delta", index=index, delta=delta)
            yield event("content_block_stop", index=index)
        delta_usage = {"output_tokens": usage["output_tokens"]}
        yield event("message_delta", delta={"stop_reason": self.stop, "stop_sequence": None}, usage=delta_usage)
        yield event("message_stop")


class _ResponsesRender:
    def __init__(self, server: ProviderServer, body: dict[str, Any], reply: Reply) -> None:
        self.body = body
        self.reply = reply
        self.model = str(body["model"])
        self.id = server._next_id("resp_")
        self.output: list[dict[str, Any]] = []
        for thinking in reply.thinking:
            self.output.append(
                {
                    "type": "reasoning",
                    "id": server._next_id("rs_"),
                    "summary": [{"type": "summary_text", "text": thinking.text}],
                    "encrypted_content": thinking.signature,
                }
            )
        text = json.dumps(reply.structured) if reply.structured is not None else reply.text
        if text:
            self.output.append(
                {
                    "type": "message",
                    "id": server._next_id("msg_"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
        for call in reply.tool_calls:
            self.output.append(
                {
                    "type": "function_call",
                    "id": server._next_id("fc_"),
                    "call_id": call.id or server._next_id("call_"),
                    "name": call.name,
                    "arguments": call.arguments_json(),
                    "status": "completed",
                }
            )

    def usage(self) -> dict[str, Any]:
        u = self.reply.usage
        if u is None:
            u = FakeUsage(_estimate(json.dumps(self.body.get("input"))), _estimate(json.dumps(self.output)))
        return {
            "input_tokens": u.input_tokens,
            "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
            "output_tokens": u.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": u.input_tokens + u.output_tokens,
        }

    def json(self, status: str = "completed") -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": 1_700_000_000,
            "status": status,
            "model": self.model,
            "output": self.output if status == "completed" else [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": self.usage() if status == "completed" else None,
        }

    def sse(self) -> Iterator[tuple[str | None, str]]:
        seq = 0

        def event(name: str, **data: Any) -> tuple[str, str]:
            nonlocal seq
            seq += 1
            return name, json.dumps({"type": name, "sequence_number": seq, **data})

        yield event("response.created", response=self.json("in_progress"))
        size = self.reply.chunk_size
        for index, item in enumerate(self.output):
            if item["type"] == "message":
                yield event("response.output_item.added", output_index=index, item={**item, "content": []})
                text = item["content"][0]["text"]
                for piece in _chunks(text, size):
                    yield event(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                    )
                yield event(
                    "response.output_text.done", item_id=item["id"], output_index=index, content_index=0, text=text
                )
            elif item["type"] == "function_call":
                yield event("response.output_item.added", output_index=index, item={**item, "arguments": ""})
                for piece in _chunks(item["arguments"], size * 2):
                    yield event(
                        "response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=piece
                    )
                yield event(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=index,
                    arguments=item["arguments"],
                )
            else:
                yield event("response.output_item.added", output_index=index, item=item)
            yield event("response.output_item.done", output_index=index, item=item)
        yield event("response.completed", response=self.json())
