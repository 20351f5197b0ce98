"""The ASGI app: routes, auth, body limits, fail-open forwarding, stats, metrics, health.

Routes: ``POST /v1/messages`` (Anthropic, ``?beta=true`` too),
``POST /v1/chat/completions`` and ``POST /v1/responses`` are rewritten
(`Engine`); everything else (``/v1/messages/count_tokens``, ``/v1/models``,
``/v1/responses/compact``, ...) is relayed untouched to the upstream its
path or credential header names. ``GET /healthz``, ``GET /stats`` and
``GET /metrics`` are the proxy's own.

Fail open: an unknown shape, a parse error, a store that cannot be reached or
any internal error forwards the client's original bytes, with one log line
saying why. A body above ``max_body_bytes`` is not read into memory: it is
streamed to the upstream as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx2
import orjson
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from contextfold._guard._redact import redact_secrets

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
from contextfold._stores import SessionStore, StoreError, display_url, open_store
from contextfold._tokens._factory import make_counter
from contextfold.proxy._config import AUTH_HEADER, ProxyConfig
from contextfold.proxy._engine import Engine, Outcome
from contextfold.proxy._relay import (
    StreamedAnswer,
    adjust_usage,
    content_coding,
    decode_request_body,
    error_body,
    header_map,
    request_headers,
    response_headers,
    sse_adjust,
    upstream_url,
)
from contextfold.proxy._tenant import credential_of, tenant_of
from contextfold.proxy._upstream import UpstreamClient, UpstreamError
from contextfold.proxy._wire import FORMATS, WireFormat

__all__ = ["AUTH_HEADER", "ProxyState", "create_app"]


LogSink = Callable[[str], None]


class _Metrics:
    """Prometheus metrics of one app (its own registry, so several apps can live in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "contextfold_proxy_requests", "Requests relayed", ["endpoint", "action"], registry=self.registry
        )
        self.tokens_in = Counter("contextfold_proxy_tokens_in", "Estimated tokens received", registry=self.registry)
        self.tokens_out = Counter("contextfold_proxy_tokens_out", "Estimated tokens forwarded", registry=self.registry)
        self.compactions = Counter("contextfold_proxy_compactions", "Compactions applied", registry=self.registry)
        self.offloads = Counter("contextfold_proxy_offloads", "Tool results offloaded", registry=self.registry)
        self.fail_open = Counter(
            "contextfold_proxy_fail_open",
            "Requests forwarded unchanged after an error",
            ["reason"],
            registry=self.registry,
        )
        self.upstream = Counter(
            "contextfold_proxy_upstream_responses", "Upstream responses by status", ["status"], registry=self.registry
        )
        self.store_up = Gauge(
            "contextfold_proxy_store_up",
            "1 when the session store answered the last health check",
            registry=self.registry,
        )
        self.seconds = Histogram(
            "contextfold_proxy_rewrite_seconds",
            "Time the proxy spent on a request before forwarding it (parse, hash, count, splice, compact)",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
            registry=self.registry,
        )


@dataclass
class ProxyState:
    """What the app holds between requests (``app.state.proxy``)."""

    config: ProxyConfig
    store: SessionStore
    engine: Engine
    metrics: _Metrics
    log: LogSink
    client: httpx2.AsyncClient | None = None
    upstream: UpstreamClient | None = None
    ready: bool = False


def _default_sink(config: ProxyConfig) -> LogSink:
    """Plain lines on stderr (``contextfold proxy`` passes a rich console instead)."""
    if config.quiet:
        return lambda line: None
    return lambda line: print(line, file=sys.stderr, flush=True)


