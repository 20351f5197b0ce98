"""The e2e checks on the recorded sample requests and on generated ones (no client needed: default run)."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
import wire_checks as checks
from hypothesis import given
from hypothesis import strategies as st
from sample_requests import SAMPLE_KEY, encode, load, sample_body
from upstream import Recorded

import contextfold

CLAUDE_TURNS = ["claude_code/turn-0", "claude_code/turn-1", "claude_code/turn-2"]
CODEX_TURNS = ["codex/turn-0", "codex/turn-1", "codex/turn-2"]


def parsed(name: str, index: int = 0, body: Any = None) -> checks.WireRequest:
    request = checks.parse_request(load(name, index, body=body))
    assert request is not None
    return request


# -- parsing: raw spans of the history ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@given(
    history=st.lists(json_values, max_size=6),
    system=json_values,
    separators=st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")]),
    indent=st.sampled_from([None, 1]),
    first=st.booleans(),
)
def test_history_elements_are_the_raw_text_of_each_element(
    history: list[Any], system: Any, separators: tuple[str, str], indent: int | None, first: bool
) -> None:
    body = {"messages": history, "model": "m", "system": system} if first else {"system": system, "messages": history}
    text = json.dumps(body, separators=separators, indent=indent)
    request = checks.parse_request(Recorded(0, "POST", "/v1/messages", (), text.encode(), "messages"))
    assert request is not None
    raw = checks.history_elements(request)
    assert [json.loads(r) for r in raw] == history
    assert all(r in text for r in raw)
    assert json.loads(request.raw_fields["system"]) == system


# -- prefix stability -----------------------------------------------------------------------------------------


def test_claude_code_turns_are_cache_stable_modulo_breakpoints_and_string_form() -> None:
    turns = [parsed(name, i) for i, name in enumerate(CLAUDE_TURNS)]
    for prev, nxt in itertools.pairwise(turns):
        # The breakpoint moves to the newest message and the system-role message switches from block to string.
        assert checks.prefix_relation(prev, nxt) == (True, False), checks.first_difference(prev, nxt)
    first, second = turns[0].history[1]["content"], turns[1].history[1]["content"]
    assert isinstance(first, list) and "cache_control" in first[0] and isinstance(second, str)


def test_codex_turns_are_raw_identical_prefixes() -> None:
    turns = [parsed(name, i) for i, name in enumerate(CODEX_TURNS)]
    for prev, nxt in itertools.pairwise(turns):
        assert checks.prefix_relation(prev, nxt) == (True, True)


@pytest.mark.parametrize("names", [CLAUDE_TURNS, CODEX_TURNS], ids=["claude", "codex"])
def test_a_rewritten_old_element_is_a_break(names: list[str]) -> None:
    body = sample_body(names[1])
    history = body.get("messages") or body["input"]
    history[-1] = copy.deepcopy(history[-1])
    text_holder = json.dumps(history[-1]).replace("END-", "END=")  # a tool output edited in place
    history[-1] = json.loads(text_holder)
    requests = [load(names[0], 0), load(names[1], 1, body=body), load(names[2], 2)]
    report = checks.prefix_report(requests)
    assert [t[2] for t in report.transitions] == ["extends", "break"]
    assert not report.ok and "1->2" in report.problems[0]


def test_tools_or_system_that_change_break_the_prefix() -> None:
    body = sample_body("claude_code/turn-1")
    body["tools"] = body["tools"][::-1]
    assert checks.prefix_relation(parsed("claude_code/turn-0"), parsed("claude_code/turn-1", 1, body)) == (False, False)
    body = sample_body("claude_code/turn-1")
    body["system"][2]["text"] += " "
    assert checks.prefix_relation(parsed("claude_code/turn-0"), parsed("claude_code/turn-1", 1, body))[0] is False


def test_only_cache_control_and_lone_string_content_are_normalized() -> None:
    a = '{"role":"user","content":"hi"}'
    assert checks.normalized_element(a) == checks.normalized_element(
        '{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}'
    )
    assert checks.normalized_element(a) != checks.normalized_element('{"content":"hi","role":"user"}')  # key order
    assert checks.normalized_element(a) != checks.normalized_element('{"role":"user","content":"hi "}')


@pytest.mark.parametrize(
    ("names", "compact"),
    [
        (["claude_code/turn-2", "claude_code/after-compact"], "claude_code/compact-request"),
        (["codex/turn-2", "codex/after-compact-local"], "codex/compact-local-request"),
    ],
)
def test_a_client_compaction_is_not_counted_as_a_break(names: list[str], compact: str) -> None:
    requests = [load(names[0], 0), load(compact, 1), load(names[1], 2)]
    report = checks.prefix_report(requests)
    assert [t[2] for t in report.transitions] == ["compaction"]
    assert report.without_compaction == 0 and report.ok
    # Also without the compaction request in between: the continuation summary alone marks it.
    report = checks.prefix_report([requests[0], requests[2]])
    assert [t[2] for t in report.transitions] == ["compaction"]


def test_a_codex_compaction_item_marks_a_compaction() -> None:
    before = load("codex/turn-2", 0)
    after = load("codex/after-compact-remote", 1)
    assert [t[2] for t in checks.prefix_report([before, after]).transitions] == ["compaction"]


def test_a_contextfold_summary_marks_a_compaction() -> None:
    body = sample_body("claude_code/turn-2")
    summary = checks.SUMMARY_HEADER_PREFIX + "3 messages)\nran seq"
    body["messages"][2:4] = [{"role": "user", "content": summary}, {"role": "assistant", "content": "ok"}]
    body["messages"][-1] = sample_body("claude_code/turn-2")["messages"][-1]
    requests = [load("claude_code/turn-1", 0), load("claude_code/turn-2", 1, body=body)]
    assert [t[2] for t in checks.prefix_report(requests).transitions] == ["compaction"]


def test_the_stable_fraction_threshold() -> None:
    report = checks.PrefixReport(transitions=[(i, i + 1, "extends", True) for i in range(19)])
    report.transitions.append((19, 20, "break", False))
    assert report.stable_fraction == 0.95
    report.transitions.append((20, 21, "compaction", False))
    assert report.stable_fraction == 0.95 and report.without_compaction == 20


# -- pairing ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        *CLAUDE_TURNS,
        "claude_code/compact-request",
        "claude_code/after-compact",
        *CODEX_TURNS,
        "codex/compact-local-request",
        "codex/after-compact-local",
        "codex/compact-remote-request",
        "codex/after-compact-remote",
    ],
)
def test_every_sample_is_pairing_valid(name: str) -> None:
    report = checks.pairing_report([load(name, 0)])
    assert report.checked == 1 and report.ok, report.problems


def test_an_anthropic_tool_use_without_its_result_is_reported() -> None:
    body = sample_body("claude_code/turn-2")
    body["messages"][-1]["content"] = [{"type": "text", "text": "no result"}]
    report = checks.pairing_report([load("claude_code/turn-2", 0, body=body)])
    assert not report.ok and "request 0" in report.problems[0]


def _codex_items() -> list[dict[str, Any]]:
    items = sample_body("codex/compact-remote-request")["input"]
    assert isinstance(items, list)
    return items[:-1]  # without the compaction trigger


def test_responses_validator_on_broken_inputs() -> None:
    items = _codex_items()
    assert checks.responses_problems(items) == []
    calls = [i for i, it in enumerate(items) if it["type"] == "function_call"]
    outputs = [i for i, it in enumerate(items) if it["type"] == "function_call_output"]
    # A call whose output is missing, the last one (end of input) and an earlier one (the next turn started).
    assert "no output at the end" in checks.responses_problems(items[:-1])[0]
    dropped = items[: outputs[0]] + items[outputs[0] + 1 :]
    assert any("starts a model turn" in p for p in checks.responses_problems(dropped))
    # An output before its call, an output of the wrong kind, a second output, a reused call id.
    swapped = list(items)
    swapped[calls[0]], swapped[outputs[0]] = swapped[outputs[0]], swapped[calls[0]]
    assert any("no earlier call" in p for p in checks.responses_problems(swapped))
    wrong = copy.deepcopy(items)
    wrong[outputs[0]]["type"] = "custom_tool_call_output"
    assert any("answers a function_call" in p for p in checks.responses_problems(wrong))
    twice = [*items, copy.deepcopy(items[outputs[-1]])]
    assert any("second output" in p for p in checks.responses_problems(twice))
    reused = copy.deepcopy(items)
    reused[calls[1]]["call_id"] = reused[calls[0]]["call_id"]
    assert any("used by two calls" in p for p in checks.responses_problems(reused))
    # A reasoning item left without the item it produced.
    reasoning = next(i for i, it in enumerate(items) if it["type"] == "reasoning")
    orphan = items[:reasoning] + items[reasoning + 1 :] + [items[reasoning]]
    assert any("not followed" in p for p in checks.responses_problems(orphan))


@st.composite
def responses_sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Valid Responses inputs: turns of (reasoning?) + calls, their outputs in any order, or messages."""
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    ]
    n = 0
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            items.append({"type": "reasoning", "id": f"rs{n}", "summary": [], "encrypted_content": "x"})
        kind = draw(st.sampled_from(["function_call", "custom_tool_call", "message"]))
        if kind == "message":
            items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "t"}]})
            items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]})
            continue
        ids = [f"c{n + k}" for k in range(draw(st.integers(1, 3)))]
        n += len(ids)
        items.extend({"type": kind, "call_id": cid, "name": "exec_command"} for cid in ids)
        for cid in draw(st.permutations(ids)):
            items.append({"type": kind + "_output", "call_id": cid, "output": "ok"})
    return items


