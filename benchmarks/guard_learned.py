"""A learned injection detector measured beside the rules: hashed character n-grams, logistic regression.

Trained here on ``tests/data/guard/tune.jsonl`` only (numpy, full-batch gradient descent with L2; no download,
no other dependency), then scored on the frozen ``eval.jsonl`` and ``eval2.jsonl``, on the dev transcripts' tool
results (the share of real tool results it would block), and for speed with pure-Python inference (what a core
without numpy would run), side by side with the rules (`scan_injection`). Features: the distinct character 3-, 4-
and 5-grams of the folded text (`contextfold._guard._normalize`), hashed with CRC32 into 2**18 buckets, binary.
Negatives also include 1,500 tool results of the dev transcripts the speed and false-positive rows do not use (the
OpenHands and tau-bench files and the SWE conversations after the first 2 MB). The threshold is chosen from
out-of-fold scores (two folds of the training set): at most 2 % of the benign training strings above it.

Run: .venv/bin/python benchmarks/guard_learned.py [--dev /work/shared/corpus/dev]
(bench_guard.py imports `measure` and `table` from here for the learned-component section of its results.)
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from pathlib import Path

import numpy as np

from contextfold._guard import scan_injection
from contextfold._guard._normalize import fold_bytes

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "guard"
BUCKETS = 1 << 18
NGRAMS = (3, 4, 5)


def rows(part: str) -> list[dict[str, str]]:
    return [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").split("\n") if x]


def features(text: str) -> list[int]:
    """Bucket ids of the distinct character n-grams of the folded text (the first 4,000 characters)."""
    folded = fold_bytes(text[:4000])[0].text
    grams = {folded[i : i + n] for n in NGRAMS for i in range(len(folded) - n + 1)}
    return sorted({zlib.crc32(g.encode("utf-8")) & (BUCKETS - 1) for g in grams})


def train(texts: list[str], labels: list[int], epochs: int = 300, lr: float = 0.5, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression over binary hashed features (full batch; the tune split is small)."""
    x = np.zeros((len(texts), BUCKETS), dtype=np.float32)
    for i, t in enumerate(texts):
        x[i, features(t)] = 1.0
    y = np.asarray(labels, dtype=np.float32)
    w = np.zeros(BUCKETS + 1, dtype=np.float32)
    pos = y.mean()
    weight = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos)).astype(np.float32)  # balance the classes
    for _ in range(epochs):
        z = x @ w[:-1] + w[-1]
        p = 1 / (1 + np.exp(-z))
        g = (p - y) * weight
        w[:-1] -= lr * (x.T @ g / len(y) + l2 * w[:-1])
        w[-1] -= lr * g.mean()
    return w


def score(w: list[float], bias: float, text: str) -> float:
    """Pure-Python inference (what the core would run without numpy): the sum of the weights of the n-grams."""
    return bias + sum(w[b] for b in features(text))


def _tool_results(path: Path, skip_mb: float = 0.0, limit: int | None = None) -> list[str]:
    out: list[str] = []
    size = 0
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        for m in json.loads(line)["messages"]:
            if m["role"] == "tool" and isinstance(m["content"], str) and m["content"]:
                size += len(m["content"])
                if size > skip_mb * 1e6:
                    out.append(m["content"])
        if limit is not None and len(out) >= limit:
            break
    return out[:limit] if limit is not None else out


def _dev_measured(dev: Path) -> list[str]:
    """The first 2 MB of SWE tool results (the rows of bench_guard.py's throughput table)."""
    out: list[str] = []
    size = 0
    for t in _tool_results(dev / "swe_mini_gemini3pro.jsonl"):
        out.append(t)
        size += len(t)
        if size > 2_000_000:
            break
    return out


