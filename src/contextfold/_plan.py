"""The compaction plan record and the strategy interface.

Plan, then apply: a strategy answers only *what* to compact and returns a
`CompactionPlan`; the session decides *when*, writes the archive, then
applies the plan all-or-nothing. Keeping the plan a plain frozen record makes
"nothing lost" checkable (``prefix + compacted + kept`` re-forms the input)
and gives ``compact --dry-run`` for free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from contextfold._boundaries import SUMMARY_META_KEY, SUMMARY_META_VALUE, Boundary
from contextfold._config import ContextConfig
from contextfold._messages import Message, TextBlock
from contextfold._tokens import TokenCounter, count_messages

__all__ = [
    "ARCHIVE_REF_TOKENS",
    "CompactionPlan",
    "CompactionStrategy",
    "FunctionStrategy",
    "NoCompaction",
    "PlanFunction",
    "as_strategy",
    "summary_header",
    "summary_message",
]

ARCHIVE_REF_TOKENS = 32
"""Tokens set aside in ``tokens_after`` for the archive reference filled in later."""


def summary_header(count: int, archive_ref: str | None) -> str:
    """First line of a summary: how much was compacted and where the originals are."""
    where = archive_ref if archive_ref is not None else "(archive pending)"
    noun = "message" if count == 1 else "messages"
    return f"Summary of earlier conversation ({count} {noun}, archived at {where})"


def summary_message(body: str, *, count: int, archive_ref: str | None) -> Message:
    """The user message that replaces the compacted part (user, so both providers accept it anywhere)."""
    text = summary_header(count, archive_ref)
    if body:
        text += "\n" + body
    return Message(role="user", content=(TextBlock(text=text),), meta={SUMMARY_META_KEY: SUMMARY_META_VALUE})


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPlan:
    """What one compaction does: which messages leave, what replaces them, what stays.

    The context after applying it is ``prefix + (summary,) + kept``. With a
    split boundary, the last compacted message is the head of a message whose
    tail is the first kept message (``boundary.split`` rejoins them).
    """

    strategy: str
    """Name of the strategy that made the plan."""
    prefix: tuple[Message, ...]
    """Leading system messages: the prompt, never compacted."""
    compacted: tuple[Message, ...]
    """Messages leaving the context, in order (archived by the session)."""
    kept: tuple[Message, ...]
    """Messages kept verbatim after the summary."""
    summary_text: str
    """The summary body, without the header line."""
    boundary: Boundary
    """Where the cut fell, and the split message if any."""
    tokens_before: int
    """Estimated tokens of the whole input."""
    tokens_after: int
    """Estimated tokens after applying the plan (the archive reference allowance included)."""
    archive_ref: str | None = None
    """Where the compacted messages were archived; filled in by the session after the write."""
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Strategy-specific facts for reports (e.g. messages per fidelity tier)."""
    summary: Message = field(init=False)
    """The summary message (header with the archive reference, then the body)."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "summary",
            summary_message(self.summary_text, count=self.compacted_count, archive_ref=self.archive_ref),
        )

    @property
    def compacted_count(self) -> int:
        """Number of original messages that left the context (a split message counts once)."""
        return len(self.compacted)

    @property
    def messages(self) -> tuple[Message, ...]:
        """The context after applying the plan."""
        return (*self.prefix, self.summary, *self.kept)

    def with_archive_ref(self, ref: str) -> CompactionPlan:
        """The same plan, with the archive reference written into the summary header."""
        return replace(self, archive_ref=ref)

    def original(self) -> tuple[Message, ...]:
        """The input the plan was made from: compacted and kept re-joined (a split message made whole)."""
        split = self.boundary.split
        if split is None:
            return (*self.prefix, *self.compacted, *self.kept)
        return (*self.prefix, *self.compacted[:-1], split.rejoin(), *self.kept[1:])

    @classmethod
    def build(
        cls,
        *,
        strategy: str,
        messages: Sequence[Message],
        boundary: Boundary,
        summary_text: str,
        counter: TokenCounter,
        details: Mapping[str, Any] | None = None,
    ) -> CompactionPlan:
        """Assemble a plan from a boundary on ``messages`` and a summary body, counting tokens."""
        lo, end = boundary.lo, boundary.compacted_end
        compacted: tuple[Message, ...] = tuple(messages[lo:end])
        kept: tuple[Message, ...] = tuple(messages[boundary.cut :])
        if boundary.split is not None:
            compacted = (*compacted, boundary.split.head)
            kept = (boundary.split.tail, *kept)
        prefix = tuple(messages[:lo])
        plan = cls(
            strategy=strategy,
            prefix=prefix,
            compacted=compacted,
            kept=kept,
            summary_text=summary_text,
            boundary=boundary,
            tokens_before=count_messages(counter, messages),
            tokens_after=0,
            details=MappingProxyType(dict(details or {})),
        )
        after = count_messages(counter, plan.messages) + ARCHIVE_REF_TOKENS
        return replace(plan, tokens_after=after)


@runtime_checkable
class CompactionStrategy(Protocol):
    """Answers *what* to compact; ``None`` means there is nothing it can compact."""

    @property
    def name(self) -> str: ...

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan a compaction of ``messages`` (the whole context, system prompt first)."""
        ...


PlanFunction = Callable[..., CompactionPlan | None]
"""A plain function ``fn(messages, *, counter, config) -> CompactionPlan | None`` used as a strategy."""


class FunctionStrategy:
    """Adapts a plain function to `CompactionStrategy`; its name is the function's name."""

    def __init__(self, fn: PlanFunction, name: str | None = None) -> None:
        self._fn = fn
        self._name: str = name or str(getattr(fn, "__name__", "function"))

    @property
    def name(self) -> str:
        return self._name

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        result = self._fn(messages, counter=counter, config=config)
        if result is not None and not isinstance(result, CompactionPlan):
            raise TypeError(f"strategy {self._name!r} returned {type(result).__name__}, not a CompactionPlan or None")
        return result


class NoCompaction:
    """The no-op strategy: never compacts (useful to measure or to disable compaction)."""

    name = "none"

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        return None


def as_strategy(strategy: CompactionStrategy | PlanFunction) -> CompactionStrategy:
    """Accept a strategy object or a plain function."""
    if isinstance(strategy, CompactionStrategy):
        return strategy
    if callable(strategy):
        return FunctionStrategy(strategy)
    raise TypeError(f"not a compaction strategy: {strategy!r}")
