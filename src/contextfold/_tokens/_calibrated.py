"""The calibrated token estimate: content-aware, conservative, and cheap enough for the hot path.

bytes/4 undercounts exactly the text agents drown in: logs, JSON, hashes and
base64 cost 1.2-2.7x more tokens than bytes/4 says, so a context that "fits"
overflows. Real BPE tokenizers cut text into pre-tokens (letter runs, 1-3
digits, punctuation runs, whitespace runs) and then merge common pieces, so
the token count follows the number of *class changes* in the text far better
than its length. The estimate is a linear model over four counts
(`FEATURES`):

* class units: a per-byte cost by class (lowercase, uppercase, digit, space,
  line break, punctuation, UTF-8 lead and continuation bytes), see
  `CLASS_UNITS`; with the character and byte counts this prices each class;
* characters and UTF-8 bytes;
* class changes between neighbouring bytes (about one pre-token each; going
  into or out of whitespace counts half, as BPE pre-tokens carry their leading
  space and runs of whitespace merge).

Everything is computed with a handful of C-speed calls per text, whatever its
length: one ``str.encode``, two ``bytes.translate`` (to a one-bit-per-class
stream and to a units stream), two ``int.from_bytes`` and big-integer
shift/XOR/``bit_count``. Texts longer than `SAMPLE_LIMIT` characters are
estimated from windows spread over the text (`_sample`), so the cost per text
is bounded while the per-class densities stay representative; the sampling
error is measured in ``benchmarks/results/tokens.md``.

The weights were fitted by ``benchmarks/calibrate.py --fit`` against
o200k_base on the mixed-language corpus and real tool outputs, then scaled so
that no category is estimated more than 5 % low.
"""

from __future__ import annotations

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
from contextfold._tokens._counting import MEDIA_TOKENS

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

FEATURES = ("class_units", "chars", "bytes", "changes")
"""Names of the counts `text_features` returns, in order."""

CLASS_UNITS: dict[str, int] = {
    "newline": 4,
    "space": 2,
    "lower": 2,
    "punct": 4,
    "digit": 6,
    "upper": 8,
    "utf8_lead2": 4,
    "utf8_lead3": 8,
    "utf8_lead4": 8,
    "utf8_continuation": 0,
}
"""Units (0-8) per byte of each byte class; ``class_units`` is their sum over the text.

With the per-character and per-byte weights this gives every class its own
cost per character, before class changes (tokens: lowercase and space +0.06,
line break and punctuation +0.20, digit +0.34, uppercase +0.48, CJK +0.64).
Every character costs something, and so does every class change, so
appending text never lowers an estimate (up to sampling, for long texts).
Integer units let one ``bit_count`` of a translated byte stream sum them all
at once; they were chosen by the grid search of ``benchmarks/calibrate.py
--search`` (narrowest spread of est/o200k across categories).
"""

WEIGHTS: tuple[float, ...] = (0.07059, -0.1675, 0.08149, 0.6257)
"""Tokens per unit of each feature: fitted against o200k_base, then scaled so no category is below 0.95."""

FLOOR_CHARS_PER_TOKEN = 6
"""No text is estimated below one token per this many characters."""

MESSAGE_OVERHEAD = 4
"""Tokens a chat format spends per message on role and delimiters."""

BLOCK_OVERHEAD = 3
"""Tokens per tool call or tool result for its id and framing."""

SAMPLE_LIMIT = 1024
"""Texts longer than this (in characters) are estimated from windows spread over the text."""
_WINDOW = 128
_MIN_WINDOWS = 8
_MAX_WINDOWS = 64
_CHARS_PER_WINDOW = 8192

# Byte -> class symbol: one bit per class, so that XOR with the neighbour
# has two bits set where two neighbouring bytes differ in class and none where
# they share it. Whitespace has no bit: entering or leaving a run of spaces or
# line breaks sets one bit, so a word and the space before it count as one
# change (BPE pre-tokens carry their leading space), and a run of whitespace
# costs about as much whatever its length. Every non-ASCII byte maps to one
# class, so a run of CJK text is a single run.
_LOWER, _UPPER, _DIGIT, _SPACE, _NEWLINE, _PUNCT, _NONASCII = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40
_CLASS_NAMES = {_LOWER: "lower", _UPPER: "upper", _DIGIT: "digit", _SPACE: "space", _NEWLINE: "newline"}


def _class_of(byte: int) -> int:
    if byte >= 0x80:
        return _NONASCII
    ch = chr(byte)
    if "a" <= ch <= "z":
        return _LOWER
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


# Whitespace keeps its class for `CLASS_UNITS` but has no bit in the class stream.
_CLASS_TABLE = bytes(0 if _class_of(b) in (_SPACE, _NEWLINE) else _class_of(b) for b in range(256))
_UNITS_TABLE = bytes(_units_of(b) for b in range(256))


