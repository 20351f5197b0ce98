"""Train, write and measure the learned injection model beside the rules (`contextfold._guard._learned`).

Trained on ``tests/data/guard/tune.jsonl`` only (plus benign tool results of the dev transcripts that no row of
the speed or false-positive measures uses, and benign prose), never on the frozen parts (eval .. eval5). Features,
segments and windows are the shipped module's own (`segments`, `collapse`, `bucket_ids`), so the model is trained
on exactly what it reads at run time.

Training: logistic regression over windows of `WIDTH` characters (hashed 4-gram counts divided by the square root of
the window's gram count; class-balanced; L2), numpy and scipy, full batch. Windows are taken every `STRIDE` grams
(at most `MAX_ROWS` per text). An injection's windows are not all injections (an order planted in a long page), so
training runs twice: first with every window of an injection as positive, then with only each injection's
best-scoring window (multiple-instance learning, one round). The smallest weights are pruned to `KEEP`.

Threshold: from out-of-fold scores where each fold holds out whole **sources** (leave-one-source-out: the model
never saw the held-out repository or data set, as with strings written independently of the corpus), scored
exactly as at run time (every window): the lowest threshold at which at most ``--fp`` of the benign tune strings
score above it. The same run gives the honest estimate on tune (rules, learned, either) that the table prints,
per source too (``--per-source``).

Run: .venv/bin/python benchmarks/guard_learned.py [--write] [--fp 0.02] [--dev /work/shared/corpus/dev]
``--write`` writes ``src/contextfold/_guard/injection_ngrams.gz``. bench_guard.py imports `measure` and
`table` from here for its learned-component section.
"""

from __future__ import annotations

import argparse
import collections
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
PARTS = ("tune", "eval", "eval2", "eval3", "eval4", "eval5")
KEEP = 50_000
L2 = 1e-4
EPOCHS = 200
STRIDE = 64
MAX_ROWS = 48
SOURCE_POWER = 0.0  # each text weighted by 1 / (strings of its source) ** SOURCE_POWER (0: every string alike)


