"""`Agent`: the reference loop where the pieces meet, in the order docs/design-notes.md fixes.

Per step (one model call)::

    steering -> prepare (compact, hints) -> model -> tools -> guard -> offload -> append

The loop runs until the model answers without tool calls (and no follow-up is
waiting), the step limit is reached, or a cancel arrives. Whatever stops it,
the context is left consistent: every tool call the model made has a result
(an error result when the call was not run), so the next request, by this
agent or another, is valid for both providers.

The agent adds no policy of its own about *what* to keep: that is the
`Context`'s job. It owns the order of operations, the concurrency of parallel
tool calls, the translation of every tool failure into a result the model can
read, one emergency compaction when the provider says the prompt is too long,
and the events a UI follows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from contextfold._agent._tools import Tool, Toolbox, ToolChain, ToolExecutor, ToolLike, error_result
from contextfold._config import ContextConfig
from contextfold._context import CompactionReport, Context, ContextEvent, Prepared
from contextfold._errors import ConfigError
from contextfold._guard import Fence, GuardConfig
from contextfold._messages import Message, ToolCallBlock, ToolResultBlock
from contextfold._runtime._steering import SteeringChannel, apply_steering
from contextfold._tokens._counting import TokenCounter
from contextfold._tool_results import GuardInfo
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._readback import bind_readback_tools
from contextfold.models._base import ChatModel, ContextLengthExceeded, ModelResponse, StreamHandler, Usage

__all__ = [
    "DEFAULT_MAX_STEPS",
    "Agent",
    "AgentEvent",
    "AgentEventKind",
    "AgentResult",
    "GuardInfo",
    "ModelCallInfo",
    "SteeringInfo",
    "StepStats",
    "StopReason",
]

DEFAULT_MAX_STEPS = 50

AgentEventKind: TypeAlias = Literal[
    "model_call",
    "tool_call",
    "tool_result",
    "guard",
    "steering",
    "retry",
    "compaction",
    "compaction_failed",
    "offload",
    "hint",
    "cache_warning",
]
StopReason: TypeAlias = Literal["end_turn", "max_steps", "cancelled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEvent:
    """Something that happened in the loop, for a UI or a log.

    ``data`` by kind: ``model_call`` `ModelCallInfo`; ``tool_call``
    `ToolCallBlock`; ``steering`` `SteeringInfo`; ``retry`` the
    `ContextLengthExceeded` that caused an emergency compaction; and,
    forwarded from the `Context`: ``guard`` `GuardInfo`; ``tool_result``
    the `ToolResultBlock` as it is appended (guarded, split, fenced);
    ``compaction`` / ``compaction_failed`` `CompactionReport`, ``offload`` a
    list of `OffloadRef`, ``hint`` `HintBlock`, ``cache_warning``
    `CacheReport`.
    """

    kind: AgentEventKind
    step: int
    """1-based model call this event belongs to (0 before the first call)."""
    data: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCallInfo:
    """One model call: how big the request was and what came back."""

    tokens: int
    """Our estimate of the prepared request (messages, system prompt, tool schemas)."""
    window: int
    prompt_tokens: int
    """What the provider reported (0 when it reports nothing)."""
    completion_tokens: int
    stop_reason: str
    tool_calls: tuple[str, ...]
    """Names of the tools called, in order."""
    seconds: float
    compacted: bool
    """Whether this request was compacted first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SteeringInfo:
    """What one drain of the steering channel brought."""

    follow_ups: int
    reminders: int
    pause: bool
    cancel: bool
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepStats:
    """Figures of one step, for reports and benchmarks."""

    step: int
    tokens: int
    """Estimated tokens of the request sent."""
    prompt_tokens: int
    completion_tokens: int
    overhead_seconds: float
    """Time spent in the context layer (steering, prepare, guard, offload, append), event handlers excluded."""
    model_seconds: float
    tool_seconds: float
    compacted: bool
    tool_calls: int
    offloaded_bytes: int


@dataclass(frozen=True, kw_only=True)
class AgentResult:
    """How a run ended and what it cost."""

    stop_reason: StopReason
    output: str
    """Text of the last assistant message."""
    messages: tuple[Message, ...]
    """The context at the end of the run (compacted as it went)."""
    steps: tuple[StepStats, ...]
    usage: Usage
    """Provider-reported tokens summed over the run's model calls."""
    compactions: tuple[CompactionReport, ...]
    offloaded: tuple[OffloadRef, ...]
    cancel_reason: str = ""

    @property
    def tokens_sent(self) -> int:
        """Sum of our estimate of every request sent in this run."""
        return sum(s.tokens for s in self.steps)


