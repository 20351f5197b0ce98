"""Apply the guard to text re-entering the context: redact, then defang injections.

The agent loop calls `sanitize_tool_output` (or `guard_tool_result` on a
``ToolResultBlock``) on every tool result before it is counted and appended.
Each call reports what it changed, so the loop can log it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from contextfold._guard._fence import Fence
from contextfold._guard._findings import Finding, Redaction
from contextfold._guard._injection import scan_injection
from contextfold._guard._redact import redact_secrets
from contextfold._messages import DataBlock, TextBlock, ToolResultBlock

if TYPE_CHECKING:
    from contextfold._guard._config import GuardConfig

__all__ = [
    "GuardMode",
    "SanitizeResult",
    "guard_tool_result",
    "sanitize_injection",
    "sanitize_tool_output",
]

GuardMode: TypeAlias = Literal["off", "redact", "full"]


@dataclass(frozen=True, slots=True)
class SanitizeResult:
    """The sanitized text and a report of what changed.

    ``redactions`` index the input text; ``findings`` index the text after
    redaction (the input of the injection step); ``blocked`` are the findings
    that were replaced by ``[injection-blocked:CATEGORY]``.
    """

    text: str
    redactions: tuple[Redaction, ...] = ()
    findings: tuple[Finding, ...] = ()
    blocked: tuple[Finding, ...] = ()

    @property
    def changed(self) -> bool:
        """True when the text was modified."""
        return bool(self.redactions or self.blocked)

    def merged(self, other: SanitizeResult) -> SanitizeResult:
        """Combine the reports of two blocks (text of ``other``)."""
        return SanitizeResult(
            other.text,
            self.redactions + other.redactions,
            self.findings + other.findings,
            self.blocked + other.blocked,
        )

    def report(self) -> dict[str, Any]:
        """A JSON-ready summary for logs."""
        return {
            "changed": self.changed,
            "redactions": [{"kind": r.kind, "start": r.start, "end": r.end} for r in self.redactions],
            "findings": [
                {
                    "category": f.category,
                    "severity": f.severity,
                    "start": f.start,
                    "end": f.end,
                    "rule": f.rule,
                    "excerpt": f.excerpt,
                }
                for f in self.findings
            ],
            "blocked": len(self.blocked),
        }


def sanitize_injection(text: str, *, learned: bool = False) -> SanitizeResult:
    """Replace medium and high findings by ``[injection-blocked:CATEGORY]``; low ones are only reported.

    ``learned``: also the learned model's findings (`scan_injection`).
    """
    findings = tuple(scan_injection(text, learned=learned))
    blocking = sorted((f for f in findings if f.blocking), key=lambda f: (f.start, -f.end))
    out: list[str] = []
    blocked: list[Finding] = []
    pos = 0
    for f in blocking:
        if f.start < pos:  # overlaps a span already replaced: extend it
            if f.end > pos:
                pos = f.end
            blocked.append(f)
            continue
        out.append(text[pos : f.start])
        out.append(f"[injection-blocked:{f.category}]")
        blocked.append(f)
        pos = f.end
    out.append(text[pos:])
    return SanitizeResult("".join(out), (), findings, tuple(blocked))


def sanitize_tool_output(text: str, mode: GuardMode = "full", *, learned: bool = False) -> SanitizeResult:
    """Redaction, then (in ``full`` mode) injection sanitization of one tool output (``learned``: with the model)."""
    if mode == "off":
        return SanitizeResult(text)
    redacted = redact_secrets(text)
    if mode == "redact":
        return SanitizeResult(redacted.text, redacted.redactions)
    defanged = sanitize_injection(redacted.text, learned=learned)
    return replace(defanged, redactions=redacted.redactions)


def guard_tool_result(
    block: ToolResultBlock, config: GuardConfig | None = None, fence: Fence | None = None
) -> tuple[ToolResultBlock, SanitizeResult]:
    """Sanitize every text block of a tool result and fence it; data blocks pass unchanged.

    With ``config.fence`` on, ``fence`` (the session's) must be given; each
    text block is wrapped separately so block boundaries survive.
    """
    if config is None:
        from contextfold._guard._config import GuardConfig  # the settings model (and pydantic) load on first use

        config = GuardConfig()
    cfg = config
    if cfg.fence and fence is None:
        raise ValueError("guard_tool_result: config.fence is on but no Fence was given")
    total = SanitizeResult("")
    content: list[TextBlock | DataBlock] = []
    for part in block.content:
        match part:
            case TextBlock():
                result = sanitize_tool_output(part.text, cfg.mode, learned=cfg.learned)
                total = total.merged(result)
                text = fence.wrap(result.text) if cfg.fence and fence is not None else result.text
                content.append(TextBlock(text=text, meta=part.meta))
            case DataBlock():
                content.append(part)
    return replace(block, content=tuple(content)), SanitizeResult("", total.redactions, total.findings, total.blocked)
