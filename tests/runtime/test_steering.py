from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    Cancel,
    ChannelFullError,
    ContextfoldError,
    FollowUp,
    HintBlock,
    InputError,
    Message,
    RequestPause,
    SteeringChannel,
    SteeringMessage,
    SystemReminder,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    apply_steering,
)
from contextfold._runtime._steering import DEFAULT_STEERING_CAPACITY
from readme_examples import run_section


def user(text: str = "hi") -> Message:
    return Message.text_message("user", text)


def call(call_id: str = "c1") -> Message:
    return Message(role="assistant", content=(ToolCallBlock(id=call_id, name="Bash", arguments="{}"),))


def result(call_id: str = "c1") -> Message:
    return Message(role="tool", content=(ToolResultBlock(call_id=call_id, content=(TextBlock(text="ok"),)),))


# --- messages -----------------------------------------------------------------------------------------------------


def test_messages_are_frozen_values() -> None:
    assert FollowUp("x") == FollowUp("x")
    assert Cancel() == Cancel("")
    with pytest.raises(AttributeError):
        Cancel("a").reason = "b"  # type: ignore[misc]


def test_message_validation() -> None:
    with pytest.raises(InputError, match="needs some text"):
        FollowUp("  ")
    with pytest.raises(InputError, match="must be a user message"):
        FollowUp(Message.text_message("assistant", "x"))
    with pytest.raises(InputError, match="needs some text"):
        SystemReminder("")
    assert FollowUp(user("q")).as_message() == user("q")
    assert FollowUp("q").as_message() == user("q")


# --- channel basics -----------------------------------------------------------------------------------------------


def test_default_capacity_and_bad_capacity() -> None:
    assert SteeringChannel().capacity == DEFAULT_STEERING_CAPACITY == 16
    with pytest.raises(ContextfoldError, match="at least 1"):
        SteeringChannel(0)


def test_drain_returns_in_order_and_empties() -> None:
    channel = SteeringChannel()
    sent: list[SteeringMessage] = [FollowUp("a"), SystemReminder("b"), FollowUp("c")]
    for message in sent:
        channel.send(message)
    assert len(channel) == 3
    assert channel.drain_pending() == sent
    assert channel.drain_pending() == []
    assert len(channel) == 0


def test_full_channel_send_raises_clear_error_and_try_send_refuses() -> None:
    channel = SteeringChannel(capacity=3)
    channel.send(FollowUp("a"))
    channel.send(FollowUp("b"))
    channel.send(SystemReminder("c"))
    with pytest.raises(ChannelFullError) as info:
        channel.send(FollowUp("d"))
    message = str(info.value)
    assert "capacity 3" in message
    assert "2 follow-up" in message
    assert "1 system reminder" in message
    assert info.value.capacity == 3
    assert len(info.value.waiting) == 3
    assert isinstance(info.value, ContextfoldError)
    assert channel.try_send(FollowUp("d")) is False
    assert [m for m in channel.drain_pending() if isinstance(m, FollowUp)] == [FollowUp("a"), FollowUp("b")]
    assert channel.try_send(FollowUp("d")) is True


def test_refused_pause_changes_nothing() -> None:
    channel = SteeringChannel(capacity=1)
    channel.send(FollowUp("a"))
    with pytest.raises(ChannelFullError):
        channel.send(RequestPause())
    assert not channel.paused
    assert channel.try_send(Cancel("x")) is False
    assert not channel.cancel_requested


def test_cancel_method_works_even_when_full() -> None:
    channel = SteeringChannel(capacity=1)
    channel.send(FollowUp("a"))
    channel.cancel("user pressed stop")
    assert channel.cancel_requested
    assert channel.cancelled
    assert channel.cancel_reason == "user pressed stop"
    assert channel.drain_pending() == [FollowUp("a")]
    channel.cancel("again")
    assert channel.cancel_reason == "user pressed stop"  # the first reason is kept
    assert channel.drain_pending() == [Cancel("again")]


def test_pause_and_cancel_are_state_at_send_time() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    assert channel.paused
    channel.resume()
    assert not channel.paused
    channel.send(Cancel("stop"))
    assert channel.cancel_requested
    assert channel.cancel_reason == "stop"
    assert channel.drain_pending() == [RequestPause(), Cancel("stop")]


# --- concurrency --------------------------------------------------------------------------------------------------


