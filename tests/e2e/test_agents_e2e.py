"""Real agents, end to end: Claude Code and Codex CLI on a 64-command shell session against a scripted upstream.

Direct (client -> upstream) the harness must see what it is meant to detect: the session outgrows a 40,000-token
window (the fit check fails, as asserted), while pairing, prefix stability and the key hold. Through
``contextfold proxy`` every check must pass. Run with ``make e2e`` (installs the clients, then
``pytest tests/e2e -m e2e``).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import agent_clients as agents
import pytest
from session import Client, HopFactory, Session, direct_hop, passthrough_hop, proxy_hop, run_session

pytestmark = pytest.mark.e2e

WINDOW = 40_000
COMMANDS = 64

# Client-side compaction switched on at a size the direct session passes several times (Claude Code's
# auto-compact window; Codex's auto-compact limit), to cover the clients' own compaction requests.
CLAUDE_COMPACTING = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}
CODEX_COMPACTING = "model_auto_compact_token_limit = 80000\n"


def _show(session: Session, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(f"\n[e2e] {json.dumps(session.summary())}")


def _common(session: Session) -> None:
    """What holds on every hop: the client finished, pairing, prefix stability, the key."""
    assert not session.finished(), "\n".join(session.finished()) + "\n" + session.describe()
    assert len(session.script.commands) >= 60
    assert session.pairing.ok, "\n".join(session.pairing.problems[:20]) + "\n" + session.describe()
    assert session.prefix.ok, "\n".join(session.prefix.problems) + "\n" + session.describe()
    assert session.key.ok, "\n".join(session.key.problems[:20]) + "\n" + session.describe()


def _run(client: Client, tmp_path: Path, cache: Path, hop: str, compacting: bool) -> Session:
    factories: dict[str, HopFactory] = {
        "direct": direct_hop,
        "passthrough": passthrough_hop,
        "proxy": proxy_hop(WINDOW),
    }
    factory = factories[hop]
    return run_session(
        client,
        factory,
        tmp_path,
        cache=cache,
        commands=COMMANDS,
        window=WINDOW,
        claude_env=CLAUDE_COMPACTING if compacting else None,
        codex_config=CODEX_COMPACTING if compacting else "",
    )


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_direct_session_outgrows_the_window_and_the_harness_sees_it(
    client: Client, tmp_path: Path, client_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = _run(client, tmp_path, client_cache, "direct", compacting=False)
    _show(session, capsys)
    _common(session)
    # The commands really ran: every result carries the last line its command printed.
    assert not session.missing_end_markers(), session.describe()
    # Without a proxy the history grows for the whole session: the fit check must fail, and not only at the end.
    assert not session.fit.ok, session.describe()
    assert session.fit.max_tokens > 3 * WINDOW, session.describe()
    assert len(session.fit.problems) >= len(session.main_requests()) // 2, session.describe()
    # Direct, nothing rewrites the history: every main transition is cache-stable.
    assert session.prefix.count("break") == 0, session.prefix.summary()
    assert session.prefix.count("compaction") == 0, session.prefix.summary()


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_through_a_passthrough_proxy_only_the_fit_fails(
    client: Client, tmp_path: Path, client_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The through-proxy plumbing with a stand-in that forwards every byte: the same verdicts as direct."""
    session = _run(client, tmp_path, client_cache, "passthrough", compacting=False)
    _show(session, capsys)
    _common(session)
    assert session.hop == "passthrough" and not session.fit.ok, session.describe()
    assert session.prefix.raw_identical == (session.prefix.count("extends") if client == "codex" else 0)


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_direct_session_with_the_clients_own_compaction(
    client: Client, tmp_path: Path, client_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = _run(client, tmp_path, client_cache, "direct", compacting=True)
    _show(session, capsys)
    _common(session)
    compactions = [r for r in session.requests if r.role == "compact"]
    assert compactions, "the client never compacted on its own\n" + session.describe()
    assert session.prefix.count("compaction") >= 1, session.prefix.summary()


@pytest.mark.parametrize("compacting", [False, True], ids=["client-compaction-off", "client-compaction-on"])
@pytest.mark.parametrize("client", ["claude", "codex"])
def test_through_proxy_every_request_fits_and_stays_cache_stable(
    client: Client,
    compacting: bool,
    tmp_path: Path,
    client_cache: Path,
    proxy_ready: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    session = _run(client, tmp_path, client_cache, "proxy", compacting=compacting)
    _show(session, capsys)
    _common(session)
    assert session.fit.ok, "\n".join(session.fit.problems[:20]) + "\n" + session.describe()


@pytest.mark.parametrize("client", ["claude", "codex"])
def test_the_clients_reach_nothing_but_loopback(client: Client, tmp_path: Path, client_cache: Path) -> None:
    """With the harness's switches neither client looks up a host name or connects off the machine (strace)."""
    if shutil.which("strace") is None:
        message = "strace is not installed (Debian package strace; .ci/run installs it)"
        if os.environ.get("CONTEXTFOLD_E2E_REQUIRE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    trace = tmp_path / "strace.log"
    env = {"E2E_STRACE_TO": str(trace)}
    session = run_session(
        client,
        direct_hop,
        tmp_path,
        cache=client_cache,
        commands=2,
        claude_env=env if client == "claude" else None,
        codex_env=env if client == "codex" else None,
    )
    assert not session.finished(), session.describe()
    assert "127.0.0.1" in trace.read_text(encoding="utf-8"), "strace saw no connection at all"
    assert agents.foreign_connections(trace) == []
