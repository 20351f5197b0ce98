"""The facts ledger: extraction rules, round trip through a summary, carry-over across 20 compactions."""

import asyncio
import time

from contextfold import BytesCounter, Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold.strategies import DigestStrategy, Fact, Ledger, extract_facts, parse_ledger

C = BytesCounter()


def bash(i: int, command: str, output: str) -> list[Message]:
    return [
        Message(
            role="assistant", content=(ToolCallBlock(id=f"b{i}", name="bash", arguments=f'{{"command": "{command}"}}'),)
        ),
        Message(role="tool", content=(ToolResultBlock(call_id=f"b{i}", content=(TextBlock(text=output),)),)),
    ]


def test_extracts_each_kind() -> None:
    msgs = [
        Message.text_message(
            "user", "Fix issue #42 in src/app/main.py. Do not touch tests/. See https://example.com/x?y=1."
        ),
        *bash(1, "pytest -q tests/test_main.py", "E   ValueError: bad value\n<returncode>1</returncode>"),
        Message.text_message("assistant", "Commit 3f2a9c1d is the culprit; job 8812 still runs."),
        Message(
            role="assistant",
            content=(ToolCallBlock(id="t", name="get_reservation_details", arguments='{"reservation_id": "ZFA04Y"}'),),
        ),
        Message(role="tool", content=(ToolResultBlock(call_id="t", content=(TextBlock(text="{}"),)),)),
    ]
    ledger = extract_facts(msgs)
    assert "src/app/main.py" in ledger.values("file") and "tests/test_main.py" in ledger.values("file")
    assert Fact("cmd", "pytest -q tests/test_main.py", 1) in ledger.facts
    ids = ledger.values("id")
    assert {"#42", "https://example.com/x?y=1", "3f2a9c1d", "reservation_id=ZFA04Y"} <= set(ids)
    assert any("8812" in i for i in ids)
    assert any("ValueError: bad value" in e for e in ledger.values("error"))
    assert any(r.startswith("Do not touch tests/") for r in ledger.values("rule"))
    # newest first: the reservation id (last message) precedes the issue number (first message)
    assert ids.index("reservation_id=ZFA04Y") < ids.index("#42")


def test_editor_subcommands_are_not_commands() -> None:
    call = Message(
        role="assistant",
        content=(ToolCallBlock(id="e", name="str_replace_editor", arguments='{"command": "view", "path": "/r/a.py"}'),),
    )
    ledger = extract_facts([call])
    assert ledger.values("cmd") == [] and ledger.values("file") == ["/r/a.py"]


def test_render_parse_round_trip_and_cap() -> None:
    ledger = Ledger((Fact("rule", "never push to main"), Fact("cmd", "make test", 2), Fact("file", "a/b.py")))
    text = "digest lines\n\n" + ledger.render()
    assert parse_ledger(text) == ledger
    capped = ledger.render(C, 25)
    assert "never push to main" in capped and "a/b.py" not in capped  # rules survive the cap first
    assert ledger.render(C, 1) == ""
    assert ledger.merge(Ledger((Fact("file", "a/b.py"), Fact("file", "c.py")))).values("file") == ["a/b.py", "c.py"]


def test_regexes_are_linear_on_hostile_input() -> None:
    hostile = "/" + "a/" * 20000 + " " + "#" * 20000 + "x" * 50000 + "error" + " must" * 5000
    msg = Message(role="tool", content=(ToolResultBlock(call_id="z", content=(TextBlock(text=hostile),)),))
    started = time.perf_counter()
    extract_facts([Message.text_message("user", hostile), msg])
    assert time.perf_counter() - started < 2.0


async def test_nothing_is_lost_over_20_compactions() -> None:
    ctx = Context(ContextConfig(window=6000), counter=C, hints=False, strategy=DigestStrategy())
    ctx.append(Message.text_message("system", "You are an agent."))
    ctx.append(Message.text_message("user", "Never force-push. Task: migrate the services."))
    expected_paths: list[str] = []
    expected_cmds: list[str] = []
    compactions = 0
    for round_ in range(45):
        path = f"/srv/svc{round_}/config.yaml"
        cmd = f"deploy --service svc{round_}"
        expected_paths.append(path)
        expected_cmds.append(cmd)
        ctx.append(Message.text_message("user", f"next: handle {path}"))
        ctx.extend(bash(round_, cmd, "noise " * 900 + "\nexit code 0"))
        ctx.append(Message.text_message("assistant", "done " + "filler " * 40))
        prepared = await ctx.prepare()
        compactions += prepared.compaction is not None
        text = "\n".join(m.text for m in prepared.messages) + "\n".join(
            c.arguments for m in prepared.messages for c in m.tool_calls
        )
        assert all(p in text for p in expected_paths), round_
        assert all(c in text for c in expected_cmds), round_
        assert "Never force-push" in text
    assert compactions >= 20
    summary = ctx.messages[1].text
    assert "- cmd [exit 0]: deploy --service svc0" in summary


def test_sync_and_async_match() -> None:
    msgs = [Message.text_message("user", "touch src/a.py"), *bash(1, "ls", "ok")]
    assert asyncio.run(asyncio.sleep(0, extract_facts(msgs))) == extract_facts(msgs)