def rows(part: str) -> list[dict[str, str]]:
    return [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").split("\n") if x]


def family(source: str) -> str:
    """The repository or data set a row comes from (the unit held out together)."""
    s = source.split("@")[0].split(":")[0].split(" (")[0]
    for _ in range(2):  # "base64 of opening of ..."
        for prefix in (
            "base64 of ",
            "rot13 of ",
            "leetspeak of ",
            "reversed of ",
            "spaced_letters of ",
            "homoglyphs of ",
            "opening of ",
        ):
            s = s.removeprefix(prefix)
    return "dev transcripts" if s.startswith("/work/shared") else s


def segment_ids(text: str) -> list[np.ndarray]:
    """The bucket ids of each segment the model reads in ``text`` (none: the model does not look at it)."""
    norm, raw = fold_bytes(text)
    out = []
    for lo, hi in L.segments(norm.text, raw):
        ids = L.bucket_ids(L.collapse(norm.text[lo:hi]))
        if ids.size:
            out.append(ids)
    return out


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
    """Every training text's windows (hashed gram counts), with text index and label."""

    def __init__(self, texts: list[str], labels: list[int], fams: list[str] | None = None) -> None:
        self.text_of: list[int] = []
        self.label: list[int] = []
        self.weight: list[float] = []
        sizes = collections.Counter(fams or [])
        rows: list[np.ndarray] = []
        for i, (t, y) in enumerate(zip(texts, labels, strict=True)):
            wins = []
            for ids in segment_ids(t):
                if ids.size <= L.GRAMS:  # one window: its distinct grams, as `_window_sums` reads it
                    wins.append(np.unique(ids))
                    continue
                starts = list(range(0, ids.size - L.GRAMS + 1, STRIDE))
                if starts[-1] != ids.size - L.GRAMS:
                    starts.append(ids.size - L.GRAMS)
                wins += [ids[j : j + L.GRAMS] for j in starts]
            if len(wins) > MAX_ROWS:  # evenly spaced, first and last kept
                wins = [wins[round(k * (len(wins) - 1) / (MAX_ROWS - 1))] for k in range(MAX_ROWS)]
            tw = 1.0 / sizes[fams[i]] ** SOURCE_POWER if fams else 1.0
            for w in wins:
                self.text_of.append(i)
                self.label.append(y)
                self.weight.append(tw / len(wins) if SOURCE_POWER else 1.0)
                rows.append(w)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([r.size for r in rows], out=indptr[1:])
        cols = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
        vals = np.concatenate([np.full(r.size, 1 / math.sqrt(r.size), np.float32) for r in rows]) if rows else cols
        m = sp.csr_matrix((vals, cols, indptr), shape=(len(rows), 1 << L.BITS), dtype=np.float32)
        m.sum_duplicates()  # a gram twice in a window counts twice
        self.x = m

    def __len__(self) -> int:
        return self.x.shape[0]


def _fit(
    x: sp.csr_matrix, y: np.ndarray, weight: np.ndarray, epochs: int = EPOCHS, lr: float = 2.0
) -> tuple[np.ndarray, float]:
    """Class-balanced, weighted logistic regression, L2, full-batch gradient descent with momentum."""
    w = np.zeros(x.shape[1], dtype=np.float64)
    b = 0.0
    sw = np.where(
        y == 1, 0.5 * weight / weight[y == 1].mean() / y.mean(), 0.5 * weight / weight[y == 0].mean() / (1 - y.mean())
    )
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


def train(win: Windows, idx: list[int]) -> tuple[np.ndarray, float]:
    """The weight table and bias from the windows ``idx`` (two rounds: all windows, then each injection's best)."""
    x = win.x[idx]
    y = np.asarray([win.label[i] for i in idx], dtype=np.float64)
    weight = np.asarray([win.weight[i] for i in idx])
    w, b = _fit(x, y, weight)
    # Multiple-instance round: an injection text keeps only its best-scoring window as positive.
    scores = x @ w + b
    best: dict[int, int] = {}
    for k, i in enumerate(idx):
        if win.label[i] == 1:
            t = win.text_of[i]
            if t not in best or scores[k] > scores[best[t]]:
                best[t] = k
    keep = [k for k, i in enumerate(idx) if win.label[i] == 0 or best[win.text_of[i]] == k]
    w, b = _fit(x[keep], y[keep], weight[keep])
    table = np.zeros(1 << L.BITS, np.float32)
    order = np.argsort(-np.abs(w), kind="stable")[:KEEP]
    table[order] = w[order]
    return table, float(b)


def text_scores(model: L.Model, texts: list[str]) -> np.ndarray:
    """Each text's best window score, every window read as at run time (-inf: the model does not read it)."""
    out = np.full(len(texts), -np.inf)
    for i, t in enumerate(texts):
        for ids in segment_ids(t):
            out[i] = max(out[i], L._best(model, ids)[0])
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


# Benign UI text in many languages, for training only (never a corpus row): the gettext catalogs of Debian 12
# packages installed on the measuring machine (package, version, license), read from /usr/share/locale. The password
# and authentication catalogs that are corpus sources (shadow, Linux-PAM, sudo) are not among them.
UI_CATALOGS = {
    "libsecret": "libsecret-common 0.20.5-3, LGPL-2.1-or-later",
    "system-config-printer": "system-config-printer-common 1.5.18-1, GPL-2.0-or-later",
    "PackageKit": "packagekit 1.2.6-5+deb12u1, GPL-2.0-or-later",
    "systemd": "systemd 252.39-1~deb12u2, LGPL-2.1-or-later",
    "gtk30": "libgtk-3-common 3.24.38-2~deb12u3, LGPL-2.1-or-later",
    "glib20": "libglib2.0-data 2.74.6-2+deb12u8, LGPL-2.1-or-later",
    "software-properties": "software-properties-common 0.99.30-4.1~deb12u1, GPL-2.0-or-later",
    "wget": "wget 1.21.3-1+deb12u1, GPL-3.0-or-later",
    "apt": "apt 2.6.1, GPL-2.0-or-later",
    "python-apt": "python-apt-common 2.6.0, GPL-2.0-or-later",
    "avahi": "libavahi-common-data 0.8-10+deb12u1, LGPL-2.1-or-later",
}
UI_SCREENS = 3  # per catalog and language, five messages each, in SHA-256 order
UI_KEEP = 1500
# Messages of the kinds that look like an order to reveal or change something (the English original decides).
UI_HARD = re.compile(
    r"passw|passphrase|authenticat|\bkey|token|log ?in|sign|account|e-?mail|reset|credential|secret|developer|"
    r"\bmode\b|permission|root|admin|\byou|enter|type|please|must",
    re.IGNORECASE,
)


def ui_screens(locale_dir: Path = Path("/usr/share/locale")) -> list[str]:
    """Screens of five translated messages (and the English originals) of `UI_CATALOGS`, at most `UI_KEEP`."""
    import gettext
    import hashlib
    import io

    def sha(t: str) -> str:
        return hashlib.sha256(t.encode()).hexdigest()

    out: list[str] = []
    for domain in UI_CATALOGS:
        english: set[str] = set()
        for mo in sorted(locale_dir.glob(f"*/LC_MESSAGES/{domain}.mo")):
            try:
                catalog = gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))._catalog  # type: ignore[attr-defined]
            except (IndexError, ValueError, OSError, UnicodeDecodeError):  # a malformed header: skipped
                continue
            pairs = sorted(
                (k, v)
                for k, v in catalog.items()
                if isinstance(k, str) and len(k.split()) >= 3 and isinstance(v, str) and UI_HARD.search(k)
            )
            screens = ["\n".join(v for _, v in pairs[i : i + 5]) for i in range(0, len(pairs), 5)]
            out += sorted(screens, key=sha)[:UI_SCREENS]
            english.update("\n".join(k for k, _ in pairs[i : i + 5]) for i in range(0, len(pairs), 5))
        out += sorted(english, key=sha)[: 2 * UI_SCREENS]
    return sorted(out, key=sha)[:UI_KEEP]


