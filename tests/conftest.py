"""Test-suite settings: hypothesis runs derandomized, so every run of the suite tests the same examples.

Also the real servers (Redis, PostgreSQL, an S3-compatible moto server), started once per test session on
loopback ports by `servers`: a missing one skips its tests locally and fails them when
``CONTEXTFOLD_REQUIRE_SERVERS=1`` (``.ci/run`` sets it), so CI never skips them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

import servers

pytest_plugins = ["require_servers"]  # CI (CONTEXTFOLD_REQUIRE_SERVERS=1): a skipped store test fails the run

settings.register_profile("contextfold", derandomize=True, print_blob=True)
settings.load_profile("contextfold")


def _server(name: str, start: Callable[[], servers.Server]) -> Iterator[servers.Server]:
    why = servers.missing(name)
    if why is not None:
        if os.environ.get("CONTEXTFOLD_REQUIRE_SERVERS") == "1":
            pytest.fail(f"{name} server required (CONTEXTFOLD_REQUIRE_SERVERS=1) but unavailable: {why}")
        pytest.skip(f"{name} server unavailable: {why}")
    server = start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[servers.Server]:
    """A real redis-server on a loopback port (skipped locally when missing, a failure in CI)."""
    yield from _server("redis", servers.start_redis)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[servers.Server]:
    """A real PostgreSQL cluster on a loopback port (skipped locally when missing, a failure in CI)."""
    yield from _server("postgres", servers.start_postgres)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[servers.Server]:
    """moto's S3-compatible server on a loopback port (skipped locally when missing, a failure in CI)."""
    yield from _server("s3", servers.start_s3)


@pytest.fixture
def redis_url(redis_server: servers.Server) -> str:
    """The shared redis-server, emptied for this test (FLUSHDB on its database 0)."""
    servers.flush_redis(redis_server)
    return redis_server.url


@pytest.fixture
def postgres_url(postgres_server: servers.Server) -> Iterator[str]:
    """A fresh, empty database on the shared PostgreSQL cluster, dropped after the test."""
    url = servers.create_database(postgres_server)
    try:
        yield url
    finally:
        servers.drop_database(postgres_server, url)


@pytest.fixture
def own_redis(redis_server: servers.Server) -> Iterator[servers.Server]:
    """A redis-server of this test alone (for outage tests that kill and restart it)."""
    server = servers.start_redis()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_postgres(postgres_server: servers.Server) -> Iterator[servers.Server]:
    """A PostgreSQL cluster of this test alone (for outage tests that kill and restart it)."""
    server = servers.start_postgres(durable=True)
    try:
        yield server
    finally:
        server.stop()
