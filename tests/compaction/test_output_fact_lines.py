"""`output_fact_lines`: where the facts the ledger takes from tool output sit, so a cut can keep their lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import Message, ToolResultBlock
from contextfold.compaction import extract_facts
from contextfold.compaction._ledger import output_fact_lines

OUTPUT = "\n".join(
    [
        "collected 12 items",
        "tests/test_app.py ..F",
        "    raise ValueError('bad')",
        "E   ValueError: bad input at row 3",
        "see https://example.com/issues/77 and #812",
        "job 4242 finished",
        "wrote /srv/app/out/report.json",
    ]
)


def test_each_kind_is_found_at_its_first_occurrence() -> None:
    found = output_fact_lines(OUTPUT)
    by_value = {value: (at, kind) for at, value, kind in found}
    assert by_value["E   ValueError: bad input at row 3"][1] == "error"
    assert by_value["4242"][1] == "id" and by_value["#812"][1] == "id"
    assert by_value["tests/test_app.py"][1] == "file" and by_value["/srv/app/out/report.json"][1] == "file"
    for value, (at, _) in by_value.items():
        assert OUTPUT.find(value) == at  # the first occurrence


def test_the_facts_are_the_ledgers_own() -> None:
    """Every fact the ledger takes from this output is located (the same rules, not a second extractor)."""
    ledger = extract_facts([Message(role="tool", content=(ToolResultBlock(call_id="c", content=OUTPUT),))])
    located = {value for _, value, _ in output_fact_lines(OUTPUT)}
    for fact in ledger.facts:
        value = fact.value.split(" ", 1)[1] if fact.value.startswith("job ") else fact.value
        assert value in located or any(value in line for line in located), fact


def test_a_span_is_searched_alone_and_offsets_stay_absolute() -> None:
    start = OUTPUT.index("job 4242")
    found = output_fact_lines(OUTPUT, start)
    assert {v for _, v, _ in found} == {"4242", "/srv/app/out/report.json"}
    assert all(at >= start for at, _, _ in found)


lines = st.lists(
    st.one_of(
        st.sampled_from(["ValueError: x", "error: no such file", "see /a/b/c.py", "job 12 done", "task_id=abc9", "#7"]),
        st.text(alphabet="ab/.:#0123 \tE", max_size=30),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(lines, st.integers(0, 200), st.integers(0, 400))
def test_every_offset_holds_its_value_inside_the_span(parts: list[str], start: int, length: int) -> None:
    text = "\n".join(parts)
    end = min(len(text), start + length)
    start = min(start, end)
    found = output_fact_lines(text, start, end)
    assert len({v for _, v, _ in found}) == len(found)  # each value once
    for at, value, kind in found:
        assert start <= at and at + len(value) <= end and text[at : at + len(value)] == value
        assert kind in ("error", "id", "file")
