"""Fold text into the form the injection rules are written against, keeping a map back.

Cheap bypasses of a regex guard (zero-width characters between letters, bidi
controls, Cyrillic or Greek look-alike letters, full-width or mathematical
letters, accents, odd casing, invisible Unicode tag characters) all vanish
here, so one rule catches the plain form and its disguises. Whitespace is not
collapsed: rules match runs of separators instead, which keeps the map simple.

Every character of the folded text comes from exactly one character of the
original, so a span found in the folded text maps back to the original span
that produced it. The guard sits on the agent loop's hot path, so the work is
C-level wherever possible: pure ASCII text is only lower-cased (identity map);
text with a few non-ASCII characters is lower-cased as ASCII bytes and only the
non-ASCII characters are folded; text with many is stripped of the common
invisible characters with ``str.replace`` and folded with one ``str.translate``
over a lazily filled table. The offset map covers only the non-ASCII
characters that do not fold to exactly one character; it is built along the
way when only a few characters are folded, otherwise only when a span is
actually asked for (a finding). `fold_bytes` also returns the folded text as
one ASCII byte per character, which the injection scan reads.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from functools import lru_cache

__all__ = ["Normalized", "normalize"]

# Look-alike letters folded to the ASCII letter they imitate (lower case, after casefold).
# Seeded from the Unicode confusables for Cyrillic/Greek/IPA letters that garak's
# homoglyph probe and common bypass lists use.
_HOMOGLYPHS: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "н": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "п": "n", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s",
    "т": "t", "ц": "u", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "ү": "y", "з": "3", "ь": "b",
    # Greek
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u",
    # Latin/IPA look-alikes
    "ɑ": "a", "ɡ": "g", "ı": "i", "ȷ": "j", "ɩ": "i", "ʟ": "l", "ɴ": "n", "ᴏ": "o", "ꜱ": "s", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ᴢ": "z", "ʀ": "r", "ᴛ": "t", "ᴋ": "k", "ᴍ": "m", "ʜ": "h", "ᴅ": "d", "ᴇ": "e",
    "ꞵ": "b", "ɢ": "g", "ᴄ": "c", "ᴀ": "a", "ʙ": "b", "ꜰ": "f", "ᴊ": "j", "ᴘ": "p", "ǫ": "q", "ʏ": "y",
    # Punctuation that stands in for ASCII
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u3000": " ",
}  # fmt: skip

# Invisible characters common enough in bypasses to strip with str.replace before translating.
_INVISIBLE = (
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
)  # fmt: skip
_INVISIBLE_SET = frozenset(_INVISIBLE)
_TABLE_LIMIT = 1 << 16


@lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    """The folded form of one non-ASCII character (may be empty or several characters)."""
    cp = ord(ch)
    if 0xE0020 <= cp <= 0xE007E:  # Unicode tag characters smuggle invisible ASCII: decode them
        return chr(cp - 0xE0000).lower()
    if unicodedata.category(ch) == "Cf":  # zero-width, bidi controls, soft hyphen, BOM, ...
        return ""
    out: list[str] = []
    for part in unicodedata.normalize("NFKD", ch):
        if unicodedata.combining(part):
            continue
        for c in unicodedata.normalize("NFKC", part).casefold():
            out.append(_HOMOGLYPHS.get(c, c))
    folded = "".join(out)
    # Keep the fold stable under str.lower(), so lower-casing the ASCII around it never shifts offsets.
    return folded if folded.lower() == folded else folded.lower()


class _FoldTable(dict[int, str | None]):
    """``str.translate`` table: ASCII lower-cased, anything else folded; filled on first use of a character."""

    def __missing__(self, key: int) -> str | None:
        ch = chr(key)
        value = ch.lower() if key < 128 else (_fold_char(ch) or None)
        if len(self) < _TABLE_LIMIT:
            self[key] = value
        return value


_TABLE = _FoldTable()


class Normalized:
    """Folded text plus a map from each folded character back to the original character it came from."""

    __slots__ = ("_breaks", "_source", "invisible", "original_length", "text")

    def __init__(self, text: str, source: str, invisible: bool = True) -> None:
        """``text`` is the fold of ``source``; the map is computed on first use."""
        self.text = text
        """The folded text the rules run on."""
        self.original_length = len(source)
        """Length of the original text."""
        self.invisible = invisible
        """False when ``source`` holds none of the common invisible characters (zero-width, bidi controls)."""
        self._source: str | None = None if source.isascii() else source
        self._breaks: tuple[list[int], list[int], list[int]] | None = None

    def _map(self) -> tuple[list[int], list[int], list[int]]:
        """(folded start, original index, folded length) of every non-ASCII character not folded to one character.

        A character folded to exactly one character keeps the offsets around it, so it needs no entry. The
        non-ASCII characters are found as the ``?`` of an ASCII encoding (C speed) that are not a ``?``.
        """
        if self._breaks is None:
            fstarts: list[int] = []
            origins: list[int] = []
            lengths: list[int] = []
            shift = 0  # folded index - original index, so far
            source = self._source or ""
            ascii_bytes = source.encode("ascii", "replace")
            i = ascii_bytes.find(b"?")
            while i != -1:
                if source[i] != "?":
                    value = _TABLE[ord(source[i])]
                    n = len(value) if value else 0
                    if n != 1:
                        fstarts.append(i + shift)
                        origins.append(i)
                        lengths.append(n)
                        shift += n - 1
                i = ascii_bytes.find(b"?", i + 1)
            self._breaks = (fstarts, origins, lengths)
        return self._breaks

    def _origin(self, pos: int) -> int:
        if self._source is None:
            return pos
        fstarts, origins, lengths = self._map()
        b = bisect_right(fstarts, pos) - 1
        if b < 0:
            return pos
        if pos < fstarts[b] + lengths[b]:
            return origins[b]
        return origins[b] + 1 + (pos - fstarts[b] - lengths[b])

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a folded span ``[start, end)`` to the original span that produced it."""
        if start >= end:
            pos = self._origin(start) if start < len(self.text) else self.original_length
            return pos, pos
        return self._origin(start), self._origin(end - 1) + 1


