"""The embedded SQLite store: what is particular to a file on disk (the shared contract is in test_contract.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextfold import ConfigError
from contextfold._stores._sqlite import SQLiteStore
from contextfold.proxy import LineageRecord, StoreError, open_store


async def test_state_survives_a_new_process_handle(tmp_path: Path) -> None:
    first = open_store(f"sqlite://{tmp_path}/x/state.db")
    record = await first.put_lineage(
        LineageRecord(tenant="t", session="s", lineage="l", replacement=b"[1]"), expected_version=0
    )
    await first.aclose()
    second = SQLiteStore(tmp_path / "x" / "state.db")
    assert await second.get_lineage("t", "s", "l") == record
    await second.aclose()


async def test_unreachable_store_raises_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    bad = SQLiteStore(blocker / "state.sqlite3")
    with pytest.raises(StoreError, match="session store"):
        await bad.get_lineage("t", "s", "l")


def test_bad_urls() -> None:
    with pytest.raises(ConfigError, match="three slashes"):
        open_store("sqlite://relative")
    with pytest.raises(ConfigError, match="unknown store URL scheme 'mysql'"):
        open_store("mysql://localhost")
