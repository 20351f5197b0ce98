"""Fold text into the form the injection rules are written against, keeping a map back.

Cheap bypasses of a regex guard (zero-width characters between letters, bidi
controls, Cyrillic or Greek look-alike letters, full-width or mathematical
letters, accents, odd casing, invisible Unicode tag characters) all vanish
here, so one rule catches the plain form and its disguises. Whitespace is not
collapsed: rules match runs of separators instead, which keeps the map simple.

Every character of the folded text comes from exactly one character of the
original, so a span found in the folded text maps back to the original span
that produced it. Pure ASCII text (most tool output) takes a fast path: it is
only lower-cased and the map is the identity.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from dataclasses import dataclass
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

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


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
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Normalized:
    """Folded text plus, for each folded character, the index of the original character it came from."""

    text: str
    original_length: int
    _origin: array[int] | None  # None: identity map (ASCII fast path)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a non-empty folded span ``[start, end)`` to the original span that produced it."""
        if self._origin is None:
            return start, end
        if start >= end:
            pos = self._origin[start] if start < len(self._origin) else self.original_length
            return pos, pos
        return self._origin[start], self._origin[end - 1] + 1


def normalize(text: str) -> Normalized:
    """Fold ``text`` (NFKC/NFKD, invisible characters removed, homoglyphs folded, lower case) with an offset map."""
    if text.isascii():
        return Normalized(text.lower(), len(text), None)
    pieces: list[str] = []
    origin: array[int] = array("q")
    pos = 0
    for m in _NON_ASCII.finditer(text):
        if m.start() > pos:
            pieces.append(text[pos : m.start()].lower())
            origin.extend(range(pos, m.start()))
        for i in range(m.start(), m.end()):
            folded = _fold_char(text[i])
            if folded:
                pieces.append(folded)
                origin.extend([i] * len(folded))
        pos = m.end()
    if pos < len(text):
        pieces.append(text[pos:].lower())
        origin.extend(range(pos, len(text)))
    return Normalized("".join(pieces), len(text), origin)
