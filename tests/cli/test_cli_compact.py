"""`contextfold compact`: same kind of document out, archive in the workspace, input never overwritten."""

import io
import json
import shutil
from pathlib import Path

import pytest

from contextfold._cli import main
from contextfold._formats._transcript import load_transcripts
from contextfold._formats._validate import validate
from contextfold._workspace._codec import messages_from_jsonl

DATA = Path(__file__).parents[1] / "data"
EXAMPLE = Path(__file__).parents[2] / "examples" / "transcript.json"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env={"COLUMNS": "120"})
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def example(tmp_path: Path) -> Path:
    dst = tmp_path / "t.json"
    shutil.copy(EXAMPLE, dst)
    return dst


def test_compacts_object_document_into_valid_smaller_one(example: Path, tmp_path: Path) -> None:
    original = example.read_bytes()
    out = tmp_path / "out.json"
    ws = tmp_path / "ws"
    code, stdout, err = run(
        "compact", str(example), "--window", "16000", "-o", str(out), "--workspace", str(ws), "--json"
    )
    assert code == 0, err
    report = json.loads(stdout)
    conv = report["conversations"][0]
    assert conv["compacted"] and conv["tokens_after"] < conv["tokens_before"]
    assert conv["tokens_after"] <= report["trigger"]
    assert example.read_bytes() == original  # input untouched
    doc = json.loads(out.read_text())
    assert isinstance(doc, dict) and "messages" in doc and doc["id"] == json.loads(original)["id"]
    [t] = load_transcripts(out)
    for provider in ("openai", "anthropic"):
        assert not [p for p in validate(t.messages, provider) if p.blocking]
    # The archive holds the compacted originals byte for byte.
    archive = Path(report["workspace"]) / conv["archive"]
    archived = messages_from_jsonl(archive.read_text(encoding="utf-8"))
    [src] = load_transcripts(example)
    assert src.messages[0].role == "system" and t.messages[0] == src.messages[0]
    # All but a possibly split last message are the originals, in order.
    assert archived[:-1] == list(src.messages[1 : len(archived)])
    assert conv["archive"] in t.messages[1].text


def test_under_trigger_leaves_messages_unchanged(example: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    code, _, _ = run("compact", str(example), "--window", "1000000", "-o", str(out), "--workspace", str(tmp_path))
    assert code == 0
    assert load_transcripts(out)[0].messages == load_transcripts(example)[0].messages


def test_jsonl_conversations_stay_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "c.jsonl"
    shutil.copy(DATA / "tau_airline_gpt4o_sample.jsonl", src)
    out = tmp_path / "c.out.jsonl"
    code, _, err = run("compact", str(src), "--window", "3000", "-o", str(out), "--workspace", str(tmp_path / "w"))
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["messages"] for line in lines)


def test_refuses_to_overwrite_input(example: Path) -> None:
    before = example.read_bytes()
    code, _, err = run("compact", str(example), "--window", "16000", "-o", str(example))
    assert code == 2 and "overwrite the input" in err
    assert example.read_bytes() == before


def test_default_output_name_is_beside_input(example: Path, tmp_path: Path) -> None:
    code, _, err = run("compact", str(example), "--window", "16000", "--workspace", str(tmp_path / "w"))
    assert code == 0, err
    assert (tmp_path / "t.compacted.json").exists()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--window", "0"], "window"),
        (["--window", "16000", "--strategy", "structured"], "--model"),
        (["--window", "16000", "--model", "openai:x"], "--model is only used"),
        (["--window", "16000", "--trigger", "0.95"], "trigger_ratio"),
    ],
)
def test_bad_options_are_one_line_errors(example: Path, tmp_path: Path, argv: list[str], needle: str) -> None:
    code, stdout, err = run("compact", str(example), "-o", str(tmp_path / "o.json"), *argv)
    assert code == 2 and needle in err and stdout == ""
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()


def test_bad_input_file_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [{"role": "user", "content": "hi"},]}')
    code, _, err = run("compact", str(bad), "--window", "1000", "-o", str(tmp_path / "o.json"))
    assert code == 2 and "bad.json:1:" in err
    assert not (tmp_path / "o.json").exists()


def test_oversized_tool_result_is_offloaded_first(tmp_path: Path) -> None:
    big = "line of output\n" * 20000  # ~300 KB in one result
    doc = {
        "messages": [
            {"role": "user", "content": "run it"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "make"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": big},
            {"role": "assistant", "content": "done"},
        ]
    }
    src = tmp_path / "big.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "o.json"
    code, stdout, err = run(
        "compact", str(src), "--window", "16000", "-o", str(out), "--workspace", str(tmp_path / "w"), "--json"
    )
    assert code == 0, err
    conv = json.loads(stdout)["conversations"][0]
    assert len(conv["offloaded_results"]) == 1
    content = json.loads(out.read_text())["messages"][2]["content"]
    result = content if isinstance(content, str) else "".join(part["text"] for part in content)
    assert "<<<TRUNCATED>>>" in result and conv["offloaded_results"][0] in result
    stored = (Path(json.loads(stdout)["workspace"]) / conv["offloaded_results"][0]).read_text()
    assert big.startswith(result.split("<<<TRUNCATED>>>")[0]) and stored == big  # the file holds the whole output
