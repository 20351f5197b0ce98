"""Several real ``contextfold proxy`` processes for the scale-out tests, and a scripted session to send through them.

`Replica` starts the console script as a child process on a free loopback port (its own ``--state`` folder,
so anything it shares with the others goes through ``--store`` and ``--workspace-url``) and waits for
``/healthz``; ``kill()`` is SIGKILL. `session_requests` is a deterministic agent session in the Anthropic
format: turn after turn of shell calls whose outputs grow the history past the window several times, some
large enough to be cut and offloaded. `drive` sends the requests, request ``n`` to replica ``pick(n)``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import orjson

import servers

KEY = "sk-ant-api03-scale-out-test-key-0000000000"
WINDOW = 8000
CONSOLE = str(Path(sys.executable).with_name("contextfold"))


@dataclass
class Replica:
    """One ``contextfold proxy`` child process."""

    upstream: str
    state: Path
    store: str | None = None
    workspace_url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    extra: Sequence[str] = ()
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> Replica:
        self.port = servers.free_port()
        args = [CONSOLE, "proxy", "--port", str(self.port), "--window", str(WINDOW), "--quiet"]
        args += ["--anthropic-upstream", self.upstream, "--openai-upstream", self.upstream + "/v1"]
        args += ["--state", str(self.state), *self.extra]
        if self.store:
            args += ["--store", self.store]
        if self.workspace_url:
            args += ["--workspace-url", self.workspace_url]
        log = open(self.state.with_suffix(".log"), "ab")  # noqa: SIM115 - the child writes it until it ends
        env = {**os.environ, **self.env}
        self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"replica exited with {self.process.returncode}: {self.log_text()[-2000:]}")
            try:
                if httpx2.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx2.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"replica did not answer /healthz: {self.log_text()[-2000:]}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        try:
            return self.state.with_suffix(".log").read_text(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, nothing written after this instant."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


def start_replicas(n: int, folder: Path, upstream: str, **settings: Any) -> list[Replica]:
    """``n`` replicas with their own state folders and the same store and workspace settings."""
    folder.mkdir(parents=True, exist_ok=True)
    replicas = [Replica(upstream, folder / f"replica-{i}", **settings) for i in range(n)]
    try:
        for r in replicas:
            r.start()
    except BaseException:
        for r in replicas:
            r.stop()
        raise
    return replicas


def _output(turn: int) -> str:
    """A shell command's output: mostly a few hundred tokens, every seventh one far over the result limit."""
    rows = 900 if turn % 7 == 3 else 40 + (turn * 13) % 50
    return "\n".join(
        f"{turn:03d}-{i:04d} /srv/app/src/module_{(turn * 31 + i) % 97}.py: ok {i * turn}" for i in range(rows)
    )


def session_requests(turns: int = 30) -> list[bytes]:
    """The request bodies a client sends over ``turns`` tool calls, each the whole history so far (bytes)."""
    messages: list[Any] = [{"role": "user", "content": "Audit every module of /srv/app and report problems."}]
    bodies: list[bytes] = []
    for turn in range(turns):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Step {turn}: listing the next part."},
                    {"type": "tool_use", "id": f"toolu_{turn:04d}", "name": "Bash", "input": {"command": f"ls {turn}"}},
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn:04d}", "content": _output(turn)}],
            }
        )
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 256,
            "system": [{"type": "text", "text": "You are a careful auditor."}],
            "tools": [{"name": "Bash", "description": "run a command", "input_schema": {"type": "object"}}],
            "messages": messages,
        }
        bodies.append(orjson.dumps(body))
    return bodies


@dataclass
class Sent:
    """What one request did: the replica that served it and the headers the proxy answered with."""

    replica: int
    status: int
    compacted: bool
    session: str


def drive(
    replicas: Sequence[Replica],
    bodies: Sequence[bytes],
    pick: Callable[[int], int],
    *,
    before: Callable[[int], None] | None = None,
) -> list[Sent]:
    """Send ``bodies`` in order, body ``n`` to ``replicas[pick(n)]``; ``before(n)`` runs first (to kill, restart)."""
    out: list[Sent] = []
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json"}
    with httpx2.Client(timeout=120) as client:
        for n, body in enumerate(bodies):
            if before is not None:
                before(n)
            i = pick(n)
            reply = client.post(replicas[i].url + "/v1/messages", content=body, headers=headers)
            out.append(
                Sent(
                    replica=i,
                    status=reply.status_code,
                    compacted=reply.headers.get("x-contextfold-compacted") == "true",
                    session=reply.headers.get("x-contextfold-session", ""),
                )
            )
    return out


def stop_all(replicas: Sequence[Replica]) -> None:
    for r in replicas:
        r.stop()
