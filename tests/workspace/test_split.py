from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _offload_strategies import any_text, meta
from contextfold._errors import ConfigError
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock, iter_text
from contextfold._tokens._counting import MEDIA_TOKENS, BytesCounter, TokenCounter, media_blocks
from contextfold._workspace._codec import block_to_dict
from contextfold._workspace._naming import payload_for_tool_result
from contextfold._workspace._split import (
    TRUNCATION_MARKER,
    ResultLimitError,
    minimum_limit,
    split_tool_result,
    truncation_notice,
)


class CharCounter:
    """One token per code point, plus a per-message overhead: a second, differently shaped counter."""

    key = "chars"

    def count_text(self, text: str) -> int:
        return len(text)

    def count_message(self, message: Message) -> int:
        return 4 + sum(len(t) for t in iter_text(message)) + MEDIA_TOKENS * media_blocks(message)


class CountingCounter(BytesCounter):
    key = "counting"

    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0

    def count_message(self, message: Message) -> int:
        self.calls += 1
        self.chars += sum(len(t) for t in iter_text(message))
        return super().count_message(message)


def cost(counter: TokenCounter, block: ToolResultBlock) -> int:
    return counter.count_message(Message(role="tool", content=(block,)))


# Text with many newlines, surrogate pairs and lone surrogates, multi-byte characters.
split_text = st.text(
    alphabet=st.sampled_from(["a", "b", " ", "\n", "é", "€", "😀", "\ud83d", "\ude00", "\udcff", "x"]), max_size=3000
)
tool_results = st.builds(
    ToolResultBlock,
    call_id=st.text(max_size=5),
    content=st.lists(
        st.builds(TextBlock, text=split_text, meta=meta)
        | st.builds(DataBlock, media=st.just("image"), media_type=st.just("image/png"), data=st.just("AAAA")),
        max_size=5,
    ).map(tuple),
    is_error=st.booleans(),
    name=st.none() | any_text,
)
counters = st.sampled_from([BytesCounter(), CharCounter()])


@settings(max_examples=400, deadline=None)
@given(block=tool_results, counter=counters, extra=st.integers(0, 3000))
def test_split_invariants(block: ToolResultBlock, counter: TokenCounter, extra: int) -> None:
    limit = minimum_limit(counter, block) + extra
    plan = split_tool_result(block, limit=limit, counter=counter)
    if plan is None:
        assert cost(counter, block) <= limit
        return
    assert cost(counter, block) > limit
    # kept + reminder fits; the reminder is the one planned, with the real content-addressed path
    kept = plan.kept_block()
    assert cost(counter, kept) <= limit
    assert plan.kept_tokens == cost(counter, kept)
    assert kept.content[-1].text == plan.notice and plan.notice.startswith(TRUNCATION_MARKER)
    if plan.rest_text.strip("\n") or (plan.rest_text and plan.offset):
        assert payload_for_tool_result(block.text).path in plan.notice
    assert (kept.call_id, kept.is_error, kept.name) == (block.call_id, block.is_error, block.name)
    # kept + rest reproduce the original exactly: blocks (meta included) and text
    assert [block_to_dict(b) for b in plan.rejoin()] == [block_to_dict(b) for b in block.content]
    assert plan.kept_text + plan.rest_text == block.text
    # never inside a surrogate pair
    if plan.offset:
        text = block.content[plan.index].text  # type: ignore[union-attr]
        assert 0 < plan.offset <= len(text)
        assert not (
            "\ud800" <= text[plan.offset - 1] <= "\udbff"
            and "\udc00" <= text[plan.offset : plan.offset + 1] <= "\udfff"
        )


