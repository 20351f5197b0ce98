"""Train, write and measure the learned injection model beside the rules (`contextfold._guard._learned`).

Trained on ``tests/data/guard/tune.jsonl`` only (plus benign tool results of the dev transcripts that no row of
the speed or false-positive measures uses), never on an eval split (``eval`` to ``eval9``: `bench_guard.PARTS`).
Features and windows are the shipped module's own (`grams`, `trigger_windows`), so the model is trained on exactly
what it reads at run time: the windows around words that address a reader, or the whole of a short text.

Training: logistic regression over the windows (each distinct character 3- and 4-gram once, weights divided by
the square root of the window's gram count; class-balanced; L2), numpy and scipy, full batch. An injection's
windows are not all injections (an order planted in a long page), so training runs twice: first with every window
of an injection as positive, then with only each injection's best-scoring window (multiple-instance learning, one
round). Grams seen fewer than twice are dropped; the smallest weights are pruned to `KEEP` grams.

Threshold: from out-of-fold scores where each fold holds out whole **sources** (leave-one-source-out: the model
never saw the held-out repository or data set, as with strings written independently of the corpus): the lowest
threshold at which at most ``--fp`` of the benign tune strings score above it. The same leave-one-source-out run
gives the honest estimate on tune (rules, learned, either) that ``--report`` prints.

Run: .venv/bin/python benchmarks/guard_learned.py [--write] [--fp 0.01] [--dev /work/shared/corpus/dev]
``--write`` writes ``src/contextfold/_guard/injection_ngrams.gz``. bench_guard.py imports `measure` and
`table` from here for its learned-component section.
"""

from __future__ import annotations

import argparse
import collections
import gettext
import hashlib
import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from contextfold._guard import _learned as L  # noqa: E402
from contextfold._guard import scan_injection  # noqa: E402
from contextfold._guard._normalize import fold_bytes  # noqa: E402

DATA = ROOT / "tests" / "data" / "guard"
OUT = ROOT / "src" / "contextfold" / "_guard" / L.DATA_FILE
PARTS = ("tune", "eval", "eval2", "eval3", "eval4", "eval5", "eval6", "eval7", "eval8", "eval9")
KEEP = 30_000
MIN_COUNT = 2
L2 = 1e-4
EPOCHS = 300
USE_CATALOGS = False  # --catalogs (round 9: measured, not shipped; docs/guard.md)
POOL_CATALOGS = False  # --pool-catalogs: the catalog messages join the threshold's pool of benign strings


def rows(part: str) -> list[dict[str, str]]:
    return [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").split("\n") if x]


def family(source: str) -> str:
    """The repository or data set a row comes from (the unit held out together)."""
    s = source.split("@")[0].split(":")[0].split(" (")[0]
    for prefix in ("base64 of ", "rot13 of ", "leetspeak of ", "reversed of "):
        s = s.removeprefix(prefix)
    return "dev transcripts" if s.startswith("/work/shared") else s


def windows_of(text: str) -> list[str]:
    """The folded windows the model reads in ``text`` (none: the model does not look at it)."""
    norm, raw = fold_bytes(text)
    return [norm.text[lo:hi] for lo, hi in L.trigger_windows(norm.text, raw)]


def dev_results(dev: Path, skip_mb: float = 0.0, files: tuple[str, ...] = ()) -> list[str]:
    out: list[str] = []
    for name in files:
        path = dev / name
        if not path.exists():
            continue
        size = 0
        for line in path.read_text(encoding="utf-8").split("\n"):
            if not line:
                continue
            for m in json.loads(line)["messages"]:
                if m["role"] == "tool" and isinstance(m["content"], str) and m["content"]:
                    size += len(m["content"])
                    if name != "swe_mini_gemini3pro.jsonl" or size > skip_mb * 1e6:
                        out.append(m["content"])
    return out


def dev_measured(dev: Path) -> list[str]:
    """The first 2 MB of SWE tool results (the rows of bench_guard.py's throughput table)."""
    out: list[str] = []
    size = 0
    for t in dev_results(dev, files=("swe_mini_gemini3pro.jsonl",)):
        out.append(t)
        size += len(t)
        if size > 2_000_000:
            break
    return out


class Windows:
    """Every training text's windows as gram sets, with text index and label."""

    def __init__(self, texts: list[str], labels: list[int]) -> None:
        self.text_of: list[int] = []
        self.label: list[int] = []
        self.grams: list[set[str]] = []
        for i, (t, y) in enumerate(zip(texts, labels, strict=True)):
            for w in windows_of(t):
                g = L.grams(w)
                if g:
                    self.text_of.append(i)
                    self.label.append(y)
                    self.grams.append(g)

    def matrix(self, idx: list[int], vocab: dict[str, int]) -> sp.csr_matrix:
        r: list[int] = []
        c: list[int] = []
        v: list[float] = []
        for k, i in enumerate(idx):
            g = self.grams[i]
            js = sorted(vocab[x] for x in g if x in vocab)  # sorted: the same sums in every process
            r += [k] * len(js)
            c += js
            v += [1 / math.sqrt(len(g))] * len(js)
        return sp.csr_matrix((v, (r, c)), shape=(len(idx), len(vocab)), dtype=np.float32)


def _fit(x: sp.csr_matrix, y: np.ndarray, epochs: int = EPOCHS, lr: float = 2.0) -> tuple[np.ndarray, float]:
    """Class-balanced logistic regression, L2, full-batch gradient descent with momentum."""
    w = np.zeros(x.shape[1], dtype=np.float64)
    b = 0.0
    pos = y.mean()
    sw = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))
    xt = x.T.tocsr()
    vw = np.zeros_like(w)
    vb = 0.0
    for _ in range(epochs):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * sw / len(y)
        vw = 0.9 * vw + xt @ g + L2 * w
        vb = 0.9 * vb + g.sum()
        w -= lr * vw
        b -= lr * vb
    return w, b


