"""What is particular to the shared stores: Redis TTL and key layout, PostgreSQL migrations and purge, outages."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
import redis.asyncio as aioredis

import servers
from contextfold._stores import check_store
from contextfold._stores._postgres import MIGRATIONS, SCHEMA_VERSION, PostgresStore
from contextfold._stores._redis import RedisStore
from contextfold.proxy import LineageRecord, StoreError, open_store


def _record(session: str = "s1", lineage: str = "l1", updated: float = 0.0) -> LineageRecord:
    return LineageRecord(
        tenant="t1", session=session, lineage=lineage, covered=2, covered_hash="h", replacement=b"[]", updated=updated
    )


def _stats_call(store: object, session: str, now: float) -> object:
    return store.record_request(  # type: ignore[attr-defined]
        "t1", session, tokens_in=10, tokens_out=5, compacted=False, offloads=0, cache_reuse=0, now=now
    )


# -- Redis -------------------------------------------------------------------------------------


async def test_redis_writes_set_the_ttl_and_reads_renew_it(redis_url: str) -> None:
    store = RedisStore(redis_url, retention=100)
    client = aioredis.Redis.from_url(redis_url)
    try:
        await store.put_lineage(_record(), expected_version=0)
        await _stats_call(store, "s1", time.time())
        keys = sorted(k.decode() for k in await client.keys("contextfold:{t1}:*"))
        assert keys == ["contextfold:{t1}:lin:l1:s1", "contextfold:{t1}:ses:s1", "contextfold:{t1}:sessions"]
        for key in keys:
            assert 90 <= await client.ttl(key) <= 100
        await client.expire("contextfold:{t1}:lin:l1:s1", 5)
        assert await store.get_lineage("t1", "s1", "l1") is not None
        assert await client.ttl("contextfold:{t1}:lin:l1:s1") > 90  # a lineage in use stays
    finally:
        await client.aclose()
        await store.aclose()


async def test_redis_forgets_an_idle_session_after_the_retention(redis_url: str) -> None:
    store = RedisStore(redis_url, retention=1)
    try:
        await store.put_lineage(_record(), expected_version=0)
        await _stats_call(store, "s1", time.time())
        assert await store.get_lineage("t1", "s1", "l1") is not None
        await asyncio.sleep(2.5)
        assert await store.get_lineage("t1", "s1", "l1") is None
        assert await store.session_stats("t1") == []
        # the next write starts the lineage afresh
        assert await store.put_lineage(_record(), expected_version=0) is not None
    finally:
        await store.aclose()


async def test_redis_without_retention_keeps_keys_forever(redis_url: str) -> None:
    store = RedisStore(redis_url, retention=None)
    client = aioredis.Redis.from_url(redis_url)
    try:
        await store.put_lineage(_record(), expected_version=0)
        assert await client.ttl("contextfold:{t1}:lin:l1:s1") == -1
    finally:
        await client.aclose()
        await store.aclose()


async def test_redis_refuses_a_different_key_layout_and_a_prefix_avoids_it(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    await client.set("contextfold:schema", "2")
    await client.aclose()
    store = open_store(redis_url)
    with pytest.raises(StoreError, match=r"key layout 2 .* upgrade contextfold"):
        await store.get_lineage("t1", "s1", "l1")
    await store.aclose()
    other = open_store(redis_url + "?prefix=team-b:")
    assert await other.put_lineage(_record(), expected_version=0) is not None
    assert "key layout 1" in await check_store(other)
    await other.aclose()


async def test_redis_check_names_version_layout_and_retention(redis_url: str) -> None:
    store = open_store(redis_url, retention=3600)
    line = await check_store(store)
    assert line.startswith("redis 7") or line.startswith("redis ")
    assert "answers" in line and "retention 3600 s" in line and "\n" not in line
    await store.aclose()


async def test_redis_unreachable_raises_store_error_quickly_without_the_password() -> None:
    url = f"redis://:hunter2-secret@127.0.0.1:{servers.free_port()}/0"
    store = open_store(url)
    started = time.monotonic()
    for call in (store.ping(), store.get_lineage("t", "s", "l"), store.put_lineage(_record(), expected_version=0)):
        with pytest.raises(StoreError) as info:
            await call
        assert "hunter2" not in str(info.value) and "127.0.0.1" in str(info.value)
    assert time.monotonic() - started < 30
    await store.aclose()


async def test_redis_outage_raises_then_recovers(own_redis: servers.Server) -> None:
    store = open_store(own_redis.url)
    assert await store.put_lineage(_record(), expected_version=0) is not None
    own_redis.kill()
    with pytest.raises(StoreError):
        await store.get_lineage("t1", "s1", "l1")
    own_redis.restart()
    # The same store object reconnects (a fresh server: the test server keeps nothing on disk).
    assert await store.get_lineage("t1", "s1", "l1") is None
    assert await store.put_lineage(_record(), expected_version=0) is not None
    await store.aclose()


# -- PostgreSQL --------------------------------------------------------------------------------


async def _rows(url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


async def test_postgres_check_before_and_after_the_first_start(postgres_url: str) -> None:
    store = open_store(postgres_url)
    before = await check_store(store)
    assert "schema not created yet" in before and "first start migrates" in before
    assert await _rows(postgres_url, "SELECT to_regclass('contextfold_schema') AS t") == [
        (None,)
    ]  # check migrates nothing
    await store.ping()  # the first use migrates
    after = await check_store(store)
    assert f"schema {SCHEMA_VERSION} (current)" in after
    await store.aclose()
    rows = await _rows(postgres_url, "SELECT version, description FROM contextfold_schema ORDER BY version")
    assert [(r["version"], r["description"]) for r in rows] == [(v, d) for v, d, _ in MIGRATIONS]


async def test_postgres_schema_matches_the_tables_the_queries_use(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.ping()
    await store.aclose()
    rows = await _rows(
        postgres_url,
        "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
        "WHERE table_name IN ('contextfold_lineages', 'contextfold_sessions')",
    )
    found = {(r["table_name"], r["column_name"]): (r["data_type"], r["is_nullable"] == "YES") for r in rows}
    wanted = {
        (t.name, c.name): c.nullable
        for t in (store.lineages, store.sessions)
        for c in t.columns  # type: ignore[attr-defined]
    }
    assert set(found) == set(wanted)
    assert {k: v[1] for k, v in found.items()} == wanted
    assert found[("contextfold_lineages", "replacement")][0] == "bytea"
    indexes = {r["indexname"] for r in await _rows(postgres_url, "SELECT indexname FROM pg_indexes")}
    assert {
        "contextfold_lineages_pkey",
        "contextfold_sessions_pkey",
        "contextfold_sessions_by_tenant",
        "contextfold_sessions_last_seen",
        "contextfold_lineages_updated",
    } <= indexes


async def test_postgres_lookups_use_the_indexes(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.ping()
    await store.aclose()
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("SET enable_seqscan = off")  # tiny tables: make the planner show the index it can use
        plan = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN SELECT * FROM contextfold_lineages WHERE tenant = 'a' AND session = 'b' AND lineage = 'c'"
            )
        )
        assert "contextfold_lineages_pkey" in plan
        plan = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN SELECT * FROM contextfold_sessions WHERE tenant = 'a' ORDER BY last_seen DESC, session"
            )
        )
        assert "contextfold_sessions_by_tenant" in plan
    finally:
        await conn.close()


async def test_postgres_replicas_starting_together_migrate_once(postgres_url: str) -> None:
    stores = [PostgresStore(postgres_url) for _ in range(5)]
    await asyncio.gather(*(s.ping() for s in stores))
    await asyncio.gather(*(s.aclose() for s in stores))
    rows = await _rows(postgres_url, "SELECT version FROM contextfold_schema")
    assert [r["version"] for r in rows] == [SCHEMA_VERSION]


async def test_postgres_refuses_a_newer_schema(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.ping()
    await store.aclose()
    conn = await asyncpg.connect(postgres_url)
    await conn.execute("INSERT INTO contextfold_schema (version, description) VALUES (99, 'future')")
    await conn.close()
    fresh = PostgresStore(postgres_url)
    with pytest.raises(StoreError, match="schema version 99 is newer"):
        await fresh.get_lineage("t", "s", "l")
    with pytest.raises(StoreError, match="schema version 99 is newer"):
        await check_store(fresh)
    await fresh.aclose()


async def test_postgres_check_finds_a_damaged_schema(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.ping()
    conn = await asyncpg.connect(postgres_url)
    await conn.execute("ALTER TABLE contextfold_lineages DROP COLUMN marked")
    await conn.close()
    with pytest.raises(StoreError, match=r"columns are missing: contextfold_lineages\.marked"):
        await check_store(store)
    await store.aclose()


async def test_postgres_purge_drops_idle_sessions_and_their_lineages(postgres_url: str) -> None:
    store = PostgresStore(postgres_url, retention=100)
    try:
        await store.put_lineage(_record("old", updated=1000.0), expected_version=0)
        await store.put_lineage(_record("live", updated=1000.0), expected_version=0)  # written long ago, still in use
        await _stats_call(store, "old", 1000.0)
        await _stats_call(store, "live", 1000.0)
        await _stats_call(store, "live", 5000.0)  # purges (cutoff 4900): "old" is idle, "live" was just seen
        assert [s.session for s in await store.session_stats("t1")] == ["live"]
        assert await store.get_lineage("t1", "old", "l1") is None
        assert await store.get_lineage("t1", "live", "l1") is not None
        assert await store.purge(5050.0) == 0  # nothing more to drop
        assert await store.purge(6000.0) == 2  # now "live" is idle too: its session row and its lineage
    finally:
        await store.aclose()


async def test_postgres_without_retention_purges_nothing(postgres_url: str) -> None:
    store = PostgresStore(postgres_url, retention=None)
    await _stats_call(store, "s", 1.0)
    assert await store.purge(10**12) == 0
    assert len(await store.session_stats("t1")) == 1
    await store.aclose()


async def test_postgres_unreachable_raises_store_error_without_the_password() -> None:
    store = open_store(f"postgresql://u:hunter2-secret@127.0.0.1:{servers.free_port()}/db")
    for call in (store.ping(), store.get_lineage("t", "s", "l"), check_store(store)):
        with pytest.raises(StoreError) as info:
            await call
        assert "hunter2" not in str(info.value) and "127.0.0.1" in str(info.value)
    await store.aclose()


async def test_postgres_outage_raises_then_recovers_on_the_same_pool(own_postgres: servers.Server) -> None:
    store = open_store(own_postgres.url)
    assert await store.put_lineage(_record(), expected_version=0) is not None
    own_postgres.kill()
    with pytest.raises(StoreError):
        await store.get_lineage("t1", "s1", "l1")
    own_postgres.restart()
    got = await store.get_lineage("t1", "s1", "l1")  # committed before the kill: still there
    assert got is not None and got.version == 1
    await store.aclose()


# -- SQLite ------------------------------------------------------------------------------------


async def test_sqlite_check_is_a_ping(tmp_path: object) -> None:
    store = open_store(f"sqlite://{tmp_path}/state.sqlite3")
    assert await check_store(store) == f"sqlite {tmp_path}/state.sqlite3 answers"
    await store.aclose()
