"""``contextfold demo --json`` on the shipped transcript: context-layer overhead per turn and tokens vs. a naive loop.

Usage: .venv/bin/python benchmarks/bench_demo.py [--repeat R] [--window N ...] [--write]

Each run replays the shipped 260-message session through the agent loop
(`contextfold demo --json`, in-process). Overhead per turn is the loop's time
outside the model and the tools (steering, prepare/compaction, guard,
offload, append), event handlers excluded. Per window the table shows the
median over runs of each run's median and p99, the worst p99, the tokens
sent, the naive loop's tokens and the compactions. ``--write`` rewrites
benchmarks/results/demo.md.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import tempfile
from pathlib import Path
from typing import Any

from contextfold._cli import main as cli_main

RESULTS = Path(__file__).parent / "results" / "demo.md"


def demo(window: int) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        code = cli_main(["demo", "--json", "--window", str(window), "--workspace", tmp], stdout=out, stderr=err, env={})
    if code != 0:
        raise SystemExit(err.getvalue())
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--window", type=int, nargs="+", default=[16_000, 32_000, 64_000])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    demo(args.window[0])  # warm-up: imports, the gzip read, caches
    rows = []
    for window in args.window:
        runs = [demo(window) for _ in range(args.repeat)]
        first = runs[0]
        rows.append(
            {
                "window": window,
                "turns": first["turns"],
                "median": statistics.median(r["overhead_ms_median"] for r in runs),
                "p99": statistics.median(r["overhead_ms_p99"] for r in runs),
                "p99_worst": max(r["overhead_ms_p99"] for r in runs),
                "seconds": statistics.median(r["seconds"] for r in runs),
                "tokens_sent": first["tokens_sent"],
                "naive_tokens": first["naive_tokens"],
                "saved": first["saved_ratio"],
                "peak": first["peak_tokens"],
                "naive_peak": first["naive_peak_tokens"],
                "compactions": first["compactions"],
                "offloaded": first["offloaded_results"],
                "pairs_intact": all(r["pairs_intact"] for r in runs),
            }
        )
    header = (
        "| window | turns | overhead median ms | overhead p99 ms (worst run) | replay s | tokens sent | naive loop "
        "| saved | largest request (naive) | compactions | offloaded | pairs intact |"
    )
    lines = [header, "|" + "---:|" * 11 + "---|"]
    for r in rows:
        lines.append(
            f"| {r['window']:,} | {r['turns']} | {r['median']:.2f} | {r['p99']:.2f} ({r['p99_worst']:.2f}) "
            f"| {r['seconds']:.2f} | {r['tokens_sent']:,} | {r['naive_tokens']:,} | {r['saved']:.0%} "
            f"| {r['peak']:,} ({r['naive_peak']:,}) | {r['compactions']} | {r['offloaded']} "
            f"| {'yes' if r['pairs_intact'] else 'NO'} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.write:
        windows = " ".join(str(w) for w in args.window)
        RESULTS.write_text(
            f"""## `contextfold demo`: overhead of the context layer and tokens sent vs. a naive loop

The demo replays the shipped session (`swebench-verified/sympy__sympy-13091`, 260 messages, 129 model
calls; see `src/contextfold/data/README.md`) through the agent loop on the embedded defaults (the
Context's default compaction, byte estimator, local workspace, full guard with fence) and checks every
prepared request against the OpenAI and Anthropic pairing rules.

- **Overhead per turn**: wall time of one loop step minus the model call, the tool calls and the event
  handlers: draining steering, `prepare()` (compaction when over the trigger, hints), the guard, the
  split/offload of large results (workspace writes included) and the appends. Median and p99 (nearest
  rank) over the 129 turns of one run, then the median over {args.repeat} runs; in brackets the worst run's p99.
- **Naive loop**: sends the whole recorded history (plus tool schemas) on every call, same byte estimator.
  Its largest request is far beyond every window here: it would fail, not just cost more.

Command: `.venv/bin/python benchmarks/bench_demo.py --repeat {args.repeat} --window {windows} --write`
(each run is `contextfold demo --json --window N --workspace TMP`, in-process).
Machine: {os.cpu_count()} cores, {cpu()}, Python {platform.python_version()}, shared with other jobs (p99 is noisy).

{table}

Reading: a turn that does not compact costs the context layer well under a millisecond (the median).
The p99 is set by the turns that compact ({rows[0]["compactions"]} of {rows[0]["turns"]} at a
{rows[0]["window"]:,}-token window): planning the compaction and writing its archive to the
workspace take milliseconds (the p99 column), so re-run this benchmark when the default strategy
changes. The whole replay takes well under a second; on a terminal
`contextfold demo` paces itself (`--delay`, 0.03 s per model call) so the live view can be followed.
"""
        )


if __name__ == "__main__":
    main()
