"""The facts ledger: extraction rules, round trip through a summary, carry-over across 20 compactions."""

import asyncio
import dataclasses
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold.compaction._ledger as ledger_module
from contextfold import BytesCounter, Context, ContextConfig, Message, TextBlock, ToolCallBlock, ToolResultBlock
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
    assert "deploy --service svc0" in summary
    assert any(f.key == ("cmd", "deploy --service svc0") and f.exit == 0 for f in parse_ledger(summary).facts)


def test_sync_and_async_match() -> None:
    msgs = [Message.text_message("user", "touch src/a.py"), *bash(1, "ls", "ok")]
    assert asyncio.run(asyncio.sleep(0, extract_facts(msgs))) == extract_facts(msgs)


# -- priority, scan cap, per-message cache (issue 8 follow-up) -------------------------------------------------------

_KIND = st.sampled_from(["rule", "file", "cmd", "id", "error"])
_VALUE = st.text(alphabet="abcdefghij/._-0123456789", min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_KIND, _VALUE), max_size=40), st.integers(min_value=0, max_value=400))
def test_render_keeps_rules_then_ids_then_the_rest(facts: list[tuple[str, str]], cap: int) -> None:
    ledger = Ledger(tuple(Fact(k, v) for k, v in facts))  # type: ignore[arg-type]
    shown = parse_ledger(ledger.render(C, cap)).facts
    rank = {"rule": 0, "id": 1}
    ranks = [rank.get(f.kind, 2) for f in shown]
    assert ranks == sorted(ranks)  # priority order is kept in what is rendered
    assert sum(C.count_text(f.render()) + 1 for f in shown) <= cap  # the cap holds
    # An identifier is only left out when its own line did not fit what rules and ids had left.
    ids = [f for f in ledger.ordered() if f.kind == "id"]
    others = [f for f in shown if f.kind not in ("rule", "id")]
    if others and ids:
        longest_other = max(C.count_text(f.render()) for f in others)
        for fact in ids:
            if C.count_text(fact.render()) <= longest_other:
                assert fact in shown or any(s.key == fact.key for s in shown)


def test_first_message_url_survives_a_tight_cap() -> None:
    msgs = [Message.text_message("user", "Broken since https://example.com/issue/7 -- see there.")]
    for i in range(60):
        msgs += bash(i, f"cat src/pkg/mod_{i}.py", f"src/pkg/mod_{i}.py: ok")
    text = extract_facts(msgs).render(C, 120)
    assert "https://example.com/issue/7" in text and "mod_59.py" in text and "mod_0.py" not in text


def test_long_output_is_scanned_on_head_and_tail_and_cached() -> None:
    filler = "\n".join("x" * 70 for _ in range(5000))  # 355 KB
    output = "start: /repo/src/head.py\n" + filler + "\n/repo/src/tail.py\nValueError: late"
    msgs = bash(1, "run it", output + "\n<returncode>3</returncode>")
    started = time.perf_counter()
    first = extract_facts(msgs)
    assert time.perf_counter() - started < 0.5
    assert {"/repo/src/head.py", "/repo/src/tail.py"} <= set(first.values("file"))
    assert Fact("cmd", "run it", 3) in first.facts and first.values("error") == ["ValueError: late"]
    assert all(id(m) in ledger_module._CACHE for m in msgs)
    assert extract_facts(msgs) == first  # the cached scan gives the same ledger
    # The exit status belongs to the set of messages, not to the cached call: without the result it is unknown.
    assert Fact("cmd", "run it") in extract_facts(msgs[:1]).facts


def test_job_ids_keep_case_and_non_ascii_text() -> None:
    ledger = extract_facts([Message.text_message("assistant", "Job ID: AbC123 started; café Task 9x done")])
    assert {"job AbC123", "task 9x"} <= set(ledger.values("id"))


# -- fast paths equal the plain regular expressions ----------------------------------------------------------------

