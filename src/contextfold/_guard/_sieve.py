r"""A sieve for the injection rules: one RE2 search proving that no rule of the table can match a text.

The scan (`contextfold._guard._scan`) finds a text's anchors, opens the rules whose gates hold and runs each in
windows around its anchors; on real tool output about half the texts hold an anchor and open a few rules, and
almost none of them matches. This module derives, from the compiled rule table itself (at first use, not from a
hand list, so it follows any change of the rules), one regular expression that matches wherever any rule could
match, and compiles it with google-re2 (a core dependency: the read-back search uses it), whose DFA reads a text
once at C speed. A text it does not match holds no match of any rule, in any window: the scan then skips the
anchors, gates and windows and only computes what the views and the learned model read.

The expression is an over-approximation of every rule, built by walking ``re``'s parse tree:

* it reads the folded text as the scan's bytes (one byte per character, ``?`` for a character outside ASCII), so a
  literal outside ASCII becomes ``?`` and a class gains ``?`` when it can hold one;
* assertions (``^``, ``$``, ``\b``, look-ahead and look-behind) become empty: a match found in a window, where
  ``re`` may see the window's edge as the text's, is then still a match of the sieve in the whole text;
* counted repetition ``{m,n}`` becomes ``*`` (``m`` 0) or ``+``; possessive and atomic forms become greedy ones
  (they only refuse matches a backtracking regex finds); a back-reference becomes ``.*`` (any bytes);
* ``\w``, ``\s`` and ``\d`` become their ASCII sets plus ``?``; a negated class keeps its ASCII members out and
  lets ``?`` in; their negations become any byte.

So every string a rule matches (in any window) holds a match of the sieve, while the sieve stays a plain regular
expression without counters, which RE2's DFA handles in linear time. Anything the walk does not know is read as
"any bytes", which only makes the sieve looser, never unsound. The tests compare the scan with and without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from re import _constants as _c  # type: ignore[attr-defined]  # the stdlib's parse-tree vocabulary
from re import _parser as _p  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, Any

import re2

from contextfold._lazy import Once

if TYPE_CHECKING:
    from contextfold._guard._rules import _Rule

__all__ = ["MAX_WORDS", "approximation", "build", "known_runs", "may_match", "may_match_in", "rule_words"]

_ANY = b"[\\x00-\\xff]"  # any byte (``.`` excludes a newline)
_Q = 63  # ``?``: what a character outside ASCII is in the scan's bytes
# The ASCII members of ``\w``, ``\s`` and ``\d`` (``re``'s Unicode classes hold these and characters outside ASCII).
_CATEGORY: dict[Any, bytes] = {
    _c.CATEGORY_DIGIT: b"0-9",
    _c.CATEGORY_UNI_DIGIT: b"0-9",
    _c.CATEGORY_WORD: b"0-9A-Za-z_",
    _c.CATEGORY_UNI_WORD: b"0-9A-Za-z_",
    _c.CATEGORY_SPACE: b"\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f\\x20",
    _c.CATEGORY_UNI_SPACE: b"\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f\\x20",
}


def _byte(c: int) -> bytes:
    """One byte inside a class (escaped)."""
    return b"\\x%02x" % c


def _class(items: list[tuple[Any, Any]]) -> bytes:
    """A character class of ``re`` as an RE2 class over the scan's bytes (a superset)."""
    negate = bool(items) and items[0][0] is _c.NEGATE
    members: list[bytes] = []
    for op, av in items[1:] if negate else items:
        if op is _c.LITERAL:
            members.append(_byte(av) if av < 128 else _byte(_Q))
        elif op is _c.RANGE:
            lo, hi = av
            # In a negated class a range keeps ``?`` out only where it holds it: split around it.
            spans = [(lo, _Q - 1), (_Q + 1, hi)] if negate and lo <= _Q <= hi else [(lo, hi)]
            for a, b in spans:
                if a <= min(b, 127):
                    members.append(_byte(a) + b"-" + _byte(min(b, 127)))
            if hi >= 128:
                members.append(_byte(_Q))
        elif op is _c.CATEGORY and av in _CATEGORY and not negate:
            members += (_CATEGORY[av], _byte(_Q))
        else:  # a negated category, or a category in a negated class: anything
            return _ANY
    if not negate:
        return b"[" + b"".join(members) + b"]" if members else b"[^\\x00-\\xff]"
    # Characters outside ASCII are all ``?``: a negated class cannot keep ``?`` out.
    kept = b"".join(m for m in members if m != _byte(_Q))
    return b"[^" + kept + b"]" if kept else _ANY


