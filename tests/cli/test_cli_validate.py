from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from contextfold._cli import main

ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


def call(cid: str, name: str = "bash") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": '{"command": "ls"}'}}


def openai(*extra: dict[str, Any], ident: str | None = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_1"), call("call_2", "grep")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "tool", "tool_call_id": "call_2", "content": "b.txt"},
        *extra,
    ]
    doc: dict[str, Any] = {"messages": messages}
    return {"id": ident, **doc} if ident else doc


ANTHROPIC = {
    "system": "You are terse.",
    "messages": [
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "ls it", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"cmd": "ls"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.txt"}]},
        {"role": "assistant", "content": "One file: a.txt."},
    ],
}


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env=ENV)
    return code, out.getvalue(), err.getvalue()


def test_valid_openai_exit_0(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.json", openai({"role": "assistant", "content": "done"}))
    for provider in ("openai", "anthropic"):
        code, out, err = run("validate", path, "--provider", provider)
        assert (code, err) == (0, "")
        assert f"valid for {provider}" in out


def test_orphan_result_exit_1_with_location(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "orphan.json",
        openai({"role": "user", "content": "next"}, {"role": "tool", "tool_call_id": "call_9", "content": "x"}),
    )
    code, out, err = run("validate", path, "--provider", "openai")
    assert (code, err) == (1, "")
    assert "1 problem for openai" in out
    assert "message 6: error orphan_tool_result: tool result for call 'call_9'" in out
    assert "must directly follow the assistant message with 'tool_calls'" in out


def test_missing_result_names_the_call_and_where(tmp_path: Path) -> None:
    doc = openai({"role": "user", "content": "and?"})
    del doc["messages"][4]
    path = write(tmp_path, "missing.json", doc)
    code, out, _ = run("validate", path, "--provider", "anthropic", "--json")
    assert code == 1
    r = json.loads(out)
    assert r["valid"] is False and r["provider"] == "anthropic"
    [p] = r["problems"]
    assert p == {
        "code": "missing_tool_result",
        "severity": "error",
        "message_index": 2,
        "call_id": "call_2",
        "tool_name": "grep",
        "message": p["message"],
    }
    assert "right after message 2" in p["message"]


def test_pending_call_at_the_end_is_valid(tmp_path: Path) -> None:
    doc = openai({"role": "assistant", "content": None, "tool_calls": [call("call_3")]})
    path = write(tmp_path, "pending.json", doc)
    code, out, _ = run("validate", path)
    assert code == 0
    assert "valid for openai (1 pending tool call at the end)" in out
    assert "info pending_tool_call" in out
    code, out, _ = run("validate", path, "--json")
    r = json.loads(out)
    assert r["valid"] is True and [p["code"] for p in r["problems"]] == ["pending_tool_call"]


def test_anthropic_document(tmp_path: Path) -> None:
    path = write(tmp_path, "claude.json", ANTHROPIC)
    code, out, _ = run("validate", path)
    assert code == 0 and "valid for anthropic" in out
    # The same transcript with the tool result removed: tool_use without tool_result.
    doc = json.loads(json.dumps(ANTHROPIC))
    doc["messages"][2]["content"] = "never mind"
    path = write(tmp_path, "claude_bad.json", doc)
    code, out, _ = run("validate", path, "--provider", "anthropic")
    assert code == 1
    assert "missing_tool_result" in out and "toolu_01" in out


def test_multi_conversation_summary_and_selection(tmp_path: Path) -> None:
    good = openai({"role": "assistant", "content": "done"}, ident="good")
    bad = openai({"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "zz", "content": "?"}, ident="bad")
    path = tmp_path / "many.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    code, out, _ = run("validate", str(path))
    assert code == 1
    assert "conversation 0 (id good): valid for openai" in out
    assert "conversation 1 (id bad): 1 problem for openai" in out
    assert "1 of 2 conversations have problems (1 in all)" in out
    code, out, _ = run("validate", str(path), "--json")
    r = json.loads(out)
    assert (r["valid"], r["invalid_conversations"], r["problem_count"]) == (False, 1, 1)
    assert [c["valid"] for c in r["conversations"]] == [True, False]
    code, out, _ = run("validate", str(path), "--conversation", "good")
    assert code == 0 and "1 of 2" not in out


def test_warnings_do_not_fail(tmp_path: Path) -> None:
    doc = openai(
        {"role": "assistant", "content": None, "tool_calls": [call("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "again"},
        {"role": "assistant", "content": "done"},
    )
    path = write(tmp_path, "dup.json", doc)
    code, out, _ = run("validate", path, "--provider", "openai")
    assert code == 0 and "valid for openai (1 warning)" in out and "duplicate_call_id" in out
    code, out, _ = run("validate", path, "--provider", "anthropic")
    assert code == 1 and "duplicate_call_id" in out


def test_problem_text_with_brackets_is_not_markup(tmp_path: Path) -> None:
    doc = openai()
    doc["messages"][2]["tool_calls"][0]["id"] = "bad[red]id"
    doc["messages"][3]["tool_call_id"] = "bad[red]id"
    path = write(tmp_path, "ids.json", doc)
    code, out, _ = run("validate", path, "--provider", "anthropic")
    assert code == 1
    assert "'bad[red]id'" in out and "^[a-zA-Z0-9_-]+$" in out


@pytest.mark.parametrize("provider", ["gemini", ""])
def test_unknown_provider_is_a_usage_error(tmp_path: Path, provider: str) -> None:
    path = write(tmp_path, "ok.json", openai())
    code, out, err = run("validate", path, "--provider", provider)
    assert (code, out) == (2, "")
    assert "--provider" in err and err.count("\n") == 1


def test_validate_checks_the_responses_rules_and_reads_a_responses_body(tmp_path: Path) -> None:
    path = write(tmp_path, "chat.json", openai({"role": "user", "content": "and?"}))
    code, out, _ = run("validate", path, "--provider", "responses", "--json")
    report = json.loads(out)
    assert code == 0 and report["provider"] == "responses" and report["valid"] is True
    broken = {
        "instructions": "be brief",
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{}"},
            {"role": "user", "content": "never mind"},
        ],
    }
    code, out, _ = run("validate", write(tmp_path, "codex.json", broken), "--json")
    report = json.loads(out)
    assert code == 1 and report["format"] == report["provider"] == "responses"
    assert [(p["code"], p["message_index"]) for p in report["problems"]] == [("missing_tool_result", 2)]
    code, _, err = run("validate", path, "--provider", "gemini")
    assert code == 2 and "responses" in err  # the choices name every format
