"""A learned second opinion beside the rules: a linear model over hashed character 4-grams, read over all prose.

The rules (`contextfold._guard._rules`) catch the phrasings they were written for; a paraphrase, a persona
reassignment or an order in a language the rules do not list passes them. This model reads the folded text
(blank runs collapsed to one blank) as character 4-grams, each hashed to one of ``2**BITS`` weights, and scores
every window of `WIDTH` characters: the weights of its grams summed, divided by the square root of their count,
plus the bias (a text of one window counts each distinct gram once). A run of windows above the threshold
becomes a ``learned.injection`` finding. Trained offline on the tune split of ``tests/data/guard`` (and benign
tool results, prose and UI text) by ``benchmarks/guard_learned.py``; shipped as a data file
(``injection_ngrams.gz``, read on first use; no download at run time).

Where it reads (`segments`): a text is cut in chunks of `CHUNK` characters, and every chunk that reads as prose,
holds a word that addresses a reader (`TRIGGER_WORDS`) or holds another script is read, with `EDGE` characters
of context each side. Code, logs and tables without such a word are left to the rules; prose is read anywhere,
with or without a trigger word. Scoring is vectorized (numpy, imported on first use): a few array operations per
segment, linear in its length, with no per-window Python; the same segments and windows are read in training, so
what the model learned is what it is asked.
"""

from __future__ import annotations

import bisect
import gzip
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from contextfold._guard._normalize import fold_bytes
from contextfold._lazy import Once

__all__ = [
    "BITS",
    "CHUNK",
    "DATA_FILE",
    "WIDTH",
    "Model",
    "bucket_ids",
    "collapse",
    "dump_model",
    "load_model",
    "parse_model",
    "score_segments",
    "segments",
]

# Words (folded, ASCII letters only) that address a reader or speak about instructions: a chunk of code or a log
# that holds one is read too (prose is read without one).
_TRIGGER_TEXT = (
    # English
    "you your yours yourself yourselves ai assistant assistants chatbot chatgpt gpt llm claude gemini "
    "ignore disregard forget pretend roleplay instructions instruction prompt prompts jailbreak dan persona "
    # German, French, Spanish, Italian, Portuguese, Dutch
    "du dich dein deine deinen deiner deinem ihnen anweisungen anweisung vergiss ignoriere ignorieren ki "
    "tu toi vous votre vos ignorez oublie oubliez ia usted ignora olvida olvidate instrucciones "
    "tuo tua voi dimentica istruzioni voce teu esqueca instrucoes jij jouw negeer vergeet instructies "
    # Turkish, Indonesian, Tagalog (folded: accents gone; words that are also English or code are left out)
    "talimat talimatlari unut kamu anda abaikan lupakan instruksi ikaw iyong kalimutan "
    # Orders and what they are about
    "say tell respond answer reply rules previous act roleplaying simulate "
    "sie ihr euch schreibe schreib sage sag antworte antworten regeln bisherigen vorherigen modus "
    "ecris dis reponds regles precedentes escribe di responde reglas anteriores "
    "sen sana seni senin kurallar onceki yanitla"
)
TRIGGER_WORDS: frozenset[bytes] = frozenset(_TRIGGER_TEXT.encode().split())
BITS = 18
WIDTH = 256  # characters of a window (blank runs counted as one)
GRAMS = WIDTH - 3  # 4-grams of a window
CHUNK = 1024
EDGE = 256
MAX_FINDINGS = 16
_MULT = 0x9E3779B1  # Fibonacci hashing: the top BITS bits of gram * _MULT (mod 2**32) pick the weight
_BLANK_CHARS = " \t\n\r\x0b\x0c"  # what ``bytes.split()`` splits at
_BLANKS = re.compile("[" + _BLANK_CHARS + "]+")
_NON_BLANK = re.compile("[^" + _BLANK_CHARS + "]+")
_LETTERS = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
# Bytes that are neither letters, digits nor blanks (symbols) become ``#``: code and markup are full of them, prose
# is not.
_NOT_SYMBOL = bytes(range(97, 123)) + bytes(range(65, 91)) + b"0123456789 \n\t.,'?"
_MARK_SYMBOLS = bytes(32 if c in _NOT_SYMBOL else 35 for c in range(256))


def _np() -> Any:
    import numpy  # imported on first use: ``import contextfold`` stays light

    return numpy


def collapse(segment: str) -> str:
    """``segment`` with every run of blanks one blank, framed by one blank each side (what the grams are cut from)."""
    return " " + " ".join(_NON_BLANK.findall(segment)) + " "


