"""``contextfold mcp`` through the official MCP client over stdio: the read-back tools, scoped to one credential."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

import servers
from contextfold.proxy import tenant_of
from contextfold.proxy._mcp import tenant_workspace

KEY_A = "sk-ant-api03-mcp-owner-aaaaaaaaaaaa"
KEY_B = "sk-ant-api03-mcp-other-bbbbbbbbbbbb"


async def _call(
    state: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]], extra: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "contextfold", "mcp", "--state", str(state), *extra], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = sorted(t.name for t in (await session.list_tools()).tools)
        texts = []
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            texts.append("".join(getattr(c, "text", "") for c in result.content))
        return names, texts


def test_mcp_reads_and_searches_only_the_callers_content(tmp_path: Path) -> None:
    state = tmp_path / "state"
    owner = tenant_workspace(state, tenant_of(KEY_A))
    ref = owner.offload_tool_result_sync("alpha line\nthe secret build log of A\nomega", call_id="c1", tool_name="bash")
    calls = [
        ("read_offloaded", {"path": ref.path}),
        ("search_offloaded", {"pattern": "build log"}),
    ]
    names, (read_a, search_a) = asyncio.run(_call(state, {"ANTHROPIC_API_KEY": KEY_A}, calls))
    assert names == ["read_offloaded", "search_offloaded"]
    assert "the secret build log of A" in read_a and "end of" in read_a
    assert ref.path in search_a and "1 match" in search_a
    _, (read_b, search_b) = asyncio.run(_call(state, {"ANTHROPIC_API_KEY": KEY_B}, calls))
    assert "secret" not in read_b and read_b.startswith("Error:")
    assert "0 matches" in search_b and "secret" not in search_b
    _, (escape,) = asyncio.run(
        _call(state, {"OPENAI_API_KEY": KEY_B}, [("read_offloaded", {"path": f"../{tenant_of(KEY_A)}/{ref.path}"})])
    )
    assert escape.startswith("Error:") and "secret" not in escape


def test_mcp_reads_the_object_store_the_replicas_offload_to(
    s3_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``contextfold mcp --workspace-url s3://...``: the same tools over the bucket, still one credential's folder."""
    url = f"s3://{servers.make_bucket(s3_server)}/offloaded"
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)
    workspace = tenant_workspace(tmp_path, tenant_of(KEY_A), workspace_url=url)
    text = "first\nthe bucket build log of A\nlast"
    path = asyncio.run(workspace.offload_tool_result(text, call_id="c", tool_name=None)).path
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_offloaded", {"path": path}),
        ("search_offloaded", {"pattern": "build log"}),
    ]
    extra = ["--workspace-url", url]
    _, (read_a, search_a) = asyncio.run(_call(tmp_path, {**s3_server.env, "ANTHROPIC_API_KEY": KEY_A}, calls, extra))
    assert "the bucket build log of A" in read_a
    assert path in search_a and "1 match" in search_a
    _, (read_b, search_b) = asyncio.run(_call(tmp_path, {**s3_server.env, "ANTHROPIC_API_KEY": KEY_B}, calls, extra))
    assert read_b.startswith("Error:") and "bucket build log" not in read_b + search_b
