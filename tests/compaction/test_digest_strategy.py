from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BudgetError,
    BytesCounter,
    CompactionPlan,
    CompactionStrategy,
    ConfigError,
    ContextConfig,
    ContextOverflowError,
    Message,
    TokenCounter,
    ToolCallBlock,
    count_messages,
)
from contextfold._messages import iter_text
from contextfold.compaction import DigestStrategy, NoCompaction
from contextfold.compaction._boundaries import last_user_index, safe_cuts
from contextfold.compaction._groups import orphan_results, pending_tail, unanswered_calls
from contextfold.compaction._plan import ARCHIVE_REF_TOKENS, as_strategy, summary_message
from conversation_gen import conversations

COUNTER = BytesCounter()
WINDOWS = st.sampled_from([600, 1200, 2500, 5000, 20_000])


def long_conversation(turns: int = 40) -> list[Message]:
    out = [Message.text_message("system", "You are a coding agent.")]
    for i in range(turns):
        out.append(Message.text_message("user", f"step {i}: please check file src/mod{i}.py\nmore detail " * 3))
        out.append(Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name="read_file"),)))
        out.append(Message.text_message("assistant", "ok"))
    return out


def test_plan_shape_header_meta_and_archive_ref() -> None:
    messages = long_conversation()
    plan = DigestStrategy().plan(messages, counter=COUNTER, config=ContextConfig(window=3000))
    assert plan is not None
    assert plan.strategy == "digest"
    assert plan.prefix == (messages[0],)
    assert plan.messages[0] == messages[0]  # the system prompt stays in front
    assert plan.summary.role == "user" and plan.summary.meta["contextfold"] == "summary"
    header = plan.summary.text.splitlines()[0]
    assert header == f"Summary of earlier conversation ({len(plan.compacted)} messages, archived at (archive pending))"
    filled = plan.with_archive_ref("archive/0001.jsonl")
    assert filled.summary.text.splitlines()[0].endswith("archived at archive/0001.jsonl)")
    assert filled.archive_ref == "archive/0001.jsonl" and plan.archive_ref is None
    assert filled.kept == plan.kept and filled.compacted == plan.compacted
    assert plan.tokens_before == count_messages(COUNTER, messages)
    assert plan.tokens_after < plan.tokens_before
    assert plan.details["tiers"]


def test_nothing_to_compact_returns_none() -> None:
    messages = [Message.text_message("system", "prompt"), Message.text_message("user", "hello")]
    assert DigestStrategy().plan(messages, counter=COUNTER, config=ContextConfig(window=100_000)) is None
    assert DigestStrategy().plan([], counter=COUNTER, config=ContextConfig(window=100_000)) is None


def test_system_prompt_over_budget_is_a_clear_error() -> None:
    messages = [Message.text_message("system", "rule " * 2000), Message.text_message("user", "hi")]
    with pytest.raises(ContextOverflowError) as info:
        DigestStrategy().plan(messages, counter=COUNTER, config=ContextConfig(window=1000))
    assert info.value.floor == {"system": count_messages(COUNTER, messages[:1])}
    assert info.value.budget == 666
    assert "system prompt" in str(info.value) and isinstance(info.value, BudgetError)


def test_running_call_too_large_is_a_clear_error() -> None:
    pending = Message(role="assistant", content=(ToolCallBlock(id="a", name="write", arguments="z" * 20_000),))
    messages = [Message.text_message("user", "write it"), pending]
    with pytest.raises(ContextOverflowError) as info:
        DigestStrategy().plan(messages, counter=COUNTER, config=ContextConfig(window=2000))
    assert info.value.floor["current_turn"] == count_messages(COUNTER, [pending])


def test_bad_truncate_chars() -> None:
    with pytest.raises(ConfigError, match="truncate_chars"):
        DigestStrategy(truncate_chars=3)


def test_function_and_noop_strategies() -> None:
    def halve(messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig) -> CompactionPlan | None:
        return DigestStrategy().plan(messages, counter=counter, config=config)

    strategy = as_strategy(halve)
    assert isinstance(strategy, CompactionStrategy) and strategy.name == "halve"
    messages = long_conversation()
    assert strategy.plan(messages, counter=COUNTER, config=ContextConfig(window=3000)) is not None
    digest = DigestStrategy()
    assert as_strategy(digest) is digest
    assert NoCompaction().plan(messages, counter=COUNTER, config=ContextConfig(window=3000)) is None
    bad = as_strategy(lambda messages, **_: "nope")
    with pytest.raises(TypeError, match="not a CompactionPlan"):
        bad.plan(messages, counter=COUNTER, config=ContextConfig(window=3000))
    with pytest.raises(TypeError):
        as_strategy(42)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(messages=conversations(max_turns=10), window=WINDOWS, min_recent=st.integers(0, 8))