def train(win: Windows, idx: list[int]) -> tuple[dict[str, float], float]:
    """Weights by gram and bias from the windows ``idx`` (two rounds: all windows, then each injection's best)."""
    counts: collections.Counter[str] = collections.Counter()
    for i in idx:
        counts.update(win.grams[i])
    vocab = {g: j for j, g in enumerate(sorted(g for g, c in counts.items() if c >= MIN_COUNT))}
    x = win.matrix(idx, vocab)
    y = np.asarray([win.label[i] for i in idx], dtype=np.float64)
    w, b = _fit(x, y)
    # Multiple-instance round: an injection text keeps only its best-scoring window as positive.
    scores = x @ w + b
    best: dict[int, int] = {}
    for k, i in enumerate(idx):
        if win.label[i] == 1:
            t = win.text_of[i]
            if t not in best or scores[k] > scores[best[t]]:
                best[t] = k
    keep = [k for k, i in enumerate(idx) if win.label[i] == 0 or best[win.text_of[i]] == k]
    w, b = _fit(x[keep], y[keep])
    names = sorted(vocab, key=vocab.__getitem__)
    order = np.argsort(-np.abs(w))[:KEEP]
    return {names[j]: float(w[j]) for j in order if w[j]}, float(b)


def text_scores(model: L.Model, texts: list[str]) -> np.ndarray:
    """Each text's best window score (-inf: no window)."""
    out = np.full(len(texts), -np.inf)
    for i, t in enumerate(texts):
        ws = windows_of(t)
        if ws:
            out[i] = max(model.score(w) for w in ws)
    return out


PROSE = ("en_prose.md", "zh_prose.md", "zh_tech_docs.md")
PROSE_CHUNKS = 300  # per file


def prose_chunks(text_dir: Path) -> list[str]:
    """Benign prose that speaks to a reader ("you'll write ..."): paragraphs of the shared calibration text (the Rust
    book in English and Chinese, FastAPI's Chinese docs) joined up to about 1,000 characters, the first chunks of
    each file."""
    out: list[str] = []
    for name in PROSE:
        path = text_dir / name
        if not path.exists():
            continue
        chunks: list[str] = []
        cur = ""
        for para in path.read_text(encoding="utf-8").split("\n\n"):
            if cur and len(cur) + len(para) > 1000:
                chunks.append(cur)
                cur = ""
            cur = f"{cur}\n\n{para}" if cur else para
        out += chunks[:PROSE_CHUNKS]
    return out


# Message catalogs of the machine's packages (gettext ``.mo``; GPL / LGPL / BSD: read at training time, never
# copied into the corpus): UI text in many languages about passwords, keys, settings, errors and what "you" should
# do next, the benign look-alikes the corpus holds too few of (round 9, ``--catalogs``; training only, not in the
# threshold's pool).
CATALOGS = (
    "PackageKit", "apt", "libapt-pkg6.0", "software-properties", "python-apt", "dpkg", "git", "glib20", "gtk20",
    "gnupg2", "coreutils", "grep", "wget", "bash", "findutils", "adduser", "avahi", "appstream",
)  # fmt: skip
CATALOG_TEXTS = 2000
_CATALOG_WORD = re.compile(
    r"(?i)\b(?:you|your|password|passphrase|key|token|ignore|ignored|forget|system|developer|mode|admin|root|"
    r"instructions?|rules?|previous|prompt)\b"
)


