"""The `SessionStore` contract, as a reusable suite: every backend must pass every test here.

A backend's test module provides a ``store`` fixture (an open store on an
empty database) and does ``from store_contract import *``; the tests then run
against it. Redis and Postgres stores add their own fixture module.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from contextfold.proxy import LineageRecord, SessionStore

__all__ = [
    "test_cas_insert_once",
    "test_cas_update_needs_the_current_version",
    "test_concurrent_writers_one_winner",
    "test_missing_lineage_is_none",
    "test_record_round_trips_bytes_exactly",
    "test_stats_accumulate_per_session",
    "test_tenants_are_isolated",
]


def _record(**changes: object) -> LineageRecord:
    base = LineageRecord(
        tenant="t1",
        session="s1",
        lineage="l1",
        covered=3,
        covered_hash="abc",
        replacement=b'[{"role":"user","content":"summary \\u00e9 \xc3\xa9"}]',
        marked=b'[{"role":"user","content":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}]}]',
        tokens=12,
        compactions=1,
        rewrites={"h1": b'{"role":"user","content":"cut"}'},
        updated=1.0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


async def test_missing_lineage_is_none(store: SessionStore) -> None:
    assert await store.get_lineage("t1", "s1", "l1") is None
    await store.ping()


async def test_record_round_trips_bytes_exactly(store: SessionStore) -> None:
    stored = await store.put_lineage(_record(), expected_version=0)
    assert stored is not None and stored.version == 1
    got = await store.get_lineage("t1", "s1", "l1")
    assert got == stored
    assert got is not None and got.replacement == _record().replacement and got.marked == _record().marked
    assert dict(got.rewrites) == {"h1": b'{"role":"user","content":"cut"}'}


async def test_cas_insert_once(store: SessionStore) -> None:
    assert await store.put_lineage(_record(), expected_version=0) is not None
    assert await store.put_lineage(_record(covered=9), expected_version=0) is None
    got = await store.get_lineage("t1", "s1", "l1")
    assert got is not None and got.covered == 3


async def test_cas_update_needs_the_current_version(store: SessionStore) -> None:
    first = await store.put_lineage(_record(), expected_version=0)
    assert first is not None
    second = await store.put_lineage(_record(covered=5, compactions=2), expected_version=first.version)
    assert second is not None and second.version == 2
    assert await store.put_lineage(_record(covered=7), expected_version=first.version) is None  # stale
    got = await store.get_lineage("t1", "s1", "l1")
    assert got is not None and (got.covered, got.version) == (5, 2)


async def test_concurrent_writers_one_winner(store: SessionStore) -> None:
    results = await asyncio.gather(*(store.put_lineage(_record(covered=n), expected_version=0) for n in range(8)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    got = await store.get_lineage("t1", "s1", "l1")
    assert got == winners[0]


async def test_tenants_are_isolated(store: SessionStore) -> None:
    await store.put_lineage(_record(), expected_version=0)
    assert await store.get_lineage("t2", "s1", "l1") is None
    await store.record_request(
        "t1", "s1", tokens_in=10, tokens_out=5, compacted=True, offloads=1, cache_reuse=0, now=2.0
    )
    assert await store.session_stats("t2") == []
    assert [s.session for s in await store.session_stats("t1")] == ["s1"]
    assert await store.tenants() == ["t1"]


async def test_stats_accumulate_per_session(store: SessionStore) -> None:
    for n in range(3):
        await store.record_request(
            "t1", "s1", tokens_in=100, tokens_out=40, compacted=n == 1, offloads=n, cache_reuse=30, now=10.0 + n
        )
    await store.record_request(
        "t1", "s2", tokens_in=1, tokens_out=1, compacted=False, offloads=0, cache_reuse=0, now=20.0
    )
    s2, s1 = await store.session_stats("t1")
    assert (s1.requests, s1.tokens_in, s1.tokens_out, s1.compactions, s1.offloads, s1.cache_reuse) == (
        3,
        300,
        120,
        1,
        3,
        90,
    )
    assert (s1.first_seen, s1.last_seen) == (10.0, 12.0)
    assert s2.session == "s2" and s2.requests == 1
    assert s1.to_dict()["cache_reuse_tokens"] == 90
