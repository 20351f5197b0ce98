"""The calibrated token estimate: content-aware, conservative, and cheap enough for the hot path.

bytes/4 undercounts exactly the text agents drown in: logs, JSON, hashes and
base64 cost 1.2-2.7x more tokens than bytes/4 says, so a context that "fits"
overflows. Real BPE tokenizers cut text into pre-tokens (letter runs, 1-3
digits, punctuation runs, whitespace runs) and then merge common pieces, so
the token count follows the number of *class changes* in the text, and how
much of each run is made of pieces the tokenizer knows. The estimate is a
linear model over seven counts (`FEATURES`):

* class units: a per-byte cost by class (lowercase, uppercase, digit, space,
  line break, punctuation, UTF-8 lead and continuation bytes), see
  `CLASS_UNITS`; with the character and byte counts this prices each class;
* characters and UTF-8 bytes;
* class changes between neighbouring bytes (about one pre-token each; going
  into or out of whitespace counts half, as BPE pre-tokens carry their leading
  space and runs of whitespace merge);
* rare letter pairs (`RARE_FOLLOWERS`): natural words merge into one token,
  random letters (base36 ids, generated names, hashes) cost a token per two or
  three letters, and they are made of pairs that natural text seldom has;
* wide characters (CJK, kana, hangul) that are not one token, and neighbouring
  wide pairs that are not one token (shuffled or random CJK text).

Everything but the wide counts is computed with a handful of C-speed calls per
text, whatever its length: one ``str.encode``, four ``bytes.translate``, four
``int.from_bytes`` and big-integer shift/XOR/AND/``bit_count``; the wide counts,
only for non-ASCII text, with one regex substitution, a ``str.translate`` and a
set lookup per neighbouring pair. Texts longer than `SAMPLE_LIMIT` characters
are estimated from windows spread over the text (`_sample`), so the cost per
text is bounded while the per-class densities stay representative; the
sampling error is measured in ``benchmarks/results/tokens.md``.

The weights were fitted by ``benchmarks/calibrate.py --fit`` (linear
programming over category totals): natural text and real tool output within
10 % of o200k_base, generated high-entropy kinds (hashes, UUIDs, base36/62 ids,
random identifiers, minified code, shuffled CJK) at least 0.9 of both
o200k_base and cl100k_base, and every character costing something, so the
estimate never drops when text is appended (up to sampling).
"""

from __future__ import annotations

import functools
import re
from itertools import pairwise
from typing import assert_never

from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens._counting import data_tokens

__all__ = [
    "CLASS_UNITS",
    "FEATURES",
    "MESSAGE_OVERHEAD",
    "SAMPLE_LIMIT",
    "WEIGHTS",
    "CalibratedCounter",
    "estimate_texts",
    "estimate_tokens",
    "text_features",
]

FEATURES = ("class_units", "chars", "bytes", "changes", "rare_pairs", "wide_rare", "wide_unmerged")
"""Names of the counts `text_features` returns, in order."""

CLASS_UNITS: dict[str, int] = {
    "newline": 4,
    "space": 2,
    "lower": 2,
    "punct": 3,
    "digit": 7,
    "upper": 8,
    "utf8_lead2": 4,
    "utf8_lead3": 8,
    "utf8_lead4": 8,
    "utf8_continuation": 0,
}
"""Units (0-8) per byte of each byte class; ``class_units`` is their sum over the text.

With the per-character and per-byte weights this gives every class its own
cost per character, before class changes. Every character costs something,
and so does every class change, so appending text never lowers an estimate
(up to sampling, for long texts). Integer units let one ``bit_count`` of a
translated byte stream sum them all at once; they were chosen by the grid
search of ``benchmarks/calibrate.py --search``.
"""

LETTER_GROUPS: tuple[str, ...] = ("qw", "bvy", "jxz", "k", "h", "dfgnu", "aeios", "clmprt")
"""Letters grouped by what they follow in English and code (k-means over bigram frequencies, `calibrate.py --fit`)."""

