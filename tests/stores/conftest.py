"""The `store` fixture of the contract suite: one open store per backend (SQLite file, real Redis, real PostgreSQL).

``store_url`` is the URL every process of a test opens (for the multi-process races); ``store`` is one open
store on it. Redis gets a flushed database, PostgreSQL a fresh database per test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from contextfold.proxy import SessionStore, open_store

BACKENDS = ("sqlite", "redis", "postgres")


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/state/state.sqlite3"
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SessionStore]:
    s = open_store(store_url, retention=None)
    yield s
    await s.aclose()
