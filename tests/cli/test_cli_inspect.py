from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from contextfold._cli import main

ENV = {"COLUMNS": "100", "NO_COLOR": "1"}


def conversation(*, ident: str | None = None, broken: bool = False, turns: int = 3) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful engineer. " * 10}]
    call = 0
    for t in range(turns):
        messages.append({"role": "user", "content": f"Task {t}: look at [bold]module_{t}[/bold] please."})
        for tool in ("read_file", "bash"):
            messages.append(
                {
                    "role": "assistant",
                    "content": f"Checking with {tool}.",
                    "tool_calls": [
                        {
                            "id": f"call_{call}",
                            "type": "function",
                            "function": {"name": tool, "arguments": json.dumps({"path": f"src/m{t}.py"})},
                        }
                    ],
                }
            )
            size = 200 if tool == "read_file" else 20
            messages.append({"role": "tool", "tool_call_id": f"call_{call}", "content": "line of output\n" * size})
            call += 1
        messages.append({"role": "assistant", "content": f"Turn {t} done."})
    if broken:
        messages.append({"role": "tool", "tool_call_id": "call_missing", "content": "stray"})
    doc: dict[str, Any] = {
        "messages": messages,
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
    }
    return {"id": ident, **doc} if ident else doc


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env=ENV)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def single(tmp_path: Path) -> str:
    return write(tmp_path, "t.json", conversation())


def test_inspect_text_sections_fit_100_columns(single: str) -> None:
    code, out, err = run("inspect", single, "--window", "16000", "--counter", "bytes")
    assert (code, err) == (0, "")
    for section in ("Tokens per turn", "largest messages", "Tokens by tool", "Pairing problems (openai rules): none"):
        assert section in out
    assert "/ 16,000 tokens" in out
    assert "(before the first user message)" in out
    assert "[bold]module_0[/bold]" in out  # user text is shown literally, never as markup
    assert "read_file" in out and "result of read_file (call_0)" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_inspect_json_schema(single: str) -> None:
    code, out, _ = run("inspect", single, "--window", "16000", "--counter", "bytes", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["window"] == 16000 and r["provider"] == "openai" and r["problems"] == []
    assert r["total"] == r["messages_total"] + r["tools_total"]
    assert r["usage"] == pytest.approx(r["total"] / 16000)
    turns = r["turns"]
    assert [t["turn"] for t in turns] == [0, 1, 2, 3]
    assert sum(t["tokens"] for t in turns) == r["messages_total"]
    assert turns[-1]["cumulative"] == r["total"]
    assert sum(t["messages"] for t in turns) == len(r["messages"])
    assert [t["tool_calls"] for t in turns] == [0, 2, 2, 2]
    largest = r["largest"]
    assert len(largest) == 10
    assert [x["tokens"] for x in largest] == sorted((x["tokens"] for x in largest), reverse=True)
    assert largest[0]["role"] == "tool" and largest[0]["label"].startswith("result of read_file")
    tools = {t["name"]: t for t in r["by_tool"]}
    assert tools["read_file"]["calls"] == 3 and tools["bash"]["calls"] == 3
    assert tools["read_file"]["tokens"] == tools["read_file"]["call_tokens"] + tools["read_file"]["result_tokens"]
    assert r["by_tool"][0]["name"] == "read_file"


def test_inspect_reports_pairing_problems(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.json", conversation(broken=True))
    code, out, _ = run("inspect", path, "--counter", "bytes")
    assert code == 0  # inspect reports; validate is the command whose exit code judges
    assert "Pairing problems (openai rules): 1 error" in out
    assert "orphan_tool_result" in out and "call_missing" in out
    assert "(default; set --window)" in out


def test_inspect_window_usage_past_trigger_and_over(single: str) -> None:
    code, out, _ = run("inspect", single, "--window", "1000", "--counter", "bytes")
    assert code == 0 and "over by" in out
    r = json.loads(run("inspect", single, "--counter", "bytes", "--json")[1])
    window = int(r["total"] / 0.85)
    code, out, _ = run("inspect", single, "--window", str(window), "--counter", "bytes")
    assert "past the 80% trigger" in out


def test_inspect_multi_conversation(tmp_path: Path) -> None:
    lines = [json.dumps(conversation(ident=f"c{k}", turns=k + 1)) for k in range(2)]
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run("inspect", str(path), "--counter", "bytes", "--json")
    r = json.loads(out)
    assert code == 0 and [c["id"] for c in r["conversations"]] == ["c0", "c1"]
    assert r["total"] == sum(c["total"] for c in r["conversations"])
    code, text, _ = run("inspect", str(path), "--counter", "bytes")
    assert code == 0 and "conversation 0 (id c0)" in text and "conversation 1 (id c1)" in text


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_inspect_plot(tmp_path: Path, single: str, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / f"plot{suffix}"
    code, out, err = run("inspect", single, "--window", "16000", "--plot", str(target))
    assert (code, err) == (0, "")
    assert f"plot written to {target}" in out
    data = target.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]


def test_inspect_plot_bad_extension_writes_nothing(tmp_path: Path, single: str) -> None:
    target = tmp_path / "plot.jpg"
    code, out, err = run("inspect", single, "--plot", str(target))
    assert (code, out) == (2, "")
    assert "unsupported file extension .jpg" in err and err.count("\n") == 1
    assert not target.exists()


def test_inspect_plot_needs_one_conversation(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(conversation(ident=f"c{k}")) for k in range(2)) + "\n", encoding="utf-8")
    target = tmp_path / "p.png"
    code, out, err = run("inspect", str(path), "--plot", str(target))
    assert (code, out) == (2, "")
    assert "--conversation" in err and not target.exists()


def test_inspect_plot_without_matplotlib(tmp_path: Path, single: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    target = tmp_path / "p.png"
    code, out, err = run("inspect", single, "--plot", str(target))
    assert (code, out) == (2, "")
    assert "pip install 'contextfold[plot]'" in err and err.count("\n") == 1
    assert not target.exists()


@pytest.mark.parametrize("window", ["0", "-5", "lots"])
def test_inspect_bad_window(single: str, window: str) -> None:
    code, out, err = run("inspect", single, "--window", window)
    assert (code, out) == (2, "")
    assert "--window" in err and err.count("\n") == 1


def test_inspect_long_conversation_elides_turns(tmp_path: Path) -> None:
    path = write(tmp_path, "long.json", conversation(turns=40))
    code, out, _ = run("inspect", str(path), "--counter", "bytes")
    assert code == 0
    assert "more turns" in out
    assert max(len(line) for line in out.splitlines()) <= 100
