from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from fractions import Fraction
from typing import Any, overload
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold._runtime._hints as hints_module
from contextfold import (
    Clock,
    ConfigError,
    ContextfoldError,
    ContextUsage,
    HintBlock,
    HintConfig,
    InputError,
    Message,
    SystemClock,
    Task,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    inject_hint,
    plan_hint,
    render,
    to_canonical,
    validate,
)
from contextfold._formats._validate import Provider
from contextfold._runtime._hints import (
    DEFAULT_HINT_TEMPLATE,
    HintDecision,
    HintScanner,
    TimeReason,
    decide_hint,
    format_time,
    timezone_label,
)
from contextfold.testing import FixedClock
from readme_examples import run_section

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
START = datetime(2025, 3, 1, 9, 30, tzinfo=BERLIN)
NO_TASKS_OR_USAGE = HintConfig(tasks_enabled=False, usage_enabled=False)


def user(text: str = "hello") -> Message:
    return Message.text_message("user", text)


def assistant_call(name: str, call_id: str = "c1") -> Message:
    return Message(role="assistant", content=(ToolCallBlock(id=call_id, name=name, arguments="{}"),))


def tool_result(call_id: str = "c1", text: str = "ok") -> Message:
    return Message(role="tool", content=(ToolResultBlock(call_id=call_id, content=(TextBlock(text=text),)),))


def turn_with_hint(now: datetime, config: HintConfig = NO_TASKS_OR_USAGE, **kwargs: object) -> list[Message]:
    hint = plan_hint([user()], now=now, config=config, **kwargs)  # type: ignore[arg-type]
    assert hint is not None
    return inject_hint([user()], hint)


def reason_at(messages: Sequence[Message], now: datetime, config: HintConfig = NO_TASKS_OR_USAGE) -> str | None:
    return decide_hint(messages, now=now, config=config).time_reason


# --- clocks -------------------------------------------------------------------------------------------------------


def test_fixed_clock_moves_only_when_told() -> None:
    clock = FixedClock(START)
    assert clock.now() == START
    assert clock.advance(minutes=31) == START + timedelta(minutes=31)
    clock.set(START - timedelta(hours=1))
    assert clock.now() == START - timedelta(hours=1)
    clock.set_timezone(NEW_YORK)
    assert clock.now() == START - timedelta(hours=1)  # same instant
    assert clock.now().tzinfo is NEW_YORK


def test_fixed_clock_rejects_naive_datetimes() -> None:
    with pytest.raises(ConfigError, match="timezone-aware"):
        FixedClock(datetime(2025, 1, 1))


def test_system_clock_is_aware_and_uses_the_given_zone() -> None:
    now = SystemClock(BERLIN).now()
    assert now.tzinfo is BERLIN
    assert SystemClock().now().utcoffset() is not None


# --- time rules ---------------------------------------------------------------------------------------------------


def test_first_turn_gets_time_and_timezone() -> None:
    hint = plan_hint([user()], now=START, config=NO_TASKS_OR_USAGE)
    assert hint is not None
    assert "<current-time>2025-03-01T09:30:00+01:00</current-time>" in hint.text
    assert "<timezone>Europe/Berlin (UTC+01:00)</timezone>" in hint.text
    assert reason_at([user()], START) == "no time in context"


def test_default_template_says_ground_truth_and_superseded() -> None:
    hint = plan_hint([], now=START)
    assert hint is not None
    assert hint.text.startswith(DEFAULT_HINT_TEMPLATE.replace("{runtime_state}", ""))
    assert "ground truth" in hint.text
    assert "supersedes" in hint.text


def test_no_time_hint_within_interval_and_edge_is_inclusive() -> None:
    messages = turn_with_hint(START)
    assert plan_hint(messages, now=START, config=NO_TASKS_OR_USAGE) is None
    assert plan_hint(messages, now=START + timedelta(minutes=10), config=NO_TASKS_OR_USAGE) is None
    # "older than the interval": exactly 30 minutes is not older.
    assert reason_at(messages, START + timedelta(minutes=30)) is None
    assert reason_at(messages, START + timedelta(minutes=30, seconds=1)) == "interval passed"


def test_interval_passed_gives_new_time() -> None:
    clock = FixedClock(START)
    messages = turn_with_hint(clock.now())
    clock.advance(minutes=31)
    hint = plan_hint(messages, now=clock.now(), config=NO_TASKS_OR_USAGE)
    assert hint is not None
    assert "<current-time>2025-03-01T10:01:00+01:00</current-time>" in hint.text


def test_newest_time_hint_wins() -> None:
    messages = turn_with_hint(START)
    later = plan_hint([user()], now=START + timedelta(hours=2), config=NO_TASKS_OR_USAGE)
    assert later is not None
    messages = inject_hint([*messages, Message.text_message("assistant", "hi"), user()], later)
    assert reason_at(messages, START + timedelta(hours=2, minutes=5)) is None


def test_clock_went_backwards() -> None:
    messages = turn_with_hint(START)
    assert reason_at(messages, START - timedelta(seconds=1)) == "clock went backwards"
    hint = plan_hint(messages, now=START - timedelta(minutes=5), config=NO_TASKS_OR_USAGE)
    assert hint is not None
    assert "<current-time>2025-03-01T09:25:00+01:00</current-time>" in hint.text


def test_after_compaction_time_is_stated_again() -> None:
    messages = turn_with_hint(START)
    messages += [Message.text_message("assistant", "working"), user("next")]
    assert reason_at(messages, START + timedelta(minutes=5)) is None
    # Compaction replaced everything before the last user message by a summary: the hint is gone.
    compacted = [Message.text_message("user", "<summary>earlier work</summary>"), messages[-1]]
    assert reason_at(compacted, START + timedelta(minutes=5)) == "no time in context"


