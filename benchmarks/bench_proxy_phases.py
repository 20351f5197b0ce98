"""Where a proxy request's time goes: the engine's request path timed phase by phase, per history size band.

The proxy's engine is driven in process (no HTTP) over the synthetic tool-heavy sessions of ``bench_proxy.py`` (two
growing to 200,000 tokens, each rendered in the three wire formats and grown turn by turn, the model's thinking time
between requests: ``Engine.settle``). Each phase is timed by wrapping the method that does it (wall clock, the
wrapper's own cost included, about a microsecond a call); a phase is reported as its median per request over the
requests of a band that do not compact (the ones that do are the compaction's business: ``bench_proxy.py
--engine-only``). ``first-sight cut`` is the whole cut of a new oversized tool result (split, item write, render),
``item write`` and ``split`` are parts of it; ``store write`` is the background compare-and-set of a new rewrite,
which starts after the response (here: at ``settle``, the model's turn) and is not part of the total.

    .venv/bin/python benchmarks/bench_proxy_phases.py --out benchmarks/results/proxy.md
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_proxy as bp
from contextfold._stores._sqlite import SQLiteStore
from contextfold._tokens._factory import make_counter
from contextfold._workspace import _local, _split
from contextfold.proxy import ProxyConfig
from contextfold.proxy import _engine as engine_module
from contextfold.proxy._wire import FORMATS

BANDS = ((0, 32_000), (32_000, 64_000), (64_000, 128_000), (128_000, 200_001))
BEGIN = "<!-- bench_proxy_phases.py:begin -->"
END = "<!-- bench_proxy_phases.py:end -->"
_acc: collections.Counter[str] = collections.Counter()


def _timed(owner: Any, name: str, label: str) -> None:
    """Wrap ``owner.name`` (a function or coroutine function) so that its wall clock adds up under ``label``."""
    fn = getattr(owner, name)
    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def awrapper(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*a, **k)
            finally:
                _acc[label] += time.perf_counter() - t

        setattr(owner, name, awrapper)
        return

    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            _acc[label] += time.perf_counter() - t

    setattr(owner, name, wrapper)


PHASES: list[tuple[Any, str, str]] = [
    (engine_module.Engine, "_prefix_of", "hash, chain and count (new messages only)"),
    (engine_module.Engine, "_offload", "first-sight cut (whole)"),
    (_split, "split_tool_result", "  of which split"),
    # The engine's probe split calls the name it imported (``from ... import split_tool_result``): wrapped too.
    (engine_module, "split_tool_result", "  of which split"),
    (engine_module, "output_fact_lines", "  of which fact lines"),
    (_local.LocalWorkspace, "offload_tool_result_payload", "  of which item write"),
    (SQLiteStore, "get_lineage", "store read"),
    (SQLiteStore, "put_lineage", "store write (background)"),
    (engine_module.Engine, "_assemble", "splice"),
    (engine_module.Engine, "_serialize", "serialize"),
    (engine_module, "lineage_of", "lineage identity"),
    (engine_module.Engine, "_maybe_compact", "compaction decision"),
]


async def run(formats: list[str]) -> dict[tuple[int, int], list[dict[str, float]]]:
    for owner, name, label in PHASES:
        _timed(owner, name, label)
    meter = bp.Meter()
    sessions = [bp.synthetic_session(200_000, 0), bp.synthetic_session(200_000, 1)]
    rows: dict[tuple[int, int], list[dict[str, float]]] = {b: [] for b in BANDS}
    with tempfile.TemporaryDirectory() as tmp:
        config = ProxyConfig(window=bp.WINDOW, state_dir=Path(tmp))
        engine = engine_module.Engine(config, SQLiteStore(Path(tmp) / "state.sqlite3"), make_counter())
        for fmt in formats:
            for session in sessions:
                headers = bp.request_headers(fmt, session)
                for turn in session.turns():
                    raw = orjson.dumps(bp.request_body(fmt, session, turn))
                    tokens = bp._tokens_of(meter, fmt, raw)
                    band = next((b for b in BANDS if b[0] <= tokens < b[1]), None)
                    _acc.clear()
                    started = time.perf_counter()
                    body = orjson.loads(raw)
                    _acc["parse (orjson, in the app)"] += time.perf_counter() - started
                    outcome = await engine.rewrite(FORMATS[fmt], body, headers, "t" * 32)  # type: ignore[index]
                    _acc["TOTAL (parse to serialized body)"] += time.perf_counter() - started
                    await engine.settle()  # the model's turn: the background store write happens here
                    if band is not None and not outcome.compacted:
                        rows[band].append({**_acc, "_bytes": len(raw), "_offloads": outcome.offloads})
        await engine.aclose()
        await engine.store.aclose()
    return rows


def table(rows: dict[tuple[int, int], list[dict[str, float]]]) -> list[str]:
    labels = ["parse (orjson, in the app)", *dict.fromkeys(label for _, _, label in PHASES)]
    labels.remove("store write (background)")
    labels += ["TOTAL (parse to serialized body)", "store write (background)"]
    names = [f"{lo // 1000}-{hi // 1000}k" for lo, hi in BANDS]
    out = [
        "| phase, ms per request (median; mean) | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(BANDS),
    ]
    for label in labels:
        cells = []
        for band in BANDS:
            values = [r.get(label, 0.0) * 1000 for r in rows[band]]
            cells.append(f"{statistics.median(values):.3f}; {statistics.fmean(values):.3f}" if values else "–")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    counts = []
    for band in BANDS:
        r = rows[band]
        if not r:
            counts.append("–")
            continue
        kb = statistics.median(x["_bytes"] for x in r) / 1000
        counts.append(f"{len(r)} ({sum(1 for x in r if x['_offloads'])} cut), {kb:.0f} KB")
    out.append("| requests (of which with a first-sight cut), median body | " + " | ".join(counts) + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", nargs="+", default=list(bp.FORMAT_NAMES), choices=bp.FORMAT_NAMES)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = asyncio.run(run(args.formats))
    command = "python benchmarks/bench_proxy_phases.py " + " ".join(argv if argv is not None else sys.argv[1:])
    machine = f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores shared"
    lines = [
        "## Proxy: where a request's time goes (engine in process)",
        "",
        f"Command: `.venv/bin/{command.strip()}` ({machine}).",
        "",
        "The engine's request path timed phase by phase over the synthetic sessions of `bench_proxy.py` (two "
        "growing to 200,000 tokens, formats " + ", ".join(args.formats) + f", window {bp.WINDOW:,}), requests "
        "that do not compact, by client history size; phases not listed (the lock, the record's matching, the "
        "rewrite loop's checks) make up the rest of the total.",
        "",
        *table(rows),
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        bp.write_section(args.out, text, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
