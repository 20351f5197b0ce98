"""Calibrate and check the `calibrated` token estimate against exact tokenizers.

Reads the mixed-language corpus (``--text``, one category per file) and the tool
outputs of the real transcripts (``--dev``, one category per source file). Each
text file is cut into ~4,000-character chunks at line boundaries; the first 60 %
of a file's chunks (and two conversations in three) form the *fit* split, the
rest the *check* split. For each category it reports the ratio estimate/o200k
on both splits (the estimate is calibrated against o200k_base), estimate/exact
for cl100k_base, Llama 3 and Qwen (2.5/3) on all chunks, and (bytes/4)/o200k.
It also reports the sampling error on long texts: whole corpus files and
adversarial mixes (prose + base64, a log with a base64 blob), estimated with
their windows and scanned in full.

    .venv/bin/python benchmarks/calibrate.py            # tables -> benchmarks/results/tokens.md
    .venv/bin/python benchmarks/calibrate.py --fit      # also fit new WEIGHTS (printed, not applied)
    .venv/bin/python benchmarks/calibrate.py --search   # --fit over a grid of CLASS_UNITS (slow)

o200k_base and cl100k_base come from the ``bpe-openai`` files through tiktoken;
Llama 3 and Qwen from ``quicktok-v1`` (``pip install -e '.[bench]'``), skipped
when it is missing. A ratio of 1.00 is exact; below 1 the estimate is low (the
dangerous side).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import contextfold._tokens._calibrated as cal
import entropy_texts
from contextfold._tokens._calibrated import CLASS_UNITS, FEATURES, estimate_tokens, text_features
from contextfold._tokens._exact import load_tiktoken_encoding

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("CONTEXTFOLD_CORPUS", HERE.parent.parent / "shared" / "corpus"))
FIT_SHARE = 0.6
CHUNK = 4000


def chunks(text: str, size: int = CHUNK) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    length = 0
    for line in text.splitlines(keepends=True):
        cur.append(line)
        length += len(line)
        if length >= size:
            out.append("".join(cur))
            cur, length = [], 0
    if cur:
        out.append("".join(cur))
    return out


GENERATED_PER_KIND = 12


def load_samples(text_dir: Path, dev_dir: Path) -> list[tuple[str, str, str]]:
    """(category, split, text) triples: natural text, real tool output, high-entropy kinds (generated and real)."""
    rows: list[tuple[str, str, str]] = []
    for path in sorted(text_dir.glob("*")):
        if path.name == "README.md" or not path.is_file():
            continue
        cat = path.name.split(".")[0]
        parts = chunks(path.read_text(encoding="utf-8"))
        cut = int(len(parts) * FIT_SHARE)
        rows += [(cat, "fit" if i < cut else "check", c) for i, c in enumerate(parts)]
    for path in sorted(dev_dir.glob("*.jsonl")):
        cat = "tool:" + path.name.split("_")[0]
        for ci, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            conv = json.loads(line)
            for m in conv["messages"]:
                content = m.get("content")
                if m["role"] != "tool" or not content:
                    continue
                text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
                rows.append((cat, "fit" if ci % 3 != 2 else "check", text))
    for kind in entropy_texts.kinds(text_dir):
        for i, text in enumerate(entropy_texts.generate(kind, text_dir, GENERATED_PER_KIND)):
            rows.append(("gen:" + kind, "check" if i % 3 == 2 else "fit", text))
    rows += [("real:ids", split, text) for split, text in entropy_texts.real_high_entropy(dev_dir)]
    return rows


def is_high_entropy(cat: str) -> bool:
    """Generated or real high-entropy kinds (target: never more than 15 % under o200k or cl100k)."""
    return cat.startswith(("gen:", "real:"))


NATURAL_BAND = (0.93, 1.10)
"""--fit: est/o200k of every natural category (text and real tool output) on the fit split must fall in here."""
NATURAL_CL100K_FLOOR = 0.83
"""--fit: est/cl100k of every natural category (fit split) must be at least this: cl100k spends 1.28x the tokens of
o200k on Chinese, so a floor above about 0.83 would push o200k over `NATURAL_BAND` or lower the high-entropy floor."""
MIN_CHAR_COST = 0.02
"""--fit: no character may cost less than this (so appending text never lowers an estimate)."""
RARE_SHARE = 1e-3
"""--fit: a letter pair is rare when the pairs of its group make up less than this share of all letter pairs."""
ENTROPY_REWARD = 0.5
"""--fit, stage 2: the value of raising a high-entropy kind's ratio (up to 1) against a natural category's deviation."""
WEIGHT_BOUNDS = {"chars": (None, None), "rare_pairs": (0, 1.0), "wide_rare": (0, 2.0), "wide_unmerged": (0, 1.0)}
"""--fit: bounds on weights with a physical meaning (a rare pair, character or unmerged pair is at most a token
or two more); the rest are non-negative."""
BIGRAM_SOURCES = ("en_prose", "code_python", "code_js", "code_rust", "logs", "json_pretty")


def letter_tables(rows: list[tuple[str, str, str]]) -> tuple[tuple[str, ...], dict[str, str]]:
    """`LETTER_GROUPS` and `RARE_FOLLOWERS` from the letter pairs of natural text (fit split only).

    The letters that can follow are grouped by k-means over their log frequency after each letter (8 groups, one
    bit each in a translated byte stream); a (letter, group) pair is rare when its mean frequency per member is
    below `RARE_SHARE`.
    """
    letters = "abcdefghijklmnopqrstuvwxyz"
    index = {c: i for i, c in enumerate(letters)}
    counts = np.zeros((26, 26))
    for cat, split, text in rows:
        if split != "fit" or cat not in BIGRAM_SOURCES:
            continue
        low = text.lower()
        for x, y in itertools.pairwise(low):
            if x in index and y in index:
                counts[index[x], index[y]] += 1
    freq = counts / counts.sum()
    columns = np.log(freq.T + 1e-6)  # one row per following letter
    rng = np.random.default_rng(0)
    centres = columns[rng.choice(26, 8, replace=False)]
    for _ in range(100):
        label = np.argmin(((columns[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
        centres = np.array([columns[label == g].mean(0) if (label == g).any() else centres[g] for g in range(8)])
    groups = tuple("".join(c for c in letters if label[index[c]] == g) for g in range(8))
    groups = tuple(g for g in groups if g)
    rare = {}
    for x in letters:
        marks = "".join(
            str(g)
            for g, members in enumerate(groups)
            if np.mean([freq[index[x], index[y]] for y in members]) < RARE_SHARE
        )
        if marks:
            rare[x] = marks
    return groups, rare


def fit_weights(data: list[dict[str, Any]], feats: np.ndarray) -> np.ndarray:
    """Weights by linear programming over category totals on the fit split, in two stages.

    Both stages keep every natural category's est/o200k within `NATURAL_BAND`, every character class at
    `MIN_CHAR_COST` or more, and all weights but the per-character one non-negative (so the estimate is
    monotone). Stage 1 finds the highest floor that every high-entropy kind's est/o200k and est/cl100k can
    reach; stage 2 keeps that floor (less 0.005) and brings the natural categories as close to 1 as it can
    (least sum of absolute deviations).
    """
    from scipy.optimize import linprog

    n = feats.shape[1]
    natural: list[np.ndarray] = []
    entropy: list[np.ndarray] = []
    natural_cl100k: list[np.ndarray] = []
    for cat in sorted({d["cat"] for d in data}):
        idx = [i for i, d in enumerate(data) if d["cat"] == cat and d["split"] == "fit"]
        if not idx:
            continue
        total = feats[idx].sum(axis=0)
        if is_high_entropy(cat):
            entropy += [total / sum(data[i][tok] for i in idx) for tok in ("o200k", "cl100k")]
        else:
            natural.append(total / sum(data[i]["o200k"] for i in idx))
            natural_cl100k.append(total / sum(data[i]["cl100k"] for i in idx))
    cost_rows = []
    for cls, nbytes in (
        ("lower", 1),
        ("upper", 1),
        ("digit", 1),
        ("space", 1),
        ("newline", 1),
        ("punct", 1),
        ("utf8_lead2", 2),
        ("utf8_lead3", 3),
    ):
        row = np.zeros(n)
        row[FEATURES.index("class_units")] = -CLASS_UNITS[cls]
        row[FEATURES.index("chars")] = -1
        row[FEATURES.index("bytes")] = -nbytes
        cost_rows.append(row)
    bounds = [WEIGHT_BOUNDS.get(f, (0, None)) for f in FEATURES]

    # Stage 1: variables (w, t); maximize t subject to entropy ratios >= t.
    a_ub = [np.append(-r, 1.0) for r in entropy]
    b_ub = [0.0] * len(entropy)
    for r in natural:
        a_ub += [np.append(-r, 0.0), np.append(r, 0.0)]
        b_ub += [-NATURAL_BAND[0], NATURAL_BAND[1]]
    a_ub += [np.append(-r, 0.0) for r in natural_cl100k]
    b_ub += [-NATURAL_CL100K_FLOOR] * len(natural_cl100k)
    a_ub += [np.append(row, 0.0) for row in cost_rows]
    b_ub += [-MIN_CHAR_COST] * len(cost_rows)
    first = linprog(np.append(np.zeros(n), -1.0), A_ub=a_ub, b_ub=b_ub, bounds=[*bounds, (0, 2)])
    if first.status != 0:
        raise SystemExit(f"--fit: no weights meet the constraints ({first.message})")
    floor = float(first.x[-1]) - 0.005
    # Stage 2: variables (w, d_k, s_j); minimize sum d_k - ENTROPY_REWARD * sum s_j with |r_k.w - 1| <= d_k
    # (natural categories near 1) and s_j <= min(ratio_j, 1) (high-entropy kinds as high as they go, up to 1).
    k, m = len(natural), len(entropy)
    width = n + k + m
    a_ub, b_ub = [], []

    def row(w: np.ndarray, d: int | None = None, sd: float = 0.0, s_: int | None = None, ss: float = 0.0) -> np.ndarray:
        out = np.zeros(width)
        out[:n] = w
        if d is not None:
            out[n + d] = sd
        if s_ is not None:
            out[n + k + s_] = ss
        return out

    for j, r in enumerate(natural):
        a_ub += [row(r, j, -1.0), row(-r, j, -1.0), row(-r), row(r)]
        b_ub += [1.0, -1.0, -NATURAL_BAND[0], NATURAL_BAND[1]]
    for j, r in enumerate(entropy):
        a_ub += [row(-r), row(-r, s_=j, ss=1.0)]
        b_ub += [-floor, 0.0]
    a_ub += [row(-r) for r in natural_cl100k]
    b_ub += [-NATURAL_CL100K_FLOOR] * len(natural_cl100k)
    a_ub += [row(c) for c in cost_rows]
    b_ub += [-MIN_CHAR_COST] * len(cost_rows)
    objective = np.concatenate([np.zeros(n), np.ones(k), -ENTROPY_REWARD * np.ones(m)])
    second = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=bounds + [(0, None)] * k + [(None, 1.0)] * m)
    if second.status != 0:
        raise SystemExit(f"--fit: stage 2 failed ({second.message})")
    print(f"high-entropy floor on the fit split: {floor:.3f}", file=sys.stderr)
    return np.asarray(second.x[:n])


def exact_counters() -> dict[str, Callable[[str], int]]:
    """Exact tokenizers, o200k first (the calibration target); quicktok ones only when installed."""
    out: dict[str, Callable[[str], int]] = {}
    for name in ("o200k_base", "cl100k_base"):
        enc = load_tiktoken_encoding(name)
        out[name.split("_")[0]] = lambda t, enc=enc: len(enc.encode_ordinary(t))
    try:
        import quicktok
    except ImportError:
        print("quicktok-v1 not installed: Llama 3 and Qwen skipped (pip install -e '.[bench]')", file=sys.stderr)
        return out
    for name, label in (("llama3", "llama3"), ("qwen3", "qwen")):
        qenc = quicktok.get_encoding(name)
        out[label] = lambda t, qenc=qenc: len(qenc.encode_ordinary(t))
    return out


def full_scan(text: str, weights: tuple[float, ...] = cal.WEIGHTS) -> float:
    """The estimate with every character scanned (no windows): the reference for sampling error."""
    step = cal.SAMPLE_LIMIT
    feats = [0.0] * len(FEATURES)
    for i in range(0, len(text), step):
        for j, f in enumerate(cal._raw_features(text[i : i + step])):
            feats[j] += f
    total = sum(w * f for w, f in zip(weights, feats, strict=True))
    return max(total, len(text) / cal.FLOOR_CHARS_PER_TOKEN)


def sampling_mixes(text_dir: Path) -> list[tuple[str, str]]:
    """Long texts where windows could mislead: whole corpus files and adversarial mixes of dense and sparse text."""
    files = {p.stem: p.read_text(encoding="utf-8") for p in sorted(text_dir.glob("*")) if p.name != "README.md"}
    out = [(f"file {name} ({len(t) // 1000}K chars)", t) for name, t in files.items()]
    prose, b64, logs = files["en_prose"], files["base64"].replace("\n", ""), files["logs"]
    out.append(("100K prose then 100K base64", prose[:100_000] + "\n" + b64[:100_000]))
    out.append(
        (
            "prose/base64 alternating 2K blocks, 200K",
            "".join((prose if i % 2 else b64)[i * 2000 : (i + 1) * 2000] + "\n" for i in range(100)),
        )
    )
    out.append(
        (
            "prose/base64 alternating 8K blocks, 256K",
            "".join((prose if i % 2 else b64)[i * 8000 : (i + 1) * 8000] + "\n" for i in range(32)),
        )
    )
    for size, blob in ((64_000, 4_000), (64_000, 8_000), (256_000, 20_000), (256_000, 4_000)):
        log = logs[: size - blob]
        cut = log.rfind("\n", 0, len(log) // 2) + 1
        out.append(
            (
                f"{size // 1000}K log, {blob // 1000}K base64 blob in the middle",
                log[:cut] + b64[:blob] + "\n" + log[cut:],
            )
        )
    # A 1K base64 line every 8K of log: periodic content, the case evenly spaced windows can alias with.
    out.append(
        (
            "256K log with a 1K base64 line every 8K",
            "".join(logs[i * 7000 : (i + 1) * 7000] + b64[i * 1000 : (i + 1) * 1000] + "\n" for i in range(32)),
        )
    )
    return out


def blob_sweep(text_dir: Path, count: Callable[[str], int]) -> tuple[float, float, str]:
    """Worst case over blob positions: a base64 blob slid across a log; (lowest, highest est/o200k, where)."""
    logs = (text_dir / "logs.log").read_text(encoding="utf-8")
    b64 = (text_dir / "base64.txt").read_text(encoding="utf-8").replace("\n", "")
    worst = (9.0, 0.0, "")
    for size, blob in ((16_000, 1_000), (64_000, 4_000), (64_000, 8_000), (256_000, 16_000)):
        log = logs[: size - blob]
        for k in range(24):
            at = log.rfind("\n", 0, len(log) * k // 24 + 1) + 1
            text = log[:at] + b64[:blob] + "\n" + log[at:]
            r = estimate_tokens(text) / count(text)
            if r < worst[0]:
                worst = (r, worst[1], f"{size // 1000}K log, {blob // 1000}K blob at {k}/24 (low)")
            worst = (worst[0], max(worst[1], r), worst[2])
    return worst


def search_units(data: list[dict[str, Any]], texts: list[str]) -> None:
    """Grid search over CLASS_UNITS near the chosen ones: refit WEIGHTS for each, print the lowest objectives."""
    base = dict(CLASS_UNITS)
    results = []
    for space, lower, punct, digit, upper in itertools.product((1, 2), (2, 3), (4, 5), (5, 6), (7, 8)):
        units = dict(base, space=space, lower=lower, punct=punct, digit=digit, upper=upper)
        cal._set_tables(units=units)
        feats = np.array([text_features(t) for t in texts], float)
        try:
            coef = fit_weights(data, feats)
        except SystemExit:
            continue
        est = np.maximum(feats @ coef, np.array([d["chars"] for d in data]) / cal.FLOOR_CHARS_PER_TOKEN)
        results.append((float(est.sum() / sum(d["o200k"] for d in data)), units, coef))
    cal._set_tables(units=base)
    for over, units, coef in sorted(results, key=lambda r: r[0])[:5]:
        print(f"est/o200k overall {over:.3f} units {units} weights {tuple(round(float(c), 4) for c in coef)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--text", type=Path, default=SHARED / "text")
    p.add_argument("--dev", type=Path, default=SHARED / "dev")
    p.add_argument("--fit", action="store_true", help="fit new weights on the fit split and print them")
    p.add_argument("--search", action="store_true", help="--fit for each CLASS_UNITS of a small grid")
    p.add_argument("--out", type=Path, default=HERE / "results" / "tokens.md")
    args = p.parse_args(argv)
    if not args.text.is_dir():
        print(f"corpus not found: {args.text}", file=sys.stderr)
        return 2
    counters = exact_counters()
    o200k = counters["o200k"]
    rows = load_samples(args.text, args.dev)
    t0 = time.perf_counter()
    data: list[dict[str, Any]] = []
    for cat, split, text in rows:
        d: dict[str, Any] = {name: count(text) for name, count in counters.items()}
        d.update(
            cat=cat,
            split=split,
            chars=len(text),
            bytes4=len(text.encode("utf-8")) / 4,
            est=estimate_tokens(text),
        )
        data.append(d)
    print(f"{len(data)} samples tokenized in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    if args.search or args.fit:
        groups, rare = letter_tables(rows)
        cal._set_tables(groups=groups, rare=rare)
        texts = [t for _, _, t in rows]
        if args.search:
            search_units(data, texts)
            return 0
        coef = fit_weights(data, np.array([text_features(t) for t in texts], float))
        print(f"LETTER_GROUPS = {groups!r}")
        print(f"RARE_FOLLOWERS = {rare!r}")
        print("WEIGHTS = (" + ", ".join(f"{c:.4g}" for c in coef) + ")  # " + ", ".join(FEATURES))
        return 0

    others = [n for n in counters if n != "o200k"]
    table: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for d in data:
        for split in (d["split"], "all"):
            t = table[(d["cat"], split)]
            for k in ["est", "bytes4", *counters]:
                t[k] += d[k]
            t["n"] += 1
    cats = sorted({d["cat"] for d in data})
    head = "| category | samples | o200k tokens | est/o200k (fit) | est/o200k (check) | "
    head += " | ".join(f"est/{n}" for n in others) + " | bytes/4 ÷ o200k |"
    lines = [head, "|---" * (5 + len(others)) + "|---|"]
    worst: dict[str, list[float]] = {n: [9.0, 0.0] for n in counters}
    for cat in cats:
        a, f, c = table[(cat, "all")], table[(cat, "fit")], table[(cat, "check")]
        rf = f["est"] / f["o200k"] if f["o200k"] else float("nan")
        rc = c["est"] / c["o200k"] if c["o200k"] else float("nan")
        for r in (rf, rc):
            if r == r:
                worst["o200k"] = [min(worst["o200k"][0], r), max(worst["o200k"][1], r)]
        cells = []
        for n in others:
            r = a["est"] / a[n]
            worst[n] = [min(worst[n][0], r), max(worst[n][1], r)]
            cells.append(f"{r:.3f}")
        check = f"{rc:.3f}" if rc == rc else "-"
        lines.append(
            f"| {cat} | {int(a['n'])} | {int(a['o200k'])} | {rf:.3f} | {check} | "
            + " | ".join(cells)
            + f" | {a['bytes4'] / a['o200k']:.3f} |"
        )
    lines.append("")
    lines.append("Range of est/exact over categories (o200k: over both splits):")
    lines.append("")
    for n, (lo, hi) in worst.items():
        lines.append(f"- {n}: {lo:.3f} - {hi:.3f}")
    natural_o = [
        table[(c, sp)]["est"] / table[(c, sp)]["o200k"]
        for c in cats
        if not is_high_entropy(c)
        for sp in ("fit", "check")
        if table[(c, sp)]["o200k"]
    ]
    entropy = {
        n: min(table[(c, "all")]["est"] / table[(c, "all")][n] for c in cats if is_high_entropy(c)) for n in counters
    }
    entropy_check = min(
        table[(c, "check")]["est"] / table[(c, "check")][n]
        for c in cats
        if is_high_entropy(c)
        for n in ("o200k", "cl100k")
        if table[(c, "check")][n]
    )
    lines += [
        "",
        "Targets: every high-entropy kind (`gen:*` generated by `benchmarks/entropy_texts.py`, `real:ids` = the dev "
        "corpus's tool-output lines holding hashes, UUIDs and long ids) at most 15 % under o200k and cl100k; every "
        "natural category within 10 % of o200k.",
        "",
        "- high-entropy kinds, lowest est/exact: "
        + ", ".join(f"{n} {v:.3f}" for n, v in entropy.items())
        + f" (check split alone, o200k and cl100k: {entropy_check:.3f})",
        f"- natural categories, est/o200k over both splits: {min(natural_o):.3f} - {max(natural_o):.3f}",
    ]
    lines += ["", "Tokens each tokenizer needs relative to o200k (all chunks of the category):", ""]
    lines.append("| category | " + " | ".join(f"{n}/o200k" for n in others) + " |")
    lines.append("|---" * (1 + len(others)) + "|")
    for cat in cats:
        a = table[(cat, "all")]
        lines.append(f"| {cat} | " + " | ".join(f"{a[n] / a['o200k']:.3f}" for n in others) + " |")

    lines += ["", "### Sampling error on long texts", ""]
    lines.append(
        f"Texts over {cal.SAMPLE_LIMIT} characters are estimated from {cal._MIN_WINDOWS}-{cal._MAX_WINDOWS} windows of "
        f"{cal._WINDOW} characters (one per {cal._CHARS_PER_WINDOW} characters). `windows ÷ full` is the sampled "
        "estimate over the same estimate with every character scanned (the sampling error alone); `est/o200k` "
        "is the end result."
    )
    lines += ["", "| text | chars | windows ÷ full | est/o200k |", "|---|---|---|---|"]
    for label, text in sampling_mixes(args.text):
        est = estimate_tokens(text)
        lines.append(f"| {label} | {len(text)} | {est / full_scan(text):.3f} | {est / o200k(text):.3f} |")
    long = [t for _, _, t in rows if len(t) > cal.SAMPLE_LIMIT]
    errs = sorted(estimate_tokens(t) / full_scan(t) for t in long)
    pct = {q: errs[min(len(errs) - 1, int(q / 100 * len(errs)))] for q in (1, 5, 50, 95, 99)}
    lines += [
        "",
        f"Per text, over the {len(errs)} samples above longer than {cal.SAMPLE_LIMIT} characters (mostly ~4,000 "
        f"characters, 1,024 of them scanned), windows ÷ full: min {errs[0]:.3f}, 1st percentile {pct[1]:.3f}, "
        f"5th {pct[5]:.3f}, median {pct[50]:.3f}, 95th {pct[95]:.3f}, 99th {pct[99]:.3f}, max {errs[-1]:.3f}.",
    ]
    lo, hi, where = blob_sweep(args.text, o200k)
    lines += [
        "",
        "Sweep: a 1K-16K base64 blob slid over 24 positions in 16K-256K logs: est/o200k "
        f"{lo:.3f} - {hi:.3f} (lowest: {where}).",
    ]
    table_md = "\n".join(lines)
    print(table_md)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        before = old.split("<!-- calibrate -->")[0] if old else "# Token counting benchmarks\n\n"
        after = old.split("<!-- /calibrate -->", 1)[1] if "<!-- /calibrate -->" in old else ""
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if "model name" in ln
            ),
            platform.processor(),
        )
        versions = f"Python {platform.python_version()}, {cpu}, estimator key `{cal.CalibratedCounter.key}`"
        body = (
            "<!-- calibrate -->\n## Calibrated estimate vs exact tokenizers\n\n"
            f"Command: `.venv/bin/python benchmarks/calibrate.py` ({versions}). Calibrated against o200k_base "
            "(weights fitted on the fit split); cl100k_base, Llama 3 and Qwen (2.5/3) measured, not fitted.\n\n"
            + table_md
            + "\n"
        )
        args.out.write_text(before + body + "<!-- /calibrate -->" + after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