RARE_FOLLOWERS: dict[str, str] = {
    "a": "0234", "b": "0123457", "c": "0125", "d": "0123457", "e": "134", "f": "01247", "g": "0123457",
    "h": "0123457", "i": "01234", "j": "01234567", "k": "0123457", "l": "01234", "m": "0123457", "n": "01234",
    "o": "124", "p": "012345", "q": "01234567", "r": "01234", "s": "01235", "t": "01235", "u": "01234",
    "v": "0123457", "w": "012357", "x": "01234567", "y": "01234567", "z": "01234567",
}  # fmt: skip
"""For each letter, the `LETTER_GROUPS` (by index) that rarely follow it in English and code.

A *rare pair* is a letter followed by a letter of such a group (case folded).
Tokenizers merge the common pairs of natural text into long tokens, so a run
of letters costs about one token a word; random letters (ids, hashes in base36,
generated names) cost about one token per two or three letters, and the rare
pairs they are full of say so.
"""

WEIGHTS: tuple[float, ...] = (0.0313, -0.02219, 0.0, 0.7314, 0.8159, 1.524, 0.7999)
"""Tokens per unit of each feature, fitted against o200k_base and cl100k_base (`calibrate.py --fit`)."""

FLOOR_CHARS_PER_TOKEN = 6
"""No text is estimated below one token per this many characters."""

MESSAGE_OVERHEAD = 4
"""Tokens a chat format spends per message on role and delimiters."""

BLOCK_OVERHEAD = 3
"""Tokens per tool call or tool result for its id and framing."""

SAMPLE_LIMIT = 1024
"""Texts longer than this (in characters) are estimated from windows spread over the text."""
WIDE_SAMPLE_WINDOWS = 4
"""The wide-character counts (a set lookup per pair) are taken from this many windows at most (512 characters)."""
_WINDOW = 128
_MIN_WINDOWS = 8
_MAX_WINDOWS = 64
_CHARS_PER_WINDOW = 8192

# Byte -> class symbol: one bit per class, so that XOR with the neighbour
# has two bits set where two neighbouring bytes differ in class and none where
# they share it. Upper- and lowercase letters share a class: tokenizers cut
# ``getValue`` into two pieces, not four (the cost of case lives in the units
# and the rare pairs). Whitespace has no bit: entering or leaving a run of
# spaces or line breaks sets one bit, so a word and the space before it count
# as one change (BPE pre-tokens carry their leading space), and a run of
# whitespace costs about as much whatever its length. Every non-ASCII byte
# maps to one class, so a run of CJK text is a single run.
_LETTER, _DIGIT, _SPACE, _NEWLINE, _PUNCT, _NONASCII = 0x01, 0x04, 0x08, 0x10, 0x20, 0x40
_UPPER = 0x02  # a class of its own for the units only
_CLASS_NAMES = {_LETTER: "lower", _UPPER: "upper", _DIGIT: "digit", _SPACE: "space", _NEWLINE: "newline"}


def _class_of(byte: int) -> int:
    if byte >= 0x80:
        return _NONASCII
    ch = chr(byte)
    if "a" <= ch <= "z":
        return _LETTER
    if "A" <= ch <= "Z":
        return _UPPER
    if "0" <= ch <= "9":
        return _DIGIT
    if ch in " \t":
        return _SPACE
    if ch in "\r\n\x0b\x0c":
        return _NEWLINE
    return _PUNCT


def _units_of(byte: int) -> int:
    """A byte with as many bits set as its class has `CLASS_UNITS`."""
    if byte >= 0xF0:
        name = "utf8_lead4"
    elif byte >= 0xE0:
        name = "utf8_lead3"
    elif byte >= 0xC0:
        name = "utf8_lead2"
    elif byte >= 0x80:
        name = "utf8_continuation"
    else:
        name = _CLASS_NAMES.get(_class_of(byte), "punct")
    return (1 << CLASS_UNITS[name]) - 1


def _change_class(byte: int) -> int:
    c = _class_of(byte)
    return 0 if c in (_SPACE, _NEWLINE) else (_LETTER if c == _UPPER else c)


