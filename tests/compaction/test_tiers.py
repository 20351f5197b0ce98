"""The cheap tiers and `TieredCompaction`: placeholders name the archive, pairing holds, the report says what ran."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    Context,
    ContextConfig,
    LocalWorkspace,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold.compaction._groups import orphan_results, unanswered_calls
from contextfold.strategies import ClearToolResults, DedupeFileReads, DigestStrategy, TieredCompaction, read_key
from conversation_gen import conversations

C = BytesCounter()


def call(i: int, name: str, args: str) -> Message:
    return Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name=name, arguments=args),))


def result(i: int, text: str, name: str = "bash") -> Message:
    return Message(role="tool", content=(ToolResultBlock(call_id=f"c{i}", name=name, content=(TextBlock(text=text),)),))


def session(n: int = 10, size: int = 2000) -> list[Message]:
    out = [Message.text_message("system", "sys"), Message.text_message("user", "fix the bug")]
    for i in range(n):
        out += [
            call(i, "bash", f'{{"command": "grep -n foo src/m{i}.py"}}'),
            result(i, f"/repo/src/m{i}.py:1 " + "y" * size),
        ]
    return out


def test_clear_keeps_newest_and_calls_and_names_archive() -> None:
    msgs = session()
    plan = ClearToolResults(keep=3, min_reclaim=100).plan(msgs, counter=C, config=ContextConfig(window=8000))
    assert plan is not None and not plan.compacted and len(plan.replaced) == 7
    assert plan.original() == tuple(msgs)
    out = plan.with_archive_ref("context/a.jsonl").messages
    assert [m.tool_calls for m in out] == [m.tool_calls for m in msgs]  # every call kept verbatim
    for m in out[-6:]:
        assert m in msgs  # the newest 3 results untouched
    cleared = out[3].tool_results[0]
    assert "context/a.jsonl" in cleared.text and "call c0" in cleared.text and "/repo/src/m0.py" in cleared.text
    assert plan.tokens_after < plan.tokens_before
    assert not orphan_results(list(out)) and not unanswered_calls(list(out))


def test_clear_is_batched_by_min_reclaim() -> None:
    msgs = session(n=4, size=600)
    assert ClearToolResults(keep=3, min_reclaim=10_000).plan(msgs, counter=C, config=ContextConfig(window=8000)) is None
    assert ClearToolResults(keep=3, min_reclaim=50).plan(msgs, counter=C, config=ContextConfig(window=8000)) is not None


def test_clear_never_touches_latest_assistant_turn() -> None:
    msgs = [Message.text_message("user", "go")]
    parallel = Message(
        role="assistant", content=tuple(ToolCallBlock(id=f"p{i}", name="bash", arguments="{}") for i in range(5))
    )
    msgs.append(parallel)
    msgs += [
        Message(role="tool", content=(ToolResultBlock(call_id=f"p{i}", content=(TextBlock(text="z" * 4000),)),))
        for i in range(5)
    ]
    assert ClearToolResults(keep=0, min_reclaim=1).plan(msgs, counter=C, config=ContextConfig(window=8000)) is None


def test_read_key_heuristics() -> None:
    def k(name: str, args: str) -> str | None:
        return read_key(ToolCallBlock(id="x", name=name, arguments=args))

    assert k("read_file", '{"path": "a/b.py"}') == "file:a/b.py"
    assert k("Read", '{"file_path": "/x/y.py"}') == "file:/x/y.py"
    assert k("str_replace_editor", '{"command": "view", "path": "/r/a.py"}') == "file:/r/a.py"
    assert k("str_replace_editor", '{"command": "create", "path": "/r/a.py"}') is None
    assert k("bash", '{"command": "cat -n src/app.py"}') == "file:src/app.py"
    assert k("bash", '{"command": "cat src/app.py | head"}') is None
    assert k("bash", '{"command": "nl -ba a.py"}') == "cmd:nl -ba a.py"
    assert k("bash", '{"command": "rm -rf /"}') is None


def test_dedupe_keeps_only_newest_read() -> None:
    msgs = [Message.text_message("user", "go")]
    for i in range(3):
        msgs += [call(i, "read_file", '{"path": "src/app.py"}'), result(i, f"v{i} " + "x" * 800, "read_file")]
    msgs += [call(9, "bash", '{"command": "ls"}'), result(9, "ok")]
    plan = DedupeFileReads().plan(msgs, counter=C, config=ContextConfig(window=8000))
    assert plan is not None and [r.index for r in plan.replaced] == [2, 4]
    out = plan.messages
    assert "superseded" in out[2].tool_results[0].text and "call c2" in out[2].tool_results[0].text
    assert out[6] == msgs[6]
    assert plan.original() == tuple(msgs)


def test_tiered_stops_at_first_tier_below_target_and_reports() -> None:
    msgs = session(n=12, size=1600)
    config = ContextConfig(window=8000)
    plan = TieredCompaction().plan(msgs, counter=C, config=config)
    assert plan is not None and plan.strategy == "clear_tool_results" and not plan.compacted
    runs = plan.details["tier_runs"]
    assert [r["tier"] for r in runs] == ["dedupe_file_reads", "clear_tool_results"]
    assert runs[1]["applied"] and runs[1]["reclaimed"] > 0 and plan.tokens_after <= config.budget


def test_tiered_escalates_to_digest_and_archives_originals(tmp_path: Path) -> None:
    msgs = session(n=30, size=400)
    for i in range(30):
        msgs.insert(2 + 3 * i, Message.text_message("assistant", "thinking about it " * 30))
    ws = LocalWorkspace(tmp_path, "s")
    ctx = Context(ContextConfig(window=3000), counter=C, workspace=ws, hints=False, strategy=TieredCompaction())
    ctx.extend(msgs[1:])
    prepared = ctx.messages
    report = __import__("asyncio").run(ctx.compact())
    assert report is not None and "digest" in report.strategy
    assert [r["tier"] for r in report.tier_runs][-1] == "digest"
    assert report.archive is not None
    archived = ws.read_messages(report.archive)
    assert archived[: report.messages_compacted] == list(prepared[: report.messages_compacted])
    assert not orphan_results(list(ctx.messages))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(convo=conversations(max_turns=10), window=st.sampled_from([400, 900, 2500]), keep=st.integers(0, 3))
def test_every_tier_keeps_pairing_and_loses_nothing(convo: list[Message], window: int, keep: int) -> None:
    config = ContextConfig(window=window)
    tiers = [DedupeFileReads(), ClearToolResults(keep=keep, min_result_tokens=1, min_reclaim=1), DigestStrategy()]
    for strategy in [*tiers, TieredCompaction([tiers[0], tiers[1]]), TieredCompaction()]:
        try:
            plan = strategy.plan(convo, counter=C, config=config)
        except Exception as exc:
            from contextfold import BudgetError

            assert isinstance(exc, BudgetError)
            continue
        if plan is None:
            continue
        out = list(plan.with_archive_ref("context/x.jsonl").messages)
        assert not orphan_results(out) or orphan_results(convo)
        assert len(unanswered_calls(out)) <= len(unanswered_calls(convo))
        assert plan.original() == tuple(convo)  # nothing lost: compacted + rewritten originals re-form the input
        if not plan.compacted:
            # the latest assistant turn is never modified by a rewriting tier
            from contextfold.compaction._clear_results import latest_turn_start

            start = latest_turn_start(convo)
            assert out[start:] == convo[start:]


def test_clear_placeholder_names_the_paths_of_a_listing_within_its_share() -> None:
    listing = "\n".join(f"/repo/src/pkg_{i}/module_{i}.py" for i in range(40)) + "\n" + "z" * 4000
    msgs = [Message.text_message("system", "sys"), Message.text_message("user", "find the modules")]
    for i in range(5):
        msgs += [call(i, "bash", '{"command": "find /repo -name *.py"}'), result(i, listing)]
    tier = ClearToolResults(keep=1, min_reclaim=1)
    plan = tier.plan(msgs, counter=C, config=ContextConfig(window=8000))
    assert plan is not None
    cleared = plan.kept[plan.replaced[0].index].tool_results[0].text
    assert all(f"/repo/src/pkg_{i}/module_{i}.py" in cleared for i in range(40))
    original = C.count_text(listing)
    assert C.count_text(cleared) < original * tier.mention_share + 80  # the listing stays within its share
