"""The compaction plan record and the strategy interface.

Plan, then apply: a strategy answers only *what* to compact and returns a
`CompactionPlan`; the session decides *when*, writes the archive, then
applies the plan all-or-nothing. Keeping the plan a plain frozen record makes
"nothing lost" checkable (``prefix + compacted + kept`` re-forms the input)
and gives ``compact --dry-run`` for free.

Two kinds of change fit in one plan: a *summary* (``compacted`` leaves and
one summary message replaces it) and *replacements* (a message of the kept
part rewritten in place, e.g. an old tool result cleared to a placeholder).
The originals of both are what the session archives (`CompactionPlan.archived`).
Placeholders name the archive, which only exists after the write: they carry
`ARCHIVE_PENDING` until `CompactionPlan.with_archive_ref` fills it in.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from contextfold._markers import (
    ARCHIVE_PENDING,
    MARKER_KEY,
    PLACEHOLDER_MARKER,
    PROVIDER_KEEP,
    SUMMARY_HEADER_PREFIX,
    SUMMARY_MARKER,
    is_placeholder_text,
    provider_state,
    summary_header,
)
from contextfold._markers import is_summary as is_summary_message
from contextfold._messages import Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._boundaries import Boundary, count_live

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = [
    "ARCHIVE_PENDING",
    "ARCHIVE_REF_TOKENS",
    "PLACEHOLDER_META_VALUE",
    "SUMMARY_HEADER_PREFIX",
    "AsyncCompactionStrategy",
    "CompactionPlan",
    "CompactionStrategy",
    "FunctionStrategy",
    "NoCompaction",
    "PlanFunction",
    "Replacement",
    "as_strategy",
    "fill_archive_ref",
    "is_summary_message",
    "plan_async",
    "summary_header",
    "summary_message",
]

ARCHIVE_REF_TOKENS = 32
"""Tokens set aside in ``tokens_after`` for the archive reference filled in later."""
PLACEHOLDER_META_VALUE = PLACEHOLDER_MARKER
"""Old name of `contextfold._markers.PLACEHOLDER_MARKER` (the markers and `is_summary_message` live there now)."""
PLACEHOLDER_REF_TOKENS = 12
"""Tokens set aside per placeholder for the archive path replacing `ARCHIVE_PENDING`."""


def fill_archive_ref(message: Message, ref: str) -> Message:
    """``message`` with `ARCHIVE_PENDING` replaced by ``ref`` in the placeholder blocks a strategy wrote."""

    def fill(block: TextBlock) -> TextBlock:
        if not is_placeholder_text(block):
            return block
        return TextBlock(text=block.text.replace(ARCHIVE_PENDING, ref), meta=block.meta)

    changed = False
    content: list[Any] = []
    for block in message.content:
        new: Any = block
        if isinstance(block, TextBlock):
            new = fill(block)
        elif isinstance(block, ToolResultBlock):
            inner = tuple(fill(b) if isinstance(b, TextBlock) else b for b in block.content)
            if any(a is not b for a, b in zip(inner, block.content, strict=True)):
                new = replace(block, content=inner)
        changed = changed or new is not block
        content.append(new)
    return message.replace(content=tuple(content)) if changed else message


@dataclass(frozen=True, slots=True)
class Replacement:
    """A kept message rewritten in place: ``kept[index]`` is the rewrite of ``original``."""

    index: int
    original: Message


def summary_message(
    body: str, *, count: int, archive_ref: str | None, meta: Mapping[str, Any] | None = None
) -> Message:
    """The user message that replaces the compacted part (user, so both providers accept it anywhere).

    ``meta``: extra entries for the message's meta (never sent; e.g. the ledger facts its cap left out).
    """
    text = summary_header(count, archive_ref)
    if body:
        text += "\n" + body
    return Message(role="user", content=(TextBlock(text=text),), meta={**(meta or {}), MARKER_KEY: SUMMARY_MARKER})


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPlan:
    """What one compaction does: which messages leave, what replaces them, what stays.

    The context after applying it is ``prefix + carried + (summary,) +
    attachments + kept`` (no summary when nothing was compacted: a plan of
    replacements only); ``carried`` are the compacted messages holding a
    provider's memory (`contextfold._markers.PROVIDER_KEEP`), which go on
    verbatim. With a split boundary, the last compacted message is the head of
    a message whose tail is the first kept message (``boundary.split``
    rejoins them).
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
    replaced: tuple[Replacement, ...] = ()
    """Kept messages rewritten in place, with their originals (archived by the session)."""
    attachments: tuple[Message, ...] = ()
    """Messages re-attached right after the summary (pins, open tasks, project instructions)."""
    summary_meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Extra meta of the summary message (not sent): the ledger facts its cap left out, for the next compaction."""
    summary: Message = field(init=False)
    """The summary message (header with the archive reference, then the body)."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "summary",
            summary_message(
                self.summary_text, count=self.compacted_count, archive_ref=self.archive_ref, meta=self.summary_meta
            ),
        )

    @property
    def compacted_count(self) -> int:
        """Number of original messages that left the context (a split message counts once)."""
        return len(self.compacted)

    @property
    def carried(self) -> tuple[Message, ...]:
        """Compacted messages that go on verbatim, in front of the summary: a provider's memory of earlier turns."""
        return tuple([m for m in self.compacted if provider_state(m) == PROVIDER_KEEP])

    @property
    def messages(self) -> tuple[Message, ...]:
        """The context after applying the plan."""
        if not self.compacted:
            return (*self.prefix, *self.attachments, *self.kept)
        return (*self.prefix, *self.carried, self.summary, *self.attachments, *self.kept)

    @property
    def archived(self) -> tuple[Message, ...]:
        """What the session archives: the compacted messages, then the originals of rewritten ones."""
        return (*self.compacted, *(r.original for r in self.replaced))

    @property
    def first_change(self) -> int:
        """Index (in `messages`) of the first message that differs from the input: the cache prefix ends there."""
        if self.compacted or self.attachments:
            return len(self.prefix)
        return len(self.prefix) + min((r.index for r in self.replaced), default=len(self.kept))

    def with_archive_ref(self, ref: str) -> CompactionPlan:
        """The same plan, with the archive reference written into the summary header and placeholders."""
        if not self.replaced:
            return replace(self, archive_ref=ref)
        kept = list(self.kept)
        for r in self.replaced:
            kept[r.index] = fill_archive_ref(kept[r.index], ref)
        return replace(self, archive_ref=ref, kept=tuple(kept))

    def with_attachments(self, attachments: Sequence[Message], counter: TokenCounter) -> CompactionPlan:
        """The same plan with messages re-attached after the summary (recounted)."""
        plan = replace(self, attachments=tuple(attachments))
        after = count_live(counter, plan.messages) + ARCHIVE_REF_TOKENS
        return replace(plan, tokens_after=after)

    def original(self) -> tuple[Message, ...]:
        """The input the plan was made from: compacted and kept re-joined (a split message made whole)."""
        kept = list(self.kept)
        for r in self.replaced:
            kept[r.index] = r.original
        split = self.boundary.split
        if split is None:
            return (*self.prefix, *self.compacted, *kept)
        return (*self.prefix, *self.compacted[:-1], split.rejoin(), *kept[1:])

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
        summary_meta: Mapping[str, Any] | None = None,
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
            tokens_before=count_live(counter, messages),
            tokens_after=0,
            details=MappingProxyType(dict(details or {})),
            summary_meta=MappingProxyType(dict(summary_meta or {})),
        )
        after = count_live(counter, plan.messages) + ARCHIVE_REF_TOKENS
        return replace(plan, tokens_after=after)

    @classmethod
    def rewrite(
        cls,
        *,
        strategy: str,
        messages: Sequence[Message],
        lo: int,
        rewrites: Mapping[int, Message],
        counter: TokenCounter,
        details: Mapping[str, Any] | None = None,
    ) -> CompactionPlan:
        """A plan that only rewrites messages in place (``rewrites``: index in ``messages`` -> new message).

        ``messages[:lo]`` is the prefix (the system prompt); nothing is compacted, so there is no summary.
        """
        if not rewrites or min(rewrites) < lo:
            raise ValueError("CompactionPlan.rewrite: needs rewrites, all after the prefix")
        kept = [rewrites.get(i, m) for i, m in enumerate(messages)][lo:]
        replaced = tuple(Replacement(index=i - lo, original=messages[i]) for i in sorted(rewrites))
        plan = cls(
            strategy=strategy,
            prefix=tuple(messages[:lo]),
            compacted=(),
            kept=tuple(kept),
            summary_text="",
            boundary=Boundary(lo=lo, cut=lo, split=None, kept_tokens=0, protected=True),
            tokens_before=count_live(counter, messages),
            tokens_after=0,
            details=MappingProxyType(dict(details or {})),
            replaced=replaced,
        )
        after = count_live(counter, plan.messages) + PLACEHOLDER_REF_TOKENS * len(replaced)
        return replace(plan, tokens_after=after)