async def test_many_concurrent_asyncio_senders_lose_nothing() -> None:
    channel = SteeringChannel(capacity=16)
    received: list[SteeringMessage] = []
    senders, per_sender = 20, 25

    async def sender(n: int) -> None:
        for i in range(per_sender):
            while not channel.try_send(FollowUp(f"{n}:{i}")):
                await asyncio.sleep(0)
            await asyncio.sleep(0)

    async def receiver() -> None:
        while len(received) < senders * per_sender:
            received.extend(channel.drain_pending())
            await asyncio.sleep(0)

    await asyncio.gather(receiver(), *(sender(n) for n in range(senders)))
    texts = [m.message for m in received if isinstance(m, FollowUp)]
    assert sorted(texts) == sorted(f"{n}:{i}" for n in range(senders) for i in range(per_sender))
    for n in range(senders):  # each sender's messages arrive in the order it sent them
        mine = [t for t in texts if isinstance(t, str) and t.startswith(f"{n}:")]
        assert mine == [f"{n}:{i}" for i in range(per_sender)]


def test_many_thread_senders_respect_capacity() -> None:
    channel = SteeringChannel(capacity=16)
    accepted: list[int] = []
    refused: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def sender(n: int) -> None:
        barrier.wait()
        for i in range(10):
            ok = channel.try_send(FollowUp(f"{n}:{i}"))
            with lock:
                (accepted if ok else refused).append(n)

    threads = [threading.Thread(target=sender, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 16
    assert len(refused) == 80 - 16
    assert len(channel.drain_pending()) == 16


async def test_thread_senders_with_asyncio_receiver() -> None:
    channel = SteeringChannel(capacity=4)
    total = 4 * 50
    received: list[SteeringMessage] = []

    def sender(n: int) -> None:
        for i in range(50):
            while True:
                try:
                    channel.send(FollowUp(f"{n}:{i}"))
                    break
                except ChannelFullError:
                    threading.Event().wait(0.0005)

    threads = [threading.Thread(target=sender, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    while len(received) < total:
        received.extend(channel.drain_pending())
        await asyncio.sleep(0.001)
    for thread in threads:
        thread.join()
    assert len({m.message for m in received if isinstance(m, FollowUp)}) == total


async def test_wait_returns_immediately_when_not_paused() -> None:
    channel = SteeringChannel()
    assert await asyncio.wait_for(channel.wait_until_resumed(), 1) is True


async def test_pause_then_resume_wakes_waiting_task() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    waiter = asyncio.create_task(channel.wait_until_resumed())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    channel.resume()
    assert await asyncio.wait_for(waiter, 1) is True


async def test_cancel_wakes_paused_task() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    waiters = [asyncio.create_task(channel.wait_until_resumed()) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert not any(w.done() for w in waiters)
    channel.send(Cancel("enough"))
    assert await asyncio.wait_for(asyncio.gather(*waiters), 1) == [False, False, False]
    assert await channel.wait_until_resumed() is False


async def test_resume_from_another_thread_wakes_task() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    waiter = asyncio.create_task(channel.wait_until_resumed())
    await asyncio.sleep(0.01)
    thread = threading.Timer(0.02, channel.resume)
    thread.start()
    assert await asyncio.wait_for(waiter, 2) is True
    thread.join()


async def test_cancelled_waiter_is_forgotten() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    waiter = asyncio.create_task(channel.wait_until_resumed())
    await asyncio.sleep(0.01)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert channel._waiters == []
    channel.resume()


async def test_cancel_while_tool_runs_stops_after_the_tool_with_consistent_context() -> None:
    """A miniature loop: drain -> model -> tool; a cancel sent mid-tool ends the run after the tool."""
    channel = SteeringChannel()
    context: list[Message] = [user("fix the bug")]
    tool_started = asyncio.Event()
    steps = 0

    async def tool() -> Message:
        tool_started.set()
        for _ in range(5):  # a tool that does not look at the channel still finishes
            await asyncio.sleep(0.001)
        return result(f"c{steps}")

    async def loop() -> str:
        nonlocal context, steps
        while True:
            outcome = apply_steering(context, channel.drain_pending())
            context = outcome.messages
            if outcome.cancel_requested:
                return outcome.cancel_reason
            if outcome.pause_requested and not await channel.wait_until_resumed():
                return channel.cancel_reason
            steps += 1
            context.append(call(f"c{steps}"))
            context.append(await tool())

    async def user_side() -> None:
        await tool_started.wait()
        channel.send(FollowUp("also update the docs"))
        channel.send(Cancel("user stopped"))

    reason, _ = await asyncio.wait_for(asyncio.gather(loop(), user_side()), 5)
    assert reason == "user stopped"
    assert steps == 1
    assert [m.role for m in context] == ["user", "assistant", "tool", "user"]
    assert context[-1] == user("also update the docs")
    calls = {b.id for m in context for b in m.tool_calls}
    results = {b.call_id for m in context for b in m.tool_results}
    assert calls == results


async def test_pause_in_loop_waits_until_resumed() -> None:
    channel = SteeringChannel()
    channel.send(RequestPause())
    outcome = apply_steering([user()], channel.drain_pending())
    assert outcome.pause_requested
    waiting = asyncio.create_task(channel.wait_until_resumed())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    channel.send(FollowUp("while paused"))
    channel.resume()
    assert await waiting is True
    assert channel.drain_pending() == [FollowUp("while paused")]


# --- apply_steering -----------------------------------------------------------------------------------------------


def test_apply_follow_ups_and_reminders() -> None:
    context = [user("q"), call(), result()]
    outcome = apply_steering(
        context,
        [SystemReminder("tests are slow; run only test_x"), FollowUp("and add a test"), SystemReminder("be brief")],
    )
    out = outcome.messages
    assert out[:3] == context
    assert out[3] == Message(role="user", content=(HintBlock(text="tests are slow; run only test_x"),))
    assert out[4] == Message(role="user", content=(TextBlock(text="and add a test"), HintBlock(text="be brief")))
    assert (outcome.follow_ups, outcome.reminders) == (1, 2)
    assert not outcome.pause_requested
    assert not outcome.cancel_requested


def test_apply_reports_pause_and_first_cancel_reason() -> None:
    outcome = apply_steering([user()], [RequestPause(), Cancel("first"), Cancel("second")])
    assert outcome.messages == [user()]
    assert outcome.pause_requested
    assert outcome.cancel_requested
    assert outcome.cancel_reason == "first"


def test_apply_nothing_is_identity() -> None:
    context = [user()]
    outcome = apply_steering(context, [])
    assert outcome.messages == context
    assert outcome.messages is not context


def test_apply_refuses_to_orphan_tool_calls() -> None:
    with pytest.raises(InputError, match="message 1"):
        apply_steering([user(), call()], [FollowUp("x")])
    with pytest.raises(InputError, match="message 1"):
        apply_steering([user(), call()], [SystemReminder("x")])
    # Pause and cancel append nothing, so they are fine mid tool group.
    assert apply_steering([user(), call()], [Cancel()]).cancel_requested


steering_messages = st.one_of(
    st.builds(FollowUp, st.text(min_size=1).filter(str.strip)),
    st.builds(SystemReminder, st.text(min_size=1).filter(str.strip)),
    st.just(RequestPause()),
    st.builds(Cancel, st.text(max_size=5)),
)


@settings(max_examples=200, deadline=None)
@given(drained=st.lists(steering_messages, max_size=12), tail=st.sampled_from(["user", "tool", "assistant", "none"]))
def test_apply_appends_everything_in_order(drained: list[SteeringMessage], tail: str) -> None:
    contexts = {
        "user": [user()],
        "tool": [user(), call(), result()],
        "assistant": [user(), Message.text_message("assistant", "done")],
        "none": [],
    }
    context = contexts[tail]
    outcome = apply_steering(context, drained)
    out = outcome.messages
    keep = max(len(context) - 1, 0)
    assert out[:keep] == context[:keep]
    blocks = [b for m in out for b in m.content][sum(len(m.content) for m in context) :]
    appended = [b.text if isinstance(b, HintBlock) else "F:" + getattr(b, "text", "?") for b in blocks]
    expected = [
        m.text if isinstance(m, SystemReminder) else "F:" + str(m.message)
        for m in drained
        if isinstance(m, SystemReminder | FollowUp)
    ]
    assert appended == expected
    assert outcome.follow_ups == sum(isinstance(m, FollowUp) for m in drained)
    assert outcome.reminders == sum(isinstance(m, SystemReminder) for m in drained)
    assert outcome.pause_requested is any(isinstance(m, RequestPause) for m in drained)
    assert outcome.cancel_requested is any(isinstance(m, Cancel) for m in drained)


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(st.sampled_from(["send", "drain"]), max_size=60), capacity=st.integers(1, 5))
def test_channel_is_a_bounded_fifo(ops: list[str], capacity: int) -> None:
    channel = SteeringChannel(capacity)
    model: list[SteeringMessage] = []
    out: list[SteeringMessage] = []
    for i, op in enumerate(ops):
        if op == "send":
            accepted = channel.try_send(FollowUp(str(i)))
            assert accepted is (len(model) < capacity)
            if accepted:
                model.append(FollowUp(str(i)))
        else:
            out += channel.drain_pending()
            assert out[len(out) - len(model) :] == model
            model = []
    assert len(channel) == len(model)


# --- README example -----------------------------------------------------------------------------------------------


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_section("Steering a running agent")
    assert capsys.readouterr().out == "stopping: user pressed stop\n"
