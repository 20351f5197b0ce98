import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    ConfigError,
    Context,
    ContextConfig,
    ContextEvent,
    InputError,
    LocalWorkspace,
    Message,
    ReadCache,
    StructuredSummarizer,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    WorkspaceError,
)
from contextfold.compaction import StructuredStrategy
from contextfold.compaction._groups import orphan_results, unanswered_calls
from contextfold.compaction._summary import SUMMARY_FIELDS
from contextfold.testing import FixedClock, ScriptedSummaryModel
from conversation_gen import conversations

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))


def step(i: int, size: int = 400) -> list[Message]:
    return [
        Message.text_message("user", f"task {i}: please look at src/mod{i}.py"),
        Message(
            role="assistant",
            content=(ToolCallBlock(id=f"c{i}", name="read_file", arguments=f'{{"path": "src/mod{i}.py"}}'),),
        ),
        Message(
            role="tool",
            content=(ToolResultBlock(call_id=f"c{i}", name="read_file", content=(TextBlock(text="x" * size),)),),
        ),
        Message.text_message("assistant", f"done with {i}"),
    ]


def make(window: int = 2500, **kw: object) -> Context:
    kw.setdefault("counter", BytesCounter())
    kw.setdefault("clock", CLOCK)
    return Context(ContextConfig(window=window), system="You are a careful agent.", **kw)  # type: ignore[arg-type]


def test_needs_a_window() -> None:
    with pytest.raises(ConfigError, match="window"):
        Context()
    with pytest.raises(ConfigError, match="disagrees"):
        Context(ContextConfig(window=100), window=200)


async def test_no_compaction_below_trigger_and_tokens_are_incremental() -> None:
    ctx = make(window=100_000, hints=False)
    for i in range(5):
        ctx.extend(step(i))
    total = ctx.tokens
    assert total == sum(BytesCounter().count_message(m) for m in ctx.messages)
    prepared = await ctx.prepare()
    assert prepared.compaction is None and prepared.hint is None
    assert prepared.messages == ctx.messages


async def test_compaction_fires_over_trigger_keeps_pairs_and_archives(tmp_path: Path) -> None:
    events: list[ContextEvent] = []
    ws = LocalWorkspace(tmp_path, "s1")
    ctx = make(workspace=ws, on_event=events.append, hints=False)
    originals: list[Message] = []
    for i in range(20):
        msgs = step(i)
        originals.extend(msgs)
        ctx.extend(msgs)
    before = ctx.tokens
    assert before > ctx.config.trigger_tokens
    prepared = await ctx.prepare()
    report = prepared.compaction
    assert report is not None and report.strategy == "digest"
    assert report.tokens_before == before and report.tokens_after < ctx.config.trigger_tokens
    assert prepared.tokens <= ctx.config.budget + 64
    assert not orphan_results(list(prepared.messages)) and not unanswered_calls(list(prepared.messages))
    assert prepared.messages[0].role == "system"
    assert report.archive is not None and report.archive.path in prepared.messages[1].text
    archived = ws.read_messages(report.archive)
    assert archived == originals[: len(archived)]  # byte-for-byte the originals, in order
    assert [e.kind for e in events] == ["compaction"]
    assert ctx.compactions == 1


async def test_latest_user_turn_is_kept_verbatim() -> None:
    ctx = make(hints=False)
    for i in range(20):
        ctx.extend(step(i))
    last_user = Message.text_message("user", "final question about src/mod19.py")
    ctx.append(last_user)
    prepared = await ctx.prepare()
    assert prepared.messages[-1] == last_user


async def test_workspace_failure_leaves_context_unchanged(tmp_path: Path) -> None:
    class Broken(LocalWorkspace):
        async def offload_context(self, messages, *, message_range=None):  # type: ignore[no-untyped-def,override]
            raise WorkspaceError("disk full")

    ctx = make(workspace=Broken(tmp_path, "s"), hints=False)
    for i in range(20):
        ctx.extend(step(i))
    snapshot, tokens = ctx.messages, ctx.tokens
    with pytest.raises(WorkspaceError):
        await ctx.prepare()
    assert ctx.messages == snapshot and ctx.tokens == tokens and ctx.compactions == 0


async def test_cancel_during_archive_finishes_the_apply(tmp_path: Path) -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    class Slow(LocalWorkspace):
        async def offload_context(self, messages, *, message_range=None):  # type: ignore[no-untyped-def,override]
            started.set()
            await release.wait()
            return await super().offload_context(messages, message_range=message_range)

    ctx = make(workspace=Slow(tmp_path, "s"), hints=False)
    for i in range(20):
        ctx.extend(step(i))
    before = ctx.messages
    task = asyncio.create_task(ctx.compact())
    await started.wait()
    task.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Fully applied, not torn: archive written and state swapped together.
    assert ctx.compactions == 1
    assert len(ctx.messages) < len(before)
    assert len(LocalWorkspace(tmp_path, "s").items()) == 1


