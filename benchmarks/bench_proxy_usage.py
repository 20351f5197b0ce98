"""What the client believes: real vs virtual usage over a 500-turn session, request-body size and proxy cost.

A simulated client behaves like Claude Code (facts in /work/coord/clients.md): it resends its whole history each
turn with one cache breakpoint on its newest message, and compacts on its own when the usage it gets back passes
its threshold (its window minus about 33,000 tokens; 200,000 - 33,000 here), replacing its history by a summary
plus its last turn. Each turn adds a tool call and a 1.5-3k-token tool output. The proxy (window 64,000) sits in
front; its own work per request (parse, hash, count, splice, compact, serialize: everything but the network) is
timed. With ``real`` usage the client is told the forwarded (compacted) size and never compacts, so its body grows
all session; with ``virtual`` usage it is told the size of the history it sent and compacts as it would without the
proxy. Also measured: what the client's own compaction request costs through the proxy (tokens forwarded) against
sending it direct.

Run: .venv/bin/python benchmarks/bench_proxy_usage.py [--turns 500] [--out benchmarks/results/proxy.md]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from contextfold._stores._sqlite import SQLiteStore
from contextfold._tokens._factory import make_counter
from contextfold.proxy import ProxyConfig
from contextfold.proxy._engine import Engine
from contextfold.proxy._wire import FORMATS

WINDOW = 64_000
CLIENT_THRESHOLD = 200_000 - 33_000
SYSTEM = [
    {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332;"},
    {"type": "text", "text": "You are a coding agent. " * 300, "cache_control": {"type": "ephemeral"}},
]
TOOLS = [
    {"name": name, "description": f"The {name} tool. " * 40, "input_schema": {"type": "object", "properties": {}}}
    for name in ("Bash", "Read", "Edit", "Write", "Grep", "Glob")
]
COMPACT_PROMPT = (
    "CRITICAL: Respond with TEXT ONLY. Your task is to create a detailed summary of the conversation so far."
)
CODEX_THRESHOLD = 244_800
"""Codex's default auto-compact limit for gpt-5.5 (90 % of 272k; clients.md)."""
CODEX_COMPACT_PROMPT = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM."
CODEX_PREAMBLE = [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex. " * 900}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix every failing module."}]},
]
CODEX_TOOLS = [
    {
        "type": "function",
        "name": "exec_command",
        "description": "Run a command. " * 60,
        "parameters": {"type": "object"},
    }
]


def _codex_body(items: list[Any], *, compaction: bool = False) -> dict[str, Any]:
    return {
        "model": "gpt-5.5",
        "stream": True,
        "input": items,
        "tools": [] if compaction else CODEX_TOOLS,
        "parallel_tool_calls": not compaction,
        "store": False,
        "prompt_cache_key": "bench-codex",
    }


async def run_codex(mode: str, turns: int) -> dict[str, Any]:
    """A Codex-like Responses client: its local compaction request is the history plus a prompt, with no tools."""
    with tempfile.TemporaryDirectory() as tmp:
        config = ProxyConfig(window=WINDOW, state_dir=Path(tmp), usage=mode)  # type: ignore[arg-type]
        engine = Engine(config, SQLiteStore(Path(tmp) / "state.sqlite3"), make_counter())
        fmt = FORMATS["responses"]
        headers = {"session-id": f"bench-codex-{mode}"}
        history: list[Any] = list(CODEX_PREAMBLE)
        rows: list[dict[str, Any]] = []
        client_compactions: list[dict[str, Any]] = []
        for n in range(turns):
            raw = orjson.dumps(_codex_body(history))
            started = time.perf_counter()
            outcome = await engine.rewrite(fmt, orjson.loads(raw), headers, "c" * 32)
            seconds = time.perf_counter() - started
            await engine.settle()  # the model's turn: background compactions finish meanwhile
            forwarded = outcome.body if outcome.body is not None else raw
            rows.append(
                {
                    "turn": n + 1,
                    "body": len(raw),
                    "forwarded": len(forwarded),
                    "before": outcome.tokens_before,
                    "after": outcome.tokens_after,
                    "seconds": seconds,
                    "compacted": outcome.compacted,
                }
            )
            reported = outcome.tokens_before if mode == "virtual" else outcome.tokens_after
            if reported >= CODEX_THRESHOLD:
                prompt = {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": CODEX_COMPACT_PROMPT}],
                }
                body = _codex_body([*history, prompt], compaction=True)
                started = time.perf_counter()
                out = await engine.rewrite(fmt, body, headers, "c" * 32)
                client_compactions.append(
                    {
                        "turn": n + 1,
                        "direct": out.tokens_before,
                        "proxied": out.tokens_after,
                        "action": out.action,
                        "ms": (time.perf_counter() - started) * 1000,
                    }
                )
                summary = (
                    "Another language model started to solve this problem and produced a summary: " + "done. " * 1500
                )
                history = [
                    *CODEX_PREAMBLE,
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]},
                ]
            call_id = f"call_{n:05d}"
            history.append(
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": f'{{"cmd": "make m{n}"}}',
                    "call_id": call_id,
                }
            )
            history.append({"type": "function_call_output", "call_id": call_id, "output": tool_output(n)})
        await engine.aclose()
        await engine.store.aclose()
        return {"rows": rows, "client": client_compactions}


