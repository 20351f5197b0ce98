"""Paired A/B of the proxy engine's request time in process: this tree against another ``src`` (e.g. a merge base's).

Each side runs in its own process (``PYTHONPATH``), alternately, ``--rounds`` times; a run drives the engine over the
synthetic sessions of ``bench_proxy.py`` (``--sizes``, each in the three wire formats) exactly as
``bench_proxy_phases.py`` does and records every request's time (parse to serialized body). Requests are paired by
their place in the run (same input on both sides); reported per history band: each side's median, and the median of
the paired differences (each request's median over rounds first), requests that do not compact.

    git archive bb8f44e src | tar -x -C /tmp/base
    .venv/bin/python benchmarks/ab_proxy_engine.py --base-src /tmp/base/src
    .venv/bin/python benchmarks/ab_proxy_engine.py --base-src /tmp/base/src --clock cpu

``--clock cpu`` times each request by the CPU time of the engine's thread (``time.thread_time``) instead of the wall
clock: on a shared machine the time the process waits for a core is most of the noise (the base against a copy of
itself: within 0.02 ms per band with ``cpu``, 0.1-0.5 ms with ``wall``); the engine's work runs on that thread (a
non-durable workspace writes inline), and requests that compact, whose digest runs in the worker, are left out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BANDS = ((0, 64_000), (64_000, 128_000), (128_000, 200_001), (200_001, 10**9))


async def _one(sizes: list[int], clock: str = "wall") -> list[tuple[int, float, bool]]:
    sys.path.insert(0, str(HERE))
    import orjson

    import bench_proxy as bp
    from contextfold._stores._sqlite import SQLiteStore
    from contextfold._tokens._factory import make_counter
    from contextfold.proxy import ProxyConfig
    from contextfold.proxy import _engine as engine_module
    from contextfold.proxy._wire import FORMATS

    meter = bp.Meter()
    now = time.thread_time if clock == "cpu" else time.perf_counter
    out: list[tuple[int, float, bool]] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = ProxyConfig(window=bp.WINDOW, state_dir=Path(tmp))
        engine = engine_module.Engine(config, SQLiteStore(Path(tmp) / "state.sqlite3"), make_counter())
        for fmt in bp.FORMAT_NAMES:
            for n, size in enumerate(sizes):
                session = bp.synthetic_session(size, n % 2)
                headers = bp.request_headers(fmt, session)
                for turn in session.turns():
                    raw = orjson.dumps(bp.request_body(fmt, session, turn))
                    tokens = bp._tokens_of(meter, fmt, raw)
                    started = now()
                    outcome = await engine.rewrite(FORMATS[fmt], orjson.loads(raw), headers, "t" * 32)  # type: ignore[index]
                    out.append((tokens, now() - started, bool(outcome.compacted)))
                    await engine.settle()
        await engine.aclose()
        await engine.store.aclose()
    return out


def _side(src: str, sizes: list[int], clock: str) -> list[tuple[int, float, bool]]:
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, __file__, "--child", clock, *map(str, sizes)]
    return [tuple(r) for r in json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True).stdout)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-src", required=True)
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 200_000, 300_000])
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="wall clock or the thread's CPU time")
    args = parser.parse_args(argv)
    runs: dict[str, list[list[tuple[int, float, bool]]]] = {"base": [], "this": []}
    for r in range(args.rounds):
        order = (
            (("base", args.base_src), ("this", args.src))
            if r % 2 == 0
            else (("this", args.src), ("base", args.base_src))
        )
        for name, src in order:
            runs[name].append(_side(src, args.sizes, args.clock))
    n = len(runs["base"][0])
    print(f"| band | requests | base ms p50 ({args.clock}) | this ms p50 | paired difference ms p50 (this - base) |")
    print("|---|---|---|---|---|")
    for lo, hi in BANDS:
        idx = [
            i
            for i in range(n)
            if lo <= runs["base"][0][i][0] < hi and not any(x[i][2] for v in runs.values() for x in v)
        ]
        if not idx:
            continue
        med = {k: [statistics.median(x[i][1] for x in v) * 1000 for i in idx] for k, v in runs.items()}
        diff = statistics.median(t - b for t, b in zip(med["this"], med["base"], strict=True))
        name = f"{lo // 1000}-{hi // 1000}k" if hi < 10**9 else f">{lo // 1000}k"
        base, this = statistics.median(med["base"]), statistics.median(med["this"])
        print(f"| {name} | {len(idx)} | {base:.3f} | {this:.3f} | {diff:+.3f} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(asyncio.run(_one([int(x) for x in sys.argv[3:]], sys.argv[2]))))
        sys.exit(0)
    sys.exit(main())
