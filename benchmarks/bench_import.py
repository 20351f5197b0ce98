"""Import cost: ``import contextfold`` in a fresh process against its own dependencies, side by side.

contextfold's own share is the difference between the two medians: ``import contextfold`` pays for pydantic,
orjson and asyncio too (the baseline imports exactly those), so the difference is what contextfold adds.
Runs alternate (contextfold, baseline, contextfold, ...) so load on the shared machine hits both alike. Each
run is a fresh interpreter; the time is the import statement alone, measured inside the child with
``perf_counter`` (interpreter start-up is the same for both and left out), and also the child's whole wall time.

Bytecode: every child runs with ``PYTHONPYCACHEPREFIX`` pointing at one temporary directory, and each subject's
warm-up run writes the bytecode of every module it imports there (stdlib, site-packages and contextfold alike); the
measured runs only read it. An installed contextfold has its bytecode (pip compiles it at install, as it did for
pydantic); a source checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (this machine's default) has none, and would
compile every contextfold module from source on each run while the baseline reads its packages' bytecode.

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
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "import.md"

SUBJECTS: dict[str, str] = {
    "contextfold": "import contextfold",
    "baseline (pydantic, orjson, asyncio)": "import pydantic, orjson, asyncio",
    # Informative: ``import pydantic`` is lazy; any module defining a model also loads BaseModel's machinery.
    "baseline + pydantic.BaseModel": "import pydantic, orjson, asyncio; from pydantic import BaseModel",
    # Informative: what a program using everything pays (the lazily loaded names, the models' validators built).
    "contextfold, every public name": (
        "import contextfold; [getattr(contextfold, n) for n in contextfold.__all__]; "
        "contextfold.ContextConfig(window=1000); contextfold.GuardConfig(); contextfold.HintConfig()"
    ),
}
_CHILD = (
    "import time; t0 = time.perf_counter(); c0 = time.process_time(); {stmt}; "
    "print(time.perf_counter() - t0, time.process_time() - c0)"
)
TARGET_MS = 100.0


def one_run(stmt: str, pycache: str, write: bool = False) -> tuple[float, float, float]:
    """(import time, its CPU time, whole process wall time) in ms for ``stmt`` in a fresh interpreter.

    Bytecode lives under ``pycache`` (``PYTHONPYCACHEPREFIX``); only a run with ``write`` writes it.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(stmt=stmt)], check=True, capture_output=True, text=True, env=env
    ).stdout
    wall = time.perf_counter() - t0
    imp, cpu = out.strip().splitlines()[-1].split()
    return float(imp) * 1000, float(cpu) * 1000, wall * 1000


def measure(runs: int) -> dict[str, tuple[list[float], list[float], list[float]]]:
    """Alternating runs of every subject, after one warm-up each (fills the OS page cache and .pyc files)."""
    data: dict[str, tuple[list[float], list[float], list[float]]] = {name: ([], [], []) for name in SUBJECTS}
    with tempfile.TemporaryDirectory(prefix="contextfold-pycache-") as pycache:
        for stmt in SUBJECTS.values():
            one_run(stmt, pycache, write=True)
        for _ in range(runs):
            for name, stmt in SUBJECTS.items():
                imp, cpu, wall = one_run(stmt, pycache)
                data[name][0].append(imp)
                data[name][1].append(cpu)
                data[name][2].append(wall)
    return data


def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def report(data: dict[str, tuple[list[float], list[float], list[float]]], runs: int, load: str) -> str:
    """The Markdown section."""
    med = {name: tuple(statistics.median(v) for v in series) for name, series in data.items()}
    cf, base = med["contextfold"], med["baseline (pydantic, orjson, asyncio)"]
    model = med["baseline + pydantic.BaseModel"]
    share, share_cpu = cf[0] - base[0], cf[1] - base[1]
    lines = [
        "# Import time",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_import.py --runs {runs}`. Machine: {os.cpu_count()} cores "
        f"({platform.machine()}), shared with other engineers' jobs (load average {load} at the start), Python "
        f"{platform.python_version()}.",
        "",
        f"Each row is the median of {runs} runs, alternating with the other rows, each in a fresh interpreter "
        "(after one warm-up run each, which writes the bytecode of every module the row imports into a temporary "
        "`PYTHONPYCACHEPREFIX` that the measured runs read: an installed package has its bytecode, pip compiles it "
        "at install). *import* is the import statement alone, timed inside the child (wall time, and the CPU time "
        "of the child, which other jobs on a loaded machine disturb less); *process* is the child's whole wall "
        "time (interpreter start-up included). contextfold's own share is its import time minus the baseline's: "
        "the baseline imports exactly the dependencies `import contextfold` loads (pydantic, orjson, asyncio).",
        "",
        "| import | import (median) | CPU (median) | min–max | process (median) |",
        "|---|---|---|---|---|",
    ]
    for name, (imp, _cpu, _wall) in data.items():
        m = med[name]
        lines.append(
            f"| `{SUBJECTS[name]}` | {m[0]:.1f} ms | {m[1]:.1f} ms | {min(imp):.1f}–{max(imp):.1f} ms | {m[2]:.1f} ms |"
        )
    verdict = "met" if share <= TARGET_MS else "**not met**"
    verdict_cpu = "met" if share_cpu <= TARGET_MS else "**not met**"
    every = med["contextfold, every public name"]
    lines += [
        f"| **contextfold's own share** | **{share:.1f} ms** | **{share_cpu:.1f} ms** | | {cf[2] - base[2]:.1f} ms |",
        "",
        f"Target: contextfold's own share at most {TARGET_MS:.0f} ms: wall time {verdict}, CPU time {verdict_cpu}.",
        "",
        f"`import pydantic` alone is lazy: `from pydantic import BaseModel`, which any module defining a model "
        f"needs, adds {model[0] - base[0]:.1f} ms to the baseline; over that baseline contextfold's share is "
        f"{cf[0] - model[0]:.1f} ms (its own modules included). The agent loop, its tools and the replay doubles "
        "load on first use (`contextfold.Agent`, ...), and the pydantic models build their validators on first use "
        f"(`defer_build`): touching every public name costs {every[0] - base[0]:.1f} ms over the baseline "
        f"({every[1] - base[1]:.1f} ms CPU).",
        "",
        "Where the rest goes: `.venv/bin/python -X importtime -c 'import contextfold'` (cumulative column).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-write", action="store_true", help="print only, leave benchmarks/results/import.md alone")
    args = ap.parse_args()
    load = _load()
    text = report(measure(args.runs), args.runs, load)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
