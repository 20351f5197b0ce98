"""What the guard reports: finding and redaction records, and the injection categories.

Kept apart from the rule tables so that importing the guard (and so ``import contextfold``) compiles no regular
expression: the scan and the redaction patterns are compiled on first use (`contextfold._guard._injection`,
`contextfold._guard._redact`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["CATEGORIES", "Category", "Finding", "Redaction", "RedactionResult", "Severity"]

Category: TypeAlias = Literal[
    "system_override", "role_confusion", "tool_call_injection", "secret_extraction", "instruction_injection"
]
Severity: TypeAlias = Literal["low", "medium", "high"]
CATEGORIES: tuple[Category, ...] = (
    "system_override",
    "role_confusion",
    "tool_call_injection",
    "secret_extraction",
    "instruction_injection",
)
_RANK: dict[Severity, int] = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One suspicious span: ``start``/``end`` index the original (unnormalized) text."""

    category: Category
    severity: Severity
    start: int
    end: int
    excerpt: str
    rule: str

    @property
    def blocking(self) -> bool:
        """Medium and high findings are rewritten by `sanitize_injection`; low ones are only reported."""
        return _RANK[self.severity] >= 1


@dataclass(frozen=True, slots=True)
class Redaction:
    """One replaced span: what kind of secret or noise, and where it was in the input."""

    kind: str
    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """The redacted text and the list of redactions (spans in the input text)."""

    text: str
    redactions: tuple[Redaction, ...]

    @property
    def changed(self) -> bool:
        """True when something was redacted."""
        return bool(self.redactions)
