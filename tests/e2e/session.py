"""One end-to-end session: a real client, a middle hop, the scripted upstream, and the checks over what arrived.

`run_session` starts the upstream, puts the hop in front of it, runs the client to the end of its task and
returns a `Session` with everything recorded and every check computed, so tests only assert.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import agent_clients as agents
import hops
import wire_checks as checks
from upstream import Recorded, ShellScript, Upstream, large_output_commands

import contextfold

__all__ = ["CLIENT_KEYS", "HopFactory", "Session", "direct_hop", "passthrough_hop", "proxy_hop", "run_session"]

Client = Literal["claude", "codex"]
HopFactory = Callable[[str, Path], AbstractContextManager[hops.Hop]]

# Fake keys, distinct per client, shaped like real ones (the check compares them byte for byte).
CLIENT_KEYS: dict[Client, str] = {
    "claude": "sk-ant-api03-e2eKEY-claude-0123456789abcdef-AA",
    "codex": "sk-proj-e2eKEY-codex-0123456789abcdef",
}

PROMPT = (
    "E2E-TASK: run, one at a time, each shell command the environment asks for, then report when all ran. "
    "Do not summarize the outputs."
)


@dataclass
class Session:
    """What one run produced, and the four checks over it."""

    client: Client
    hop: str
    run: agents.AgentRun
    script: ShellScript
    requests: list[Recorded]
    window: int
    fit: checks.FitReport
    pairing: checks.PairingReport
    prefix: checks.PrefixReport
    key: checks.KeyReport
    proxy_log: str = ""
    parts: dict[str, int] = field(default_factory=dict)

    def main_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.role == "main"]

    def finished(self) -> list[str]:
        """Why the client did not finish its task (empty when it did)."""
        why: list[str] = []
        if self.run.returncode != 0:
            why.append(f"{self.client} exited {self.run.returncode}")
        if not self.script.finished:
            why.append(f"the script did not reach its final answer ({self.script.steps_done} results)")
        missing = [i for i in range(len(self.script.commands)) if i not in self.script.observed]
        if missing:
            why.append(f"no result came back for commands {missing[:10]}")
        if self.client == "claude":
            result = self.run.result_json() or {}
            if result.get("result") != self.script.final_text or result.get("is_error"):
                why.append(
                    f"claude's result is {str(result.get('result'))[:200]!r} (is_error={result.get('is_error')})"
                )
        else:
            texts = [
                str(item.get("text"))
                for event in self.run.codex_events()
                if event.get("type") == "item.completed"
                for item in [event.get("item")]
                if isinstance(item, dict) and item.get("type") == "agent_message"
            ]
            if self.script.final_text not in texts:
                why.append(f"codex's last message is {texts[-1:]!r}")
        return why

    def missing_end_markers(self) -> list[int]:
        """Commands whose result, as the upstream saw it, lacks the ``END-<i>`` line the command prints last."""
        return [i for i, text in sorted(self.script.observed.items()) if f"END-{i}" not in text]

    def summary(self) -> dict[str, object]:
        """The numbers a human wants to see after a run (also written as JSON next to the run)."""
        kinds: dict[str, int] = {}
        for r in self.requests:
            label = f"{r.kind}/{r.role}" + (f"/{r.status}" if r.status != 200 else "")
            kinds[label] = kinds.get(label, 0) + 1
        return {
            "client": self.client,
            "hop": self.hop,
            "seconds": round(self.run.seconds, 1),
            "returncode": self.run.returncode,
            "commands": len(self.script.commands),
            "results": self.script.steps_done,
            "results_without_end_marker": len(self.missing_end_markers()),
            "turns": self.script.turns,
            "patches": len(self.script.patches),
            "subagents": len(self.script.subagents),
            "requests": kinds,
            "window": self.window,
            "max_tokens": self.fit.max_tokens,
            "over_window": len(self.fit.problems),
            "pairing_problems": len(self.pairing.problems),
            "prefix": self.prefix.summary(),
            "key_problems": len(self.key.problems),
            "first_request_tokens": self.parts,
            "max_body_bytes": max((len(r.body) for r in self.requests), default=0),
        }

    def describe(self) -> str:
        """Everything needed to debug a failed assertion."""
        out = [json.dumps(self.summary(), indent=1), self.run.describe()]
        if self.proxy_log:
            out.append("--- proxy log (tail) ---\n" + self.proxy_log)
        return "\n".join(out)


def run_session(
    client: Client,
    hop: HopFactory,
    home: Path,
    *,
    cache: Path | None = None,
    commands: int = 64,
    lines: int = 1500,
    window: int = 40_000,
    thinking_every: int = 4,
    parallel_every: int = 8,
    patch_every: int = 10,
    subagent_every: int = 30,
    claude_env: dict[str, str] | None = None,
    codex_config: str = "",
    codex_env: dict[str, str] | None = None,
    timeout: float = 1800,
) -> Session:
    """Run ``client`` through ``hop`` on a ``commands``-step shell session; compute every check at ``window``."""
    script = ShellScript(
        large_output_commands(commands, lines),
        thinking_every=thinking_every,
        parallel_every=parallel_every,
        patch_every=patch_every,
        subagent_every=subagent_every,
    )
    key = CLIENT_KEYS[client]
    with Upstream(script) as upstream, hop(upstream.url, home / "hop") as middle:
        if client == "claude":
            run = agents.run_claude(
                middle.anthropic_url, key, PROMPT, home, cache=cache, timeout=timeout, extra_env=claude_env
            )
        else:
            run = agents.run_codex(
                middle.openai_url,
                key,
                PROMPT,
                home,
                cache=cache,
                timeout=timeout,
                config_extra=codex_config,
                extra_env=codex_env,
            )
        proxy_log = middle.log_tail()
        requests = upstream.recorded()
    counter = contextfold.make_counter()
    parsed = checks.parse_all(requests)
    parts = checks.part_tokens(parsed[0], counter) if parsed else {}
    session = Session(
        client=client,
        hop=middle.name,
        run=run,
        script=script,
        requests=requests,
        window=window,
        fit=checks.fit_report(parsed, window, counter),
        pairing=checks.pairing_report(parsed),
        prefix=checks.prefix_report(parsed, counter),
        key=checks.key_report(requests, key),
        proxy_log=proxy_log,
        parts=parts,
    )
    (home / "summary.json").write_text(json.dumps(session.summary(), indent=1), encoding="utf-8")
    return session


def direct_hop(upstream_url: str, _state: Path) -> AbstractContextManager[hops.Hop]:
    return hops.direct(upstream_url)


def proxy_hop(window: int) -> HopFactory:
    """``contextfold proxy --window WINDOW`` in the middle."""

    def factory(upstream_url: str, state: Path) -> AbstractContextManager[hops.Hop]:
        return hops.through_proxy(upstream_url, state, window=window)

    return factory


def passthrough_hop(upstream_url: str, state: Path) -> AbstractContextManager[hops.Hop]:
    """The pass-through stand-in in the middle (tests the through-proxy plumbing; compacts nothing)."""
    return hops.through_proxy(upstream_url, state, window=0, command=hops.passthrough_command, name="passthrough")
