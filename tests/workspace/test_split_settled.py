"""The split's early answer (`_settled`): when the bracket already decides where the cut snaps to a line start,
the bisection is skipped; the plan is the one the full search finds, for any deterministic counter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_split import CharCounter, CountingCounter
from test_split_adversarial import counters as adversarial_counters

import contextfold._workspace._split as unit
from contextfold import BytesCounter, CalibratedCounter, TextBlock, TokenCounter, ToolResultBlock, split_tool_result

# Lines of every length around the snap window and the gallop's brackets, with multi-byte characters, surrogate
# pairs and lone surrogates here and there (a line is a short pattern repeated to its length).
unit_text = st.text(
    alphabet=st.sampled_from(["a", "b", " ", "é", "😀", "\ud83d", "\ude00", "x", "7"]), min_size=1, max_size=4
)
line = st.builds(lambda piece, n: (piece * n)[:n], unit_text, st.integers(0, 160))
texts = st.lists(line, min_size=1, max_size=120).map("\n".join)
counters = st.sampled_from([BytesCounter(), CharCounter(), CalibratedCounter()]) | adversarial_counters


def full_search(block: ToolResultBlock, limit: int, counter: TokenCounter, notice: str | None) -> object:
    """The plan with the early answer switched off: every bracket bisected to the end."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unit, "_settled", lambda *args: None)
        return split_tool_result(block, limit=limit, counter=counter, notice=notice)


@settings(max_examples=600, deadline=None)
@given(
    head=st.lists(st.builds(TextBlock, text=texts), max_size=2).map(tuple),
    text=texts,
    counter=counters,
    limit=st.integers(1, 3000),
    fixed=st.booleans(),
)
def test_the_early_answer_is_the_full_searchs(
    head: tuple[TextBlock, ...], text: str, counter: TokenCounter, limit: int, fixed: bool
) -> None:
    block = ToolResultBlock(call_id="c", content=(*head, TextBlock(text=text)))
    notice = "[cut]" if fixed else None
    try:
        expected = full_search(block, limit, counter, notice)
    except unit.ResultLimitError:
        with pytest.raises(unit.ResultLimitError):
            split_tool_result(block, limit=limit, counter=counter, notice=notice)
        return
    assert split_tool_result(block, limit=limit, counter=counter, notice=notice) == expected


def test_a_bracket_inside_one_line_ends_the_search() -> None:
    # Lines of 80 characters: the gallop brackets the cut inside one line, which every candidate snaps back from.
    text = "".join(f"{i:05d} " + "word " * 14 + "\n" for i in range(400))
    block = ToolResultBlock(call_id="c", content=(TextBlock(text=text),))
    fast, slow = CountingCounter(), CountingCounter()
    plan = split_tool_result(block, limit=2_000, counter=fast)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unit, "_settled", lambda *args: None)
        assert split_tool_result(block, limit=2_000, counter=slow) == plan
    assert plan is not None and text[plan.offset - 1] == "\n"
    assert fast.calls <= slow.calls - 3
