"""The proxy's lean upstream client (`_upstream`) and its streamed answer (`StreamedAnswer`), against raw sockets.

A scripted asyncio server answers with exact bytes (content-length, chunked, 100 Continue, close-delimited) and
records what it received, so the request bytes and the connection reuse are asserted, not assumed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold.proxy._relay import StreamedAnswer
from contextfold.proxy._upstream import UpstreamClient, UpstreamError


class Scripted:
    """A loopback server: each request is read whole (by content-length); ``answer(n)`` gives the n-th reply."""

    def __init__(self, answer: Callable[[int], list[bytes]], *, close_after: bool = False) -> None:
        self.answer = answer
        self.close_after = close_after
        self.requests: list[bytes] = []
        self.connections = 0
        self.server: asyncio.Server | None = None
        self.handlers: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Scripted:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        for task in self.handlers:
            task.cancel()
        await asyncio.gather(*self.handlers, return_exceptions=True)
        await self.server.wait_closed()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self.handlers.add(task)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                for part in self.answer(len(self.requests) - 1):
                    writer.write(part)
                    await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            self.handlers.discard(task)


def _fixed(status: int, body: bytes, extra: bytes = b"") -> list[bytes]:
    return [
        b"HTTP/1.1 %d OK\r\ncontent-type: application/json\r\n" % status + extra,
        b"content-length: %d\r\n\r\n" % len(body),
        body,
    ]


def _chunked(parts: list[bytes]) -> list[bytes]:
    out = [b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"]
    out += [b"%x\r\n%s\r\n" % (len(p), p) for p in parts if p]
    return [*out, b"0\r\n\r\n"]


async def _post(
    client: UpstreamClient, url: str, body: bytes, headers: list[tuple[str, str]] | None = None
) -> tuple[int, bytes, Any]:
    answer = await client.post(url + "/v1/messages?beta=true", headers or [("x-api-key", "k")], body)
    return answer.status_code, await answer.aread(), answer.headers


def _client() -> UpstreamClient:
    return UpstreamClient(connect_timeout=5, read_timeout=5)


def test_request_bytes_are_the_headers_given_plus_host_and_length() -> None:
    async def go() -> None:
        async with Scripted(lambda n: _fixed(200, b'{"ok":1}')) as up:
            client = _client()
            body = b'{"messages":[{"role":"user","content":"\\u00e9 x"}]}'
            status, data, headers = await _post(client, up.url, body, [("x-api-key", "k"), ("anthropic-beta", "a,b")])
            await client.aclose()
            port = up.url.rsplit(":", 1)[1]
        assert (status, data) == (200, b'{"ok":1}')
        assert headers.get("Content-Type") == "application/json"
        assert up.requests == [
            b"POST /v1/messages?beta=true HTTP/1.1\r\nhost: 127.0.0.1:%s\r\nx-api-key: k\r\nanthropic-beta: a,b\r\n"
            b"content-length: %d\r\n\r\n" % (port.encode(), len(body)) + body
        ]

    asyncio.run(go())


@settings(max_examples=25, deadline=None)
@given(parts=st.lists(st.binary(min_size=0, max_size=3000), max_size=6), body=st.binary(max_size=5000))
def test_chunked_answers_come_back_whole_and_the_body_goes_out_byte_for_byte(parts: list[bytes], body: bytes) -> None:
    async def go() -> None:
        async with Scripted(lambda n: _chunked(parts)) as up:
            client = _client()
            for _ in range(2):  # the second on the kept-alive connection
                status, data, _ = await _post(client, up.url, body)
                assert (status, data) == (200, b"".join(parts))
            await client.aclose()
        assert up.connections == 1
        assert [r.split(b"\r\n\r\n", 1)[1] for r in up.requests] == [body, body]

    asyncio.run(go())


def test_continue_then_answer_and_a_close_delimited_body() -> None:
    def answer(n: int) -> list[bytes]:
        return [
            b"HTTP/1.1 100 Continue\r\n\r\n",
            b"HTTP/1.1 201 Created\r\nconnection: close\r\n\r\n",
            b"part1",
            b"part2",
        ]

    async def go() -> None:
        async with Scripted(answer, close_after=True) as up:
            client = _client()
            status, data, _ = await _post(client, up.url, b"{}")
            status2, data2, _ = await _post(client, up.url, b"{}")  # not reused: the upstream closed it
            await client.aclose()
        assert (status, data) == (201, b"part1part2") == (status2, data2)
        assert up.connections == 2

    asyncio.run(go())


def test_a_kept_alive_connection_the_upstream_dropped_is_replaced() -> None:
    async def go() -> None:
        # keep-alive promised, then the server closes after each answer: the next request must not fail
        async with Scripted(lambda n: _fixed(200, b"%d" % n), close_after=True) as up:
            client = _client()
            got = []
            for _ in range(3):
                got.append((await _post(client, up.url, b"{}"))[1])
                await asyncio.sleep(0.05)
            await client.aclose()
        assert got == [b"0", b"1", b"2"]
        assert up.connections == 3

    asyncio.run(go())


def test_unreachable_and_truncated_upstreams_raise_upstream_error() -> None:
    async def go() -> None:
        client = _client()
        async with Scripted(lambda n: _fixed(200, b"")) as up:
            url = up.url
        with pytest.raises(UpstreamError):
            await client.post(url + "/v1/messages", [], b"{}")  # nothing listens there any more
        async with Scripted(lambda n: [b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"], close_after=True) as up:
            answer = await client.post(up.url + "/v1/messages", [], b"{}")
            with pytest.raises(UpstreamError):
                await answer.aread()
        await client.aclose()

    asyncio.run(go())


def test_streamed_answer_relays_headers_chunks_then_background() -> None:
    sent: list[dict[str, Any]] = []
    ran: list[str] = []

    async def body() -> AsyncIterator[bytes]:
        yield b"a"
        yield b"bc"

    async def go() -> None:
        answer = StreamedAnswer(
            body(), 200, [("Content-Type", "text/event-stream"), ("x-contextfold-compacted", "true")]
        )

        async def background() -> None:
            ran.append("after")

        answer.background = background
        never = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await never.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await answer({"type": "http"}, receive, send)

    asyncio.run(go())
    assert sent == [
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream"), (b"x-contextfold-compacted", b"true")],
        },
        {"type": "http.response.body", "body": b"a", "more_body": True},
        {"type": "http.response.body", "body": b"bc", "more_body": True},
        {"type": "http.response.body", "body": b"", "more_body": False},
    ]
    assert ran == ["after"]


def test_streamed_answer_stops_and_closes_the_upstream_when_the_client_leaves() -> None:
    closed: list[bool] = []
    ran: list[str] = []

    async def body() -> AsyncIterator[bytes]:
        try:
            yield b"first"
            await asyncio.sleep(30)  # an upstream that is slow to say more
            yield b"never"
        finally:
            closed.append(True)

    async def go() -> None:
        answer = StreamedAnswer(body(), 200, [])

        async def background() -> None:
            ran.append("after")

        answer.background = background
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            while not sent or sent[-1].get("body") != b"first":
                await asyncio.sleep(0.01)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await asyncio.wait_for(answer({"type": "http"}, receive, send), 5)
        assert [m.get("body") for m in sent] == [None, b"first"]
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]

    asyncio.run(go())
    assert closed == [True]
    assert ran == ["after"]