def test_timezone_change_is_stated() -> None:
    clock = FixedClock(START)
    messages = turn_with_hint(clock.now())
    clock.advance(minutes=5)
    clock.set_timezone(NEW_YORK)
    assert reason_at(messages, clock.now()) == "timezone changed"
    hint = plan_hint(messages, now=clock.now(), config=NO_TASKS_OR_USAGE)
    assert hint is not None
    assert "<timezone>America/New_York (UTC-05:00)</timezone>" in hint.text
    assert "<current-time>2025-03-01T03:35:00-05:00</current-time>" in hint.text


def test_interval_compared_in_recorded_zone_across_spring_forward() -> None:
    # Without an offset in the format, the wall clock jumps 01:50 -> 03:10 but only 20 minutes pass.
    config = HintConfig(time_format="%Y-%m-%d %H:%M", tasks_enabled=False, usage_enabled=False)
    before = datetime(2024, 3, 31, 1, 50, tzinfo=BERLIN)
    messages = turn_with_hint(before, config)
    assert "<current-time>2024-03-31 01:50</current-time>" in messages[-1].text
    after = before.astimezone(UTC) + timedelta(minutes=20)
    assert after.astimezone(BERLIN).hour == 3
    assert reason_at(messages, after.astimezone(BERLIN), config) is None
    assert reason_at(messages, (after + timedelta(minutes=11)).astimezone(BERLIN), config) == "interval passed"


def test_interval_compared_in_recorded_zone_across_fall_back() -> None:
    # 02:50 CEST, then 20 minutes later the wall clock reads 02:10 CET: not a backwards clock.
    config = HintConfig(time_format="%Y-%m-%d %H:%M", tasks_enabled=False, usage_enabled=False)
    before = datetime(2024, 10, 27, 0, 50, tzinfo=UTC).astimezone(BERLIN)
    assert before.hour == 2
    messages = turn_with_hint(before, config)
    after = (before.astimezone(UTC) + timedelta(minutes=20)).astimezone(BERLIN)
    assert (after.hour, after.minute) == (2, 10)
    assert reason_at(messages, after, config) is None


def test_fixed_offset_zone_round_trips() -> None:
    zone = timezone(timedelta(hours=5, minutes=30))
    now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=zone)
    messages = turn_with_hint(now)
    assert "<timezone>UTC+05:30</timezone>" in messages[-1].text
    assert reason_at(messages, now + timedelta(minutes=29)) is None
    assert timezone_label(UTC, datetime(2025, 1, 1, tzinfo=UTC)) == "UTC"


def test_unparseable_earlier_hint_counts_as_absent() -> None:
    messages = turn_with_hint(START)  # ISO format
    other = HintConfig(time_format="%d.%m.%Y %H:%M", tasks_enabled=False, usage_enabled=False)
    assert reason_at(messages, START + timedelta(minutes=1), other) == "no time in context"


def test_naive_now_is_rejected() -> None:
    with pytest.raises(ConfigError, match="timezone-aware"):
        plan_hint([], now=datetime(2025, 1, 1))


@pytest.mark.parametrize(
    ("fmt", "match"),
    [
        ("%H:%M:%S", "full date"),
        ("%m-%d %H:%M", "full date"),
        ("%Y-%m-%d", "time of day"),
        ("%Y-%m-%d %I:%M", "time of day"),
        ("%Y-%m-%d %H:%M %Z", "%Z"),
    ],
)
def test_bad_time_format_rejected_at_configuration(fmt: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        HintConfig(time_format=fmt)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, ContextfoldError)
    assert "HintConfig.time_format" in str(info.value)


@pytest.mark.parametrize("fmt", ["%Y-%m-%dT%H:%M:%S%z", "%d.%m.%Y %H:%M", "%c", "%Y-%j %I:%M %p", "%A %d %B %Y, %H:%M"])
def test_good_time_formats_accepted_and_round_trip(fmt: str) -> None:
    config = HintConfig(time_format=fmt, tasks_enabled=False, usage_enabled=False)
    messages = turn_with_hint(START, config)
    assert reason_at(messages, START + timedelta(minutes=20), config) is None
    assert reason_at(messages, START + timedelta(minutes=40), config) == "interval passed"


def test_other_config_errors() -> None:
    with pytest.raises(ConfigError, match="time_interval: must be positive"):
        HintConfig(time_interval=timedelta(0))
    with pytest.raises(ConfigError, match="usage_buffer"):
        HintConfig(usage_buffer=1.5)
    with pytest.raises(ConfigError, match="colour: Extra inputs"):
        HintConfig(colour="blue")  # type: ignore[call-arg]


# --- template -----------------------------------------------------------------------------------------------------


def test_template_without_placeholder_rejected() -> None:
    with pytest.raises(ConfigError, match=r"template: must contain \{runtime_state\}"):
        HintConfig(template="The time is important.")


def test_custom_template_other_braces_are_literal() -> None:
    config = HintConfig(template="State {json} follows:\n{runtime_state}\n-- end", tasks_enabled=False)
    hint = plan_hint([], now=START, config=config)
    assert hint is not None
    assert hint.text.startswith("State {json} follows:\n<current-time>")
    assert hint.text.endswith("</timezone>\n-- end")


# --- tasks --------------------------------------------------------------------------------------------------------

TASKS_ONLY = HintConfig(time_enabled=False, usage_enabled=False)


def test_open_tasks_injected_when_context_shows_none() -> None:
    hint = plan_hint(
        [user()],
        now=START,
        config=TASKS_ONLY,
        open_tasks=[
            Task(subject="write parser", id="1", status="in_progress"),
            Task(subject="done", status="completed"),
        ],
    )
    assert hint is not None
    assert "<tasks>\nOpen tasks:\n- [in_progress] 1: write parser\n</tasks>" in hint.text
    assert "done" not in hint.text
    assert "<current-time>" not in hint.text


def test_strings_are_pending_tasks() -> None:
    hint = plan_hint([], now=START, config=TASKS_ONLY, open_tasks=["a", "b"])
    assert hint is not None
    assert "- [pending] a\n- [pending] b" in hint.text


