"""The framework-free core of every adapter: a `Context` that mirrors a framework's message list.

A framework owns its history and hands it to the adapter's hook before each model call. The adapter
keeps one `Context` in step with it and answers with what to send: the context after ``prepare()``
(compacted when over the trigger, hinted), mapped back to the framework's message type.

Frameworks hand the history back in one of two ways, and the mirror recognizes both by comparing the
incoming list with what it saw and what it answered last time (identity first, then equality):

* the framework keeps its own full history and appends to it (LangChain's state, the Agents SDK's run
  input): the new messages are what follows the list *seen* last time;
* the framework persists the adapter's answer as its history (pydantic-ai's ``ProcessHistory``): the
  new messages are what follows the list *sent* last time.

Anything else (another conversation, an edited history) resets the mirror: a fresh `Context` is built
from the incoming list. New tool results enter through `Context.append_tool_result`, the library's one
tool-result path, so an oversized result is split and its rest offloaded to the workspace before it is
ever sent. The context's own state (what was compacted, the truncated results, the hints) is therefore
the source of truth for what is sent; between compactions it is append-only, so the prefix sent last
time is sent again unchanged.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from contextfold._config import ContextConfig
from contextfold._context import Context, Prepared
from contextfold._errors import ConfigError
from contextfold._markers import is_reattached, is_summary
from contextfold._messages import HintBlock, Message
from contextfold._runtime._hints import Clock, HintConfig
from contextfold._tokens._counting import TokenCounter
from contextfold._workspace._offload import Offloader, OffloadRef
from contextfold.compaction._plan import CompactionStrategy, PlanFunction

__all__ = ["ContextSettings", "Mirror", "MirrorUpdate", "run_sync"]

F = TypeVar("F")
T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextSettings:
    """How an adapter builds its `Context`: the same arguments `Context` takes, kept to build it again."""

    config: ContextConfig
    counter: TokenCounter | None = None
    strategy: CompactionStrategy | PlanFunction | None = None
    workspace: Offloader | None = None
    hints: HintConfig | Literal[False] | None = None
    clock: Clock | None = None

    @classmethod
    def of(
        cls,
        window: int | None,
        *,
        config: ContextConfig | None,
        counter: TokenCounter | None,
        strategy: CompactionStrategy | PlanFunction | None,
        workspace: Offloader | None,
        hints: HintConfig | Literal[False] | None,
        clock: Clock | None,
        owner: str,
    ) -> ContextSettings:
        """Settings from an adapter's keyword arguments; `ConfigError` naming ``owner`` when the window is missing."""
        if config is None:
            if window is None:
                raise ConfigError(f"{owner} needs a window (the model's context length in tokens) or a config")
            config = ContextConfig(window=window)
        elif window is not None and window != config.window:
            raise ConfigError(f"{owner}: window={window} disagrees with config.window={config.window}")
        if counter is None:
            from contextfold._tokens._factory import make_counter

            counter = make_counter()  # one counter for every context the adapter builds (its cache is shared)
        return cls(config=config, counter=counter, strategy=strategy, workspace=workspace, hints=hints, clock=clock)

    @property
    def readback_limit(self) -> int:
        """Tokens a read-back output may take: the tool-result limit less what its tool message adds around it.

        A read-back output over the limit would itself be split and offloaded again when it comes back as a
        tool result, so the read-back tools aim below the limit by the cost of an empty result message
        (with a long call id and the tool name) and a small margin.
        """
        from contextfold._messages import TextBlock, ToolResultBlock

        counter = self.counter
        limit = self.config.result_limit
        if counter is None:
            return limit
        empty = ToolResultBlock(call_id="x" * 48, content=(TextBlock(text=""),), name="search_offloaded")
        overhead = counter.count_message(Message(role="tool", content=(empty,)))
        return max(1, limit - overhead - 16)

    def new_context(self) -> Context:
        """A fresh, empty `Context` with these settings."""
        return Context(
            self.config,
            counter=self.counter,
            strategy=self.strategy,
            workspace=self.workspace,
            hints=self.hints,
            clock=self.clock,
        )


