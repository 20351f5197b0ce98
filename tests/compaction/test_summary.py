from datetime import date

import pytest

from contextfold import (
    BytesCounter,
    Message,
    StructuredSummarizer,
    StructuredSummary,
    SummarizerError,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold.compaction._summary import (
    SUMMARY_FIELDS,
    is_context_length_error,
    render_summary_text,
    summary_instruction,
)
from contextfold.testing import FunctionSummaryModel, ScriptedSummaryModel

GOOD = {f: f"value of {f}" for f in SUMMARY_FIELDS}


def convo(n: int, size: int = 40) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out.append(Message.text_message("user", f"step {i} " + "x" * size))
        out.append(
            Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name="bash", arguments='{"command":"ls"}'),))
        )
        out.append(
            Message(
                role="tool", content=(ToolResultBlock(call_id=f"c{i}", name="bash", content=(TextBlock(text="ok"),)),)
            )
        )
    return out


def test_instruction_requires_self_explanatory_references() -> None:
    text = summary_instruction(date(2026, 11, 30))
    for needle in (
        "absolute dates",
        "full path",
        "symbol name",
        "commands in full",
        "id and its purpose",
        "2026-11-30",
        "previous summary",
    ):
        assert needle in text


async def test_summarizer_returns_validated_summary_and_chains_previous() -> None:
    model = ScriptedSummaryModel([GOOD])
    s = StructuredSummarizer(model, counter=BytesCounter())
    prev = StructuredSummary(**{f: f"old {f}" for f in SUMMARY_FIELDS})
    out = await s.summarize(convo(3), previous=prev)
    assert out.summary.task_overview == "value of task_overview"
    assert out.messages_summarized == 9 and out.messages_dropped == 0
    sent, schema = model.requests[0]
    assert sent[0].role == "system"
    assert "old task_overview" in sent[1].text  # the previous summary is part of the input
    assert "Called tool bash" in sent[1].text and "Result of bash (ok)" in sent[1].text
    assert set(schema["required"]) == set(SUMMARY_FIELDS)


async def test_oversized_input_drops_oldest_until_it_fits() -> None:
    seen: list[int] = []

    def fn(messages, schema):  # type: ignore[no-untyped-def]
        seen.append(len(messages[1].text))
        return GOOD

    s = StructuredSummarizer(FunctionSummaryModel(fn), counter=BytesCounter(), window=2000, trigger_ratio=0.8)
    out = await s.summarize(convo(60, size=100))
    assert out.messages_dropped > 0
    assert out.messages_summarized + out.messages_dropped == 180
    assert seen and BytesCounter().count_text(summary_instruction()) + seen[0] // 4 <= 2000
    assert any("left out" in n for n in out.notes)


async def test_context_length_error_from_model_retries_with_fewer_messages() -> None:
    model = ScriptedSummaryModel([RuntimeError("Error code 400: context_length_exceeded"), GOOD])
    s = StructuredSummarizer(model, counter=BytesCounter())
    out = await s.summarize(convo(8))
    assert out.attempts == 2 and out.messages_dropped > 0
    assert len(model.requests) == 2
    assert len(model.requests[1][0][1].text) < len(model.requests[0][0][1].text)


@pytest.mark.parametrize("answer", [{"task_overview": "only one"}, "not json", {**GOOD, "extra": "x"}])
async def test_invalid_object_raises_summarizer_error(answer: object) -> None:
    s = StructuredSummarizer(ScriptedSummaryModel([answer]), counter=BytesCounter())  # type: ignore[list-item]
    with pytest.raises(SummarizerError, match="invalid object"):
        await s.summarize(convo(2))


async def test_model_failure_raises_summarizer_error_with_cause() -> None:
    s = StructuredSummarizer(ScriptedSummaryModel([ConnectionError("down")]), counter=BytesCounter())
    with pytest.raises(SummarizerError, match="ConnectionError: down") as info:
        await s.summarize(convo(2))
    assert isinstance(info.value.__cause__, ConnectionError)


def test_render_summary_has_every_field_in_order() -> None:
    text = render_summary_text(StructuredSummary(**GOOD))
    positions = [text.index(f"value of {f}") for f in SUMMARY_FIELDS]
    assert positions == sorted(positions)


def test_context_length_detection() -> None:
    assert is_context_length_error(ValueError("prompt is too long: 210000 tokens > 200000 maximum"))
    assert is_context_length_error(RuntimeError("This model's maximum context length is 8192 tokens"))
    assert not is_context_length_error(RuntimeError("rate limited"))