def test_no_tasks_no_hint() -> None:
    assert plan_hint([], now=START, config=TASKS_ONLY) is None
    assert plan_hint([], now=START, config=TASKS_ONLY, open_tasks=[Task(subject="x", status="completed")]) is None


def test_task_tool_call_in_context_suppresses_tasks() -> None:
    messages = [user(), assistant_call("TaskList"), tool_result()]
    assert plan_hint(messages, now=START, config=TASKS_ONLY, open_tasks=["a"]) is None
    # Another tool does not count.
    messages = [user(), assistant_call("Read"), tool_result()]
    assert plan_hint(messages, now=START, config=TASKS_ONLY, open_tasks=["a"]) is not None


def test_task_tool_names_are_configurable() -> None:
    config = HintConfig(time_enabled=False, usage_enabled=False, task_tool_names=("plan",))
    assert (
        plan_hint([user(), assistant_call("plan"), tool_result()], now=START, config=config, open_tasks=["a"]) is None
    )
    assert (
        plan_hint([user(), assistant_call("TaskList"), tool_result()], now=START, config=config, open_tasks=["a"])
        is not None
    )


def test_earlier_tasks_hint_suppresses_tasks() -> None:
    messages = turn_with_hint(START, TASKS_ONLY, open_tasks=["a"])
    assert "<tasks>" in messages[-1].text
    assert (
        plan_hint(
            [*messages, Message.text_message("assistant", "ok"), user()], now=START, config=TASKS_ONLY, open_tasks=["a"]
        )
        is None
    )


def test_compaction_removing_call_and_hint_reinjects_tasks() -> None:
    messages = turn_with_hint(START, TASKS_ONLY, open_tasks=["a"])
    messages += [assistant_call("TaskUpdate"), tool_result(), user("continue")]
    assert plan_hint(messages, now=START, config=TASKS_ONLY, open_tasks=["a"]) is None
    compacted = [Message.text_message("user", "<summary>...</summary>"), messages[-1]]
    hint = plan_hint(compacted, now=START, config=TASKS_ONLY, open_tasks=["a"])
    assert hint is not None
    assert "<tasks>" in hint.text


def test_tasks_disabled() -> None:
    config = HintConfig(time_enabled=False, usage_enabled=False, tasks_enabled=False)
    assert plan_hint([], now=START, config=config, open_tasks=["a"]) is None


class SpySequence(Sequence[Message]):
    """Records which indices the scan reads."""

    def __init__(self, items: list[Message]) -> None:
        self.items = items
        self.read: set[int] = set()

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            raise TypeError("no slicing")
        self.read.add(index % len(self.items))
        return self.items[index]

    def __iter__(self) -> Iterator[Message]:
        raise AssertionError("the scan must go backwards, not read everything")


def test_scan_stops_once_time_and_tasks_are_settled() -> None:
    config = HintConfig(usage_enabled=False)
    old = [user(str(i)) for i in range(500)]
    recent = turn_with_hint(START, config, open_tasks=["a"])
    spy = SpySequence([*old, *recent, Message.text_message("assistant", "ok"), user("more")])
    assert plan_hint(spy, now=START + timedelta(minutes=1), config=config, open_tasks=["a"]) is None
    assert min(spy.read) >= len(old)
    assert len(spy.read) <= 4


# --- usage --------------------------------------------------------------------------------------------------------

USAGE_ONLY = HintConfig(time_enabled=False, tasks_enabled=False)


@pytest.mark.parametrize(
    ("tokens", "shown"),
    [(0, False), (599, False), (600, True), (700, True), (799, True), (800, False), (950, False)],
)
def test_usage_buffer_edges(tokens: int, shown: bool) -> None:
    # trigger 0.8, buffer 0.2 of the window: shown for 600 <= tokens < 800.
    hint = plan_hint([], now=START, config=USAGE_ONLY, usage=ContextUsage(tokens, 1000, 0.8))
    assert (hint is not None) is shown


def test_usage_edges_use_the_decimals_as_written() -> None:
    # 0.7 - 0.1 is 0.59999999999999998 in binary floats; the edge must still be 600 of 1000.
    config = HintConfig(time_enabled=False, tasks_enabled=False, usage_buffer=0.1)
    assert plan_hint([], now=START, config=config, usage=ContextUsage(600, 1000, 0.7)) is not None
    assert plan_hint([], now=START, config=config, usage=ContextUsage(599, 1000, 0.7)) is None
    assert plan_hint([], now=START, config=config, usage=ContextUsage(700, 1000, 0.7)) is None


def test_usage_only_on_first_call_of_reply() -> None:
    usage = ContextUsage(700, 1000, 0.8)
    assert plan_hint([], now=START, config=USAGE_ONLY, usage=usage, first_call_of_reply=False) is None
    hint = plan_hint([], now=START, config=USAGE_ONLY, usage=usage)
    assert hint is not None
    assert (
        "<context-usage>700 of 1,000 tokens used; 30.0% of the window left; "
        "older context is compacted in 10.0% more (at 80.0%)</context-usage>"
    ) in hint.text


def test_usage_validation() -> None:
    with pytest.raises(ConfigError, match="window"):
        ContextUsage(1, 0)
    with pytest.raises(ConfigError, match="tokens"):
        ContextUsage(-1, 10)
    with pytest.raises(ConfigError, match="trigger_ratio"):
        ContextUsage(1, 10, 1.5)


@settings(max_examples=300, deadline=None)
@given(
    window=st.integers(1, 400_000),
    trigger_pm=st.integers(1, 1000),
    buffer_pm=st.integers(0, 999),
    tokens=st.integers(0, 500_000),
)
def test_usage_shown_exactly_inside_the_buffer(window: int, trigger_pm: int, buffer_pm: int, tokens: int) -> None:
    config = HintConfig(time_enabled=False, tasks_enabled=False, usage_buffer=buffer_pm / 1000)
    usage = ContextUsage(tokens, window, trigger_pm / 1000)
    expected = (trigger_pm - buffer_pm) * window <= tokens * 1000 < trigger_pm * window
    assert (plan_hint([], now=START, config=config, usage=usage) is not None) is expected