@settings(max_examples=200, deadline=None)
@given(block=tool_results, counter=counters, extra=st.integers(0, 3000))
def test_fixed_notice_invariants(block: ToolResultBlock, counter: TokenCounter, extra: int) -> None:
    notice = truncation_notice("tool_results/0123456789abcdef.txt", line=3, lines=9)
    limit = (
        cost(
            counter,
            ToolResultBlock(
                call_id=block.call_id,
                content=(TextBlock(text=notice),),
                is_error=block.is_error,
                name=block.name,
                meta=block.meta,
            ),
        )
        + extra
    )
    plan = split_tool_result(block, limit=limit, counter=counter, notice=notice)
    if plan is None:
        assert cost(counter, block) <= limit
        return
    assert cost(counter, plan.kept_block(notice)) <= limit and plan.notice == notice
    assert plan.kept_text + plan.rest_text == block.text


def test_fits_returns_none() -> None:
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="short"),))
    assert split_tool_result(block, limit=1000, counter=BytesCounter()) is None


def test_cut_is_nearly_full_without_newlines() -> None:
    counter = BytesCounter()
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="abcdefgh" * 100_000),))
    plan = split_tool_result(block, limit=5_000, counter=counter)
    assert plan is not None and plan.index == 0
    assert 5_000 - plan.kept_tokens <= 1  # one more character would not fit
    assert plan.offset > 19_000


def test_prefers_line_boundary() -> None:
    text = "".join(f"line {i:05d} " + "x" * 60 + "\n" for i in range(10_000))
    block = ToolResultBlock(call_id="c", content=(TextBlock(text=text),))
    plan = split_tool_result(block, limit=2_000, counter=BytesCounter())
    assert plan is not None
    assert plan.kept_text.endswith("\n") and plan.rest_text.startswith("line ")


def test_whole_blocks_kept_and_data_boundary() -> None:
    img = DataBlock(media="image", media_type="image/png", data="AAAA")
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="head"), img, TextBlock(text="tail")))
    plan = split_tool_result(block, limit=300, counter=BytesCounter())
    assert plan is not None and plan.index == 1 and plan.offset == 0
    assert plan.kept_blocks == (TextBlock(text="head"),)
    assert plan.rest_media == (img,)
    assert plan.kept_text + plan.rest_text == block.text


def test_limit_below_minimum_refused() -> None:
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="x" * 10_000),))
    with pytest.raises(ResultLimitError, match="too small") as info:
        split_tool_result(block, limit=10, counter=BytesCounter())
    assert info.value.limit == 10 and info.value.needed == minimum_limit(BytesCounter(), block)
    with pytest.raises(ConfigError, match="positive"):
        split_tool_result(block, limit=0, counter=BytesCounter())
    assert 60 < minimum_limit(BytesCounter()) < 150
    assert abs(minimum_limit(BytesCounter(), block) - minimum_limit(BytesCounter())) < 10


@pytest.mark.parametrize("size", [100_000, 1_000_000, 4_000_000])
def test_bounded_number_of_counts(size: int) -> None:
    """O(log n) candidate counts, each of bounded size: no quadratic re-encoding."""
    counter = CountingCounter()
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="word " * (size // 5)),))
    plan = split_tool_result(block, limit=2_000, counter=counter)
    assert plan is not None
    assert counter.calls <= 40
    # one full count (does it fit?) plus bounded candidates of about limit*4 characters
    assert counter.chars <= size + counter.calls * 40_000


@pytest.mark.parametrize("size", [90_000, 187_000, 1_000_000])
def test_secant_step_finds_the_largest_head_in_few_counts(size: int) -> None:
    # Counts grow linearly with length here, so the secant step lands on the cut and a short gallop brackets it:
    # the head is the longest that fits (one more character does not), found in about 9 counts, not 15.
    counter = CountingCounter()
    text = "".join(f"word{i % 97} " for i in range(size // 7))[:size]
    block = ToolResultBlock(call_id="c", content=(TextBlock(text=text),))
    plan = split_tool_result(block, limit=21_333, counter=counter, notice="[cut]")
    assert plan is not None and plan.index == 0
    assert counter.calls <= 11
    longer = ToolResultBlock(call_id="c", content=(TextBlock(text=text[: plan.offset + 1]), TextBlock(text="[cut]")))
    snapped = text[plan.offset - 1] == "\n"
    assert snapped or cost(BytesCounter(), longer) > 21_333
