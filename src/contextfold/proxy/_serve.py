"""Running the proxy and the MCP server: the entry points ``contextfold proxy`` and ``contextfold mcp`` call.

Each checks its extra first (a missing one is a `MissingExtraError` naming ``pip install 'contextfold[proxy]'``),
then the port, then serves until interrupted.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from contextfold._errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from contextfold.proxy._app import LogSink
    from contextfold.proxy._config import ProxyConfig

__all__ = ["check_port", "serve", "serve_mcp"]


def check_port(host: str, port: int) -> None:
    """`ConfigError` (one line) when ``host:port`` cannot be bound, before the server starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def serve(config: ProxyConfig, log: LogSink | None = None, *, banner: str | None = None) -> None:
    """Serve the proxy on ``config.host:config.port`` with uvicorn until interrupted (``banner``: logged first)."""
    try:
        import httpx2  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise MissingExtraError("contextfold proxy", "proxy", exc.name or "starlette") from None
    check_port(config.host, config.port)
    from contextfold.proxy._app import create_app

    app = create_app(config, log=log)
    # The engine's worker thread (compactions, warm-ups) holds the GIL for up to the switch interval each time the
    # event loop wants it back (after every blocking call: a socket read, a hash of a large message): 5 ms by
    # default, which a request pays several times while a compaction runs. 0.5 ms bounds that wait.
    sys.setswitchinterval(0.0005)
    if banner:
        (log or (lambda line: print(line, file=sys.stderr, flush=True)))(banner)
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning", access_log=False, lifespan="on")


def serve_mcp(state_dir: Path | str, tenant: str, *, workspace_url: str | None = None) -> None:
    """Serve the read-back tools over one tenant's workspace on stdio until the client closes it.

    ``workspace_url``: the object store the proxy offloads to (``--workspace-url``) instead of ``state_dir``.
    """
    try:
        import anyio
        import mcp  # noqa: F401
    except ImportError:
        raise MissingExtraError("contextfold mcp", "proxy", "mcp") from None
    from contextfold.proxy._mcp import build_server

    anyio.run(build_server(state_dir, tenant, workspace_url=workspace_url).run_stdio_async)
