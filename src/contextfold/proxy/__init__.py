"""`contextfold proxy`: context management for agents nobody here wrote, as an HTTP proxy in front of a provider.

Point Claude Code (``ANTHROPIC_BASE_URL``), Codex CLI (a ``model_providers``
entry) or any OpenAI/Anthropic SDK client at it; it forwards every request,
compacted to the window with the library's digest, oversized tool results
offloaded, prompt caching intact (between compactions the previous forwarded
request is a prefix of the next), and fails open: when anything is unclear
the client's request goes out unchanged. See ``docs/proxy.md``.

Embedding::

    import uvicorn
    from contextfold.proxy import ProxyConfig, create_app

    uvicorn.run(create_app(ProxyConfig(window=64_000)), host="127.0.0.1", port=8787)

Needs the ``proxy`` extra: ``pip install 'contextfold[proxy]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contextfold._errors import MissingExtraError
from contextfold._stores import (
    DEFAULT_RETENTION,
    STATE_DB,
    LineageRecord,
    SessionStats,
    SessionStore,
    StoreError,
    display_url,
    open_store,
    parse_duration,
)
from contextfold.proxy._check import check_deployment
from contextfold.proxy._config import (
    AUTH_HEADER,
    DEFAULT_ANTHROPIC_UPSTREAM,
    DEFAULT_OPENAI_UPSTREAM,
    DEFAULT_WINDOWS,
    PRECOMPUTE_MODES,
    CompactionPolicy,
    ProxyConfig,
    UsageMode,
    default_state_dir,
)
from contextfold.proxy._serve import serve, serve_mcp
from contextfold.proxy._tenant import CREDENTIAL_ENV, tenant_from_env, tenant_of

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = [
    "AUTH_HEADER",
    "CREDENTIAL_ENV",
    "DEFAULT_ANTHROPIC_UPSTREAM",
    "DEFAULT_OPENAI_UPSTREAM",
    "DEFAULT_RETENTION",
    "DEFAULT_WINDOWS",
    "PRECOMPUTE_MODES",
    "STATE_DB",
    "CompactionPolicy",
    "LineageRecord",
    "ProxyConfig",
    "SessionStats",
    "SessionStore",
    "StoreError",
    "UsageMode",
    "check_deployment",
    "create_app",
    "default_state_dir",
    "display_url",
    "open_store",
    "parse_duration",
    "serve",
    "serve_mcp",
    "tenant_from_env",
    "tenant_of",
]


def create_app(config: ProxyConfig, **kwargs: Any) -> Starlette:
    """The proxy as a Starlette (ASGI) app; ``log=callable`` receives one redacted line per request."""
    try:
        from contextfold.proxy._app import create_app as _create
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise MissingExtraError("contextfold proxy", "proxy", exc.name or "starlette") from exc
    return _create(config, **kwargs)
