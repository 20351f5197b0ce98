from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    count_messages,
)
from contextfold.compaction._boundaries import (
    Boundary,
    ThinkingRule,
    ToolPairingRule,
    find_boundary,
    is_real_user,
    last_user_index,
    reserve_cut,
    safe_cuts,
    split_message,
)
from contextfold.compaction._groups import orphan_results, pending_tail, unanswered_calls
from conversation_gen import conversations

COUNTER = BytesCounter()


def counts(messages: list[Message]) -> list[int]:
    return [count_messages(COUNTER, (m,)) for m in messages]


def kept_part(messages: list[Message], boundary: Boundary) -> list[Message]:
    head = [boundary.split.tail] if boundary.split else []
    return [*messages[: boundary.lo], *head, *messages[boundary.cut :]]


def test_reserve_cut_walks_from_the_tail() -> None:
    assert reserve_cut([10, 10, 10, 10], 15) == 2
    assert reserve_cut([10, 10, 10, 10], 20) == 2
    assert reserve_cut([10, 10, 10, 10], 21) == 1
    assert reserve_cut([10, 10, 10, 10], 1000) == 0
    assert reserve_cut([10, 10, 10, 10], 1000, lo=1) == 1
    assert reserve_cut([10, 10], 0) == 2


def test_pairing_rule_forbids_cuts_inside_a_group_and_before_a_tool_message() -> None:
    messages = [
        Message.text_message("user", "go"),
        Message(role="assistant", content=(ToolCallBlock(id="a", name="x"), ToolCallBlock(id="b", name="y"))),
        Message(role="tool", content=(ToolResultBlock(call_id="a"),)),
        Message.text_message("user", "meanwhile"),
        Message(role="tool", content=(ToolResultBlock(call_id="b"),)),
        Message.text_message("assistant", "done"),
    ]
    assert ToolPairingRule().safe_cuts(messages) == [True, True, False, False, False, True, True]
    assert safe_cuts(messages) == [True, True, False, False, False, True, True]
    assert not ToolPairingRule().may_split(messages[2])
    assert ToolPairingRule().may_split(messages[1])


def test_thinking_rule_never_splits_a_thinking_turn() -> None:
    signed = Message(role="assistant", content=(ThinkingBlock(thinking="hm", signature="s"), TextBlock(text="x")))
    assert not ThinkingRule().may_split(signed)
    assert ThinkingRule().may_split(Message.text_message("assistant", "plain"))
    assert all(ThinkingRule().safe_cuts([signed, signed]))


def test_real_user_excludes_hints_and_summaries() -> None:
    hint = Message(role="user", content=(HintBlock(text="time"),))
    summary = Message(role="user", content=(TextBlock(text="Summary"),), meta={"contextfold": "summary"})
    user = Message.text_message("user", "hello")
    assert is_real_user(user)
    assert not is_real_user(hint)
    assert not is_real_user(summary)
    assert last_user_index([user, hint, summary]) == 0
    assert last_user_index([user, hint], lo=1) is None


def test_split_text_by_token_ratio_and_rejoin() -> None:
    text = " ".join(f"word{i}" for i in range(400))
    message = Message(role="user", content=(TextBlock(text="first block"), TextBlock(text=text)))
    split = split_message(message, 200, COUNTER)
    assert split is not None and split.text_cut
    tail_tokens = count_messages(COUNTER, (split.tail,))
    assert 150 <= tail_tokens <= 201
    assert split.head.content[0] == TextBlock(text="first block")
    tail_text = split.tail.content[0]
    assert isinstance(tail_text, TextBlock) and tail_text.text.startswith("word")  # snapped to a word
    assert split.rejoin() == message


def test_split_assistant_keeps_every_tool_call_in_the_tail() -> None:
    calls = tuple(ToolCallBlock(id=f"c{i}", name="bash", arguments='{"cmd": "ls"}') for i in range(3))
    message = Message(role="assistant", content=(TextBlock(text="x " * 2000), TextBlock(text="y " * 50), *calls))
    split = split_message(message, 40, COUNTER)
    assert split is not None
    assert split.tail.tool_calls == calls
    assert split.head.tool_calls == ()
    assert split.rejoin() == message


def test_no_split_when_nothing_would_remain_on_one_side() -> None:
    assert split_message(Message.text_message("user", "short"), 1000, COUNTER) is None
    only_calls = Message(role="assistant", content=(ToolCallBlock(id="a", name="x"),))
    assert split_message(only_calls, 0, COUNTER) is None


