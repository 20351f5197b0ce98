"""The middle hop of an end-to-end run: the client talks to the scripted upstream directly, or through a proxy.

`direct` hands out the upstream's own URLs. `through_proxy` starts ``contextfold proxy`` as a subprocess
pointed at the upstream (``--anthropic-upstream``/``--openai-upstream``, a small ``--window``, a fresh
``--state``), waits for ``GET /healthz`` to answer 200 and hands out the proxy's URLs. `proxy_unavailable` says
why the proxy cannot run here (``None`` when it can); `proxy_required` says whether that must fail the run
instead of skipping it.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import contextfold

__all__ = [
    "Hop",
    "direct",
    "passthrough_command",
    "proxy_command",
    "proxy_required",
    "proxy_unavailable",
    "through_proxy",
]


@dataclass(frozen=True)
class Hop:
    """Where a client should send its requests."""

    name: str
    anthropic_url: str  # ANTHROPIC_BASE_URL (no /v1)
    openai_url: str  # a Responses API base URL (ends in /v1)
    log: Path | None = None

    def log_tail(self, lines: int = 60) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


@contextmanager
def direct(upstream_url: str) -> Iterator[Hop]:
    """No middle hop: the client talks to the upstream."""
    yield Hop("direct", upstream_url, upstream_url + "/v1")


def proxy_command(*args: str) -> list[str]:
    """``contextfold proxy ARGS`` with this interpreter (the project's venv).

    ``CONTEXTFOLD_E2E_PROXY_CMD`` replaces ``python -m contextfold proxy`` (split like a shell line), to run the
    through-proxy tests against a proxy in another checkout or venv.
    """
    override = os.environ.get("CONTEXTFOLD_E2E_PROXY_CMD", "").strip()
    prefix = shlex.split(override) if override else [sys.executable, "-m", "contextfold", "proxy"]
    return [*prefix, *args]


def passthrough_command(*args: str) -> list[str]:
    """The pass-through stand-in (``passthrough_proxy.py``, same flags) with this interpreter."""
    return [sys.executable, str(Path(__file__).with_name("passthrough_proxy.py")), *args]


def proxy_unavailable() -> str | None:
    """Why ``contextfold proxy`` cannot run from this checkout (``None`` when ``--help`` works)."""
    try:
        done = subprocess.run(proxy_command("--help"), capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`contextfold proxy --help` failed: {exc}"
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()
        return f"`contextfold proxy --help` exited {done.returncode}: {last[-1] if last else '(no output)'}"
    return None


def proxy_required(env: Mapping[str, str] | None = None) -> bool:
    """Whether a proxy that cannot run fails the run (instead of skipping the through-proxy tests).

    ``CONTEXTFOLD_E2E_REQUIRE_PROXY``: ``1`` always, ``0`` never, ``auto`` (the default, what ``make e2e`` passes)
    once the proxy package exists in this checkout (``src/contextfold/proxy/``): from the moment the proxy lands,
    a proxy that does not start is a failure, never a skip.
    """
    env = os.environ if env is None else env
    value = env.get("CONTEXTFOLD_E2E_REQUIRE_PROXY", "auto").strip().lower()
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    return (Path(contextfold.__file__).parent / "proxy").is_dir() or bool(env.get("CONTEXTFOLD_E2E_PROXY_CMD"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as answer:
            return int(answer.status) == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def through_proxy(
    upstream_url: str,
    state: Path,
    *,
    window: int,
    timeout: float = 120,
    command: Callable[..., list[str]] = proxy_command,
    name: str = "proxy",
) -> Iterator[Hop]:
    """``contextfold proxy`` (or ``command``) between client and upstream, at ``window`` tokens, state in ``state``."""
    port = _free_port()
    state.mkdir(parents=True, exist_ok=True)
    log = state.parent / f"{state.name}-proxy.log"
    argv = command(
        "--port",
        str(port),
        "--anthropic-upstream",
        upstream_url,
        "--openai-upstream",
        upstream_url + "/v1",
        "--window",
        str(window),
        "--state",
        str(state),
    )
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + timeout
            while not _healthy(url):
                if process.poll() is not None:
                    raise RuntimeError(
                        f"{name} exited {process.returncode} before /healthz answered:\n"
                        + log.read_text(encoding="utf-8", errors="replace")[-3000:]
                    )
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not answer {url}/healthz within {timeout:.0f}s")
                time.sleep(0.2)
            yield Hop(name, url, url + "/v1", log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)