def _seq(items: Iterable[tuple[Any, Any]], dotall: bool) -> bytes:
    return b"".join(_node(op, av, dotall) for op, av in items)


def _node(op: Any, av: Any, dotall: bool) -> bytes:
    """One node of ``re``'s parse tree as an RE2 expression matching at least what it matches."""
    if op is _c.LITERAL:
        return (bytes([av]) if bytes([av]).isalnum() else _byte(av)) if av < 128 else _byte(_Q)
    if op is _c.NOT_LITERAL:
        return b"[^" + _byte(av) + b"]" if av < 128 and av != _Q else _ANY
    if op is _c.ANY:
        return _ANY if dotall else b"[^\\n]"
    if op is _c.IN:
        return _class(list(av))
    if op is _c.BRANCH:
        return b"(?:" + b"|".join(_seq(branch, dotall) for branch in av[1]) + b")"
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if (add_flags | del_flags) & re.IGNORECASE:
            return _ANY + b"*"
        inner = dotall or bool(add_flags & re.DOTALL)
        return b"(?:" + _seq(sub, inner and not del_flags & re.DOTALL) + b")"
    if op is _c.ATOMIC_GROUP:
        return b"(?:" + _seq(av, dotall) + b")"
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        body = b"(?:" + _seq(sub, dotall) + b")"
        if lo == hi == 1:
            return body
        if hi == 1:  # lo is 0
            return body + b"?"
        return body + (b"*" if lo == 0 else b"+")
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return b""
    return _ANY + b"*"  # a back-reference or anything else: any bytes


def approximation(pattern: re.Pattern[str]) -> bytes:
    """An RE2 expression over the scan's bytes matching wherever ``pattern`` matches the folded text."""
    if pattern.flags & re.IGNORECASE:
        return _ANY + b"*"
    return _seq(_p.parse(pattern.pattern, pattern.flags), bool(pattern.flags & re.DOTALL))


# A DFA's states are the sets of partial matches alive at a byte. Ordinary text keeps few alive and RE2 reads it at
# 100-700 MB/s; text packed with dozens of different rule words on every line (an attacker's, never tool output)
# keeps making new sets, each built at the cost of the whole program, and RE2 can fall to about 0.15 MB/s, slower
# than the windows. Measured on such text without a match, cold: 8-16 different words 50-165 MB/s, 48 words
# 0.9-10 MB/s (the windows: about 0.8 MB/s there), 64 or more words down to 0.13 MB/s. A text holding more than
# this many different rule words (anchors, heads, gate and start words: what such text is packed with; 45 in the
# 99th percentile of real tool results) skips the sieve.
MAX_WORDS = 48


def rule_words(rules: Iterable[_Rule]) -> frozenset[bytes]:
    """The words the rules' anchors, heads, gates and start words name (letters only; stems and whole words)."""
    out: set[bytes] = set()
    for rule in rules:
        out.update(lit for lit, _before, _kind in rule.anchors)
        out.update(head for head, _kind in rule.heads)
        out.update(word for group in rule.gate for word in group)
        out.update(rule.starts)
    return frozenset(w for w in out if w.isalpha())


