"""The real agent CLIs the end-to-end tests drive: where they are installed, how to install them, how to run them.

Both clients come from npm at pinned versions into a cache outside the repository
(``$CONTEXTFOLD_E2E_CLIENTS``, default ``${XDG_CACHE_HOME:-~/.cache}/contextfold-e2e``). Each ships a native
binary in a platform package (``@anthropic-ai/claude-code-linux-x64``; ``@openai/codex@<v>-linux-x64`` under the
alias ``@openai/codex-linux-x64``), so Node.js is needed only to install them.

Both run fully offline against a base URL on 127.0.0.1, in a fresh HOME, with every switch that stops them from
reaching the internet set (each was checked with ``strace -e trace=connect,sendto``: with these settings neither
looks up a host name):

- Claude Code: ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (without it: DNS lookups of api.anthropic.com for
  telemetry), ``DISABLE_TELEMETRY``, ``DISABLE_AUTOUPDATER``, ``DISABLE_ERROR_REPORTING``; ``IS_SANDBOX=1`` as root.
- Codex: ``[features] plugins = false`` (without it: a curated-plugins sync looks up github.com and
  api.github.com), ``[analytics] enabled = false``, ``check_for_update_on_startup = false``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLAUDE_CODE",
    "CODEX",
    "AgentRun",
    "Client",
    "cache_dir",
    "foreign_connections",
    "install",
    "missing",
    "run_claude",
    "run_codex",
    "run_codex_builtin",
]


@dataclass(frozen=True)
class Client:
    """One agent CLI: its npm package, pinned version, binary name and what ``--version`` prints."""

    package: str
    version: str
    binary: str
    version_text: str


CLAUDE_CODE = Client("@anthropic-ai/claude-code", "2.1.332", "claude", "2.1.332 (Claude Code)")
CODEX = Client("@openai/codex", "0.171.0", "codex", "codex-cli 0.171.0")
CLIENTS = (CLAUDE_CODE, CODEX)

# What a client may see of the parent's environment: enough to find the shell tools the script runs (``python3``
# from this interpreter's directory first, in case the system has none).
_PATH = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the clients are installed (``npm install --prefix`` target)."""
    env = os.environ if env is None else env
    explicit = env.get("CONTEXTFOLD_E2E_CLIENTS")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "contextfold-e2e"


