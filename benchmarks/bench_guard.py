"""Guard benchmark: recall / false-positive rate on tune, eval and eval2 (per category, language, technique),
throughput side by side with the rules of another revision, the learned component beside the rules, fence cost.

Run: .venv/bin/python benchmarks/bench_guard.py [--dev /work/shared/corpus/dev] [--baseline REV] [--learned]
     [--no-write]
Writes benchmarks/results/guard.md (the learned-component section only with --learned: it trains a model, minutes).

Throughput: each side (this tree, and ``--baseline``'s ``src`` exported with ``git archive``) runs in its own
process, alternating, three times; a row is the best run (the machine is shared: noise only adds time). Times are
CPU time of the scanning process (``time.process_time``), which a loaded machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "guard"
RESULTS = ROOT / "benchmarks" / "results" / "guard.md"
PARTS = ("tune", "eval", "eval2")

# The throughput child: prints one JSON object of {row name: MB/s}.
_THROUGHPUT = r"""
import json, sys, time
from contextfold._guard import redact_secrets, scan_injection
dev = sys.argv[1]
results, size = [], 0
with open(dev + "/swe_mini_gemini3pro.jsonl", encoding="utf-8") as fh:
    for line in fh:
        for m in json.loads(line)["messages"]:
            if m["role"] == "tool" and m["content"]:
                results.append(m["content"] + "\n")
                size += len(results[-1])
            if size > 2_000_000:
                break
        if size > 2_000_000:
            break
blob = "".join(results)[:2_000_000]
prose = "The quick brown fox jumps over the lazy dog; results are listed below. " * 14_000
def each(fn):
    return lambda texts: [fn(t) for t in texts]