_WORDS = st.sampled_from(
    [
        "task",
        "job",
        "run",
        "rerun",
        "subtask",
        "process",
        "pid",
        "request",
        "reservation",
        "order",
        "booking",
        "id",
        "_id",
        "42",
        "a7",
        "x-9",
        ":",
        "=",
        "#",
        " ",
        "\n",
        "\t",
        "the",
        "exit",
        "exited with",
        "code",
        "status",
        "<returncode>",
        "</returncode>",
        "-1",
        "Error",
        "ValueError:",
        "error:",
        "FAILED",
        "FAIL ",
        "fatal:",
        "Traceback (most recent call last):",
        "E   ",
        "\r",
        "\r\n",
        "\x0c",
        "\u2028",
        "é",
        "ı",
        "İ",
        "ſ",
        "K",
        "中文",
        "run ",
        "pid=",
        "TASK",
        "Job",
        "#12",
        "commit ",
        "3f2a9c1",
        "https://e.com/x",
    ]
)
_TEXTS = st.lists(_WORDS, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_job_matches_equal_the_plain_pattern(text: str) -> None:
    lowered = text.lower()
    plain = [(m.span(), m.group(1)) for m in ledger_module._JOB_LOWER.finditer(lowered)]
    fast = [(m.span(), m.group(1)) for m in ledger_module._job_matches(lowered)]
    assert fast == plain


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_error_lines_equal_the_plain_scan(text: str) -> None:
    def errors(lines: list[str]) -> list[str]:
        return [line for line in lines if len(line) < 400 and ledger_module._ERROR_LINE.match(line)]

    assert errors(list(ledger_module._error_lines(text))) == errors(text.splitlines())
    assert errors(list(ledger_module._error_lines(text, text.lower()))) == errors(text.splitlines())


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_exit_search_equals_the_plain_search(text: str) -> None:
    plain = ledger_module._EXIT.search(text)
    fast = ledger_module._exit_search(text)
    assert (fast.span() if fast else None) == (plain.span() if plain else None)


# -- verbatim commands, overflow carry, size estimate ---------------------------------------------------------------


def test_commands_are_kept_verbatim_inside_the_line() -> None:
    command = "sed -i 's/    return x/        return y/' src/a.py"
    facts = extract_facts(bash(1, command, "<returncode>0</returncode>"))
    assert Fact("cmd", command, 0) in facts.facts
    assert parse_ledger(facts.render()).values("cmd") == [command]


def test_line_cost_is_the_counted_line_plus_newline() -> None:
    for line in ("- file: /a/b/c.py", "- cmd [exit 1]: pytest -q", "Facts ledger"):
        assert ledger_module.line_cost(C, line) == C.count_text(line) + 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_KIND, _VALUE), max_size=40), st.integers(min_value=0, max_value=600))
def test_render_with_rest_splits_the_ledger(facts: list[tuple[str, str]], cap: int) -> None:
    ledger = Ledger(ledger_module._dedupe(Fact(k, v) for k, v in facts))  # type: ignore[arg-type]
    text, rest = ledger.render_with_rest(C, cap)
    assert text == ledger.render(C, cap)
    shown = parse_ledger(text).facts
    # Every fact is shown, left out, or a file already named by a shown fact.
    for fact in ledger.facts:
        assert fact in shown or fact in rest or (fact.kind == "file" and any(fact.value in f.value for f in shown))
    assert not set(shown) & set(rest)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_KIND, _VALUE), min_size=1, max_size=40), st.integers(min_value=0, max_value=600))
def test_ledger_size_is_within_the_cap(facts: list[tuple[str, str]], cap: int) -> None:
    msgs = [Message.text_message("user", "\n".join(v for _, v in facts))]
    size = ledger_module.ledger_size(msgs, C, cap)
    assert 0 <= size <= cap
    if not extract_facts(msgs).facts:
        assert size == 0


