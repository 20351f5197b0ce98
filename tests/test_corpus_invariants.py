"""Issue 4's corpus invariants on the transcripts under tests/data (never needs /work/shared).

Every fixture conversation, compacted through the library path of
``contextfold compact`` at several windows (and forced), must render and
validate for both providers (no blocking problem the input lacked), fit the
budget, and re-form the input exactly from the output, the archive and the
offloaded tool results. The checker is `benchmarks/check_corpus.py`, the one
run on the full corpus, so this test also keeps that checker honest (see the
tampering tests).
"""

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.check_corpus import check_one, rebuild  # noqa: E402

from contextfold import (  # noqa: E402
    ContextConfig,
    LocalWorkspace,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Transcript,
    load_transcripts,
    make_counter,
)
from contextfold._cli._compact import compact_transcript  # noqa: E402
from contextfold._workspace._codec import messages_to_jsonl  # noqa: E402

DATA = ROOT / "tests" / "data"
FIXTURES = [
    "tau_airline_gpt4o_sample.jsonl",
    "openhands_multiswe_llama4_sample.jsonl",
    "openai_parallel.json",
    "anthropic_sample.json",
]


def conversations() -> list[tuple[str, int, Transcript]]:
    out = []
    for name in FIXTURES:
        for i, t in enumerate(load_transcripts(DATA / name)):
            out.append((name, i, t))
    return out


CASES = conversations()


@pytest.mark.parametrize("window", [8_000, 16_000, 32_000])
@pytest.mark.parametrize("mode", ["trigger", "forced"])
@pytest.mark.parametrize("counter", ["calibrated", "bytes"])
@pytest.mark.parametrize(("name", "index", "transcript"), CASES, ids=[f"{n}#{i}" for n, i, _ in CASES])
def test_compacts_valid_within_budget_and_reversible(
    tmp_path: Path, name: str, index: int, transcript: Transcript, window: int, mode: str, counter: str
) -> None:
    ws = LocalWorkspace(tmp_path, "s")
    outcome = asyncio.run(check_one(transcript, window=window, counter_spec=counter, mode=mode, ws=ws))
    assert outcome.failures == []
    assert outcome.new_problems == 0
    assert outcome.tokens_after <= outcome.limit
    assert outcome.messages_checked == len(transcript.messages)


def test_the_fixtures_exercise_compaction_and_offload(tmp_path: Path) -> None:
    """Guard against a vacuous pass: small windows must compact, and compact with an archive."""
    compacted = 0
    for _, i, t in CASES:
        ws = LocalWorkspace(tmp_path, f"s{compacted}-{i}-{len(t.messages)}")
        outcome = asyncio.run(check_one(t, window=8_000, counter_spec="calibrated", mode="forced", ws=ws))
        compacted += outcome.compacted
    assert compacted >= 3


def _long_conversation() -> list[Message]:
    """A conversation far over an 8k window: 30 tool rounds with 2 KB results, one 120 KB result."""
    messages = [Message.text_message("system", "You are a coding agent."), Message.text_message("user", "Fix it.")]
    for i in range(30):
        call = ToolCallBlock(id=f"c{i}", name="Read", arguments=f'{{"path": "src/m{i}.py"}}')
        text = ("line of output\n" * (8_000 if i == 5 else 140))[:-1]
        messages.append(Message(role="assistant", content=(TextBlock(text=f"Step {i}"), call)))
        result = ToolResultBlock(call_id=f"c{i}", name="Read", content=(TextBlock(text=text),))
        messages.append(Message(role="tool", content=(result,)))
    messages.append(Message.text_message("user", "Now summarize what you did."))
    return messages


def _compacted(tmp_path: Path) -> tuple[Transcript, LocalWorkspace, object]:
    t = Transcript(messages=tuple(_long_conversation()), format="openai", shape="list")
    ws = LocalWorkspace(tmp_path, "tamper")
    result = asyncio.run(
        compact_transcript(t, config=ContextConfig(window=8_000), counter=make_counter("bytes"), workspace=ws)
    )
    assert result.compaction is not None
    assert result.offloaded  # the 120 KB result was split and its rest offloaded
    return t, ws, result


def test_generated_long_conversation_passes(tmp_path: Path) -> None:
    t, _, _ = _compacted(tmp_path)
    fresh = LocalWorkspace(tmp_path, "fresh")
    outcome = asyncio.run(check_one(t, window=8_000, counter_spec="bytes", mode="trigger", ws=fresh))
    assert outcome.failures == []
    assert outcome.compacted and outcome.offloaded == 1


def test_tampered_archive_is_caught(tmp_path: Path) -> None:
    t, ws, result = _compacted(tmp_path)
    refs = {r.call_id: r for r in result.offloaded if r.call_id}  # type: ignore[attr-defined]
    out = result.transcript.messages  # type: ignore[attr-defined]
    rebuilt, why = rebuild(t.messages, out, ws, refs, result.compaction)  # type: ignore[attr-defined]
    assert rebuilt is not None, why
    archive = next(r for r in ws.items() if r.kind == "context")
    archived = ws.read_messages(archive)
    archived[0] = Message.text_message(archived[0].role, archived[0].text + " (edited)")
    ws.resolve(archive).write_text(messages_to_jsonl(archived), encoding="utf-8")
    rebuilt, why = rebuild(t.messages, out, ws, refs, result.compaction)  # type: ignore[attr-defined]
    assert rebuilt is None and "do not re-form" in why


def test_tampered_offloaded_result_is_caught(tmp_path: Path) -> None:
    t, ws, result = _compacted(tmp_path)
    ref = result.offloaded[0]  # type: ignore[attr-defined]
    path = ws.resolve(ref)
    path.write_text(path.read_text(encoding="utf-8")[:-1], encoding="utf-8")
    refs = {r.call_id: r for r in result.offloaded if r.call_id}  # type: ignore[attr-defined]
    rebuilt, _ = rebuild(t.messages, result.transcript.messages, ws, refs, result.compaction)  # type: ignore[attr-defined]
    assert rebuilt is None