def tool_output(n: int) -> str:
    rows = 120 + (n * 37) % 140
    return "\n".join(
        f"[{n:04d}:{i:03d}] src/module_{n % 17}/file_{i}.py: compiled {i * n % 997} symbols" for i in range(rows)
    )


def _with_breakpoint(history: list[Any]) -> list[Any]:
    out = list(history)
    last = dict(out[-1])
    content = last["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    last["content"] = [*content[:-1], {**content[-1], "cache_control": {"type": "ephemeral"}}]
    out[-1] = last
    return out


def _body(messages: list[Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "messages": messages, "system": SYSTEM, "tools": TOOLS, "max_tokens": 32000}


async def run(mode: str, turns: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = ProxyConfig(window=WINDOW, state_dir=Path(tmp), usage=mode)  # type: ignore[arg-type]
        engine = Engine(config, SQLiteStore(Path(tmp) / "state.sqlite3"), make_counter())
        fmt = FORMATS["anthropic"]
        headers = {"x-claude-code-session-id": f"bench-{mode}"}
        history: list[Any] = [{"role": "user", "content": "Fix every failing module in the build."}]
        rows: list[dict[str, Any]] = []
        client_compactions: list[dict[str, int]] = []
        for n in range(turns):
            raw = orjson.dumps(_body(_with_breakpoint(history)))
            started = time.perf_counter()
            body = orjson.loads(raw)
            outcome = await engine.rewrite(fmt, body, headers, "b" * 32)
            forwarded = outcome.body if outcome.body is not None else raw
            seconds = time.perf_counter() - started
            await engine.settle()  # the model's turn: background compactions finish meanwhile
            rows.append(
                {
                    "turn": n + 1,
                    "body": len(raw),
                    "forwarded": len(forwarded),
                    "before": outcome.tokens_before,
                    "after": outcome.tokens_after,
                    "seconds": seconds,
                    "compacted": outcome.compacted,
                }
            )
            reported = outcome.tokens_before if mode == "virtual" else outcome.tokens_after
            if reported >= CLIENT_THRESHOLD:
                # The client's own compaction request: the same history plus its prompt on the last user turn.
                last = history[-1]
                request = [
                    *history[:-1],
                    {**last, "content": [*last["content"], {"type": "text", "text": COMPACT_PROMPT}]},
                ]
                started = time.perf_counter()
                out = await engine.rewrite(fmt, orjson.loads(orjson.dumps(_body(request))), headers, "b" * 32)
                client_compactions.append(
                    {
                        "turn": n + 1,
                        "direct": out.tokens_before,
                        "proxied": out.tokens_after,
                        "action": out.action,
                        "ms": (time.perf_counter() - started) * 1000,
                    }
                )
                summary = "This session is being continued from a previous conversation. Summary:\n" + "done. " * 1500
                history = [{"role": "user", "content": summary}, *history[-2:]]
            history.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Step {n}: building module {n % 17}."},
                        {
                            "type": "tool_use",
                            "id": f"toolu_{n:05d}",
                            "name": "Bash",
                            "input": {"command": f"make m{n}"},
                        },
                    ],
                }
            )
            history.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n:05d}", "content": tool_output(n)}],
                }
            )
        await engine.aclose()
        await engine.store.aclose()
        return {"rows": rows, "client": client_compactions}


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p50 = statistics.median(values) * 1000
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))] * 1000
    return f"{p50:.2f} / {p99:.2f}"


