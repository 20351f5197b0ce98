"""The `Context` concurrency contract (issue 14, item 1).

Appends from other tasks while a compaction is planned or applied are kept
after the compacted part, in order; ``prepare``/``compact`` are serialized (a
waiting second call decides afresh); a compaction applies fully or not at
all even when its caller is cancelled, repeatedly. The property test drives
random interleavings against a real `LocalWorkspace` and rebuilds the whole
conversation from the archives plus the live context.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    ContextOverflowError,
    HintBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._config import ContextConfig
from contextfold._context import REATTACHED_META_VALUE, Context, Prepared
from contextfold._runtime._hints import FixedClock
from contextfold._tokens._counting import TokenCounter
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold.compaction._boundaries import SUMMARY_META_KEY
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._groups import orphan_results, pending_tail, unanswered_calls
from contextfold.compaction._plan import CompactionPlan, is_summary_message

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
MARK = re.compile(r"\[m(\d+)\]")


class YieldingDigest:
    """A user strategy whose planning awaits (as an LLM summarizer does), then plans like the digest."""

    name = "digest"

    def __init__(self, yields: int) -> None:
        self._yields = yields
        self._digest = DigestStrategy()

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        return self._digest.plan(messages, counter=counter, config=config)

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        for _ in range(self._yields):
            await asyncio.sleep(0)
        return self._digest.plan(messages, counter=counter, config=config)


class GatedWorkspace:
    """An `Offloader` that holds each archive write until released, then writes to a real workspace."""

    def __init__(self, root: Path) -> None:
        self.inner = LocalWorkspace(root, "s")
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        self.started.set()
        await self.release.wait()
        return await self.inner.offload_context(messages, message_range=message_range)

    async def offload_data(self, block: object) -> OffloadRef:  # pragma: no cover - not used here
        raise NotImplementedError

    async def offload_tool_result(
        self, text: str, *, call_id: str, tool_name: str | None
    ) -> OffloadRef:  # pragma: no cover - not used here
        raise NotImplementedError


def filler(n: int, seed: int) -> str:
    words = ["alpha", "src/app.py", "pytest -q", "error:", "ok", "beta", "ünïcode"]
    return " ".join(words[(seed + i) % len(words)] for i in range(n))


@st.composite
def scripts(draw: st.DrawFn) -> list[Message]:
    """A conversation in append order: user turns, parallel tool calls with results (a user may interject
    while tools run), assistant replies. Every message carries a unique marker ``[mN]`` at its start."""
    out: list[Message] = []

    def mark() -> str:
        return f"[m{len(out)}] "

    for turn in range(draw(st.integers(6, 30))):
        out.append(Message.text_message("user", mark() + filler(draw(st.integers(2, 60)), turn)))
        for step in range(draw(st.integers(0, 2))):
            ids = [f"c{turn}_{step}_{j}" for j in range(draw(st.integers(1, 3)))]
            calls = tuple(ToolCallBlock(id=i, name="read_file", arguments='{"path": "src/app.py"}') for i in ids)
            out.append(Message(role="assistant", content=(TextBlock(text=mark() + "reading"), *calls)))
            for j, call_id in enumerate(ids):
                body = mark() + filler(draw(st.integers(1, 120)), j)
                result = ToolResultBlock(call_id=call_id, name="read_file", content=(TextBlock(text=body),))
                out.append(Message(role="tool", content=(result,)))
                if j < len(ids) - 1 and draw(st.integers(0, 4)) == 0:
                    out.append(Message.text_message("user", mark() + "also check the tests"))
        out.append(Message.text_message("assistant", mark() + filler(draw(st.integers(1, 40)), turn)))
    return out


OPS = st.one_of(
    st.tuples(st.just("append"), st.integers(1, 8)),
    st.tuples(st.just("prepare"), st.booleans()),
    st.tuples(st.just("compact"), st.just(0)),
    st.tuples(st.just("cancel"), st.integers(0, 3)),
    st.tuples(st.just("cancel_twice"), st.integers(0, 3)),
    st.tuples(st.just("spin"), st.integers(1, 8)),
)


def marker(message: Message) -> int | None:
    """The marker of the appended message this one is (or starts), if any."""
    for block in message.content:
        texts = [block.text] if isinstance(block, TextBlock) else []
        if isinstance(block, ToolResultBlock):
            texts = [b.text for b in block.content if isinstance(b, TextBlock)]
        for text in texts:
            found = MARK.match(text)
            if found:
                return int(found.group(1))
    return None


def without_hints(message: Message) -> Message:
    content = tuple(b for b in message.content if not isinstance(b, HintBlock))
    return message if len(content) == len(message.content) else message.replace(content=content)


def is_ours(message: Message) -> bool:
    """A message contextfold wrote: a summary, a re-attachment, a hint-only turn, or the system prompt."""
    return (
        message.role == "system"
        or is_summary_message(message)
        or message.meta.get(SUMMARY_META_KEY) == REATTACHED_META_VALUE
        or all(isinstance(b, HintBlock) for b in message.content)
    )


def rebuild(archives: Sequence[Sequence[Message]], live: Sequence[Message]) -> list[tuple[int, list[Message]]]:
    """Appended messages as found: (marker, pieces). A piece without a marker is the kept tail of a split."""
    found: list[tuple[int, list[Message]]] = []
    for message in [m for archive in archives for m in archive] + list(live):
        if is_ours(message):
            continue
        number = marker(message)
        if number is None:
            assert found, f"a message with no marker and nothing before it: {message!r}"
            found[-1][1].append(message)
        else:
            found.append((number, [without_hints(message)]))
    return found


def check_pairing(messages: Sequence[Message]) -> None:
    assert not orphan_results(messages), orphan_results(messages)
    pending = pending_tail(messages)
    for index, _call in unanswered_calls(messages):
        assert index == pending, f"call at {index} has no result and is not the live tail"


def check_complete(ctx: Context, workspace: LocalWorkspace, appended: Sequence[Message]) -> None:
    archives = [workspace.read_messages(ref) for ref in workspace.items() if ref.kind == "context"]
    assert len(archives) == ctx.compactions  # each apply wrote exactly one archive, and every archive was applied
    found = rebuild(archives, ctx.messages)
    assert [n for n, _ in found] == [marker(m) for m in appended]  # every message exactly once, in order
    for (_, pieces), original in zip(found, appended, strict=True):
        if len(pieces) == 1:
            assert pieces[0] == original  # byte for byte (a split message is checked by its marker)
    check_pairing(ctx.messages)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(
    script=scripts(),
    ops=st.lists(OPS, min_size=1, max_size=60),
    window=st.sampled_from([1200, 2000, 3000]),
    yields=st.sampled_from([0, 1, 3]),
    hints=st.booleans(),
)
async def test_interleaved_appends_prepares_compacts_and_cancels_lose_nothing(
    tmp_path: Path, script: list[Message], ops: list[tuple[str, int]], window: int, yields: int, hints: bool
) -> None:
    workspace = LocalWorkspace(tempfile.mkdtemp(dir=tmp_path), "s")
    ctx = Context(
        ContextConfig(window=window),
        counter=BytesCounter(),
        system="You are a careful agent.",
        strategy=YieldingDigest(yields) if yields else None,
        workspace=workspace,
        clock=CLOCK,
        hints=None if hints else False,
    )
    appended: list[Message] = []
    tasks: list[asyncio.Task[object]] = []

    def append(count: int) -> None:
        for _ in range(count):
            if len(appended) < len(script):
                ctx.append(script[len(appended)])
                appended.append(script[len(appended)])

    for op, arg in ops:
        live = [t for t in tasks if not t.done()]
        if op == "append":
            append(arg)
        elif op == "prepare":
            tasks.append(asyncio.ensure_future(ctx.prepare(first_call_of_reply=arg)))
        elif op == "compact":
            tasks.append(asyncio.ensure_future(ctx.compact()))
        elif op in ("cancel", "cancel_twice") and live:
            task = live[arg % len(live)]
            task.cancel()
            await asyncio.sleep(0)
            if op == "cancel_twice":
                task.cancel()
        else:
            for _ in range(arg):
                await asyncio.sleep(0)
    append(len(script))  # the rest arrives while whatever is still running runs
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    with contextlib.suppress(ContextOverflowError):
        outcomes.append(await ctx.prepare())  # also waits for an apply a twice-cancelled caller left running
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            # Cancelled, or a floor over the budget (a long current turn at a small window): nothing else.
            assert isinstance(outcome, asyncio.CancelledError | ContextOverflowError), repr(outcome)
        elif isinstance(outcome, Prepared):
            check_pairing(outcome.messages)
    check_complete(ctx, workspace, appended)


def long_history(ctx: Context, count: int = 40, start: int = 0) -> list[Message]:
    messages = [
        Message.text_message("user" if i % 2 == 0 else "assistant", f"[m{i}] " + "x" * 400)
        for i in range(start, start + count)
    ]
    ctx.extend(messages)
    return messages


async def test_a_message_appended_by_another_task_during_prepare_is_kept(tmp_path: Path) -> None:
    """The issue's reproduction: a UI task appends while prepare() archives."""
    workspace = LocalWorkspace(tmp_path, "s")
    ctx = Context(window=2000, workspace=workspace, hints=False)
    appended = long_history(ctx)
    follow_up = Message.text_message("user", f"[m{len(appended)}] follow-up: do not lose me")

    async def ui() -> None:
        await asyncio.sleep(0)
        ctx.append(follow_up)
        appended.append(follow_up)

    prepared, _ = await asyncio.gather(ctx.prepare(), ui())
    assert prepared.compaction is not None
    assert ctx.messages[-1] == follow_up and prepared.messages[-1] == follow_up
    check_complete(ctx, workspace, appended)