# Django's admin and auth catalogs (password change and reset pages, log-in forms) in about 98 languages, for
# training only: Django 5.2.8 (PyPI wheel, BSD-3-Clause), ``pip download --no-deps django==5.2.8``.
DJANGO_WHEEL = Path("/tmp/g4/wheels/django-5.2.8-py3-none-any.whl")
DJANGO_APPS = ("django/contrib/admin/", "django/contrib/auth/")


def django_screens(wheel: Path = DJANGO_WHEEL) -> list[str]:
    """Screens of five translated messages of `DJANGO_APPS`, `UI_SCREENS` per app and language (none without it)."""
    import gettext
    import hashlib
    import io
    import zipfile

    if not wheel.exists():
        return []

    def sha(t: str) -> str:
        return hashlib.sha256(t.encode()).hexdigest()

    out: list[str] = []
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if not name.endswith("LC_MESSAGES/django.mo") or not name.startswith(DJANGO_APPS):
                continue
            try:
                catalog = gettext.GNUTranslations(io.BytesIO(z.read(name)))._catalog  # type: ignore[attr-defined]
            except (IndexError, ValueError, OSError, UnicodeDecodeError):
                continue
            pairs = sorted(
                (k, v)
                for k, v in catalog.items()
                if isinstance(k, str) and len(k.split()) >= 3 and isinstance(v, str) and UI_HARD.search(k)
            )
            screens = ["\n".join(v for _, v in pairs[i : i + 5]) for i in range(0, len(pairs), 5)]
            out += sorted(screens, key=sha)[:UI_SCREENS]
            if "/locale/en/" in name:
                out += ["\n".join(k for k, _ in pairs[i : i + 5]) for i in range(0, len(pairs), 5)]
    return out


def training_set(dev: Path) -> tuple[list[dict[str, str]], list[str], list[int], list[str]]:
    tune = rows("tune")
    extra = dev_results(
        dev, 2.2, ("openhands_multiswe_llama4.jsonl", "tau_airline_gpt4o.jsonl", "swe_mini_gemini3pro.jsonl")
    )[:1500]
    prose = prose_chunks(dev.parent / "text")
    ui = ui_screens() + django_screens()
    texts = [r["text"] for r in tune] + extra + prose + ui
    labels = [int(r["label"] == "injection") for r in tune] + [0] * (len(extra) + len(prose) + len(ui))
    fams = [family(r["source"]) for r in tune] + ["dev tool results"] * len(extra) + ["shared prose"] * len(prose)
    fams += ["UI catalogs (Debian, Django)"] * len(ui)
    return tune, texts, labels, fams


def out_of_source(texts: list[str], fams: list[str], win: Windows) -> np.ndarray:
    """Leave-one-source-out scores of every text: each source with 30 strings or more held out on its own."""
    sizes = collections.Counter(fams)
    big = sorted(f for f, c in sizes.items() if c >= 30)
    groups = [[f] for f in big] + [sorted(f for f in sizes if f not in big)]
    oof = np.full(len(texts), -np.inf)
    for group in groups:
        held = set(group)
        tr = [k for k in range(len(win)) if fams[win.text_of[k]] not in held]
        table, bias = train(win, tr)
        model = L.Model(table, bias, 0.0, {})
        idx = [i for i in range(len(texts)) if fams[i] in held]
        oof[idx] = text_scores(model, [texts[i] for i in idx])
    return oof