def test_facts_cut_by_a_tight_compaction_come_back_at_the_next() -> None:
    """A large latest turn leaves the ledger little room; the facts it cut ride along and return later."""
    strategy = DigestStrategy()
    history: list[Message] = [Message.text_message("user", "Fix the bug. Never edit tests/.")]
    for i in range(60):
        history += bash(i, f"cat src/pkg/module_{i:02d}.py", f"contents of src/pkg/module_{i:02d}.py " + "x" * 200)
    big_turn = Message.text_message("user", "observation " + "y" * 9_000)
    config = ContextConfig(window=4_000)
    plan = strategy.plan([*history, big_turn], counter=C, config=config)
    assert plan is not None and plan.boundary.protected
    overflow = plan.summary.meta.get(ledger_module.OVERFLOW_META_KEY)
    assert overflow, "the tight compaction had to leave facts out"
    cut = parse_ledger(ledger_module.LEDGER_HEADER + "\n" + "\n".join(overflow)).values("file")
    assert cut and not any(path in plan.summary.text for path in cut)
    # The carried facts are part of the summary's facts, so the next compaction sees them.
    assert set(cut) <= set(extract_facts([plan.summary]).values("file"))
    later = [plan.summary, big_turn, Message.text_message("assistant", "ok")]
    later += [Message.text_message("user", f"short step {i}") for i in range(3)]
    roomy = strategy.plan(
        later,
        counter=C,
        config=ContextConfig(window=40_000),
    )
    if roomy is None:  # nothing over the reserve: force it with a tiny reserve
        roomy = strategy.plan(
            later, counter=C, config=ContextConfig(window=40_000, reserve_ratio=0.0, min_recent_messages=0)
        )
    assert roomy is not None
    assert all(path in roomy.summary.text for path in cut)


_ANY_VALUE = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_KIND, st.one_of(_VALUE, _ANY_VALUE), st.none() | st.integers(-3, 3)), max_size=30),
    st.integers(min_value=0, max_value=600),
)
def test_remembered_ledger_equals_parsing_it(facts: list[tuple[str, str, int | None]], cap: int) -> None:
    """The by-text memory of rendered ledgers gives exactly what parsing the text gives."""
    ledger = Ledger(tuple(Fact(k, ledger_module._single_line(v), e) for k, v, e in facts))  # type: ignore[arg-type]
    text = "Summary of earlier conversation (3 messages, archived at a.jsonl)\ndigest\n\n" + ledger.render(C, cap)
    if ledger_module.LEDGER_HEADER not in text:
        return
    assert parse_ledger(text) == ledger_module._parse_ledger_lines(text, text.find(ledger_module.LEDGER_HEADER))


def test_id_argument_with_a_line_break_stays_one_ledger_line() -> None:
    call = ToolCallBlock(id="c", name="lookup", arguments='{"order_id": "A1\\rB2"}')
    facts = extract_facts([Message(role="assistant", content=(call,))])
    assert Fact("id", "order_id=A1 B2") in facts.facts
    assert parse_ledger(facts.render()).facts == facts.facts


def _ids_reference(text: str, hashes: bool) -> list[str]:
    """`_ids` written plainly: every rule a regex over the whole text, the job rule with IGNORECASE."""
    m = ledger_module
    out = [u.rstrip(".,:;") for u in m._URL.findall(text)]
    out += [f"#{n}" for n in m._ISSUE.findall(text)]
    out += m._COMMIT.findall(text)
    if hashes:
        out += [h for h in m._HASH.findall(text) if any(c.isdigit() for c in h) and any(c.isalpha() for c in h)]
    for match in m._JOB.finditer(text):
        value = text[match.start(1) : match.end(1)]
        if value.lower() not in m._JOB_STOP and any(c.isdigit() for c in value):
            out.append(f"{text[match.start() : match.end()].split()[0].rstrip(':=#').lower()} {value}")
    return out


@settings(max_examples=400, deadline=None)
@given(_TEXTS, st.booleans())
def test_ids_equal_the_plain_rules(text: str, hashes: bool) -> None:
    assert ledger_module._ids(text, hashes=hashes) == _ids_reference(text, hashes)


def _paths_reference(text: str) -> list[str]:
    """`_paths` on the whole text (no line prefilter)."""
    m = ledger_module
    no_urls = m._URL.sub(" ", text)
    found = [x.group(0).rstrip("/.,:;") for x in m._ABS_PATH.finditer(no_urls)]
    found += [x.group(0) for x in m._REL_PATH.finditer(no_urls)]
    return [p for p in found if p.count("/") >= 1 and len(p) > 3]