rows = [
    ("scan_injection, real tool output, one call per result", results, each(scan_injection)),
    ("scan_injection, real tool output, 2 MB in one call", blob, scan_injection),
    ("redact_secrets, real tool output, one call per result", results, each(redact_secrets)),
    ("redact_secrets, real tool output, 2 MB in one call", blob, redact_secrets),
    ("scan_injection, prose without trigger words", prose, scan_injection),
]
for unit in ("ignore the ", "system: ", "a\u200b", "\u0430", '{"name": "x", ', "<|im_start|>", "show me your ",
             "aWdub3Jl", "1gn0r3 ", "i g n o r e ", "\u5ffd\u7565\u6307\u4ee4"):
    rows.append((f"scan_injection, adversarial {unit!r} x 1 MB", unit * (1_000_000 // len(unit)), scan_injection))
out = {}
scan_injection("warm up"); redact_secrets("warm up")
for name, data, fn in rows:
    mb = sum(len(t.encode()) for t in ([data] if isinstance(data, str) else data)) / 1e6
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        fn(data)
        best = min(best, time.process_time() - t0)
    out[name] = mb / best
print(json.dumps(out))
"""


def rows(part: str) -> list[dict[str, str]]:
    # Split at "\n" only: a string may hold U+2028 or U+0085, which splitlines() also cuts at.
    return [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").split("\n") if x]


def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f} %" if b else "–"


def _hit(text: str) -> bool:
    from contextfold._guard import scan_injection

    return any(f.blocking for f in scan_injection(text))


def rate_table(part: str, key: str, only_round4: bool = False) -> tuple[list[str], tuple[int, int, int, int]]:
    """Rows "| key | recall | false positives |" of one part grouped by ``key``, and the totals."""
    inj: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    ben: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for r in rows(part):
        if only_round4 and r.get("round") != "4":
            continue
        value = r.get(key) or ("en" if key == "language" else "–")
        if key == "technique":
            value = value.split(":")[-1]
        hit = int(_hit(r["text"]))
        table = inj if r["label"] == "injection" else ben
        for k in (value, "ALL"):
            table[k][0] += hit
            table[k][1] += 1
    out = []
    for k in sorted(set(inj) | set(ben), key=lambda c: (c == "ALL", c)):
        hi, ni = inj.get(k, [0, 0])
        hb, nb = ben.get(k, [0, 0])
        label = f"**{k}**" if k == "ALL" else k
        out.append(f"| {label} | {pct(hi, ni)} | {pct(hb, nb)} |")
    hi, ni = inj["ALL"]
    hb, nb = ben["ALL"]
    return out, (hi, ni, hb, nb)


def throughput(dev: Path, baseline: str | None) -> tuple[dict[str, float], dict[str, float] | None, str]:
    """MB/s per row for this tree and for ``baseline`` (None: not measured), alternating three times each."""
    here = ROOT / "src"
    sides: list[tuple[str, Path]] = [("this tree", here)]
    tmp = None
    label = ""
    if baseline:
        tmp = tempfile.TemporaryDirectory()
        ask = ["merge-base", "HEAD", "main"] if baseline == "merge-base" else ["rev-parse", baseline]
        full = subprocess.run(["git", "-C", str(ROOT), *ask], check=True, capture_output=True, text=True).stdout
        rev = full.strip()[:7]
        label = f"{baseline} ({rev})"
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True)
        tar = Path(tmp.name) / "src.tar"
        tar.write_bytes(archive.stdout)
        with tarfile.open(tar) as tf:
            tf.extractall(tmp.name, filter="data")
        sides.append((label, Path(tmp.name) / "src"))
    best: dict[str, dict[str, float]] = {name: {} for name, _ in sides}
    for _ in range(3):
        for name, src in sides:
            env = {**os.environ, "PYTHONPATH": str(src)}
            out = subprocess.run(
                [sys.executable, "-c", _THROUGHPUT, str(dev)], check=True, capture_output=True, text=True, env=env
            ).stdout
            for row, mbs in json.loads(out).items():
                best[name][row] = max(best[name].get(row, 0.0), mbs)
    if tmp is not None:
        tmp.cleanup()
    return best["this tree"], (best[label] if baseline else None), label


def fence_rows() -> list[str]:
    from contextfold._guard import Fence
    from contextfold._tokens._counting import BytesCounter

    fence = Fence()
    counters: list[tuple[str, object]] = [("BytesCounter", BytesCounter())]
    try:
        from contextfold._tokens._factory import make_counter

        counters.append(("make_counter() default", make_counter()))
    except ImportError:
        pass
    out = ["| counter | fence tokens per tool result |", "|---|---|"]
    for name, counter in counters:
        cost = counter.count_text(fence.wrap("")) - counter.count_text("")  # type: ignore[attr-defined]
        out.append(f"| {name} | {cost} |")
    layer = BytesCounter().count_text(fence.system_prompt_layer())
    out += ["", f"System-prompt layer: {layer} tokens (BytesCounter), once per session."]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    ap.add_argument(
        "--baseline",
        default="merge-base",
        help="git revision whose guard runs side by side ('' for none; default: the merge base with main)",
    )
    ap.add_argument("--learned", action="store_true", help="also train and measure the learned component")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    counts = {p: len(rows(p)) for p in PARTS}
    lines = [
        "# Guard: prompt-injection recall, false positives, throughput, fence cost",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_guard.py --baseline {args.baseline or repr('')}"
        f"{' --learned' if args.learned else ''}`. Machine: {os.cpu_count()} cores ({platform.machine()}), shared "
        f"with other engineers' jobs, Python {platform.python_version()}.",
        "",
        "A string counts as caught / as a false positive when the scan reports at least one **medium or high** "
        "finding (exactly what `sanitize_injection` rewrites); low findings are only logged.",
        "",
        f"Corpus: tune {counts['tune']}, eval {counts['eval']}, eval2 {counts['eval2']} strings "
        "(`tests/data/guard/`; sources and licenses per string in `source`; how each part was made and frozen: "
        "`docs/guard.md`). Rules are written from tune only; eval (frozen in round 1) and eval2 (frozen in round 4, "
        "before any rule of that round was written) are read only for these tables.",
        "",
    ]
    for part in PARTS:
        table, (hi, ni, hb, nb) = rate_table(part, "category")
        lines += [
            f"## {part}: recall {pct(hi, ni)}, false positives {pct(hb, nb)}",
            "",
            "| category | recall (injections caught) | false positives (benign blocked) |",
            "|---|---|---|",
            *table,
            "",
        ]
    for part in ("tune", "eval2"):
        for key, title in (("language", "language"), ("technique", "technique (round 4 strings)")):
            table, _ = rate_table(part, key, only_round4=key == "technique")
            lines += [f"### {part} by {title}", "", f"| {key} | recall | false positives |", "|---|---|---|"]
            lines += [*table, ""]
    print("\n".join(lines))
    here, base, label = throughput(args.dev, args.baseline or None)
    tp = ["## Throughput", "", "MB/s, CPU time, best of three alternating runs per side."]
    if base is not None:
        tp += ["", f"| input | this tree | {label} | ratio |", "|---|---|---|---|"]
        for row, mbs in here.items():
            b = base.get(row)
            tp.append(f"| {row} | {mbs:.1f} | {b:.1f} | {mbs / b:.2f} |" if b else f"| {row} | {mbs:.1f} | – | – |")
    else:
        tp += ["", "| input | this tree |", "|---|---|", *(f"| {r} | {m:.1f} |" for r, m in here.items())]
    lines += [*tp, ""]
    if args.learned:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from guard_learned import measure, table

        lines += [
            "## Learned component beside the rules",
            "",
            "`benchmarks/guard_learned.py`: hashed character 3-5-grams, logistic regression trained on tune plus "
            "1,500 dev tool results the rows below do not use; threshold from out-of-fold scores (at most 2 % of the "
            "benign training strings). Pure-Python inference.",
            "",
            table(measure(args.dev)),
        ]
    lines += ["## Fence cost", "", *fence_rows(), ""]
    text = "\n".join(lines)
    print("\n".join(lines[len(lines) - len(tp) - 20 :]))
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
