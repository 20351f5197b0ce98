"""The CLI commands, the auth token, virtual usage, /metrics and /healthz."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from proxy_harness import ProxyProcess, free_port

from contextfold import ConfigError
from contextfold._cli import main
from contextfold.proxy import ProxyConfig
from provider_server import FakeUsage, ProviderServer, Reply

MakeProxy = Callable[..., ProxyProcess]
TOKEN = "proxy-token-0123456789abcdef"


def _run(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err, env=env or {"COLUMNS": "150"})
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [["proxy", "--help"], ["proxy", "stats", "--help"], ["mcp", "--help"]])
def test_help(argv: list[str]) -> None:
    code, out, _ = _run(argv)
    assert code == 0 and "usage: contextfold" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["proxy", "--host", "0.0.0.0"], "set an auth token"),
        (["proxy", "--window", "12"], "ProxyConfig.window"),
        (["proxy", "--anthropic-upstream", "ftp://x"], "ProxyConfig.anthropic_upstream"),
        (["proxy", "--model-window", "claude"], "--model-window 'claude': use PREFIX=TOKENS"),
        (["proxy", "--port", "notaport"], "invalid int value"),
        (["proxy", "--usage", "fake"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    code, _, err = _run(argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        code, _, err = _run(["proxy", "--port", str(port), "--state", str(tmp_path)])
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err


def test_non_loopback_requires_a_long_token() -> None:
    with pytest.raises(ConfigError, match="auth token"):
        ProxyConfig(host="0.0.0.0")
    with pytest.raises(ConfigError, match="at least 16"):
        ProxyConfig(host="0.0.0.0", auth_token="short")
    assert ProxyConfig(host="::1").host == "::1"
    assert ProxyConfig(host="0.0.0.0", auth_token=TOKEN).auth_token == TOKEN


def test_auth_token_is_checked_on_every_request_and_never_forwarded(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    proxy = make_proxy(auth_token=TOKEN)
    for path in ("/healthz", "/stats", "/metrics", "/v1/models"):
        assert httpx2.get(proxy.url + path).status_code == 401
        assert httpx2.get(proxy.url + path, headers={"x-contextfold-auth": "wrong-token-0123456789"}).status_code == 401
    assert httpx2.get(proxy.url + "/healthz", headers={"x-contextfold-auth": TOKEN}).status_code == 200
    assert httpx2.get(proxy.url + "/healthz", headers={"proxy-authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert not upstream.requests
    upstream.queue(Reply(text="ok"))
    client = anthropic.Anthropic(
        base_url=proxy.url, api_key="sk-ant-key", max_retries=0, default_headers={"x-contextfold-auth": TOKEN}
    )
    client.messages.create(model="claude-sonnet-4-5", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    sent = upstream.requests[-1].headers
    assert "x-contextfold-auth" not in sent and TOKEN not in json.dumps(sent)


def test_virtual_usage_reports_the_history_the_client_sent(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(window=4000, usage="virtual")
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-test-virtual", max_retries=0)
    messages: list[Any] = []
    for n in range(12):
        messages.append({"role": "user", "content": f"question {n} " + "details " * 200})
        upstream.queue(Reply(text="answer", usage=FakeUsage(1000, 10)))
        raw = client.chat.completions.with_raw_response.create(model="gpt-4o", messages=messages)
        reply = raw.parse()
        before, after = int(raw.headers["x-contextfold-tokens-before"]), int(raw.headers["x-contextfold-tokens-after"])
        assert reply.usage is not None
        assert reply.usage.prompt_tokens == 1000 + max(0, before - after)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
    assert before > after  # the last requests were compacted, and the client was told the full size
    upstream.queue(Reply(text="streamed", usage=FakeUsage(1000, 10)))
    stream = client.chat.completions.create(
        model="gpt-4o", messages=messages, stream=True, stream_options={"include_usage": True}
    )
    usage = [c.usage for c in stream if c.usage is not None]
    assert usage and usage[-1].prompt_tokens > 1000


def test_real_usage_is_relayed_untouched(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(window=4000)
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-test-real", max_retries=0)
    messages = [{"role": "user", "content": "x " * 9000}, {"role": "assistant", "content": "y"}] * 3
    messages.append({"role": "user", "content": "go"})
    upstream.queue(Reply(text="a", usage=FakeUsage(777, 1)))
    raw = client.chat.completions.with_raw_response.create(model="gpt-4o", messages=messages)  # type: ignore[arg-type]
    assert raw.headers["x-contextfold-compacted"] == "true"
    assert raw.parse().usage.prompt_tokens == 777  # type: ignore[union-attr]


def test_metrics_and_healthz(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    assert httpx2.get(proxy.url + "/healthz").json() == {"status": "ok", "store": "ok"}
    upstream.queue(Reply(text="a"))
    openai.OpenAI(base_url=proxy.url + "/v1", api_key="k", max_retries=0).chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "x"}]
    )
    text = httpx2.get(proxy.url + "/metrics").text
    assert 'contextfold_proxy_requests_total{action="pass",endpoint="openai"} 1.0' in text
    assert "contextfold_proxy_rewrite_seconds_bucket" in text


def test_stats_command_is_scoped_to_the_callers_credential(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    for key in ("sk-stats-a-000000", "sk-stats-b-111111"):
        upstream.queue(Reply(text="a"))
        openai.OpenAI(base_url=proxy.url + "/v1", api_key=key, max_retries=0).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": f"hello from {key}"}]
        )
    state = str(proxy.app.state.proxy.config.state_dir)
    deadline = time.monotonic() + 10
    while True:  # stats are written in the background after the response
        code, out, err = _run(["proxy", "stats", "--state", state, "--json"], {"OPENAI_API_KEY": "sk-stats-a-000000"})
        if (code == 0 and json.loads(out)["sessions"]) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert code == 0, err
    sessions = json.loads(out)["sessions"]
    assert len(sessions) == 1 and sessions[0]["requests"] == 1
    code, out, _ = _run(["proxy", "stats", "--state", state, "--json", "--all"])
    assert code == 0 and len(json.loads(out)["sessions"]) == 2
    code, _, err = _run(["proxy", "stats", "--state", state])
    assert code == 2 and "no credential in the environment" in err
    code, out, _ = _run(["proxy", "stats", "--state", state], {"OPENAI_API_KEY": "sk-stats-b-111111", "COLUMNS": "150"})
    assert code == 0 and "requests" in out


def test_the_console_script_serves_until_stopped(tmp_path: Path, upstream: ProviderServer) -> None:
    port = free_port()
    cmd = [sys.executable, "-m", "contextfold", "proxy", "--port", str(port), "--state", str(tmp_path)]
    cmd += ["--anthropic-upstream", upstream.anthropic_base_url, "--window", "40000"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                    break
            except httpx2.TransportError:
                time.sleep(0.1)
        upstream.queue(Reply(text="served"))
        client = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}", api_key="sk-ant-cli-key", max_retries=0)
        reply = client.messages.create(model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "x"}])
        assert reply.content[0].text == "served"  # type: ignore[union-attr]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    text = err.decode()
    assert "contextfold proxy on http://127.0.0.1" in text and "POST /v1/messages 200" in text
    assert "sk-ant-cli-key" not in text


def test_missing_extra_names_the_pip_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # an import of it now fails, as without the extra
    code, _, err = _run(["proxy", "--state", str(tmp_path)])
    assert code == 2 and "pip install 'contextfold[proxy]'" in err