_PATH_PARTS = ["/", "/usr", "/lib", "src", "/app.py", "a.py", "~", "..", ".", " ", "\n", "\r", "\r\n", "\u2028"]
_PATH_PARTS += ["x", "é", "https://e.com/a/b.py", "://", ":", "-", "@", "\t"]
_PATH_TEXTS = st.lists(st.sampled_from(_PATH_PARTS), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(_PATH_TEXTS)
def test_paths_on_slash_lines_equal_the_whole_text(text: str) -> None:
    assert ledger_module._paths(text) == _paths_reference(text)


# Lines from empty to longer than `_DENSE_SLASH_CHARS`, some with a slash: texts on both sides of the split's choice.
_SLASH_LINE_TEXTS = st.lists(
    st.builds(
        lambda n, slash, tail: "x" * n + ("/" if slash else "") + tail,
        st.integers(0, 450),
        st.booleans(),
        st.sampled_from(["", "a.py", "\r", " é"]),
    ),
    max_size=30,
).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(_SLASH_LINE_TEXTS)
def test_slash_lines_are_the_lines_holding_a_slash(text: str) -> None:
    assert ledger_module._slash_lines(text) == "\n".join(line for line in text.split("\n") if "/" in line)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_TEXTS, _TEXTS.map(str.lower)))
def test_word_starts_from_the_re2_hit_equal_the_plain_searches(text: str) -> None:
    m = ledger_module
    for words, first in ((m._JOB_WORDS, m._JOB_WORD), (m._ERROR_WORDS_LOWER, m._ERROR_WORD_LOWER)):
        plain = sorted(i for w in words for i in range(len(text)) if text.startswith(w, i))
        assert m._word_starts(text, words, first) == m._word_starts(text, words) == plain


_PLAIN_ABS_PATH = re.compile(r"(?<![\w.:/~-])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?")
_PLAIN_REL_PATH = re.compile(r"(?<![\w./:~-])[\w.@+-]+(?:/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}\b")
"""The path rules as first written: `_ABS_PATH` and `_REL_PATH` are faster forms that must match exactly the same."""
_RULE_TEXTS = st.one_of(_PATH_TEXTS, st.text(alphabet="ab1é_/.~:-@+ \n\t#", max_size=60))


@settings(max_examples=600, deadline=None)
@given(_RULE_TEXTS)
def test_path_rules_match_as_their_plain_forms(text: str) -> None:
    m = ledger_module
    for fast, plain in ((m._ABS_PATH, _PLAIN_ABS_PATH), (m._REL_PATH, _PLAIN_REL_PATH)):
        assert [(x.span(), x.group(0)) for x in fast.finditer(text)] == [
            (x.span(), x.group(0)) for x in plain.finditer(text)
        ]


def test_path_rules_match_as_their_plain_forms_at_the_edges() -> None:
    m = ledger_module
    texts = ["~/a/b", "x~/a/b", "../a/b", "x../a/b", ":/a/b", " /a/b/", "./a", "a/b.py", "-a/b.py", "@a/b.py", "/a"]
    texts += ["..//a/b", "~~/a/b", "a.b/c.d.py x/y.z", "/a/b:/c/d", "x/y.py\n/u/v"]
    for text in texts:
        for fast, plain in ((m._ABS_PATH, _PLAIN_ABS_PATH), (m._REL_PATH, _PLAIN_REL_PATH)):
            assert [x.span() for x in fast.finditer(text)] == [x.span() for x in plain.finditer(text)], text


_ASCII_RULE_TEXTS = st.one_of(
    st.lists(st.sampled_from([p for p in _PATH_PARTS if p.isascii()] + ["b.c", "+", "x/y.pyz", "_"]), max_size=40).map(
        "".join
    ),
    st.text(alphabet="ab1_/.~:-@+ \n\t#Z9", max_size=60),
)


@settings(max_examples=800, deadline=None)
@given(_ASCII_RULE_TEXTS)
def test_rel_path_first_match_in_re2_is_pythons(text: str) -> None:
    """`_REL_PATH_ASCII` (RE2, the look-behind as a consumed character) finds `_REL_PATH`'s first match, if any."""
    first = ledger_module._REL_PATH_ASCII.get().search(text)
    plain = ledger_module._REL_PATH.search(text)
    assert (first.span(1) if first else None) == (plain.span() if plain else None)
    assert ledger_module._paths(text) == _paths_reference(text)