def catalog_texts(root: Path = Path("/usr/share/locale")) -> list[str]:
    """Translated messages (and their English originals) of `CATALOGS`, 20-600 characters, that hold a word of
    `_CATALOG_WORD` in the original: the first `CATALOG_TEXTS` by SHA-256."""
    found: dict[str, str] = {}
    for mo in sorted(root.glob("*/LC_MESSAGES/*.mo")):
        if mo.stem not in CATALOGS:
            continue
        try:
            with mo.open("rb") as fh:
                cat = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
        except (OSError, UnicodeDecodeError, IndexError, ValueError):  # a catalog gettext cannot parse
            continue
        for key, value in cat.items():
            orig = key[0] if isinstance(key, tuple) else key
            if not isinstance(orig, str) or not isinstance(value, str) or not _CATALOG_WORD.search(orig):
                continue
            for t in (orig, value):
                t = t.replace("_", "").replace("%s", "").strip()
                if 20 <= len(t) <= 600:
                    found.setdefault(hashlib.sha256(t.encode()).hexdigest(), t)
    return [found[h] for h in sorted(found)[:CATALOG_TEXTS]]


def training_set(dev: Path) -> tuple[list[dict[str, str]], list[str], list[int], list[str]]:
    tune = rows("tune")
    extra = dev_results(
        dev, 2.2, ("openhands_multiswe_llama4.jsonl", "tau_airline_gpt4o.jsonl", "swe_mini_gemini3pro.jsonl")
    )[:1500]
    prose = prose_chunks(dev.parent / "text")
    catalogs = catalog_texts() if USE_CATALOGS else []
    texts = [r["text"] for r in tune] + extra + prose + catalogs
    labels = [int(r["label"] == "injection") for r in tune] + [0] * (len(extra) + len(prose) + len(catalogs))
    fams = (
        [family(r["source"]) for r in tune]
        + ["dev tool results"] * len(extra)
        + ["shared prose"] * len(prose)
        + ["ui catalogs"] * len(catalogs)
    )
    return tune, texts, labels, fams


def out_of_source(texts: list[str], labels: list[int], fams: list[str], win: Windows) -> np.ndarray:
    """Leave-one-source-out scores of every text: each source with 30 strings or more held out on its own."""
    sizes = collections.Counter(fams)
    big = sorted(f for f, c in sizes.items() if c >= 30)
    groups = [[f] for f in big] + [sorted(f for f in sizes if f not in big)]
    oof = np.full(len(texts), -np.inf)
    for group in groups:
        held = set(group)
        tr = [k for k in range(len(win.grams)) if fams[win.text_of[k]] not in held]
        weights, bias = train(win, tr)
        model = L.Model(weights, bias, 0.0, {})
        for k in range(len(win.grams)):
            i = win.text_of[k]
            if fams[i] in held:
                g = win.grams[k]
                s = bias + math.fsum(weights.get(x, 0.0) for x in g) / math.sqrt(len(g))
                oof[i] = max(oof[i], s)
        del model
    return oof


def pick_threshold(scores: np.ndarray, benign: np.ndarray, fp: float) -> float:
    """The lowest threshold with at most ``fp`` of the benign scores above it."""
    b = np.sort(scores[benign])[::-1]
    k = int(len(b) * fp)
    return float(b[k]) if k < len(b) else float("-inf")