def test_large_older_message_is_split_to_meet_the_reserve() -> None:
    big = Message.text_message("assistant", "\n".join(f"line {i} of a long analysis" for i in range(2000)))
    messages = [
        Message.text_message("system", "prompt"),
        Message.text_message("user", "analyse"),
        big,
        Message.text_message("user", "thanks, now summarise"),
    ]
    c = counts(messages)
    boundary = find_boundary(
        messages, c, counter=COUNTER, lo=1, reserve_tokens=2000, min_recent=1, recent_cap=3000, kept_limit=6000
    )
    assert boundary is not None and boundary.protected
    assert boundary.cut == 3 and boundary.split is not None and boundary.split.index == 2
    assert 1000 < boundary.kept_tokens <= 3000
    assert boundary.split.rejoin() == big


def test_latest_user_turn_is_kept_even_above_the_recent_cap() -> None:
    messages = [Message.text_message("user", "old " * 400), Message.text_message("user", "new " * 400)]
    boundary = find_boundary(
        messages, counts(messages), counter=COUNTER, reserve_tokens=10, min_recent=0, recent_cap=100, kept_limit=5000
    )
    assert boundary is not None and boundary.protected and boundary.cut == 1


def test_oversized_latest_turn_falls_back_to_the_tail_that_fits() -> None:
    messages = [Message.text_message("user", "old"), Message.text_message("user", "new " * 4000)]
    boundary = find_boundary(
        messages, counts(messages), counter=COUNTER, reserve_tokens=500, min_recent=6, recent_cap=800, kept_limit=900
    )
    assert boundary is not None and not boundary.protected
    assert boundary.split is not None and boundary.split.index == 1
    assert boundary.kept_tokens <= 800


def test_running_tool_call_that_cannot_fit_gives_no_boundary() -> None:
    pending = Message(role="assistant", content=(ToolCallBlock(id="a", name="x", arguments="z" * 8000),))
    messages = [Message.text_message("user", "go"), pending]
    assert (
        find_boundary(
            messages, counts(messages), counter=COUNTER, reserve_tokens=0, min_recent=0, recent_cap=10, kept_limit=100
        )
        is None
    )


@settings(max_examples=250, deadline=None)
@given(
    messages=conversations(),
    reserve=st.integers(0, 3000),
    min_recent=st.integers(0, 8),
    cap=st.integers(0, 4000),
    extra=st.integers(0, 6000),
)
def test_boundary_invariants(messages: list[Message], reserve: int, min_recent: int, cap: int, extra: int) -> None:
    lo = 0
    while lo < len(messages) and messages[lo].role == "system":
        lo += 1
    c = counts(messages)
    kept_limit = cap + extra
    boundary = find_boundary(
        messages,
        c,
        counter=COUNTER,
        lo=lo,
        reserve_tokens=reserve,
        min_recent=min_recent,
        recent_cap=cap,
        kept_limit=kept_limit,
    )
    pending = pending_tail(messages)
    if boundary is None:
        # Only a running tool call (which must stay) can make every choice too big.
        assert pending is not None and sum(c[pending:]) > kept_limit
        return
    kept = kept_part(messages, boundary)
    # Pairing: no orphan result, no call without its result except the running tail.
    assert orphan_results(kept) == []
    tail = pending_tail(kept)
    assert all(index == tail for index, _ in unanswered_calls(kept)), unanswered_calls(kept)
    assert pending is None or messages[pending] in kept
    assert not kept[boundary.lo :] or kept[boundary.lo].role != "tool"
    # Suffix (modulo the split) and within the limit.
    assert lo <= boundary.cut <= len(messages)
    assert boundary.kept_tokens <= kept_limit
    assert boundary.kept_tokens == sum(count_messages(COUNTER, (m,)) for m in kept[lo:])
    if boundary.split is not None:
        assert boundary.split.index == boundary.cut - 1 >= lo
        assert boundary.split.rejoin() == messages[boundary.split.index]
        assert boundary.split.tail.tool_calls == messages[boundary.split.index].tool_calls
    # Invariant 4: the latest real user turn stays whole unless it cannot fit the limit (alone, or with
    # the rest of a tool group it interrupted: a user message can arrive while tools run).
    user = last_user_index(messages, lo)
    safe = safe_cuts(messages)
    if user is not None and any(safe[x] and sum(c[x:]) <= kept_limit for x in range(lo, user + 1)):
        assert boundary.protected and boundary.cut <= user
