"""Medians of the phase timings ``sitecustomize.py`` wrote, by request body size (see its docstring)."""

from __future__ import annotations

import json
import statistics
import sys

BANDS = ((0, 100_000), (100_000, 250_000), (250_000, 500_000), (500_000, 10**12))
PHASES = ("body_done", "read", "engine", "forward", "start_at", "total", "gc")


def main(path: str) -> int:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    print("| src | body | requests | " + " | ".join(PHASES) + " |")
    print("|---|---|---|" + "---|" * len(PHASES))
    for tree in sorted({r.get("tree", "") for r in rows}):
        for lo, hi in BANDS:
            band = [r for r in rows if r.get("tree", "") == tree and lo <= r["bytes"] < hi and "total" in r]
            if band:
                cells = [f"{statistics.median(r.get(p, 0.0) for r in band):.2f}" for p in PHASES]
                size = f"{lo // 1000}-{hi // 1000 if hi < 10**12 else ''} KB"
                print(f"| {tree} | {size} | {len(band)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
