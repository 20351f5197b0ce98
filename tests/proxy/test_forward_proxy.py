"""The way to the upstream: ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY`` honoured, no header added.

A user behind a corporate proxy reaches api.anthropic.com only through it; the official SDKs honour those variables,
so the proxy must too (it used to connect directly and fail). The upstream here is named ``upstream.test`` (a name
that never resolves): a request reaches it only through the recording forward proxy, which maps the name to the
scripted provider on loopback.
"""

from __future__ import annotations

import base64
import socket
import socketserver
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import orjson
import pytest
from proxy_harness import ProxyProcess

from contextfold import ConfigError
from contextfold.proxy import ProxyConfig
from contextfold.proxy._config import env_proxy
from provider_server import ProviderServer, Reply

MakeProxy = Callable[..., ProxyProcess]
KEY = "sk-ant-api03-forward-proxy-test-key"
BODY = {"model": "claude-sonnet-4-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hello"}]}


class ForwardProxy:
    """An HTTP forward proxy on loopback: absolute-form requests are recorded and sent to ``target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.seen: list[tuple[str, dict[str, str]]] = []  # (request line, headers)
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                while outer._one(self.rfile, self.wfile):
                    pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _one(self, rfile: Any, wfile: Any) -> bool:
        line = rfile.readline().decode("latin-1").rstrip("\r\n")
        if not line:
            return False
        headers: dict[str, str] = {}
        raw: list[str] = []
        while (header := rfile.readline().decode("latin-1").rstrip("\r\n")) != "":
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
            if name.strip().lower() not in ("proxy-authorization", "proxy-connection", "connection"):
                raw.append(header)
        body = rfile.read(int(headers.get("content-length", "0")))
        self.seen.append((line, headers))
        method, url, version = line.split(" ")
        path = "/" + url.split("://", 1)[1].partition("/")[2]  # absolute form -> origin form
        head = "\r\n".join([f"{method} {path} {version}", *raw, "connection: close"]) + "\r\n\r\n"
        with socket.create_connection(("127.0.0.1", self.target_port)) as upstream:
            upstream.sendall(head.encode("latin-1") + body)
            while chunk := upstream.recv(65536):
                wfile.write(chunk)
        wfile.flush()
        return False  # one request per connection: the answer was delimited by the upstream's close

    def __enter__(self) -> ForwardProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def forward(upstream: ProviderServer) -> Iterator[ForwardProxy]:
    port = int(upstream.url.rsplit(":", 1)[1])
    with ForwardProxy(port) as proxy:
        yield proxy


def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def _post(proxy: ProxyProcess, path: str = "/v1/messages") -> httpx2.Response:
    with httpx2.Client(trust_env=False, timeout=30) as client:  # the test's own client goes direct
        return client.post(proxy.url + path, content=orjson.dumps(BODY), headers={"x-api-key": KEY})


def test_upstream_is_reached_through_http_proxy_with_its_credentials(
    upstream: ProviderServer, make_proxy: MakeProxy, forward: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_env(monkeypatch)
    monkeypatch.setenv("HTTP_PROXY", forward.url.replace("http://", "http://corp:s3cret@"))
    port = upstream.url.rsplit(":", 1)[1]
    proxy = make_proxy(anthropic_upstream=f"http://upstream.test:{port}")
    upstream.queue(Reply(text="through the corporate proxy"), Reply(text="models"))
    answer = _post(proxy)
    assert answer.status_code == 200, answer.text
    assert answer.json()["content"][0]["text"] == "through the corporate proxy"
    line, headers = forward.seen[0]
    assert line == f"POST http://upstream.test:{port}/v1/messages HTTP/1.1"
    assert headers["proxy-authorization"] == "Basic " + base64.b64encode(b"corp:s3cret").decode()
    assert upstream.requests[0].headers["x-api-key"] == KEY  # the client's credential, unchanged
    assert orjson.loads(upstream.requests[0].raw) == BODY
    with httpx2.Client(trust_env=False, timeout=30) as client:  # a pass-through request takes the same way
        client.get(proxy.url + "/v1/models", headers={"x-api-key": KEY})
    assert [seen[0].split(" ")[:2] for seen in forward.seen] == [
        ["POST", f"http://upstream.test:{port}/v1/messages"],
        ["GET", f"http://upstream.test:{port}/v1/models"],
    ]
    assert any("through the forward proxy http://corp:***@127.0.0.1" in line for line in proxy.lines)
    assert all("s3cret" not in line for line in proxy.lines)


@pytest.mark.parametrize("setting", ["no_proxy", "no_trust_env"])
def test_no_proxy_and_no_trust_env_connect_directly(
    setting: str,
    upstream: ProviderServer,
    make_proxy: MakeProxy,
    forward: ForwardProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _clean_env(monkeypatch)
    monkeypatch.setenv("HTTP_PROXY", forward.url)
    if setting == "no_proxy":
        monkeypatch.setenv("NO_PROXY", "localhost,.test")
    port = upstream.url.rsplit(":", 1)[1]
    proxy = make_proxy(anthropic_upstream=f"http://upstream.test:{port}", trust_env=setting != "no_trust_env")
    answer = _post(proxy)
    # Directly, upstream.test does not resolve: the proxy's provider-shaped 502, and the forward proxy saw nothing.
    assert answer.status_code == 502 and "cannot reach the upstream" in answer.text
    assert forward.seen == []


def test_loopback_upstream_never_goes_through_a_proxy(
    upstream: ProviderServer, make_proxy: MakeProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_env(monkeypatch)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    proxy = make_proxy()  # upstream on 127.0.0.1
    upstream.queue(Reply(text="direct on loopback"))
    answer = _post(proxy)
    assert answer.status_code == 200 and answer.json()["content"][0]["text"] == "direct on loopback"


@pytest.mark.parametrize(
    ("environ", "url", "expected"),
    [
        ({"HTTPS_PROXY": "proxy.corp:3128"}, "https://api.anthropic.com", "http://proxy.corp:3128"),
        ({"https_proxy": "http://low:1", "HTTPS_PROXY": "http://up:1"}, "https://api.openai.com/v1", "http://low:1"),
        ({"HTTP_PROXY": "http://h:1"}, "https://api.anthropic.com", None),  # http_proxy is for http origins
        ({"ALL_PROXY": "http://all:1"}, "https://api.anthropic.com", "http://all:1"),
        ({"HTTPS_PROXY": "http://p:1", "NO_PROXY": "anthropic.com"}, "https://api.anthropic.com", None),
        ({"HTTPS_PROXY": "http://p:1", "NO_PROXY": "*"}, "https://api.anthropic.com", None),
        ({"HTTPS_PROXY": "http://p:1", "no_proxy": "openai.com"}, "https://api.anthropic.com", "http://p:1"),
        ({"HTTPS_PROXY": "http://p:1", "NO_PROXY": "api.anthropic.com:443"}, "https://api.anthropic.com:443", None),
        ({"HTTPS_PROXY": "http://p:1", "NO_PROXY": "thropic.com"}, "https://api.anthropic.com", "http://p:1"),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "10.0.0.0/8"}, "http://10.1.2.3:8000", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "10.0.0.0/8"}, "http://11.1.2.3:8000", "http://p:1"),
        ({"HTTP_PROXY": "http://p:1"}, "http://localhost:8000", None),
        ({"HTTP_PROXY": "http://p:1"}, "http://[::1]:8000", None),
    ],
)
def test_env_proxy_reads_the_standard_variables(environ: dict[str, str], url: str, expected: str | None) -> None:
    assert env_proxy(url, environ)[1] == expected


def test_a_proxy_the_clients_cannot_speak_is_a_config_error_naming_the_variable() -> None:
    config = ProxyConfig()
    with pytest.raises(ConfigError, match=r"ALL_PROXY=socks5://user:\*\*\*@h:1080: only http:// and https://") as info:
        config.upstream_proxies({"ALL_PROXY": "socks5://user:pw@h:1080"})
    assert "pw" not in str(info.value)
    assert ProxyConfig(trust_env=False).upstream_proxies({"ALL_PROXY": "socks5://h:1080"}) == {}


def test_cli_refuses_an_unusable_proxy_variable_before_it_listens() -> None:
    import io

    from contextfold._cli import main

    out, err = io.StringIO(), io.StringIO()
    env = {"COLUMNS": "150", "HTTPS_PROXY": "socks5://h:1080", "HOME": "/nonexistent-home"}
    code = main(["proxy", "--port", "0"], stdout=out, stderr=err, env=env)
    assert code == 2
    assert "HTTPS_PROXY=socks5://h:1080" in err.getvalue() and "--no-trust-env" in err.getvalue()


def test_pass_through_adds_no_headers_the_client_did_not_send(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    with socket.create_connection(("127.0.0.1", proxy.port)) as conn:  # a client that sends the bare minimum
        conn.sendall(
            b"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-api-key: " + KEY.encode() + b"\r\nconnection: close\r\n\r\n"
        )
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")
    seen = upstream.requests[-1].headers
    assert seen["x-api-key"] == KEY
    # httpx2 would add accept-encoding (gzip the client never asked for), accept and its own user-agent
    assert "accept-encoding" not in seen and "user-agent" not in seen and "accept" not in seen