async def test_read_cache_records_of_compacted_messages_are_cleared() -> None:
    cache = ReadCache()
    ctx = make(read_cache=cache, hints=False)
    msgs = step(0)
    ctx.extend(msgs)
    cache.record("src/mod0.py", 1.0, msgs[2])
    for i in range(1, 20):
        ctx.extend(step(i))
    await ctx.prepare()
    assert not cache.is_fresh("src/mod0.py", 1.0)


async def test_hints_are_injected_after_compaction_and_not_repeated() -> None:
    ctx = make()
    ctx.append(Message.text_message("user", "start"))
    first = await ctx.prepare()
    assert first.hint is not None and "2026-11-30" in first.hint.text
    ctx.append(Message.text_message("assistant", "ok"))
    ctx.append(Message.text_message("user", "next"))
    second = await ctx.prepare()
    assert second.hint is None  # the time is already in context and fresh
    for i in range(20):
        ctx.extend(step(i))
    third = await ctx.prepare()
    assert third.compaction is not None
    assert third.hint is not None  # compaction wiped the old time hint


async def test_cache_report_prefix_is_stable_between_compactions() -> None:
    events: list[ContextEvent] = []
    ctx = make(window=100_000, hints=False, on_event=events.append)
    ctx.extend(step(0))
    p1 = await ctx.prepare()
    ctx.extend(step(1))
    p2 = await ctx.prepare()
    assert p2.cache.unchanged_messages == len(p1.messages)
    assert p2.cache.share == 1.0
    assert not [e for e in events if e.kind == "cache_warning"]


async def test_record_usage_anchors_the_estimate() -> None:
    ctx = make(window=100_000, hints=False)
    ctx.extend(step(0))
    await ctx.prepare()
    ctx.record_usage(5000)
    extra = Message.text_message("user", "y" * 400)
    ctx.append(extra)
    assert ctx.tokens == 5000 + 100


async def test_structured_strategy_summary_and_fallback() -> None:
    good = {f: f"{f} about src/mod1.py" for f in SUMMARY_FIELDS}
    model = ScriptedSummaryModel([good, RuntimeError("boom")])
    strategy = StructuredStrategy(StructuredSummarizer(model, counter=BytesCounter()))
    ctx = make(strategy=strategy, hints=False)
    for i in range(20):
        ctx.extend(step(i))
    r1 = await ctx.compact()
    assert r1 is not None and r1.strategy == "structured" and r1.fallback is None
    assert "## Task overview" in ctx.messages[1].text
    for i in range(20, 40):
        ctx.extend(step(i))
    r2 = await ctx.compact()
    assert r2 is not None and r2.strategy == "digest" and r2.fallback and "boom" in r2.fallback


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(convo=conversations(max_turns=10), window=st.sampled_from([600, 1200, 3000]))
async def test_prepare_always_yields_valid_pairing_within_budget(convo: list[Message], window: int) -> None:
    ctx = Context(ContextConfig(window=window), counter=BytesCounter(), hints=False)
    for m in convo:
        ctx.append(m)
    try:
        prepared = await ctx.prepare()
    except Exception as exc:  # the only acceptable failure is a clear budget error
        from contextfold import BudgetError

        assert isinstance(exc, BudgetError)
        return
    msgs = list(prepared.messages)
    assert not orphan_results(msgs)
    if prepared.compaction is not None:
        assert prepared.tokens <= ctx.config.trigger_tokens or prepared.compaction.tokens_after > 0


async def test_hint_cannot_push_the_request_over_the_trigger() -> None:
    ctx = make(window=4000)
    trigger = ctx.config.trigger_tokens
    # Fill to just under the trigger: the time hint (first call) would push it over.
    ctx.append(Message.text_message("user", "a" * 4 * (trigger - ctx.tokens - 30)))
    assert ctx.tokens <= trigger
    prepared = await ctx.prepare()
    assert prepared.hint is not None
    assert prepared.tokens <= trigger
    assert prepared.compaction is not None


async def test_hint_scan_is_incremental_and_follows_compaction() -> None:
    clock = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    ctx = make(window=100_000, clock=clock)
    ctx.append(Message.text_message("user", "start"))
    assert (await ctx.prepare()).hint is not None
    for i in range(50):
        ctx.extend(step(i))
        assert (await ctx.prepare()).hint is None  # the fixed clock has not moved: no new time hint
    clock.advance(minutes=31)
    ctx.append(Message.text_message("user", "later"))
    assert (await ctx.prepare()).hint is not None


def test_orphan_tool_result_is_refused_on_append() -> None:
    ctx = make(hints=False)
    ctx.append(Message.text_message("user", "hi"))
    orphan = Message(role="tool", content=(ToolResultBlock(call_id="nope", content=(TextBlock(text="x"),)),))
    before = ctx.messages
    with pytest.raises(InputError, match="'nope' has no matching tool call") as info:
        ctx.append(orphan)
    assert info.value.message_index == 2
    assert ctx.messages == before
    ctx.extend(step(0))  # a result after its call is fine
