"""A summary that went out and came back is still a summary (issue 13 item 4).

Meta never goes on the wire: a summary rendered to a provider format and read back (`to_canonical`, or a transcript
file) has lost ``meta["contextfold"]``. `is_summary` then recognizes it by its header, and every component that
asks "is this a summary?" (the boundary finder, the digest, the ledger) asks it. Before, only the ledger did: the
boundary finder took the summary for the latest user turn and the digest cut it to a 400-character user line.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    Context,
    ContextConfig,
    LocalWorkspace,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    Transcript,
    dump_transcripts,
    load_transcript,
    load_transcripts,
    render,
    to_canonical,
)
from contextfold._markers import (
    LEDGER_OVERFLOW_KEY,
    MARKER_KEY,
    SUMMARY_MARKER,
    is_summary,
    is_summary_text,
    summary_header,
)
from contextfold._messages import iter_text
from contextfold._tokens._counting import BytesCounter
from contextfold.compaction import DigestStrategy
from contextfold.compaction._boundaries import is_real_user, last_user_index
from contextfold.compaction._digest import Tier, digest_lines, stretch_sentence, stretches
from contextfold.compaction._ledger import LEDGER_HEADER, ledger_for
from contextfold.compaction._plan import summary_message

COUNTER = BytesCounter()
DATA = Path(__file__).resolve().parent.parent / "data"
PROVIDERS = ("openai", "anthropic")


def coding_session(tasks: int, steps: int = 3) -> list[Message]:
    """A coding agent's session: per task a user request, then read/test/fix tool steps with distinct paths."""
    out = [Message.text_message("system", "You are a coding agent. Work in the repository; run the tests.")]
    for t in range(tasks):
        out.append(Message.text_message("user", f"Task {t}: fix the bug in src/pkg/area_{t}/core.py, keep the API."))
        for s in range(steps):
            cid = f"call_{t}_{s}"
            command = f"pytest tests/area_{t}/test_core_{s}.py -q -k case_{s}"
            out.append(
                Message(
                    role="assistant",
                    content=(
                        TextBlock(text=f"Step {s} of task {t}: running the tests of area {t}."),
                        ToolCallBlock(id=cid, name="bash", arguments=json.dumps({"command": command})),
                    ),
                )
            )
            output = f"FAILED tests/area_{t}/test_core_{s}.py::test_case_{s} - AssertionError\n" + "noise line\n" * 40
            out.append(
                Message(
                    role="tool", content=(ToolResultBlock(call_id=cid, name="bash", content=(TextBlock(text=output),)),)
                )
            )
        out.append(Message.text_message("assistant", f"Fixed src/pkg/area_{t}/core.py (task {t} done)."))
    return out


def compact(messages: Sequence[Message], window: int, workspace: Path, *, pin: int | None = None) -> list[Message]:
    """What `contextfold compact` does: append everything, compact once when over the trigger."""
    ctx = Context(ContextConfig(window=window), counter=COUNTER, workspace=LocalWorkspace(workspace), hints=False)
    for message in messages:
        ctx.append(message)
    if pin is not None:
        ctx.pin(ctx.messages[pin])  # re-attached right after the summary: Anthropic merges the two on the wire
    if ctx.tokens > ctx.config.trigger_tokens:
        asyncio.run(ctx.compact(reason="trigger"))
    return list(ctx.messages)


def through_file(messages: Sequence[Message], provider: str, path: Path) -> list[Message]:
    transcript = Transcript(messages=tuple(messages), format=provider, shape="object")  # type: ignore[arg-type]
    path.write_text(dump_transcripts([transcript]), encoding="utf-8")
    return list(load_transcript(path).messages)


def read_back(messages: Sequence[Message], provider: str) -> list[Message]:
    body = render(messages, provider)  # type: ignore[arg-type]
    return to_canonical(body["messages"], provider, body.get("system"))  # type: ignore[arg-type]


# -- is_summary -----------------------------------------------------------------------------------------------------