def fold_bytes(text: str) -> tuple[Normalized, bytes]:
    """`normalize`, plus the folded text as ASCII bytes: one per character, ``?`` for any other character.

    The injection scan reads those bytes; with a few non-ASCII characters they come out of the fold for
    free (and so does the offset map), instead of another pass over the text.
    """
    if text.isascii():
        folded = text.lower()
        return Normalized(folded, text, False), folded.encode("ascii")
    ascii_bytes = text.encode("ascii", "replace")  # one byte per character: offsets are kept
    if ascii_bytes.count(b"?") <= 64 + len(text) // 64:  # few non-ASCII characters: fold only those
        lowered = ascii_bytes.lower()
        lowered_text = lowered.decode("ascii")
        pieces: list[str] = []
        raw_pieces: list[bytes] = []
        pos = 0
        invisible = False
        i = ascii_bytes.find(b"?")
        while i != -1:
            if text[i] != "?":
                ch = text[i]
                fold = _fold_char(ch)
                invisible = invisible or ch in _INVISIBLE_SET
                pieces += (lowered_text[pos:i], fold)
                raw_pieces += (lowered[pos:i], fold.encode("ascii", "replace"))
                pos = i + 1
            i = ascii_bytes.find(b"?", i + 1)
        pieces.append(lowered_text[pos:])
        raw_pieces.append(lowered[pos:])
        return Normalized("".join(pieces), text, invisible), b"".join(raw_pieces)
    stripped = text
    for ch in _INVISIBLE:  # many: strip the usual invisible characters at C speed, then translate
        if ch in stripped:
            stripped = stripped.replace(ch, "")
    folded = stripped.lower() if stripped.isascii() else stripped.translate(_TABLE)
    return Normalized(folded, text, len(stripped) != len(text)), folded.encode("ascii", "replace")


def normalize(text: str) -> Normalized:
    """Fold ``text`` (NFKC/NFKD, invisible characters removed, homoglyphs folded, lower case) with an offset map."""
    return fold_bytes(text)[0]