def create_app(config: ProxyConfig, *, log: LogSink | None = None) -> Starlette:
    """The proxy as a Starlette app (serve it with uvicorn); ``log`` receives one redacted line per request."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    store = config.store
    if store is None:
        store = open_store(config.store_url or config.state_dir, retention=config.retention)
    sink = log if log is not None else _default_sink(config)

    def safe_log(line: str) -> None:
        sink(redact_secrets(line).text)

    quiet = log is None and config.quiet  # nothing is printed: no redaction pass per request either

    state = ProxyState(
        config=config,
        store=store,
        engine=Engine(config, store, make_counter(config.counter), log=safe_log),
        metrics=_Metrics(),
        log=(lambda line: None) if quiet else safe_log,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        timeout = httpx2.Timeout(config.connect_timeout, read=config.read_timeout, write=config.read_timeout)
        limits = httpx2.Limits(max_connections=200, max_keepalive_connections=50, keepalive_expiry=60)
        tls = httpx2.create_ssl_context(trust_env=config.trust_env)  # SSL_CERT_FILE / SSL_CERT_DIR when trusted
        proxies = config.upstream_proxies()
        for origin, proxy in proxies.items():
            safe_log(f"contextfold proxy: {origin} through the forward proxy {display_url(proxy)}")
        # Our own reading of the environment decides (loopback bypassed): httpx2 reads none of it itself.
        mounts = {
            origin: httpx2.AsyncHTTPTransport(verify=tls, trust_env=False, limits=limits, proxy=proxy)
            for origin, proxy in proxies.items()
        }
        state.client = httpx2.AsyncClient(
            timeout=timeout, limits=limits, follow_redirects=False, trust_env=False, verify=tls, mounts=mounts
        )
        state.upstream = UpstreamClient(
            connect_timeout=config.connect_timeout, read_timeout=config.read_timeout, tls=tls, proxied=proxies
        )
        try:
            await store.ping()
        except StoreError as exc:
            safe_log(f"contextfold proxy: session store unavailable, forwarding unchanged until it is back: {exc}")
        state.ready = True
        try:
            yield
        finally:
            state.ready = False
            await state.engine.aclose()  # background compactions cancelled and awaited before the store closes
            await state.client.aclose()
            await state.upstream.aclose()
            with contextlib.suppress(StoreError):
                await store.aclose()

    async def healthz(request: Request) -> Response:
        # 200 whenever the proxy serves: with the store down it still forwards (unchanged), so a load balancer must
        # not take every replica out at once because their shared store is down; "degraded" says so.
        if not state.ready:
            return JSONResponse({"status": "starting"}, status_code=503)
        problem = await _store_problem(store)
        state.metrics.store_up.set(0 if problem else 1)
        if problem:
            return JSONResponse({"status": "degraded", "store": problem, "forwarding": "unchanged (fail open)"})
        return JSONResponse({"status": "ok", "store": "ok"})

    async def stats(request: Request) -> Response:
        tenant = tenant_of(credential_of(header_map(request.headers.items())))
        try:
            sessions = await store.session_stats(tenant)
        except StoreError as exc:
            return JSONResponse({"error": f"session store unavailable: {exc}"}, status_code=503)
        return JSONResponse({"sessions": [s.to_dict() for s in sessions]})

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def relay(request: Request) -> Response | StreamedAnswer:
        return await _relay(state, request)

    middleware = [Middleware(_AuthMiddleware, token=config.auth_token)] if config.auth_token else []
    app = Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/stats", stats, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            Route("/{path:path}", relay, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.proxy = state
    return app


HEALTH_TIMEOUT = 2.0
"""Seconds ``/healthz`` waits for the store's answer before it reports the store as unreachable."""


async def _store_problem(store: SessionStore) -> str | None:
    """None when the store answers a ping in time, else why not (one line, no credentials)."""
    try:
        await asyncio.wait_for(store.ping(), HEALTH_TIMEOUT)
    except StoreError as exc:
        return f"unreachable: {exc}"
    except TimeoutError:
        return f"unreachable: no answer within {HEALTH_TIMEOUT:.0f} s"
    return None