async def test_cancelled_twice_the_apply_still_keeps_later_appends(tmp_path: Path) -> None:
    """A second cancel ends prepare() while the archive is written; what is appended next survives the swap."""
    workspace = GatedWorkspace(tmp_path)
    ctx = Context(ContextConfig(window=2000), counter=BytesCounter(), workspace=workspace, hints=False)
    appended = long_history(ctx)
    task = asyncio.ensure_future(ctx.prepare())
    await workspace.started.wait()
    task.cancel()
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ctx.compactions == 0  # the apply is still waiting for its archive
    # The agent goes on: a tool call and its result arrive before the apply finishes.
    call = Message(
        role="assistant",
        content=(TextBlock(text=f"[m{len(appended)}] reading"), ToolCallBlock(id="c1", name="read", arguments="{}")),
    )
    ctx.append(call)
    appended.append(call)
    result = Message(
        role="tool",
        content=(ToolResultBlock(call_id="c1", content=(TextBlock(text=f"[m{len(appended)}] contents"),)),),
    )
    ctx.append(result)
    appended.append(result)
    workspace.release.set()
    prepared = await ctx.prepare()  # waits for the left-over apply, then decides afresh
    assert ctx.compactions == 1
    assert prepared.messages[-2:] == (call, result)
    check_complete(ctx, workspace.inner, appended)


