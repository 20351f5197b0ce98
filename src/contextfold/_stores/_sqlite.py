"""`SQLiteStore`: the embedded default session store, one SQLite file under the proxy's state directory.

stdlib ``sqlite3`` on one connection guarded by a lock, each call run in a
worker thread (``asyncio.to_thread``) so the event loop never waits on disk.
WAL journal and ``synchronous=NORMAL``: a write is one append to the log, and
several proxy processes on one machine may share the file (SQLite's own
locking, with a busy timeout, serializes their writes). Point reads run
inline (microseconds from the WAL; a thread hop costs milliseconds on a busy
machine). The compare-and-set is a conditional ``UPDATE``/``INSERT`` whose row count says who won.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import orjson

from contextfold._stores._base import LineageRecord, SessionStats, StoreError

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

SCHEMA_VERSION = 1
_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lineages (
    tenant TEXT NOT NULL, session TEXT NOT NULL, lineage TEXT NOT NULL,
    version INTEGER NOT NULL, covered INTEGER NOT NULL, covered_hash TEXT NOT NULL,
    replacement BLOB NOT NULL, marked BLOB, tokens INTEGER NOT NULL, compactions INTEGER NOT NULL,
    rewrites BLOB NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (tenant, session, lineage)
);
CREATE TABLE IF NOT EXISTS sessions (
    tenant TEXT NOT NULL, session TEXT NOT NULL,
    requests INTEGER NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
    compactions INTEGER NOT NULL, offloads INTEGER NOT NULL, cache_reuse INTEGER NOT NULL,
    first_seen REAL NOT NULL, last_seen REAL NOT NULL,
    PRIMARY KEY (tenant, session)
);
"""
_COLUMNS = "tenant session lineage version covered covered_hash replacement marked tokens compactions rewrites updated"
_LINEAGE_COLUMNS = ", ".join(_COLUMNS.split())