def test_rel_path_first_match_in_re2_at_the_edges() -> None:
    texts = ["a/b.py", "-a/b.py", "@a/b.py", "+a/b.py", "x/a/b.py", "./a/b.py", ":a/b.py", " a/b.py", "a/b.py c/d.rs"]
    texts += ["a/b.py+c/d.py", "a/b.py@c/d.py", "a/b.toolongext", "a/b.py1", "~a/b.py", "é a/b.py"[2:], ""]
    for text in texts:
        first = ledger_module._REL_PATH_ASCII.get().search(text)
        plain = ledger_module._REL_PATH.search(text)
        assert (first.span(1) if first else None) == (plain.span() if plain else None), text
        assert ledger_module._paths(text) == _paths_reference(text), text


@settings(max_examples=200, deadline=None)
@given(_KIND, st.one_of(_VALUE, _ANY_VALUE), st.none() | st.integers(-3, 3))
def test_cached_fact_line_and_key_equal_fresh(kind: str, value: str, exit_: int | None) -> None:
    fact = Fact(kind, value, exit_)  # type: ignore[arg-type]
    status = f" [exit {exit_}]" if exit_ is not None else ""
    for _ in range(2):  # first access computes, second reads the cache
        assert fact.line == fact.render() == f"- {kind}{status}: {value}"
        assert fact.key == (kind, value)
    assert dataclasses.fields(fact) == dataclasses.fields(Fact("file", "x"))
    assert [f.name for f in dataclasses.fields(fact)] == ["kind", "value", "exit", "origin"]
    assert fact == Fact(kind, value, exit_) and hash(fact) == hash(Fact(kind, value, exit_))  # type: ignore[arg-type]


def _summary_with(facts: list[tuple[str, str, int | None]], cap: int, *, remembered: bool) -> Message:
    from contextfold.compaction._plan import summary_message

    ledger = Ledger(ledger_module._dedupe(Fact(k, v, e) for k, v, e in facts))  # type: ignore[arg-type]
    text = ledger.render(C, cap)
    if not remembered:
        ledger_module._RENDERED.clear()  # read back by parsing, with no remembered costs
    return summary_message("digest\n\n" + text, count=3, archive_ref="a.jsonl")


def _plain_ledger_size(messages: list[Message], cap: int) -> int:
    """`ledger_size` written plainly: every distinct fact of every message, newest first, summed up to the cap."""
    used, seen = ledger_module.line_cost(C, ledger_module.LEDGER_HEADER), set()
    if used > cap:
        return 0
    for message in reversed(messages):
        for fact in ledger_module._scan(message).facts:
            if fact.key not in seen:
                seen.add(fact.key)
                used += ledger_module.line_cost(C, fact.line)
    return min(used, cap) if seen else 0


_FACTS = st.lists(st.tuples(_KIND, _VALUE, st.none() | st.integers(-2, 2)), max_size=30)


@settings(max_examples=150, deadline=None)
@given(_FACTS, st.lists(st.tuples(_KIND, _VALUE), max_size=8), st.integers(0, 900), st.integers(0, 900), st.booleans())
def test_carried_ledger_fast_paths_equal_the_plain_ones(
    carried: list[tuple[str, str, int | None]],
    newer: list[tuple[str, str]],
    render_cap: int,
    cap: int,
    remembered: bool,
) -> None:
    # A summary followed by newer messages: sizing by the summary's summed costs and merging its facts without
    # deduplicating them again give what the plain rules give over every fact.
    summary = _summary_with(carried, render_cap, remembered=remembered)
    later = [Message.text_message("user", "\n".join(v for _, v in newer))] if newer else []
    msgs = [summary, *later]
    assert ledger_module.ledger_size(msgs, C, cap) == _plain_ledger_size(msgs, cap)
    entries = [ledger_module._scan(m) for m in msgs]
    exits = ledger_module._exits_of(entries)
    everything = [f for entry in reversed(entries) for f in ledger_module._filled(entry, exits)]
    assert extract_facts(msgs).facts == ledger_module._dedupe(everything)


