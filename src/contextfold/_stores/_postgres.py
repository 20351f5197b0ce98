"""`PostgresStore`: a session store shared by several proxy replicas, on PostgreSQL (``postgresql://...``).

SQLAlchemy 2 (Core, async) over asyncpg. The schema is ours, versioned by
`MIGRATIONS` and the table ``contextfold_schema`` (one row per applied
migration): the first use applies what is missing, in one transaction under
an advisory lock, so replicas that start together migrate once; a database
whose schema is newer than this contextfold is refused with a message saying
to upgrade. Tables are prefixed ``contextfold_`` so they can share a database.

Per request the proxy makes one indexed point read (``get_lineage``: the
primary key ``(tenant, session, lineage)``) and one upsert of the session's
counters (primary key ``(tenant, session)``); a compaction adds one
compare-and-set: ``INSERT ... ON CONFLICT DO NOTHING`` for a new lineage, and
``UPDATE ... WHERE version = expected`` for a stored one. PostgreSQL's row
locks make concurrent writers of one row serial, and a writer whose expected
version went stale updates nothing: exactly one of several replicas wins.

Retention: a session idle for ``retention`` seconds is deleted, with its
lineages, by `PostgresStore.purge` (run by each replica at most every
`PURGE_EVERY` seconds as it records requests; indexes on ``last_seen`` and
``updated`` keep it cheap).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from contextfold._errors import ConfigError
from contextfold._stores._base import LineageRecord, SessionStats, StoreError
from contextfold._stores._codec import pack_rewrites, unpack_rewrites
from contextfold._stores._ops import display_url

__all__ = ["MIGRATIONS", "PURGE_EVERY", "SCHEMA_VERSION", "PostgresStore"]

_T = TypeVar("_T")
PURGE_EVERY = 600.0
"""Seconds between two purges of one replica (less when the retention is short)."""
_LOCK_ID = 0x636F6E7466_01
"""Advisory lock key held while migrating (any constant shared by every contextfold)."""

MIGRATIONS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    (
        1,
        "lineages and session counters",
        (
            """CREATE TABLE contextfold_lineages (
                tenant TEXT NOT NULL,
                session TEXT NOT NULL,
                lineage TEXT NOT NULL,
                version BIGINT NOT NULL,
                covered INTEGER NOT NULL,
                covered_hash TEXT NOT NULL,
                replacement BYTEA NOT NULL,
                marked BYTEA,
                tokens INTEGER NOT NULL,
                compactions INTEGER NOT NULL,
                rewrites BYTEA NOT NULL,
                updated DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (tenant, session, lineage)
            )""",
            "CREATE INDEX contextfold_lineages_updated ON contextfold_lineages (updated)",
            """CREATE TABLE contextfold_sessions (
                tenant TEXT NOT NULL,
                session TEXT NOT NULL,
                requests BIGINT NOT NULL,
                tokens_in BIGINT NOT NULL,
                tokens_out BIGINT NOT NULL,
                compactions BIGINT NOT NULL,
                offloads BIGINT NOT NULL,
                cache_reuse BIGINT NOT NULL,
                first_seen DOUBLE PRECISION NOT NULL,
                last_seen DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (tenant, session)
            )""",
            "CREATE INDEX contextfold_sessions_by_tenant ON contextfold_sessions (tenant, last_seen DESC, session)",
            "CREATE INDEX contextfold_sessions_last_seen ON contextfold_sessions (last_seen)",
        ),
    ),
)
"""(version, description, statements): applied in order, each version once; never edit one that shipped."""
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _tables() -> tuple[Any, Any, Any]:
    """The SQLAlchemy Core tables the queries use (the DDL above is what creates them)."""
    from sqlalchemy import BigInteger, Column, Float, Integer, LargeBinary, MetaData, Table, Text

    metadata = MetaData()
    lineages = Table(
        "contextfold_lineages",
        metadata,
        Column("tenant", Text, primary_key=True),
        Column("session", Text, primary_key=True),
        Column("lineage", Text, primary_key=True),
        Column("version", BigInteger, nullable=False),
        Column("covered", Integer, nullable=False),
        Column("covered_hash", Text, nullable=False),
        Column("replacement", LargeBinary, nullable=False),
        Column("marked", LargeBinary),
        Column("tokens", Integer, nullable=False),
        Column("compactions", Integer, nullable=False),
        Column("rewrites", LargeBinary, nullable=False),
        Column("updated", Float(53), nullable=False),
    )
    sessions = Table(
        "contextfold_sessions",
        metadata,
        Column("tenant", Text, primary_key=True),
        Column("session", Text, primary_key=True),
        *(
            Column(name, BigInteger, nullable=False)
            for name in ("requests", "tokens_in", "tokens_out", "compactions", "offloads", "cache_reuse")
        ),
        Column("first_seen", Float(53), nullable=False),
        Column("last_seen", Float(53), nullable=False),
    )
    return metadata, lineages, sessions


class PostgresStore:
    """A `SessionStore` on PostgreSQL, for several proxy replicas (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        retention: float | None = None,
        timeout: float = 2.0,
        pool_size: int = 10,
    ) -> None:
        try:
            import asyncpg
            import sqlalchemy
            from sqlalchemy.engine import make_url
            from sqlalchemy.ext.asyncio import create_async_engine
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            from contextfold._errors import MissingExtraError

            raise MissingExtraError("the PostgreSQL session store", "postgres", exc.name or "sqlalchemy") from exc
        self._sa = sqlalchemy
        self._errors: tuple[type[BaseException], ...] = (
            sqlalchemy.exc.SQLAlchemyError,
            asyncpg.PostgresError,
            OSError,
            TimeoutError,
        )
        self.url = display_url(url)
        try:
            parsed = make_url(url)
        except sqlalchemy.exc.ArgumentError as exc:
            raise ConfigError(f"store URL {self.url!r}: {exc}") from exc
        if parsed.get_backend_name() != "postgresql":
            raise ConfigError(f"store URL {self.url!r}: not a postgresql:// URL")
        self.retention = retention
        self.metadata, self.lineages, self.sessions = _tables()
        self._engine = create_async_engine(
            parsed.set(drivername="postgresql+asyncpg"),
            pool_size=pool_size,
            max_overflow=pool_size * 2,
            pool_timeout=timeout * 5,
            connect_args={"timeout": timeout, "command_timeout": max(timeout * 5, 10.0)},
        )
        self._autocommit = self._engine.execution_options(isolation_level="AUTOCOMMIT")
        self._ready = False
        self._ready_lock: asyncio.Lock | None = None
        self._last_purge = 0.0

    # -- plumbing --------------------------------------------------------------------------------

    async def _call(self, fn: Callable[[Any], Awaitable[_T]]) -> _T:
        """Run ``fn(conn)`` on an autocommit connection; one retry after a dropped connection.

        Every call is one statement (a point read, an upsert, a conditional write), atomic by itself, so none
        needs ``BEGIN``/``COMMIT`` around it: one round trip per statement instead of three.
        """
        for attempt in (0, 1):
            try:
                if not self._ready:
                    await self._migrate()
                async with self._autocommit.connect() as conn:
                    return await fn(conn)
            except StoreError:
                raise
            except self._sa.exc.DBAPIError as exc:
                if attempt == 0 and exc.connection_invalidated:
                    continue  # the server restarted: the pool dropped its connections, try a fresh one
                raise StoreError(f"session store {self.url}: {_reason(exc)}") from exc
            except self._errors as exc:
                raise StoreError(f"session store {self.url}: {_reason(exc)}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _migrate(self) -> None:
        """Apply the migrations this database lacks (once per process; every replica may race here)."""
        if self._ready_lock is None:
            self._ready_lock = asyncio.Lock()
        async with self._ready_lock:
            if self._ready:
                return
            text = self._sa.text
            async with self._engine.begin() as conn:
                await conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _LOCK_ID})
                exists = (await conn.execute(text("SELECT to_regclass('contextfold_schema') IS NOT NULL"))).scalar()
                if not exists:  # DDL only when something is missing: a role without CREATE runs a migrated schema
                    await conn.execute(
                        text(
                            "CREATE TABLE contextfold_schema (version INTEGER PRIMARY KEY, "
                            "description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                        )
                    )
                current = (await conn.execute(text("SELECT max(version) FROM contextfold_schema"))).scalar() or 0
                if current > SCHEMA_VERSION:
                    raise StoreError(_newer(self.url, current))
                for version, description, statements in MIGRATIONS:
                    if version <= current:
                        continue
                    for statement in statements:
                        await conn.execute(text(statement))
                    await conn.execute(
                        text("INSERT INTO contextfold_schema (version, description) VALUES (:v, :d)"),
                        {"v": version, "d": description},
                    )
            self._ready = True

    # -- SessionStore ----------------------------------------------------------------------------

    async def get_lineage(self, tenant: str, session: str, lineage: str) -> LineageRecord | None:
        t = self.lineages
        query = self._sa.select(t).where(t.c.tenant == tenant, t.c.session == session, t.c.lineage == lineage)

        async def read(conn: Any) -> LineageRecord | None:
            row = (await conn.execute(query)).first()
            return None if row is None else _record(row)

        return await self._call(read)

    async def put_lineage(self, record: LineageRecord, *, expected_version: int) -> LineageRecord | None:
        from sqlalchemy.dialects.postgresql import insert

        stored = replace(record, version=expected_version + 1, updated=record.updated or time.time())
        t = self.lineages
        values = {
            "version": stored.version,
            "covered": stored.covered,
            "covered_hash": stored.covered_hash,
            "replacement": stored.replacement,
            "marked": stored.marked,
            "tokens": stored.tokens,
            "compactions": stored.compactions,
            "rewrites": pack_rewrites(stored.rewrites),
            "updated": stored.updated,
        }
        key = {"tenant": record.tenant, "session": record.session, "lineage": record.lineage}
        if expected_version == 0:
            statement: Any = insert(t).values(**key, **values)
            statement = statement.on_conflict_do_nothing(index_elements=list(key)).returning(t.c.version)
        else:
            statement = (
                self._sa.update(t)
                .where(
                    t.c.tenant == record.tenant,
                    t.c.session == record.session,
                    t.c.lineage == record.lineage,
                    t.c.version == expected_version,
                )
                .values(**values)
                .returning(t.c.version)
            )

        async def write(conn: Any) -> bool:
            return (await conn.execute(statement)).first() is not None

        return stored if await self._call(write) else None

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
        from sqlalchemy.dialects.postgresql import insert

        t = self.sessions
        statement = insert(t).values(
            tenant=tenant,
            session=session,
            requests=1,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            compactions=int(compacted),
            offloads=offloads,
            cache_reuse=cache_reuse,
            first_seen=now,
            last_seen=now,
        )
        ex = statement.excluded
        statement = statement.on_conflict_do_update(
            index_elements=[t.c.tenant, t.c.session],
            set_={
                "requests": t.c.requests + 1,
                **{
                    name: t.c[name] + ex[name]
                    for name in ("tokens_in", "tokens_out", "compactions", "offloads", "cache_reuse")
                },
                "first_seen": self._sa.func.least(t.c.first_seen, ex.first_seen),
                "last_seen": self._sa.func.greatest(t.c.last_seen, ex.last_seen),
            },
        )

        async def write(conn: Any) -> None:
            await conn.execute(statement)

        await self._call(write)
        if self.retention is not None and now - self._last_purge >= min(PURGE_EVERY, self.retention / 10):
            self._last_purge = now
            await self.purge(now)

    async def session_stats(self, tenant: str) -> list[SessionStats]:
        t = self.sessions
        query = self._sa.select(t).where(t.c.tenant == tenant).order_by(t.c.last_seen.desc(), t.c.session)

        async def read(conn: Any) -> list[SessionStats]:
            return [_stats(row) for row in (await conn.execute(query)).all()]

        return await self._call(read)

    async def tenants(self) -> list[str]:
        s, lin = self.sessions, self.lineages
        query = self._sa.union(self._sa.select(s.c.tenant), self._sa.select(lin.c.tenant)).order_by("tenant")

        async def read(conn: Any) -> list[str]:
            return [str(row[0]) for row in (await conn.execute(query)).all()]

        return await self._call(read)

    async def ping(self) -> None:
        async def ping(conn: Any) -> None:
            await conn.execute(self._sa.text("SELECT 1"))

        await self._call(ping)

    async def aclose(self) -> None:
        try:
            await self._engine.dispose()
        except self._errors as exc:  # pragma: no cover - closing a broken pool
            raise StoreError(f"session store {self.url}: {_reason(exc)}") from exc

    # -- operations ------------------------------------------------------------------------------

    async def check(self) -> str:
        """Connectivity, the server version, the schema version and the columns of our tables (read-only)."""
        text = self._sa.text

        async def inspect(conn: Any) -> str:
            server = (await conn.execute(text("SHOW server_version"))).scalar()
            exists = (await conn.execute(text("SELECT to_regclass('contextfold_schema') IS NOT NULL"))).scalar()
            current = 0
            if exists:
                current = (await conn.execute(text("SELECT max(version) FROM contextfold_schema"))).scalar() or 0
            if current > SCHEMA_VERSION:
                raise StoreError(_newer(self.url, current))
            keep = f"retention {self.retention:.0f} s" if self.retention is not None else "no expiry"
            if current < SCHEMA_VERSION:
                state = "schema not created yet" if current == 0 else f"schema {current}"
                return (
                    f"postgresql {server} at {self.url} answers; {state}: the first start migrates it to "
                    f"{SCHEMA_VERSION}; {keep}"
                )
            rows = (
                await conn.execute(
                    text(
                        "SELECT table_name, column_name FROM information_schema.columns "
                        "WHERE table_schema = current_schema() AND table_name IN "
                        "('contextfold_lineages', 'contextfold_sessions')"
                    )
                )
            ).all()
            found = {(str(r[0]), str(r[1])) for r in rows}
            wanted = {(t.name, c.name) for t in (self.lineages, self.sessions) for c in t.columns}
            if wanted - found:
                missing = ", ".join(f"{t}.{c}" for t, c in sorted(wanted - found))
                raise StoreError(f"session store {self.url}: schema {current} but columns are missing: {missing}")
            return f"postgresql {server} at {self.url} answers; schema {current} (current); {keep}"

        # check never migrates: run the read-only inspection even before `_migrate` has run.
        try:
            async with self._engine.connect() as conn:
                return await inspect(conn)
        except StoreError:
            raise
        except self._errors as exc:
            raise StoreError(f"session store {self.url}: {_reason(exc)}") from exc

    async def purge(self, now: float) -> int:
        """Delete sessions idle for the retention period, and lineages of no live session older than it."""
        if self.retention is None:
            return 0
        cutoff = now - self.retention
        s, lin = self.sessions, self.lineages
        live = self._sa.select(s.c.tenant).where(
            s.c.tenant == lin.c.tenant, s.c.session == lin.c.session, s.c.last_seen >= cutoff
        )
        drop_lineages = self._sa.delete(lin).where(lin.c.updated < cutoff, ~self._sa.exists(live))
        drop_sessions = self._sa.delete(s).where(s.c.last_seen < cutoff)

        async def write(conn: Any) -> int:
            a = await conn.execute(drop_lineages)
            b = await conn.execute(drop_sessions)
            return int(a.rowcount or 0) + int(b.rowcount or 0)

        return await self._call(write)


def _newer(url: str, current: int) -> str:
    return (
        f"session store {url}: schema version {current} is newer than this contextfold's ({SCHEMA_VERSION}): "
        "upgrade contextfold on every replica"
    )


def _reason(exc: BaseException) -> str:
    """The driver's message without SQLAlchemy's long trailer (SQL text, parameters, links)."""
    orig = getattr(exc, "orig", None)
    base = orig if orig is not None else exc
    first = (str(base).strip().splitlines() or [""])[0]
    return f"{type(base).__name__}: {first[:300]}" if first else type(base).__name__


def _record(row: Any) -> LineageRecord:
    m = row._mapping
    return LineageRecord(
        tenant=m["tenant"],
        session=m["session"],
        lineage=m["lineage"],
        version=int(m["version"]),
        covered=m["covered"],
        covered_hash=m["covered_hash"],
        replacement=bytes(m["replacement"]),
        marked=bytes(m["marked"]) if m["marked"] is not None else None,
        tokens=m["tokens"],
        compactions=m["compactions"],
        rewrites=unpack_rewrites(bytes(m["rewrites"])),
        updated=float(m["updated"]),
    )


def _stats(row: Any) -> SessionStats:
    m = row._mapping
    return SessionStats(
        tenant=m["tenant"],
        session=m["session"],
        requests=int(m["requests"]),
        tokens_in=int(m["tokens_in"]),
        tokens_out=int(m["tokens_out"]),
        compactions=int(m["compactions"]),
        offloads=int(m["offloads"]),
        cache_reuse=int(m["cache_reuse"]),
        first_seen=float(m["first_seen"]),
        last_seen=float(m["last_seen"]),
    )