class _AuthMiddleware:
    """Every request must carry the proxy's token (constant-time comparison), else 401 before anything else."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = b""
            bearer = b""
            for name, value in scope["headers"]:
                low = name.lower()
                if low == AUTH_HEADER.encode():
                    given = value.strip()
                elif low == b"proxy-authorization":
                    scheme, _, rest = value.partition(b" ")
                    if scheme.lower() == b"bearer":
                        bearer = rest.strip()
            if not hmac.compare_digest(given or bearer, self.token):
                from starlette.responses import Response

                message = f"contextfold proxy: missing or wrong {AUTH_HEADER} header"
                body = orjson.dumps({"error": {"type": "authentication_error", "message": message}})
                await Response(body, status_code=401, media_type="application/json")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _route(path: str, headers: Mapping[str, str]) -> tuple[str, WireFormat | None]:
    """Which upstream a path goes to, and the format to rewrite (None: relay untouched)."""
    if path in ("/v1/messages", "/messages"):
        return "anthropic", FORMATS["anthropic"]
    if path in ("/v1/chat/completions", "/chat/completions"):
        return "openai", FORMATS["openai"]
    if path in ("/v1/responses", "/responses"):
        return "openai", FORMATS["responses"]
    if path.startswith(("/v1/messages", "/v1/complete")) or "x-api-key" in headers or "anthropic-version" in headers:
        return "anthropic", None
    return "openai", None


async def _read_capped(request: Request, cap: int) -> tuple[list[bytes], bool, AsyncIterator[bytes]]:
    """Read the body up to ``cap`` bytes: (chunks read, over the cap, the rest of the stream)."""
    stream = request.stream()
    chunks: list[bytes] = []
    size = 0
    async for chunk in stream:
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return chunks, True, stream
    return chunks, False, stream


async def _relay(state: ProxyState, request: Request) -> Response | StreamedAnswer:
    started = time.perf_counter()
    config = state.config
    headers = header_map(request.headers.items())
    path = request.url.path
    provider, fmt = _route(path, headers)
    tenant = tenant_of(credential_of(headers))
    chunks, over, rest = await _read_capped(request, config.max_body_bytes)
    outcome: Outcome | None = None
    reason = ""
    payload: bytes | AsyncIterator[bytes]
    if over:
        reason = f"body over {config.max_body_bytes} bytes: streamed through unchanged"
        payload = _chain(chunks, rest)
    else:
        raw = b"".join(chunks)
        payload = raw
        if fmt is not None and request.method == "POST":
            coding = content_coding(headers)
            try:
                text = raw if coding is None else decode_request_body(raw, coding, config.max_body_bytes)
            except ValueError as exc:  # its coding, a corrupt stream, or over the cap decoded
                reason = f"encoded body: {exc}"
            else:
                outcome, reason = await _rewrite(state, fmt, text, headers, tenant)
                if outcome is not None and outcome.body is not None:
                    payload = outcome.body
    if reason:
        state.metrics.fail_open.labels(reason.split(":")[0]).inc()
    elapsed = time.perf_counter() - started
    state.metrics.seconds.observe(elapsed)
    base = config.anthropic_upstream if provider == "anthropic" else config.openai_upstream
    url = upstream_url(base, path, request.url.query, strip_v1=provider == "openai")
    virtual = config.usage == "virtual" and outcome is not None and outcome.tokens_before > outcome.tokens_after
    original = raw if outcome is not None and outcome.body is not None else None
    response = await _forward(state, request, provider, url, headers, payload, outcome, virtual, elapsed, original)
    try:
        _account(state, request, path, fmt, tenant, outcome, reason, response.status_code, elapsed)
    except Exception as exc:  # accounting never costs the client its answer
        state.log(f"contextfold proxy: accounting failed: {type(exc).__name__}: {str(exc)[:160]}")
    if outcome is not None:
        from starlette.background import BackgroundTask

        # The engine's store write and the session's stats row start once the response is sent (starlette runs a
        # response's background task after its last byte): store writes never compete with relaying the answer.
        response.background = BackgroundTask(_after_response, state, tenant, outcome)
    return response


async def _rewrite(
    state: ProxyState, fmt: WireFormat, text: bytes, headers: Mapping[str, str], tenant: str
) -> tuple[Outcome | None, str]:
    """The engine's rewrite of a JSON body, or why the request is forwarded unchanged (fail open)."""
    try:
        body = orjson.loads(text)
        if not isinstance(body, dict):
            raise ValueError("the body is not a JSON object")
        return await state.engine.rewrite(fmt, body, headers, tenant), ""
    except StoreError as exc:
        return None, f"session store: {exc}"
    except (orjson.JSONDecodeError, ValueError) as exc:
        return None, f"unparsable body: {str(exc)[:120]}"
    except Exception as exc:
        return None, f"internal error: {type(exc).__name__}: {str(exc)[:160]}"