def measure(dev: Path, fp: float = 0.01, write: bool = False, frozen: bool = True) -> dict[str, object]:
    tune, texts, labels, fams = training_set(dev)
    win = Windows(texts, labels)
    y = np.asarray(labels)
    n_tune = len(tune)
    oof = out_of_source(texts, labels, fams, win)
    benign_tune = np.zeros(len(texts), dtype=bool)
    benign_tune[:n_tune] = y[:n_tune] == 0
    if POOL_CATALOGS:  # the threshold's pool: the benign tune strings and the catalog messages (held out as a family)
        benign_tune |= np.asarray([f == "ui catalogs" for f in fams])
    threshold = pick_threshold(oof, benign_tune, fp)
    weights, bias = train(win, list(range(len(win.grams))))
    meta = {
        "trained_on": "tests/data/guard/tune.jsonl + 1500 dev tool results + shared prose chunks"
        + (f" + {CATALOG_TEXTS} UI catalog messages" if USE_CATALOGS else ""),
        "ngrams": list(L.NGRAMS),
        "words": L.WORDS,
        "threshold_from": f"leave-one-source-out scores, at most {fp:.0%} of benign tune strings above",
    }
    model = L.Model(weights, bias, threshold, meta)
    if write:
        OUT.write_bytes(L.dump_model(weights, bias, threshold, meta))
        model = L.parse_model(OUT.read_bytes())
    out: dict[str, object] = {"threshold": threshold, "grams": len(model.weights), "fp_target": fp}
    rules_tune = np.asarray([any(f.blocking for f in scan_injection(t, learned=False)) for t in texts[:n_tune]])
    learned_tune = oof[:n_tune] > threshold
    out["tune (leave-one-source-out)"] = _counts(y[:n_tune], learned_tune, rules_tune)
    for part in PARTS[1:] if frozen else ():
        rs = rows(part)
        if not rs:
            continue
        yy = np.asarray([int(r["label"] == "injection") for r in rs])
        ts = [r["text"] for r in rs]
        learned = text_scores(model, ts) > model.threshold
        rules = np.asarray([any(f.blocking for f in scan_injection(t, learned=False)) for t in ts])
        out[part] = _counts(yy, learned, rules)
    results = dev_measured(dev)
    if results:
        flagged = text_scores(model, results) > model.threshold
        blocked = [any(f.blocking for f in scan_injection(t, learned=False)) for t in results]
        out["dev"] = {"results": len(results), "model_flagged": int(flagged.sum()), "rules_blocked": sum(blocked)}
    out["model"] = model
    return out


def _counts(y: np.ndarray, learned: np.ndarray, rules: np.ndarray) -> dict[str, object]:
    inj, ben = y == 1, y == 0
    either = learned | rules
    return {
        "n_inj": int(inj.sum()),
        "n_ben": int(ben.sum()),
        "model": (int(learned[inj].sum()), int(learned[ben].sum())),
        "rules": (int(rules[inj].sum()), int(rules[ben].sum())),
        "either": (int(either[inj].sum()), int(either[ben].sum())),
    }


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f} %" if b else "–"


def table(m: dict[str, object]) -> str:
    lines = [
        "| part | learned: recall | learned: FP | rules: recall | rules: FP | either: recall | either: FP |",
        "|---|---|---|---|---|---|---|",
    ]
    for part in ("tune (leave-one-source-out)", *PARTS[1:]):
        d = m.get(part)
        if not isinstance(d, dict):
            continue
        ni, nb = d["n_inj"], d["n_ben"]
        cells = [f"| {part} "]
        for key in ("model", "rules", "either"):
            hi, hb = d[key]
            cells.append(f"| {_pct(hi, ni)} | {_pct(hb, nb)} ")
        lines.append("".join(cells) + "|")
    dev = m.get("dev")
    if isinstance(dev, dict):
        lines += [
            "",
            f"Dev tool results ({dev['results']}, the first 2 MB of the SWE transcripts): the learned model flags "
            f"{dev['model_flagged']}, the rules block {dev['rules_blocked']}.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    ap.add_argument("--fp", type=float, default=0.01, help="share of benign tune strings allowed above the threshold")
    ap.add_argument("--write", action="store_true", help="write the shipped data file")
    ap.add_argument("--tune-only", action="store_true", help="leave the frozen parts unread (while choosing)")
    ap.add_argument("--l2", type=float, default=1e-4, help="L2 penalty of the logistic regression")
    ap.add_argument("--words", action="store_true", help="words and word pairs beside the character n-grams")
    ap.add_argument("--ngrams", default="", help="character n-gram lengths, e.g. 3,4 (default: the module's)")
    ap.add_argument("--catalogs", action="store_true", help="train with the machine's message catalogs as benign")
    ap.add_argument("--pool-catalogs", action="store_true", help="and set the threshold over them and tune's benign")
    args = ap.parse_args()
    global L2, USE_CATALOGS, POOL_CATALOGS
    L2 = args.l2
    USE_CATALOGS = args.catalogs or args.pool_catalogs
    POOL_CATALOGS = args.pool_catalogs
    if args.words:
        L.WORDS = True
    if args.ngrams:
        L.NGRAMS = tuple(int(n) for n in args.ngrams.split(","))
    t0 = time.time()
    m = measure(args.dev, args.fp, args.write, frozen=not args.tune_only)
    print(table(m))
    print(f"threshold {m['threshold']:.4f}, {m['grams']} grams, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
