import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._errors import InputError, UnknownFormatError
from contextfold._formats import messages_to_anthropic, messages_to_openai
from contextfold._formats._transcript import (
    Transcript,
    dump_transcripts,
    load_transcript,
    load_transcripts,
    parse_transcripts,
    write_text_atomic,
)
from contextfold._messages import Message
from message_gen import conversations

DATA = Path(__file__).parents[1] / "data"
EXAMPLE = Path(__file__).parents[2] / "examples" / "transcript.json"


@pytest.mark.parametrize(
    "name",
    [
        "tau_airline_gpt4o_sample.jsonl",
        "openhands_multiswe_llama4_sample.jsonl",
        "anthropic_sample.json",
        "openai_parallel.json",
    ],
)
def test_fixtures_write_back_byte_for_byte_or_equal(name: str) -> None:
    path = DATA / name
    transcripts = load_transcripts(path)
    text = path.read_text()
    out = dump_transcripts(transcripts)
    if name.endswith(".jsonl"):
        assert out == text
        assert all(t.shape == "jsonl-conversations" for t in transcripts)
        assert [t.index for t in transcripts] == list(range(len(transcripts)))
    else:
        assert json.loads(out) == json.loads(text)
        assert transcripts[0].shape == "object" and transcripts[0].indent == 2


def test_corpus_line_metadata_is_kept() -> None:
    first, second = load_transcripts(DATA / "tau_airline_gpt4o_sample.jsonl")
    assert first.format == "openai" and first.source == str(DATA / "tau_airline_gpt4o_sample.jsonl")
    assert first.id == "tau-bench/airline/task24/trial0"
    assert first.extra["license"] == "MIT" and "messages" not in first.extra and "tools" not in first.extra
    assert first.tools_present and first.tools_null and first.tools == ()
    assert second.index == 1 and len(first.messages) == 40


def test_example_transcript_is_a_real_openai_object_document() -> None:
    t = load_transcript(EXAMPLE)
    assert (t.format, t.shape, len(t.messages)) == ("openai", "object", 140)
    assert sum(len(m.tool_calls) for m in t.messages) == 69
    assert [s.name for s in t.tools] == ["bash"]
    assert set(t.extra) == {"id", "source", "license"}
    assert json.loads(dump_transcripts([t])) == json.loads(EXAMPLE.read_text())


def test_anthropic_object_keeps_system_and_extra() -> None:
    t = load_transcript(DATA / "anthropic_sample.json")
    assert t.format == "anthropic" and t.messages[0].role == "system"
    assert t.extra["model"] == "claude-sonnet-4-5" and "system" not in t.extra
    assert [s.name for s in t.tools] == ["read_file", "run"]


def test_choose_a_conversation(tmp_path: Path) -> None:
    path = DATA / "tau_airline_gpt4o_sample.jsonl"
    assert load_transcript(path, conversation=1).index == 1
    assert load_transcript(path, conversation="1").index == 1
    assert load_transcript(path, conversation="tau-bench/airline/task24/trial0").index == 0
    with pytest.raises(
        InputError,
        match=r"holds 2 conversations; choose one with an index 0\.\.1 "
        r"or an id such as 'tau-bench/airline/task24/trial0'",
    ):
        load_transcript(path)
    with pytest.raises(InputError, match="conversation 5 does not exist; the file holds 2"):
        load_transcript(path, conversation=5)
    with pytest.raises(InputError, match="no conversation with id 'nope'"):
        load_transcript(path, conversation="nope")


