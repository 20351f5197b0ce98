"""Steering a running agent: follow-ups, reminders, pause and cancel, through a bounded channel.

A user (or a supervising program) talks to an agent while it works. The
sender never blocks: `SteeringChannel.send` either queues the message or
raises `ChannelFullError` at once; the agent loop calls `drain_pending`
before each model call and hands the result to the pure `apply_steering`,
which appends follow-ups and reminders to the context and reports whether a
pause or a cancel was asked for.

Pause and cancel are also *state* on the channel, set the moment they are
sent, so a running tool can poll `SteeringChannel.cancel_requested` and a
paused loop can ``await channel.wait_until_resumed()``.

Thread safety: every method except `wait_until_resumed` may be called from
any thread (a UI thread, a signal handler's thread, another event loop); the
state is guarded by a lock and waiting coroutines are woken through their own
event loop's ``call_soon_threadsafe``. Within one event loop nothing blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias, assert_never

from contextfold._errors import ChannelFullError, ContextfoldError, InputError
from contextfold._messages import HintBlock, Message
from contextfold._runtime._hints import inject_hint

__all__ = [
    "DEFAULT_STEERING_CAPACITY",
    "Cancel",
    "ChannelFullError",
    "FollowUp",
    "RequestPause",
    "SteeringChannel",
    "SteeringMessage",
    "SteeringOutcome",
    "SystemReminder",
    "apply_steering",
]

DEFAULT_STEERING_CAPACITY = 16


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A new user message for the agent: appended to the context as a user turn."""

    label: ClassVar[str] = "follow-up"
    """How `ChannelFullError` names this kind."""

    message: Message | str

    def __post_init__(self) -> None:
        if isinstance(self.message, str):
            if not self.message.strip():
                raise InputError("a follow-up needs some text")
        elif self.message.role != "user":
            raise InputError(f"a follow-up must be a user message, got role {self.message.role!r}")

    def as_message(self) -> Message:
        """The follow-up as a canonical user message."""
        if isinstance(self.message, str):
            return Message.text_message("user", self.message)
        return self.message


@dataclass(frozen=True, slots=True)
class SystemReminder:
    """Out-of-band guidance: appended as a hint (``<system-reminder>``), not as something the user said."""

    label: ClassVar[str] = "system reminder"
    """How `ChannelFullError` names this kind."""

    text: str

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise InputError("a system reminder needs some text")


