"""What ``contextfold proxy --check`` asks: does the deployment's session store (and object workspace) answer."""

from __future__ import annotations

import contextlib

from contextfold._stores import StoreError, check_store, open_store
from contextfold.proxy._config import ProxyConfig

__all__ = ["check_deployment"]


async def check_deployment(config: ProxyConfig) -> list[str]:
    """One line per part that answered (the store, then the workspace when ``workspace_url`` is set).

    Raises `StoreError` or `WorkspaceError` naming the part that did not answer (or holds a schema this version
    cannot use), so an operator's health check and ``--check`` say the same thing.
    """
    lines: list[str] = []
    store = open_store(config.store_url or config.state_dir, retention=config.retention)
    try:
        lines.append(await check_store(store))
    finally:
        with contextlib.suppress(StoreError):
            await store.aclose()
    if config.workspace_url:
        from contextfold._workspace._object import ObjectRoot

        lines.append(await ObjectRoot(config.workspace_url).check())
    return lines
