"""``workspace_url``: offloads go to an object store, the notice names the object; without it, fail open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest
from proxy_harness import ProxyProcess

import servers
from contextfold.proxy import ProxyConfig, tenant_of
from provider_server import ProviderServer, Reply

KEY = "sk-ant-api03-workspace-url-000000000000"


def _body() -> bytes:
    output = "\n".join(f"row {i}: " + "x" * 60 for i in range(3000))
    messages: list[Any] = [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"c": "cat"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]},
    ]
    return orjson.dumps({"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages})


def _send(proxy: ProxyProcess, body: bytes) -> httpx2.Response:
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json"}
    return httpx2.post(proxy.url + "/v1/messages", content=body, headers=headers, timeout=120)


def _start(upstream: ProviderServer, tmp_path: Path, workspace_url: str) -> ProxyProcess:
    config = ProxyConfig(
        anthropic_upstream=upstream.anthropic_base_url,
        openai_upstream=upstream.openai_base_url,
        state_dir=tmp_path / "state",
        window=200_000,
        workspace_url=workspace_url,
    )
    return ProxyProcess(config).start()


def test_offloads_go_to_the_bucket_and_the_notice_names_the_object(
    upstream: ProviderServer, s3_server: servers.Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)
    bucket = servers.make_bucket(s3_server)
    proxy = _start(upstream, tmp_path, f"s3://{bucket}/cf")
    try:
        upstream.queue(Reply(text="ok"))
        assert _send(proxy, _body()).status_code == 200
    finally:
        proxy.stop()
    sent = upstream.requests[-1].raw
    assert sent != _body()
    prefix = f"s3://{bucket}/cf/{tenant_of(KEY)}/tool_results/"
    assert prefix.encode() in sent  # the notice names the object for a reader without the MCP server
    keys = servers.bucket_keys(s3_server, bucket)
    assert any(k.startswith(f"cf/{tenant_of(KEY)}/tool_results/") for k in keys)
    assert not (tmp_path / "state" / "workspace").exists()  # nothing offloaded locally


def test_an_unreachable_workspace_fails_open(
    upstream: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{servers.free_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    proxy = _start(upstream, tmp_path, "s3://nobody-home/cf")
    try:
        upstream.queue(Reply(text="ok"))
        reply = _send(proxy, _body())
    finally:
        proxy.stop()
    assert reply.status_code == 200 and reply.json()["content"][0]["text"] == "ok"
    assert upstream.requests[-1].raw == _body()  # the client's own bytes
    assert any("forwarded unchanged" in line and "nobody-home" in line for line in proxy.lines)