def pick_threshold(scores: np.ndarray, benign: np.ndarray, fp: float) -> float:
    """The lowest threshold with at most ``fp`` of the benign scores above it."""
    b = np.sort(scores[benign])[::-1]
    k = int(len(b) * fp)
    return float(b[k]) if k < len(b) else float("-inf")


def measure(dev: Path, fp: float = 0.02, write: bool = False, frozen: bool = True) -> dict[str, object]:
    tune, texts, labels, fams = training_set(dev)
    win = Windows(texts, labels, fams)
    y = np.asarray(labels)
    n_tune = len(tune)
    t0 = time.time()
    oof = out_of_source(texts, fams, win)
    print(f"leave-one-source-out: {time.time() - t0:.0f} s", file=sys.stderr)
    benign_tune = np.zeros(len(texts), dtype=bool)
    benign_tune[:n_tune] = y[:n_tune] == 0
    threshold = pick_threshold(oof, benign_tune, fp)
    table, bias = train(win, list(range(len(win))))
    meta = {
        "trained_on": "tests/data/guard/tune.jsonl + dev tool results + shared prose + Debian and Django UI catalogs",
        "features": f"hashed character 4-grams ({L.BITS} bits), windows of {L.WIDTH} characters",
        "threshold_from": f"leave-one-source-out scores, at most {fp:.0%} of benign tune strings above",
    }
    model = L.Model(table, bias, threshold, meta)
    if write:
        OUT.write_bytes(L.dump_model(table, bias, threshold, meta))
        model = L.parse_model(OUT.read_bytes())
    out: dict[str, object] = {"threshold": threshold, "weights": model.nonzero or KEEP, "fp_target": fp}
    rules_tune = np.asarray([any(f.blocking for f in scan_injection(t, learned=False)) for t in texts[:n_tune]])
    learned_tune = oof[:n_tune] > threshold
    out["tune (leave-one-source-out)"] = _counts(y[:n_tune], learned_tune, rules_tune)
    per: dict[str, object] = {}
    for f in sorted(set(fams[:n_tune])):
        ix = [i for i in range(n_tune) if fams[i] == f]
        per[f] = _counts(y[ix], learned_tune[ix], rules_tune[ix])
    out["per_source"] = per
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


def source_table(m: dict[str, object]) -> str:
    """Leave-one-source-out figures on tune, one row per source (the model never saw the source it scores)."""
    per = m.get("per_source")
    if not isinstance(per, dict):
        return ""
    lines = ["| source (held out) | injections: learned | either | benign: learned | either |", "|---|---|---|---|---|"]
    for f, d in sorted(per.items(), key=lambda kv: -(kv[1]["n_inj"] + kv[1]["n_ben"])):
        lines.append(
            f"| {f} | {_pct(d['model'][0], d['n_inj'])} | {_pct(d['either'][0], d['n_inj'])} "
            f"| {_pct(d['model'][1], d['n_ben'])} | {_pct(d['either'][1], d['n_ben'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    global L2, SOURCE_POWER
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    ap.add_argument("--fp", type=float, default=0.02, help="share of benign tune strings allowed above the threshold")
    ap.add_argument("--write", action="store_true", help="write the shipped data file")
    ap.add_argument("--tune-only", action="store_true", help="leave the frozen parts unread (while choosing)")
    ap.add_argument("--per-source", action="store_true", help="also print the leave-one-source-out rows per source")
    ap.add_argument("--l2", type=float, default=L2, help="L2 penalty of the logistic regression")
    ap.add_argument("--width", type=int, default=L.WIDTH, help="window width in characters (default: the module's)")
    ap.add_argument("--source-power", type=float, default=SOURCE_POWER, help="weight 1/n**p per string of a source")
    args = ap.parse_args()
    L2, SOURCE_POWER = args.l2, args.source_power
    L.WIDTH, L.GRAMS = args.width, args.width - 3
    t0 = time.time()
    m = measure(args.dev, args.fp, args.write, frozen=not args.tune_only)
    print(table(m))
    if args.per_source:
        print(source_table(m))
    print(f"threshold {m['threshold']:.4f}, {m['weights']} weights, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
