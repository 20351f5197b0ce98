"""A learned second opinion beside the rules: a linear model over character n-grams, scored only where it can matter.

The rules (`contextfold._guard._rules`) catch the phrasings they were written for; a paraphrase, a persona
reassignment or an order in a language the rules do not list passes them. This model reads the same folded text
as character 4-grams (each distinct gram once, weights summed and divided by the square root of their count),
trained offline on the tune split of ``tests/data/guard`` (plus benign tool results and prose) by
``benchmarks/guard_learned.py`` and shipped as a data file (``injection_ngrams.gz``, loaded on first use; no
download at run time).

Scoring a character n-gram set costs far more than a rule's gate, so the model reads only **windows** of the text
around words that address a reader or speak about instructions (second-person pronouns, "AI", "assistant",
"ignore", "instructions", and their counterparts in the languages of the corpus), or the whole text when it is
short. A text without such a word costs one set intersection. A window scoring above the threshold becomes a
``learned.injection`` finding of medium severity over that window; at most `MAX_WINDOWS` windows are scored per
text (the first ones), so the cost stays linear and bounded on floods of trigger words. Window sizes count a run
of blanks as one character, as the n-grams do, so spacing words apart changes neither. The same windows are used
in training, so what the model learned is what it is asked.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
import sys
from array import array
from dataclasses import dataclass
from importlib import resources
from typing import Any

import re2

from contextfold._guard._normalize import fold_bytes
from contextfold._lazy import Once

__all__ = ["MAX_WINDOWS", "Model", "first_trigger", "grams", "load_model", "score_windows", "trigger_windows"]

# Words (folded, ASCII letters only) after which an order to the reader or talk about its instructions is likely.
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
    # Orders and what they are about (English, German with its formal "Sie", French, Spanish, Turkish): an order
    # to write, say or answer something, rules and earlier instructions, a mode
    "say tell respond answer reply rules previous pretend act roleplaying simulate "
    "sie ihr euch schreibe schreib sage sag antworte antworten regeln bisherigen vorherigen modus "
    "ecris dis reponds regles precedentes escribe di responde reglas anteriores "
    "sen sana seni senin kurallar onceki yanitla"
)
TRIGGER_WORDS: frozenset[bytes] = frozenset(_TRIGGER_TEXT.encode().split())
# The same for scripts the folding turns into ``?``: found in the folded text.
TRIGGER_LITERALS: tuple[str, ...] = (
    "ты", "вы", "тебя", "твой", "ваш", "игнорир", "забудь", "инструкц",
    "你", "您", "忽略", "指令", "あなた", "無視", "指示", "당신", "너", "무시", "지시",
    "أنت", "انت", "تجاهل", "تعليمات", "आप", "तुम", "निर्देश", "আপনি", "তুমি", "নির্দেশ", "คุณ", "คำสั่ง", "เพิกเฉย",
    "ответь", "напиши", "правила", "режим", "回答", "规则", "模式", "答え", "ルール", "モード",
    "يمكنك", "الخاص بك", "أنا", "وضع", "मुझे", "आपके", "मोड", "আমাকে",
)  # fmt: skip
# A text this short is read whole; a window reaches this far before and after its trigger word.
SHORT = 600
BEFORE = 150
AFTER = 250
MAX_WINDOWS = 16
MIN_TRIGGERS = 2
NGRAMS = (4,)
# Word features beside the character n-grams (each distinct word and pair of adjacent words, marked by a tab: the
# character n-grams never hold one, blanks are collapsed to a space before they are cut). Off: measured in round 6
# (``benchmarks/guard_learned.py --words``), they moved the leave-one-source-out recall on tune by 0.3 points at most
# (either way) and cost about a third more per scored window. The data file's header names the features it was
# trained with.
WORDS = False
_WORD = re.compile(r"[^\W_]+")
_LETTERS = bytes(c if 97 <= c <= 122 else 32 for c in range(256))


def _collapse_blanks(text: str) -> str:
    r"""``re.sub(r"\s+", " ", text)`` by C-level split and join (several times faster on a long window).

    ``str.split`` and ``re``'s ``\s`` agree on what a blank is (``str.isspace``).
    """
    parts = text.split()
    if not parts:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + " ".join(parts) + (" " if text[-1].isspace() else "")


def grams(folded: str) -> set[str]:
    """The features of ``folded``: its distinct character n-grams (and, with `WORDS`, its words and word pairs).

    Blanks are collapsed and one blank added each end before n-grams are cut; with `WORDS`, each word and each pair
    of adjacent words is a feature too, marked by a leading tab (a word, or a word, a tab and the next word).
    """
    s = " " + _collapse_blanks(folded) + " "
    out: set[str] = set()
    for n in NGRAMS:  # every substring of n characters: the n shifted copies zipped (C-level, no regex per position)
        out.update(map("".join, zip(*(s[k:] for k in range(n)), strict=False)))
    if WORDS:
        words = ["\t" + w for w in _WORD.findall(s)]
        out.update(words)
        out.update(map("".join, itertools.pairwise(words)))
    return out


def _folded_literals() -> tuple[str, ...]:
    return tuple(dict.fromkeys(fold_bytes(lit)[0].text for lit in TRIGGER_LITERALS))


_FOLDED_LITERALS = _folded_literals()


def trigger_windows(
    folded: str, raw: bytes, spaced: bytes | None = None, toks: set[bytes] | None = None
) -> list[tuple[int, int]]:
    """The spans of ``folded`` the model reads: all of a short text, else windows around trigger words, merged.

    ``folded`` and ``raw`` are what `contextfold._guard._normalize.fold_bytes` gives (the folded text, and it as one
    byte per character); ``spaced`` is ``raw``'s letters with every other byte a blank, framed by blanks; ``toks``
    its distinct letter runs (both computed here when not given). Offsets index ``folded``. At most `MAX_WINDOWS`
    windows, the first ones.
    """
    n = len(raw)
    if spaced is None:
        spaced = b" " + raw.translate(_LETTERS) + b" "
    if toks is None:
        toks = set(spaced.split())
    words = TRIGGER_WORDS.intersection(toks)
    pieces = _non_ascii_pieces(folded, raw)
    literals = _literals_in(folded, raw, pieces) if pieces else []
    if not words and not literals:
        return []
    if n <= SHORT:
        return [(0, n)] if _prose(raw, 0, n) else []
    hits = _trigger_places(spaced, words, pieces, literals)
    if len(hits) < MIN_TRIGGERS and n > 4 * SHORT:  # one trigger place: no window, unless the text is short
        return []
    # Window geometry is measured with every run of blanks counted as one character, so padding words apart with
    # blanks neither splits a window nor makes a short text long (the n-grams collapse blank runs too). Offsets of
    # trigger places are letters, never inside a run: the runs between two places are those of the bytes between.
    if n <= 4 * SHORT and n - _blanks(raw, 0, n) <= SHORT and n - _removed(raw, 0, n) <= SHORT:
        return [(0, n)] if _prose(raw, 0, n) else []
    out: list[list[int]] = []  # [trigger places, first place, last place] of each window
    reach = BEFORE + AFTER
    prev = 0
    for p in hits:
        # Two places share a window when at most BEFORE + AFTER characters apart once blank runs are one: always
        # when as close in the raw text, never when eight times as far apart (the runs between are read only then).
        gap = p - prev
        near = bool(out) and (
            gap <= reach
            or (gap <= 8 * reach and gap - _blanks(raw, prev, p) <= reach and gap - _removed(raw, prev, p) <= reach)
        )
        prev = p
        if near:
            out[-1][0] += 1
            out[-1][2] = p
        elif len(out) == MAX_WINDOWS:
            break
        else:
            out.append([1, p, p])
    # An order to a reader names it more than once ("you ... your", "ignore ... instructions"); a lone "ignore" in a
    # long log or a lone "you" in a page of documentation is not read.
    spans = [
        (_reach_back(raw, first, BEFORE), _reach_on(raw, last, AFTER)) for k, first, last in out if k >= MIN_TRIGGERS
    ]
    return [(lo, hi) for lo, hi in spans if _prose(raw, lo, hi)]


def _blanks(raw: bytes, lo: int, hi: int) -> int:
    """How many blanks ``raw[lo:hi]`` holds, at least what `_removed` removes (``count`` is C-level, no copy)."""
    return sum(raw.count(b, lo, hi) for b in _WHITESPACE)


_WHITESPACE = (b" ", b"\n", b"\t", b"\r", b"\x0b", b"\x0c")  # what ``bytes.split()`` splits at


def _removed(raw: bytes, lo: int, hi: int) -> int:
    """How many bytes of ``raw[lo:hi]`` collapsing its runs of blanks to one blank removes (C-level split and join)."""
    seg = raw[lo:hi]
    parts = seg.split()
    if not parts:
        return len(seg) - 1 if seg else 0
    return len(seg) - len(b" ".join(parts)) - seg[:1].isspace() - seg[-1:].isspace()


def _reach_back(raw: bytes, p: int, k: int) -> int:
    """The largest start whose span up to ``p`` holds ``k`` characters, blank runs counted as one (or 0)."""
    return _reach(raw, p, k, -1)


def _reach_on(raw: bytes, p: int, k: int) -> int:
    """The smallest end whose span from ``p`` holds ``k`` characters, blank runs counted as one (or the end)."""
    return _reach(raw, p, k, 1)


def _collapsed(raw: bytes, p: int, d: int, way: int) -> int:
    lo, hi = (p - d, p) if way < 0 else (p, p + d)
    return d - _removed(raw, lo, hi)


def _reach(raw: bytes, p: int, k: int, way: int) -> int:
    """`_reach_back` (``way`` -1) or `_reach_on` (+1): a doubling, then a halving search over the distance.

    Without blank runs (most text) the first test answers: ``k`` bytes hold ``k`` characters.
    """
    room = p if way < 0 else len(raw) - p
    if room <= k:
        return p + way * room
    if _collapsed(raw, p, k, way) >= k:
        return p + way * k
    lo, hi = k, 2 * k  # the answer is in (lo, hi]: lo holds fewer than k characters
    while hi < room and _collapsed(raw, p, hi, way) < k:
        lo, hi = hi, 2 * hi
    if hi >= room:
        if _collapsed(raw, p, room, way) < k:
            return p + way * room
        hi = room
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _collapsed(raw, p, mid, way) >= k:
            hi = mid
        else:
            lo = mid
    return p + way * hi


def _non_ascii_pieces(folded: str, raw: bytes) -> list[tuple[int, str]]:
    """``(offset, piece)`` of the parts of about 8 KB of ``folded`` that hold a non-ASCII character.

    Other scripts' trigger literals are searched only there (``isascii`` is free).
    """
    pieces: list[tuple[int, str]] = []
    if raw.find(b"?") >= 0 and not folded.isascii():
        n = len(raw)
        pos = 0
        while pos < n:
            cut = min(n, pos + 8192)
            piece = folded[pos:cut]
            if not piece.isascii():
                pieces.append((pos, piece))
            pos = cut
    return pieces


# The characters outside ASCII each literal holds: a literal none of whose pieces holds them all is not searched.
_LITERAL_CHARS = tuple((lit, frozenset(c for c in lit if ord(c) > 127)) for lit in _FOLDED_LITERALS)


def _literals_in(folded: str, raw: bytes, pieces: list[tuple[int, str]]) -> list[str]:
    """The literals of `_FOLDED_LITERALS` (in order) that occur in one of ``pieces`` (of `_non_ascii_pieces`).

    A literal is looked for (``in``, per piece) only when the pieces hold each of its characters outside ASCII:
    those are read at the ``?`` of ``raw`` (a few in most text) or, in a piece full of them, by one ``set``.
    """
    chars: set[str] = set()
    for offset, piece in pieces:
        end = offset + len(piece)
        if raw.count(b"?", offset, end) > 256:
            chars.update(piece)
            continue
        i = raw.find(b"?", offset, end)
        while i >= 0:
            chars.add(folded[i])
            i = raw.find(b"?", i + 1, end)
    return [lit for lit, need in _LITERAL_CHARS if need <= chars and any(lit in piece for _, piece in pieces)]


# A text longer than this finds its trigger words in one RE2 pass (a DFA over the blank-framed words) instead of one
# ``find`` per word: each would read up to the place where the first word has had its ``4 * MAX_WINDOWS``.
_ONE_PASS = 1 << 15


def _trigger_rx() -> Any:
    """`TRIGGER_WORDS` (letters only), each framed by blanks: one RE2 expression over ``spaced``."""
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    return re2.compile(b" (?:" + b"|".join(sorted(TRIGGER_WORDS)) + b") ", options)


_TRIGGER_RX: Once[Any] = Once(_trigger_rx)


def _trigger_places(
    spaced: bytes, words: frozenset[bytes], pieces: list[tuple[int, str]], literals: list[str]
) -> list[int]:
    """The sorted offsets of the trigger words and literals up to where the first one has had ``4 * MAX_WINDOWS``.

    That place is the same in any order of the words (the smallest of their 64th places); each word is searched
    only up to the smallest such place seen so far, so a rare word does not cost a search of a whole long text
    once a frequent one has filled the first windows. In a long text the words are read in one pass, in the
    order they occur, up to that place (`_ONE_PASS`).
    """
    cap = 4 * MAX_WINDOWS
    limit = len(spaced)
    hits: list[int] = []
    if len(spaced) > _ONE_PASS and words:
        rx = _TRIGGER_RX.get()
        counts = dict.fromkeys(words, 0)
        m = rx.search(spaced)
        while m is not None:
            i, end = m.span()
            w = spaced[i + 1 : end - 1]
            k = counts.get(w)
            if k is not None:  # a trigger word among ``words`` (any other is passed over)
                hits.append(i)
                counts[w] = k + 1
                if k + 1 == cap:
                    limit = i
                    break
            m = rx.search(spaced, end - 1)  # two words share the blank between them
        words = frozenset()
    for w in words:
        pat = b" " + w + b" "
        i, k = spaced.find(pat, 0, limit + len(pat)), 0
        while i >= 0:
            hits.append(i)  # index i of ``spaced`` is the character before raw[i]: the word starts at raw[i]
            k += 1
            if k == cap:
                limit = min(limit, i)
                break
            i = spaced.find(pat, i + len(pat) - 1, limit + len(pat))
    for lit in literals:
        k = 0
        for offset, piece in pieces:
            if offset > limit:
                break
            i = piece.find(lit)
            while i >= 0 and offset + i <= limit:
                hits.append(offset + i)
                k += 1
                if k == cap:
                    limit = min(limit, offset + i)
                    break
                i = piece.find(lit, i + len(lit))
            if k == cap:
                break
    hits = [h for h in hits if h <= limit]
    hits.sort()
    return hits


# Bytes that are neither letters, digits nor blanks: code and markup are full of them, prose is not.
_NOT_SYMBOL = bytes(range(97, 123)) + bytes(range(65, 91)) + b"0123456789 \n\t.,'?"


def _prose(raw: bytes, lo: int, hi: int) -> bool:
    """Whether ``raw[lo:hi]`` reads as prose: at most one character in twelve a symbol (``=(){}[]<>_/#``, ...).

    Characters are counted with a run of blanks as one, as the windows are: indentation does not dilute the symbols
    of code, and blanks padded between words do not change the answer.
    """
    symbols = len(raw[lo:hi].translate(None, _NOT_SYMBOL))
    return symbols * 12 <= hi - lo and symbols * 12 <= hi - lo - _removed(raw, lo, hi)


def first_trigger(raw: bytes, spaced: bytes, lo: int, hi: int) -> int:
    """Where the first trigger word of the window ``raw[lo:hi]`` starts (``lo`` when none is an ASCII word)."""
    best = hi
    for w in TRIGGER_WORDS.intersection(spaced[lo : hi + 2].split()):
        i = spaced.find(b" " + w + b" ", lo, hi + 2)
        if 0 <= i < best:
            best = i
    return best if best < hi else lo


@dataclass(frozen=True, slots=True)
class Model:
    """Weights by n-gram, the bias and the decision threshold (a window scoring above it is flagged)."""

    weights: dict[str, float]
    bias: float
    threshold: float
    meta: dict[str, object]
    vocab: frozenset[str] = frozenset()  # the grams of ``weights`` (set & frozenset probes the smaller side)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vocab", frozenset(self.weights))

    def score(self, folded: str) -> float:
        """The model's score of one window of folded text."""
        g = grams(folded)
        if not g:
            return self.bias
        # fsum: exactly rounded, so the score does not depend on the order of the set (the same in every process).
        total = math.fsum(map(self.weights.__getitem__, g & self.vocab))
        return self.bias + total / math.sqrt(len(g))


def parse_model(data: bytes) -> Model:
    """Read the data file (gzip): a JSON header line, the weights (float32, little-endian), the grams (one a line).

    The header gives the bias, the threshold and the number of grams; a gram never holds a newline (blanks are
    collapsed before n-grams are cut). Loading is C-level: one decompress, one array, one split, one dict.
    """
    raw = gzip.decompress(data)
    nl = raw.index(b"\n")
    meta = json.loads(raw[:nl])
    n = int(meta["grams"])
    weights = array("f")
    weights.frombytes(raw[nl + 1 : nl + 1 + 4 * n])
    if sys.byteorder != "little":
        weights.byteswap()
    grams = raw[nl + 1 + 4 * n :].decode("utf-8").split("\n")
    if len(grams) != n or len(weights) != n:
        raise ValueError(f"{DATA_FILE}: {n} grams announced, {len(grams)} grams and {len(weights)} weights found")
    return Model(dict(zip(grams, weights, strict=True)), float(meta["bias"]), float(meta["threshold"]), meta)


def dump_model(weights: dict[str, float], bias: float, threshold: float, meta: dict[str, object]) -> bytes:
    """The data file for `parse_model` (grams sorted, gzip mtime 0: the same model gives the same bytes)."""
    grams = sorted(g for g, w in weights.items() if w)
    if any("\n" in g for g in grams):
        raise ValueError("a gram holds a newline")
    head = {**meta, "bias": bias, "threshold": threshold, "grams": len(grams)}
    values = array("f", (weights[g] for g in grams))
    if sys.byteorder != "little":
        values.byteswap()
    body = json.dumps(head, sort_keys=True).encode() + b"\n" + values.tobytes() + "\n".join(grams).encode("utf-8")
    return gzip.compress(body, mtime=0)


DATA_FILE = "injection_ngrams.gz"


def _load() -> Model:
    return parse_model(resources.files("contextfold._guard").joinpath(DATA_FILE).read_bytes())


_MODEL: Once[Model] = Once(_load)


def load_model() -> Model:
    """The shipped model (read from the package's data file on first use, thread-safe, once)."""
    return _MODEL.get()


def score_windows(model: Model, folded: str, windows: list[tuple[int, int]]) -> list[tuple[int, int, float]]:
    """The windows (spans of the folded text) scoring above the model's threshold, with their scores."""
    out = []
    for lo, hi in windows:
        s = model.score(folded[lo:hi])
        if s > model.threshold:
            out.append((lo, hi, s))
    return out