def _slope(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """ms per MB of request body, second and last fifth of the session (equal when the work is linear).

    The first fifth is left out: there every message is counted for the first time (counts are cached by hash).
    """
    k = max(1, len(rows) // 5)

    def per_mb(part: list[dict[str, Any]]) -> float:
        plain = [r for r in part if not r["compacted"]] or part
        return sum(r["seconds"] for r in plain) * 1000 / (sum(r["body"] for r in plain) / 1e6)

    return per_mb(rows[k : 2 * k]), per_mb(rows[-k:])


def report(results: dict[str, dict[str, Any]], turns: int, command: str) -> str:
    lines = [
        "## Proxy: real vs virtual usage",
        "",
        f"Command: `{command}` (Python {platform.python_version()}, {platform.machine()}, 2 cores shared).",
        "",
        f"A simulated Claude Code-like client ({turns} turns, one tool call with a 1.5-3k-token output per turn, "
        "system "
        f"and tools about 5k tokens, its own compaction at {CLIENT_THRESHOLD:,} reported tokens) through the proxy "
        f"(window {WINDOW:,}, calibrated counter). Proxy time is the proxy's own work per request (parse, hash, "
        "count, splice, compact, serialize), network excluded. The `codex` rows: a Codex-like Responses client "
        f"(same outputs, about 3k tokens of developer prompt and tools), compacting itself at {CODEX_THRESHOLD:,} "
        "reported tokens with its local compaction request (the history plus a prompt, `tools: []`). Codex's "
        "remote `/v1/responses/compact` is relayed untouched (not parsed), so it costs what it costs direct.",
        "",
        "| usage | client compactions | proxy compactions | max body sent by the client | max forwarded | "
        "proxy ms p50 / p99 | proxy ms per MB of body, requests without compaction (2nd / last fifth) |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode, res in results.items():
        rows = res["rows"]
        first, last = _slope(rows)
        lines.append(
            f"| {mode} | {len(res['client'])} | {sum(r['compacted'] for r in rows)} | "
            f"{max(r['body'] for r in rows) / 1e6:.2f} MB | {max(r['forwarded'] for r in rows) / 1e3:.0f} KB | "
            f"{_ms([r['seconds'] for r in rows])} | {first:.1f} / {last:.1f} |"
        )
    lines += ["", "Per checkpoint (body the client sent, tokens before -> after, proxy ms):", ""]
    marks = sorted({1, 50, 100, 200, 300, 400, turns} & set(range(1, turns + 1)))
    lines.append("| turn | " + " | ".join(f"{m} body / tokens / ms" for m in results) + " |")
    lines.append("|---|" + "---|" * len(results))
    for t in marks:
        cells = []
        for res in results.values():
            r = res["rows"][t - 1]
            cells.append(f"{r['body'] / 1e3:.0f} KB / {r['before']:,} -> {r['after']:,} / {r['seconds'] * 1000:.2f}")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "The client's own compaction requests through the proxy (tokens forwarded vs sending them direct):",
        "",
    ]
    for mode, res in results.items():
        client = res["client"]
        if not client:
            lines.append(f"- {mode}: the client never compacted (it was told at most {WINDOW:,}-ish tokens).")
            continue
        direct = sum(c["direct"] for c in client)
        proxied = sum(c["proxied"] for c in client)
        actions = sorted({c["action"] for c in client})
        ms = sorted(c["ms"] for c in client)
        lines.append(
            f"- {mode}: {len(client)} compaction requests, {proxied:,} tokens forwarded instead of {direct:,} direct "
            f"({proxied / direct:.2f}x); proxy action {', '.join(actions)}; proxy ms median {ms[len(ms) // 2]:.1f}, "
            f"max {ms[-1]:.1f}."
        )
    lines += [
        "",
        "Reading: with real usage (the default) the client's body grows all session (it never compacts) and the "
        "proxy's cost grows with it, linearly (the ms per MB stays flat from the second to the last fifth of the "
        "session); with virtual usage the client compacts itself near its own threshold, so its bodies stay "
        "bounded, at the price of its own summarization call and a history the client rewrote. Claude Code's "
        "compaction request has the system prompt and tools of its lineage, so the proxy splices its stored "
        "replacement into it; Codex's local one drops the tools, which makes it a lineage of its own: it goes out "
        "as sent when under the trigger, else it is compacted afresh (a cache write of its own either way).",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = {mode: asyncio.run(run(mode, args.turns)) for mode in ("real", "virtual")}
    results.update({f"codex {mode}": asyncio.run(run_codex(mode, args.turns)) for mode in ("real", "virtual")})
    command = ".venv/bin/python benchmarks/bench_proxy_usage.py" + (
        f" --turns {args.turns}" if args.turns != 500 else ""
    )
    text = report(results, args.turns, command + (f" --out {args.out}" if args.out else ""))
    if args.out:
        from bench_proxy import write_section

        # Its own section of the file: bench_proxy.py writes the side-by-side sections around it.
        write_section(args.out, text, "<!-- bench_proxy_usage.py:begin -->", "<!-- bench_proxy_usage.py:end -->")
    print(text)


if __name__ == "__main__":
    main()