# --- all three together -------------------------------------------------------------------------------------------


def test_all_three_in_fixed_order() -> None:
    hint = plan_hint([], now=START, open_tasks=["a"], usage=ContextUsage(700, 1000))
    assert hint is not None
    text = hint.text
    assert text.index("<current-time>") < text.index("<timezone>") < text.index("<tasks>") < text.index("<context")


# --- inject_hint --------------------------------------------------------------------------------------------------

HINT = HintBlock(text="state")


def test_inject_into_empty_context() -> None:
    assert inject_hint([], HINT) == [Message(role="user", content=(HINT,))]


def test_inject_merges_into_trailing_user_message() -> None:
    out = inject_hint([user("q")], HINT)
    assert len(out) == 1
    assert out[0].content == (TextBlock(text="q"), HINT)


def test_inject_after_tool_message_appends_user_turn() -> None:
    messages = [user(), assistant_call("Read"), tool_result()]
    out = inject_hint(messages, HINT)
    assert out[:3] == messages
    assert out[3] == Message(role="user", content=(HINT,))


def test_inject_after_plain_assistant_appends_user_turn() -> None:
    out = inject_hint([user(), Message.text_message("assistant", "done")], HINT)
    assert out[-1] == Message(role="user", content=(HINT,))


def test_inject_refuses_to_orphan_tool_calls() -> None:
    with pytest.raises(InputError, match=r"message 1:.*tool calls have no results") as info:
        inject_hint([user(), assistant_call("Read")], HINT)
    assert info.value.message_index == 1


def test_inject_does_not_mutate_input() -> None:
    messages = [user("q")]
    inject_hint(messages, HINT)
    assert messages == [user("q")]


# --- properties ---------------------------------------------------------------------------------------------------

ZONES = [BERLIN, NEW_YORK, UTC, ZoneInfo("Asia/Kolkata"), timezone(timedelta(hours=-3, minutes=-30))]
instants = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC))


@st.composite
def contexts(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    for i in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "text", "call"]))
        if kind == "user":
            out.append(user(f"u{i}"))
        elif kind == "text":
            out.append(Message.text_message("assistant", f"a{i}"))
        else:
            name = draw(st.sampled_from(["Read", "TaskList", "Bash"]))
            out += [assistant_call(name, f"c{i}"), tool_result(f"c{i}")]
    return out


@settings(max_examples=200, deadline=None)
@given(context=contexts(), when=instants, zone=st.sampled_from(ZONES), tasks=st.lists(st.text(min_size=1), max_size=3))
def test_planning_again_right_after_injecting_says_nothing(
    context: list[Message], when: datetime, zone: timezone, tasks: list[str]
) -> None:
    now = when.astimezone(zone)
    hint = plan_hint(context, now=now, open_tasks=tasks)
    assert hint is not None or context  # an empty context always needs the time
    if hint is not None:
        context = inject_hint(context, hint)
    assert plan_hint(context, now=now, open_tasks=tasks, first_call_of_reply=False) is None


@settings(max_examples=200, deadline=None)
@given(when=instants, zone=st.sampled_from(ZONES), seconds=st.integers(-7200, 7200))
def test_time_hint_iff_backwards_or_older_than_interval(when: datetime, zone: timezone, seconds: int) -> None:
    then = when.astimezone(zone)
    messages = turn_with_hint(then)
    # Add in UTC: aware wall-clock arithmetic ignores fold, so `then + 0s` can move an hour in a DST overlap.
    reason = reason_at(messages, (then.astimezone(UTC) + timedelta(seconds=seconds)).astimezone(zone))
    if seconds < 0:
        assert reason == "clock went backwards"
    elif seconds > 1800:
        assert reason == "interval passed"
    else:
        assert reason is None


@settings(max_examples=200, deadline=None)
@given(context=contexts(), text=st.text(min_size=1))
def test_inject_keeps_prefix_and_ends_with_the_hint(context: list[Message], text: str) -> None:
    hint = HintBlock(text=text)
    out = inject_hint(context, hint)
    assert len(out) in (len(context), len(context) + 1)
    keep = max(len(context) - 1, 0)
    assert out[:keep] == context[:keep]
    assert out[-1].role == "user"
    assert out[-1].content[-1] is hint
    if len(out) == len(context):
        assert out[-1].content[:-1] == context[-1].content


@settings(max_examples=200, deadline=None)
@given(when=instants, zone=st.sampled_from(ZONES))
def test_default_format_is_iso_8601(when: datetime, zone: timezone) -> None:
    now = when.astimezone(zone).replace(microsecond=0)
    assert datetime.fromisoformat(format_time(now)).astimezone(UTC) == now.astimezone(UTC)


# --- rendering for providers --------------------------------------------------------------------------------------


def agent_context() -> list[Message]:
    """A turn with signed thinking, a tool call and its result, as the hint step sees it."""
    return [
        Message.text_message("system", "You are a coding agent."),
        user("fix the failing test"),
        Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="look at the test first", signature="sig=="),
                TextBlock(text="Reading it."),
                ToolCallBlock(id="toolu_01", name="Read", arguments='{"path": "/repo/test_x.py"}'),
                ToolCallBlock(id="toolu_02", name="TaskList", arguments="{}"),
            ),
        ),
        tool_result("toolu_01", "def test_x(): ..."),
        tool_result("toolu_02", "1. fix test (in_progress)"),
    ]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_hinted_context_renders_validates_and_round_trips(provider: Provider) -> None:
    hint = plan_hint(agent_context(), now=START, open_tasks=["fix test"], usage=ContextUsage(65_000, 100_000))
    assert hint is not None
    assert "<tasks>" not in hint.text  # the TaskList call is in the context
    context = inject_hint(agent_context(), hint)
    assert validate(context, provider) == []
    body = render(context, provider)
    back = to_canonical(body["messages"], provider, system=body.get("system"))
    hints = [b for m in back for b in m.content if isinstance(b, HintBlock)]
    assert [h.text for h in hints] == [hint.text]
    assert plan_hint(back, now=START + timedelta(minutes=1), open_tasks=["fix test"]) is None
    if provider == "anthropic":
        last = body["messages"][-1]
        assert last["role"] == "user"
        kinds = [part["type"] for part in last["content"]]
        assert kinds == ["tool_result", "tool_result", "text"]  # results first, then the hint
        assert last["content"][-1]["text"] == "<system-reminder>\n" + hint.text + "\n</system-reminder>"
        roles = [m["role"] for m in body["messages"]]
        assert all(a != b for a, b in itertools.pairwise(roles))
    else:
        last = body["messages"][-1]
        assert last["role"] == "user"
        assert last["content"] == "<system-reminder>\n" + hint.text + "\n</system-reminder>"
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool", "user"]


