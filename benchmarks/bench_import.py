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

Run: .venv/bin/python benchmarks/bench_import.py [--runs 15] [--no-write] [--against REV]
Writes benchmarks/results/import.md. ``--against REV`` adds a row: ``import contextfold`` from that git revision's
``src`` (exported with ``git archive``, put first on ``PYTHONPATH``), in the same alternating runs, so a change is
measured before and after under the same load.
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

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "import.md"

SUBJECTS: dict[str, str] = {
    "contextfold": "import contextfold",
    "baseline (pydantic, orjson, asyncio)": "import pydantic, orjson, asyncio",
    # Informative: ``import pydantic`` is lazy; any module defining a model also loads BaseModel's machinery.
    "baseline + pydantic.BaseModel": "import pydantic, orjson, asyncio; from pydantic import BaseModel",
    # Informative: what a program pays for its first session (the settings models, and pydantic's model machinery).
    "contextfold, first Context": "import contextfold; contextfold.Context(window=8000)",
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


def one_run(stmt: str, pycache: str, write: bool = False, path: str | None = None) -> tuple[float, float, float]:
    """(import time, its CPU time, whole process wall time) in ms for ``stmt`` in a fresh interpreter.

    Bytecode lives under ``pycache`` (``PYTHONPYCACHEPREFIX``); only a run with ``write`` writes it. ``path``
    goes first on ``PYTHONPATH`` (another revision's ``src``).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (path, os.environ.get("PYTHONPATH")) if p)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(stmt=stmt)], check=True, capture_output=True, text=True, env=env
    ).stdout
    wall = time.perf_counter() - t0
    imp, cpu = out.strip().splitlines()[-1].split()
    return float(imp) * 1000, float(cpu) * 1000, wall * 1000


def measure(runs: int, against: str | None = None) -> dict[str, tuple[list[float], list[float], list[float]]]:
    """Alternating runs of every subject, after one warm-up each (fills the OS page cache and .pyc files)."""
    subjects: dict[str, tuple[str, str | None]] = {name: (stmt, None) for name, stmt in SUBJECTS.items()}
    with tempfile.TemporaryDirectory(prefix="contextfold-pycache-") as pycache:
        if against is not None:
            tree = Path(pycache) / "against"
            tree.mkdir()
            archive = subprocess.run(["git", "archive", against, "src"], cwd=ROOT, check=True, capture_output=True)
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
            subjects = {f"contextfold at {against}": ("import contextfold", str(tree / "src")), **subjects}
        data: dict[str, tuple[list[float], list[float], list[float]]] = {name: ([], [], []) for name in subjects}
        for stmt, path in subjects.values():
            one_run(stmt, pycache, write=True, path=path)
        for _ in range(runs):
            for name, (stmt, path) in subjects.items():
                imp, cpu, wall = one_run(stmt, pycache, path=path)
                data[name][0].append(imp)
                data[name][1].append(cpu)
                data[name][2].append(wall)
    return data


def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def report(
    data: dict[str, tuple[list[float], list[float], list[float]]], runs: int, load: str, against: str | None = None
) -> str:
    """The Markdown section."""
    med = {name: tuple(statistics.median(v) for v in series) for name, series in data.items()}
    cf, base = med["contextfold"], med["baseline (pydantic, orjson, asyncio)"]
    model = med["baseline + pydantic.BaseModel"]
    share, share_cpu = cf[0] - base[0], cf[1] - base[1]
    lines = [
        "# Import time",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_import.py --runs {runs}"
        + (f" --against {against}" if against else "")
        + f"`. Machine: {os.cpu_count()} cores "
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
        label = f"`import contextfold` at `{against}`" if name not in SUBJECTS else f"`{SUBJECTS[name]}`"
        lines.append(f"| {label} | {m[0]:.1f} ms | {m[1]:.1f} ms | {min(imp):.1f}–{max(imp):.1f} ms | {m[2]:.1f} ms |")
    verdict = "met" if share <= TARGET_MS else "**not met**"
    verdict_cpu = "met" if share_cpu <= TARGET_MS else "**not met**"
    every = med["contextfold, every public name"]
    first = med["contextfold, first Context"]
    lines += [
        f"| **contextfold's own share** | **{share:.1f} ms** | **{share_cpu:.1f} ms** | | {cf[2] - base[2]:.1f} ms |",
    ]
    if against is not None:
        old = med[f"contextfold at {against}"]
        lines.append(
            f"| contextfold's own share at `{against}` | {old[0] - base[0]:.1f} ms | {old[1] - base[1]:.1f} ms | "
            f"| {old[2] - base[2]:.1f} ms |"
        )
    lines += [
        "",
        f"Target: contextfold's own share at most {TARGET_MS:.0f} ms: wall time {verdict}, CPU time {verdict_cpu}.",
        "",
        "What loads on first use, not at `import contextfold`: the pydantic models (`ContextConfig`, `GuardConfig`, "
        "`HintConfig`, `StructuredSummary`; `import pydantic` alone is lazy, and `from pydantic import BaseModel`, "
        f"which any module defining a model needs, adds {model[0] - base[0]:.1f} ms to the baseline), the agent "
        "loop, its tools and the replay doubles, steering, transcript files, provider validation, the local "
        "workspace, the read-back tools, the ledger's regexes and the guard's tables. A program's first `Context` "
        f"(its `ContextConfig` and `HintConfig`) costs {first[0] - cf[0]:.1f} ms more "
        f"({first[0] - base[0]:.1f} ms over the baseline, {first[1] - base[1]:.1f} ms CPU); touching every public "
        f"name and building every settings model's validator costs {every[0] - base[0]:.1f} ms over the baseline "
        f"({every[1] - base[1]:.1f} ms CPU).",
        "",
        "Where the rest goes: `.venv/bin/python -X importtime -c 'import contextfold'` (cumulative column).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-write", action="store_true", help="print only, leave benchmarks/results/import.md alone")
    ap.add_argument("--against", metavar="REV", help="also measure `import contextfold` at this git revision")
    args = ap.parse_args()
    load = _load()
    text = report(measure(args.runs, args.against), args.runs, load, args.against)
    print(text)
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