class SQLiteStore:
    """The embedded `SessionStore`: one SQLite file (created with its directory on first use)."""

    def __init__(self, path: Path | str, *, timeout: float = 10.0) -> None:
        self.path = Path(path)
        self._timeout = timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
            try:
                _retry_while_locked(lambda: _prepare(conn), self._timeout)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._lock:
            try:
                return fn(self._connect())
            except sqlite3.Error as exc:
                raise StoreError(f"session store {self.path}: {exc}") from exc
            except OSError as exc:
                raise StoreError(f"session store {self.path}: {exc.strerror or exc}") from exc

    async def _run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """Writes run in a worker thread (a commit may wait on the disk or on another process's lock)."""
        return await asyncio.to_thread(self._call, fn)

    async def _read(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """Point reads run inline: an indexed read from the WAL takes microseconds, a thread hop milliseconds."""
        if self._conn is None:
            return await self._run(fn)  # the first use creates the file and the schema
        return self._call(fn)

    async def get_lineage(self, tenant: str, session: str, lineage: str) -> LineageRecord | None:
        def read(conn: sqlite3.Connection) -> LineageRecord | None:
            row = conn.execute(
                f"SELECT {_LINEAGE_COLUMNS} FROM lineages WHERE tenant = ? AND session = ? AND lineage = ?",
                (tenant, session, lineage),
            ).fetchone()
            return None if row is None else _record(row)

        return await self._read(read)

    async def put_lineage(self, record: LineageRecord, *, expected_version: int) -> LineageRecord | None:
        stored = _with_version(record, expected_version + 1)
        values = _values(stored)

        def write(conn: sqlite3.Connection) -> bool:
            if expected_version == 0:
                cur = conn.execute(
                    f"INSERT INTO lineages ({_LINEAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (tenant, session, lineage) DO NOTHING",
                    values,
                )
            else:
                cur = conn.execute(
                    "UPDATE lineages SET version = ?, covered = ?, covered_hash = ?, replacement = ?, marked = ?, "
                    "tokens = ?, compactions = ?, rewrites = ?, updated = ? "
                    "WHERE tenant = ? AND session = ? AND lineage = ? AND version = ?",
                    (*values[3:], *values[:3], expected_version),
                )
            return cur.rowcount == 1

        return stored if await self._run(write) else None

    async def record_request(
        self,
        tenant: str,
        session: str,
        *,
        tokens_in: int,
        tokens_out: int,
        compacted: bool,
        offloads: int,
        cache_reuse: int,
        now: float,
    ) -> None:
        def write(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO sessions (tenant, session, requests, tokens_in, tokens_out, compactions, offloads, "
                "cache_reuse, first_seen, last_seen) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (tenant, session) DO UPDATE SET requests = requests + 1, "
                "tokens_in = tokens_in + excluded.tokens_in, tokens_out = tokens_out + excluded.tokens_out, "
                "compactions = compactions + excluded.compactions, offloads = offloads + excluded.offloads, "
                "cache_reuse = cache_reuse + excluded.cache_reuse, last_seen = excluded.last_seen",
                (tenant, session, tokens_in, tokens_out, int(compacted), offloads, cache_reuse, now, now),
            )

        await self._run(write)

    async def session_stats(self, tenant: str) -> list[SessionStats]:
        def read(conn: sqlite3.Connection) -> list[SessionStats]:
            rows = conn.execute(
                "SELECT tenant, session, requests, tokens_in, tokens_out, compactions, offloads, cache_reuse, "
                "first_seen, last_seen FROM sessions WHERE tenant = ? ORDER BY last_seen DESC, session",
                (tenant,),
            ).fetchall()
            return [_stats(row) for row in rows]

        return await self._run(read)

    async def tenants(self) -> list[str]:
        def read(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute(
                "SELECT tenant FROM sessions UNION SELECT tenant FROM lineages ORDER BY tenant"
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self._run(read)

    async def ping(self) -> None:
        await self._run(lambda conn: conn.execute("SELECT 1").fetchone())

    async def aclose(self) -> None:
        def close() -> None:
            with self._lock:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None

        await asyncio.to_thread(close)


def _prepare(conn: sqlite3.Connection) -> None:
    """WAL journal, then the schema in one write transaction (taken up front, so it waits on the busy timeout)."""
    (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    if str(mode).lower() != "wal":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _retry_while_locked(step: Callable[[], None], timeout: float) -> None:
    """Run `step`, again while another process holds the file (until `timeout`).

    Several processes opening a new file at once race for the switch to WAL and
    the schema; SQLite reports some of those collisions as "database is locked"
    at once, without waiting on the busy timeout.
    """
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _with_version(record: LineageRecord, version: int) -> LineageRecord:
    return replace(record, version=version, updated=record.updated or time.time())


def _values(r: LineageRecord) -> tuple[Any, ...]:
    rewrites = orjson.dumps({k: v.decode("utf-8") for k, v in r.rewrites.items()})
    return (
        r.tenant,
        r.session,
        r.lineage,
        r.version,
        r.covered,
        r.covered_hash,
        r.replacement,
        r.marked,
        r.tokens,
        r.compactions,
        rewrites,
        r.updated,
    )


def _record(row: tuple[Any, ...]) -> LineageRecord:
    rewrites: Mapping[str, bytes] = MappingProxyType({k: v.encode("utf-8") for k, v in orjson.loads(row[10]).items()})
    return LineageRecord(
        tenant=row[0],
        session=row[1],
        lineage=row[2],
        version=row[3],
        covered=row[4],
        covered_hash=row[5],
        replacement=bytes(row[6]),
        marked=bytes(row[7]) if row[7] is not None else None,
        tokens=row[8],
        compactions=row[9],
        rewrites=rewrites,
        updated=row[11],
    )


def _stats(row: tuple[Any, ...]) -> SessionStats:
    return SessionStats(
        tenant=row[0],
        session=row[1],
        requests=row[2],
        tokens_in=row[3],
        tokens_out=row[4],
        compactions=row[5],
        offloads=row[6],
        cache_reuse=row[7],
        first_seen=row[8],
        last_seen=row[9],
    )