@settings(max_examples=100, deadline=None)
@given(context=contexts(), when=instants, tasks=st.lists(st.text(min_size=1), max_size=2))
def test_hinted_contexts_validate_for_both_providers(context: list[Message], when: datetime, tasks: list[str]) -> None:
    context = [user("start"), *context]
    hint = plan_hint(context, now=when.astimezone(BERLIN), open_tasks=tasks)
    assert hint is not None
    hinted = inject_hint(context, hint)
    for provider in ("openai", "anthropic"):
        before = {p.code for p in validate(context, provider)}
        after = {p.code for p in validate(hinted, provider)}
        assert after <= before  # the hint adds no problem of its own
        body = render(hinted, provider)
        back = to_canonical(body["messages"], provider, system=body.get("system"))
        assert plan_hint(back, now=when.astimezone(BERLIN), open_tasks=tasks, first_call_of_reply=False) is None


# --- README example -----------------------------------------------------------------------------------------------


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_section("Runtime hints")


# --- incremental scanning -------------------------------------------------------------------------------------------


def _hint_at(minute: int, *, tasks: bool = False) -> Message:
    text = f"<current-time>2026-11-30T10:{minute:02d}:00+00:00</current-time>\n<timezone>UTC</timezone>"
    if tasks:
        text += "\n<tasks>\nOpen tasks:\n- [pending] x\n</tasks>"
    return Message(role="user", content=(HintBlock(text=text),))


_SCAN_PIECES = st.sampled_from(
    [
        Message.text_message("user", "hello"),
        Message.text_message("assistant", "ok"),
        _hint_at(1),
        _hint_at(20),
        _hint_at(45, tasks=True),
        Message(role="assistant", content=(ToolCallBlock(id="t", name="TaskList"),)),
        Message(role="assistant", content=(ToolCallBlock(id="b", name="bash"),)),
    ]
)


@settings(max_examples=300, deadline=None)
@given(history=st.lists(_SCAN_PIECES, max_size=30), cuts=st.lists(st.integers(0, 30), max_size=5))
def test_incremental_scanner_agrees_with_a_full_backward_scan(history: list[Message], cuts: list[int]) -> None:
    config = HintConfig()
    now = datetime(2026, 11, 30, 10, 50, tzinfo=UTC)
    scanner = HintScanner(config.task_tool_names)
    for cut in [*sorted(c for c in cuts if c <= len(history)), len(history)]:
        prefix = history[:cut]
        incremental = decide_hint(prefix, now=now, config=config, open_tasks=["x"], scanner=scanner)
        full = decide_hint(prefix, now=now, config=config, open_tasks=["x"])
        assert incremental == full


def test_scanner_reset_after_rewrite() -> None:
    config = HintConfig()
    scanner = HintScanner(config.task_tool_names)
    scanner.update([_hint_at(1), Message.text_message("user", "a")])
    assert scanner.last_time is not None
    scanner.update([Message.text_message("user", "summary")])  # shorter than scanned: rewritten, start over
    assert scanner.last_time is None and scanner.scanned == 1


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
    st.sampled_from(["%Y-%m-%dT%H:%M:%S%:z", "%Y-%m-%d %H:%M", "%d.%m.%Y %H:%M:%S %z"]),
)
def test_cached_time_parse_equals_fresh(naive: datetime, offset: int, fmt: str) -> None:
    import contextfold._runtime._hints as hints_module

    when = naive.replace(microsecond=0, tzinfo=timezone(timedelta(minutes=offset)))
    text = " " + hints_module.format_time(when, fmt) + "\n"
    fresh = datetime.strptime(text.strip(), hints_module._expand_colon_offset(fmt, None))
    for _ in range(2):  # computed, then from the cache
        parsed = hints_module._parse_time(text, fmt)
        assert parsed == fresh and parsed.tzinfo == fresh.tzinfo
    with pytest.raises(ValueError):
        hints_module._parse_time("not a time", fmt)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.from_regex(r"\A\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-6]\d:[0-6]\d[+-][0-2]\d:[0-6]\d\Z"),
        st.builds(
            lambda when, minutes: format_time(when.replace(tzinfo=timezone(timedelta(minutes=minutes)))),
            st.datetimes(min_value=datetime(1000, 1, 1)),
            st.integers(min_value=-1439, max_value=1439),
        ),
    )
)
def test_default_time_format_is_read_as_strptime_reads_it(text: str) -> None:
    # The fast path (fromisoformat) agrees with strptime on every string of the default format's shape:
    # same datetime and offset, or both refuse it.
    from contextfold._runtime._hints import DEFAULT_TIME_FORMAT, _expand_colon_offset, _parse_time

    try:
        expected = datetime.strptime(text, _expand_colon_offset(DEFAULT_TIME_FORMAT, None))
    except ValueError:
        with pytest.raises(ValueError):
            _parse_time(text, DEFAULT_TIME_FORMAT)
        return
    got = _parse_time(text, DEFAULT_TIME_FORMAT)
    assert got == expected and got.utcoffset() == expected.utcoffset()


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=300_000),
    st.integers(min_value=1, max_value=200_000),
    st.sampled_from([0.5, 0.7, 0.75, 0.8, 0.85, 0.9, 0.333, 1.0]),
    st.sampled_from([0.0, 0.05, 0.1, 0.123, 0.2]),
)
def test_usage_band_on_whole_tokens_equals_the_exact_band(
    tokens: int, window: int, trigger: float, buffer: float
) -> None:
    # Whole tokens are compared with the band's edges rounded up: the same answer as the exact fractions.
    from fractions import Fraction

    from contextfold import ContextUsage
    from contextfold._runtime._hints import _within_usage_buffer

    usage = ContextUsage(tokens=tokens, window=window, trigger_ratio=trigger)
    exact_trigger = Fraction(str(trigger))
    lower, upper = (exact_trigger - Fraction(str(buffer))) * window, exact_trigger * window
    assert _within_usage_buffer(usage, buffer) == (lower <= tokens < upper)


