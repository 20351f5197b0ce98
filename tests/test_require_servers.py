"""``CONTEXTFOLD_REQUIRE_SERVERS=1`` (``.ci/run``): a skipped store test fails the run; other skips stay skips."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

STORE_FOLDER_TEST = """
import pytest
redis = pytest.importorskip("no_such_redis_client_module")
def test_never_collected() -> None:
    pass
"""

STORE_FOLDER_RUNTIME = """
import pytest
def test_skips_at_run_time() -> None:
    pytest.skip("no server today")
"""

ELSEWHERE = """
import pytest

@pytest.fixture
def redis_url() -> str:
    pytest.skip("redis-server unavailable")

def test_uses_a_server_fixture(redis_url: str) -> None:
    pass

@pytest.mark.servers
@pytest.mark.skipif(True, reason="client library missing")
def test_marked_servers() -> None:
    pass

@pytest.mark.skipif(True, reason="needs FIFOs")
def test_not_a_store_test() -> None:
    pass

def test_passes() -> None:
    pass
"""


def _run(tmp_path: Path, require: str | None, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    tmp_path = tmp_path / "stores"  # a checkout in a folder named like the test folder: only tests/stores counts
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "CONTEXTFOLD_REQUIRE_SERVERS"}
    if require is not None:
        env["CONTEXTFOLD_REQUIRE_SERVERS"] = require
    env["PYTHONPATH"] = str(TESTS)
    command = [sys.executable, "-m", "pytest", "-p", "require_servers", "-p", "no:cacheprovider", "-q", "-rfs"]
    return subprocess.run(
        [*command, "tests"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )


RUNTIME = {"tests/stores/test_runtime_skip.py": STORE_FOLDER_RUNTIME, "tests/test_elsewhere.py": ELSEWHERE}
COLLECT = {"tests/stores/test_collect_skip.py": STORE_FOLDER_TEST}


def _summary(out: str) -> str:
    return out.strip().splitlines()[-1]


def test_in_ci_every_skipped_store_test_fails_the_run(tmp_path: Path) -> None:
    run = _run(tmp_path, "1", RUNTIME)
    assert run.returncode == 1, run.stdout + run.stderr
    summary = _summary(run.stdout)
    # a skip at run time becomes a failure, one in setup (a fixture, a skipif mark) an error: both fail the run
    counts = set(summary.split(" in ")[0].split(", "))
    assert counts == {"1 failed", "2 errors", "1 skipped", "1 passed"}, summary
    assert run.stdout.count("CONTEXTFOLD_REQUIRE_SERVERS=1 forbids it") >= 3
    for reason in ("no server today", "redis-server unavailable", "client library missing"):
        assert reason in run.stdout
    assert "needs FIFOs" in run.stdout  # the one skip that is not a store test stays a skip


def test_in_ci_a_store_module_skipped_at_import_is_a_collection_error(tmp_path: Path) -> None:
    run = _run(tmp_path, "1", COLLECT)
    assert run.returncode == pytest.ExitCode.INTERRUPTED, run.stdout + run.stderr
    assert "1 error" in _summary(run.stdout)
    assert "forbids it" in run.stdout and "no_such_redis_client_module" in run.stdout


@pytest.mark.parametrize("require", [None, "0"])
def test_locally_store_tests_skip_with_their_reason(tmp_path: Path, require: str | None) -> None:
    run = _run(tmp_path, require, RUNTIME | COLLECT)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = _summary(run.stdout)
    assert "1 passed" in summary and "5 skipped" in summary and "failed" not in summary, summary
    assert "forbids" not in run.stdout and "no server today" in run.stdout


def test_ci_sets_the_variable() -> None:
    script = (TESTS.parent / ".ci" / "run").read_text()
    assert "export CONTEXTFOLD_REQUIRE_SERVERS=1" in script
    assert script.index("export CONTEXTFOLD_REQUIRE_SERVERS=1") < script.index("make test")