@given(responses_sessions(), st.data())
def test_responses_validator_accepts_valid_sessions_and_catches_a_dropped_output(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    assert checks.responses_problems(items) == []
    outputs = [i for i, it in enumerate(items) if it["type"].endswith("_output")]
    if outputs:
        drop = data.draw(st.sampled_from(outputs))
        assert checks.responses_problems(items[:drop] + items[drop + 1 :])


# -- fit and keys ---------------------------------------------------------------------------------------------


def test_fit_counts_system_tools_and_history() -> None:
    requests = [load(name, i) for i, name in enumerate(CLAUDE_TURNS)]
    report = checks.fit_report(requests, window=1_000_000)
    sizes = [t for _, t in report.tokens]
    assert report.ok and sizes == sorted(sizes) and sizes[0] > 3000
    tight = checks.fit_report(requests, window=sizes[1])
    assert [p.split()[1] for p in tight.problems] == ["2"]
    codex = checks.parse_request(load("codex/turn-0", 0))
    assert codex is not None
    parts = checks.part_tokens(codex, contextfold.make_counter())
    assert parts["system"] > 0 and parts["tools"] > 0 and parts["total"] > parts["system"] + parts["tools"]


def test_the_key_must_arrive_unchanged() -> None:
    requests = [load(n, i) for i, n in enumerate([*CLAUDE_TURNS, *CODEX_TURNS])]
    assert checks.key_report(requests, SAMPLE_KEY).ok
    report = checks.key_report(requests, SAMPLE_KEY + "x")
    assert len(report.problems) == 6 and all(SAMPLE_KEY not in p for p in report.problems)
    stripped = load("codex/turn-0", 0)
    stripped = Recorded(0, "POST", stripped.path, (("authorization", "Bearer other"),), stripped.body, "responses")
    assert "different key" in checks.key_report([stripped], SAMPLE_KEY).problems[0]
    assert checks.key_report([], SAMPLE_KEY).problems == ["no model request reached the upstream"]


def test_samples_reencode_compactly() -> None:
    assert encode({"a": [1, "é"]}) == '{"a":[1,"é"]}'.encode()


def test_a_request_contextfold_cannot_read_is_a_finding_not_a_crash() -> None:
    body = sample_body("claude_code/turn-1")
    body["messages"][2]["content"].append({"type": "no_such_block"})
    request = load("claude_code/turn-1", 0, body=body)
    assert "cannot be counted" in checks.fit_report([request], 40_000).problems[0]
    assert "cannot be read as anthropic" in checks.pairing_report([request]).problems[0]