def build(sources: Iterable[bytes], max_mem: int = 64 << 20) -> Any:
    """The sieve over the approximations ``sources``; None when RE2 cannot compile it within ``max_mem``.

    ``max_mem`` leaves room for the DFA of the whole alternation (past it RE2 is slower, not wrong). Without a sieve
    every text takes the windows (a rule table too large for it still works, only slower).
    """
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    options.max_mem = max_mem
    options.log_errors = False
    try:
        return re2.compile(b"|".join(b"(?:" + source + b")" for source in sources), options)
    except re2.error:
        return None


def _compile() -> tuple[Any, frozenset[bytes]]:
    from contextfold._guard._rules import _RULES  # the table compiles on first use of the scan, like this

    return build(approximation(rule.pattern) for rule in _RULES), rule_words(_RULES)


_SIEVE: Once[tuple[Any, frozenset[bytes]]] = Once(_compile)


def may_match(raw: bytes, runs: AbstractSet[bytes]) -> bool:
    """False only when no rule of the table can match the folded text whose scan bytes are ``raw``.

    ``runs``: the text's distinct letter runs; with more than `MAX_WORDS` of the rules' words among them the text is
    not searched (True: the scan reads it as without the sieve). A stem ("ignor") counts when it is a whole run.
    """
    sieve, words = _SIEVE.get()
    if sieve is None or len(words.intersection(runs)) > MAX_WORDS:
        return True
    return sieve.search(raw) is not None


def may_match_in(raw: bytes, lo: int, hi: int, blocks: Iterable[AbstractSet[bytes]]) -> bool:
    """False only when no rule of the table can match inside ``raw[lo:hi]`` (any match there holds a sieve match).

    ``blocks``: the letter runs of each piece of a few KB the span is cut into; when one of them holds more than
    `MAX_WORDS` of the rules' words, the span is not searched (True), as `may_match` does for a whole text.
    """
    sieve, words = _SIEVE.get()
    if sieve is None or any(len(words.intersection(runs)) > MAX_WORDS for runs in blocks):
        return True
    return sieve.search(raw, lo, hi) is not None


def _known() -> tuple[Any, tuple[bytes, ...]]:
    """One RE2 set of every word a cleared text's letter runs are asked about, each framed by blanks."""
    from contextfold._guard._latin import GATE
    from contextfold._guard._learned import TRIGGER_WORDS
    from contextfold._guard._views import (
        _CODED_SIGNS,
        _COMMON,
        _COMMON_REVERSED,
        _COMMON_ROT13,
        _LEET_FRAGMENTS,
        _REVERSED,
        _ROT13,
        _SINGLE,
    )

    words = _SIEVE.get()[1]
    latin = set(GATE).union(*(partners for partners in GATE.values() if partners is not None))
    views = _ROT13 | _REVERSED | _LEET_FRAGMENTS | _SINGLE | _COMMON | _COMMON_ROT13 | _COMMON_REVERSED | _CODED_SIGNS
    vocabulary = tuple(sorted(words | TRIGGER_WORDS | views | latin))
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    found = re2.Set.SearchSet(options)
    for word in vocabulary:
        found.Add(b"\\x20" + re.escape(word) + b"\\x20")
    found.Compile()
    return found, vocabulary


_KNOWN: Once[tuple[Any, tuple[bytes, ...]]] = Once(_known)


def known_runs(spaced: bytes) -> set[bytes]:
    """The letter runs of ``spaced`` (letters, every other byte a blank, framed by blanks) that are known words.

    Known: the rules' words (`rule_words`, what `may_match` counts), the learned model's trigger words, the
    views' gate words (rot13 and reversed keywords and common words, leetspeak fragments, single letters) and the
    Latin concept pass's gate words and their partners (`_latin.GATE`). A text the sieve clears is
    read only through those sets (intersections), so this set, found by one RE2 pass (several times faster than
    splitting the text into a set of all its runs), stands for the set of all runs there.
    """
    found, vocabulary = _KNOWN.get()
    hit = found.Match(spaced)
    return {vocabulary[i] for i in hit} if hit else set()
