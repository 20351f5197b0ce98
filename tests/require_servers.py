"""Pytest plugin: with ``CONTEXTFOLD_REQUIRE_SERVERS=1`` (``.ci/run``) a skipped store test is a failed one.

The server fixtures already fail instead of skipping when their server is
missing; this catches every other way a store test can skip (an
``importorskip`` of a client library, a ``skipif``, a ``pytest.skip`` in a
test or fixture), so CI cannot pass with the real-server tests not run
(issue 16). A store test is one that uses a server fixture, lives in a
``stores`` test folder, or is marked ``servers`` (for tests that reach a
server through ``request.getfixturevalue``). Loaded from ``tests/conftest.py``.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

REQUIRE_ENV = "CONTEXTFOLD_REQUIRE_SERVERS"
SERVER_FIXTURES = frozenset(
    {"redis_server", "postgres_server", "s3_server", "redis_url", "postgres_url", "own_redis", "own_postgres"}
)
STORE_FOLDER = "stores"


def required() -> bool:
    """Whether skipping a store test is a failure in this run."""
    return os.environ.get(REQUIRE_ENV) == "1"


def is_store_test(item: pytest.Item) -> bool:
    """Whether ``item`` needs a real server (see the module docstring)."""
    if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    return item.get_closest_marker("servers") is not None or _in_store_folder(Path(str(item.path)))


def _in_store_folder(path: Path) -> bool:
    """Whether ``path`` is inside ``tests/stores/`` (only that pair counts: a checkout may sit in a ``stores`` dir)."""
    return any(d.name == STORE_FOLDER and d.parent.name == "tests" for d in path.parents)


def _failed(reason: str) -> str:
    return f"store test skipped, but {REQUIRE_ENV}=1 forbids it (CI must run every store test): {reason}"


def _skip_reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "servers: the test needs a real server (never skipped in CI)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and required() and is_store_test(item):
        report.outcome = "failed"
        report.longrepr = _failed(_skip_reason(report.longrepr))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()
    if report.skipped and required() and isinstance(collector, pytest.Module) and _in_store_folder(collector.path):
        report.outcome = "failed"
        report.longrepr = _failed(_skip_reason(report.longrepr))