async def test_concurrent_prepares_archive_each_message_once(tmp_path: Path) -> None:
    workspace = LocalWorkspace(tmp_path, "s")
    ctx = Context(ContextConfig(window=2000), counter=BytesCounter(), workspace=workspace, hints=False)
    appended = long_history(ctx)
    first, second = await asyncio.gather(ctx.prepare(), ctx.prepare())
    assert first.compaction is not None
    assert second.compaction is None  # the second re-checked the trigger on the compacted context
    assert ctx.compactions == 1
    check_complete(ctx, workspace, appended)


async def test_appends_during_an_awaiting_strategy_are_kept(tmp_path: Path) -> None:
    workspace = LocalWorkspace(tmp_path, "s")
    ctx = Context(
        ContextConfig(window=2000),
        counter=BytesCounter(),
        workspace=workspace,
        hints=False,
        strategy=YieldingDigest(5),
    )
    appended = long_history(ctx)
    task = asyncio.ensure_future(ctx.compact())
    for i in range(3):
        await asyncio.sleep(0)
        message = Message.text_message("user" if i % 2 == 0 else "assistant", f"[m{len(appended)}] later {i}")
        ctx.append(message)
        appended.append(message)
    report = await task
    assert report is not None
    assert ctx.messages[-3:] == tuple(appended[-3:])
    check_complete(ctx, workspace, appended)


async def test_a_failed_apply_left_by_a_cancelled_caller_changes_nothing(tmp_path: Path) -> None:
    """The background apply fails (the archive cannot be written): the context stays whole, no warning leaks."""

    class Failing(GatedWorkspace):
        async def offload_context(
            self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
        ) -> OffloadRef:
            self.started.set()
            await self.release.wait()
            from contextfold import WorkspaceError

            raise WorkspaceError("disk full")

    workspace = Failing(tmp_path)
    ctx = Context(ContextConfig(window=2000), counter=BytesCounter(), workspace=workspace, hints=False)
    appended = long_history(ctx)
    task = asyncio.ensure_future(ctx.compact())
    await workspace.started.wait()
    task.cancel()
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    extra = Message.text_message("user", "[m40] still here")
    ctx.append(extra)
    appended.append(extra)
    workspace.release.set()
    await asyncio.sleep(0.01)
    assert ctx.compactions == 0
    assert list(ctx.messages) == appended


def test_a_session_can_be_driven_by_successive_event_loops() -> None:
    """The lock belongs to a loop: `asyncio.run` per call (a sync wrapper) must keep working."""
    ctx = Context(ContextConfig(window=2000), counter=BytesCounter(), hints=False)
    appended = long_history(ctx)

    async def both() -> None:
        await asyncio.gather(ctx.prepare(), ctx.prepare())  # contended: binds the lock to this loop

    asyncio.run(both())
    asyncio.run(both())
    assert ctx.compactions >= 1
    live = [marker(m) for m in ctx.messages if not is_ours(m)]
    assert live == [marker(m) for m in appended][len(appended) - len(live) :]
