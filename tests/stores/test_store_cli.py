"""The operator's side on the CLI: ``contextfold proxy --check``, ``--store``/``--workspace-url``/``--retention``,
``CONTEXTFOLD_STORE``, and ``contextfold proxy stats --store`` against real servers."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

import servers
from contextfold._cli import main
from contextfold.proxy import open_store, tenant_of


def _run(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err, env={"COLUMNS": "150", **(env or {})})
    return code, out.getvalue(), err.getvalue()


def test_help_lists_the_scale_out_flags() -> None:
    code, out, _ = _run(["proxy", "--help"])
    assert code == 0
    for flag in ("--store URL", "--workspace-url URL", "--retention DURATION", "--check", "CONTEXTFOLD_STORE"):
        assert flag in out
    code, out, _ = _run(["proxy", "stats", "--help"])
    assert code == 0 and "--store URL" in out
    code, out, _ = _run(["mcp", "--help"])
    assert code == 0 and "--workspace-url URL" in out


def test_check_redis(redis_url: str, tmp_path: Path) -> None:
    code, out, err = _run(["proxy", "--check", "--store", redis_url, "--retention", "12h", "--state", str(tmp_path)])
    assert (code, err) == (0, "")
    assert out.count("\n") == 1 and out.startswith("contextfold proxy --check: ok: redis ")
    assert "retention 43200 s" in out


def test_check_postgres_from_the_environment(postgres_url: str, tmp_path: Path) -> None:
    code, out, err = _run(["proxy", "--check", "--state", str(tmp_path)], env={"CONTEXTFOLD_STORE": postgres_url})
    assert (code, err) == (0, "")
    assert "postgresql 15" in out or "postgresql " in out
    assert "schema not created yet: the first start migrates it" in out


def test_check_with_the_workspace_url(
    redis_url: str, s3_server: servers.Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"s3://{servers.make_bucket(s3_server)}/p"
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)  # obstore reads the process environment
    code, out, err = _run(["proxy", "--check", "--store", redis_url, "--workspace-url", url])
    assert (code, err) == (0, "")
    assert f"workspace {url} answers" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--store", "redis://:pw-secret@127.0.0.1:{port}/0"], "session store redis://:***@127.0.0.1:{port}/0"),
        (["--store", "postgresql://u:pw-secret@127.0.0.1:{port}/db"], "session store postgresql://u:***@127.0.0.1"),
        (["--store", "mysql://h/db"], "use sqlite:///PATH, redis://HOST:PORT/DB or postgresql://"),
        (["--store", "sqlite://relative.db"], "three slashes"),
        (["--retention", "a week"], "--retention 'a week'"),
        (["--workspace-url", "ftp://x/y"], "ProxyConfig.workspace_url"),
    ],
)
def test_check_failures_are_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path) -> None:
    port = servers.free_port()
    argv = [a.format(port=port) for a in argv]
    code, out, err = _run(["proxy", "--check", "--state", str(tmp_path), *argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message.format(port=port) in err, err
    assert "pw-secret" not in err and "Traceback" not in err


def test_check_an_unreachable_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{servers.free_port()}")
    for name, value in {
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "y",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    code, out, err = _run(["proxy", "--check", "--state", str(tmp_path), "--workspace-url", "s3://b-none/p"])
    assert code == 2 and out == "" and "workspace s3://b-none/p" in err and err.count("\n") == 1


def test_stats_reads_a_shared_store(redis_url: str, tmp_path: Path) -> None:
    key = "sk-ant-api03-stats-over-redis-000000"

    async def record() -> None:
        store = open_store(redis_url)
        for n in range(3):
            await store.record_request(
                tenant_of(key),
                "sess-1",
                tokens_in=100,
                tokens_out=40,
                compacted=n == 2,
                offloads=0,
                cache_reuse=0,
                now=1000.0 + n,
            )
        await store.record_request(
            tenant_of("someone else"),
            "theirs",
            tokens_in=1,
            tokens_out=1,
            compacted=False,
            offloads=0,
            cache_reuse=0,
            now=5.0,
        )
        await store.aclose()

    asyncio.run(record())
    empty = tmp_path / "no-state-here"
    code, out, err = _run(
        ["proxy", "stats", "--json", "--store", redis_url, "--state", str(empty)], env={"ANTHROPIC_API_KEY": key}
    )
    assert (code, err) == (0, "")
    sessions = json.loads(out)["sessions"]
    assert [(s["session"], s["requests"], s["compactions"]) for s in sessions] == [("sess-1", 3, 1)]