def test_job_ids_and_errors_of_a_long_result_are_read_in_its_head_and_tail() -> None:
    filler = "\n".join("x" * 70 for _ in range(85))  # 6 KB: the whole output is inside the scan window of issue numbers
    output = "job 4242 started\n" + filler + "\njob 777 in the middle, see #12\n" + filler + "\nValueError: end\n"
    ledger = extract_facts(bash(1, "make", output))
    ids = ledger.values("id")
    assert "job 4242" in ids and "#12" in ids and not any("777" in i for i in ids)
    assert ledger.values("error") == ["ValueError: end"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Do not", " never", "must", "-only", "•always", "x", ". ", "\n", "\t", "don't", "ok."]),
        max_size=40,
    ).map("".join)
)
def test_rules_equal_the_plain_sentence_scan(text: str) -> None:
    # The whole-text precheck finds a rule word whenever a sentence holds one.
    m = ledger_module
    plain: list[str] = []
    for sentence in m._SENTENCE_END.split(text):
        sentence = sentence.strip(" -*•\t")
        if 8 <= len(sentence) <= 400 and m._RULE_WORDS.search(sentence) and len(plain) < m.MAX_RULES_PER_MESSAGE:
            plain.append(m._clip(sentence))
    assert m._rules(text) == plain


# -- exit statuses, hashes, rendering and merging fast paths (plain references below) -------------------------------

_EXIT_PARTS = ["exit", "EXIT", "Exit", "ex", "EX", "it", "iT", "t", "T", "İ", "ı", "ſ", "i\u0307", "exited with"]
_EXIT_PARTS += [" code", " status", ":", "=", " ", "0", "-1", "42", "<returncode>", "</returncode>", "<RETURNCODE>"]
_EXIT_PARTS += ["\r", "\x0b", "\x85", "\u2028", "\n", "中文", "é", "K"]
_EXIT_PARTS += [
    "exıt 1",
    "EXİT=2",
    "Exİt code 3",
    "exi\u0307t 4",
    "ExIt: 5",
    "exited with code 6",
    "<returncode>7</returncode>",
]
_PAD = st.sampled_from([0, 1, 1990, 1996, 1999, 2000, 2001, 2004, 3990, 4010])
_EXIT_CORE = st.lists(st.sampled_from(_EXIT_PARTS), max_size=12).map("".join)
_EXIT_TEXTS = st.one_of(
    st.builds(lambda head, pad, tail: head + "x" * pad + tail, _EXIT_CORE, _PAD, _EXIT_CORE),
    # A keyword astride the 2,000-character head or tail window of a text just over or under that length.
    st.builds(
        lambda core, size, back: ("y" * max(0, size - len(core) - back) + core + "z" * back)[-size:],
        _EXIT_CORE,
        st.sampled_from([1999, 2000, 2001, 2002, 2005, 4001]),
        st.integers(0, 12),
    ),
    st.builds(lambda core, lead: "y" * lead + core + "z" * 2000, _EXIT_CORE, st.integers(1988, 2000)),
)


@settings(max_examples=400, deadline=None)
@given(_EXIT_TEXTS)
def test_exit_search_on_any_text_equals_the_plain_search(text: str) -> None:
    plain = ledger_module._EXIT.search(text)
    fast = ledger_module._exit_search(text)
    assert (fast.span() if fast else None) == (plain.span() if plain else None)


def test_exit_keyword_letters_fold_only_to_themselves_and_i_variants() -> None:
    """The premise of `_exit_search`'s lower-case test, over every character: under IGNORECASE a letter of ``exit``
    or ``<returncode>`` matches only characters that ``str.lower`` turns into it (or, for ``i``, into i̇ or ı)."""
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for letter in set("exit<returncode>"):
        folded = {c.lower() for c in re.findall(re.escape(letter), everything, re.IGNORECASE)}
        assert folded <= ({letter, "i\u0307", "\u0131"} if letter == "i" else {letter}), letter


def _result_exits_reference(message: Message) -> tuple[tuple[str, int], ...]:
    out = []
    for result in message.tool_results:
        texts = [b.text for b in result.content if isinstance(b, TextBlock)]
        if texts:
            m = ledger_module._EXIT.search(texts[0][:2000]) or ledger_module._EXIT.search(texts[-1][-2000:])
            if m is not None:
                out.append((result.call_id, int(m.group(1) or m.group(2))))
    return tuple(out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_EXIT_TEXTS, max_size=3), min_size=1, max_size=3))
