"""Fixtures of the end-to-end tests: the installed clients and the proxy, each either there, skipped or failed.

The tests that drive real clients carry the ``e2e`` marker, which the default run deselects (``addopts`` has
``-m "not e2e"``); ``make e2e`` runs them with ``-m e2e`` after installing the clients. There,
``CONTEXTFOLD_E2E_REQUIRE=1`` turns a missing client into a failure, and ``CONTEXTFOLD_E2E_REQUIRE_PROXY``
(see `hops.proxy_required`) does the same for a proxy that cannot start, so CI never passes by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import agent_clients as agents
import hops
import pytest


def _required(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def client_cache() -> Path:
    """The npm prefix holding both pinned clients; skips (or fails under ``make e2e``) when they are missing."""
    cache = agents.cache_dir()
    problem = agents.missing(cache)
    if problem is not None:
        message = f"e2e clients not runnable: {problem}; `make e2e` installs them into {cache}"
        if _required("CONTEXTFOLD_E2E_REQUIRE"):
            pytest.fail(message)
        pytest.skip(message)
    return cache


@pytest.fixture(scope="session")
def proxy_ready() -> None:
    """Skips the through-proxy tests while ``contextfold proxy`` does not exist; fails once it must."""
    problem = hops.proxy_unavailable()
    if problem is None:
        return
    message = f"through-proxy e2e NOT RUNNABLE: {problem}"
    if hops.proxy_required():
        pytest.fail(message + " (CONTEXTFOLD_E2E_REQUIRE_PROXY: the proxy package exists, so it must run)")
    pytest.skip(message)