_CLIENT_DEFAULTS = ("accept", "accept-encoding", "user-agent")
"""Headers httpx2 adds to every request it builds; removed unless the client sent them (gzip it never asked for)."""


async def _chain(first: list[bytes], rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in first:
        yield chunk
    async for chunk in rest:
        yield chunk


async def _forward(
    state: ProxyState,
    request: Request,
    provider: str,
    url: str,
    headers: Mapping[str, str],
    payload: bytes | AsyncIterator[bytes],
    outcome: Outcome | None,
    virtual: bool,
    elapsed: float,
    original: bytes | None = None,
) -> Response | StreamedAnswer:
    from starlette.responses import Response

    client = state.client
    assert client is not None, "the app's lifespan did not run"
    client_headers = request_headers(request.headers.items(), identity=virtual)
    forwarded_headers = client_headers
    if original is not None and content_coding(headers) is not None:
        # A rewrite of a compressed request goes out decoded; the client's own bytes keep their content-encoding.
        forwarded_headers = request_headers(request.headers.items(), identity=virtual, decoded=True)
    sent = {name.lower() for name, _ in forwarded_headers}
    lean = state.upstream if request.method == "POST" and isinstance(payload, bytes) else None
    if lean is not None and not lean.direct(url):
        lean = None  # through a forward proxy: httpx2 speaks CONNECT and proxy authentication

    async def send(content: bytes | AsyncIterator[bytes], headers: list[tuple[str, str]]) -> Any:
        if lean is not None and isinstance(content, bytes):
            return await lean.post(url, headers, content)  # the hot path: `_upstream`
        built = client.build_request(request.method, url, headers=headers, content=content)
        for name in _CLIENT_DEFAULTS:  # httpx2's defaults: the upstream sees the client's headers as the lean path
            if name not in sent:
                built.headers.pop(name, None)
        return await client.send(built, stream=True)

    try:
        upstream = await send(payload, forwarded_headers)
        if original is not None and upstream.status_code == 400:
            # The provider refused the rewritten request: send the client's own bytes instead, so the proxy never
            # makes a request fail that would have succeeded without it (and relay whatever that one gets).
            await upstream.aclose()
            state.metrics.fail_open.labels("upstream refused the rewrite").inc()
            state.log("contextfold proxy: the upstream refused the rewritten request (400); sent the original instead")
            upstream = await send(original, client_headers)
            outcome = None
    except (httpx2.HTTPError, UpstreamError) as exc:
        message = f"contextfold proxy: cannot reach the upstream {url.split('?')[0]}: {type(exc).__name__}"
        state.log(message)
        return Response(error_body(provider, message), status_code=502, media_type="application/json")
    state.metrics.upstream.labels(str(upstream.status_code)).inc()
    own = _own_headers(outcome)
    virtual = virtual and outcome is not None
    own["x-contextfold-proxy-ms"] = f"{elapsed * 1000:.2f}"
    delta = outcome.tokens_before - outcome.tokens_after if outcome is not None else 0
    content_type = upstream.headers.get("content-type", "")
    adjust = virtual and delta > 0 and upstream.status_code == 200
    if adjust and "text/event-stream" not in content_type:
        data = await upstream.aread()
        await upstream.aclose()
        with contextlib.suppress(orjson.JSONDecodeError):
            obj = orjson.loads(data)
            if adjust_usage(obj, delta):
                data = orjson.dumps(obj)
        relayed = response_headers(upstream.headers.multi_items(), keep_length=False)
        return Response(data, status_code=upstream.status_code, headers=_merge(relayed, own))

    async def body() -> AsyncIterator[bytes]:
        try:
            chunks: AsyncIterator[bytes] = upstream.aiter_raw()
            if adjust:
                chunks = sse_adjust(chunks, delta)
            async for chunk in chunks:
                yield chunk
        except (httpx2.HTTPError, UpstreamError) as exc:
            state.log(f"contextfold proxy: upstream stream broke: {type(exc).__name__}")
        finally:
            await upstream.aclose()

    relayed = response_headers(upstream.headers.multi_items(), keep_length=not adjust)
    return StreamedAnswer(body(), upstream.status_code, _merge(relayed, own).items())


def _merge(relayed: list[tuple[str, str]], own: dict[str, str]) -> Any:
    """The upstream's headers (repeated ones kept), then the proxy's own, which replace any of the same name."""
    from starlette.datastructures import MutableHeaders

    out = MutableHeaders()
    for name, value in relayed:
        out.append(name, value)
    for name, value in own.items():
        out[name] = value
    return out


def _own_headers(outcome: Outcome | None) -> dict[str, str]:
    if outcome is None:
        return {"x-contextfold-compacted": "false"}
    return {
        "x-contextfold-tokens-before": str(outcome.tokens_before),
        "x-contextfold-tokens-after": str(outcome.tokens_after),
        "x-contextfold-compacted": "true" if outcome.compacted else "false",
        "x-contextfold-session": outcome.session,
    }


def _account(
    state: ProxyState,
    request: Request,
    path: str,
    fmt: WireFormat | None,
    tenant: str,
    outcome: Outcome | None,
    reason: str,
    status: int,
    elapsed: float,
) -> None:
    endpoint = fmt.name if fmt is not None else "other"
    action = outcome.action if outcome is not None else ("fail-open" if reason else "relay")
    metrics = state.metrics
    metrics.requests.labels(endpoint, action.split(":")[0]).inc()
    if outcome is not None:
        metrics.tokens_in.inc(outcome.tokens_before)
        metrics.tokens_out.inc(outcome.tokens_after)
        if outcome.compacted:
            metrics.compactions.inc()
        if outcome.offloads:
            metrics.offloads.inc(outcome.offloads)
    line = f"{request.method} {path} {status} {action}"
    if outcome is not None and outcome.tokens_before:
        line += f" session={outcome.session[:24]} tokens {outcome.tokens_before}->{outcome.tokens_after}"
        if outcome.compacted:
            line += " compacted"
        if outcome.offloads:
            line += f" offloaded={outcome.offloads}"
    if reason:
        line += f" (forwarded unchanged: {reason})"
    line += f" {elapsed * 1000:.1f} ms"
    state.log(line)


_BACKGROUND: set[asyncio.Task[None]] = set()


async def _after_response(state: ProxyState, tenant: str, outcome: Outcome) -> None:
    """Release the engine's store write of this request; start `_record` (neither is waited for here)."""
    if outcome.after is not None:
        outcome.after()
    if outcome.tokens_before:
        task = asyncio.ensure_future(_record(state, tenant, outcome))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)


async def _record(state: ProxyState, tenant: str, outcome: Outcome) -> None:
    try:
        await state.store.record_request(
            tenant,
            outcome.session,
            tokens_in=outcome.tokens_before,
            tokens_out=outcome.tokens_after,
            compacted=outcome.compacted,
            offloads=outcome.offloads,
            cache_reuse=outcome.cache_reuse,
            now=time.time(),
        )
    except StoreError as exc:
        state.log(f"contextfold proxy: stats not recorded: {exc}")
