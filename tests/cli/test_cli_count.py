from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._cli import CLIContext, _common, main
from contextfold._cli._common import _apportion, message_breakdown

ENV = {"COLUMNS": "100", "NO_COLOR": "1"}

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a shell command.",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


def openai_conversation(n_steps: int = 2, *, ident: str | None = None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful engineer."},
        {"role": "user", "content": "Please list the files."},
    ]
    for k in range(n_steps):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{k}",
                        "type": "function",
                        "function": {"name": "bash", "arguments": json.dumps({"command": f"ls -la dir{k}"})},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": f"file_{k}.txt\n" * 20})
    messages.append({"role": "assistant", "content": "Done: the files are listed above."})
    doc: dict[str, Any] = {"messages": messages, "tools": TOOLS}
    if ident is not None:
        doc = {"id": ident, **doc}
    return doc


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def run(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env=env or ENV)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def single(tmp_path: Path) -> str:
    return write(tmp_path, "t.json", json.dumps(openai_conversation(3)))


@pytest.fixture
def multi(tmp_path: Path) -> str:
    lines = [json.dumps(openai_conversation(k + 1, ident=f"conv-{k}")) for k in range(3)]
    return write(tmp_path, "many.jsonl", "\n".join(lines) + "\n")


def test_count_text_output(single: str) -> None:
    code, out, err = run("count", single, "--counter", "bytes")
    assert (code, err) == (0, "")
    assert "By role" in out and "By block kind" in out and "Tool schemas" in out
    assert "tool_result" in out and "bash" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_count_json_schema_adds_up(single: str) -> None:
    code, out, err = run("count", single, "--counter", "bytes", "--json")
    assert (code, err) == (0, "")
    r = json.loads(out)
    assert r["conversation"] == 0 and r["id"] is None and r["format"] == "openai" and r["counter"] == "bytes"
    assert isinstance(r["total"], int)
    assert set(r["by_role"]) == {"system", "user", "assistant", "tool"}
    assert set(r["by_kind"]) == {"text", "hint", "tool_call", "tool_result", "thinking", "redacted_thinking", "data"}
    assert len(r["messages"]) == 9
    assert sum(r["messages"]) == r["messages_total"] == sum(r["by_role"].values()) == sum(r["by_kind"].values())
    assert r["tools"]["count"] == 1 and r["tools"]["by_name"]["bash"] == r["tools"]["total"] > 0
    assert r["total"] == r["messages_total"] + r["tools"]["total"]
    # bytes counter: the user message "Please list the files." is 22 bytes -> round(5.5) = 6 tokens
    assert r["messages"][1] == 6


def test_count_multi_conversation_file(multi: str) -> None:
    code, out, err = run("count", multi, "--counter", "bytes", "--json")
    assert (code, err) == (0, "")
    r = json.loads(out)
    assert [c["id"] for c in r["conversations"]] == ["conv-0", "conv-1", "conv-2"]
    assert [c["conversation"] for c in r["conversations"]] == [0, 1, 2]
    assert r["total"] == sum(c["total"] for c in r["conversations"])
    code, text, _ = run("count", multi, "--counter", "bytes")
    assert code == 0 and "3 conversations" in text and "conv-2" in text and f"{r['total']:,}" in text


@pytest.mark.parametrize("spec", ["1", "conv-1"])
def test_count_select_conversation(multi: str, spec: str) -> None:
    code, out, _ = run("count", multi, "--counter", "bytes", "--json", "--conversation", spec)
    assert code == 0
    r = json.loads(out)
    assert (r["conversation"], r["id"]) == (1, "conv-1")
    assert "conversations" not in r


def test_count_unknown_conversation(multi: str) -> None:
    code, out, err = run("count", multi, "--conversation", "7")
    assert (code, out) == (2, "")
    assert "no conversation '7'" in err and "3 conversations" in err


def test_count_default_and_exact_counters(single: str) -> None:
    code, out, _ = run("count", single, "--json")
    assert code == 0 and json.loads(out)["counter"].startswith("calibrated")
    pytest.importorskip("bpe_openai")
    code, out, _ = run("count", single, "--json", "--counter", "tiktoken:o200k_base")
    assert code == 0
    assert json.loads(out)["total"] > 0