# --- fast paths agree with the plain computation ----------------------------------------------------------------------
# The per-`prepare` path (`HintScanner.plan`, called by `Context._plan_hint`) skips allocations and caches what repeats.
# Each shortcut is checked here against the straightforward code it replaces, errors included.


def _outcome(f: Callable[[], object]) -> tuple[object, ...]:
    try:
        return ("ok", f())
    except Exception as exc:  # compared: same class, same message
        return ("error", type(exc), str(exc))


def _plain_offset_text(when: datetime) -> str:
    offset = when.utcoffset() or timedelta()
    sign = "-" if offset < timedelta() else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _plain_expand(fmt: str, when: datetime | None) -> str:
    out: list[str] = []
    i = 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            if fmt.startswith("%:z", i):
                out.append(_plain_offset_text(when) if when is not None else "%z")
                i += 3
                continue
            out.append(fmt[i : i + 2])
            i += 2
            continue
        out.append(fmt[i])
        i += 1
    return "".join(out)


def _plain_format_time(when: datetime, fmt: str) -> str:
    return when.strftime(_plain_expand(fmt, when))


def _plain_timezone_label(tz: tzinfo | None, when: datetime) -> str:
    if isinstance(tz, ZoneInfo) and tz.key:
        return tz.key
    if not when.utcoffset():
        return "UTC"
    return "UTC" + _plain_offset_text(when)


def _plain_time_reason(last_time: str | None, last_zone: str | None, now: datetime, config: HintConfig) -> str | None:
    if last_time is None:
        return "no time in context"
    zone = hints_module._zone_from_label(last_zone) if last_zone is not None else None
    try:
        earlier = hints_module._parse_time(last_time, config.time_format)
    except ValueError:
        return "no time in context"
    if earlier.tzinfo is None:
        if zone is None:
            return "no time in context"
        earlier = earlier.replace(tzinfo=zone)
    if last_zone is not None and last_zone.split(" (", 1)[0].strip() != _plain_timezone_label(now.tzinfo, now):
        return "timezone changed"
    elapsed = now.astimezone(UTC) - earlier.astimezone(UTC)
    if elapsed < timedelta():
        return "clock went backwards"
    if elapsed > config.time_interval:
        return "interval passed"
    return None


def _plain_percent(share: Fraction) -> str:
    return f"{float(share) * 100:.1f}%"


def _plain_render(decision: HintDecision, now: datetime, config: HintConfig) -> str:
    parts: list[str] = []
    if decision.time_reason is not None:
        zone = _plain_timezone_label(now.tzinfo, now)
        offset = "UTC" + _plain_offset_text(now)
        shown_zone = zone if zone.startswith("UTC") else f"{zone} ({offset})"
        parts.append(f"<current-time>{_plain_format_time(now, config.time_format)}</current-time>")
        parts.append(f"<timezone>{shown_zone}</timezone>")
    if decision.tasks:
        lines = []
        for task in decision.tasks:
            ident = f"{task.id}: " if task.id else ""
            lines.append(f"- [{task.status}] {ident}{task.subject}")
        parts.append("<tasks>\nOpen tasks:\n" + "\n".join(lines) + "\n</tasks>")
    if decision.usage is not None:
        u = decision.usage
        left = Fraction(u.window - u.tokens, u.window)
        to_trigger = Fraction(str(u.trigger_ratio)) - Fraction(u.tokens, u.window)
        parts.append(
            f"<context-usage>{u.tokens:,} of {u.window:,} tokens used; {_plain_percent(left)} of the window left; "
            f"older context is compacted in {_plain_percent(to_trigger)} more "
            f"(at {_plain_percent(Fraction(str(u.trigger_ratio)))})</context-usage>"
        )
    return "\n".join(parts)


_offsets = st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59))
_fixed_zones = st.one_of(
    st.builds(timezone, _offsets),
    st.builds(timezone, st.integers(-1439, 1439).map(lambda m: timedelta(minutes=m))),
    st.sampled_from([UTC, BERLIN, NEW_YORK, ZoneInfo("Asia/Kolkata"), ZoneInfo("Australia/Lord_Howe")]),
)
_aware = st.datetimes(timezones=_fixed_zones)


@settings(max_examples=400, deadline=None)
@given(when=_aware, other=st.one_of(st.none(), _fixed_zones))
def test_offset_text_and_timezone_label_are_the_plain_ones(when: datetime, other: tzinfo | None) -> None:
    for _ in range(2):
        assert hints_module._offset_text(when) == _plain_offset_text(when)
        assert timezone_label(when.tzinfo, when) == _plain_timezone_label(when.tzinfo, when)
        assert timezone_label(other, when) == _plain_timezone_label(other, when)


_REASON_CONFIGS = [
    HintConfig(),
    HintConfig(time_format="%Y-%m-%d %H:%M", time_interval=timedelta(minutes=5)),
    HintConfig(time_format="%d.%m.%Y %H:%M:%S %z", time_interval=timedelta(days=400)),
]
_extreme_instants = st.datetimes(min_value=datetime.min, max_value=datetime.max, timezones=_fixed_zones)


