"""The `SessionStore` contract, as a reusable suite: every backend must pass every test here.

``test_contract.py`` runs it against every backend: its ``store`` fixture (an
open store on an empty database) and ``store_url`` (the URL another process
opens) come from ``tests/stores/conftest.py``, parametrized over SQLite, a
real Redis and a real PostgreSQL.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold.proxy import LineageRecord, SessionStore, open_store

__all__ = [
    "test_any_record_round_trips_exactly",
    "test_cas_insert_once",
    "test_cas_update_needs_the_current_version",
    "test_concurrent_writers_one_winner",
    "test_lineages_of_one_session_are_independent",
    "test_many_tasks_race_every_round_one_winner",
    "test_missing_lineage_is_none",
    "test_no_marked_and_no_rewrites_round_trip",
    "test_processes_race_one_winner_per_round",
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


async def test_lineages_of_one_session_are_independent(store: SessionStore) -> None:
    a = await store.put_lineage(_record(lineage="main"), expected_version=0)
    b = await store.put_lineage(_record(lineage="sub", covered=1), expected_version=0)
    assert a is not None and b is not None
    assert await store.put_lineage(_record(lineage="main", covered=4), expected_version=1) is not None
    got_b = await store.get_lineage("t1", "s1", "sub")
    assert got_b == b  # writing one lineage never touches another
    got_a = await store.get_lineage("t1", "s1", "main")
    assert got_a is not None and (got_a.covered, got_a.version) == (4, 2)
    assert await store.get_lineage("t1", "s2", "main") is None  # nor another session's


async def test_no_marked_and_no_rewrites_round_trip(store: SessionStore) -> None:
    stored = await store.put_lineage(_record(marked=None, rewrites={}, replacement=b"[]"), expected_version=0)
    got = await store.get_lineage("t1", "s1", "l1")
    assert got == stored and got is not None and got.marked is None and dict(got.rewrites) == {}


async def test_many_tasks_race_every_round_one_winner(store: SessionStore) -> None:
    """Rounds of 16 writers that each read, then compare-and-set: one winner per round, versions advance by one."""
    for version in range(4):
        results = await asyncio.gather(
            *(store.put_lineage(_record(covered=n), expected_version=version) for n in range(16))
        )
        winners = [r for r in results if r is not None]
        assert len(winners) == 1, f"round {version + 1}: {len(winners)} winners"
        got = await store.get_lineage("t1", "s1", "l1")
        assert got == winners[0] and got.version == version + 1


@given(
    replacement=st.binary(min_size=0, max_size=300).map(lambda b: b.hex().encode()),
    marked=st.none() | st.text(max_size=50).map(lambda s: s.encode("utf-8")),
    rewrites=st.dictionaries(st.text("0123456789abcdef", min_size=1, max_size=16), st.text(max_size=40), max_size=4),
    covered=st.integers(0, 10**6),
    session=st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_record_round_trips_exactly(
    store_url: str, replacement: bytes, marked: bytes | None, rewrites: dict[str, str], covered: int, session: str
) -> None:
    record = _record(
        session=session,
        lineage=f"l-{next(_LINEAGES)}",
        replacement=replacement,
        marked=marked,
        rewrites={k: v.encode("utf-8") for k, v in rewrites.items()},
        covered=covered,
    )

    async def run() -> None:
        store = open_store(store_url, retention=None)
        try:
            stored = await store.put_lineage(record, expected_version=0)
            assert stored is not None
            assert await store.get_lineage(record.tenant, session, record.lineage) == stored
        finally:
            await store.aclose()

    asyncio.run(run())


_LINEAGES = itertools.count()


def test_processes_race_one_winner_per_round(store_url: str, tmp_path: Path) -> None:
    """Four processes (four replicas) each read and compare-and-set the same lineage: exactly one wins each round."""
    folder = tmp_path / "race"
    folder.mkdir()
    racers = 4
    script = Path(__file__).with_name("cas_racer.py")
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), store_url, str(folder), str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(racers)
    ]
    try:
        _wait_for(lambda: all((folder / f"ready-{n}").exists() for n in range(racers)), procs)
        (folder / "go").touch()
        for r in range(1, 4):
            (folder / f"round-{r}").touch()
            _wait_for(lambda r=r: all((folder / f"read-{r}-{n}").exists() for n in range(racers)), procs)
            (folder / f"write-{r}").touch()
            _wait_for(lambda r=r: all((folder / f"done-{r}-{n}").exists() for n in range(racers)), procs)
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            for stream in (p.stdout, p.stderr):  # closed here, not left to the garbage collector
                if stream is not None:
                    stream.close()
            p.wait()
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    lines = [line.split() for out, _ in outputs for line in out.splitlines()]
    for r in ("1", "2", "3"):
        won = [line for line in lines if line[0] == r and line[1] == "won"]
        assert len(won) == 1, f"round {r}: {len(won)} winners of {racers}"

    async def final() -> LineageRecord | None:
        store = open_store(store_url, retention=None)
        try:
            return await store.get_lineage("t", "s", "l")
        finally:
            await store.aclose()

    record = asyncio.run(final())
    assert record is not None and record.version == 3


def _wait_for(done: Callable[[], bool], procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 180
    while not done():
        for p in procs:
            if p.poll() is not None and p.returncode != 0:
                raise AssertionError(f"a racer failed: {p.stderr.read() if p.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError("racers did not get there in time")
        time.sleep(0.01)
