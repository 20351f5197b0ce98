"""The exception tree: everything contextfold raises derives from `ContextfoldError`.

Families are grouped by who has to react::

    ContextfoldError
    ├── ConfigError (also ValueError)      a setting is wrong; fix the configuration
    ├── InputError                          a transcript/file the user gave is malformed
    │   └── UnknownFormatError              the document is not a transcript we recognise
    ├── BudgetError                         the context cannot be brought under budget
    │   └── ContextOverflowError            the irreducible floor alone exceeds the budget
    ├── WorkspaceError                      offload storage failed (disk full, read-only, ...)
    │   └── PathRefusedError (also ValueError)  a read-back path escapes the workspace
    ├── SummarizerError                     a summary model failed or returned garbage
    └── MissingExtraError (also ImportError) an optional dependency is not installed

Foreign errors (OS, SDKs) are translated at the edge and kept as ``__cause__``.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "ConfigError",
    "ContextOverflowError",
    "ContextfoldError",
    "InputError",
    "MissingExtraError",
    "PathRefusedError",
    "SummarizerError",
    "UnknownFormatError",
    "WorkspaceError",
    "looks_like_context_length",
]


class ContextfoldError(Exception):
    """Root of every exception contextfold raises on purpose."""


class ConfigError(ContextfoldError, ValueError):
    """A configuration value breaks a rule; the message names the field and the rule."""


class InputError(ContextfoldError):
    """Input the user gave is malformed.

    Carries where the problem is, so that a CLI can print one precise line:
    the file, the 1-based line and column for syntax errors, and the 0-based
    message index for structural errors.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        message_index: int | None = None,
    ) -> None:
        self.reason = message
        self.source = source
        self.line = line
        self.column = column
        self.message_index = message_index
        super().__init__(self._render())

    def _render(self) -> str:
        where: list[str] = []
        if self.source is not None:
            loc = self.source
            if self.line is not None:
                loc += f":{self.line}"
                if self.column is not None:
                    loc += f":{self.column}"
            where.append(loc)
        if self.message_index is not None:
            where.append(f"message {self.message_index}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.reason}" if prefix else self.reason

    def with_source(self, source: str) -> InputError:
        """Return a copy of this error that names the file it came from."""
        err = type(self)(
            self.reason,
            source=source,
            line=self.line,
            column=self.column,
            message_index=self.message_index,
        )
        err.__cause__ = self.__cause__
        return err


class UnknownFormatError(InputError):
    """The document parsed, but it is not a transcript in a format we know."""


class BudgetError(ContextfoldError):
    """The context cannot be brought under the budget."""


class ContextOverflowError(BudgetError):
    """The part of the context that cannot be compacted already exceeds the budget.

    ``floor`` maps what the floor is made of (``"system"``, ``"tools"``,
    ``"pinned"``, ``"current_turn"``) to its token count.
    """

    def __init__(self, message: str, *, floor: dict[str, int] | None = None, budget: int | None = None) -> None:
        self.floor = dict(floor or {})
        self.budget = budget
        super().__init__(message)


class WorkspaceError(ContextfoldError):
    """Writing to or reading from the workspace failed; the context was left unchanged."""


class PathRefusedError(WorkspaceError, ValueError):
    """A path given to a read-back tool would leave the session's workspace."""


class SummarizerError(ContextfoldError):
    """The summary model failed or returned an object that does not validate."""


class MissingExtraError(ContextfoldError, ImportError):
    """An optional dependency is needed for this feature; the message names the pip install."""

    def __init__(self, feature: str, extra: str, package: str) -> None:
        self.feature = feature
        self.extra = extra
        self.package = package
        super().__init__(f"{feature} needs the '{package}' package: pip install 'contextfold[{extra}]'")


_CONTEXT_NEEDLES = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "exceed_context_size",
    "exceeds the available context size",
    "prompt is too long",
    "input is too long",
    "too many tokens",
)


def looks_like_context_length(*texts: str | None) -> bool:
    """Whether an error code or message means "the prompt is longer than the window".

    Covers OpenAI (``context_length_exceeded``), Anthropic ("prompt is too long"),
    vLLM ("maximum context length") and llama.cpp (``exceed_context_size_error``).
    """
    joined = " ".join(t for t in texts if t).lower()
    return any(needle in joined for needle in _CONTEXT_NEEDLES)