def test_is_summary_by_meta_or_by_header_only() -> None:
    header = summary_header(12, "context/000001-abc.jsonl")
    with_meta = Message.text_message("user", header + "\nbody", meta={MARKER_KEY: SUMMARY_MARKER})
    without = Message.text_message("user", header + "\nbody")
    assert is_summary(with_meta) and is_summary(without)
    assert is_summary(Message.text_message("user", summary_header(1, None)))  # pending archive, one message
    assert is_summary_text(header) and is_summary_text(header + "\n")
    for text in (
        "Summary of earlier conversation (draft): what do you think?",  # a person quoting the words
        "Summary of earlier conversation (12 messages, archived at x) and more on the same line",
        "Please read this. " + header,
    ):
        assert not is_summary(Message.text_message("user", text)), text
    assert not is_summary(Message.text_message("assistant", header))  # ours are user messages


# -- a summary read back is a summary to every component ------------------------------------------------------------


def _compacted(tmp_path: Path) -> list[Message]:
    # 40 tasks: more facts than the ledger may grow to at this window, so its cap leaves some out (carried in meta).
    session = [*coding_session(40), Message.text_message("user", "Now also update the changelog for all areas.")]
    out = compact(session, 6000, tmp_path / "ws", pin=1)
    assert is_summary(out[1]) and out[1].meta.get(MARKER_KEY) == SUMMARY_MARKER
    assert out[2].role == "user" and not is_summary(out[2])  # the re-attached pin follows the summary
    return out