def test_list_and_jsonl_messages_stay_in_their_shape() -> None:
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    as_list = json.dumps(msgs) + "\n"
    (t,) = parse_transcripts(as_list, source="a.json")
    assert t.shape == "list" and dump_transcripts([t]) == as_list
    as_jsonl = "".join(json.dumps(m) + "\n" for m in msgs)
    (t,) = parse_transcripts(as_jsonl, source="a.jsonl")
    assert t.shape == "jsonl" and dump_transcripts([t]) == as_jsonl
    one_line = json.dumps(msgs[0]) + "\n"
    (t,) = parse_transcripts(one_line, source="a.jsonl")
    assert t.shape == "jsonl" and dump_transcripts([t]) == one_line
    pretty = json.dumps({"messages": msgs, "tools": []}, indent=4) + "\n"
    (t,) = parse_transcripts("\ufeff" + pretty, source="a.json")
    assert t.tools_present and not t.tools_null and dump_transcripts([t]) == pretty


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    ("name", "data", "expected", "kind"),
    [
        (
            "bad.json",
            '{\n  "messages": [\n    {"role": "user",, "content": "x"}\n  ]\n}',
            "bad.json:3:21: invalid JSON: Expecting property name enclosed in double quotes",
            InputError,
        ),
        (
            "bad.jsonl",
            '{"role": "user", "content": "a"}\n{"role": "user", "content": "b"}\n{"role": "user" "content": "c"}\n',
            "bad.jsonl:3:17: invalid JSON line: Expecting ',' delimiter",
            InputError,
        ),
        (
            "bin.json",
            b'[{"role": "user",\n "content": "caf\xe9"}]',
            "bin.json:2:17: not UTF-8 text: invalid byte 0xe9 at byte offset 34",
            InputError,
        ),
        ("empty.json", "", "empty.json: the file is empty", InputError),
        ("blank.jsonl", "\n  \n", "blank.jsonl: the file is empty", InputError),
        (
            "foo.json",
            '{"foo": 1}',
            "foo.json: not a transcript: a JSON object without 'messages' (keys: 'foo')",
            UnknownFormatError,
        ),
        ("num.json", "42", "num.json: not a transcript: found a number", UnknownFormatError),
        (
            "nums.json",
            "[1, 2, 3]",
            "nums.json, message 0: not a transcript: expected a message object with a 'role', found a number",
            UnknownFormatError,
        ),
        (
            "role.json",
            '[{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]',
            "role.json, message 1: unknown role 'robot'; allowed: system, developer, user, assistant, tool",
            InputError,
        ),
        (
            "role.jsonl",
            '{"role": "user", "content": "a"}\n\n{"role": "robot", "content": "b"}\n',
            "role.jsonl:3, message 1: unknown role 'robot'",
            InputError,
        ),
        (
            "conv.jsonl",
            '{"messages": [{"role": "user", "content": "a"}]}\n'
            '{"messages": [{"role": "user", "content": [{"type": "video"}]}]}\n',
            "conv.jsonl:2, message 0: unknown content part type 'video' in a user message; allowed:",
            InputError,
        ),
        (
            "mixed.jsonl",
            '{"messages": []}\n{"role": "user", "content": "x"}\n',
            "mixed.jsonl:2: expected a conversation object with 'messages' like line 1, "
            "found an object with keys 'role', 'content'",
            UnknownFormatError,
        ),
        (
            "nums.jsonl",
            "1\n2\n",
            "nums.jsonl:1: not a transcript: a JSONL line must be a message (with 'role') "
            "or a conversation (with 'messages'), found a number",
            UnknownFormatError,
        ),
        (
            "block.json",
            '{"system": "s", "messages": [{"role": "user", "content": [{"type": "tool_use_x"}]}]}',
            "block.json, message 0: unknown block type 'tool_use_x' in a user message",
            InputError,
        ),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, name: str, data: bytes | str, expected: str, kind: type[Exception]
) -> None:
    path = _write(tmp_path, name, data)
    with pytest.raises(kind) as info:
        load_transcripts(path)
    message = str(info.value)
    assert message.startswith(str(tmp_path / expected.split(":")[0].split(",")[0]))
    assert expected in message.replace(str(tmp_path) + os.sep, "")
    assert "\n" not in message


def test_unreadable_file_is_an_input_error_with_the_os_error_as_cause(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.json: cannot read the file: No such file") as info:
        load_transcripts(tmp_path / "nope.json")
    assert isinstance(info.value.__cause__, FileNotFoundError)
    with pytest.raises(InputError, match="cannot read a directory: give a regular file, or - to read standard input"):
        load_transcripts(tmp_path)


def test_write_text_atomic(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_text_atomic(target, "héllo\n")
    assert target.read_text(encoding="utf-8") == "héllo\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    target.chmod(0o600)
    write_text_atomic(str(target), "second\n")
    assert target.read_text() == "second\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_write_text_atomic_leaves_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "bad \ud800 surrogate")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def _document(conv: list[Message], provider: str, shape: str) -> tuple[str, str]:
    if provider == "openai":
        body: Any = {"messages": messages_to_openai(conv)}
    else:
        system, msgs = messages_to_anthropic(conv)
        body = {"messages": msgs} if system is None else {"system": system, "messages": msgs}
    if shape == "object":
        return json.dumps({"id": "x", **body}, ensure_ascii=False, indent=2) + "\n", "t.json"
    if shape == "list" and "system" not in body:
        return json.dumps(body["messages"], ensure_ascii=False) + "\n", "t.json"
    if shape == "jsonl" and "system" not in body:
        return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in body["messages"]), "t.jsonl"
    return json.dumps(body, ensure_ascii=False) + "\n" + json.dumps(body, ensure_ascii=False) + "\n", "t.jsonl"


@settings(max_examples=50, deadline=None)
@given(
    conversations(),
    st.sampled_from(["openai", "anthropic"]),
    st.sampled_from(["object", "list", "jsonl", "jsonl-conversations"]),
)
def test_parse_then_dump_gives_the_same_document(conv: list[Message], provider: str, shape: str) -> None:
    text, source = _document(conv, provider, shape)
    transcripts = parse_transcripts(text, source=source)
    out = dump_transcripts(transcripts)
    if shape == "object":
        assert json.loads(out) == json.loads(text)
    else:
        assert out == text
    again = parse_transcripts(out, source=source)
    assert [t.messages for t in again] == [t.messages for t in transcripts]


def test_transcript_replace_keeps_write_back_details() -> None:
    t = load_transcript(DATA / "openai_parallel.json")
    shorter = t.replace(messages=t.messages[:2])
    assert isinstance(shorter, Transcript) and shorter.extra == t.extra and shorter.indent == 2
    doc = json.loads(dump_transcripts([shorter]))
    assert list(doc) == ["id", "source", "license", "tools", "messages"] and len(doc["messages"]) == 2