def _group_tables(groups: tuple[str, ...], rare: dict[str, str]) -> tuple[bytes, bytes]:
    """(letter -> one bit for its group, letter -> the bits of the groups that rarely follow it); 0 elsewhere."""
    group_of = {ch: i for i, letters in enumerate(groups) for ch in letters}
    group = bytearray(256)
    follow = bytearray(256)
    for ch, g in group_of.items():
        for b in (ord(ch), ord(ch.upper())):
            group[b] = 1 << g
            follow[b] = sum(1 << int(i) for i in rare.get(ch, ""))
    return bytes(group), bytes(follow)


# Whitespace keeps its class for `CLASS_UNITS` but has no bit in the class stream.
_CLASS_TABLE = bytes(_change_class(b) for b in range(256))
_UNITS_TABLE = bytes(_units_of(b) for b in range(256))
_GROUP_TABLE, _FOLLOW_TABLE = _group_tables(LETTER_GROUPS, RARE_FOLLOWERS)


def _set_tables(
    *, units: dict[str, int] | None = None, groups: tuple[str, ...] | None = None, rare: dict[str, str] | None = None
) -> None:
    """Replace `CLASS_UNITS` or the letter tables and rebuild the byte tables (calibration only)."""
    global _UNITS_TABLE, _GROUP_TABLE, _FOLLOW_TABLE, LETTER_GROUPS
    if units is not None:
        CLASS_UNITS.update(units)
        _UNITS_TABLE = bytes(_units_of(b) for b in range(256))
    if groups is not None:
        LETTER_GROUPS = groups
    if rare is not None:
        RARE_FOLLOWERS.clear()
        RARE_FOLLOWERS.update(rare)
    _GROUP_TABLE, _FOLLOW_TABLE = _group_tables(LETTER_GROUPS, RARE_FOLLOWERS)


# Wide characters (CJK ideographs, kana, hangul, CJK and full-width punctuation). Tokenizers spend one token on
# a common character, two or three on a rare one, and merge the common pairs of a natural text (words) into one;
# shuffled or random text gets neither discount. Which characters and which pairs are one token in o200k_base
# ships as two data files (the tokenizer's own vocabulary), read on first use.
@functools.cache
def _wide_runs() -> re.Pattern[str]:
    """Runs of anything but wide characters (compiled on first use: its ranges cost a millisecond at import)."""
    return re.compile("[^\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]+")


_WIDE_TABLES: tuple[dict[int, None], frozenset[tuple[str, str]]] | None = None


def _wide_tables() -> tuple[dict[int, None], frozenset[tuple[str, str]]]:
    """(a `str.translate` table deleting the one-token wide characters and the run separator, the one-token pairs)."""
    global _WIDE_TABLES
    if _WIDE_TABLES is None:
        from importlib.resources import files

        folder = files("contextfold._tokens")
        single = folder.joinpath("wide_single.txt").read_text(encoding="utf-8").rstrip("\n")
        pairs = folder.joinpath("wide_pairs.txt").read_text(encoding="utf-8").rstrip("\n")
        table: dict[int, None] = dict.fromkeys(map(ord, single))
        table[0] = None
        _WIDE_TABLES = table, frozenset(zip(pairs[::2], pairs[1::2], strict=True))
    return _WIDE_TABLES


def _wide_features(text: str) -> tuple[float, float]:
    """(wide characters that are not one token, neighbouring wide pairs that are not one token) in ``text``.

    Counted on at most `WIDE_SAMPLE_WINDOWS` windows of ``text`` (scaled back): these counts cost a set lookup
    per pair, the others a few C calls per text. Runs of other characters become one separator; every
    pair of neighbours without a separator is a wide pair.
    """
    sample, scale = _sample(text, WIDE_SAMPLE_WINDOWS)
    runs = _wide_runs().sub("\x00", sample)
    if runs in ("", "\x00"):  # no wide character at all
        return 0.0, 0.0
    single, pairs = _wide_tables()
    separators = runs.count("\x00")
    wide_pairs = len(runs) - 1 - 2 * separators + runs.startswith("\x00") + runs.endswith("\x00")
    merged = sum(map(pairs.__contains__, pairwise(runs)))
    return scale * len(runs.translate(single)), scale * (wide_pairs - merged)


