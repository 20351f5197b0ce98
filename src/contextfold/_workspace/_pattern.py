r"""Search patterns for model-facing tools, matched in linear time by RE2.

A model chooses the pattern, so a search tool must not hang on any pattern:
Python's ``re`` backtracks, and ``(.*,){10}x`` over a line of commas, or
``(a?){10}(a?){10}(a?){10}a{30}``, takes longer than any deadline, and no
checker of pattern shapes catches them all. RE2 (``google-re2``) compiles
every pattern to an automaton and matches in time linear in the text, with
memory bounded by its ``max_mem`` option; patterns it cannot run that way
(backreferences, lookaround, atomic groups, possessive quantifiers) it
refuses at compile time, and the model reads why, with the RE2 way to say it
where there is one.

RE2 syntax is Python's for everything else a search needs: classes,
``\d \w \s \b``, ``(?i)``, ``(?s)``, ``(?m)``, named groups ``(?P<n>...)``,
``{m,n}`` up to 1000, Unicode classes ``\pL``. Python's ``\Z`` is RE2's ``\z``
(rewritten here); verbose mode ``(?x)`` is not supported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from contextfold._errors import InputError

__all__ = ["MAX_PATTERN_CHARS", "Matcher", "compile_pattern"]

MAX_PATTERN_CHARS = 1000
"""Longest pattern accepted (RE2 is linear in the text; this bounds the compile)."""

Matcher = Callable[[str], "tuple[int, int] | None"]
"""Finds the first match in a line: its (start, end) in code points, or None."""

_HINTS: tuple[tuple[str, str], ...] = (
    ("(?=", "lookahead (?=...) is not supported"),
    ("(?!", "negative lookahead (?!...) is not supported"),
    ("(?<=", "lookbehind (?<=...) is not supported"),
    ("(?<!", "negative lookbehind (?<!...) is not supported"),
    ("(?>", "atomic groups (?>...) are not supported"),
    ("(?x", "verbose mode (?x) is not supported; write the pattern without spaces and comments"),
    ("(?P=", "backreferences are not supported"),
    ("(?#", "comments (?#...) are not supported"),
)


def compile_pattern(pattern: object, *, regex: bool, ignore_case: bool = False) -> Matcher:
    """A matcher for ``pattern``: a plain substring, or (``regex``) an RE2 regular expression.

    Raises `InputError` with a message meant for the model (what is wrong and
    what to write instead) for an empty, over-long, non-text or unsupported
    pattern.
    """
    if not isinstance(pattern, str):
        raise InputError(f"pattern must be a string, got {type(pattern).__name__}")
    if not pattern:
        raise InputError("pattern must not be empty")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InputError(f"pattern refused: {len(pattern)} characters is longer than the {MAX_PATTERN_CHARS} allowed")
    try:
        pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("pattern refused: it is not valid Unicode (a lone surrogate)") from None
    if not regex and not ignore_case:

        def find(line: str) -> tuple[int, int] | None:
            at = line.find(pattern)
            return None if at < 0 else (at, at + len(pattern))

        return find
    import re2  # google-re2: imported on first use, so `import contextfold` stays light

    options = re2.Options()
    options.log_errors = False  # errors come back to the model as text, not on stderr
    options.case_sensitive = not ignore_case
    options.literal = not regex
    source = _python_to_re2(pattern) if regex else pattern
    try:
        compiled: Any = re2.compile(source, options)
    except re2.error as exc:
        raise InputError(_explain(pattern, exc)) from None

    def search(line: str) -> tuple[int, int] | None:
        m = compiled.search(line)
        return None if m is None else (m.start(), m.end())

    return search


_BACKSLASH_Z = re.compile(r"(?<!\\)((?:\\\\)*)\\Z")


def _python_to_re2(pattern: str) -> str:
    r"""Python's end-of-text ``\Z`` is RE2's ``\z`` (RE2 has no ``\Z``); nothing else differs in meaning."""
    return _BACKSLASH_Z.sub(r"\1\\z", pattern)


def _explain(pattern: str, exc: Exception) -> str:
    raw = exc.args[0] if exc.args else str(exc)
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    hint = ""
    for needle, text in _HINTS:
        if needle in pattern and needle in reason:
            hint = text
            break
    if not hint:
        if "invalid escape sequence: \\" in reason and reason[-1:].isdigit():
            hint = "backreferences (\\1) are not supported"
        elif "bad repetition operator" in reason and any(q in reason for q in ("++", "*+", "?+", "}+")):
            hint = "possessive quantifiers (a++) are not supported; use a plain quantifier"
        elif "invalid repetition size" in reason:
            hint = "a repetition count is at most 1000, and nested counts multiply"
        elif "pattern too large" in reason:
            hint = "the pattern compiles too large; simplify it or use a plain substring search"
    text = f"invalid regular expression {pattern!r}: {reason}"
    if hint:
        text += f" ({hint})"
    return (
        text + ". Patterns use RE2 syntax: like Python's re, without backreferences, lookaround, atomic groups, "
        "possessive quantifiers or verbose mode"
    )