def bucket_ids(collapsed: str | bytes) -> Any:
    """The weight index of each 4-gram of ``collapsed``, in order (``uint32``; empty below four characters).

    A gram of code points ``c0 c1 c2 c3`` is ``c0 + c1 << 8 + c2 << 16 + c3 << 24`` (mod 2**32: for ASCII the four
    bytes read as one little-endian word), hashed by its top `BITS` bits after a multiply. ASCII ``bytes`` and the
    same text as ``str`` give the same ids.
    """
    np = _np()
    if isinstance(collapsed, bytes):
        if len(collapsed) < 4:
            return np.zeros(0, np.uint32)
        # Every 4-byte word at every offset, one zero-copy view (unaligned, stride one byte), then hashed.
        g = np.ndarray((len(collapsed) - 3,), "<u4", collapsed, 0, (1,)) * np.uint32(_MULT)
    else:
        a = np.frombuffer(collapsed.encode("utf-32-le"), "<u4").astype(np.uint32)
        if a.size < 4:
            return np.zeros(0, np.uint32)
        g = a[:-3] + (a[1:-2] << np.uint32(8)) + (a[2:-1] << np.uint32(16)) + (a[3:] << np.uint32(24))
        g *= np.uint32(_MULT)
    g >>= np.uint32(32 - BITS)
    return g


def _prose(raw: bytes, marks: bytes, lo: int, hi: int) -> bool:
    """Whether ``raw[lo:hi]`` reads as prose: at most one character in twelve a symbol (``=(){}[]<>_/#``, ...).

    ``marks`` is ``raw`` with every symbol a ``#`` (`_MARK_SYMBOLS`). Indentation does not dilute the symbols of
    code: a pair of blanks or a tab is not counted as a character. Only C-level counts, no copy.
    """
    symbols = marks.count(b"#", lo, hi)
    return symbols * 12 <= hi - lo - 2 * raw.count(b"  ", lo, hi) - raw.count(b"\t", lo, hi)


def segments(
    folded: str, raw: bytes, toks: set[bytes] | None = None, spaced: bytes | None = None
) -> list[tuple[int, int]]:
    """The spans of ``folded`` the model reads (ordered, disjoint).

    The text is cut in chunks of `CHUNK` characters; a chunk is read when it reads as prose, holds a trigger word
    (`TRIGGER_WORDS`) or a character outside ASCII, each run of such chunks widened by `EDGE` characters each
    side. ``raw`` is ``folded`` as one byte per character (`contextfold._guard._normalize.fold_bytes`); ``toks``
    its distinct letter runs and ``spaced`` its letters with every other byte a blank, framed by blanks, if known.
    """
    n = len(raw)
    if n < 4:
        return []
    if spaced is None:
        spaced = b" " + raw.translate(_LETTERS) + b" "
    if toks is None:
        toks = set(spaced.split())
    if not toks and folded.isascii():
        return []
    words = TRIGGER_WORDS.intersection(toks)
    ascii_text = folded.isascii()
    if n <= CHUNK:
        return [(0, n)] if words or not ascii_text or _prose(raw, raw.translate(_MARK_SYMBOLS), 0, n) else []
    marks = raw.translate(_MARK_SYMBOLS)
    marked: list[int] = []
    for k, lo in enumerate(range(0, n, CHUNK)):
        hi = min(n, lo + CHUNK)
        if (
            _prose(raw, marks, lo, hi)
            or (not ascii_text and not folded[lo:hi].isascii())
            or (words and _holds_word(spaced, words, lo, hi))
        ):
            marked.append(k)
    out: list[tuple[int, int]] = []
    for k in marked:
        lo, hi = max(0, k * CHUNK - EDGE), min(n, (k + 1) * CHUNK + EDGE)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


_NOT_LETTER = bytes(c for c in range(256) if not (97 <= c <= 122 or c == 63))


def _holds_word(spaced: bytes, words: frozenset[bytes], lo: int, hi: int) -> bool:
    """Whether ``raw[lo:hi]`` holds one of ``words`` as a letter run (``spaced`` is framed: index i is raw[i-1])."""
    piece = spaced[lo : hi + 2]
    return any(piece.find(b" " + w + b" ") >= 0 for w in words)


@dataclass(frozen=True, slots=True)
class Model:
    """The weight table (``2**BITS`` float32, most zero), the bias and the decision threshold."""

    table: Any  # numpy.ndarray, float32
    bias: float
    threshold: float
    meta: dict[str, object]
    nonzero: int = field(default=0)

    def score(self, folded: str) -> float:
        """The best window score of ``folded`` read whole (what `score_segments` compares with the threshold)."""
        return _best(self, bucket_ids(collapse(folded)))[0]


def _window_sums(model: Model, ids: Any) -> tuple[Any, Any, int]:
    """The weight of every gram, the sum over every window of `GRAMS` grams, and the grams a window counts.

    A text of at most `GRAMS` grams is one window whose **distinct** grams count once each (an order that says
    "you" four times is not four times an order); a longer text's windows count every gram (a cumulative sum:
    linear, with no per-window work).
    """
    np = _np()
    w = model.table[ids]
    if w.size <= GRAMS:
        u = np.unique(ids)
        return w, np.asarray([model.table[u].sum(dtype=np.float64)]), int(u.size)
    c = np.cumsum(w, dtype=np.float64)
    sums = c[GRAMS - 1 :].copy()
    sums[1:] -= c[:-GRAMS]
    return w, sums, GRAMS


def _best(model: Model, ids: Any) -> tuple[float, int]:
    if ids.size == 0:
        return model.bias, 0
    _, sums, count = _window_sums(model, ids)
    j = int(sums.argmax())
    return model.bias + float(sums[j]) / math.sqrt(count), j


