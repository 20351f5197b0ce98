"""Import cost: ``import contextfold`` in a fresh process against its own dependencies, side by side.

contextfold's own share is the difference between the two medians: ``import contextfold`` pays for pydantic,
orjson and asyncio too (the baseline imports exactly those), so the difference is what contextfold adds.
Runs alternate (contextfold, baseline, contextfold, ...) so load on the shared machine hits both alike. Each
run is a fresh interpreter; the time is the import statement alone, measured inside the child with
``perf_counter`` (interpreter start-up is the same for both and left out), and also the child's whole wall time.

Run: .venv/bin/python benchmarks/bench_import.py [--runs 15] [--no-write]
Writes benchmarks/results/import.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "import.md"

SUBJECTS: dict[str, str] = {
    "contextfold": "import contextfold",
    "baseline (pydantic, orjson, asyncio)": "import pydantic, orjson, asyncio",
    # Informative: ``import pydantic`` is lazy; any module defining a model also loads BaseModel's machinery.
    "baseline + pydantic.BaseModel": "import pydantic, orjson, asyncio; from pydantic import BaseModel",
}
_CHILD = "import time; t0 = time.perf_counter(); {stmt}; print(time.perf_counter() - t0)"
TARGET_MS = 100.0


def one_run(stmt: str) -> tuple[float, float]:
    """(import time, whole process wall time) in ms for ``stmt`` in a fresh interpreter."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(stmt=stmt)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    ).stdout
    wall = time.perf_counter() - t0
    return float(out.strip().splitlines()[-1]) * 1000, wall * 1000


def measure(runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Alternating runs of every subject, after one warm-up each (fills the OS page cache and .pyc files)."""
    data: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in SUBJECTS}
    for stmt in SUBJECTS.values():
        one_run(stmt)
    for _ in range(runs):
        for name, stmt in SUBJECTS.items():
            imp, wall = one_run(stmt)
            data[name][0].append(imp)
            data[name][1].append(wall)
    return data


def report(data: dict[str, tuple[list[float], list[float]]], runs: int) -> str:
    """The Markdown section."""
    med = {name: (statistics.median(imp), statistics.median(wall)) for name, (imp, wall) in data.items()}
    cf, base = med["contextfold"], med["baseline (pydantic, orjson, asyncio)"]
    model = med["baseline + pydantic.BaseModel"]
    share = cf[0] - base[0]
    lines = [
        "# Import time",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_import.py --runs {runs}`. Machine: {os.cpu_count()} cores "
        f"({platform.machine()}), shared with other engineers' jobs, Python {platform.python_version()}.",
        "",
        f"Each row is the median of {runs} runs, alternating with the other row, each in a fresh interpreter "
        "(after one warm-up run each). *import* is the import statement alone, timed inside the child; *process* "
        "is the child's whole wall time (interpreter start-up included). contextfold's own share is its import "
        "time minus the baseline's: the baseline imports exactly the dependencies `import contextfold` loads "
        "(pydantic, orjson, asyncio).",
        "",
        "| import | import (median) | min–max | process (median) |",
        "|---|---|---|---|",
    ]
    for name, (imp, _wall) in data.items():
        lines.append(
            f"| `{SUBJECTS[name]}` | {med[name][0]:.1f} ms | {min(imp):.1f}–{max(imp):.1f} ms | {med[name][1]:.1f} ms |"
        )
    verdict = "met" if share <= TARGET_MS else "**not met**"
    lines += [
        f"| **contextfold's own share** | **{share:.1f} ms** | | {cf[1] - base[1]:.1f} ms |",
        "",
        f"Target: contextfold's own share at most {TARGET_MS:.0f} ms ({verdict}).",
        "",
        f"`import pydantic` alone is lazy: `from pydantic import BaseModel`, which any module defining a model "
        f"needs, adds {model[0] - base[0]:.1f} ms to the baseline; over that baseline contextfold's share is "
        f"{cf[0] - model[0]:.1f} ms (its own modules, pydantic model classes built at import included).",
        "",
        "Where the rest goes: `.venv/bin/python -X importtime -c 'import contextfold'` (cumulative column).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-write", action="store_true", help="print only, leave benchmarks/results/import.md alone")
    args = ap.parse_args()
    text = report(measure(args.runs), args.runs)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