def test_invariants_over_generated_conversations(messages: list[Message], window: int, min_recent: int) -> None:
    config = ContextConfig(window=window, min_recent_messages=min_recent)
    try:
        plan = DigestStrategy().plan(messages, counter=COUNTER, config=config)
    except ContextOverflowError as err:
        # Invariant 2 (clear error): only the prompt or the running calls can make it impossible.
        assert set(err.floor) <= {"system", "current_turn"} and err.budget == config.budget
        return
    if plan is None:
        return
    out = plan.messages
    # Nothing lost: prefix + compacted + kept re-forms the input (the split message rejoined).
    assert list(plan.original()) == list(messages)
    assert plan.compacted and plan.messages[: len(plan.prefix)] == plan.prefix
    assert all(m.role == "system" for m in plan.prefix)
    # Invariant 1: pairing holds in what is sent.
    assert orphan_results(out) == []
    tail = pending_tail(out)
    assert all(index == tail for index, _ in unanswered_calls(out))
    assert not plan.kept or plan.kept[0].role != "tool"
    # Invariant 2: fits the budget.
    assert plan.tokens_after <= config.budget
    assert count_messages(COUNTER, plan.with_archive_ref("archive/20250101T000000Z-0001.jsonl").messages) <= (
        config.budget
    )
    # Invariant 4: the latest user turn stays verbatim unless it cannot fit.
    lo = len(plan.prefix)
    user = last_user_index(messages, lo)
    if plan.details["protected"]:
        assert user is not None and messages[user] in plan.kept
        assert list(plan.kept[-(len(messages) - user) :]) == list(messages[user:])
    elif user is not None:
        # Waived only when no safe cut keeping that turn fits what the budget leaves for kept messages.
        counts = [count_messages(COUNTER, (m,)) for m in messages]
        safe = safe_cuts(messages)
        header = summary_message("", count=len(messages), archive_ref=None)
        kept_limit = config.budget - sum(counts[:lo]) - count_messages(COUNTER, [header]) - ARCHIVE_REF_TOKENS
        assert not any(safe[x] and sum(counts[x:]) <= kept_limit for x in range(lo, user + 1))


@settings(max_examples=60, deadline=None)
@given(messages=conversations(), window=WINDOWS)
def test_deterministic(messages: list[Message], window: int) -> None:
    config = ContextConfig(window=window)
    try:
        first = DigestStrategy().plan(messages, counter=COUNTER, config=config)
    except ContextOverflowError:
        return
    copies = [m.replace() for m in messages]  # fresh objects, empty token caches
    second = DigestStrategy().plan(copies, counter=COUNTER, config=config)
    assert (first is None) == (second is None)
    if first is not None and second is not None:
        assert first.messages == second.messages
        assert first.summary.text == second.summary.text
        assert (first.tokens_before, first.tokens_after) == (second.tokens_before, second.tokens_after)


class LumpyCounter:
    """A counter that is not additive: long texts cost more than their parts (like a content-aware estimate)."""

    key = "lumpy"

    def count_text(self, text: str) -> int:
        base = round(len(text.encode("utf-8", "surrogatepass")) / 4)
        return base + base * base // 4000 + text.count("\n\n") * 3

    def count_message(self, message: Message) -> int:
        return sum(self.count_text(t) for t in iter_text(message))


@settings(max_examples=150, deadline=None)
@given(messages=conversations(max_turns=10), window=WINDOWS)
def test_fits_the_budget_with_a_non_additive_counter(messages: list[Message], window: int) -> None:
    """The summary is recounted as assembled (header, digest and ledger); a plan never exceeds the budget."""
    counter = LumpyCounter()
    config = ContextConfig(window=window)
    try:
        plan = DigestStrategy().plan(messages, counter=counter, config=config)
    except ContextOverflowError:
        return
    if plan is None:
        return
    assert plan.tokens_after <= config.budget
    assert count_messages(counter, plan.messages) + ARCHIVE_REF_TOKENS <= config.budget
