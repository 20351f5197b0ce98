"""The guard: defence in depth on text re-entering the context (not a security boundary).

Redacts credentials and bulky noise, defangs prompt-injection patterns after
Unicode folding, and fences tool output in an untrusted-content block. See
``docs/guard.md`` for what it catches and what it does not.
"""

from contextfold._guard._fence import Fence
from contextfold._guard._findings import CATEGORIES, Category, Finding, Redaction, RedactionResult, Severity
from contextfold._guard._injection import scan_injection
from contextfold._guard._normalize import Normalized, normalize
from contextfold._guard._redact import redact_secrets
from contextfold._guard._sanitize import (
    GuardConfig,
    GuardMode,
    SanitizeResult,
    guard_tool_result,
    sanitize_injection,
    sanitize_tool_output,
)

__all__ = [
    "CATEGORIES",
    "Category",
    "Fence",
    "Finding",
    "GuardConfig",
    "GuardMode",
    "Normalized",
    "Redaction",
    "RedactionResult",
    "SanitizeResult",
    "Severity",
    "guard_tool_result",
    "normalize",
    "redact_secrets",
    "sanitize_injection",
    "sanitize_tool_output",
    "scan_injection",
]
