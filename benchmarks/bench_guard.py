"""Guard benchmark: recall / false-positive rate on tune, eval, eval2, ..., eval9 (per category, language,
technique), the learned model on and off (default: `GuardConfig().learned`) side by side on every split and in
throughput;
throughput side by side with the rules of another revision; optionally the learned component retrained; fence cost.

Run: .venv/bin/python benchmarks/bench_guard.py [--dev /work/shared/corpus/dev] [--baseline REV] [--learned]
     [--no-write]
Writes benchmarks/results/guard.md (the learned-component section only with --learned: it trains a model, minutes).
The default (learned on or off) is the faster and better of the two: both are measured in the same run.

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
PARTS = ("tune", "eval", "eval2", "eval3", "eval4", "eval5", "eval6", "eval7", "eval8", "eval9")

# The throughput child: prints one JSON object of {row name: MB/s}.
_THROUGHPUT = r"""
import functools, json, sys, time
from contextfold._guard import redact_secrets, scan_injection
dev = sys.argv[1]
if sys.argv[2] != "-":  # "1" / "0": the learned model on / off; "-": the revision's default (it may have none)
    scan_injection = functools.partial(scan_injection, learned=sys.argv[2] == "1")
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
# Lines of 30 rule words (anchors, heads, gate words) drawn at random from 40 or from all of them (a fixed seed):
# text packed with many different attack words, the worst case of an automaton over the whole rule table.
import random
from contextfold._guard._rules import _RULES
vocab = sorted({w.decode() for r in _RULES for w in [*(a for a, _, _ in r.anchors), *(h for h, _ in r.heads),
                                                     *(x for g in r.gate for x in g)] if w.isalpha()})
for k in (40, len(vocab)):
    rng = random.Random(k)
    pick = rng.sample(vocab, k)
    seps = [" ", " ", " ", ": ", '"', "<", "#", ", "]
    packed = "\n".join("".join(rng.choice(pick) + rng.choice(seps) for _ in range(30)) for _ in range(1_200))
    rows.append((f"scan_injection, {k} different rule words packed, 30 a line, {len(packed) // 1000} KB", packed,
                 scan_injection))
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


def _hit(text: str, learned: bool | None = None) -> bool:
    from contextfold._guard import scan_injection

    return any(f.blocking for f in scan_injection(text, learned=_default_learned() if learned is None else learned))


def rate_table(
    part: str, key: str, only_round4: bool = False, learned: bool | None = None
) -> tuple[list[str], tuple[int, int, int, int]]:
    """Rows "| key | recall | false positives |" of one part grouped by ``key``, and the totals."""
    inj: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    ben: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for r in rows(part):
        if only_round4 and not r.get("technique"):
            continue
        value = r.get(key) or ("en" if key == "language" else "–")
        if key == "technique":
            value = value.split(":")[-1]
        hit = int(_hit(r["text"], learned))
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


def _default_learned() -> bool:
    from contextfold import GuardConfig

    return GuardConfig().learned


_DEFAULT = " (default)"
ON = "this tree, learned on" + (_DEFAULT if _default_learned() else "")
OFF = "this tree, learned off" + ("" if _default_learned() else _DEFAULT)


def throughput(dev: Path, baseline: str | None) -> tuple[dict[str, dict[str, float]], str]:
    """MB/s per side and row: this tree with the learned model on and off, and ``baseline`` (when given).

    The sides alternate, three times each; a row is each side's best run.
    """
    here = ROOT / "src"
    sides: list[tuple[str, Path, str]] = [(ON, here, "1"), (OFF, here, "0")]
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
        sides.append((label, Path(tmp.name) / "src", "-"))
    best: dict[str, dict[str, float]] = {name: {} for name, _, _ in sides}
    for _ in range(3):
        for name, src, learned in sides:
            env = {**os.environ, "PYTHONPATH": str(src)}
            out = subprocess.run(
                [sys.executable, "-c", _THROUGHPUT, str(dev), learned],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            ).stdout
            for row, mbs in json.loads(out).items():
                best[name][row] = max(best[name].get(row, 0.0), mbs)
    if tmp is not None:
        tmp.cleanup()
    return best, label


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


def learned_rows() -> list[str]:
    """The table "learned on vs off" per split: recall and false positives of each."""
    out = [
        f"| split | recall, {ON[11:]} | false positives, learned on | recall, {OFF[11:]} "
        "| false positives, learned off |",
        "|---|---|---|---|---|",
    ]
    for part in PARTS:
        _, on = rate_table(part, "category", learned=True)
        _, off = rate_table(part, "category", learned=False)
        out.append(
            f"| {part} | {pct(on[0], on[1])} | {pct(on[2], on[3])} | {pct(off[0], off[1])} | {pct(off[2], off[3])} |"
        )
    return out


