"""Forwarding to the upstream and relaying its answer: headers, streaming, errors, virtual usage.

Responses are relayed chunk by chunk as they arrive (``aiter_raw``: no
decoding, no buffering), with the upstream's status and headers. Only in
the ``virtual`` usage mode, and only for a request the proxy shrank, the
token counts in ``usage`` are raised by what the proxy removed, so the client
sees the size of the history it sent; for a stream that touches only the
events that carry ``usage`` (one event is held until its blank line).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any

import orjson

__all__ = [
    "HOP_BY_HOP",
    "StreamedAnswer",
    "adjust_usage",
    "content_coding",
    "decode_request_body",
    "error_body",
    "request_headers",
    "response_headers",
    "sse_adjust",
    "upstream_url",
]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
_OWN_PREFIX = "x-contextfold-"


def upstream_url(base: str, path: str, query: str, *, strip_v1: bool) -> str:
    """The upstream URL of a request path: OpenAI's base already ends in ``/v1``."""
    if strip_v1 and path.startswith("/v1/"):
        path = path[3:]
    elif strip_v1 and path == "/v1":
        path = ""
    return base + path + (f"?{query}" if query else "")


def content_coding(headers: Mapping[str, str]) -> str | None:
    """A request's ``content-encoding``, lower case, or ``None`` for a body sent as is (absent or ``identity``)."""
    coding = headers.get("content-encoding", "").strip().lower()
    return None if coding in ("", "identity") else coding


def decode_request_body(raw: bytes, coding: str, cap: int) -> bytes:
    """A request body under its ``content-encoding`` (gzip, deflate, zstd), decoded to at most ``cap`` bytes.

    Why: Codex CLI compresses its request bodies with zstd when it takes the provider for first-party; the proxy reads
    the JSON under it and forwards a rewrite uncompressed (which every provider accepts). Decoding is bounded (a
    small bomb stops at ``cap``). Raises ``ValueError`` naming the coding and what is wrong: the caller fails open.
    """
    name = coding.strip().lower()
    if name in ("gzip", "x-gzip"):
        return _inflate(raw, 16 + zlib.MAX_WBITS, cap, name, members=True)
    if name == "deflate":  # RFC 9110's deflate is zlib-wrapped (a header whose 16 bits are a multiple of 31)
        wrapped = len(raw) >= 2 and raw[0] & 0x0F == 8 and int.from_bytes(raw[:2], "big") % 31 == 0
        return _inflate(raw, zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS, cap, name, members=False)
    if name == "zstd":
        return _unzstd(raw, cap)
    raise ValueError(f"content-encoding {coding!r} is not one the proxy decodes (gzip, deflate, zstd)")


def _inflate(raw: bytes, wbits: int, cap: int, name: str, *, members: bool) -> bytes:
    out: list[bytes] = []
    size = 0
    data = raw
    while data:
        stream = zlib.decompressobj(wbits)
        while data:
            try:
                chunk = stream.decompress(data, cap + 1 - size)
            except zlib.error as exc:
                raise ValueError(f"{name} body does not decode: {exc}") from None
            size += len(chunk)
            out.append(chunk)
            if size > cap:
                raise ValueError(f"{name} body decodes to over {cap} bytes")
            data = stream.unconsumed_tail
            if stream.eof:
                break
        if not stream.eof:
            raise ValueError(f"{name} body is truncated")
        data = stream.unused_data if members else b""
    return b"".join(out)


def _unzstd(raw: bytes, cap: int) -> bytes:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency of the proxy extra
        raise ValueError("zstd body: the zstandard package is not installed") from None
    out: list[bytes] = []
    size = 0
    try:
        with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as reader:
            while chunk := reader.read(min(1 << 20, cap + 1 - size)):
                size += len(chunk)
                out.append(chunk)
                if size > cap:
                    raise ValueError(f"zstd body decodes to over {cap} bytes")
    except zstandard.ZstdError as exc:
        raise ValueError(f"zstd body does not decode: {exc}") from None
    return b"".join(out)


def request_headers(
    headers: Iterable[tuple[str, str]], *, identity: bool, decoded: bool = False
) -> list[tuple[str, str]]:
    """The client's headers as forwarded: credentials verbatim; hop-by-hop and our own headers removed.

    ``decoded``: the body goes out decoded (a rewrite of a compressed request), so its ``content-encoding`` is dropped.
    """
    out: list[tuple[str, str]] = []
    for name, value in headers:
        low = name.lower()
        if low in HOP_BY_HOP or low.startswith(_OWN_PREFIX) or (decoded and low == "content-encoding"):
            continue
        if identity and low == "accept-encoding":
            continue
        out.append((name, value))
    if identity:
        out.append(("accept-encoding", "identity"))
    return out