@runtime_checkable
class CompactionStrategy(Protocol):
    """Answers *what* to compact; ``None`` means there is nothing it can compact.

    A strategy that needs to await (a summary model) also has ``async def aplan`` with the same signature
    (`AsyncCompactionStrategy`); `plan_async` is the one place that chooses between the two, so callers never
    look for ``aplan`` themselves. ``plan`` stays required: it is the answer a synchronous caller gets.
    """

    @property
    def name(self) -> str: ...

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan a compaction of ``messages`` (the whole context, system prompt first)."""
        ...


@runtime_checkable
class AsyncCompactionStrategy(CompactionStrategy, Protocol):
    """A strategy that plans asynchronously too: `plan_async` awaits its ``aplan``."""

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan a compaction of ``messages``, awaiting what it needs (a model call)."""
        ...


async def plan_async(
    strategy: CompactionStrategy, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
) -> CompactionPlan | None:
    """The strategy's plan, from its ``aplan`` when it has a coroutine ``aplan``, else from ``plan``.

    Strategies written against the protocol before ``aplan`` existed, with ``plan`` only, keep working.
    """
    if isinstance(strategy, AsyncCompactionStrategy) and inspect.iscoroutinefunction(strategy.aplan):
        return await strategy.aplan(messages, counter=counter, config=config)
    return strategy.plan(messages, counter=counter, config=config)


PlanFunction = Callable[..., CompactionPlan | None] | Callable[..., Awaitable[CompactionPlan | None]]
"""A plain function ``fn(messages, *, counter, config) -> CompactionPlan | None`` (or ``async def``) as a strategy."""


class FunctionStrategy:
    """Adapts a plain function to `CompactionStrategy`; its name is the function's name.

    An ``async def`` function plans through `aplan` (which `plan_async` and the `Context` use); its ``plan``
    raises `TypeError`, since a synchronous caller cannot await it.
    """

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
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()  # never awaited: close it rather than leave a "never awaited" warning
            raise TypeError(f"strategy {self._name!r} is async: plan with plan_async (Context.prepare does)")
        return self._checked(result)

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        result = self._fn(messages, counter=counter, config=config)
        if inspect.isawaitable(result):
            result = await result
        return self._checked(result)

    def _checked(self, result: object) -> CompactionPlan | None:
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
