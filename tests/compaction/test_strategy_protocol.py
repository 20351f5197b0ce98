"""The strategy protocol: ``plan`` required, ``aplan`` optional, one dispatch (`plan_async`); one boundary search."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import Context, ContextConfig, Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._tokens._counting import BytesCounter, TokenCounter
from contextfold.compaction import (
    AsyncCompactionStrategy,
    CompactionPlan,
    CompactionStrategy,
    DigestStrategy,
    StructuredStrategy,
    TieredCompaction,
    plan_async,
)
from contextfold.compaction._boundaries import leading_system_count
from contextfold.compaction._digest_strategy import SummaryCut
from contextfold.compaction._plan import FunctionStrategy, as_strategy
from contextfold.compaction._summary import SUMMARY_FIELDS, StructuredSummarizer
from contextfold.testing import ScriptedSummaryModel
from conversation_gen import conversations

COUNTER = BytesCounter()
CONFIG = ContextConfig(window=2000)
GOOD = {f: f"value of {f}" for f in SUMMARY_FIELDS}


def session(n: int = 30) -> list[Message]:
    out = [Message.text_message("system", "You are an agent.")]
    for i in range(n):
        out.append(Message.text_message("user", f"step {i}: look at src/m{i}.py " + "x" * 200))
        out.append(Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name="bash", arguments="{}"),)))
        result = ToolResultBlock(call_id=f"c{i}", name="bash", content=(TextBlock(text="ok " * 50),))
        out.append(Message(role="tool", content=(result,)))
    return out


class OnlyPlan:
    """A third-party strategy written before ``aplan``: a name and ``plan``, nothing else."""

    name = "only-plan"

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        return DigestStrategy().plan(messages, counter=counter, config=config)


class BothWays:
    """A strategy whose async answer differs from its sync one, to see which one is used."""

    name = "both"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        self.calls.append("plan")
        return None

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        self.calls.append("aplan")
        await asyncio.sleep(0)
        return DigestStrategy().plan(messages, counter=counter, config=config)


async def test_plan_async_awaits_aplan_when_there_is_one_and_calls_plan_otherwise() -> None:
    messages = session()
    both = BothWays()
    assert isinstance(both, AsyncCompactionStrategy) and isinstance(both, CompactionStrategy)
    assert await plan_async(both, messages, counter=COUNTER, config=CONFIG) is not None
    assert both.calls == ["aplan"]
    only = OnlyPlan()
    assert isinstance(only, CompactionStrategy) and not isinstance(only, AsyncCompactionStrategy)
    assert await plan_async(only, messages, counter=COUNTER, config=CONFIG) is not None


async def test_the_context_and_the_tiers_plan_through_the_one_dispatch() -> None:
    for strategy, seen in ((BothWays(), ["aplan"]), (TieredCompaction([BothWays()]), ["aplan"])):
        ctx = Context(CONFIG, counter=COUNTER, strategy=strategy, hints=False)
        ctx.extend(session())
        assert await ctx.compact() is not None
        inner = strategy if isinstance(strategy, BothWays) else strategy.tiers[0]
        assert isinstance(inner, BothWays)
        assert inner.calls[:1] == seen
    ctx = Context(CONFIG, counter=COUNTER, strategy=OnlyPlan(), hints=False)
    ctx.extend(session())
    report = await ctx.compact()
    assert report is not None and report.strategy == "digest"


async def test_plain_and_async_functions_are_strategies() -> None:
    def halve(messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig) -> CompactionPlan | None:
        return DigestStrategy().plan(messages, counter=counter, config=config)

    async def ahalve(
        messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        await asyncio.sleep(0)
        return halve(messages, counter=counter, config=config)

    for fn in (halve, ahalve):
        ctx = Context(CONFIG, counter=COUNTER, strategy=fn, hints=False)
        ctx.extend(session())
        report = await ctx.compact()
        assert report is not None and report.messages_compacted > 0, fn.__name__
    strategy = as_strategy(ahalve)
    assert isinstance(strategy, FunctionStrategy) and strategy.name == "ahalve"
    with pytest.raises(TypeError, match="is async: plan with plan_async"):
        strategy.plan(session(), counter=COUNTER, config=CONFIG)

    async def wrong(messages: Sequence[Message], **_: object) -> str:
        return "nope"

    with pytest.raises(TypeError, match="returned str, not a CompactionPlan"):
        await plan_async(as_strategy(wrong), session(), counter=COUNTER, config=CONFIG)  # type: ignore[arg-type]


# -- one boundary search --------------------------------------------------------------------------------------------


class CountingDigest(DigestStrategy):
    """The digest fallback, counting the digests it builds."""

    def __init__(self) -> None:
        super().__init__()
        self.digests = 0

    def plan_at(
        self, messages: Sequence[Message], cut: SummaryCut, *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan:
        self.digests += 1
        return super().plan_at(messages, cut, counter=counter, config=config)


async def test_the_structured_strategy_cuts_where_the_digest_cuts_without_building_a_digest() -> None:
    messages = session()
    fallback = CountingDigest()
    summarizer = StructuredSummarizer(ScriptedSummaryModel([GOOD]), counter=COUNTER)
    strategy = StructuredStrategy(summarizer, fallback=fallback)
    plan = await strategy.aplan(messages, counter=COUNTER, config=CONFIG)
    digest = DigestStrategy().plan(messages, counter=COUNTER, config=CONFIG)
    assert plan is not None and digest is not None
    assert plan.strategy == "structured" and "fallback" not in plan.details
    assert plan.boundary == digest.boundary and plan.compacted == digest.compacted
    assert fallback.digests == 0  # the cut came from the boundary search alone
    failing = StructuredStrategy(
        StructuredSummarizer(ScriptedSummaryModel([ConnectionError("down")]), counter=COUNTER), fallback=fallback
    )
    fell_back = await failing.aplan(messages, counter=COUNTER, config=CONFIG)
    assert fell_back is not None and fell_back.strategy == "digest" and "down" in fell_back.details["fallback"]
    assert fell_back.summary_text == digest.summary_text
    assert fallback.digests == 1


@settings(max_examples=60, deadline=None)
@given(conversations(max_turns=8), st.sampled_from([600, 1200, 2500, 5000]))
def test_the_digest_plan_is_its_cut_plus_its_digest(messages: list[Message], window: int) -> None:
    config = ContextConfig(window=window)
    strategy = DigestStrategy()
    try:
        plan = strategy.plan(messages, counter=COUNTER, config=config)
    except Exception as exc:  # the floor does not fit: the cut says so the same way
        with pytest.raises(type(exc)):
            strategy.cut(messages, counter=COUNTER, config=config)
        return
    cut = strategy.cut(messages, counter=COUNTER, config=config)
    assert (plan is None) == (cut is None)
    if plan is not None and cut is not None:
        assert plan.boundary == cut.boundary
        assert plan.compacted == cut.boundary.compacted(messages)
        assert cut.boundary.lo == leading_system_count(messages)
        assert strategy.plan_at(messages, cut, counter=COUNTER, config=config).summary_text == plan.summary_text


def test_leading_system_count_is_the_prompt_and_still_importable_where_it_was() -> None:
    from contextfold.compaction._digest_strategy import leading_system_count as old

    assert old is leading_system_count
    system = Message.text_message("system", "s")
    user = Message.text_message("user", "u")
    assert leading_system_count([]) == 0
    assert leading_system_count([system, system, user, system]) == 2
    assert leading_system_count([user, system]) == 0