@dataclass(frozen=True, slots=True)
class MirrorUpdate(Generic[F]):
    """What one `Mirror.update` did: the prepared request, and how the incoming list was read."""

    prepared: Prepared
    new_messages: int
    """Framework messages taken in by this update."""
    reset: bool
    """Whether the incoming list matched neither what was seen nor what was sent (a fresh context was built)."""
    offloaded: tuple[OffloadRef, ...]
    """What the new tool results offloaded."""


def _starts_with(items: Sequence[Any], prefix: Sequence[Any]) -> bool:
    if len(prefix) > len(items):
        return False
    return all(a is b or a == b for a, b in zip(items, prefix, strict=False))


class Mirror(Generic[F]):
    """A `Context` kept in step with a framework's message list (see the module docstring).

    ``to_messages`` converts framework messages to canonical ones (a pure function; one framework
    message may give several canonical messages). The mirror holds no framework object beyond the two
    lists it compares with.
    """

    def __init__(
        self,
        settings: ContextSettings,
        to_messages: Callable[[Sequence[F]], list[Message]],
        *,
        context: Context | None = None,
    ) -> None:
        self.settings = settings
        self._to_messages = to_messages
        self.context: Context = context if context is not None else settings.new_context()
        self._seen: list[F] = []
        self._sent: list[F] = []
        self._lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def remember_sent(self, sent: Sequence[F]) -> None:
        """Record what the adapter answered (after mapping `MirrorUpdate.prepared` back)."""
        self._sent = list(sent)

    def adopt(self, context: Context, seen: Sequence[F]) -> None:
        """Take over ``context`` as the mirror of ``seen`` (a context restored from saved state)."""
        self.context = context
        self._seen = list(seen)
        self._sent = []

    async def update(self, incoming: Sequence[F], *, force_reset: bool = False) -> MirrorUpdate[F]:
        """Take in what is new in ``incoming``, then `Context.prepare`; see the module docstring."""
        if self._loop is not None and self._loop is not asyncio.get_running_loop():
            self._lock = asyncio.Lock()  # a lock is bound to the loop it was first used on (sync callers)
        self._loop = asyncio.get_running_loop()
        async with self._lock:
            return await self._update(list(incoming), force_reset)

    async def _update(self, incoming: list[F], force_reset: bool) -> MirrorUpdate[F]:
        reset = force_reset
        start = 0
        if not reset:
            if self._sent and _starts_with(incoming, self._sent):
                start = len(self._sent)  # the framework kept what we answered, and appended to it
            elif _starts_with(incoming, self._seen):
                start = len(self._seen)  # the framework kept its own history, and appended to it
            else:
                reset = True
        if reset:
            self.context = self.settings.new_context()
            start = 0
        update = await self._take(incoming[start:], reset=reset and bool(incoming))
        self._seen = incoming
        self._sent = []
        return update

    async def take(self, new: Sequence[F]) -> MirrorUpdate[F]:
        """Append ``new`` (framework messages that follow what the context holds), then `Context.prepare`.

        For an adapter that tracks the framework's history itself (saved state names how far it got).
        """
        if self._loop is not None and self._loop is not asyncio.get_running_loop():
            self._lock = asyncio.Lock()
        self._loop = asyncio.get_running_loop()
        async with self._lock:
            return await self._take(list(new), reset=False)

    async def _take(self, new: list[F], *, reset: bool) -> MirrorUpdate[F]:
        refs: list[OffloadRef] = []
        fresh = self._to_messages(new) if new else []
        for message in fresh:
            if message.role == "tool":
                refs.extend(await self.context.append_tool_result(message))
            else:
                self.context.append(message)
        reply = any(m.role == "user" and _from_user(m) for m in fresh)
        prepared = await self.context.prepare(first_call_of_reply=reply)
        return MirrorUpdate(prepared=prepared, new_messages=len(new), reset=reset, offloaded=tuple(refs))


def _from_user(message: Message) -> bool:
    """A user turn the user wrote (not a summary, a re-attachment or a lone hint): a reply starts."""
    if is_summary(message) or is_reattached(message):
        return False
    return not all(isinstance(b, HintBlock) for b in message.content)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from synchronous code, also when this thread already runs an event loop.

    Frameworks call their synchronous hooks either on a plain thread (``asyncio.run`` then) or from inside a
    running loop (then the coroutine runs on a short-lived thread of its own, and this one waits).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="contextfold-run-sync")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