def throughput_rows(best: dict[str, dict[str, float]], label: str) -> list[str]:
    """One row per input: MB/s with the learned model on, off, the baseline (when measured), and ratios."""
    names = [ON, OFF, *([label] if label else [])]
    head = "| input | " + " | ".join(names) + " | on / off |" + (f" on / {label} |" if label else "")
    out = [head, "|---" * (len(names) + 2 + bool(label)) + "|"]
    for row, on in best[ON].items():
        cells = [f"{best[n][row]:.1f}" if best[n].get(row) else "–" for n in names]
        ratios = [f"{on / best[OFF][row]:.2f}"]
        if label:
            b = best[label].get(row)
            ratios.append(f"{on / b:.2f}" if b else "–")
        out.append(f"| {row} | " + " | ".join(cells + ratios) + " |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    ap.add_argument(
        "--baseline",
        default="merge-base",
        help="git revision whose guard runs side by side ('' for none; default: the merge base with main)",
    )
    ap.add_argument("--learned", action="store_true", help="also retrain and measure the learned component")
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
        f"Corpus: tune {counts['tune']}, eval {counts['eval']}, eval2 {counts['eval2']}, eval3 {counts['eval3']}, "
        f"eval4 {counts['eval4']}, eval5 {counts['eval5']}, eval6 {counts['eval6']}, eval7 {counts['eval7']}, "
        f"eval8 {counts['eval8']}, eval9 {counts['eval9']} strings "
        "(`tests/data/guard/`; "
        "sources and licenses per string in `source`; how each part was made and frozen: `docs/guard.md`). "
        "Rules are written and the learned model is trained from tune only; eval (frozen in round 1), eval2 "
        "(frozen in round 4, before any rule of that round was written), eval3 (round 5), eval4 (round 6), eval5 "
        "(round 7), eval6 (round 9), eval7 (round 10), eval8 (round 11; all six before any rule or training of "
        "their round) and eval9 (round 15, written blind: by an author who had read no rule, code or other part) "
        "are read only for these tables.",
        "",
        "## Learned model on and off",
        "",
        "The learned model (`contextfold._guard._learned`: character 4-grams, linear, trained on tune, shipped as "
        "a data file) runs beside the rules when asked: "
        + (
            "on by default; `learned=False` (`GuardConfig(learned=False)`, `contextfold guard --no-learned`) "
            "turns it off. "
            if _default_learned()
            else "off by default (issue #14: rules only is the faster and better of the two on eval6-eval8); "
            "`learned=True` (`GuardConfig(learned=True)`, `contextfold guard --learned`) turns it on. "
        )
        + "Both measured in this run; throughput below.",
        "",
    ]
    lines += [*learned_rows(), ""]
    for part in PARTS:
        table, (hi, ni, hb, nb) = rate_table(part, "category")
        lines += [
            f"## {part}: recall {pct(hi, ni)}, false positives {pct(hb, nb)} "
            f"(learned {'on' if _default_learned() else 'off'}, the default)",
            "",
            "| category | recall (injections caught) | false positives (benign blocked) |",
            "|---|---|---|",
            *table,
            "",
        ]
    for part in ("tune", "eval2", "eval3", "eval4", "eval5", "eval6", "eval7", "eval8", "eval9"):
        for key, title in (("language", "language"), ("technique", "technique (round 4-15 strings)")):
            table, _ = rate_table(part, key, only_round4=key == "technique")
            lines += [f"### {part} by {title}", "", f"| {key} | recall | false positives |", "|---|---|---|"]
            lines += [*table, ""]
    print("\n".join(lines))
    best, label = throughput(args.dev, args.baseline or None)
    tp = [
        "## Throughput",
        "",
        "MB/s, CPU time, best of three alternating runs per side (this tree with the learned model on and off, "
        "and the baseline revision's default).",
        "",
        *throughput_rows(best, label),
    ]
    lines += [*tp, ""]
    if args.learned:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from guard_learned import measure
        from guard_learned import table as learned_table

        lines += [
            "## Learned component retrained",
            "",
            "`benchmarks/guard_learned.py`: what the shipped model is trained with, retrained here and measured "
            "beside the rules.",
            "",
            learned_table(measure(args.dev)),
        ]
    lines += ["## Fence cost", "", *fence_rows(), ""]
    text = "\n".join(lines)
    print("\n".join(tp))
    if not args.no_write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