def test_result_exits_equal_the_plain_search(results: list[list[str]]) -> None:
    message = Message(
        role="tool",
        content=tuple(
            ToolResultBlock(call_id=f"c{i}", content=tuple(TextBlock(text=t) for t in texts))
            for i, texts in enumerate(results)
        ),
    )
    assert ledger_module._result_exits(message) == _result_exits_reference(message)


_HEX_PARTS = ["3f2a9c1", "deadbeef", "0123456789abcdef0123456789abcdef01234567", "abcdef", "a" * 41, "1" * 7, "g"]
_HEX_PARTS += [
    "/",
    ".",
    "-",
    "_",
    " ",
    "\n",
    "x",
    "é",
    "Ab",
    "\u2028",
    "#",
    "commit ",
    "ſ",
    "İ",
    "ı",
    "\r",
    "\x0b",
    "\x85",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_HEX_PARTS), max_size=30).map("".join))
def test_hashes_equal_the_plain_findall(text: str) -> None:
    assert ledger_module._hashes(text) == ledger_module._HASH.findall(text)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(_HEX_PARTS), max_size=10).map("".join),
    st.sampled_from([1_490, 1_500, 3_990, 4_000, 11_990, 12_000, 15_990, 16_000, 16_010, 20_000]),
    st.lists(st.sampled_from(_HEX_PARTS), max_size=10).map("".join),
    st.booleans(),
)
def test_ids_of_long_texts_equal_the_plain_rules(head: str, size: int, tail: str, hashes: bool) -> None:
    # Hashes astride the scan limits: the text is cut by `_scanned` first, as when a message is scanned.
    text = ledger_module._scanned(head + ("ab12 \n" * size)[: max(0, size - len(head) - len(tail))] + tail)
    assert ledger_module._ids(text, hashes=hashes) == _ids_reference(text, hashes)


def _as_read(facts: object) -> list[tuple[str, str, int | None, str]]:
    return [(f.kind, f.value, f.exit, f.origin) for f in facts]  # type: ignore[attr-defined]


_ORIGIN = st.sampled_from(["named", "edited", "output"])


class _LongLinesCost(BytesCounter):
    """Not additive: a text over 40 characters costs 3 more, so a packed line costs more than its pieces."""

    key = "long-lines"

    def count_text(self, text: str) -> int:
        return super().count_text(text) + (3 if len(text) > 40 else 0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            _KIND,
            st.sampled_from(["a/b.py", "a/b", "/r/a/b.py", "b.py", "x", "", "a/b.py x", "https://h/p", "#7"]),
            st.none() | st.integers(0, 2),
            _ORIGIN,
        ),
        max_size=25,
    ),
    st.booleans(),
    st.integers(0, 300),
    st.sampled_from([C, _LongLinesCost()]),
)
def test_render_with_rest_fits_keeps_by_priority_and_reads_back(
    facts: list[tuple[str, str, int | None, str]], dedupe: bool, cap: int, counter: BytesCounter
) -> None:
    """The cap holds, nothing is lost silently, priorities decide, and the text reads back to what it shows."""
    m = ledger_module
    # Duplicate keys (a ledger built by hand) and distinct ones (the usual, deduplicated ledger) both.
    made = [Fact(k, v, e, o) for k, v, e, o in facts]  # type: ignore[arg-type]
    ledger = Ledger(m._dedupe(made) if dedupe else tuple(made))
    text, rest = ledger.render_with_rest(counter, cap)
    assert (text, rest) == ledger.render_with_rest(counter, cap)  # deterministic
    if not text:
        assert not ledger.facts or counter.count_text(m.LEDGER_HEADER) + 1 > cap or rest
        return
    assert sum(m.line_cost(counter, line) for line in text.split("\n")) <= cap
    shown = parse_ledger(text).facts
    # The text reads back exactly (origins included) to what this process remembers for it.
    assert _as_read(m._parse_ledger_lines(text, 0).facts) == _as_read(m._RENDERED[text][0])
    keys = {f.key for f in shown}
    # Every fact is shown, left out, or a path named inside a shown fact.
    for fact in ledger.facts:
        named = fact.kind == "file" and any(m._named(g.value, fact.value, 1) for g in shown if g.key != fact.key)
        assert fact.key in keys or fact in rest or named
    if dedupe:  # one fact per key: shown or left out, not both
        assert not keys & {f.key for f in rest}
    # A fact left out did not fit when its turn came: any shown fact after it in priority order is cheaper.
    order = {id(f): i for i, f in enumerate(ledger.by_priority())}
    heads = max(m.line_cost(counter, h) for h in [*m._GROUP_HEADS.values(), "- cmd [exit 2]:"])
    taken = [f for f in ledger.facts if f.key in keys]
    for left in rest:
        for fact in taken:
            if order[id(fact)] > order[id(left)]:
                assert m._piece_cost(counter, m._piece(fact)) < m._piece_cost(counter, m._piece(left)) + heads


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_KIND, st.sampled_from("abcdef"), st.none() | st.integers(0, 2)), max_size=12),
    st.lists(st.tuples(_KIND, st.sampled_from("abcdef"), st.none() | st.integers(0, 2)), max_size=12),
)
def test_merge_carried_equals_deduplicating_everything(
    newer: list[tuple[str, str, int | None]], carried: list[tuple[str, str, int | None]]
) -> None:
    m = ledger_module
    new = m._dedupe(Fact(k, v, e) for k, v, e in newer)  # type: ignore[arg-type]
    old = m._dedupe(Fact(k, v, e) for k, v, e in carried)  # type: ignore[arg-type]
    scan = m._Scan(Message.text_message("user", "x"), old, (), (), summary=True)
    assert m._merge_carried(new, scan) == m._dedupe([*new, *old])


