"""Calibrate and check the `calibrated` token estimate against exact tokenizers.

Reads the mixed-language corpus (``--text``, one category per file) and the tool
outputs of the real transcripts (``--dev``, one category per source file). Each
text file is cut into ~4,000-character chunks at line boundaries; the first 60 %
of a file's chunks (and two conversations in three) form the *fit* split, the
rest the *check* split. For each category it reports the ratio estimate/o200k
on both splits, and estimate/cl100k and (bytes/4)/o200k for comparison.

    .venv/bin/python benchmarks/calibrate.py                # table -> benchmarks/results/tokens.md
    .venv/bin/python benchmarks/calibrate.py --fit          # also fit new weights (printed, not applied)

A ratio of 1.00 is exact; below 1 the estimate is low (the dangerous side).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from contextfold._calibrated import FEATURES, estimate_tokens, text_features
from contextfold._exact_tokens import load_tiktoken_encoding

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpus"
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


def load_samples(text_dir: Path, dev_dir: Path) -> list[tuple[str, str, str]]:
    """(category, split, text) triples."""
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
    return rows


def fit_weights(feats: np.ndarray, tokens: np.ndarray, cats: list[str], signed: bool) -> np.ndarray:
    """Least squares on relative error, every category weighted equally (non-negative unless ``signed``)."""
    weight = np.zeros(len(tokens))
    for cat in set(cats):
        idx = [i for i, c in enumerate(cats) if c == cat]
        total = tokens[idx].sum()
        for i in idx:
            weight[i] = 1.0 / np.sqrt(max(tokens[i], 1.0) * total) / np.sqrt(len(idx))
    # Category totals matter most (the acceptance check is per category): add
    # one strongly weighted row per category holding its summed features.
    cat_rows, cat_tok, cat_w = [], [], []
    for cat in sorted(set(cats)):
        idx = [i for i, c in enumerate(cats) if c == cat]
        cat_rows.append(feats[idx].sum(axis=0))
        cat_tok.append(tokens[idx].sum())
        cat_w.append(3.0 / tokens[idx].sum())
    feats = np.vstack([feats, np.array(cat_rows)])
    tokens = np.concatenate([tokens, np.array(cat_tok)])
    weight = np.concatenate([weight, np.array(cat_w)])
    active = list(range(feats.shape[1]))
    coef = np.zeros(feats.shape[1])
    while True:
        sol, *_ = np.linalg.lstsq(feats[:, active] * weight[:, None], tokens * weight, rcond=None)
        if signed or (sol >= 0).all():
            coef[:] = 0
            coef[active] = sol
            return coef
        active = [a for a, s in zip(active, sol, strict=True) if s > 0]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--text", type=Path, default=SHARED / "text")
    p.add_argument("--dev", type=Path, default=SHARED / "dev")
    p.add_argument("--fit", action="store_true", help="fit new weights on the fit split and print them")
    p.add_argument("--signed", action="store_true", help="--fit: allow negative weights (merge effects)")
    p.add_argument("--margin", type=float, default=1.02, help="--fit: scale so the lowest category sits here")
    p.add_argument("--out", type=Path, default=HERE / "results" / "tokens.md")
    args = p.parse_args(argv)
    if not args.text.is_dir():
        print(f"corpus not found: {args.text}", file=sys.stderr)
        return 2
    o200k = load_tiktoken_encoding("o200k_base")
    cl100k = load_tiktoken_encoding("cl100k_base")
    rows = load_samples(args.text, args.dev)
    t0 = time.perf_counter()
    data = []
    for cat, split, text in rows:
        data.append(
            {
                "cat": cat,
                "split": split,
                "o200k": len(o200k.encode_ordinary(text)),
                "cl100k": len(cl100k.encode_ordinary(text)),
                "bytes4": len(text.encode("utf-8")) / 4,
                "est": estimate_tokens(text),
                "feats": text_features(text),
            }
        )
    print(f"{len(data)} samples tokenized in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    if args.fit:
        fit = [d for d in data if d["split"] == "fit"]
        feats = np.array([d["feats"] for d in fit], float)
        tokens = np.array([d["o200k"] for d in fit], float)
        coef = fit_weights(feats, tokens, [d["cat"] for d in fit], args.signed)
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for d, f in zip(fit, feats, strict=True):
            sums[d["cat"]][0] += float(f @ coef)
            sums[d["cat"]][1] += d["o200k"]
        low = min(a / b for a, b in sums.values())
        coef *= args.margin / low
        print("WEIGHTS = (" + ", ".join(f"{c:.3g}" for c in coef) + ")  # " + ", ".join(FEATURES))

    table = defaultdict(lambda: defaultdict(float))
    for d in data:
        for split in (d["split"], "all"):
            t = table[(d["cat"], split)]
            for k in ("o200k", "cl100k", "bytes4", "est"):
                t[k] += d[k]
            t["n"] += 1
    cats = sorted({d["cat"] for d in data})
    lines = [
        "| category | samples | o200k tokens | est/o200k (fit) | est/o200k (check) | est/cl100k | bytes/4 ÷ o200k |",
        "|---|---|---|---|---|---|---|",
    ]
    worst = (9.0, -9.0)
    for cat in cats:
        a, f, c = table[(cat, "all")], table[(cat, "fit")], table[(cat, "check")]
        rf = f["est"] / f["o200k"] if f["o200k"] else float("nan")
        rc = c["est"] / c["o200k"] if c["o200k"] else float("nan")
        for r in (rf, rc):
            if r == r:
                worst = (min(worst[0], r), max(worst[1], r))
        check = f"{rc:.3f}" if rc == rc else "-"
        lines.append(
            f"| {cat} | {int(a['n'])} | {int(a['o200k'])} | {rf:.3f} | {check} | "
            f"{a['est'] / a['cl100k']:.3f} | {a['bytes4'] / a['o200k']:.3f} |"
        )
    lines.append("")
    lines.append(f"Range of est/o200k over categories and splits: {worst[0]:.3f} - {worst[1]:.3f}.")
    table_md = "\n".join(lines)
    print(table_md)
    if args.out and not args.fit:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        head = args.out.read_text(encoding="utf-8").split("<!-- calibrate -->")[0] if args.out.exists() else ""
        if not head:
            head = "# Token counting benchmarks\n\n"
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if "model name" in ln
            ),
            platform.processor(),
        )
        body = (
            "<!-- calibrate -->\n## Calibrated estimate vs exact tokenizers\n\n"
            "Command: `.venv/bin/python benchmarks/calibrate.py` "
            f"(Python {platform.python_version()}, {cpu}).\n\n" + table_md + "\n"
        )
        tail = ""
        if args.out.exists() and "<!-- /calibrate -->" in args.out.read_text(encoding="utf-8"):
            tail = args.out.read_text(encoding="utf-8").split("<!-- /calibrate -->", 1)[1]
        args.out.write_text(head + body + "<!-- /calibrate -->" + tail, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