BAD_INPUTS: list[tuple[str, str | bytes, str]] = [
    ("bad.json", '{"messages": [', "bad.json:1:"),
    ("bad.jsonl", '{"role": "user", "content": "hi"}\n{"role": "user", "content": \n', "bad.jsonl:2"),
    ("role.json", json.dumps([{"role": "wizard", "content": "hi"}]), "wizard"),
    ("latin1.json", b'[{"role": "user", "content": "caf\xe9"}]', "UTF-8"),
    ("empty.json", "", "empty.json"),
    ("config.json", json.dumps({"name": "not a transcript", "version": 3}), "config.json"),
]


@pytest.mark.parametrize(("name", "content", "expected"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
@pytest.mark.parametrize("command", ["count", "inspect", "validate"])
def test_bad_input_one_line_exit_2(
    tmp_path: Path, command: str, name: str, content: str | bytes, expected: str
) -> None:
    path = write(tmp_path, name, content)
    code, out, err = run(command, path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("contextfold: error: ")
    assert expected in err
    assert "Traceback" not in err


def test_missing_file_and_bad_counter(tmp_path: Path, single: str) -> None:
    code, out, err = run("count", str(tmp_path / "nope.json"))
    assert (code, out) == (2, "")
    assert "nope.json" in err and err.count("\n") == 1
    code, out, err = run("count", single, "--counter", "wordpiece")
    assert (code, out) == (2, "")
    assert "unknown token counter 'wordpiece'" in err and err.count("\n") == 1


def test_python_dash_m_subprocess(single: str) -> None:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "contextfold", "count", single, "--counter", "bytes", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["counter"] == "bytes"
    assert proc.stderr == ""


# --- progress ------------------------------------------------------------------------------------


def _ctx(stderr: io.StringIO, progress: bool | None) -> CLIContext:
    import argparse

    return CLIContext(args=argparse.Namespace(progress=progress), stdout=io.StringIO(), stderr=stderr, env=ENV)


def test_progress_hidden_when_not_a_terminal_and_shown_when_forced() -> None:
    err = io.StringIO()
    with _common.ProgressReporter(_ctx(err, None), delay=0) as reporter, reporter.task("work", total=3) as task:
        time.sleep(0.2)
        task.advance()
    assert not reporter.started and err.getvalue() == ""

    err = io.StringIO()
    with _common.ProgressReporter(_ctx(err, True), delay=0) as reporter, reporter.task("work", total=3) as task:
        deadline = time.monotonic() + 5
        while not reporter.started and time.monotonic() < deadline:
            time.sleep(0.01)
        task.advance()
    assert reporter.started and err.getvalue() != ""


def test_progress_waits_for_the_delay() -> None:
    err = io.StringIO()
    with _common.ProgressReporter(_ctx(err, True), delay=30) as reporter, reporter.task("quick", total=1):
        pass
    assert not reporter.started and err.getvalue() == ""


# --- the breakdown always adds up ----------------------------------------------------------------

texts = st.text(max_size=40)
blocks = st.one_of(
    texts.map(lambda t: TextBlock(text=t)),
    texts.map(lambda t: HintBlock(text=t)),
    st.tuples(st.sampled_from(["bash", "read", ""]), texts).map(
        lambda a: ToolCallBlock(id="c", name=a[0], arguments=a[1])
    ),
    st.lists(texts.map(lambda t: TextBlock(text=t)), max_size=3).map(
        lambda c: ToolResultBlock(call_id="c", content=tuple(c))
    ),
    texts.map(lambda t: ThinkingBlock(thinking=t)),
    st.just(RedactedThinkingBlock(data="xyz")),
    st.just(DataBlock(media="image", url="https://example.com/a.png")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(blocks, max_size=6))
def test_breakdown_parts_sum_to_the_message_count(content: list[Any]) -> None:
    counter = BytesCounter()
    message = Message(role="assistant", content=tuple(content))
    part = message_breakdown(counter, message, {"c": "bash"})
    assert part.tokens == counter.count_message(message)
    assert sum(part.by_kind.values()) == part.tokens
    tool_tokens = sum(part.call_tokens.values()) + sum(part.result_tokens.values())
    assert tool_tokens == part.by_kind.get("tool_call", 0) + part.by_kind.get("tool_result", 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6), st.lists(st.integers(0, 10**4), max_size=8))
def test_apportion_is_exact_and_proportional(total: int, weights: list[int]) -> None:
    shares = _apportion(total, weights)
    assert len(shares) == len(weights)
    if weights:
        assert sum(shares) == total
        wsum = sum(weights)
        if wsum:
            for share, w in zip(shares, weights, strict=True):
                assert abs(share - total * w / wsum) < 1