def _set_units(units: dict[str, int]) -> None:
    """Replace `CLASS_UNITS` and rebuild the table (calibration only: `WEIGHTS` go with the units)."""
    global _UNITS_TABLE
    CLASS_UNITS.update(units)
    _UNITS_TABLE = bytes(_units_of(b) for b in range(256))


# Where each window starts, as a fraction of the text (less one window), for
# each window count: one window per equal stretch, placed inside its stretch
# by a fixed golden-ratio sequence. Windows are spread evenly but not
# periodically (content that repeats with the window spacing cannot hide
# between the windows), and the same text always gets the same windows.
_STARTS = {
    w: tuple((i + (i + 1) * 0.6180339887498949 % 1.0) / w for i in range(w))
    for w in range(_MIN_WINDOWS, _MAX_WINDOWS + 1)
}


def _sample(text: str) -> tuple[str, float]:
    """The text to scan and the factor that scales its counts back to the whole text.

    Long texts are cut into equal stretches and one `_WINDOW`-long window is
    taken from each, at a fixed pseudo-random place (stratified sampling:
    every part of the text is represented in proportion to its length). More
    windows for longer texts (`_MIN_WINDOWS` to `_MAX_WINDOWS`, one per
    `_CHARS_PER_WINDOW`), so that a large, mixed tool output is still seen
    across its length. The joins add a few class changes: a slight upward
    bias, on the safe side.
    """
    n = len(text)
    if n <= SAMPLE_LIMIT:
        return text, 1.0
    windows = min(_MAX_WINDOWS, max(_MIN_WINDOWS, n // _CHARS_PER_WINDOW))
    span = n - _WINDOW
    sample = "".join([text[(s := int(f * span)) : s + _WINDOW] for f in _STARTS[windows]])
    return sample, n / (windows * _WINDOW)


def text_features(text: str) -> tuple[float, ...]:
    """The counts in `FEATURES` order for ``text`` (scaled from windows when it is long)."""
    sample, scale = _sample(text)
    return tuple(f * scale for f in _raw_features(sample))


def _raw_features(text: str) -> tuple[int, ...]:
    if not text:
        return (0,) * len(FEATURES)
    data = text.encode("utf-8", "surrogatepass")
    packed = int.from_bytes(data.translate(_CLASS_TABLE), "little")
    units = int.from_bytes(data.translate(_UNITS_TABLE), "little").bit_count()
    # Neighbouring bytes of different classes differ in two bits (one when one
    # of them is whitespace); halved and rounded up.
    changes = ((packed ^ (packed >> 8)).bit_count() + 1) >> 1
    return (units, len(text), len(data), changes)


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


_W_UNITS, _W_CHARS, _W_BYTES, _W_CHANGES = WEIGHTS
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
    total = scale * (
        _W_UNITS * _from_bytes(data.translate(_UNITS_TABLE), "little").bit_count()
        + _W_CHARS * len(sample)
        + _W_BYTES * len(data)
        + _W_CHANGES * (((packed ^ (packed >> 8)).bit_count() + 1) >> 1)
    )
    # Floor: long runs of one class (a hex digest without digits, a long
    # number, blank lines) have few class changes but still cost tokens.
    floor = n / FLOOR_CHARS_PER_TOKEN
    return total if total > floor else floor


class CalibratedCounter:
    """The default counter: a content-aware estimate calibrated against o200k_base.

    Within 10 % of o200k on every measured category of text and tool output,
    and biased high rather than low. Media blocks cost a flat `MEDIA_TOKENS`;
    each message adds `MESSAGE_OVERHEAD`, each tool call or result `BLOCK_OVERHEAD`.
    The texts of a message are estimated together (`estimate_texts`).
    """

    key = "calibrated-v2"

    def count_text(self, text: str) -> int:
        return estimate_tokens(text)

    def count_message(self, message: Message) -> int:
        # One pass over the blocks (this runs once per message on the hot path);
        # collects the same text as `iter_text` and counts the same media as
        # `media_blocks`. Exact-type checks first for the two commonest blocks:
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
                    if type(inner) is TextBlock:
                        texts.append(inner.text)
                    else:
                        total += MEDIA_TOKENS
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
                            total += MEDIA_TOKENS
                case ThinkingBlock():
                    texts.append(block.thinking)
                case DataBlock():
                    total += MEDIA_TOKENS
                case RedactedThinkingBlock():
                    pass
                case _:
                    assert_never(block)
        if len(texts) == 1:
            text = texts[0]
            return total - int(-_estimate(text) // 1) if text else total
        return total + estimate_texts(texts) if texts else total
