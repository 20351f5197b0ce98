"""The proxy's client for the requests it rewrites: HTTP/1.1 keep-alive, one write per request, the answer raw.

Why not httpx2 here: a streamed ``POST`` of a large history through httpx2 (httpcore2, h11, an anyio cancel scope
per socket operation) costs about 0.7 ms more than writing the request in one call and parsing the answer with
httptools (1.21 against 0.50 ms for 370 KB on loopback, ``docs/proxy.md``), on every request. This client does only
what the hot path needs: a ``POST`` with the whole body in hand, a pool of idle connections per origin, the
answer's status and headers, then its body as it arrives (transfer coding removed, content coding kept: what
``aiter_raw`` relays). Everything else (other methods, a body streamed through because it is over the cap, an
upstream reached through a forward proxy: `direct`) stays on httpx2. TLS uses the app's context (httpx2's, with
``SSL_CERT_FILE`` when the environment is trusted), so the trust store is the same.

The request carries the client's headers as given (``request_headers``) plus ``host`` and ``content-length``;
nothing else is added. A kept-alive connection the upstream closed while idle is detected before reuse, and a
request whose reused connection ends before any byte of an answer is sent once more on a new connection.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlsplit

import httptools

from contextfold._errors import UpstreamError

__all__ = ["Answer", "AnswerHeaders", "UpstreamClient", "UpstreamError"]

_READ = 65536


class AnswerHeaders(list[tuple[str, str]]):
    """The answer's headers in order, names as sent; ``get`` and ``multi_items`` as httpx2's headers have them."""

    def get(self, name: str, default: str = "") -> str:
        low = name.lower()
        for key, value in self:
            if key.lower() == low:
                return value
        return default

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self)


class _Conn:
    """One connection and the parser of the answer being read on it."""

    __slots__ = ("origin", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, origin: tuple[str, str, int]):
        self.reader = reader
        self.writer = writer
        self.origin = origin

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.close()


class Answer:
    """An upstream answer: status and headers read; the body read on demand (``aiter_raw``, ``aread``)."""

    def __init__(self, client: UpstreamClient, conn: _Conn, read_timeout: float) -> None:
        self._client = client
        self._conn: _Conn | None = conn
        self._timeout = read_timeout
        self._parser = httptools.HttpResponseParser(self)
        self._header_list = AnswerHeaders()
        self._chunks: list[bytes] = []
        self._headers_done = False
        self._complete = False
        self._informational = False
        self._seen_bytes = False
        self._keep_alive = False
        self.status_code = 0

    @property
    def headers(self) -> AnswerHeaders:
        return self._header_list

    # httptools callbacks
    def on_message_begin(self) -> None:
        self._header_list = AnswerHeaders()
        self._informational = False

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_list.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:
            self._informational = True  # 100 Continue and the like: the answer proper follows
            return
        self.status_code = status
        self._headers_done = True

    def on_body(self, body: bytes) -> None:
        self._chunks.append(body)

    def on_message_complete(self) -> None:
        if not self._informational:
            self._complete = True
            self._keep_alive = self._parser.should_keep_alive()  # read here: the parser resets after the message

    async def _feed(self) -> bool:
        """Read once and parse; False at the end of the stream."""
        conn = self._conn
        if conn is None:
            raise UpstreamError("the answer was closed")
        try:
            async with asyncio.timeout(self._timeout):
                data = await conn.reader.read(_READ)
        except TimeoutError:
            raise UpstreamError(f"no answer within {self._timeout:.0f} s") from None
        except OSError as exc:
            raise UpstreamError(f"connection broken: {type(exc).__name__}") from exc
        if not data:
            return False
        self._seen_bytes = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            raise UpstreamError(f"unreadable answer: {exc}") from exc
        return True

    async def read_head(self) -> None:
        """Read until the status and headers are known."""
        while not self._headers_done:
            if not await self._feed():
                raise UpstreamError("the upstream closed the connection before answering")

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body as it arrives (transfer coding removed); the connection goes back to the pool at its end."""
        try:
            while True:
                if self._chunks:
                    chunks, self._chunks = self._chunks, []
                    for chunk in chunks:
                        yield chunk
                if self._complete:
                    break
                if not await self._feed():
                    if self._delimited_by_close():
                        self._complete = True
                        self._drop()
                        continue
                    raise UpstreamError("the upstream closed the connection mid-answer")
        finally:
            await self.aclose()

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_raw()])

    def _delimited_by_close(self) -> bool:
        names = {k.lower() for k, _ in self._header_list}
        return self._headers_done and "content-length" not in names and "transfer-encoding" not in names

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def aclose(self) -> None:
        """Back to the pool when the answer was read whole and the upstream keeps the connection; else closed."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._complete and self._keep_alive:
            self._client._release(conn)
        else:
            conn.close()


class UpstreamClient:
    """Keep-alive HTTP/1.1 connections to the upstreams, at most ``max_idle`` idle ones per origin."""

    def __init__(
        self,
        *,
        connect_timeout: float,
        read_timeout: float,
        max_idle: int = 50,
        tls: ssl.SSLContext | None = None,
        proxied: Iterable[str] = (),
    ) -> None:
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._ssl = tls
        self._proxied = frozenset(proxied)
        self._closed = False

    def direct(self, url: str) -> bool:
        """False for a URL whose origin (``scheme://host[:port]``) goes through a forward proxy: not this client's."""
        if not self._proxied:
            return True
        parts = urlsplit(url)
        return f"{parts.scheme.lower()}://{parts.netloc.rpartition('@')[2].lower()}" not in self._proxied

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            import httpx2

            self._ssl = httpx2.create_ssl_context(trust_env=False)
        return self._ssl

    async def _connect(self, origin: tuple[str, str, int]) -> _Conn:
        scheme, host, port = origin
        tls: Any = self._context() if scheme == "https" else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None, limit=1 << 20
                )
        except TimeoutError:
            raise UpstreamError(f"cannot connect within {self.connect_timeout:.0f} s") from None
        except OSError as exc:
            raise UpstreamError(f"cannot connect: {type(exc).__name__}") from exc
        return _Conn(reader, writer, origin)

    def _release(self, conn: _Conn) -> None:
        idle = self._idle.setdefault(conn.origin, [])
        if self._closed or len(idle) >= self.max_idle or not conn.usable():
            conn.close()
        else:
            idle.append(conn)

    async def post(self, url: str, headers: Iterable[tuple[str, str]], body: bytes) -> Answer:
        """Send ``POST url`` with ``body``; the answer with its status and headers read (raises `UpstreamError`)."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise UpstreamError(f"not an http(s) URL: {url.split('?')[0]}")
        default = 443 if scheme == "https" else 80
        port = parts.port or default
        origin = (scheme, parts.hostname, port)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rpartition("@")[2]
        lines = [f"POST {target} HTTP/1.1", f"host: {host}"]
        lines += [f"{name}: {value}" for name, value in headers]
        lines.append(f"content-length: {len(body)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if conn.usable():
                answer = await self._exchange(conn, head, body, reused=True)
                if answer is not None:
                    return answer
                break  # the upstream had closed it: once more on a new connection
            conn.close()
        conn = await self._connect(origin)
        answer = await self._exchange(conn, head, body, reused=False)
        assert answer is not None  # a new connection raises instead
        return answer

    async def _exchange(self, conn: _Conn, head: bytes, body: bytes, *, reused: bool) -> Answer | None:
        answer = Answer(self, conn, self.read_timeout)
        try:
            conn.writer.writelines((head, body))
            async with asyncio.timeout(self.read_timeout):
                await conn.writer.drain()
            await answer.read_head()
        except (UpstreamError, OSError, TimeoutError) as exc:
            conn.close()
            if reused and not answer._seen_bytes:
                return None
            if isinstance(exc, UpstreamError):
                raise
            raise UpstreamError(f"cannot send the request: {type(exc).__name__}") from exc
        except BaseException:
            conn.close()
            raise
        return answer

    async def aclose(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()
