"""Redact credentials and bulky noise from tool output (the patterns compile on first use).

Secrets printed by a tool (``cat .env``, ``env``, a config dump) would otherwise
be sent to the model provider on every later call, and base64 ``data:`` URIs or
long hex runs cost many tokens while telling the model nothing. The patterns
live in `contextfold._guard._secrets`, compiled by the first call (thread-safe,
once), so ``import contextfold`` does not pay for them.
"""

from __future__ import annotations

from collections.abc import Callable

from contextfold._guard._findings import Redaction, RedactionResult
from contextfold._guard._lazy import Once

__all__ = ["Redaction", "RedactionResult", "redact_secrets"]


def _load() -> Callable[[str], RedactionResult]:
    from contextfold._guard._secrets import redact_secrets as redact

    return redact


_ENGINE: Once[Callable[[str], RedactionResult]] = Once(_load)


def redact_secrets(text: str) -> RedactionResult:
    """Replace credentials, private keys, base64 data URIs and long hex runs by ``[redacted:KIND]`` markers.

    Overlapping matches are resolved by earliest start, then longest span, then
    rule order; spans in the result refer to ``text``. Deterministic and
    idempotent. The first call compiles the patterns.
    """
    return _ENGINE.get()(text)
