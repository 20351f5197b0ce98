"""A whole history compacted in one step (issue 14): fit, pairing, determinism, and the ledger's priorities.

The histories are agent sessions drawn by hypothesis: a task, then rounds of shell and editor calls (reads, edits,
listings, failing and passing test runs), follow-ups with rules, so that a compaction at a small window must choose
which facts to keep. Properties checked: the plan fits the budget and keeps tool pairing for both providers; the
same input gives byte-identical output, with the ledger's caches cold or warm, and a summary read back from its text
gives the same next summary as the one this process remembers; the ledger grows past its share of the summary when
the history holds the facts; when the facts a ledger promises to keep first (rules, named identifiers, edited paths,
failed commands) fit its cap, none of them is dropped.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold.compaction._ledger as ledger_module
from contextfold import BytesCounter, Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._config import ContextConfig
from contextfold._formats._validate import validate
from contextfold.compaction import Fact, Ledger, extract_facts, parse_ledger
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._plan import summary_message

C = BytesCounter()
WORDS = ["core", "api", "io", "util", "model", "view", "parser", "store"]


def _call(i: int, name: str, args: dict[str, object], output: str) -> list[Message]:
    call = ToolCallBlock(id=f"call_{i}", name=name, arguments=json.dumps(args))
    result = ToolResultBlock(call_id=f"call_{i}", content=(TextBlock(text=output),))
    return [
        Message(role="assistant", content=(TextBlock(text=f"step {i}"), call)),
        Message(role="tool", content=(result,)),
    ]


@st.composite
def sessions(draw: st.DrawFn) -> list[Message]:
    """An agent session: shell and editor calls over a small repository, some failing, with follow-up tasks."""
    files = [f"src/{a}/{b}.py" for a in WORDS for b in WORDS]
    out = [Message.text_message("system", "You are a coding agent.")]
    out.append(
        Message.text_message("user", f"Fix issue #{draw(st.integers(1, 999))} in {draw(st.sampled_from(files))}.")
    )
    for i in range(draw(st.integers(4, 40))):
        kind = draw(st.sampled_from(["read", "edit", "sed", "test", "find", "user"]))
        path = draw(st.sampled_from(files))
        if kind == "read":
            out += _call(
                i, "bash", {"command": f"cat {path}"}, "\n".join(f"line {j}" for j in range(draw(st.integers(1, 80))))
            )
        elif kind == "edit":
            out += _call(
                i,
                "str_replace_editor",
                {"command": "str_replace", "path": f"/repo/{path}", "old_str": "a", "new_str": "b"},
                "edited",
            )
        elif kind == "sed":
            out += _call(i, "bash", {"command": f"sed -i 's/x/y/' {path}"}, "<returncode>0</returncode>")
        elif kind == "test":
            rc = draw(st.sampled_from([0, 1, 2]))
            out += _call(
                i,
                "bash",
                {"command": f"pytest -q tests/test_{i}.py"},
                f"FAILED tests/test_{i}.py\n<returncode>{rc}</returncode>",
            )
        elif kind == "find":
            listing = "\n".join(f"./{f}" for f in files[: draw(st.integers(1, len(files)))])
            out += _call(i, "bash", {"command": f"find src -name '*{i}*'"}, listing + "\n<returncode>0</returncode>")
        else:
            out.append(Message.text_message("user", f"Next: never edit {path}; job {1000 + i} must finish."))
    return out


WINDOWS = st.sampled_from([1_500, 3_000, 6_000, 12_000])


def _clear_caches() -> None:
    ledger_module._CACHE.clear()
    ledger_module._RENDERED.clear()
    ledger_module._LINE_COSTS.clear()


def _copy(messages: list[Message]) -> list[Message]:
    """New message objects, equal content: nothing cached by identity applies to them."""
    return [m.replace(content=tuple(m.content)) for m in messages]


@settings(max_examples=60, deadline=None)
@given(sessions(), WINDOWS)
def test_one_shot_fits_keeps_pairing_and_is_deterministic(history: list[Message], window: int) -> None:
    config = ContextConfig(window=window)
    plan = DigestStrategy().plan(history, counter=C, config=config)
    if plan is None:
        return
    assert plan.tokens_after <= config.budget
    for provider in ("openai", "anthropic"):
        assert not [p for p in validate(list(plan.messages), provider) if p.blocking], provider
    _clear_caches()
    again = DigestStrategy().plan(_copy(history), counter=C, config=config)
    assert again is not None and again.summary.text == plan.summary.text
    assert again.summary.meta == plan.summary.meta


@settings(max_examples=40, deadline=None)
@given(sessions(), sessions(), WINDOWS)
def test_a_summary_read_back_from_its_text_compacts_like_the_remembered_one(
    first: list[Message], more: list[Message], window: int
) -> None:
    """The origins that set priorities survive the text: a restarted process makes the same next summary."""
    config = ContextConfig(window=window)
    plan = DigestStrategy().plan(first, counter=C, config=config)
    if plan is None or plan.summary.meta.get(ledger_module.OVERFLOW_META_KEY):
        return  # carried overflow lives in meta, which a file round trip drops: a different (documented) input
    tail = [m for m in more if m.role != "system"]
    history = [*plan.messages, *_rename(tail)]
    warm = DigestStrategy().plan(history, counter=C, config=config)
    _clear_caches()
    reread = summary_message("", count=0, archive_ref=None).replace(content=(TextBlock(text=plan.summary.text),))
    cold_history = [reread if m is plan.summary else m for m in _copy(history)]
    cold = DigestStrategy().plan(cold_history, counter=C, config=config)
    assert (warm is None) == (cold is None)
    if warm is not None and cold is not None:
        assert warm.summary.text == cold.summary.text


def _rename(messages: list[Message]) -> list[Message]:
    """The messages with their call ids made distinct from an earlier session's."""
    out = []
    for m in messages:
        blocks = []
        for b in m.content:
            if isinstance(b, ToolCallBlock):
                b = ToolCallBlock(id="n" + b.id, name=b.name, arguments=b.arguments)
            elif isinstance(b, ToolResultBlock):
                b = ToolResultBlock(call_id="n" + b.call_id, content=b.content)
            blocks.append(b)
        out.append(m.replace(content=tuple(blocks)))
    return out