@st.composite
def _stated_times(draw: st.DrawFn, config: HintConfig) -> tuple[str | None, str | None]:
    when = draw(st.one_of(_aware, _extreme_instants))
    text = draw(
        st.one_of(
            st.just(format_time(when, config.time_format)),
            st.just(" " + format_time(when, hints_module.DEFAULT_TIME_FORMAT) + "\n"),
            st.sampled_from(["not a time", "", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]),
            st.none(),
        )
    )
    label = timezone_label(when.tzinfo, when)
    zone = draw(
        st.one_of(
            st.just(label),
            st.just(f"{label} (UTC{hints_module._offset_text(when)})"),
            st.sampled_from(["UTC", "UTC+05:30", "UTC-03:30", "Europe/Berlin", "Mars/Base", "Europe", "", "UTC+5"]),
            st.none(),
        )
    )
    return text, zone


@settings(max_examples=500, deadline=None)
@given(data=st.data(), config=st.sampled_from(_REASON_CONFIGS), now=st.one_of(_aware, _extreme_instants))
def test_time_reason_is_the_plain_one(data: st.DataObject, config: HintConfig, now: datetime) -> None:
    last_time, last_zone = data.draw(_stated_times(config))
    expected = _outcome(lambda: _plain_time_reason(last_time, last_zone, now, config))
    for _ in range(2):  # computed, then from the cache
        assert _outcome(lambda: hints_module._time_reason(last_time, last_zone, now, config)) == expected
    later = now + timedelta(minutes=data.draw(st.integers(-90, 90))) if 1 < now.year < 9999 else now
    assert _outcome(lambda: hints_module._time_reason(last_time, last_zone, later, config)) == _outcome(
        lambda: _plain_time_reason(last_time, last_zone, later, config)
    )


@pytest.mark.parametrize(
    ("now", "last_time", "last_zone"),
    [
        # At the ends of the datetime range the UTC conversion of "now" fails: the error must still surface.
        (datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=5))), "2025-03-01T09:30:00+05:00", "UTC+05:00"),
        (datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5))), "2025-03-01T09:30:00-05:00", None),
        (datetime(1, 1, 2, tzinfo=timezone(timedelta(hours=5))), "0001-01-01T00:00:00+05:00", "UTC+05:00"),
        (datetime(2025, 1, 1, tzinfo=timezone(timedelta(hours=5))), "0001-01-01T00:00:00+05:00", "UTC"),
    ],
)
def test_time_reason_at_the_ends_of_the_datetime_range(now: datetime, last_time: str, last_zone: str | None) -> None:
    config = HintConfig()
    expected = _outcome(lambda: _plain_time_reason(last_time, last_zone, now, config))
    for _ in range(2):
        assert _outcome(lambda: hints_module._time_reason(last_time, last_zone, now, config)) == expected