def response_headers(headers: Iterable[tuple[str, str]], *, keep_length: bool) -> list[tuple[str, str]]:
    """The upstream's headers as relayed (hop-by-hop removed; the length only when the body is unchanged)."""
    out: list[tuple[str, str]] = []
    for name, value in headers:
        low = name.lower()
        if low == "content-length":
            if keep_length:
                out.append((name, value))
            continue
        if low in HOP_BY_HOP:
            continue
        out.append((name, value))
    return out


def error_body(provider: str, message: str) -> bytes:
    """An error in the provider's own shape (for an upstream the proxy could not reach)."""
    if provider == "anthropic":
        return orjson.dumps({"type": "error", "error": {"type": "api_error", "message": message}})
    return orjson.dumps({"error": {"message": message, "type": "api_error", "param": None, "code": "upstream_error"}})


def adjust_usage(obj: Any, delta: int) -> bool:
    """Add ``delta`` input tokens to every ``usage`` in a response object; whether one was found."""
    found = False
    if not isinstance(obj, dict):
        return False
    usage = obj.get("usage")
    if isinstance(usage, dict):
        for key in ("input_tokens", "prompt_tokens"):
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = value + delta
                found = True
        total = usage.get("total_tokens")
        if found and isinstance(total, int) and not isinstance(total, bool):
            usage["total_tokens"] = total + delta
    for key in ("message", "response"):
        inner = obj.get(key)
        if isinstance(inner, dict):
            found = adjust_usage(inner, delta) or found
    return found


async def sse_adjust(chunks: AsyncIterator[bytes], delta: int) -> AsyncIterator[bytes]:
    """Relay a server-sent-event stream, raising usage counts in the events that carry them."""
    pending = b""
    async for chunk in chunks:
        pending += chunk
        while True:
            cut = _event_end(pending)
            if cut < 0:
                break
            event, pending = pending[:cut], pending[cut:]
            yield _adjust_event(event, delta) if b'"usage"' in event else event
    if pending:
        yield _adjust_event(pending, delta) if b'"usage"' in pending else pending


def _event_end(data: bytes) -> int:
    """Index just after the first complete event (its blank line), or -1."""
    ends = [i for i in (data.find(b"\n\n"), data.find(b"\r\n\r\n")) if i >= 0]
    if not ends:
        return -1
    i = min(ends)
    return i + (4 if data[i : i + 4] == b"\r\n\r\n" else 2)


def _adjust_event(event: bytes, delta: int) -> bytes:
    lines = event.split(b"\n")
    for n, line in enumerate(lines):
        if not line.startswith(b"data:"):
            continue
        payload = line[5:].strip()
        try:
            obj = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return event
        if adjust_usage(obj, delta):
            lines[n] = b"data: " + orjson.dumps(obj)
    return b"\n".join(lines)


def header_map(headers: Iterable[tuple[str, str]]) -> Mapping[str, str]:
    """Lower-case header names to values (the last one wins)."""
    return {k.lower(): v for k, v in headers}


class StreamedAnswer:
    """An ASGI response relaying an upstream's answer chunk by chunk, stopped when the client goes away.

    What Starlette's ``StreamingResponse`` does for a server speaking ASGI 2.3 (uvicorn), without its task group:
    the chunks are sent from the request's own task and one small task waits for ``http.disconnect``, cancelling
    the relay if the client leaves first (the body iterator's ``finally`` then closes the upstream). Starlette's
    version runs the relay and the listener as two tasks under an anyio cancel scope, a fixed cost per request
    measured in ``docs/proxy.md``. ``background`` runs after the last byte, as Starlette's responses do.
    """

    def __init__(self, body: AsyncIterator[bytes], status_code: int, headers: Iterable[tuple[str, str]]) -> None:
        self.body = body
        self.status_code = status_code
        self.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        self.background: Callable[[], Awaitable[None]] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        task = asyncio.current_task()
        state = {"done": False, "gone": False}

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            if not state["done"] and task is not None:
                state["gone"] = True
                task.cancel()

        watcher = asyncio.ensure_future(watch())
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            async for chunk in self.body:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not state["gone"]:
                raise
            if task is not None:
                task.uncancel()  # the cancellation was ours (the client left): the request ends normally
        finally:
            state["done"] = True
            watcher.cancel()
        if self.background is not None:
            await self.background()
