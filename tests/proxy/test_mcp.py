"""``contextfold mcp`` through the official MCP client over stdio: the read-back tools, scoped to one credential."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from contextfold.proxy import tenant_of
from contextfold.proxy._mcp import tenant_workspace

KEY_A = "sk-ant-api03-mcp-owner-aaaaaaaaaaaa"
KEY_B = "sk-ant-api03-mcp-other-bbbbbbbbbbbb"


async def _call(
    state: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]
) -> tuple[list[str], list[str]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "contextfold", "mcp", "--state", str(state)], env=env
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