EventHandler: TypeAlias = Callable[[AgentEvent], None]


class Agent:
    """A tool-using agent kept inside its window by a `Context`.

    ``tools`` are plain functions, `Tool`s, or any `ToolExecutor` (the
    replay's tools, for one). Give either a ready ``context`` or a
    ``config``/``window`` (and optionally ``system``, ``counter``,
    ``workspace``) for the agent to build one; with a workspace, results over
    the tool-result limit are offloaded there and the read-back tools
    ``read_offloaded``/``search_offloaded`` are offered to the model.
    """

    def __init__(
        self,
        model: ChatModel,
        *,
        tools: Iterable[ToolLike] | ToolExecutor = (),
        context: Context | None = None,
        config: ContextConfig | None = None,
        window: int | None = None,
        system: str | None = None,
        counter: TokenCounter | None = None,
        workspace: LocalWorkspace | None = None,
        guard: GuardConfig | None = None,
        fence: Fence | None = None,
        steering: SteeringChannel | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        on_event: EventHandler | None = None,
        stream: StreamHandler | None = None,
    ) -> None:
        if max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1 (got {max_steps})")
        self.model = model
        self.guard = guard if guard is not None else GuardConfig()
        self.fence = fence if fence is not None else Fence()
        self.steering = steering
        self.max_steps = max_steps
        self.stream = stream
        self._handlers: list[EventHandler] = [on_event] if on_event is not None else []
        executor: ToolExecutor = tools if isinstance(tools, ToolExecutor) else Toolbox(tools)
        if context is not None:
            if config is not None or window is not None or counter is not None or system is not None:
                raise ConfigError("give the Agent either a context or config/window/counter/system, not both")
            if workspace is not None and context.workspace is not workspace:
                raise ConfigError("the workspace must be the context's own: pass it to the Context")
            workspace = context.workspace if isinstance(context.workspace, LocalWorkspace) else None
            counter = context.counter
        elif counter is None:
            from contextfold._tokens._factory import make_counter

            counter = make_counter()  # the Context's default, shared with the read-back tools
        if workspace is not None:
            readback = bind_readback_tools(
                workspace,
                counter=counter,
                max_tokens=_readback_limit(context, config, window),
            )
            box = Toolbox(
                Tool.from_function(fn, spec=spec)
                for fn, spec in zip((readback.read_offloaded, readback.search_offloaded), readback.specs, strict=True)
            )
            executor = ToolChain([box, executor])
        self.tools: ToolExecutor = executor
        if context is None:
            if config is None:
                if window is None:
                    raise ConfigError("Agent needs a context, a config or a window (the model's context length)")
                config = ContextConfig(window=window)
            context = Context(
                config,
                window=window,
                counter=counter,
                system=self._system_prompt(system) if system is not None else None,
                tools=executor.specs,
                workspace=workspace,
            )
        elif context.tools != executor.specs:
            context.set_tools(executor.specs)
        self.context = context
        self._step = 0
        self._handler_seconds = 0.0
        self._run_compactions: list[CompactionReport] = []
        self._run_offloads: list[OffloadRef] = []
        context.subscribe(self._forward)

    # -- events ---------------------------------------------------------------------------------

    def subscribe(self, handler: EventHandler) -> None:
        """Call ``handler`` with every `AgentEvent` from now on."""
        self._handlers.append(handler)

    def _emit(self, kind: AgentEventKind, data: Any) -> None:
        if not self._handlers:
            return
        started = time.perf_counter()
        event = AgentEvent(kind=kind, step=self._step, data=data)
        for handler in self._handlers:
            handler(event)
        self._handler_seconds += time.perf_counter() - started

    def _forward(self, event: ContextEvent) -> None:
        if event.kind == "compaction":
            self._run_compactions.append(event.data)
        elif event.kind == "offload":
            self._run_offloads.extend(event.data)
        self._emit(event.kind, event.data)

    # -- the loop -------------------------------------------------------------------------------

    async def run(self, task: str | Message | Sequence[Message | Mapping[str, Any]] | None = None) -> AgentResult:
        """Append ``task`` (text, a message or messages) and run until done; see the module docstring.

        ``None`` continues from the context as it is (a resumed session).
        """
        self._run_compactions = []
        self._run_offloads = []
        new_reply = self._append_input(task)
        steps: list[StepStats] = []
        usage = Usage()
        stop: StopReason = "end_turn"
        cancel_reason = ""
        first_step = self._step
        while True:
            clock = _Clock(self)
            steered = await self._steer()
            clock.exclude(steered.waited)
            new_reply = new_reply or steered.follow_ups > 0
            if steered.cancel:
                stop, cancel_reason = "cancelled", steered.reason
                break
            if self._step - first_step >= self.max_steps:
                stop = "max_steps"
                break
            self._step += 1
            prepared = await self.context.prepare(first_call_of_reply=new_reply)
            new_reply = False
            compacted = prepared.compaction is not None
            started = time.perf_counter()
            try:
                response = await self._complete(prepared)
            except ContextLengthExceeded as exc:
                self._emit("retry", exc)
                clock.exclude(time.perf_counter() - started)
                if await self.context.compact(reason="emergency") is None:
                    raise
                compacted = True
                prepared = await self.context.prepare(first_call_of_reply=False)
                started = time.perf_counter()
                response = await self._complete(prepared)
            model_seconds = time.perf_counter() - started
            clock.exclude(model_seconds)
            usage = usage + response.usage
            if response.usage.prompt_tokens > 0:  # 0: the provider reported nothing to anchor on
                self.context.record_usage(response.usage.prompt_tokens)
            self.context.append(response.message)
            calls = response.message.tool_calls
            self._emit(
                "model_call",
                ModelCallInfo(
                    tokens=prepared.tokens,
                    window=prepared.window,
                    prompt_tokens=response.usage.prompt_tokens,
                    completion_tokens=response.usage.completion_tokens,
                    stop_reason=response.stop_reason,
                    tool_calls=tuple(c.name for c in calls),
                    seconds=model_seconds,
                    compacted=compacted,
                ),
            )
            tool_seconds = 0.0
            offloaded = 0
            if calls:
                tool_seconds, offloaded = await self._run_tools(calls)
                clock.exclude(tool_seconds)
            steps.append(
                StepStats(
                    step=self._step,
                    tokens=prepared.tokens,
                    prompt_tokens=response.usage.prompt_tokens,
                    completion_tokens=response.usage.completion_tokens,
                    overhead_seconds=clock.elapsed(),
                    model_seconds=model_seconds,
                    tool_seconds=tool_seconds,
                    compacted=compacted,
                    tool_calls=len(calls),
                    offloaded_bytes=offloaded,
                )
            )
            if not calls and not (self.steering is not None and len(self.steering) > 0):
                break
        last = next((m for m in reversed(self.context.messages) if m.role == "assistant"), None)
        return AgentResult(
            stop_reason=stop,
            output=last.text if last is not None else "",
            messages=self.context.messages,
            steps=tuple(steps),
            usage=usage,
            compactions=tuple(self._run_compactions),
            offloaded=tuple(self._run_offloads),
            cancel_reason=cancel_reason,
        )

    async def _complete(self, prepared: Prepared) -> ModelResponse:
        return await self.model.complete(prepared.messages, tools=prepared.tools, stream=self.stream)

    # -- input and steering ---------------------------------------------------------------------

    def _system_prompt(self, system: str) -> str:
        if not self.guard.fence:
            return system
        layer = self.fence.system_prompt_layer()
        return f"{system.rstrip()}\n\n{layer}" if system.strip() else layer

    def _append_input(self, task: str | Message | Sequence[Message | Mapping[str, Any]] | None) -> bool:
        """Append the run's input; True when it brings a user turn (the first call of a reply)."""
        if task is None:
            return bool(self.context.messages) and self.context.messages[-1].role == "user"
        items: list[Message | Mapping[str, Any]]
        if isinstance(task, str):
            items = [Message.text_message("user", task)]
        elif isinstance(task, Message):
            items = [task]
        else:
            items = list(task)
        has_system = any(m.role == "system" for m in self.context.messages)
        if self.guard.fence and not has_system:
            first = items[0] if items else None
            if isinstance(first, Message) and first.role == "system":
                items[0] = Message.text_message("system", self._system_prompt(first.text), name=first.name)
            elif not (isinstance(first, Mapping) and first.get("role") in ("system", "developer")):
                self.context.append(Message.text_message("system", self._system_prompt("")))
        self.context.extend(items)
        return any((m.role if isinstance(m, Message) else m.get("role")) == "user" for m in items)

    async def _steer(self) -> _Steered:
        """Drain the channel before a model call: follow-ups, reminders, pause (waits), cancel."""
        channel = self.steering
        if channel is None:
            return _Steered()
        follow_ups = 0
        waited = 0.0
        while True:
            drained = channel.drain_pending()
            outcome = apply_steering([], drained)
            if outcome.messages:
                self.context.extend(outcome.messages)
            follow_ups += outcome.follow_ups
            cancel = outcome.cancel_requested or channel.cancel_requested
            if drained:
                reason = outcome.cancel_reason or channel.cancel_reason
                info = SteeringInfo(
                    follow_ups=outcome.follow_ups,
                    reminders=outcome.reminders,
                    pause=outcome.pause_requested,
                    cancel=cancel,
                    reason=reason,
                )
                self._emit("steering", info)
            if cancel:
                return _Steered(follow_ups=follow_ups, cancel=True, reason=channel.cancel_reason, waited=waited)
            if outcome.pause_requested or channel.paused:
                started = time.perf_counter()
                resumed = await channel.wait_until_resumed()
                waited += time.perf_counter() - started
                if not resumed:
                    return _Steered(follow_ups=follow_ups, cancel=True, reason=channel.cancel_reason, waited=waited)
                continue  # drain what arrived during the pause
            return _Steered(follow_ups=follow_ups, waited=waited)

    # -- tools ----------------------------------------------------------------------------------

    async def _run_tools(self, calls: Sequence[ToolCallBlock]) -> tuple[float, int]:
        """Run the calls concurrently, then guard, offload and append each result.

        Returns the seconds the tools took and the bytes offloaded.
        """
        if self.steering is not None and self.steering.cancel_requested:
            reason = self.steering.cancel_reason
            note = f"Error: not run: the user cancelled the run{f' ({reason})' if reason else ''}."
            results: list[ToolResultBlock] = [error_result(call, note) for call in calls]
            seconds = 0.0
        else:
            for call in calls:
                self._emit("tool_call", call)
            started = time.perf_counter()
            try:
                results = list(await asyncio.gather(*(self._execute(call) for call in calls)))
            except asyncio.CancelledError:
                # Hard cancel of the run task: answer every call so no call dangles, then stop.
                for call in calls:
                    self.context.append(
                        Message(role="tool", content=(error_result(call, "Error: interrupted before it finished"),))
                    )
                raise
            seconds = time.perf_counter() - started
        offloaded = 0
        for block in results:
            refs = await self._guard_and_append(block)
            offloaded += sum(ref.size for ref in refs)
        return seconds, offloaded

    async def _guard_and_append(self, block: ToolResultBlock) -> list[OffloadRef]:
        """Guard, split and offload, fence what stays, append: the context's tool-result path, with our guard.

        The ``guard``, ``offload`` and ``tool_result`` events come from the context (forwarded).
        """
        message = Message(role="tool", content=(block,))
        return await self.context.append_tool_result(message, guard=self.guard, fence=self.fence)

    async def _execute(self, call: ToolCallBlock) -> ToolResultBlock:
        try:
            return await self.tools.execute(call)
        except Exception as exc:  # an executor broke its contract; the model still gets an answer
            return error_result(call, f"Error: {call.name} failed: {type(exc).__name__}: {exc}")


def _readback_limit(context: Context | None, config: ContextConfig | None, window: int | None) -> int:
    """Read-back output is capped like any tool result, so reading back never overflows the window."""
    if context is not None:
        return context.config.result_limit
    if config is not None:
        return config.result_limit
    if window is not None:
        return ContextConfig(window=window).result_limit
    return 50_000


@dataclass(slots=True, kw_only=True)
class _Steered:
    follow_ups: int = 0
    cancel: bool = False
    reason: str = ""
    waited: float = 0.0


@dataclass(slots=True)
class _Clock:
    """Wall time of one step minus what is not the context layer (model, tools, handlers, pauses)."""

    agent: Agent
    started: float = field(default_factory=time.perf_counter)
    excluded: float = 0.0
    handlers_at_start: float = 0.0

    def __post_init__(self) -> None:
        self.handlers_at_start = self.agent._handler_seconds

    def exclude(self, seconds: float) -> None:
        self.excluded += seconds

    def elapsed(self) -> float:
        handlers = self.agent._handler_seconds - self.handlers_at_start
        return max(0.0, time.perf_counter() - self.started - self.excluded - handlers)
