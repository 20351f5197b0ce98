"""`Context`: the session object between the agent loop and the model.

It owns *when* to compact (the trigger, the budget, the fallbacks); a strategy
answers only *what*. Per model call the order is fixed (docs/design-notes.md,
"Per-call order"): compact if needed, then inject runtime hints, then render.
Token totals are incremental: each message is counted once (cached on the
immutable message), so ``prepare()`` without a compaction costs O(new
messages).

A compaction is applied all-or-nothing: the archive is written first, then the
read cache is cleared and the message list swapped in one synchronous step.
The apply runs shielded from cancellation; a cancelled caller waits for it to
finish and then sees the `CancelledError`. Concurrency (see `Context` and
docs/context.md): ``prepare``/``compact`` are serialized, and messages
appended while a compaction is planned or applied are kept after it, in order.

The default strategy is the digest with its facts ledger: on the dev corpus
it keeps more file paths verbatim than `TieredCompaction` (whose placeholders
name only a few paths of the output they clear), at the same cache share;
see benchmarks/results/compaction-quality.md. Pinned messages, open tasks and the project
instructions are re-attached right after a summary, so the real rules follow
the summary; the strategy plans for the room they and the tool schemas take.
An automatic compaction must satisfy the `LoopGuard`, or `prepare` raises
`ContextOverflowError` naming the irreducible floor (at most one automatic
compaction per call). Between compactions the context is append-only, so
the prefix sent last time is sent again byte for byte (`Prepared.cache`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from contextfold._errors import ConfigError, ContextOverflowError, InputError
from contextfold._formats._providers import ProviderName
from contextfold._guard import Fence
from contextfold._markers import (
    INSTRUCTIONS_TAG,
    MARKER_KEY,
    OPEN_TASKS_HEADER,
    PINNED_HEADER,
    PROVIDER_BOUNDARY,
    REATTACH_HEADER,
    REATTACHED_MARKER,
    provider_state,
)
from contextfold._messages import HintBlock, Message, ToolResultBlock, ToolSpec
from contextfold._runtime._hints import (
    Clock,
    HintScanner,
    SystemClock,
    Task,
    inject_hint,
)
from contextfold._runtime._layers import PromptFile, SystemPromptBuilder
from contextfold._runtime._read_cache import ReadCache
from contextfold._tokens._counting import TokenCounter, TokenTally, count_tools
from contextfold._tool_results import admit_tool_message
from contextfold._workspace._offload import Offloader, OffloadRef
from contextfold._workspace._split import ResultLimitError, explain_result_limit
from contextfold.compaction._boundaries import dead_span, fixed_prefix_count, last_user_index
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._groups import pending_tail
from contextfold.compaction._loop_guard import LoopGuard, floor_error
from contextfold.compaction._plan import CompactionPlan, CompactionStrategy, PlanFunction, as_strategy, plan_async

if TYPE_CHECKING:  # the settings models load on first use (they import pydantic); see __init__ below
    from contextfold._config import ContextConfig
    from contextfold._guard._config import GuardConfig
    from contextfold._runtime._hint_config import HintConfig

__all__ = ["REATTACHED_META_VALUE", "CacheReport", "CompactionReport", "Context", "ContextEvent", "Prepared"]

REATTACHED_META_VALUE = REATTACHED_MARKER
"""Old name of `contextfold._markers.REATTACHED_MARKER` (the re-attached message's texts live there too)."""

EventKind = Literal["compaction", "compaction_failed", "hint", "offload", "cache_warning", "guard", "tool_result"]


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
    messages_rewritten: int = 0
    """Kept messages rewritten in place (tool output cleared or deduplicated; originals archived)."""

    @property
    def tier_runs(self) -> tuple[Mapping[str, Any], ...]:
        """Which tiers ran and what each reclaimed (empty for a strategy without tiers)."""
        runs: tuple[Mapping[str, Any], ...] = tuple(self.details.get("tier_runs", ()))
        return runs


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

    Concurrency (one event loop; the object is not thread-safe):

    - ``append``/``extend``/``pin`` may be called at any time, from any task,
      also while a ``prepare()`` or ``compact()`` awaits its strategy or the
      archive write. A compaction plans on a snapshot of the messages; what
      was appended after the snapshot is kept after the compacted part,
      verbatim and in order. Nothing appended is ever lost or reordered.
    - ``prepare()`` and ``compact()`` are serialized: a second call waits until
      the first has finished, including an apply that a cancelled caller left
      running, then decides afresh (a second ``prepare`` re-checks the
      trigger on the compacted context, so the same prefix is never archived
      twice).
    - A compaction applies fully (archive written, read cache cleared,
      messages swapped) or not at all. Once the archive write has started,
      cancelling the caller does not stop it: the first cancel waits for the
      apply, a repeated cancel returns at once while the apply completes in
      the background (and the next ``prepare``/``compact`` waits for it).
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
        instructions: str | PromptFile | SystemPromptBuilder | None = None,
        loop_guard: LoopGuard | None = None,
    ) -> None:
        if config is None:
            if window is None:
                raise ConfigError("Context needs a config or a window (the model's context length in tokens)")
            from contextfold._config import ContextConfig

            config = ContextConfig(window=window)
        elif window is not None and window != config.window:
            raise ConfigError(f"Context: window={window} disagrees with config.window={config.window}")
        if counter is None:
            from contextfold._tokens._factory import make_counter

            counter = make_counter()
        self.config = config
        self.counter = counter
        self.strategy: CompactionStrategy = as_strategy(strategy) if strategy is not None else DigestStrategy()
        self.loop_guard = loop_guard or LoopGuard()
        self.instructions = _instructions_text(instructions)
        self._pins: list[Message] = []
        self._open_tasks: tuple[Task, ...] = ()
        self.workspace = workspace
        if hints is None:
            from contextfold._runtime._hint_config import HintConfig

            hints = HintConfig()
        self.hints: HintConfig | None = None if hints is False else hints
        self._hint_scanner = HintScanner(self.hints.task_tool_names) if self.hints is not None else None
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
        self._dead_tokens = 0  # tokens of the messages the provider drops (before its latest compaction boundary)
        self._call_ids: set[str] = set()  # every tool call id seen, to refuse orphan results on append
        self._dirty_from = 0
        self._tools_dirty = False
        self._last_sent: int | None = None  # messages in the previous prepared request
        self._last_sent_tokens = 0
        self._anchor: tuple[int, int, int] | None = None  # (messages covered, provider tokens, our estimate)
        self._compactions = 0
        self._archived = 0  # messages archived so far (for archive ranges)
        self._serial: asyncio.Lock | None = None  # serializes prepare/compact (made on first use, per loop)
        self._serial_loop: asyncio.AbstractEventLoop | None = None
        self._applying: asyncio.Future[CompactionReport] | None = None  # an apply that may outlive its caller

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
        estimate = self._tally.total - self._dead_tokens + self._tools_tokens
        if self._anchor is not None:
            _, reported, estimated = self._anchor
            return estimate - estimated + reported
        return estimate

    @property
    def compactions(self) -> int:
        """Number of compactions applied in this session."""
        return self._compactions

    @property
    def pinned(self) -> tuple[Message, ...]:
        """The pinned messages, in pin order."""
        return tuple(self._pins)

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
        for m in (message,) if type(message) is Message else self._coerce(message, provider, len(self._messages)):
            self._check_pairing(m)
            self._messages.append(m)
            self._tally.append(m)
            if provider_state(m) == PROVIDER_BOUNDARY:
                self._recount_dead()

    def _recount_dead(self) -> None:
        """Recount what the provider drops: the messages before its latest compaction boundary cost nothing."""
        start, end = dead_span(self._messages)
        self._dead_tokens = sum(self._tally.counts[start:end])

    def _check_pairing(self, message: Message) -> None:
        """Refuse a tool result whose call was never made: no provider accepts it, and no compaction can fix it."""
        if message.role == "assistant":
            self._call_ids.update(call.id for call in message.tool_calls)
        elif message.role == "tool":
            for result in message.content:
                if isinstance(result, ToolResultBlock) and result.call_id not in self._call_ids:
                    raise InputError(
                        f"tool result for call {result.call_id!r} has no matching tool call in this context "
                        "(append the assistant message that made the call first; `contextfold validate` lists "
                        "such problems in a transcript)",
                        message_index=len(self._messages),
                    )

    def extend(self, messages: Iterable[Message | Mapping[str, Any]], *, provider: ProviderName | None = None) -> None:
        """Add several messages in order."""
        for message in messages:
            self.append(message, provider=provider)

    async def append_tool_result(
        self,
        message: Message | Mapping[str, Any],
        *,
        provider: ProviderName | None = None,
        guard: GuardConfig | None = None,
        fence: Fence | None = None,
    ) -> list[OffloadRef]:
        """Append a tool message through the tool-result path; return what was offloaded.

        ``message`` is a canonical tool message or a provider dict, as `append` takes them (an OpenAI
        ``{"role": "tool", ...}`` message, an Anthropic user message with ``tool_result`` blocks; text beside the
        results is appended after them, as `append` does). Each result is guarded (with ``guard``: redaction and
        injection defanging per its mode, and the ``fence`` when its ``fence`` flag is on), split when over
        ``config.result_limit`` (the rest offloaded to the workspace, named by a notice), fenced, counted once
        and appended (`contextfold._tool_results`). Emits ``guard``, ``offload`` and ``tool_result`` events.
        If the workspace write fails, `WorkspaceError` propagates and nothing is appended; if the limit cannot hold
        even the truncation notice, `ResultLimitError` (a `ConfigError`) names the window to use.
        """
        index = len(self._messages)
        coerced = self._coerce(message, provider, index)
        if not any(m.role == "tool" for m in coerced):
            role = coerced[0].role if coerced else "empty"
            raise InputError(f"append_tool_result takes a tool message (tool results), got role {role!r}")
        for m in coerced:  # refuse an orphan result before anything is offloaded
            self._check_pairing(m)
        refs: list[OffloadRef] = []
        for m in coerced:
            if m.role != "tool":
                self.append(m)
                continue
            try:
                admitted = await admit_tool_message(
                    m,
                    limit=self.config.result_limit,
                    counter=self.counter,
                    offloader=self.workspace,
                    guard=guard,
                    fence=fence,
                    on_event=self._emit,
                )
            except ResultLimitError as exc:  # say which setting is too small, not the internal limit
                raise explain_result_limit(exc, self.config) from None
            self.append(admitted.message)  # its count is cached: the tally does not count it again
            refs.extend(admitted.refs)
        return refs

    def pin(self, item: Message | str) -> Message:
        """Pin a message (or a fact, appended as a user message): re-attached verbatim after every summary.

        A pinned message that a compaction removes comes back, as text, right
        after the summary. Pinning a fact appends it now (it cannot go between
        tool calls and their results: `InputError`).
        """
        if isinstance(item, str):
            if not item.strip():
                raise InputError("cannot pin an empty fact")
            if self._messages and pending_tail(self._messages) is not None:
                raise InputError(
                    "cannot pin a fact while tool calls await their results; append the results first",
                    message_index=len(self._messages) - 1,
                )
            message = Message.text_message("user", item)
            self.append(message)
        else:
            message = item
        if not any(p is message for p in self._pins):
            self._pins.append(message)
        return message

    def unpin(self, item: Message | str) -> bool:
        """Stop re-attaching a pinned message (or the pinned fact with this text); whether one was pinned."""
        for index, pinned in enumerate(self._pins):
            if pinned is item or (isinstance(item, str) and pinned.text == item):
                del self._pins[index]
                return True
        return False

    def record_usage(self, prompt_tokens: int) -> None:
        """Anchor the estimate on the provider's reported prompt tokens for the last prepared request."""
        if self._last_sent is None or prompt_tokens < 0:
            return
        covered = self._last_sent
        estimated = self._tally.prefix_total(covered) - self._dead_tokens + self._tools_tokens
        self._anchor = (covered, prompt_tokens, estimated)

    # -- the per-call pipeline ----------------------------------------------------------------

    async def prepare(
        self,
        *,
        first_call_of_reply: bool = True,
        open_tasks: Sequence[Task] | Sequence[str] = (),
    ) -> Prepared:
        """Compact if over the trigger (at most once), inject runtime hints, and return what to send.

        Serialized with other ``prepare``/``compact`` calls (see `Context`).
        """
        async with self._lock():  # uncontended, this does not yield: the hot path stays O(new messages)
            if self._applying is not None:
                await self._settle()
            return await self._prepare(first_call_of_reply, open_tasks)

    async def _prepare(self, first_call_of_reply: bool, open_tasks: Sequence[Task] | Sequence[str]) -> Prepared:
        started = time.perf_counter()
        report: CompactionReport | None = None
        self._open_tasks = (
            tuple([t if isinstance(t, Task) else Task(subject=t) for t in open_tasks]) if open_tasks else ()
        )
        # The hint is part of what is sent: decide it first, so that it cannot push the request over the trigger.
        hint = self._plan_hint(first_call_of_reply, self._open_tasks)
        hint_tokens = self.counter.count_message(Message(role="user", content=(hint,))) if hint is not None else 0
        if self.tokens + hint_tokens > self.config.trigger_tokens:
            report = await self._compact("trigger")
            hint = self._plan_hint(first_call_of_reply, self._open_tasks)  # compaction removed the earlier hints
        if hint is not None:
            self._insert_hint(hint)
        cache = self._cache_report(compacted=report is not None)
        self._last_sent = len(self._messages)
        self._last_sent_tokens = self._tally.total - self._dead_tokens + self._tools_tokens
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

        If the reserve leaves nothing to compact while over the trigger, or the
        plan does not satisfy the loop guard, the plan is retried with reserve
        0. An automatic compaction (``reason="trigger"``) that still fails the
        guard raises `ContextOverflowError` naming the floor; so does a floor
        that alone exceeds the budget. `WorkspaceError` when the archive
        cannot be written (the context is then unchanged).

        Serialized with other ``prepare``/``compact`` calls; messages appended
        meanwhile are kept after the compacted part (see `Context`).
        """
        async with self._lock():
            if self._applying is not None:
                await self._settle()
            return await self._compact(reason)

    async def _compact(self, reason: str) -> CompactionReport | None:
        started = time.perf_counter()
        # Plan on a snapshot: an async strategy awaits, and other tasks may append meanwhile. Those
        # appends are after the snapshot and `_apply` keeps them after the compacted part.
        snapshot = tuple(self._messages)
        automatic = reason == "trigger"
        attachment = self._reattachment()
        extra = self._tools_tokens + (self.counter.count_message(attachment) if attachment is not None else 0)
        limit = self.loop_guard.limit(self.config)
        try:
            config = self._planning_config(extra)
            plan = await self._plan(snapshot, config, attachment)
            if (plan is None or not self._accepts(plan)) and self.tokens > self.config.trigger_tokens:
                zero = config.model_copy(update={"reserve_ratio": 0.0, "min_recent_messages": 0})
                retry = await self._plan(snapshot, zero, attachment)
                if retry is not None and (plan is None or retry.tokens_after < plan.tokens_after):
                    plan = retry
        except ContextOverflowError as exc:  # say what the whole floor is made of, not only the strategy's view
            raise floor_error(self._floor(attachment), best=None, limit=limit, config=self.config) from exc
        if automatic and (plan is None or not self._accepts(plan)):
            best = plan.tokens_after + self._tools_tokens if plan is not None else None
            raise floor_error(self._floor(attachment), best=best, limit=limit, config=self.config)
        if plan is None:
            return None
        task = asyncio.ensure_future(self._apply(plan, len(snapshot), reason, started))
        task.add_done_callback(_retrieve)
        self._applying = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                # A repeated cancel ends this wait; the apply still completes (or fails) on its own, keeping
                # what was appended meanwhile, and the next prepare/compact waits for it (`_settle`).
                await asyncio.wait({task})
            raise

    def _lock(self) -> asyncio.Lock:
        """The prepare/compact lock; a lock is bound to one loop, so successive `asyncio.run` calls get new ones."""
        loop = asyncio.get_running_loop()
        if self._serial is None or self._serial_loop is not loop:
            self._serial, self._serial_loop = asyncio.Lock(), loop
        return self._serial

    async def _settle(self) -> None:
        """Wait (holding the lock) for an apply a cancelled caller left running; it is never cancelled from here."""
        applying = self._applying
        if applying is not None and not applying.done() and applying.get_loop() is asyncio.get_running_loop():
            await asyncio.wait({applying})  # if this wait is cancelled, the next caller waits in turn
        self._applying = None

    # -- internals ----------------------------------------------------------------------------

    async def _plan(
        self, messages: Sequence[Message], config: ContextConfig, attachment: Message | None
    ) -> CompactionPlan | None:
        result = await plan_async(self.strategy, messages, counter=self.counter, config=config)
        if result is not None and result.compacted and attachment is not None:
            result = result.with_attachments((attachment,), self.counter)
        return result

    def _planning_config(self, extra: int) -> ContextConfig:
        """The config a strategy plans with: the window less what tools and re-attachments will take."""
        if extra <= 0:
            return self.config
        per_token = self.config.trigger_ratio / self.config.safety_margin
        window = self.config.window - math.ceil(extra / per_token)
        if window <= 0:
            raise floor_error(
                self._floor(self._reattachment()),
                best=None,
                limit=self.loop_guard.limit(self.config),
                config=self.config,
            )
        return self.config.model_copy(update={"window": window})

    def _accepts(self, plan: CompactionPlan) -> bool:
        before = plan.tokens_before + self._tools_tokens
        return self.loop_guard.accepts(before, plan.tokens_after + self._tools_tokens, self.config)

    def _reattachment(self) -> Message | None:
        """The message re-attached after a summary: project instructions, pinned messages, open tasks."""
        parts: list[str] = []
        if self.instructions:
            parts.append(f"<{INSTRUCTIONS_TAG}>\n{self.instructions}\n</{INSTRUCTIONS_TAG}>")
        pins = [p.text.strip() for p in self._pins if p.text.strip()]
        if pins:
            parts.append(f"{PINNED_HEADER}\n" + "\n".join(f"- {p}" for p in pins))
        tasks = [t for t in self._open_tasks if t.open]
        if tasks:
            parts.append(
                f"{OPEN_TASKS_HEADER}\n"
                + "\n".join(f"- [{t.status}] {t.subject}" + (f" (id {t.id})" if t.id else "") for t in tasks)
            )
        if not parts:
            return None
        text = REATTACH_HEADER + "\n\n" + "\n\n".join(parts)
        return Message.text_message("user", text, meta={MARKER_KEY: REATTACHED_MARKER})

    def _floor(self, attachment: Message | None) -> dict[str, int]:
        """What no compaction can remove, in tokens."""
        counts = self._tally.counts
        lo = fixed_prefix_count(self._messages)
        user = last_user_index(self._messages, lo)
        pending = pending_tail(self._messages[lo:])
        start = user if user is not None else (lo + pending if pending is not None else len(self._messages))
        pinned = self.counter.count_message(attachment) if attachment is not None else 0
        return {
            "system": sum(counts[:lo]) - self._dead_tokens,
            "tools": self._tools_tokens,
            "pinned": pinned,
            "current_turn": sum(counts[start:]),
        }

    async def _apply(self, plan: CompactionPlan, planned: int, reason: str, started: float) -> CompactionReport:
        """Archive, then swap: the plan replaces the first ``planned`` messages; later appends stay after it."""
        before = self.tokens
        ref: OffloadRef | None = None
        if self.workspace is not None:
            lo = len(plan.prefix)
            start = self._archived + lo
            span = (start, start + len(plan.compacted)) if not plan.replaced else None
            ref = await self.workspace.offload_context(plan.archived, message_range=span)
            plan = plan.with_archive_ref(ref.path)
        # From here on nothing awaits: the swap cannot be torn.
        self.read_cache.invalidate(plan.archived)
        # Only appends can have happened since the snapshot (prepare/compact are serialized, nothing else
        # rewrites a message): they are exactly the messages past `planned`, kept in order.
        self._messages = [*plan.messages, *self._messages[planned:]]
        self._tally.reset(self._messages)
        self._recount_dead()
        if self._hint_scanner is not None:
            self._hint_scanner.reset()
        self._anchor = None
        self._touch(plan.first_change)
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
            messages_rewritten=len(plan.replaced),
        )
        self._emit("compaction", report)
        if report.tokens_after > self.config.trigger_tokens:
            # Applied (the archive is written), but the estimate is still high: say so.
            self._emit("compaction_failed", report)
        return report

    def _plan_hint(self, first_call_of_reply: bool, open_tasks: Sequence[Task] | Sequence[str]) -> HintBlock | None:
        if self.hints is None or not self._messages:
            return None
        last = self._messages[-1]
        if last.role == "assistant" and last.tool_calls:
            return None  # results are pending; a user turn here would orphan the calls
        scanner = self._hint_scanner
        if scanner is None:  # hints switched on after construction: the scanner reads the context on first use
            scanner = self._hint_scanner = HintScanner(self.hints.task_tool_names)
        return scanner.plan(
            self._messages,
            self.clock,
            self.hints,
            open_tasks,
            self.tokens,
            self.config.window,
            self.config.trigger_ratio,
            first_call_of_reply,
        )

    def _insert_hint(self, hint: HintBlock) -> None:
        index = len(self._messages) - 1
        updated = inject_hint(self._messages, hint)
        if len(updated) == len(self._messages):  # merged into the trailing user message
            self._touch(index)
            self._messages[index] = updated[index]
            self._tally.replace_last(updated[index])
        else:
            self._messages.append(updated[-1])
            self._tally.append(updated[-1])
        if self._hint_scanner is not None:
            self._hint_scanner.observe(hint)
        self._emit("hint", hint)

    def _cache_report(self, *, compacted: bool) -> CacheReport:
        if self._last_sent is None:
            return CacheReport(unchanged_messages=0, unchanged_tokens=0, previous_tokens=0, compacted=compacted)
        keep = min(self._last_sent, self._dirty_from)
        unchanged = self._tally.prefix_total(keep) + (0 if self._tools_dirty else self._tools_tokens)
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


def _retrieve(task: asyncio.Future[CompactionReport]) -> None:
    """Mark an apply's outcome as seen: a caller that was cancelled twice no longer awaits it.

    Its failure (e.g. `WorkspaceError`) then left the context unchanged, which is all there is to know.
    """
    if not task.cancelled():
        task.exception()


def _instructions_text(instructions: str | PromptFile | SystemPromptBuilder | None) -> str:
    """The project instructions to re-attach: a string, a discovered file, or a builder's instructions layer."""
    if instructions is None:
        return ""
    if isinstance(instructions, SystemPromptBuilder):
        layer = instructions.instructions
        if layer is None:
            return ""
        return (layer.text if isinstance(layer, PromptFile) else layer).strip()
    if isinstance(instructions, PromptFile):
        return instructions.text.strip()
    return instructions.strip()
