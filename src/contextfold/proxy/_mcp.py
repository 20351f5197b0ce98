"""``contextfold mcp``: the read-back tools over the proxy's state, as an MCP stdio server.

The proxy never adds a tool to a client's request (a streaming client that
receives a call to a tool it does not know breaks). Instead the client
registers this server once (``claude mcp add``, ``[mcp_servers.contextfold]``)
and gets ``read_offloaded`` and ``search_offloaded``, the library's read-back
functions, over everything the proxy offloaded or archived for **its own
credential**: the server reads the credential from the same environment
variable the client uses (`CREDENTIAL_ENV`, or ``--key-env``), hashes it the
way the proxy does, and opens only that tenant's workspace. Another key's
content cannot be named, read, listed or searched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._object import ObjectRoot, ObjectWorkspace
from contextfold._workspace._readback import READ_OFFLOADED_SPEC, SEARCH_OFFLOADED_SPEC, bind_readback_tools

__all__ = ["build_server", "tenant_workspace"]

INSTRUCTIONS = (
    "Content that the contextfold proxy removed from this conversation's context (long tool output, "
    "archived earlier messages) is kept in a workspace. When a notice names a workspace path, read it with "
    "read_offloaded(path, offset) or find things in it with search_offloaded(pattern)."
)


_BY_PROXY = " (content the contextfold proxy removed from your context; paths are named in its notices)"


_BY_PROXY = " (content the contextfold proxy removed from your context; paths are named in its notices)"


def tenant_workspace(
    state_dir: Path | str, tenant: str, *, workspace_url: str | None = None
) -> LocalWorkspace | ObjectWorkspace:
    """The workspace the proxy writes for ``tenant``: under ``state_dir``, or in the object store it offloads to."""
    if workspace_url:
        return ObjectRoot(workspace_url).workspace(tenant)
    return LocalWorkspace(Path(state_dir) / "workspace", tenant)


def build_server(state_dir: Path | str, tenant: str, *, workspace_url: str | None = None) -> Any:
    """An `mcp` server (``MCPServer``) exposing the two read-back tools over one tenant's workspace."""
    from mcp.server.mcpserver import MCPServer

    workspace = tenant_workspace(state_dir, tenant, workspace_url=workspace_url)
    tools = bind_readback_tools(workspace)
    server = MCPServer(name="contextfold", instructions=INSTRUCTIONS)

    def read_offloaded(path: str, offset: int = 0, limit: int = 200, column: int = 0) -> str:
        return tools.read_offloaded(path, offset, limit, column)

    def search_offloaded(pattern: str, regex: bool = False, ignore_case: bool = False, max_results: int = 50) -> str:
        return tools.search_offloaded(pattern, regex, ignore_case, max_results)

    server.add_tool(read_offloaded, description=READ_OFFLOADED_SPEC.description + _BY_PROXY)
    server.add_tool(search_offloaded, description=SEARCH_OFFLOADED_SPEC.description + _BY_PROXY)
    return server