def test_result_exits_at_the_window_edges() -> None:
    # Every status phrase ending or starting at each offset around the 2,000-character windows, in one or two blocks.
    phrases = ["exit 1", "exıt 2", "EXİT=3", "exited with code 4", "<returncode>5</returncode>", "Exit code: -6"]
    for phrase in phrases:
        for size in range(1994, 2008):
            for back in range(4):
                text = "y" * (size - len(phrase) - back) + phrase + "z" * back
                for texts in ([text], [text, "ok"], ["ok", text]):
                    message = Message(
                        role="tool",
                        content=(ToolResultBlock(call_id="c", content=tuple(TextBlock(text=t) for t in texts)),),
                    )
                    assert ledger_module._result_exits(message) == _result_exits_reference(message), (phrase, size)


_PIECES = st.sampled_from(["a", "b.py", "/", "src", "x/", "//", " ", "=", "-", ".", "é", "cat ", "a/b", "\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=8).map("".join), max_size=6), st.lists(_PIECES, max_size=5).map("".join))
def test_name_index_never_invents_a_name_and_finds_the_ends_of_paths(values: list[str], wanted: str) -> None:
    """`_Names` says a path is named only where `_named` (the plain scan) does, and always for ``a/b.py`` ends."""
    m = ledger_module
    names = m._Names({wanted})
    for value in values:
        names.add(value)
    text = "".join("\n" + v for v in values)
    for times in (1, 2, 3):
        if names.count(wanted, times):
            assert m._named(text, wanted, times)
    ends = sum(
        1
        for run in m._PATH_RUN.findall(text)
        for tail in [run, *(run[i + 1 :] for i, c in enumerate(run) if c == "/")]
        if tail == wanted
    )
    if m._PATH_RUN.fullmatch(wanted) and "/" in wanted:  # a path: named exactly where it ends a run of one
        assert names.count(wanted, 1) == (ends >= 1)
    assert names.of(values).counts == names.counts


def test_a_rendered_ledger_followed_by_a_note_reads_back_from_the_cache() -> None:
    _read_ledger = ledger_module._read_ledger
    counter = BytesCounter()
    ledger = extract_facts(
        [Message(role="user", content=(TextBlock(text="fix /repo/src/app/main.py and /repo/tests/test_main.py"),))]
    )
    text, _ = ledger.render_with_rest(counter, 500)
    note = "\n\nThe original messages are archived: read them with read_offloaded(path='x')."
    facts, known = _read_ledger("Summary.\n\n" + text + note)
    assert facts == parse_ledger(text).facts == _read_ledger("Summary.\n\n" + text)[0]
    assert known is not None  # the costs of the rendered ledger came back with it: nothing was parsed
    assert _read_ledger("Summary.\n\n" + text.replace("main.py", "other.py") + note)[1] is None
