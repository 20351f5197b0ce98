"""`Context`: the session object between the agent loop and the model.

It owns *when* to compact (the trigger, the budget, the fallbacks); a strategy
answers only *what*. Per model call the order is fixed (DESIGN.md): compact if
needed, then inject runtime hints, then render. Token totals are incremental:
each message is counted once (cached on the immutable message), so
``prepare()`` without a compaction costs O(new messages).

A compaction is applied all-or-nothing: the archive is written first, then the
read cache is cleared and the message list swapped in one synchronous step.
The apply runs shielded from cancellation; a cancelled caller waits for it to
finish and then sees the `CancelledError`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from contextfold._config import ContextConfig
from contextfold._digest_strategy import DigestStrategy
from contextfold._errors import ConfigError, InputError
from contextfold._hints import Clock, ContextUsage, HintConfig, SystemClock, Task, inject_hint, plan_hint
from contextfold._messages import HintBlock, Message, ToolResultBlock, ToolSpec
from contextfold._offload import Offloader, OffloadRef
from contextfold._plan import CompactionPlan, CompactionStrategy, PlanFunction, as_strategy
from contextfold._read_cache import ReadCache
from contextfold._split import offload_oversized_result
from contextfold._tokens import TokenCounter, TokenTally, count_tools

__all__ = ["CacheReport", "CompactionReport", "Context", "ContextEvent", "Prepared"]

ProviderName = Literal["openai", "anthropic"]
EventKind = Literal["compaction", "compaction_failed", "hint", "offload", "cache_warning"]


@dataclass(frozen=True, kw_only=True)
class CompactionReport:
    """What one compaction did."""

    strategy: str
    reason: str
    """``trigger`` (over the trigger), ``forced`` (asked for) or ``emergency`` (the provider refused the size)."""
    tokens_before: int
    tokens_after: int
    messages_compacted: int
    messages_kept: int
    archive: OffloadRef | None
    seconds: float
    fallback: str | None = None
    """Why the configured strategy was not used as such (e.g. the model failed and the digest stood in)."""
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, kw_only=True)
class CacheReport:
    """How much of what was sent last time is sent again unchanged (the cacheable prefix)."""

    unchanged_messages: int
    unchanged_tokens: int
    previous_tokens: int
    compacted: bool

    @property
    def share(self) -> float:
        """Unchanged share of the previous request's tokens (1.0 on the first call)."""
        return 1.0 if self.previous_tokens == 0 else self.unchanged_tokens / self.previous_tokens


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """The messages to send to the model, and what happened to get them."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tokens: int
    window: int
    compaction: CompactionReport | None
    hint: HintBlock | None
    cache: CacheReport
    seconds: float

    def render(self, provider: ProviderName) -> dict[str, Any]:
        """The request body parts for ``provider`` (``messages``, ``tools``, and ``system`` for Anthropic)."""
        from contextfold._formats import render

        return render(self.messages, provider, self.tools)


@dataclass(frozen=True, kw_only=True)
class ContextEvent:
    """Something a UI or a log may want to show."""

    kind: EventKind
    data: Any


EventHandler = Callable[[ContextEvent], None]


class Context:
    """A conversation kept inside its model's window.

    ``append``/``extend`` add messages (canonical `Message`s or provider dicts);
    ``tokens`` is the running estimate (system prompt and tool schemas included);
    ``await prepare()`` returns what to send, compacted and hinted as needed.
    """

    def __init__(
        self,
        config: ContextConfig | None = None,
        *,
        window: int | None = None,
        counter: TokenCounter | None = None,
        system: str | Message | None = None,
        tools: Sequence[ToolSpec] = (),
        strategy: CompactionStrategy | PlanFunction | None = None,
        workspace: Offloader | None = None,
        hints: HintConfig | Literal[False] | None = None,
        clock: Clock | None = None,
        read_cache: ReadCache | None = None,
        on_event: EventHandler | None = None,
    ) -> None:
        if config is None:
            if window is None:
                raise ConfigError("Context needs a config or a window (the model's context length in tokens)")
            config = ContextConfig(window=window)
        elif window is not None and window != config.window:
            raise ConfigError(f"Context: window={window} disagrees with config.window={config.window}")
        if counter is None:
            from contextfold._counters import make_counter

            counter = make_counter()
        self.config = config
        self.counter = counter
        self.strategy: CompactionStrategy = as_strategy(strategy) if strategy is not None else DigestStrategy()
        self.workspace = workspace
        self.hints: HintConfig | None = None if hints is False else (hints or HintConfig())
        self.clock: Clock = clock or SystemClock()
        self.read_cache = read_cache if read_cache is not None else ReadCache()
        self._handlers: list[EventHandler] = [on_event] if on_event is not None else []
        self._tools: tuple[ToolSpec, ...] = tuple(tools)
        self._tools_tokens = count_tools(counter, self._tools)
        initial: list[Message] = []
        if system is not None:
            initial.append(system if isinstance(system, Message) else Message.text_message("system", system))
        self._messages: list[Message] = initial
        self._tally = TokenTally(counter, initial)
        self._dirty_from = 0
        self._tools_dirty = False
        self._last_sent: int | None = None  # messages in the previous prepared request
        self._last_sent_tokens = 0
        self._anchor: tuple[int, int, int] | None = None  # (messages covered, provider tokens, our estimate)
        self._compactions = 0
        self._archived = 0  # messages archived so far (for archive ranges)

    # -- reading ------------------------------------------------------------------------------

    @property
    def messages(self) -> tuple[Message, ...]:
        """The current context (system prompt first)."""
        return tuple(self._messages)

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        return self._tools

    @property
    def tokens(self) -> int:
        """Estimated tokens of the next request: messages, system prompt and tool schemas.

        After `record_usage`, the provider's count for the prefix it saw replaces
        our estimate of that prefix; only what came after is estimated.
        """
        estimate = self._tally.total + self._tools_tokens
        if self._anchor is not None:
            _, reported, estimated = self._anchor
            return estimate - estimated + reported
        return estimate

    @property
    def compactions(self) -> int:
        """Number of compactions applied in this session."""
        return self._compactions

    def subscribe(self, handler: EventHandler) -> None:
        """Call ``handler`` with every `ContextEvent` from now on."""
        self._handlers.append(handler)

    # -- writing ------------------------------------------------------------------------------

    def set_tools(self, tools: Sequence[ToolSpec]) -> None:
        """Replace the tool definitions (they are part of the cached prefix: changing them costs the cache)."""
        self._tools = tuple(tools)
        self._tools_tokens = count_tools(self.counter, self._tools)
        self._tools_dirty = True
        self._anchor = None

    def append(self, message: Message | Mapping[str, Any], *, provider: ProviderName | None = None) -> None:
        """Add one message (canonical, or an OpenAI/Anthropic message dict)."""
        for m in self._coerce(message, provider, len(self._messages)):
            self._messages.append(m)
            self._tally.append(m)

    def extend(self, messages: Iterable[Message | Mapping[str, Any]], *, provider: ProviderName | None = None) -> None:
        """Add several messages in order."""
        for message in messages:
            self.append(message, provider=provider)

    async def append_tool_result(self, message: Message) -> list[OffloadRef]:
        """Append a tool message after splitting results over ``config.result_limit`` (rest offloaded).

        If the workspace write fails, `WorkspaceError` propagates and nothing is appended.
        """
        if message.role != "tool":
            raise InputError(f"append_tool_result takes a tool message, got role {message.role!r}")
        refs: list[OffloadRef] = []
        blocks: list[ToolResultBlock] = []
        for block in message.tool_results:
            kept, ref = await offload_oversized_result(
                block, limit=self.config.result_limit, counter=self.counter, offloader=self.workspace
            )
            blocks.append(kept)
            if ref is not None:
                refs.append(ref)
        if refs:
            message = message.replace(content=tuple(blocks))
            self._emit("offload", refs)
        elif any(k is not b for k, b in zip(blocks, message.tool_results, strict=True)):
            message = message.replace(content=tuple(blocks))
        self.append(message)
        return refs

    def record_usage(self, prompt_tokens: int) -> None:
        """Anchor the estimate on the provider's reported prompt tokens for the last prepared request."""
        if self._last_sent is None or prompt_tokens < 0:
            return
        covered = self._last_sent
        estimated = sum(self._tally.counts[:covered]) + self._tools_tokens
        self._anchor = (covered, prompt_tokens, estimated)

    # -- the per-call pipeline ----------------------------------------------------------------

    async def prepare(
        self,
        *,
        first_call_of_reply: bool = True,
        open_tasks: Sequence[Task] | Sequence[str] = (),
    ) -> Prepared:
        """Compact if over the trigger (at most once), inject runtime hints, and return what to send."""
        started = time.perf_counter()
        report: CompactionReport | None = None
        if self.tokens > self.config.trigger_tokens:
            report = await self.compact(reason="trigger")
        hint = self._inject_hints(first_call_of_reply, open_tasks)
        cache = self._cache_report(compacted=report is not None)
        self._last_sent = len(self._messages)
        self._last_sent_tokens = self._tally.total + self._tools_tokens
        self._dirty_from = len(self._messages)
        self._tools_dirty = False
        return Prepared(
            messages=tuple(self._messages),
            tools=self._tools,
            tokens=self.tokens,
            window=self.config.window,
            compaction=report,
            hint=hint,
            cache=cache,
            seconds=time.perf_counter() - started,
        )

    async def compact(self, *, reason: str = "forced") -> CompactionReport | None:
        """Compact now; ``None`` when there is nothing to compact.

        If the reserve leaves nothing to compact while over the trigger, the plan
        is retried with reserve 0. Raises `BudgetError`/`ContextOverflowError`
        when the floor alone exceeds the budget, `WorkspaceError` when the
        archive cannot be written (the context is then unchanged).
        """
        started = time.perf_counter()
        plan = await self._plan(self.config)
        if plan is None and self.config.reserve_ratio > 0 and self.tokens > self.config.trigger_tokens:
            plan = await self._plan(self.config.model_copy(update={"reserve_ratio": 0.0, "min_recent_messages": 0}))
        if plan is None:
            return None
        task = asyncio.ensure_future(self._apply(plan, reason, started))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                await asyncio.wait({task})
            raise

    # -- internals ----------------------------------------------------------------------------

    async def _plan(self, config: ContextConfig) -> CompactionPlan | None:
        aplan = getattr(self.strategy, "aplan", None)
        if aplan is not None and inspect.iscoroutinefunction(aplan):
            result: CompactionPlan | None = await aplan(self._messages, counter=self.counter, config=config)
            return result
        return self.strategy.plan(self._messages, counter=self.counter, config=config)

    async def _apply(self, plan: CompactionPlan, reason: str, started: float) -> CompactionReport:
        before = self.tokens
        ref: OffloadRef | None = None
        if self.workspace is not None:
            lo = len(plan.prefix)
            start = self._archived + lo
            ref = await self.workspace.offload_context(
                plan.compacted, message_range=(start, start + len(plan.compacted))
            )
            plan = plan.with_archive_ref(ref.path)
        # From here on nothing awaits: the swap cannot be torn.
        self.read_cache.invalidate(plan.compacted)
        self._messages = list(plan.messages)
        self._tally.reset(self._messages)
        self._anchor = None
        self._touch(len(plan.prefix))
        self._compactions += 1
        self._archived += len(plan.compacted)
        fallback = plan.details.get("fallback")
        report = CompactionReport(
            strategy=plan.strategy,
            reason=reason,
            tokens_before=before,
            tokens_after=self.tokens,
            messages_compacted=len(plan.compacted),
            messages_kept=len(plan.kept),
            archive=ref,
            seconds=time.perf_counter() - started,
            fallback=str(fallback) if fallback is not None else None,
            details=plan.details,
        )
        self._emit("compaction", report)
        if report.tokens_after > self.config.trigger_tokens:
            # Applied (the archive is written), but the estimate is still high: say so.
            self._emit("compaction_failed", report)
        return report

    def _inject_hints(self, first_call_of_reply: bool, open_tasks: Sequence[Task] | Sequence[str]) -> HintBlock | None:
        if self.hints is None or not self._messages:
            return None
        last = self._messages[-1]
        if last.role == "assistant" and last.tool_calls:
            return None  # results are pending; a user turn here would orphan the calls
        usage = ContextUsage(tokens=self.tokens, window=self.config.window, trigger_ratio=self.config.trigger_ratio)
        hint = plan_hint(
            self._messages,
            now=self.clock.now(),
            config=self.hints,
            open_tasks=open_tasks,
            usage=usage,
            first_call_of_reply=first_call_of_reply,
        )
        if hint is None:
            return None
        index = len(self._messages) - 1
        updated = inject_hint(self._messages, hint)
        if len(updated) == len(self._messages):  # merged into the trailing user message
            self._touch(index)
            self._messages = updated
            self._tally.reset(self._messages)
        else:
            self._messages.append(updated[-1])
            self._tally.append(updated[-1])
        self._emit("hint", hint)
        return hint

    def _cache_report(self, *, compacted: bool) -> CacheReport:
        if self._last_sent is None:
            return CacheReport(unchanged_messages=0, unchanged_tokens=0, previous_tokens=0, compacted=compacted)
        keep = min(self._last_sent, self._dirty_from)
        unchanged = sum(self._tally.counts[:keep]) + (0 if self._tools_dirty else self._tools_tokens)
        report = CacheReport(
            unchanged_messages=keep,
            unchanged_tokens=unchanged,
            previous_tokens=self._last_sent_tokens,
            compacted=compacted,
        )
        if (keep < self._last_sent or self._tools_dirty) and not compacted:
            self._emit("cache_warning", report)
        return report

    def _touch(self, index: int) -> None:
        self._dirty_from = min(self._dirty_from, index)
        if self._anchor is not None and index < self._anchor[0]:
            self._anchor = None

    def _emit(self, kind: EventKind, data: Any) -> None:
        event = ContextEvent(kind=kind, data=data)
        for handler in self._handlers:
            handler(event)

    @staticmethod
    def _coerce(message: Message | Mapping[str, Any], provider: ProviderName | None, index: int) -> list[Message]:
        if isinstance(message, Message):
            return [message]
        if not isinstance(message, Mapping):
            raise InputError(f"cannot append {type(message).__name__}: expected a Message or a message dict")
        from contextfold._formats import detect_format, to_canonical

        chosen = provider or detect_format([dict(message)])
        try:
            return to_canonical([dict(message)], chosen)
        except InputError as exc:
            raise InputError(exc.reason, message_index=index) from exc