@dataclass(frozen=True, slots=True)
class RequestPause:
    """Ask the agent to stop before its next model call until `SteeringChannel.resume`."""

    label: ClassVar[str] = "pause request"
    """How `ChannelFullError` names this kind."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """Ask the agent to stop after the current tool finishes, leaving the context consistent."""

    label: ClassVar[str] = "cancel"
    """How `ChannelFullError` names this kind."""

    reason: str = ""


SteeringMessage: TypeAlias = FollowUp | SystemReminder | RequestPause | Cancel


class SteeringChannel:
    """A bounded, non-blocking queue of steering messages plus pause/cancel state.

    One receiver (the agent loop), any number of senders, in any thread.
    """

    def __init__(self, capacity: int = DEFAULT_STEERING_CAPACITY) -> None:
        if capacity < 1:
            raise ContextfoldError(f"steering channel capacity must be at least 1 (got {capacity})")
        self._capacity = capacity
        self._lock = threading.Lock()
        self._queue: deque[SteeringMessage] = deque()
        self._paused = False
        self._cancelled = False
        self._cancel_reason = ""
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def capacity(self) -> int:
        """How many messages may wait at once."""
        return self._capacity

    def __len__(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def paused(self) -> bool:
        """A pause was requested and not yet resumed."""
        return self._paused

    @property
    def cancel_requested(self) -> bool:
        """A cancel was sent; it stays set for the rest of the run."""
        return self._cancelled

    cancelled = cancel_requested

    @property
    def cancel_reason(self) -> str:
        """The reason given with the first cancel ("" if none)."""
        return self._cancel_reason

    def try_send(self, message: SteeringMessage) -> bool:
        """Queue ``message``; return ``False`` (changing nothing) if the channel is full."""
        with self._lock:
            if len(self._queue) >= self._capacity:
                return False
            self._accept(message)
            return True

    def send(self, message: SteeringMessage) -> None:
        """Queue ``message`` without blocking; raise `ChannelFullError` if the channel is full."""
        with self._lock:
            if len(self._queue) >= self._capacity:
                raise ChannelFullError(self._capacity, self._queue)
            self._accept(message)

    def cancel(self, reason: str = "") -> None:
        """Request a cancel that cannot be refused: sets the state even when the queue is full.

        The `Cancel` message is also queued when there is room, so the loop's
        drain reports it in order with the rest.
        """
        with self._lock:
            message = Cancel(reason)
            if len(self._queue) < self._capacity:
                self._accept(message)
            else:
                self._mark_cancelled(message)

    def resume(self) -> None:
        """End a pause and wake whoever waits in `wait_until_resumed`."""
        with self._lock:
            self._paused = False
            self._wake()

    def drain_pending(self) -> list[SteeringMessage]:
        """Everything waiting, oldest first, without blocking (empty list when nothing waits)."""
        with self._lock:
            drained = list(self._queue)
            self._queue.clear()
            return drained

    async def wait_until_resumed(self) -> bool:
        """Wait while paused; return ``True`` once resumed (or never paused), ``False`` if cancelled."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._cancelled:
                return False
            if not self._paused:
                return True
            future: asyncio.Future[None] = loop.create_future()
            entry = (loop, future)
            self._waiters.append(entry)
        try:
            await future
        finally:
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)
        return not self._cancelled

    # --- internals; called with the lock held ---------------------------------------------------------------------

    def _accept(self, message: SteeringMessage) -> None:
        match message:
            case RequestPause():
                self._paused = True
            case Cancel():
                self._mark_cancelled(message)
            case FollowUp() | SystemReminder():
                pass
            case _:
                assert_never(message)
        self._queue.append(message)

    def _mark_cancelled(self, message: Cancel) -> None:
        if not self._cancelled:
            self._cancelled = True
            self._cancel_reason = message.reason
        self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(_resolve, future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@dataclass(frozen=True, slots=True, kw_only=True)
class SteeringOutcome:
    """The context after applying drained steering messages, and what the loop must do next."""

    messages: list[Message]
    follow_ups: int = 0
    reminders: int = 0
    pause_requested: bool = False
    cancel_requested: bool = False
    cancel_reason: str = ""


def apply_steering(messages: Sequence[Message], drained: Sequence[SteeringMessage]) -> SteeringOutcome:
    """Append drained messages to the context, in order (pure).

    Follow-ups become user messages; reminders become hints at the end of the
    context (merged into a trailing user turn, see `inject_hint`). Pause and
    cancel change nothing in the context; they are reported so the loop can
    wait or stop. Raises `InputError` if something must be appended after an
    assistant turn whose tool calls have no results yet.
    """
    out = list(messages)
    follow_ups = reminders = 0
    pause = cancel = False
    reason = ""
    for message in drained:
        match message:
            case FollowUp():
                if out and out[-1].role == "assistant" and out[-1].tool_calls:
                    raise InputError(
                        "cannot append a follow-up after an assistant turn whose tool calls have no results yet",
                        message_index=len(out) - 1,
                    )
                out.append(message.as_message())
                follow_ups += 1
            case SystemReminder():
                out = inject_hint(out, HintBlock(text=message.text))
                reminders += 1
            case RequestPause():
                pause = True
            case Cancel():
                if not cancel:
                    reason = message.reason
                cancel = True
            case _:
                assert_never(message)
    return SteeringOutcome(
        messages=out,
        follow_ups=follow_ups,
        reminders=reminders,
        pause_requested=pause,
        cancel_requested=cancel,
        cancel_reason=reason,
    )