# Where each window starts, as a fraction of the text (less one window), for
# each window count: one window per equal stretch, placed inside its stretch
# by a fixed golden-ratio sequence. Windows are spread evenly but not
# periodically (content that repeats with the window spacing cannot hide
# between the windows), and the same text always gets the same windows.
_STARTS = {w: tuple((i + (i + 1) * 0.6180339887498949 % 1.0) / w for i in range(w)) for w in range(1, _MAX_WINDOWS + 1)}


def _sample(text: str, windows: int | None = None) -> tuple[str, float]:
    """The text to scan and the factor that scales its counts back to the whole text.

    Long texts are cut into equal stretches and one `_WINDOW`-long window is
    taken from each, at a fixed pseudo-random place (stratified sampling:
    every part of the text is represented in proportion to its length). More
    windows for longer texts (`_MIN_WINDOWS` to `_MAX_WINDOWS`, one per
    `_CHARS_PER_WINDOW`), so that a large, mixed tool output is still seen
    across its length. The joins add a few class changes: a slight upward
    bias, on the safe side. ``windows`` fixes the count (texts up to that many
    windows long are scanned whole).
    """
    n = len(text)
    if windows is None:
        if n <= SAMPLE_LIMIT:
            return text, 1.0
        windows = min(_MAX_WINDOWS, max(_MIN_WINDOWS, n // _CHARS_PER_WINDOW))
    elif n <= windows * _WINDOW:
        return text, 1.0
    span = n - _WINDOW
    sample = "".join([text[(s := int(f * span)) : s + _WINDOW] for f in _STARTS[windows]])
    return sample, n / (windows * _WINDOW)


def text_features(text: str) -> tuple[float, ...]:
    """The counts in `FEATURES` order for ``text`` (scaled from windows when it is long)."""
    sample, scale = _sample(text)
    return tuple(f * scale for f in _raw_features(sample))


def _raw_features(text: str) -> tuple[float, ...]:
    if not text:
        return (0,) * len(FEATURES)
    data = text.encode("utf-8", "surrogatepass")
    packed = int.from_bytes(data.translate(_CLASS_TABLE), "little")
    units = int.from_bytes(data.translate(_UNITS_TABLE), "little").bit_count()
    # Neighbouring bytes of different classes differ in two bits (one when one
    # of them is whitespace); halved and rounded up.
    changes = ((packed ^ (packed >> 8)).bit_count() + 1) >> 1
    rare = (
        int.from_bytes(data.translate(_FOLLOW_TABLE), "little")
        & (int.from_bytes(data.translate(_GROUP_TABLE), "little") >> 8)
    ).bit_count()
    wide_rare, wide_unmerged = (0.0, 0.0) if data.isascii() else _wide_features(text)
    return (units, len(text), len(data), changes, rare, wide_rare, wide_unmerged)


def estimate_tokens(text: str, weights: tuple[float, ...] | None = None) -> int:
    """Estimated tokens of one piece of text (rounded up); ``weights`` default to `WEIGHTS`."""
    if not text:
        return 0
    if weights is None:
        total = _estimate(text)
    else:
        total = sum(w * f for w, f in zip(weights, text_features(text), strict=True))
        floor = len(text) / FLOOR_CHARS_PER_TOKEN
        total = total if total > floor else floor
    return max(1, -int(-total // 1))


def estimate_texts(texts: list[str]) -> int:
    """Estimated tokens of the texts of one message, counted together (rounded up once).

    Texts up to `SAMPLE_LIMIT` characters are joined with line breaks and
    estimated in one pass: a message is often a handful of short texts (a
    reply, a tool name, its arguments), and one pass over their join costs a
    fraction of one pass each (the join is sampled if it is long). Longer
    texts are sampled on their own. The result is within about two tokens per
    text of the sum of `estimate_tokens` over the texts (a test pins that).
    """
    if len(texts) == 1:
        return estimate_tokens(texts[0])
    short = [t for t in texts if 0 < len(t) <= SAMPLE_LIMIT]
    total = _estimate("\n".join(short)) if short else 0.0
    if len(short) < len(texts):
        for t in texts:
            if len(t) > SAMPLE_LIMIT:
                total += _estimate(t)
    return -int(-total // 1)


_W_UNITS, _W_CHARS, _W_BYTES, _W_CHANGES, _W_RARE, _W_WIDE_RARE, _W_WIDE_UNMERGED = WEIGHTS
_from_bytes = int.from_bytes


def _estimate(text: str) -> float:
    """`WEIGHTS` · `text_features`, floored, with `_raw_features` inlined: this is the hot path.

    ``text`` must not be empty.
    """
    n = len(text)
    if n > SAMPLE_LIMIT:
        sample, scale = _sample(text)
    else:
        sample, scale = text, 1.0
    try:
        data = sample.encode()
    except UnicodeEncodeError:  # lone surrogates
        data = sample.encode("utf-8", "surrogatepass")
    packed = _from_bytes(data.translate(_CLASS_TABLE), "little")
    total = (
        _W_UNITS * _from_bytes(data.translate(_UNITS_TABLE), "little").bit_count()
        + _W_CHARS * len(sample)
        + _W_BYTES * len(data)
        + _W_CHANGES * (((packed ^ (packed >> 8)).bit_count() + 1) >> 1)
        + _W_RARE
        * (
            _from_bytes(data.translate(_FOLLOW_TABLE), "little")
            & (_from_bytes(data.translate(_GROUP_TABLE), "little") >> 8)
        ).bit_count()
    )
    if not data.isascii():
        wide_rare, wide_unmerged = _wide_features(sample)
        total += _W_WIDE_RARE * wide_rare + _W_WIDE_UNMERGED * wide_unmerged
    total *= scale
    # Floor: long runs of one class (a hex digest without digits, a long
    # number, blank lines) have few class changes but still cost tokens.
    floor = n / FLOOR_CHARS_PER_TOKEN
    return total if total > floor else floor


class CalibratedCounter:
    """The default counter: a content-aware estimate calibrated against o200k_base.

    Within 10 % of o200k on every measured category of natural text and tool
    output, and at least 0.9 of o200k and cl100k on high-entropy text (ids,
    hashes, shuffled CJK), where bytes/4 and the previous estimate fell to a
    third. Data blocks cost what `data_tokens` says;
    each message adds `MESSAGE_OVERHEAD`, each tool call or result `BLOCK_OVERHEAD`.
    The texts of a message are estimated together (`estimate_texts`).
    """

    key = "calibrated-v3"

    def count_text(self, text: str) -> int:
        return estimate_tokens(text)

    def count_message(self, message: Message) -> int:
        # One pass over the blocks (this runs once per message on the hot path);
        # collects the same text as `iter_text` and counts the same data blocks
        # as `media_tokens`. Exact-type checks first for the two commonest blocks:
        # `match` tries its class patterns one `isinstance` at a time.
        total = MESSAGE_OVERHEAD
        texts: list[str] = []
        for block in message.content:
            if type(block) is TextBlock:
                texts.append(block.text)
                continue
            if type(block) is ToolResultBlock:
                total += BLOCK_OVERHEAD
                for inner in block.content:
                    if isinstance(inner, DataBlock):
                        total += data_tokens(inner, self)
                    else:
                        texts.append(inner.text)
                continue
            match block:
                case TextBlock() | HintBlock():
                    texts.append(block.text)
                case ToolCallBlock():
                    total += BLOCK_OVERHEAD
                    texts.append(block.name)
                    texts.append(block.arguments)
                case ToolResultBlock():
                    total += BLOCK_OVERHEAD
                    for inner in block.content:
                        if isinstance(inner, TextBlock):
                            texts.append(inner.text)
                        else:
                            total += data_tokens(inner, self)
                case ThinkingBlock():
                    texts.append(block.thinking)
                case DataBlock():
                    total += data_tokens(block, self)
                case RedactedThinkingBlock():
                    pass
                case _:
                    assert_never(block)
        if len(texts) == 1:
            text = texts[0]
            return total - int(-_estimate(text) // 1) if text else total
        return total + estimate_texts(texts) if texts else total