def binary(client: Client, cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "node_modules" / ".bin" / client.binary


def missing(cache: Path | None = None) -> str | None:
    """Why the pinned clients cannot run from ``cache`` (``None`` when both can)."""
    cache = cache or cache_dir()
    problems: list[str] = []
    for client in CLIENTS:
        path = binary(client, cache)
        if not path.exists():
            problems.append(f"{client.package}@{client.version} is not installed ({path} missing)")
            continue
        try:
            done = subprocess.run(
                [str(path), "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                env={"PATH": _PATH, "HOME": str(cache)},
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            problems.append(f"{path} --version failed: {exc}")
            continue
        if client.version_text not in done.stdout:
            problems.append(f"{path} --version printed {done.stdout.strip()!r}, want {client.version_text!r}")
    return "; ".join(problems) or None


def install(cache: Path | None = None) -> None:
    """Install both clients with npm into ``cache`` (a no-op when they are there); raise with why it failed."""
    cache = cache or cache_dir()
    if missing(cache) is None:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            "npm not found on PATH: the end-to-end tests install Claude Code and Codex CLI from the npm registry "
            "(Node.js 20 or newer with npm); install Node.js, or point CONTEXTFOLD_E2E_CLIENTS at a cache that "
            "already holds them"
        )
    cache.mkdir(parents=True, exist_ok=True)
    specs = [f"{c.package}@{c.version}" for c in CLIENTS]
    command = [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", "--no-save", *specs]
    print("installing the e2e clients:", " ".join(command), file=sys.stderr)
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise RuntimeError(f"npm install failed (exit {done.returncode}):\n{tail}")
    problem = missing(cache)
    if problem is not None:
        raise RuntimeError(f"npm install finished but the clients do not run: {problem}")


@dataclass(frozen=True)
class AgentRun:
    """What one client run produced."""

    client: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    home: Path

    def result_json(self) -> dict[str, object] | None:
        """Claude Code's ``--output-format json`` result object (``None`` when stdout is not one)."""
        try:
            doc = json.loads(self.stdout)
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    def codex_events(self) -> list[dict[str, object]]:
        """Codex ``exec --json`` events (one JSON object per line)."""
        events: list[dict[str, object]] = []
        for line in self.stdout.splitlines():
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if isinstance(doc, dict):
                events.append(doc)
        return events

    def describe(self) -> str:
        return (
            f"{self.client} exited {self.returncode} after {self.seconds:.1f}s\n"
            f"--- stdout (tail) ---\n{self.stdout[-3000:]}\n--- stderr (tail) ---\n{self.stderr[-3000:]}"
        )


def _run(client: str, command: list[str], env: dict[str, str], cwd: Path, home: Path, timeout: float) -> AgentRun:
    trace = env.pop("E2E_STRACE_TO", None)
    if trace:  # record the client's network system calls (see `foreign_connections`)
        command = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmmsg", "-o", trace, *command]
    start = time.monotonic()
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        code = -9
        out = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = (exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else exc.stderr or "") + (
            f"\n[e2e] timed out after {timeout:.0f}s"
        )
    return AgentRun(client, code, out, err, time.monotonic() - start, home)


def run_claude(
    base_url: str,
    api_key: str,
    prompt: str,
    home: Path,
    *,
    cache: Path | None = None,
    timeout: float = 1200,
    extra_env: Mapping[str, str] | None = None,
) -> AgentRun:
    """``claude -p PROMPT --allowedTools Bash --output-format json`` against ``base_url``, in a fresh ``home``."""
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": _PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": api_key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude Code refuses to run as root otherwise
    env.update(extra_env or {})
    command = [
        str(binary(CLAUDE_CODE, cache)),
        "-p",
        prompt,
        "--allowedTools",
        "Bash",
        "--output-format",
        "json",
    ]
    return _run("claude", command, env, work, home, timeout)


_CODEX_OFFLINE = "\n[analytics]\nenabled = false\n\n[features]\nplugins = false\n"


def codex_config(base_url: str, *, model: str = "gpt-5.5", extra: str = "") -> str:
    """A ``config.toml`` that points Codex at ``base_url`` with the Responses wire API and nothing else online."""
    return (
        f'model = "{model}"\n'
        'model_provider = "e2e"\n'
        "check_for_update_on_startup = false\n"
        f"{extra}"
        f"{_CODEX_OFFLINE}"
        "\n[model_providers.e2e]\n"
        'name = "contextfold e2e"\n'
        f'base_url = "{base_url}"\n'
        'env_key = "E2E_OPENAI_API_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 4\n"
        "stream_max_retries = 4\n"
    )


def run_codex(
    base_url: str,
    api_key: str,
    prompt: str,
    home: Path,
    *,
    cache: Path | None = None,
    timeout: float = 1200,
    config_extra: str = "",
    extra_env: Mapping[str, str] | None = None,
) -> AgentRun:
    """``codex exec --json ... PROMPT`` with ``CODEX_HOME`` holding a provider entry for ``base_url``."""
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    codex_home = home / "codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(codex_config(base_url, extra=config_extra), encoding="utf-8")
    env = {
        "PATH": _PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "CODEX_HOME": str(codex_home),
        "E2E_OPENAI_API_KEY": api_key,
    }
    env.update(extra_env or {})
    command = [
        str(binary(CODEX, cache)),
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--json",
        prompt,
    ]
    return _run("codex", command, env, work, home, timeout)


def run_codex_builtin(
    base_url: str,
    api_key: str,
    prompt: str,
    home: Path,
    *,
    cache: Path | None = None,
    timeout: float = 1200,
    config_extra: str = "",
) -> AgentRun:
    """Codex with its built-in OpenAI provider moved to ``base_url`` (``openai_base_url``; key in ``CODEX_API_KEY``).

    This provider compacts remotely (a ``compaction_trigger`` item) and tries a WebSocket first (about 6 s of
    retries before it falls back to HTTP), unlike a ``model_providers`` entry.
    """
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    codex_home = home / "codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    config = f'model = "gpt-5.5"\nopenai_base_url = "{base_url}"\ncheck_for_update_on_startup = false\n{config_extra}'
    (codex_home / "config.toml").write_text(config + _CODEX_OFFLINE, encoding="utf-8")
    env = {"PATH": _PATH, "HOME": str(home), "LANG": "C.UTF-8", "CODEX_HOME": str(codex_home), "CODEX_API_KEY": api_key}
    command = [
        str(binary(CODEX, cache)),
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--json",
        prompt,
    ]
    return _run("codex", command, env, work, home, timeout)


_ADDRESS = re.compile(r'inet_addr\("([0-9.]+)"\)|inet_pton\(AF_INET6, "([0-9a-f:.]+)"')


def foreign_connections(trace: Path) -> list[str]:
    """Network system calls in an strace log that go anywhere but the loopback interface (DNS lookups included)."""
    found: list[str] = []
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        if "htons(53)" in line:
            found.append(line)
            continue
        for v4, v6 in _ADDRESS.findall(line):
            if (v4 and not v4.startswith("127.")) or (v6 and v6 not in ("::1", "::ffff:127.0.0.1")):
                found.append(line)
    return found