@pytest.mark.parametrize("route", ["to_canonical", "transcript file"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_summary_read_back_is_a_summary_to_every_component(provider: str, route: str, tmp_path: Path) -> None:
    original = _compacted(tmp_path)
    if route == "to_canonical":
        back = read_back(original, provider)
    else:
        back = through_file(original, provider, tmp_path / "t.json")
    summary, again = original[1], back[1]
    assert MARKER_KEY not in again.meta  # the meta did not survive the wire...
    assert again.text == summary.text and [m.role for m in back] == [m.role for m in original]
    # ...and every component still sees a summary.
    assert is_summary(again)
    assert [is_summary(m) for m in back] == [is_summary(m) for m in original]
    assert not is_real_user(again)
    assert [is_real_user(m) for m in back] == [is_real_user(m) for m in original]
    assert last_user_index(back) == last_user_index(original) == len(original) - 1
    names: dict[str, str] = {}
    for tier in (Tier.TRUNCATED, Tier.COMPACT):
        assert digest_lines(again, tier, names) == digest_lines(summary, tier, names)
    assert digest_lines(again, Tier.TRUNCATED, names)[0].startswith("Summary of earlier conversation (")
    # The summary's fidelity (up to 1,600 characters of its digest), not a user line's (400); its ledger is not
    # quoted, the next ledger merges it.
    line = digest_lines(again, Tier.TRUNCATED, names)[0]
    assert len(line) > 400 and LEDGER_HEADER not in line and LEDGER_HEADER in again.text
    assert stretches(back) == stretches(original)
    assert stretch_sentence(back[1:], names).startswith("Earlier: Summary of earlier conversation (")
    # The facts the first ledger's cap left out ride in the summary's meta (never sent), so the wire drops them;
    # the ledger the summary carries reads back the same.
    assert LEDGER_OVERFLOW_KEY in summary.meta
    carried = summary.replace(meta={MARKER_KEY: SUMMARY_MARKER})
    assert ledger_for([again], COUNTER, 2000) == ledger_for([carried], COUNTER, 2000)
    # Compacting the read-back context again plans exactly what compacting the original again plans.
    config = ContextConfig(window=3000)
    replan = DigestStrategy().plan(back, counter=COUNTER, config=config)
    plan = DigestStrategy().plan([original[0], carried, *original[2:]], counter=COUNTER, config=config)
    assert replan is not None and plan is not None
    assert replan.summary_text == plan.summary_text
    assert (replan.boundary.cut, replan.boundary.protected) == (plan.boundary.cut, plan.boundary.protected)


def test_an_anthropic_round_trip_of_a_summary_is_byte_exact(tmp_path: Path) -> None:
    original = _compacted(tmp_path)
    body = render(original, "anthropic")
    assert len(body["messages"][0]["content"]) == 2  # the summary and the user turn, merged on the wire
    back = to_canonical(body["messages"], "anthropic", body.get("system"))
    assert render(back, "anthropic") == body


# -- compacting a compacted transcript -----------------------------------------------------------------------------

_PATH = re.compile(r"(?:src|tests)/[\w/.-]+\.py")


def _facts(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> set[str]:
    """The paths and commands of a conversation (the items a later turn needs verbatim).

    As in benchmarks/bench_quality.py, the ``command`` of a tool whose schema enumerates it (an editor's
    ``str_replace``, ``view``) is a sub-command, not a command line.
    """
    editors = {t.name for t in tools if "enum" in t.parameters.get("properties", {}).get("command", {})}
    found: set[str] = set()
    for message in messages:
        found.update(_PATH.findall("\n".join(iter_text(message))))
        for call in message.tool_calls:
            command = json.loads(call.arguments).get("command") if call.arguments.startswith("{") else None
            if isinstance(command, str) and call.name not in editors:
                found.add(command.split("\n", 1)[0])
    return found


def _kept(facts: set[str], messages: Sequence[Message]) -> int:
    text = "\n".join(t for m in messages for t in iter_text(m))
    return sum(1 for fact in facts if fact in text)


def _sessions() -> list[tuple[str, list[Message], tuple[ToolSpec, ...]]]:
    out = [("coding 20x3", coding_session(20), ()), ("coding 40x2", coding_session(40, steps=2), ())]
    for name in ("openhands_multiswe_llama4_sample.jsonl", "tau_airline_gpt4o_sample.jsonl"):
        for n, transcript in enumerate(load_transcripts(DATA / name)):
            out.append((f"{name}#{n}", list(transcript.messages), transcript.tools))
    return out


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("first", "second"), [(16_000, 8000), (32_000, 8000), (12_000, 6000)])
def test_recompacting_a_compacted_transcript_keeps_what_compacting_once_keeps(
    provider: str, first: int, second: int, tmp_path: Path
) -> None:
    for name, session, tools in _sessions():
        facts = _facts(session, tools)
        assert facts or name.startswith("tau"), name
        once = compact(session, second, tmp_path / f"{name}-once")
        earlier = through_file(compact(session, first, tmp_path / f"{name}-first"), provider, tmp_path / "t.json")
        twice = compact(earlier, second, tmp_path / f"{name}-twice")
        assert sum(1 for m in twice if is_summary(m)) <= 1, name  # a summary of the summary, not two summaries
        assert _kept(facts, twice) >= _kept(facts, once), name


@settings(max_examples=150, deadline=None)
@given(
    body=st.text(max_size=200),
    count=st.integers(1, 10_000),
    ref=st.one_of(st.none(), st.from_regex(r"context/[0-9a-f]{4,12}\.jsonl", fullmatch=True)),
    after=st.lists(st.text(min_size=1, max_size=40).filter(str.strip), max_size=3),
    provider=st.sampled_from(PROVIDERS),
)
def test_any_summary_survives_the_wire(body: str, count: int, ref: str | None, after: list[str], provider: str) -> None:
    summary = summary_message(body, count=count, archive_ref=ref)
    messages = [Message.text_message("system", "s"), summary, *(Message.text_message("user", t) for t in after)]
    messages.append(Message.text_message("assistant", "ok"))
    body_out = render(messages, provider)  # type: ignore[arg-type]
    back = read_back(messages, provider)
    assert is_summary(back[1]) and back[1].text == summary.text
    assert sum(is_summary(m) for m in back) == 1
    assert not is_real_user(back[1])
    assert render(back, provider) == body_out  # type: ignore[arg-type]
