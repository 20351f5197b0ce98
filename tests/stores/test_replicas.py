"""Several ``contextfold proxy`` processes, one truth: real Redis / PostgreSQL stores and a real S3 API (moto).

A deterministic 30-turn agent session (`replicas.session_requests`: it passes the window several times and has
tool outputs that are cut and offloaded) goes through one replica, then through three replicas in turn; the
scripted upstream records the bytes it receives. With a shared store every request reaches the upstream byte
for byte as it did through one replica, also when a replica is SIGKILLed right after it compacted. With a
process-local store (each replica its own SQLite file) the same runs disagree: the tests assert both, so they
show that the agreement comes from the store. A store outage fails open and recovers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from replicas import (
    Sent,
    drive,
    session_requests,
    start_replicas,
    stop_all,
)

import servers
from provider_server import ProviderServer, Reply

pytestmark = pytest.mark.slow

BODIES = session_requests(30)
STORES = ("redis", "postgres", "process-local")


@pytest.fixture(scope="module")
def upstream() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        server.respond_with(lambda body: Reply(text="noted"))
        yield server


@dataclass(frozen=True)
class Workspace:
    url: str
    bucket: str
    env: dict[str, str]


@pytest.fixture(scope="module")
def workspace(s3_server: servers.Server) -> Workspace:
    bucket = servers.make_bucket(s3_server)
    return Workspace(f"s3://{bucket}/offloaded", bucket, dict(s3_server.env))


@dataclass(frozen=True)
class Reference:
    raw: list[bytes]
    sent: list[Sent]


@pytest.fixture(scope="module")
def reference(upstream: ProviderServer, workspace: Workspace, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """The session through ONE replica (its own SQLite store, the shared bucket): what the upstream must see."""
    upstream.requests.clear()
    folder = tmp_path_factory.mktemp("single")
    (replica,) = start_replicas(1, folder, upstream.url, workspace_url=workspace.url, env=workspace.env)
    try:
        sent = drive([replica], BODIES, lambda n: 0)
    finally:
        replica.stop()
    raw = [r.raw for r in upstream.requests]
    assert all(s.status == 200 for s in sent)
    assert len(raw) == len(BODIES)
    assert sum(s.compacted for s in sent) >= 3  # the session passes the window several times
    assert sum(r != b for r, b in zip(raw, BODIES, strict=True)) >= 20  # and is rewritten from early on
    return Reference(raw, sent)


def _store_url(kind: str, request: pytest.FixtureRequest) -> str | None:
    if kind == "redis":
        return str(request.getfixturevalue("redis_url"))
    if kind == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return None  # process-local: every replica its own SQLite file under its own --state


def _received(upstream: ProviderServer) -> list[bytes]:
    return [r.raw for r in upstream.requests]


def _differing(got: list[bytes], want: list[bytes]) -> list[int]:
    return [n for n, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]


@pytest.mark.parametrize("kind", STORES)
def test_three_replicas_forward_what_one_replica_forwards(
    kind: str,
    request: pytest.FixtureRequest,
    upstream: ProviderServer,
    workspace: Workspace,
    reference: Reference,
    s3_server: servers.Server,
    tmp_path: Path,
) -> None:
    store = _store_url(kind, request)
    upstream.requests.clear()
    replicas = start_replicas(3, tmp_path, upstream.url, store=store, workspace_url=workspace.url, env=workspace.env)
    try:
        sent = drive(replicas, BODIES, lambda n: n % 3)  # a round-robin load balancer
    finally:
        stop_all(replicas)
    got = _received(upstream)
    assert all(s.status == 200 for s in sent) and len(got) == len(BODIES)
    differ = _differing(got, reference.raw)
    if kind == "process-local":
        # Three truths: each replica compacts on its own, from what it happens to have seen.
        assert differ, "process-local replicas agreed with one replica: the test would not catch a missing store"
        return
    assert differ == [], f"requests {differ} reached the upstream differently than through one replica"
    assert [s.compacted for s in sent] == [s.compacted for s in reference.sent]  # one compaction each time
    assert len({s.session for s in sent}) == 1
    offloaded = [
        k for k in servers.bucket_keys(s3_server, workspace.bucket) if "/tool_results/" in k and "/index/" not in k
    ]
    assert offloaded, "the session cut no tool output: the bucket would not be exercised"
    assert len(offloaded) == len(set(offloaded))


@pytest.mark.parametrize("kind", STORES)
def test_a_replica_killed_mid_session_loses_nothing(
    kind: str,
    request: pytest.FixtureRequest,
    upstream: ProviderServer,
    workspace: Workspace,
    reference: Reference,
    tmp_path: Path,
) -> None:
    store = _store_url(kind, request)
    upstream.requests.clear()
    replicas = start_replicas(3, tmp_path, upstream.url, store=store, workspace_url=workspace.url, env=workspace.env)
    first = next(n for n, s in enumerate(reference.sent) if s.compacted)
    victim = first % 3
    alive = [i for i in range(3) if i != victim]

    def pick(n: int) -> int:
        return n % 3 if n <= first else alive[n % 2]

    def before(n: int) -> None:
        if n == first + 1:
            replicas[victim].kill()  # right after it stored (and forwarded) a compaction

    try:
        sent = drive(replicas, BODIES, pick, before=before)
    finally:
        stop_all(replicas)
    assert sent[first].compacted == reference.sent[first].compacted
    assert all(s.replica != victim for s in sent[first + 1 :])
    got = _received(upstream)
    differ = _differing(got, reference.raw)
    if kind == "process-local":
        # The next replica never saw that compaction: it compacts again, differently.
        assert differ and differ[0] > first
        return
    assert differ == [], f"after the kill, requests {differ} differ from one replica's"


@pytest.mark.parametrize("kind", ["redis", "postgres"])
def test_store_outage_fails_open_and_recovers(
    kind: str,
    request: pytest.FixtureRequest,
    upstream: ProviderServer,
    workspace: Workspace,
    tmp_path: Path,
) -> None:
    server: servers.Server = request.getfixturevalue(f"own_{kind}")
    upstream.requests.clear()
    replicas = start_replicas(
        2, tmp_path, upstream.url, store=server.url, workspace_url=workspace.url, env=workspace.env
    )
    down, up = 12, 18
    health: dict[int, list[dict[str, str]]] = {}

    def before(n: int) -> None:
        if n == down:
            server.kill()
        if n == up:
            server.restart()
        if n in (down, up):
            time.sleep(0.2)
            health[n] = [httpx2.get(r.url + "/healthz", timeout=30).json() for r in replicas]

    try:
        sent = drive(replicas, BODIES, lambda n: n % 2, before=before)
        assert all(httpx2.get(r.url + "/healthz", timeout=30).status_code == 200 for r in replicas)
    finally:
        stop_all(replicas)
    got = _received(upstream)
    assert all(s.status == 200 for s in sent) and len(got) == len(BODIES)  # no request failed, up or down
    assert all(got[n] != BODIES[n] for n in range(4, down)), "the store worked: requests are rewritten"
    for n in range(down, up):
        assert got[n] == BODIES[n], f"request {n} (store down) was not the client's own bytes"
    assert all(h["status"] == "degraded" and "unreachable" in h["store"] for h in health[down])
    assert all(h == {"status": "ok", "store": "ok"} for h in health[up])
    assert all(got[n] != BODIES[n] for n in range(up, len(BODIES))), "the proxy did not pick up the store again"
