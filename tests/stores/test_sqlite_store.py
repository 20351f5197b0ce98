"""The embedded SQLite store: what is particular to a file on disk (the shared contract is in test_contract.py)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
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


_OPEN_AND_PING = """
import asyncio, sys, time
from pathlib import Path
from contextfold.proxy import open_store

async def main(url: str, go: Path) -> None:
    store = open_store(url, retention=None)
    while not go.exists():
        await asyncio.sleep(0.0005)
    await store.ping()
    await store.aclose()

asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
"""


def test_processes_opening_a_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    """Replicas started together race to create the file, switch it to WAL and write the schema: none may fail.

    SQLite reports some of those collisions as "database is locked" at once, without waiting on the busy timeout.
    """
    script = tmp_path / "open_and_ping.py"
    script.write_text(_OPEN_AND_PING)
    go = tmp_path / "go"
    url = f"sqlite://{tmp_path}/new/state.sqlite3"
    procs = [
        subprocess.Popen([sys.executable, str(script), url, str(go)], stderr=subprocess.PIPE, text=True)
        for _ in range(8)
    ]
    time.sleep(1.0)  # every process has imported and is polling for the signal
    go.touch()
    errors = [err for p in procs if (err := p.communicate(timeout=120)[1]) and p.returncode != 0]
    assert not errors, errors[0]


async def test_a_new_file_another_process_is_still_writing_is_waited_for(tmp_path: Path) -> None:
    """Another process mid-way through creating the file (rollback journal, write lock held) delays a new handle.

    SQLite answers the switch to WAL at that moment with "database is locked" at once; the store waits and retries.
    """
    path = tmp_path / "state.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE other (x)")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    store = SQLiteStore(path, timeout=10)
    try:
        await store.ping()
        assert await store.get_lineage("t", "s", "l") is None
    finally:
        release.join()
        holder.close()
        await store.aclose()
