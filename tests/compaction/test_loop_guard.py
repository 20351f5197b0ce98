"""The loop guard: no compaction that does not pay off; a typed error naming the irreducible floor."""

import pytest

from contextfold import (
    BytesCounter,
    CompactionPlan,
    Context,
    ContextConfig,
    ContextOverflowError,
    Message,
    ToolCallBlock,
    ToolSpec,
)
from contextfold.strategies import LoopGuard, TieredCompaction

C = BytesCounter()


async def test_irreducible_floor_raises_with_its_parts() -> None:
    tools = [ToolSpec(name="big", description="d" * 2000)]
    ctx = Context(ContextConfig(window=2000), counter=C, system="s" * 2000, tools=tools, hints=False)
    ctx.pin("Never delete the production database.")
    ctx.append(Message.text_message("user", "current question"))
    # a running tool call is the live end of the conversation: it can be neither compacted nor split
    ctx.append(
        Message(
            role="assistant", content=(ToolCallBlock(id="c", name="write", arguments='{"t": "' + "q" * 3600 + '"}'),)
        )
    )
    with pytest.raises(ContextOverflowError) as info:
        await ctx.prepare()
    floor = info.value.floor
    assert set(floor) == {"system", "tools", "pinned", "current_turn"}
    assert floor["system"] >= 500 and floor["tools"] >= 500 and floor["pinned"] > 0 and floor["current_turn"] >= 750
    assert "system prompt" in str(info.value) and "current turn" in str(info.value)


async def test_a_compaction_that_reclaims_too_little_is_refused_and_runs_once() -> None:
    calls = 0

    def stingy(messages, *, counter, config):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        from contextfold.compaction._boundaries import Boundary

        lo = 1
        boundary = Boundary(lo=lo, cut=lo + 1, split=None, kept_tokens=0, protected=False)
        return CompactionPlan.build(
            strategy="stingy", messages=messages, boundary=boundary, summary_text="", counter=counter
        )

    ctx = Context(ContextConfig(window=1000), counter=C, system="sys", strategy=stingy, hints=False)
    ctx.append(Message.text_message("user", "x" * 8))
    for _ in range(10):
        ctx.append(Message.text_message("assistant", "y" * 400))
        ctx.append(Message.text_message("user", "z" * 40))
    before = ctx.messages
    with pytest.raises(ContextOverflowError):
        await ctx.prepare()
    assert ctx.messages == before and ctx.compactions == 0
    assert calls == 2  # the plan and its reserve-0 retry: one automatic compaction attempt per call


def test_guard_rules() -> None:
    config = ContextConfig(window=10_000)
    guard = LoopGuard(min_reclaim_ratio=0.1, margin_ratio=0.05)
    assert guard.limit(config) == 7500
    assert guard.accepts(9000, 7000, config)
    assert not guard.accepts(9000, 7600, config)  # not below trigger by the margin
    assert not guard.accepts(7400, 7000, config)  # reclaimed too little
    with pytest.raises(ValueError):
        LoopGuard(margin_ratio=1.5)


async def test_tiered_escalates_past_tiers_that_fall_short() -> None:
    ctx = Context(ContextConfig(window=3000), counter=C, system="sys", hints=False, strategy=TieredCompaction())
    ctx.append(Message.text_message("user", "start"))
    for i in range(30):
        ctx.append(Message.text_message("assistant", f"step {i} " + "w" * 400))
        ctx.append(Message.text_message("user", f"ok {i}"))
    prepared = await ctx.prepare()
    assert prepared.compaction is not None
    runs = prepared.compaction.tier_runs
    assert [r["applied"] for r in runs] == [False, False, True]  # nothing to clear: straight to the digest
    assert prepared.tokens <= ctx.loop_guard.limit(ctx.config)
