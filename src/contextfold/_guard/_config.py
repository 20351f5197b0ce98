"""`GuardConfig`: how the guard treats tool output.

Its own module, so that ``import contextfold`` (and the guard's functions) do not load pydantic: the settings model
is built the first time a program asks for it (``contextfold.GuardConfig``, or a guarded call without a config).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from contextfold._guard._sanitize import GuardMode
from contextfold._public import publish

__all__ = ["GuardConfig"]


class GuardConfig(BaseModel):
    """How the guard treats tool output."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    mode: GuardMode = "full"
    """``off``: leave text alone; ``redact``: secrets and noise only; ``full``: redaction, then injection defanging."""
    fence: bool = True
    """Wrap each tool result in the session's untrusted-content fence (costs about 25 tokens per result)."""
    learned: bool = False
    """In ``full`` mode, also ask the learned model (windows the rules did not block; off by default: on the frozen
    eval6-eval8 splits it adds fewer catches than false positives and is slower; see ``docs/guard.md``)."""


# Loaded on first use, by the facade or by the session: shown under its public path either way (as `publish` in the
# facade would show it), so a config the session built reprs, pickles and type-checks like one the user built.
publish("contextfold", globals(), __all__)
