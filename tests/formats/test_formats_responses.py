"""The Responses API format: items <-> canonical messages, exact round trips, opaque items kept byte for byte."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    InputError,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    validate,
)
from contextfold._formats._responses import (
    is_opaque,
    messages_to_responses,
    responses_to_messages,
    tools_from_responses,
    tools_to_responses,
)
from contextfold.compaction._groups import tool_groups

text = st.text(max_size=20)
ids = st.text(alphabet="abcdef0123456789", min_size=1, max_size=8)
extra_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), text, st.lists(st.integers(0, 3), max_size=2))


def _with_extras(draw: Any, base: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    for key in draw(st.lists(st.sampled_from(keys), max_size=2, unique=True)):
        base[key] = draw(extra_values)
    if draw(st.booleans()):  # original key order is kept, whatever it was
        items = list(base.items())
        items.reverse()
        base = dict(items)
    return base


@st.composite
def text_parts(draw: Any, role: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "text", "refusal", "image"] if role == "assistant" else ["text", "image"]))
    if kind == "refusal":
        return {"type": "refusal", "refusal": draw(text)}
    if kind == "image":
        url = draw(st.sampled_from(["https://x.test/a.png", "data:image/png;base64,iVBORw0KGgo="]))
        return _with_extras(draw, {"type": "input_image", "image_url": url}, ["detail"])
    ptype = "output_text" if role == "assistant" else "input_text"
    return _with_extras(draw, {"type": ptype, "text": draw(text)}, ["annotations", "logprobs"])


@st.composite
def items(draw: Any) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["message", "message", "call", "output", "custom", "custom_output", "reasoning", "opaque", "shell"]
        )
    )
    if kind == "message":
        role = draw(st.sampled_from(["user", "assistant", "developer", "system"]))
        content: Any = draw(text) if draw(st.booleans()) else draw(st.lists(text_parts(role), max_size=3))
        item: dict[str, Any] = {"role": role, "content": content}
        if draw(st.booleans()):
            item = {"type": "message", **item}
        return _with_extras(draw, item, ["id", "status"])
    if kind == "call":
        return _with_extras(
            draw,
            {"type": "function_call", "call_id": draw(ids), "name": "shell", "arguments": draw(text)},
            ["id", "status"],
        )
    if kind == "output":
        output: Any = draw(text) if draw(st.booleans()) else draw(st.lists(text_parts("tool"), max_size=2))
        return _with_extras(draw, {"type": "function_call_output", "call_id": draw(ids), "output": output}, ["id"])
    if kind == "custom":
        return {"type": "custom_tool_call", "call_id": draw(ids), "name": "apply_patch", "input": draw(text)}
    if kind == "custom_output":
        return {"type": "custom_tool_call_output", "call_id": draw(ids), "output": draw(text)}
    if kind == "reasoning":
        item = {"type": "reasoning", "id": "rs_" + draw(ids), "summary": [{"type": "summary_text", "text": draw(text)}]}
        if draw(st.booleans()):
            item["encrypted_content"] = draw(text)
        if draw(st.booleans()):
            item["content"] = None
        return item
    if kind == "shell":
        return {
            "type": "local_shell_call",
            "id": "lsh_" + draw(ids),
            "call_id": draw(ids),
            "status": "completed",
            "action": {"type": "exec", "command": ["ls", draw(text)]},
        }
    return {
        "type": draw(st.sampled_from(["compaction", "web_search_call", "item_reference", "future_item_type"])),
        "encrypted_content": draw(text),
        "id": draw(ids),
    }


@given(st.lists(items(), max_size=8), st.one_of(st.none(), text))
def test_round_trip_is_exact(doc: list[dict[str, Any]], instructions: str | None) -> None:
    messages = responses_to_messages(doc, instructions)
    assert len(messages) == len(doc) + (instructions is not None)  # one item, one message
    back_instructions, back = messages_to_responses(messages)
    assert back_instructions == instructions
    assert orjson.dumps(back) == orjson.dumps(doc)


def test_string_input_round_trips() -> None:
    messages = responses_to_messages("hello", "be brief")
    assert [m.role for m in messages] == ["system", "user"]
    assert messages_to_responses(messages) == ("be brief", "hello")


def test_codex_shaped_turn() -> None:
    doc = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sandbox: none"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "I should run ls"}],
            "content": None,
            "encrypted_content": "gAAAAB...",
        },
        {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": "a.txt\nb.txt"},
        {"type": "compaction", "encrypted_content": "opaque-provider-summary"},
    ]
    messages = responses_to_messages(doc, "You are Codex.")
    roles = [m.role for m in messages]
    assert roles == ["system", "system", "user", "assistant", "assistant", "tool", "assistant"]
    thinking = messages[3].content[0]
    assert isinstance(thinking, ThinkingBlock) and thinking.signature == "gAAAAB..."
    call = messages[4].content[0]
    assert isinstance(call, ToolCallBlock) and call.id == "call_1" and call.name == "shell"
    result = messages[5].content[0]
    assert isinstance(result, ToolResultBlock) and result.text == "a.txt\nb.txt" and result.name == "shell"
    assert is_opaque(messages[3]) and is_opaque(messages[6]) and not is_opaque(messages[4])
    assert validate(messages, "responses") == []
    assert [(g.start, g.end) for g in tool_groups(messages)] == [(4, 5)]


def test_encrypted_only_reasoning_is_redacted_thinking() -> None:
    [message] = responses_to_messages([{"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "x"}])
    assert isinstance(message.content[0], RedactedThinkingBlock)


def test_opaque_call_and_output_pair() -> None:
    doc = [
        {"type": "local_shell_call", "id": "l1", "call_id": "c1", "status": "completed", "action": {"type": "exec"}},
        {"type": "local_shell_call_output", "call_id": "c1", "output": "ok"},
    ]
    messages = responses_to_messages(doc)
    assert [(g.start, g.end, g.pending) for g in tool_groups(messages)] == [(0, 1, ())]
    assert messages_to_responses(messages)[1] == doc


def test_unknown_part_keeps_whole_item_verbatim() -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_audio", "data": "AAA"}]}
    [message] = responses_to_messages([item])
    assert is_opaque(message)
    assert messages_to_responses([message])[1] == [item]


def test_malformed_known_item_names_the_index() -> None:
    with pytest.raises(InputError, match="message 1: a function_call item needs"):
        responses_to_messages([{"role": "user", "content": "x"}, {"type": "function_call", "call_id": 3}])
    with pytest.raises(InputError, match="message 0"):
        responses_to_messages(["not an item"])  # type: ignore[list-item]


def test_foreign_messages_render_as_items() -> None:
    from contextfold import Message

    messages = [
        Message.text_message("system", "rules"),
        Message.text_message("user", "hi"),
        Message(
            role="assistant",
            content=(
                TextBlock(text="calling"),
                ToolCallBlock(id="a", name="f", arguments="{}"),
                ToolCallBlock(id="b", name="g", arguments="{}"),
            ),
        ),
        Message(role="tool", content=(ToolResultBlock(call_id="a", content=(TextBlock(text="1"),)),)),
        Message(role="tool", content=(ToolResultBlock(call_id="b", content=(TextBlock(text="2"),)),)),
    ]
    instructions, rendered = messages_to_responses(messages)
    assert instructions == "rules"
    assert rendered == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "calling"}]},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "1"},
        {"type": "function_call_output", "call_id": "b", "output": "2"},
    ]
    again = responses_to_messages(rendered, instructions)
    assert validate(again, "responses") == []


def test_validate_finds_responses_pairing_problems() -> None:
    doc = [
        {"type": "function_call_output", "call_id": "nope", "output": "x"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"role": "user", "content": "next"},
    ]
    codes = [p.code for p in validate(responses_to_messages(doc), "responses")]
    assert "orphan_tool_result" in codes and "missing_tool_result" in codes
    pending = validate(responses_to_messages(doc[1:2]), "responses")
    assert [p.code for p in pending] == ["pending_tool_call"]


@given(
    st.lists(
        st.fixed_dictionaries(
            {"type": st.just("function"), "name": ids, "parameters": st.just({"type": "object"})},
            optional={"description": text, "strict": st.booleans()},
        ),
        max_size=3,
    )
    | st.just([{"type": "web_search"}, {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}])
)
def test_tools_round_trip(tools: list[dict[str, Any]]) -> None:
    assert orjson.dumps(tools_to_responses(tools_from_responses(tools))) == orjson.dumps(tools)


# -- "responses" is a ProviderName: the public dispatch, detection and transcript files speak it ---------------------


CALL = {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{}"}


@given(st.lists(items(), max_size=8), st.one_of(st.none(), text), st.lists(st.just({"type": "web_search"}), max_size=1))
def test_the_public_dispatch_round_trips_responses(
    doc: list[dict[str, Any]], instructions: str | None, tools: list[dict[str, Any]]
) -> None:
    from contextfold import render, to_canonical
    from contextfold._formats import tools_from

    messages = to_canonical(doc, "responses", instructions)
    body = render(messages, "responses", tools_from(tools, "responses"))
    expected: dict[str, Any] = {"instructions": instructions} if instructions is not None else {}
    expected["input"] = doc
    if tools:
        expected["tools"] = tools
    assert orjson.dumps(body) == orjson.dumps(expected)


@given(st.lists(items(), max_size=6))
def test_responses_documents_are_detected(doc: list[dict[str, Any]]) -> None:
    from contextfold import detect_format

    assert detect_format([CALL, *doc]) == "responses"
    assert detect_format({"input": doc, "instructions": "x"}) == "responses"
    assert detect_format({"input": "just a string"}) == "responses"


def test_system_and_developer_messages_are_openai_unless_a_responses_signal_follows() -> None:
    from contextfold import detect_format

    developer = {"role": "developer", "content": "be brief"}
    assert detect_format([developer, {"role": "user", "content": "hi"}]) == "openai"
    assert detect_format([developer, {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]) == (
        "responses"
    )
    assert detect_format([developer, CALL]) == "responses"
    assert detect_format(
        [{"role": "system", "content": "s"}, {"role": "tool", "tool_call_id": "c", "content": ""}]
    ) == ("openai")
    assert detect_format([{"type": "message", "role": "user", "content": "hi"}]) == "responses"
    with pytest.raises(InputError, match="without 'role'"):
        detect_format([{"type": "not_a_responses_item"}])  # an unknown type alone does not make a transcript


def test_render_and_validate_speak_responses_by_name() -> None:
    from contextfold import Message, ProviderName, render
    from contextfold._formats import PROVIDERS, check_provider

    assert "responses" in PROVIDERS and check_provider("responses") == "responses"
    assert "responses" in ProviderName.__args__  # type: ignore[attr-defined]
    call = ToolCallBlock(id="call_9", name="ls", arguments="{}")
    messages = [
        Message.text_message("system", "be brief"),
        Message.text_message("user", "list"),
        Message(role="assistant", content=(call,)),
    ]
    body = render(messages, "responses")
    assert body == {
        "instructions": "be brief",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list"}]},
            {"type": "function_call", "call_id": "call_9", "name": "ls", "arguments": "{}"},
        ],
    }
    [problem] = validate(messages, "responses")
    assert problem.code == "pending_tool_call"


def test_a_responses_request_body_is_a_transcript_file(tmp_path: Any) -> None:
    import json

    from contextfold import dump_transcripts, load_transcripts

    body = {
        "model": "gpt-5-codex",
        "instructions": "You are Codex.",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}, CALL],
        "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}}],
        "stream": True,
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body, indent=2))
    [transcript] = load_transcripts(path)
    assert transcript.format == "responses" and [m.role for m in transcript.messages] == ["system", "user", "assistant"]
    assert [t.name for t in transcript.tools] == ["shell"] and transcript.extra == {
        "model": "gpt-5-codex",
        "stream": True,
    }
    assert json.loads(dump_transcripts([transcript])) == body
    assert dump_transcripts([transcript]) == path.read_text() + "\n" * (not path.read_text().endswith("\n"))