_tasks = st.lists(
    st.builds(
        Task,
        subject=st.text(max_size=5),
        status=st.sampled_from(["pending", "in_progress", "completed"]),
        id=st.one_of(st.none(), st.text(max_size=3)),
    ),
    max_size=3,
).map(tuple)
_usages = st.builds(
    ContextUsage,
    tokens=st.one_of(st.integers(0, 10**7), st.integers(0, 10**40), st.booleans(), st.floats(0, 1e7)),
    window=st.one_of(st.integers(1, 10**7), st.integers(1, 10**40), st.just(True), st.floats(0.5, 1e7)),
    trigger_ratio=st.one_of(
        st.floats(min_value=0.0, max_value=1.0, exclude_min=True),
        st.sampled_from([0.8, 0.7, 0.333, 1.0, 1, Fraction(4, 5)]),
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    reason=st.sampled_from([None, "no time in context", "interval passed"]),
    tasks=_tasks,
    usage=st.one_of(st.none(), _usages),
    now=_aware,
    config=st.sampled_from(_REASON_CONFIGS),
)
def test_render_is_the_plain_one(
    reason: TimeReason | None, tasks: tuple[Task, ...], usage: ContextUsage | None, now: datetime, config: HintConfig
) -> None:
    decision = HintDecision(time_reason=reason, tasks=tasks, usage=usage)
    expected = _outcome(lambda: _plain_render(decision, now, config))
    for _ in range(2):
        assert _outcome(lambda: hints_module.render_runtime_state(decision, now=now, config=config)) == expected


class _ObservingScanner(HintScanner):
    """`update` written plainly: every block is observed (the scanner skips the classes `observe` ignores)."""

    __slots__ = ()

    def update(self, messages: Sequence[Message]) -> None:
        if len(messages) < self.scanned:
            self.reset()
        for message in messages[self.scanned :]:
            for block in message.content:
                self.observe(block)
        self.scanned = len(messages)


class _OddHint(HintBlock):
    pass


class _OddCall(ToolCallBlock):
    pass


class _OddText(TextBlock):
    pass


_BLOCKS: st.SearchStrategy[TextBlock | ThinkingBlock | ToolResultBlock | ToolCallBlock | HintBlock] = st.sampled_from(
    [
        TextBlock(text="<current-time>2026-11-30T10:00:00+00:00</current-time>"),
        _OddText(text="<tasks>"),
        ThinkingBlock(thinking="<tasks>"),
        ToolResultBlock(call_id="c", content=(TextBlock(text="<current-time>x</current-time>"),)),
        ToolCallBlock(id="a", name="TaskList"),
        ToolCallBlock(id="b", name="Read"),
        _OddCall(id="c", name="TodoWrite"),
        HintBlock(text="<current-time>2026-11-30T10:05:00+00:00</current-time>\n<timezone>UTC</timezone>"),
        HintBlock(text="<current-time>2026-11-30T10:07:00+00:00</current-time>"),
        HintBlock(text="<tasks>\nOpen tasks:\n- [pending] x\n</tasks>"),
        _OddHint(text="<current-time>2026-11-30T09:00:00+00:00</current-time>\n<timezone>Europe/Berlin</timezone>"),
    ]
)
_messages = st.lists(_BLOCKS, min_size=0, max_size=4).map(lambda blocks: Message(role="user", content=tuple(blocks)))


@settings(max_examples=300, deadline=None)
@given(history=st.lists(_messages, max_size=25), cuts=st.lists(st.integers(0, 25), max_size=6))
def test_scanner_update_is_observe_per_block(history: list[Message], cuts: list[int]) -> None:
    fast, plain = HintScanner(["TaskList", "TodoWrite"]), _ObservingScanner(["TaskList", "TodoWrite"])
    for cut in [*cuts, len(history)]:
        fast.update(history[:cut])
        plain.update(history[:cut])
        state = (fast.scanned, fast.last_time, fast.last_zone, fast.task_seen)
        assert state == (plain.scanned, plain.last_time, plain.last_zone, plain.task_seen)


class _NaiveClock:
    def now(self) -> datetime:
        return datetime(2025, 1, 1)


class _BrokenClock:
    def now(self) -> datetime:
        raise RuntimeError("clock broke")


_PLAN_CONFIGS = [
    HintConfig(),
    NO_TASKS_OR_USAGE,
    HintConfig(time_format="%d.%m.%Y %H:%M:%S %z", usage_buffer=0.5, task_tool_names=("Plan",)),
    HintConfig(time_enabled=False, usage_buffer=0.0),
    HintConfig(usage_enabled=False, time_interval=timedelta(minutes=1)),
]
_open_tasks = st.sampled_from(
    [(), [], ("a", "b"), ["c"], (Task(subject="done", status="completed"),), [Task(subject="t", id="7")]]
)
_plan_steps = st.one_of(
    st.tuples(st.just("append"), _messages),
    st.tuples(st.just("tool"), st.sampled_from(["TaskList", "Plan", "Read"])),
    st.tuples(st.just("rewrite"), st.integers(0, 3)),
    st.tuples(
        st.just("plan"),
        st.integers(-600, 3600),  # seconds the clock moves
        st.sampled_from(ZONES),
        st.one_of(st.integers(0, 1200), st.sampled_from([-1, 10**30])),  # tokens
        st.sampled_from([1000, 1000, 0, 1]),  # window
        st.sampled_from([0.8, 0.8, 0.65, 1.0, 1.5, 0.0]),  # trigger ratio
        st.booleans(),  # first call of the reply
        _open_tasks,
        st.sampled_from(["fixed", "fixed", "fixed", "naive", "broken"]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(config=st.sampled_from(_PLAN_CONFIGS), steps=st.lists(_plan_steps, max_size=20))
def test_scanner_plan_is_plan_hint_with_a_usage(config: HintConfig, steps: list[tuple[Any, ...]]) -> None:
    messages: list[Message] = [user("start")]
    fast, plain = HintScanner(config.task_tool_names), HintScanner(config.task_tool_names)
    clock = FixedClock(START)
    for step in steps:
        if step[0] == "append":
            messages.append(step[1])
        elif step[0] == "tool":
            messages += [assistant_call(step[1], f"c{len(messages)}"), tool_result(f"c{len(messages)}")]
        elif step[0] == "rewrite":  # a compaction: the context shrinks, both scanners start over
            messages = messages[: step[1]]
            fast.reset()
            plain.reset()
        else:
            _, seconds, zone, tokens, window, ratio, first_call, tasks, kind = step
            clock.set((clock.now().astimezone(UTC) + timedelta(seconds=seconds)).astimezone(zone))
            clocks: dict[str, Clock] = {"fixed": clock, "naive": _NaiveClock(), "broken": _BrokenClock()}
            used = clocks[kind]

            def reference(scanner: HintScanner | None) -> HintBlock | None:
                usage = ContextUsage(tokens=tokens, window=window, trigger_ratio=ratio)  # noqa: B023
                return plan_hint(
                    messages,  # noqa: B023
                    now=used.now(),  # noqa: B023
                    config=config,
                    open_tasks=tasks,  # noqa: B023
                    usage=usage,
                    first_call_of_reply=first_call,  # noqa: B023
                    scanner=scanner,
                )

            got = _outcome(lambda: fast.plan(messages, used, config, tasks, tokens, window, ratio, first_call))  # noqa: B023
            assert got == _outcome(lambda: reference(plain))
            assert got == _outcome(lambda: reference(None))
            pending = bool(messages) and messages[-1].role == "assistant" and bool(messages[-1].tool_calls)
            if got[0] == "ok" and isinstance(got[1], HintBlock) and not pending:
                merged = len(inject_hint(messages, got[1])) == len(messages)
                messages = inject_hint(messages, got[1])
                if merged:  # as the session does: the hint joined an already scanned message
                    fast.observe(got[1])
                    plain.observe(got[1])
        assert (fast.scanned, fast.last_time, fast.last_zone, fast.task_seen) == (
            plain.scanned,
            plain.last_time,
            plain.last_zone,
            plain.task_seen,
        )


def test_context_plans_hints_as_plan_hint_does() -> None:
    from contextfold import Context, ContextConfig

    clock = FixedClock(START)
    ctx = Context(ContextConfig(window=4000), system="sys", clock=clock)
    late = Context(ContextConfig(window=4000), system="sys", clock=clock, hints=False)
    late.hints = HintConfig()  # switched on after construction: the scanner is made on first use

    def expected(session: Context, first_call: bool, tasks: Sequence[str]) -> HintBlock | None:
        assert session.hints is not None
        usage = ContextUsage(session.tokens, session.config.window, session.config.trigger_ratio)
        return plan_hint(
            session.messages,
            now=clock.now(),
            config=session.hints,
            open_tasks=tasks,
            usage=usage,
            first_call_of_reply=first_call,
        )

    for minutes, first_call, tasks in [(0, True, ()), (1, False, ("a",)), (31, True, ()), (40, False, ("b",))]:
        clock.advance(minutes=minutes)
        for session in (ctx, late):
            session.append(user("x" * 600 * minutes))
            want = expected(session, first_call, tasks)
            got = session._plan_hint(first_call, tasks)
            assert got == want
            if got is not None:
                session._insert_hint(got)
