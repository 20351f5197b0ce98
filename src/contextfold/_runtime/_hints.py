"""Runtime hints: tell the model the time, its open tasks and how full its context is.

These change every turn, so they cannot live in the system prompt without
breaking prompt caching. Instead a `HintBlock` is appended as a trailing user
turn (rendered ``<system-reminder>…</system-reminder>``). Hints stay in the
context for good, so the decision is made by scanning the context backwards:
a fact already stated (and still true) is not repeated, and a fact wiped by
compaction is stated again.

Everything here is pure: the clock is an argument (``now``), so tests are
exact. `SystemClock` and `FixedClock` are the two `Clock` implementations.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from contextfold._errors import ConfigError, InputError
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

__all__ = [
    "DEFAULT_HINT_TEMPLATE",
    "DEFAULT_TIME_FORMAT",
    "Clock",
    "ContextUsage",
    "FixedClock",
    "HintConfig",
    "HintDecision",
    "HintScanner",
    "SystemClock",
    "Task",
    "TimeReason",
    "decide_hint",
    "format_time",
    "inject_hint",
    "plan_hint",
    "render_runtime_state",
    "timezone_label",
]

DEFAULT_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%:z"
"""ISO 8601 with seconds and the UTC offset, e.g. ``2025-03-01T09:30:00+01:00``."""

DEFAULT_HINT_TEMPLATE = (
    "Runtime state, measured by the harness at this point of the conversation. "
    "Treat it as ground truth for now; a later reminder supersedes this one.\n"
    "{runtime_state}"
)
"""Preamble plus the state: hints pile up in the context, so each says the newest wins."""

PLACEHOLDER = "{runtime_state}"

TimeReason = Literal["no time in context", "interval passed", "clock went backwards", "timezone changed"]

_TIME_RE = re.compile(r"<current-time>(.*?)</current-time>", re.S)
_ZONE_RE = re.compile(r"<timezone>(.*?)</timezone>", re.S)
_TASKS_TAG = "<tasks>"
_OFFSET_RE = re.compile(r"^UTC(?:([+-])(\d{2}):(\d{2}))?$")
_ZERO = timedelta()
# A fixed instant with every field distinct, used to check that a format round-trips.
_PROBE = datetime(2031, 11, 27, 13, 47, 59, tzinfo=timezone(timedelta(hours=5, minutes=30)))


# --- clocks -------------------------------------------------------------------------------------------------------


@runtime_checkable
class Clock(Protocol):
    """Where "now" comes from; injectable so that every time rule can be tested exactly."""

    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class SystemClock:
    """The real clock, in ``tz`` (default: the host's local UTC offset).

    Pass a `zoneinfo.ZoneInfo` to get a named zone (``Europe/Berlin``) in the
    hint instead of a bare offset, which also makes daylight-saving changes
    read correctly.
    """

    def __init__(self, tz: tzinfo | None = None) -> None:
        self.tz = tz

    def now(self) -> datetime:
        """The current time in the configured zone."""
        return datetime.now(self.tz) if self.tz is not None else datetime.now().astimezone()


class FixedClock:
    """A clock that only moves when told to: for tests and replays."""

    def __init__(self, start: datetime) -> None:
        self._now = _require_aware(start, "FixedClock start")

    def now(self) -> datetime:
        """The time the clock was last set to."""
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (may go backwards, as real clocks sometimes do)."""
        self._now = _require_aware(when, "FixedClock.set")

    def advance(self, delta: timedelta | None = None, **units: float) -> datetime:
        """Move forward by ``delta`` or by keyword units (``minutes=31``); returns the new time."""
        step = (delta or timedelta()) + timedelta(**units)
        self._now = self._now + step
        return self._now

    def set_timezone(self, tz: tzinfo) -> None:
        """Same instant, seen from another zone (a user who travels mid-session)."""
        self._now = self._now.astimezone(tz)


def _require_aware(when: datetime, what: str) -> datetime:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ConfigError(f"{what}: the datetime must be timezone-aware (got naive {when.isoformat()})")
    return when


# --- time formatting ------------------------------------------------------------------------------------------------


def _expand_colon_offset(fmt: str, when: datetime | None) -> str:
    """Replace ``%:z`` (``+01:00``; strftime gains it only in Python 3.12) in a strftime format.

    With ``when`` the offset text is substituted (for formatting); without it
    ``%z`` is substituted (strptime's ``%z`` already accepts the colon form).
    """
    out: list[str] = []
    i = 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            if fmt.startswith("%:z", i):
                out.append(_offset_text(when) if when is not None else "%z")
                i += 3
                continue
            out.append(fmt[i : i + 2])
            i += 2
            continue
        out.append(fmt[i])
        i += 1
    return "".join(out)


def _directives(fmt: str) -> set[str]:
    found: set[str] = set()
    i = 0
    while i < len(fmt) - 1:
        if fmt[i] == "%":
            found.add(fmt[i + 1])
            i += 2
        else:
            i += 1
    return found


def _offset_text(when: datetime) -> str:
    offset = when.utcoffset() or _ZERO
    sign = "-" if offset < timedelta() else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def format_time(when: datetime, time_format: str = DEFAULT_TIME_FORMAT) -> str:
    """Format ``when`` with a strftime format that may use ``%:z``."""
    return when.strftime(_expand_colon_offset(time_format, when))


_ISO_SECONDS_OFFSET = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", re.ASCII)
"""What `DEFAULT_TIME_FORMAT` writes, in ASCII digits (``strptime`` also reads other digits: it gets those)."""


def _parse_time(text: str, time_format: str) -> datetime:
    """The time a hint stated (`_stated_time` caches what it means).

    The default format is read with ``fromisoformat`` when the text has exactly its shape: same value as
    ``strptime`` (tested), without importing and compiling ``_strptime`` on a session's first hint.
    """
    text = text.strip()
    if time_format == DEFAULT_TIME_FORMAT and _ISO_SECONDS_OFFSET.fullmatch(text):
        return datetime.fromisoformat(text)
    return datetime.strptime(text, _expand_colon_offset(time_format, None))


def timezone_label(tz: tzinfo | None, when: datetime) -> str:
    """A name for the zone of ``when`` that can be parsed back: IANA key, ``UTC`` or ``UTC+05:30``."""
    if type(tz) is timezone and when.tzinfo is tz:  # a fixed offset: its label is cached
        return _fixed_zone_label(tz)
    if isinstance(tz, ZoneInfo) and tz.key:
        return tz.key
    offset = when.utcoffset()
    if not offset:
        return "UTC"
    return "UTC" + _offset_text(when)


@lru_cache(maxsize=64)
def _fixed_zone_label(tz: timezone) -> str:
    """`timezone_label` of a fixed-offset zone: only the offset matters (equal zones are equal offsets)."""
    probe = datetime(2000, 1, 1, tzinfo=tz)
    return "UTC" + _offset_text(probe) if probe.utcoffset() else "UTC"


def _zone_from_label(label: str) -> tzinfo | None:
    """The zone a hint's label names."""
    name = label.split(" (", 1)[0].strip()
    match = _OFFSET_RE.match(name)
    if match:
        if match.group(1) is None:
            return UTC
        sign = -1 if match.group(1) == "-" else 1
        return timezone(sign * timedelta(hours=int(match.group(2)), minutes=int(match.group(3))))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _check_time_format(fmt: str) -> None:
    """Reject formats whose output cannot be read back to the same date and minute.

    A format without a date parses back to 1900-01-01, which looks like a
    hint older than any interval: the time hint would be re-injected on every
    model call.
    """
    if "Z" in _directives(fmt):
        raise ValueError(
            "'%Z' cannot be parsed back reliably (zone abbreviations are ambiguous); "
            "use %z or %:z, the zone is recorded in <timezone> anyway"
        )
    text = format_time(_PROBE, fmt)
    try:
        back = _parse_time(text, fmt)
    except ValueError as exc:
        raise ValueError(f"{fmt!r} gives {text!r}, which strptime cannot parse back ({exc})") from None
    if back.date() != _PROBE.date():
        raise ValueError(
            f"{fmt!r} must include the full date (year, month and day, e.g. %Y-%m-%d): "
            f"{text!r} reads back as {back.date().isoformat()}"
        )
    if (back.hour, back.minute) != (_PROBE.hour, _PROBE.minute):
        raise ValueError(f"{fmt!r} must include the time of day to the minute (24-hour %H, or %I with %p): {text!r}")


# --- configuration and inputs -------------------------------------------------------------------------------------


class HintConfig(BaseModel):
    """What the runtime hints say and when.

    Invalid values raise `ConfigError` (also a ``ValueError``) naming the field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    time_interval: timedelta = timedelta(minutes=30)
    """Re-state the time when the last time hint is older than this."""
    time_format: str = DEFAULT_TIME_FORMAT
    """strftime format of ``<current-time>``; must include date and time (``%:z`` is supported)."""
    template: str = DEFAULT_HINT_TEMPLATE
    """Hint text; ``{runtime_state}`` is replaced by the state (other braces are literal)."""
    task_tool_names: tuple[str, ...] = ("TaskCreate", "TaskList", "TaskUpdate", "TodoWrite")
    """A call of one of these in the context means the model already sees its tasks."""
    usage_buffer: float = Field(default=0.2, ge=0.0, lt=1.0)
    """Usage is reported when it is at most this share of the window below the trigger."""
    time_enabled: bool = True
    """Inject the current time and timezone."""
    tasks_enabled: bool = True
    """Inject open tasks."""
    usage_enabled: bool = True
    """Inject context usage near the compaction trigger."""

    if not TYPE_CHECKING:  # keep the typed constructor for checkers; translate errors at runtime

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise ConfigError(_explain(exc)) from exc

    @field_validator("time_interval")
    @classmethod
    def _positive_interval(cls, value: timedelta) -> timedelta:
        if value <= timedelta():
            raise ValueError("must be positive")
        return value

    @field_validator("time_format")
    @classmethod
    def _date_in_format(cls, value: str) -> str:
        _check_time_format(value)
        return value

    @field_validator("template")
    @classmethod
    def _placeholder_in_template(cls, value: str) -> str:
        if PLACEHOLDER not in value:
            raise ValueError(f"must contain {PLACEHOLDER} (otherwise the hint would carry no state)")
        return value


def _explain(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "value"
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"HintConfig.{field}: {message}")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """One task the agent tracks; only unfinished ones are shown."""

    subject: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    id: str | None = None

    @property
    def open(self) -> bool:
        """Whether the task still needs work."""
        return self.status != "completed"


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """How full the context is: ``tokens`` of a ``window``, compaction at ``trigger_ratio``."""

    tokens: int
    window: int
    trigger_ratio: float = 0.8

    def __post_init__(self) -> None:
        if self.window <= 0:
            raise ConfigError(f"ContextUsage.window must be positive (got {self.window})")
        if self.tokens < 0:
            raise ConfigError(f"ContextUsage.tokens must not be negative (got {self.tokens})")
        if not 0.0 < self.trigger_ratio <= 1.0:
            raise ConfigError(f"ContextUsage.trigger_ratio must be in (0, 1] (got {self.trigger_ratio})")


# --- decision -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HintDecision:
    """What the next hint should state, and why; empty when nothing is needed."""

    time_reason: TimeReason | None = None
    tasks: tuple[Task, ...] = ()
    usage: ContextUsage | None = None

    @property
    def empty(self) -> bool:
        """Nothing to say."""
        return self.time_reason is None and not self.tasks and self.usage is None


def _as_tasks(open_tasks: Sequence[Task] | Sequence[str]) -> tuple[Task, ...]:
    tasks = tuple(t if isinstance(t, Task) else Task(subject=t) for t in open_tasks)
    return tuple(t for t in tasks if t.open)


def _within_usage_buffer(usage: ContextUsage, buffer: float) -> bool:
    """``(trigger - buffer) * window <= tokens < trigger * window``, in exact decimal arithmetic.

    Ratios are taken as the decimals the user wrote (``0.8``, not the nearest
    binary float), so the edges land on whole tokens where one expects them.
    """
    return _in_usage_band(usage.tokens, usage.window, usage.trigger_ratio, buffer)


def _in_usage_band(tokens: int, window: int, trigger_ratio: float, buffer: float) -> bool:
    """`_within_usage_buffer` on the bare numbers."""
    lower, upper, first, end = _usage_band(trigger_ratio, buffer, window)
    if type(tokens) is int:  # whole tokens: compared with the edges rounded up, as ints (same answer)
        return first <= tokens < end
    return lower <= tokens < upper


@lru_cache(maxsize=64)
def _usage_band(trigger_ratio: float, buffer: float, window: int) -> tuple[Fraction, Fraction, int, int]:
    """The token band of `_within_usage_buffer`, exact and rounded up to whole tokens.

    Cached: the same three numbers come back at every turn.
    """
    trigger = Fraction(str(trigger_ratio))
    lower, upper = (trigger - Fraction(str(buffer))) * window, trigger * window
    return lower, upper, math.ceil(lower), math.ceil(upper)


def _time_reason(last_time: str | None, last_zone: str | None, now: datetime, config: HintConfig) -> TimeReason | None:
    if last_time is None:
        return "no time in context"
    stated = _stated_time(last_time, last_zone, config.time_format)
    if stated is None:
        return "no time in context"
    zone_name, earlier, earlier_utc = stated
    if zone_name is not None and zone_name != timezone_label(now.tzinfo, now):
        return "timezone changed"
    if earlier_utc is not None and 1 < now.year < 9999:
        # Aware datetimes with different zones subtract in UTC: the same timedelta, minus one conversion (tested).
        # Years 1 and 9999 take the conversion, which fails there when UTC falls outside the datetime range.
        elapsed = now - earlier_utc
    else:
        elapsed = now.astimezone(UTC) - (earlier.astimezone(UTC) if earlier_utc is None else earlier_utc)
    if elapsed < _ZERO:
        return "clock went backwards"
    if elapsed > config.time_interval:
        return "interval passed"
    return None


@lru_cache(maxsize=64)
def _stated_time(
    last_time: str, last_zone: str | None, time_format: str
) -> tuple[str | None, datetime, datetime | None] | None:
    """What the last time hint states: (zone name, time, time in UTC), or ``None`` when it states no usable time.

    Cached: `prepare` re-reads the same last hint at every turn. The UTC time is ``None`` when converting it
    fails; `_time_reason` then converts again, so that the error surfaces where it always did.
    """
    zone = _zone_from_label(last_zone) if last_zone is not None else None
    try:
        earlier = _parse_time(last_time, time_format)
    except ValueError:
        return None
    if earlier.tzinfo is None:
        if zone is None:
            return None
        earlier = earlier.replace(tzinfo=zone)
    zone_name = last_zone.split(" (", 1)[0].strip() if last_zone is not None else None
    try:
        earlier_utc: datetime | None = earlier.astimezone(UTC)
    except Exception:  # raised again, in its place, by `_time_reason`
        earlier_utc = None
    return zone_name, earlier, earlier_utc


_NEITHER_HINT_NOR_CALL = frozenset({TextBlock, ToolResultBlock, ThinkingBlock, RedactedThinkingBlock, DataBlock})
"""Block classes `HintScanner.observe` ignores, skipped without the call (exact classes: a subclass is observed)."""


class HintScanner:
    """What the context already states (last time hint, any tasks mention), kept up to date incrementally.

    `decide_hint` without a scanner walks the context backwards, which is cheap
    when the last time hint is recent but O(history) when it is far back (a
    fast session within one time interval). A session keeps one scanner:
    `update` reads only the messages appended since the last call; `reset`
    after anything rewrote already-scanned messages (a compaction).
    """

    __slots__ = ("_task_tools", "last_time", "last_zone", "scanned", "task_seen")

    def __init__(self, task_tool_names: Sequence[str] = ()) -> None:
        self._task_tools = frozenset(task_tool_names)
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next `update` reads the whole context."""
        self.scanned = 0
        self.last_time: str | None = None
        self.last_zone: str | None = None
        self.task_seen = False

    def update(self, messages: Sequence[Message]) -> None:
        """Read the messages appended since the last update (all of them after a reset)."""
        if len(messages) < self.scanned:
            self.reset()
        for message in messages[self.scanned :]:
            for block in message.content:
                if type(block) not in _NEITHER_HINT_NOR_CALL:  # most blocks: nothing to observe
                    self.observe(block)
        self.scanned = len(messages)

    def plan(
        self,
        messages: Sequence[Message],
        clock: Clock,
        config: HintConfig,
        open_tasks: Sequence[Task] | Sequence[str],
        tokens: int,
        window: int,
        trigger_ratio: float,
        first_call_of_reply: bool,
    ) -> HintBlock | None:
        """`plan_hint` with this scanner, ``now=clock.now()`` and ``usage=ContextUsage(tokens, window, trigger_ratio)``.

        A session's per-`prepare` path: the same hint and errors (tested), without building the usage and the
        decision objects.
        """
        if window <= 0 or tokens < 0 or not 0.0 < trigger_ratio <= 1.0:
            ContextUsage(tokens, window, trigger_ratio)  # raises the ConfigError, before the clock is read
        now = clock.now()
        if now.tzinfo is None or now.utcoffset() is None:
            _require_aware(now, "plan_hint now")  # raises
        tasks = _as_tasks(open_tasks) if config.tasks_enabled and open_tasks else ()
        self.update(messages)
        time_reason, tasks, show_usage = _decide(
            (self.last_time, self.last_zone, self.task_seen),
            now,
            config,
            tasks,
            (tokens, window, trigger_ratio),
            first_call_of_reply,
        )
        if time_reason is None and not tasks and not show_usage:
            return None
        state = _render_state(
            time_reason is not None, tasks, (tokens, window, trigger_ratio) if show_usage else None, now, config
        )
        return HintBlock(text=config.template.replace(PLACEHOLDER, state))

    def observe(self, block: object) -> None:
        """Take one block into account (e.g. a hint just merged into an already scanned message)."""
        if isinstance(block, HintBlock):
            found = _TIME_RE.search(block.text)
            if found:
                self.last_time = found.group(1)
                zone = _ZONE_RE.search(block.text)
                self.last_zone = zone.group(1) if zone else None
            if _TASKS_TAG in block.text:
                self.task_seen = True
        elif isinstance(block, ToolCallBlock) and block.name in self._task_tools:
            self.task_seen = True


def _scan_backwards(
    messages: Sequence[Message], *, want_time: bool, want_tasks: bool, task_tools: frozenset[str]
) -> tuple[str | None, str | None, bool]:
    """The newest time hint (text, zone) and whether tasks are mentioned, stopping once both are settled."""
    time_settled, tasks_settled = not want_time, not want_tasks
    last_time: str | None = None
    last_zone: str | None = None
    task_seen = False
    for message in () if time_settled and tasks_settled else reversed(messages):
        for block in reversed(message.content):
            if isinstance(block, HintBlock):
                if not time_settled:
                    found = _TIME_RE.search(block.text)
                    if found:
                        last_time = found.group(1)
                        zone = _ZONE_RE.search(block.text)
                        last_zone = zone.group(1) if zone else None
                        time_settled = True
                if not tasks_settled and _TASKS_TAG in block.text:
                    task_seen = tasks_settled = True
            elif isinstance(block, ToolCallBlock) and not tasks_settled and block.name in task_tools:
                task_seen = tasks_settled = True
        if time_settled and tasks_settled:
            break  # before fetching the next (older) message
    return last_time, last_zone, task_seen


def decide_hint(
    messages: Sequence[Message],
    *,
    now: datetime,
    config: HintConfig,
    open_tasks: Sequence[Task] | Sequence[str] = (),
    usage: ContextUsage | None = None,
    first_call_of_reply: bool = True,
    scanner: HintScanner | None = None,
) -> HintDecision:
    """Decide what the next hint must state from what the context already says.

    Without a ``scanner`` the context is scanned backwards, stopping as soon as
    both time and tasks are settled. With one (kept by the session across
    calls) only messages appended since its last update are read.
    """
    _require_aware(now, "plan_hint now")
    tasks = _as_tasks(open_tasks) if config.tasks_enabled and open_tasks else ()
    if scanner is not None:
        scanner.update(messages)
        stated = (scanner.last_time, scanner.last_zone, scanner.task_seen)
    else:
        stated = _scan_backwards(
            messages,
            want_time=config.time_enabled,
            want_tasks=bool(tasks),
            task_tools=frozenset(config.task_tool_names),
        )
    numbers = (usage.tokens, usage.window, usage.trigger_ratio) if usage is not None else None
    time_reason, tasks, show_usage = _decide(stated, now, config, tasks, numbers, first_call_of_reply)
    return HintDecision(time_reason=time_reason, tasks=tasks, usage=usage if show_usage else None)


def _decide(
    stated: tuple[str | None, str | None, bool],
    now: datetime,
    config: HintConfig,
    tasks: tuple[Task, ...],
    usage: tuple[int, int, float] | None,
    first_call_of_reply: bool,
) -> tuple[TimeReason | None, tuple[Task, ...], bool]:
    """Why a time is due, the tasks to list and whether to show usage, from what the context states.

    ``stated``: the last time hint's text and zone, and whether tasks were mentioned; ``usage``: tokens, window and
    trigger ratio.
    """
    last_time, last_zone, task_seen = stated
    time_reason = _time_reason(last_time, last_zone, now, config) if config.time_enabled else None
    show_usage = (
        usage is not None
        and config.usage_enabled
        and first_call_of_reply
        and _in_usage_band(*usage, config.usage_buffer)
    )
    return time_reason, () if task_seen else tasks, show_usage


# --- rendering ------------------------------------------------------------------------------------------------------


def _percent(share: Fraction) -> str:
    return f"{float(share) * 100:.1f}%"


def render_runtime_state(decision: HintDecision, *, now: datetime, config: HintConfig) -> str:
    """The ``{runtime_state}`` text: one tagged section per fact, in a fixed order."""
    u = decision.usage
    usage = None if u is None else (u.tokens, u.window, u.trigger_ratio)
    return _render_state(decision.time_reason is not None, decision.tasks, usage, now, config)


def _render_state(
    timed: bool, tasks: tuple[Task, ...], usage: tuple[int, int, float] | None, now: datetime, config: HintConfig
) -> str:
    """`render_runtime_state` from the decision's parts (``usage`` as tokens, window, trigger ratio)."""
    parts: list[str] = []
    if timed:
        zone = timezone_label(now.tzinfo, now)
        offset = "UTC" + _offset_text(now)
        shown_zone = zone if zone.startswith("UTC") else f"{zone} ({offset})"
        parts.append(f"<current-time>{format_time(now, config.time_format)}</current-time>")
        parts.append(f"<timezone>{shown_zone}</timezone>")
    if tasks:
        lines = []
        for task in tasks:
            ident = f"{task.id}: " if task.id else ""
            lines.append(f"- [{task.status}] {ident}{task.subject}")
        parts.append("<tasks>\nOpen tasks:\n" + "\n".join(lines) + "\n</tasks>")
    if usage is not None:
        parts.append(_usage_text(*usage))
    return "\n".join(parts)


def _usage_text(tokens: int, window: int, trigger_ratio: float) -> str:
    """The ``<context-usage>`` section: shares of the window as exact fractions, shown to 0.1%."""
    left = Fraction(window - tokens, window)
    to_trigger = Fraction(str(trigger_ratio)) - Fraction(tokens, window)
    return (
        f"<context-usage>{tokens:,} of {window:,} tokens used; {_percent(left)} of the window left; "
        f"older context is compacted in {_percent(to_trigger)} more (at {_percent(Fraction(str(trigger_ratio)))})"
        "</context-usage>"
    )


def plan_hint(
    messages: Sequence[Message],
    *,
    now: datetime,
    config: HintConfig | None = None,
    open_tasks: Sequence[Task] | Sequence[str] = (),
    usage: ContextUsage | None = None,
    first_call_of_reply: bool = True,
    scanner: HintScanner | None = None,
) -> HintBlock | None:
    """The hint to append before the next model call, or ``None`` when the context already says it all."""
    config = config or HintConfig()
    decision = decide_hint(
        messages,
        now=now,
        config=config,
        open_tasks=open_tasks,
        usage=usage,
        first_call_of_reply=first_call_of_reply,
        scanner=scanner,
    )
    if decision.empty:
        return None
    state = render_runtime_state(decision, now=now, config=config)
    return HintBlock(text=config.template.replace(PLACEHOLDER, state))


def inject_hint(messages: Sequence[Message], hint: HintBlock) -> list[Message]:
    """Append ``hint`` at the end of the context, as (part of) a trailing user turn.

    A trailing user message gets the hint appended to its content; otherwise a
    new user message is added. After a tool message that keeps provider
    alternation: the Anthropic renderer merges tool results and the following
    user turn into one user message, results first. Hints only ever go at the
    end, so they never separate a thinking block from its tool use.

    Raises `InputError` when the last message is an assistant turn whose tool
    calls have no results yet: a user turn there would orphan the calls.
    """
    out = list(messages)
    if not out:
        return [Message(role="user", content=(hint,))]
    last = out[-1]
    if last.role == "user":
        out[-1] = last.replace(content=(*last.content, hint))
        return out
    if last.role == "assistant" and last.tool_calls:
        raise InputError(
            "cannot append a hint after an assistant turn whose tool calls have no results yet; "
            "append the tool results first",
            message_index=len(out) - 1,
        )
    out.append(Message(role="user", content=(hint,)))
    return out
