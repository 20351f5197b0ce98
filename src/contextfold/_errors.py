"""The exception tree: everything contextfold raises derives from `ContextfoldError`.

Families are grouped by who has to react::

    ContextfoldError
    ├── ConfigError (also ValueError)      a setting is wrong; fix the configuration
    │   └── ResultLimitError                the tool-result limit cannot hold a split result's truncation notice
    ├── InputError                          a transcript/file the user gave is malformed
    │   └── UnknownFormatError              the document is not a transcript we recognise
    ├── BudgetError                         the context cannot be brought under budget
    │   └── ContextOverflowError            the irreducible floor alone exceeds the budget
    ├── WorkspaceError                      offload storage failed (disk full, read-only, ...)
    │   └── PathRefusedError (also ValueError)  a read-back path escapes the workspace
    ├── SummarizerError                     a summary model failed or returned garbage
    ├── MissingExtraError (also ImportError) an optional dependency is not installed
    ├── ModelError                          a provider call failed (the SDK error is ``__cause__``)
    │   ├── ContextLengthExceeded           the provider says the prompt is longer than its window
    │   └── ReplayExhausted                 a replayed model was asked for a turn it did not record
    ├── ToolError                           raised by a tool: its message becomes the error result
    ├── ChannelFullError                    the steering channel is full; send again after the next drain
    ├── StoreError                          the proxy's session store cannot be reached (it forwards unchanged)
    └── UpstreamError                       the proxy's upstream cannot be reached or broke the protocol (502)

Every class is defined here (the ground floor), so any layer can raise or catch any of them; each is also
importable from the module that raises it. Errors pickle with their fields (they cross process boundaries).
Foreign errors (OS, SDKs) are translated at the edge and kept as ``__cause__``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

__all__ = [
    "BudgetError",
    "ChannelFullError",
    "ConfigError",
    "ContextLengthExceeded",
    "ContextOverflowError",
    "ContextfoldError",
    "InputError",
    "MissingExtraError",
    "ModelError",
    "PathRefusedError",
    "ReplayExhausted",
    "ResultLimitError",
    "StoreError",
    "SummarizerError",
    "ToolError",
    "UnknownFormatError",
    "UpstreamError",
    "WorkspaceError",
    "looks_like_context_length",
]


class ContextfoldError(Exception):
    """Root of every exception contextfold raises on purpose."""


class ConfigError(ContextfoldError, ValueError):
    """A configuration value breaks a rule; the message names the field and the rule."""


class ResultLimitError(ConfigError):
    """The tool-result limit cannot hold even the truncation notice of a split result.

    ``limit`` is the limit the split was given, ``needed`` what the notice alone takes; the message names the
    setting to change (the window) where the caller knows it. ``min_window``: the smallest window whose limit
    would hold the notice, the other settings unchanged (None when no window would: raise ``tool_result_limit``);
    a command line names it with its own flag.
    """

    def __init__(self, message: str, *, limit: int, needed: int, min_window: int | None = None) -> None:
        self.limit = limit
        self.needed = needed
        self.min_window = min_window
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {"limit": self.limit, "needed": self.needed, "min_window": self.min_window}
        return (_rebuild, (type(self), self.args, fields), self.__dict__)


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

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {"source": self.source, "line": self.line, "column": self.column, "message_index": self.message_index}
        return (_rebuild, (type(self), (self.reason,), fields), self.__dict__)

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

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, {"floor": self.floor, "budget": self.budget}), self.__dict__)


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

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.feature, self.extra, self.package), self.__dict__)


class ModelError(ContextfoldError):
    """A provider call failed after the SDK's own retries; the SDK exception is ``__cause__``."""

    def __init__(self, message: str, *, provider: str, status_code: int | None = None) -> None:
        self.provider = provider
        self.status_code = status_code
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {"provider": self.provider, "status_code": self.status_code}
        return (_rebuild, (type(self), self.args, fields), self.__dict__)


class ContextLengthExceeded(ModelError):
    """The provider rejected the request because the prompt exceeds the model's context length.

    The agent loop catches this, compacts once, and retries.
    """


class ReplayExhausted(ModelError):
    """The replay model was asked for a turn after the last recorded one."""


class ToolError(ContextfoldError):
    """Raise from a tool to give the model exactly this message as an error result (no exception type)."""


class ChannelFullError(ContextfoldError):
    """The steering channel holds ``capacity`` messages the agent has not drained yet.

    ``waiting`` are those messages; each names its kind by its class's ``label`` (``"follow-up"``, ...).
    """

    def __init__(self, capacity: int, waiting: Sequence[object]) -> None:
        self.capacity = capacity
        self.waiting = tuple(waiting)
        counts = Counter(str(getattr(m, "label", type(m).__name__)) for m in self.waiting)
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        super().__init__(
            f"steering channel is full (capacity {capacity}; waiting: {summary}); "
            "the agent drains it before its next model call, try again then"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.capacity, self.waiting), self.__dict__)


def _rebuild(cls: type[BaseException], args: tuple[Any, ...], fields: dict[str, Any]) -> BaseException:
    """Unpickle an error whose ``__init__`` takes keyword fields (``BaseException`` pickles ``args`` only)."""
    return cls(*args, **fields)


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


class StoreError(ContextfoldError):
    """The session store cannot be reached, read or written (the proxy forwards the request unchanged)."""


class UpstreamError(ContextfoldError):
    """The proxy's upstream could not be reached, timed out, or broke the protocol (the proxy answers 502).

    Raised by the proxy's own HTTP client (`contextfold.proxy._upstream`); a stream it breaks mid-answer ends.
    """
