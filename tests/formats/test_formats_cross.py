from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings

from contextfold import (
    ConfigError,
    Message,
    ToolSpec,
    UnknownFormatError,
    anthropic_to_messages,
    detect_format,
    messages_to_anthropic,
    messages_to_openai,
    openai_to_messages,
    render,
    to_canonical,
)
from message_gen import conversations


def check_anthropic(system: Any, messages: list[dict[str, Any]]) -> None:
    """Anthropic's request rules: alternation, no empty turns, every tool_use answered in the next user turn."""
    assert system is None or isinstance(system, str | list)
    for n, m in enumerate(messages):
        assert m["role"] in ("user", "assistant")
        assert m["content"], f"empty message {n}"
        if n:
            assert m["role"] != messages[n - 1]["role"], f"no alternation at {n}"
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        for b in blocks:
            if b["type"] == "text":
                assert b["text"].strip()
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if uses:
            assert n + 1 < len(messages), "tool_use without a following user message"
            nxt = messages[n + 1]["content"]
            assert isinstance(nxt, list)
            kinds = [b["type"] for b in nxt]
            k = kinds.count("tool_result")
            assert kinds[:k] == ["tool_result"] * k, "tool_result blocks must come first"
            assert [b["tool_use_id"] for b in nxt[:k]] == uses
        if m["role"] == "user" and any(b["type"] == "tool_result" for b in blocks):
            assert n > 0 and messages[n - 1]["role"] == "assistant"


def check_openai(messages: list[dict[str, Any]]) -> None:
    """OpenAI's rules: each tool message answers a call of the assistant before the tool run; all calls answered."""
    open_calls: set[str] = set()
    for n, m in enumerate(messages):
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_calls, f"orphan tool result at {n}"
            open_calls.discard(m["tool_call_id"])
            continue
        assert not open_calls, f"calls {open_calls} unanswered before message {n}"
        open_calls = {c["id"] for c in m.get("tool_calls") or ()}
    assert not open_calls


@settings(max_examples=80, deadline=None)
@given(conversations())
def test_openai_in_anthropic_out_and_back_keeps_pairing(conv: list[Message]) -> None:
    oa = messages_to_openai(conv)
    check_openai(oa)
    canonical = openai_to_messages(oa)
    system, an = messages_to_anthropic(canonical)
    check_anthropic(system, an)
    back = messages_to_openai(anthropic_to_messages(an, system))
    check_openai(back)
    assert [c["id"] for m in back for c in m.get("tool_calls") or ()] == [c.id for m in conv for c in m.tool_calls]


@settings(max_examples=80, deadline=None)
@given(conversations())
def test_anthropic_rendering_is_valid_and_stable(conv: list[Message]) -> None:
    system, an = messages_to_anthropic(conv)
    check_anthropic(system, an)
    assert messages_to_anthropic(anthropic_to_messages(an, system)) == (system, an)


@settings(max_examples=80, deadline=None)
@given(conversations(thinking=False, media=False))
def test_canonical_survives_openai(conv: list[Message]) -> None:
    # OpenAI has one result per tool message and no is_error: those are the only differences
    expected = []
    for m in conv:
        if m.role == "tool":
            expected += [Message(role="tool", content=(replace(r, is_error=False),)) for r in m.tool_results]
        else:
            expected.append(m)
    assert openai_to_messages(messages_to_openai(conv)) == expected


def test_mid_conversation_system_message_becomes_user_text() -> None:
    oa = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "now be brief"},
        {"role": "user", "content": "ok?"},
    ]
    body = render(to_canonical(oa, "openai"), "anthropic")
    assert body == {
        "system": "rules",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": [{"type": "text", "text": "now be brief"}, {"type": "text", "text": "ok?"}]},
        ],
    }


def test_render_adds_tools_only_when_there_are_some() -> None:
    msgs = [Message.text_message("user", "hi")]
    assert render(msgs, "openai") == {"messages": [{"role": "user", "content": "hi"}]}
    tool = ToolSpec(name="f", description="does f", parameters={"type": "object", "properties": {}})
    assert render(msgs, "openai", [tool])["tools"] == [
        {"type": "function", "function": {"name": "f", "description": "does f", "parameters": tool.parameters}}
    ]
    assert render(msgs, "anthropic", [tool]) == {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "f", "description": "does f", "input_schema": dict(tool.parameters)}],
    }
    with pytest.raises(ConfigError):
        to_canonical([], "openai", system="x")


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ([{"role": "system", "content": "x"}], "openai"),
        ([{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}], "openai"),
        (
            [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]},
            ],
            "anthropic",
        ),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}], "openai"),
        ([{"role": "assistant", "content": None, "tool_calls": []}], "openai"),
        ({"system": "s", "messages": [{"role": "user", "content": "x"}]}, "anthropic"),
        ({"messages": [], "tools": [{"name": "f", "input_schema": {}}]}, "anthropic"),
        ({"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]}, "openai"),
        ([], "openai"),
    ],
)
def test_detect_format(doc: Any, expected: str) -> None:
    assert detect_format(doc) == expected


@pytest.mark.parametrize(
    ("doc", "needle", "index"),
    [
        ({"foo": 1}, "a JSON object without 'messages' (keys: 'foo')", None),
        (42, "not a transcript: found a number", None),
        ([1, 2], "expected a message object with a 'role', found a number", 0),
        ([{"role": "user"}, {"text": "x"}], "found an object without 'role'", 1),
        ({"messages": "hi"}, "'messages' is a string, not a list", None),
    ],
)
def test_detect_format_rejects_non_transcripts(doc: Any, needle: str, index: int | None) -> None:
    with pytest.raises(UnknownFormatError) as info:
        detect_format(doc)
    assert needle in str(info.value)
    assert info.value.message_index == index
