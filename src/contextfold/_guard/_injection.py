"""Scan text for prompt-injection patterns (the rule tables compile on first use).

Tool output is data, but a model reads it like any other text, so a web page
or a file can carry instructions ("ignore previous instructions", a fake
``System:`` turn, a tool call in JSON, a request for the system prompt). The
rules (`contextfold._guard._rules`) run on the folded text of
`contextfold._guard._normalize` and report spans in the original text; the
engine is `contextfold._guard._scan`. This is defence in depth, not a
security boundary: a paraphrase no rule anticipates passes.

Compiling the rule tables takes tens of milliseconds, so it is left to the
first scan (thread-safe, once): ``import contextfold`` does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable

from contextfold._guard._findings import CATEGORIES, Category, Finding, Severity
from contextfold._lazy import Once

__all__ = ["CATEGORIES", "Category", "Finding", "Severity", "scan_injection"]


def _load() -> Callable[[str, bool], list[Finding]]:
    from contextfold._guard._scan import scan_injection as scan

    return scan


_ENGINE: Once[Callable[[str, bool], list[Finding]]] = Once(_load)


def scan_injection(text: str, *, learned: bool = False) -> list[Finding]:
    """Every rule match in ``text``, ordered by position; spans index the original text.

    A match whose span overlaps an earlier match of the same rule is dropped;
    matches of one rule fewer than 8 characters apart are merged into one
    finding, and a rule reports at most 64 findings per text (the last one
    spans all its remaining matches), so text packed with attack words stays
    cheap and is still fully blocked. A match that is quoted or given as an
    example (security docs), a request preceded by a negation ("never print
    the token"), and tool-call syntax inside a Markdown code fence are
    reported as low severity. The first call compiles the rule tables.

    ``learned`` (default off; ``docs/guard.md`` says why): the learned model also reads the windows of the text
    around words that address a reader (second-person pronouns, "AI", "assistant", "ignore", "instructions", in
    the corpus' languages); a window it scores above its threshold where no rule blocked anything is a medium
    ``learned.injection`` finding over that window. ``learned=False`` (the default): the rules and their views only.
    """
    return _ENGINE.get()(text, learned)