def test_the_ledger_grows_past_its_share_of_the_summary_when_the_history_holds_the_facts() -> None:
    history = [Message.text_message("system", "agent"), Message.text_message("user", "Fix it.")]
    for i in range(120):
        listing = "\n".join(f"/repo/lib/pkg_{i:03d}/dep_{j}.py" for j in range(8))
        output = listing + "\n<returncode>0</returncode>"
        history += _call(i, "bash", {"command": f"cat src/pkg/module_{i:03d}.py"}, output)
    history.append(Message.text_message("user", "Now write the changelog."))
    config = ContextConfig(window=16_000)
    grown = DigestStrategy().plan(history, counter=C, config=config)
    fixed = DigestStrategy(facts_share=0).plan(history, counter=C, config=config)
    assert grown is not None and fixed is not None
    assert grown.details["ledger_tokens"] > config.summary_tokens  # past the summary's whole share
    assert fixed.details["ledger_tokens"] <= config.summary_tokens
    assert grown.details["ledger_tokens"] <= int(config.budget * 0.6) + 2
    assert grown.tokens_after <= config.budget
    # The commands come first either way (and all fit); the room it grew into holds paths of output.
    commands = [f"cat src/pkg/module_{i:03d}.py" for i in range(120)]
    compacted = [c for c in commands if any(c in m.text or c in str(m.tool_calls) for m in grown.compacted)]
    assert all(c in grown.summary.text for c in compacted) and all(c in fixed.summary.text for c in compacted)
    paths = [f"/repo/lib/pkg_{i:03d}/dep_{j}.py" for i in range(120) for j in range(8)]
    assert sum(p in grown.summary.text for p in paths) > 1.5 * sum(p in fixed.summary.text for p in paths)