def score_segments(model: Model, folded: str, raw: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """``(start, end, at)`` in ``folded`` of each run of windows scoring above the threshold (at most `MAX_FINDINGS`).

    ``at`` is where the heaviest gram of the run's best window starts (its context decides the severity).
    """
    np = _np()
    out: list[tuple[int, int, int]] = []
    ascii_text = folded.isascii()
    for lo, hi in spans:
        if ascii_text:
            seg_b = raw[lo:hi]
            col: str | bytes = b" " + b" ".join(seg_b.split()) + b" "
        else:
            col = collapse(folded[lo:hi])
        ids = bucket_ids(col)
        if ids.size == 0:
            continue
        w, sums, count = _window_sums(model, ids)
        limit = (model.threshold - model.bias) * math.sqrt(count)
        over = sums > limit
        if not over.any():
            continue
        index = _Index(folded, lo, hi)
        flagged = np.flatnonzero(over)
        breaks = np.flatnonzero(np.diff(flagged) > 1)
        starts = np.concatenate(([flagged[0]], flagged[breaks + 1]))
        ends = np.concatenate((flagged[breaks], [flagged[-1]]))
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            best = a + int(sums[a : b + 1].argmax())
            span = GRAMS if w.size > GRAMS else w.size  # grams of a window
            heavy = best + int(w[best : best + span].argmax())
            out.append((index.at(a), index.at(b + span + 2) + 1, index.at(heavy)))
            if len(out) == MAX_FINDINGS:
                return out
    return out


class _Index:
    """Offsets of the collapsed text of ``folded[lo:hi]`` (`collapse`) mapped back to offsets of ``folded``."""

    def __init__(self, folded: str, lo: int, hi: int) -> None:
        self.src: list[int] = []  # where each run of non-blanks starts in folded
        self.dst: list[int] = []  # and in the collapsed text
        self.lens: list[int] = []
        pos = 1
        for m in _NON_BLANK.finditer(folded, lo, hi):
            self.src.append(m.start())
            self.dst.append(pos)
            self.lens.append(m.end() - m.start())
            pos += m.end() - m.start() + 1
        self.lo, self.hi = lo, hi

    def at(self, x: int) -> int:
        """The offset in ``folded`` of the character at collapsed offset ``x`` (a blank: just after the run before)."""
        k = bisect.bisect_right(self.dst, x) - 1
        if k < 0:
            return self.src[0] if self.src else self.lo
        d = x - self.dst[k]
        if d < self.lens[k]:
            return self.src[k] + d
        return min(self.hi - 1, self.src[k] + self.lens[k])


def parse_model(data: bytes) -> Model:
    """Read the data file (gzip): a JSON header line, the nonzero weights' indices (uint32) and values (float32).

    Little-endian, indices ascending. The header gives the bias, the threshold, `BITS` and the count.
    """
    np = _np()
    raw = gzip.decompress(data)
    nl = raw.index(b"\n")
    meta = json.loads(raw[:nl])
    n = int(meta["weights"])
    if int(meta["bits"]) != BITS or len(raw) != nl + 1 + 8 * n:
        raise ValueError(f"{DATA_FILE}: {n} weights of {meta['bits']} bits announced, {len(raw) - nl - 1} bytes found")
    idx = np.frombuffer(raw, "<u4", n, nl + 1)
    val = np.frombuffer(raw, "<f4", n, nl + 1 + 4 * n)
    if n and (int(idx.max()) >= 1 << BITS or bool((np.diff(idx.astype(np.int64)) <= 0).any())):
        raise ValueError(f"{DATA_FILE}: weight indices out of range or not ascending")
    table = np.zeros(1 << BITS, np.float32)
    table[idx] = val
    table.setflags(write=False)
    return Model(table, float(meta["bias"]), float(meta["threshold"]), meta, n)


def dump_model(table: Any, bias: float, threshold: float, meta: dict[str, object]) -> bytes:
    """The data file for `parse_model` (gzip mtime 0: the same model gives the same bytes)."""
    np = _np()
    t = np.asarray(table, np.float32)
    idx = np.flatnonzero(t).astype("<u4")
    head = {**meta, "bias": bias, "threshold": threshold, "bits": BITS, "weights": int(idx.size)}
    body = json.dumps(head, sort_keys=True).encode() + b"\n" + idx.tobytes() + t[idx].astype("<f4").tobytes()
    return gzip.compress(body, mtime=0)


DATA_FILE = "injection_ngrams.gz"


def _load() -> Model:
    return parse_model(resources.files("contextfold._guard").joinpath(DATA_FILE).read_bytes())


_MODEL: Once[Model] = Once(_load)


def load_model() -> Model:
    """The shipped model (read from the package's data file on first use, thread-safe, once)."""
    return _MODEL.get()


def flagged_spans(text: str) -> list[tuple[int, int, int]]:
    """`score_segments` of ``text`` with the shipped model, in folded offsets (for tools and benchmarks)."""
    norm, raw = fold_bytes(text)
    return score_segments(load_model(), norm.text, raw, segments(norm.text, raw))
