"""Record the anonymized sample requests in ``tests/e2e/samples/`` from short real sessions of both clients.

Usage: ``python tests/e2e/record_samples.py`` (needs the clients: ``make e2e`` installs them). Each sample is one
request as the scripted upstream received it (method, path, headers, body), shrunk for the repository: every
string longer than 240 characters keeps its first 160 and last 60 characters around a ``[... N chars ...]``
marker (the same string always shrinks the same way, so prefix relations between samples survive), the temporary
home becomes ``/home/e2e``, the fake keys become ``sk-e2e-sample-key``. Structure, key order, ``cache_control``
placement and string-versus-block forms are kept as sent.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import agent_clients as agents
from sample_requests import SAMPLE_KEY, SAMPLES
from session import CLIENT_KEYS, PROMPT
from upstream import Recorded, ShellScript, Upstream, large_output_commands

_KEEP_HEAD, _KEEP_TAIL, _LIMIT = 160, 60, 240


def shrink(value: Any, home: str) -> Any:
    """``value`` with long strings cut in the middle and the temporary home replaced."""
    if isinstance(value, str):
        text = value.replace(home, "/home/e2e")
        for key in CLIENT_KEYS.values():
            text = text.replace(key, SAMPLE_KEY)
        if len(text) > _LIMIT:
            cut = len(text) - _KEEP_HEAD - _KEEP_TAIL
            text = f"{text[:_KEEP_HEAD]}[... {cut} chars ...]{text[-_KEEP_TAIL:]}"
        return text
    if isinstance(value, dict):
        return {k: shrink(v, home) for k, v in value.items()}
    if isinstance(value, list):
        return [shrink(v, home) for v in value]
    return value


def sample(recorded: Recorded, client: agents.Client, home: str, note: str) -> dict[str, Any]:
    headers = [[k, shrink(v, home)] for k, v in recorded.headers if k.lower() not in ("host", "content-length")]
    return {
        "note": note,
        "client": f"{client.package}@{client.version}",
        "method": recorded.method,
        "path": recorded.path,
        "headers": headers,
        "body": shrink(recorded.json(), home),
    }


def _write(name: str, doc: dict[str, Any]) -> None:
    path = SAMPLES / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(SAMPLES.parent)} ({path.stat().st_size:,} bytes)")


def _session(client: str, extra: dict[str, str], config: str, remote: bool = False) -> tuple[list[Recorded], str]:
    script = ShellScript(large_output_commands(8, 1000), thinking_every=2, parallel_every=3, patch_every=2)
    home = Path(tempfile.mkdtemp(prefix="e2e-samples-"))
    # The upstream reports bytes as tokens, so a small session crosses the clients' compaction thresholds.
    with Upstream(script, tokens=len) as upstream:
        if client == "claude":
            run = agents.run_claude(upstream.url, CLIENT_KEYS["claude"], PROMPT, home, extra_env=extra)
        elif remote:
            run = agents.run_codex_builtin(
                upstream.url + "/v1", CLIENT_KEYS["codex"], PROMPT, home, config_extra=config
            )
        else:
            run = agents.run_codex(upstream.url + "/v1", CLIENT_KEYS["codex"], PROMPT, home, config_extra=config)
        if run.returncode != 0:
            raise SystemExit(run.describe())
        return upstream.recorded(), str(home)


def _pick(requests: list[Recorded]) -> tuple[list[Recorded], Recorded, Recorded]:
    main = [r for r in requests if r.role == "main"]
    compact = next(r for r in requests if r.role == "compact")
    after = next(r for r in main if r.index > compact.index)
    return main[:3], compact, after


def main() -> int:
    problem = agents.missing()
    if problem:
        print(f"clients missing: {problem} (run `make e2e` first)", file=sys.stderr)
        return 1
    requests, home = _session("claude", {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}, "")
    turns, compact, after = _pick(requests)
    for i, r in enumerate(turns):
        _write(f"claude_code/turn-{i}.json", sample(r, agents.CLAUDE_CODE, home, f"main conversation, request {i}"))
    _write("claude_code/compact-request.json", sample(compact, agents.CLAUDE_CODE, home, "its auto-compact request"))
    _write("claude_code/after-compact.json", sample(after, agents.CLAUDE_CODE, home, "first request after it"))

    requests, home = _session("codex", {}, "model_auto_compact_token_limit = 60000\n")
    turns, compact, after = _pick(requests)
    for i, r in enumerate(turns):
        _write(f"codex/turn-{i}.json", sample(r, agents.CODEX, home, f"main conversation, request {i}"))
    _write(
        "codex/compact-local-request.json", sample(compact, agents.CODEX, home, "local compaction (custom provider)")
    )
    _write("codex/after-compact-local.json", sample(after, agents.CODEX, home, "first request after it"))

    requests, home = _session("codex", {}, "model_auto_compact_token_limit = 60000\n", remote=True)
    turns, compact, after = _pick(requests)
    note = "remote compaction v2 (built-in openai provider, openai_base_url): ends in a compaction_trigger item"
    _write("codex/compact-remote-request.json", sample(compact, agents.CODEX, home, note))
    _write("codex/after-compact-remote.json", sample(after, agents.CODEX, home, "first request after it"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
