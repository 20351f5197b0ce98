"""``contextfold demo``: the main job on the shipped transcript, its JSON, and its user mistakes."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest

from contextfold._cli import main
from contextfold._cli._demo import DEMO_TRANSCRIPT, load_demo_transcript, naive_prompt_tokens
from contextfold._tokens._counting import BytesCounter

ENV = {"COLUMNS": "100", "NO_COLOR": "1"}
JSON_KEYS = {
    "transcript",
    "conversation",
    "messages",
    "window",
    "trigger",
    "counter",
    "turns",
    "tokens_sent",
    "naive_tokens",
    "saved_ratio",
    "peak_tokens",
    "naive_peak_tokens",
    "within_window",
    "compactions",
    "compaction_strategies",
    "archived_messages",
    "offloaded_results",
    "offloaded_bytes",
    "follow_ups",
    "guard_changes",
    "pairs_intact",
    "problems",
    "overhead_ms_median",
    "overhead_ms_p99",
    "overhead_ms_max",
    "stop_reason",
    "cancel_reason",
    "seconds",
    "workspace",
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env=ENV)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def demo_json(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    workspace = tmp_path_factory.mktemp("ws")
    code, out, err = run("demo", "--json", "--workspace", str(workspace))
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    assert data["workspace"].startswith(str(workspace))
    return data


def test_demo_json_on_the_shipped_transcript(demo_json: dict[str, Any]) -> None:
    d = demo_json
    assert set(d) == JSON_KEYS
    assert d["conversation"] == "swebench-verified/sympy__sympy-13091" and d["messages"] == 260
    assert d["window"] == 16_000 and d["counter"] == "bytes" and d["turns"] == 129
    assert d["compactions"] >= 3 and d["archived_messages"] > 0
    assert d["pairs_intact"] is True and d["problems"] == []
    assert d["within_window"] is True and d["peak_tokens"] <= d["window"]
    assert d["tokens_sent"] < d["naive_tokens"] and 0 < d["saved_ratio"] < 1
    assert d["naive_peak_tokens"] > d["window"]  # a naive loop would not even fit
    assert d["follow_ups"] == 5 and d["offloaded_results"] >= 1
    assert 0 <= d["overhead_ms_median"] <= d["overhead_ms_p99"] <= d["overhead_ms_max"]
    assert d["stop_reason"] == "cancelled" and d["cancel_reason"] == "end of recording"
    assert d["seconds"] < 30


def test_naive_tokens_count_the_whole_history_per_call(demo_json: dict[str, Any]) -> None:
    transcript = load_demo_transcript()
    naive = naive_prompt_tokens(transcript, BytesCounter())
    assert len(naive) == 129 and naive == sorted(naive)
    assert sum(naive) == demo_json["naive_tokens"] and max(naive) == demo_json["naive_peak_tokens"]


def test_demo_plain_output_shows_compactions_and_summary(tmp_path: Path) -> None:
    code, out, err = run("demo", "--workspace", str(tmp_path), "--window", "12000")
    assert code == 0 and err == ""
    assert out.startswith("contextfold demo: replaying swebench-verified/sympy__sympy-13091")
    assert "compaction [" in out and "offload:" in out and "follow-up:" in out
    assert "tool pairs intact" in out and "yes (every request" in out and "naive loop would send" in out
    assert f"workspace: {tmp_path}" in out
    assert "\x1b[" not in out  # not a terminal: no escape codes


def test_demo_on_another_transcript_and_gzip(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]
    for i in range(40):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "cat", "arguments": "{}"}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"output {i} " + "z" * 3000})
    messages.append({"role": "assistant", "content": "done"})
    docs = [{"id": "a", "messages": messages}, {"id": "b", "messages": [*messages[:6], messages[-1]]}]
    plain = tmp_path / "two.jsonl"
    plain.write_text("\n".join(json.dumps(d) for d in docs))
    packed = tmp_path / "two.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        code, out, err = run(
            "demo",
            "--json",
            "--transcript",
            str(path),
            "--conversation",
            "a",
            "--window",
            "8000",
            "--workspace",
            str(tmp_path),
        )
        assert code == 0, err
        d = json.loads(out)
        assert d["conversation"] == "a" and d["turns"] == 41 and d["compactions"] >= 1
        assert d["pairs_intact"] and d["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--window", "0"], "--window must be a positive"),
        (["--delay", "-1"], "--delay: must be a number of seconds from 0 to 60"),
        (["--delay", "inf"], "--delay: must be a number of seconds from 0 to 60, got 'inf'"),  # it hung
        (["--delay", "nan"], "--delay: must be a number of seconds from 0 to 60, got 'nan'"),  # it was accepted
        (["--delay", "soon"], "--delay: expected a number of seconds, got 'soon'"),
        (["--transcript", "/nonexistent/t.json"], "/nonexistent/t.json"),
        (["--window", "many"], "invalid int value"),
    ],
)
def test_user_mistakes_are_one_line(argv: list[str], needle: str) -> None:
    code, out, err = run("demo", *argv)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1


def test_multi_conversation_file_needs_a_choice(tmp_path: Path) -> None:
    doc = {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}
    path = tmp_path / "many.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n")
    code, _, err = run("demo", "--transcript", str(path))
    assert code == 2 and "choose one" in err and err.count("\n") == 1


def test_too_small_window_is_a_clear_error(tmp_path: Path) -> None:
    code, _, err = run("demo", "--window", "500", "--workspace", str(tmp_path))
    assert code == 2 and err.startswith("contextfold: error:") and err.count("\n") == 1


def test_shipped_transcript_is_in_the_wheel_sources() -> None:
    data = Path(__file__).parents[2] / "src" / "contextfold" / "data"
    assert (data / DEMO_TRANSCRIPT).is_file() and (data / "README.md").is_file()
    assert "MIT" in (data / "README.md").read_text()


def test_live_view_renders_usage_bar_and_events() -> None:
    from rich.console import Console

    from contextfold._agent._loop import AgentEvent, ModelCallInfo
    from contextfold._cli._demo import _State

    state = _State(load_demo_transcript(), 16_000, 12_800)
    info = ModelCallInfo(
        tokens=12_000,
        window=16_000,
        prompt_tokens=0,
        completion_tokens=0,
        stop_reason="tool_use",
        tool_calls=("bash",),
        seconds=0.0,
        compacted=False,
    )
    state.update(AgentEvent(kind="model_call", step=7, data=info))
    out = io.StringIO()
    Console(file=out, width=120, no_color=True).print(state.render())
    text = out.getvalue()
    assert "step 7/129" in text and "12,000 / 16,000 tokens (75%)" in text
    bar = text.splitlines()[1]
    assert bar.count("█") == 30 and "┊" in bar