def measure(dev: Path) -> dict[str, object]:
    tune = rows("tune")
    extra = (
        _tool_results(dev / "openhands_multiswe_llama4.jsonl")
        + _tool_results(dev / "tau_airline_gpt4o.jsonl")
        + _tool_results(dev / "swe_mini_gemini3pro.jsonl", skip_mb=2.2)
    )[:1500]
    texts = [r["text"] for r in tune] + extra
    labels = [int(r["label"] == "injection") for r in tune] + [0] * len(extra)
    # Out-of-fold scores for the threshold, then the final model on everything.
    oof: list[float] = [0.0] * len(texts)
    for fold in (0, 1):
        idx = [i for i in range(len(texts)) if i % 2 != fold]
        w_f = train([texts[i] for i in idx], [labels[i] for i in idx])
        wl, b = w_f[:-1].tolist(), float(w_f[-1])
        for i in range(fold, len(texts), 2):
            oof[i] = score(wl, b, texts[i])
    benign = sorted((s for s, lab in zip(oof, labels, strict=True) if lab == 0), reverse=True)
    threshold = benign[max(0, int(len(benign) * 0.02))]
    w_np = train(texts, labels)
    w, bias = w_np[:-1].tolist(), float(w_np[-1])
    out: dict[str, object] = {"threshold": threshold}
    for part in ("tune", "eval", "eval2"):
        rs = rows(part)
        inj = [r for r in rs if r["label"] == "injection"]
        ben = [r for r in rs if r["label"] == "benign"]
        model = {id(r): score(w, bias, r["text"]) > threshold for r in inj + ben}
        rules = {id(r): any(f.blocking for f in scan_injection(r["text"])) for r in inj + ben}
        out[part] = {
            "n_inj": len(inj),
            "n_ben": len(ben),
            "model": (sum(model[id(r)] for r in inj), sum(model[id(r)] for r in ben)),
            "rules": (sum(rules[id(r)] for r in inj), sum(rules[id(r)] for r in ben)),
            "either": (
                sum(model[id(r)] or rules[id(r)] for r in inj),
                sum(model[id(r)] or rules[id(r)] for r in ben),
            ),
        }
    results = _dev_measured(dev) if (dev / "swe_mini_gemini3pro.jsonl").exists() else []
    if results:
        flagged = sum(score(w, bias, t) > threshold for t in results)
        blocked = sum(any(f.blocking for f in scan_injection(t)) for t in results)
        mb = sum(len(t.encode()) for t in results) / 1e6
        t0 = time.process_time()
        for t in results:
            score(w, bias, t)
        model_s = time.process_time() - t0
        t0 = time.process_time()
        for t in results:
            scan_injection(t)
        rules_s = time.process_time() - t0
        out["dev"] = {
            "results": len(results),
            "model_flagged": flagged,
            "rules_blocked": blocked,
            "mb": mb,
            "model_mb_s": mb / model_s,
            "rules_mb_s": mb / rules_s,
        }
    return out


def table(m: dict[str, object]) -> str:
    lines = [
        "| part | learned: recall | learned: FP | rules: recall | rules: FP | either: recall | either: FP |",
        "|---|---|---|---|---|---|---|",
    ]
    for part in ("tune", "eval", "eval2"):
        d = m[part]
        assert isinstance(d, dict)
        ni, nb = d["n_inj"], d["n_ben"]
        cells = [f"| {part} "]
        for key in ("model", "rules", "either"):
            hi, hb = d[key]
            cells.append(f"| {hi}/{ni} = {100 * hi / ni:.1f} % | {hb}/{nb} = {100 * hb / nb:.1f} % ")
        lines.append("".join(cells) + "|")
    dev = m.get("dev")
    if isinstance(dev, dict):
        lines += [
            "",
            f"Dev tool results ({dev['results']}, {dev['mb']:.2f} MB of SWE transcripts): the learned model flags "
            f"{dev['model_flagged']}, the rules block {dev['rules_blocked']}. Speed (CPU time, one call per "
            f"result, pure-Python inference): learned {dev['model_mb_s']:.2f} MB/s, rules {dev['rules_mb_s']:.1f} "
            "MB/s.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    args = ap.parse_args()
    print(table(measure(args.dev)))


if __name__ == "__main__":
    main()