_ORIGINS = st.sampled_from(["named", "edited", "output"])
_VALUES = st.sampled_from(
    ["src/a.py", "/repo/src/a.py", "src/b/c.py", "tests/t.py", "make test", "pytest -q", "#12", "https://x/y", "job 7"]
    + [f"lib/m{i}.py" for i in range(12)]
)
_FACTS = st.lists(
    st.builds(
        Fact,
        st.sampled_from(["rule", "file", "cmd", "id", "error"]),
        st.one_of(_VALUES, st.text(alphabet="abc/._- ", min_size=1, max_size=24)),
        st.none() | st.integers(0, 2),
        _ORIGINS,
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(_FACTS, st.integers(0, 600))
def test_what_the_ledger_keeps_first_is_never_dropped_when_it_fits(facts: list[Fact], cap: int) -> None:
    """Rules, named identifiers, edited paths and failed commands (priorities 0-2) all fit: all are shown."""
    ledger = Ledger(ledger_module._dedupe(facts))
    first = [f for f in ledger.facts if f.priority <= 2]
    needed = ledger_module.line_cost(C, ledger_module.LEDGER_HEADER)
    needed += sum(ledger_module.line_cost(C, f.line) + 4 for f in first)
    if not first or needed > cap:
        return
    text, rest = ledger.render_with_rest(C, cap)
    shown = parse_ledger(text).facts
    keys = {f.key for f in shown}
    for fact in first:
        named = fact.kind == "file" and any(
            ledger_module._named(g.value, fact.value, 1) for g in shown if g.key != fact.key
        )
        assert fact.key in keys or named, fact
    assert not [f for f in rest if f.priority <= 2]


def test_priorities_of_an_agent_session() -> None:
    msgs = [Message.text_message("user", "Never touch setup.py. See https://bugs.example/7 and #12.")]
    msgs += _call(1, "str_replace_editor", {"command": "str_replace", "path": "/repo/src/a.py", "old_str": "x"}, "ok")
    msgs += _call(2, "str_replace_editor", {"command": "view", "path": "/repo/src/b.py"}, "1\tcode /repo/lib/c.py")
    msgs += _call(3, "bash", {"command": "pytest -q"}, "FAILED\n<returncode>1</returncode>")
    msgs += _call(
        4, "bash", {"command": "ls"}, "pip: https://files.example/x.whl, pid 4242\n<returncode>0</returncode>"
    )
    msgs += _call(5, "bash", {"command": "python run.py > out/log.txt"}, "<returncode>0</returncode>")
    by_value = {f.value: f for f in extract_facts(msgs).facts}
    assert by_value["Never touch setup.py."].priority == 0
    assert by_value["https://bugs.example/7"].priority == 1 and by_value["#12"].priority == 1
    assert by_value["pid 4242"].priority == 1  # a process that may still run
    assert by_value["/repo/src/a.py"].origin == "edited" and by_value["/repo/src/a.py"].priority == 2
    assert by_value["out/log.txt"].origin == "edited"  # the target of a redirect
    assert by_value["pytest -q"].priority == 2 and by_value["ls"].priority == 3
    assert by_value["/repo/src/b.py"].priority == 3  # named in a call
    assert by_value["https://files.example/x.whl"].priority == 3  # a URL of output
    assert by_value["/repo/lib/c.py"].origin == "output" and by_value["/repo/lib/c.py"].priority == 4
    # Each origin reads back from the rendered text.
    text = extract_facts(msgs).render()
    assert {(f.kind, f.value, f.origin) for f in parse_ledger(text).facts} == {
        (f.kind, f.value, f.carried.origin) for f in extract_facts(msgs).facts
    }
