import base64
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from contextfold import (
    DataBlock,
    HintBlock,
    InputError,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    anthropic_to_messages,
    messages_to_anthropic,
    tools_from_anthropic,
    tools_to_anthropic,
)
from message_gen import anthropic_documents

SAMPLE = json.loads((Path(__file__).parents[1] / "data" / "anthropic_sample.json").read_text())


@settings(max_examples=150, deadline=None)
@given(anthropic_documents())
def test_round_trip_is_identity(doc: tuple[Any, list[dict[str, Any]]]) -> None:
    system, messages = doc
    assert messages_to_anthropic(anthropic_to_messages(messages, system)) == (system, messages)


def test_sample_round_trips_exactly() -> None:
    msgs = anthropic_to_messages(SAMPLE["messages"], SAMPLE["system"])
    assert messages_to_anthropic(msgs) == (SAMPLE["system"], SAMPLE["messages"])
    assert tools_to_anthropic(tools_from_anthropic(SAMPLE["tools"])) == SAMPLE["tools"]


def test_sample_is_split_into_canonical_roles() -> None:
    msgs = anthropic_to_messages(SAMPLE["messages"], SAMPLE["system"])
    assert [m.role for m in msgs] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    system = msgs[0]
    assert [b.text for b in system.content if isinstance(b, TextBlock)][1].startswith("Project rules")
    assert system.content[1].meta["anthropic.extra"] == {"cache_control": {"type": "ephemeral"}}
    kinds = [b.kind for b in msgs[2].content]
    assert kinds == ["thinking", "redacted_thinking", "text", "tool_call", "tool_call"]
    thinking = msgs[2].content[0]
    assert isinstance(thinking, ThinkingBlock) and thinking.signature == "EqQBCkgIARABGAIiQL2sample0signature0bytes"
    assert isinstance(msgs[2].content[1], RedactedThinkingBlock)
    call = msgs[2].content[3]
    assert isinstance(call, ToolCallBlock) and call.arguments == '{"path":"templates/login.html"}'
    first, second = msgs[3].tool_results
    assert (first.name, first.is_error, second.name, second.is_error) == ("read_file", False, "run", True)
    assert [b.kind for b in first.content] == ["text", "data"]
    # the text after the results became a user message flagged to merge back
    assert msgs[4].text == "Also, keep the old CSS class names."
    assert msgs[4].meta["anthropic.continues"] is True
    # two user turns in a row in the original: the second stays its own turn
    assert msgs[7].content == (HintBlock(text="The current time is 2025-01-10 14:02 UTC."),)
    assert msgs[7].meta["anthropic.new_turn"] is True
    document = msgs[1].content[2]
    assert isinstance(document, DataBlock) and document.media == "document" and document.url is not None


def test_tool_results_are_moved_before_other_blocks() -> None:
    messages = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "note"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            ],
        },
    ]
    system, back = messages_to_anthropic(anthropic_to_messages(messages))
    assert system is None
    assert back[1]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        {"type": "text", "text": "note"},
    ]


def test_text_document_source_is_kept_as_base64_and_given_back() -> None:
    block = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "héllo"}}
    msgs = anthropic_to_messages([{"role": "user", "content": [block]}])
    (data,) = msgs[0].content
    assert isinstance(data, DataBlock) and base64.b64decode(data.data or "").decode() == "héllo"
    assert messages_to_anthropic(msgs)[1] == [{"role": "user", "content": [block]}]


def test_programmatic_messages_merge_and_leave_out_empty_turns() -> None:
    msgs = [
        Message.text_message("system", "rules"),
        Message.text_message("user", "go"),
        Message(role="assistant", content=(TextBlock(text="  "),)),
        Message.text_message("assistant", "working"),
        Message(role="assistant", content=(ToolCallBlock(id="c", name="f", arguments="not json"),)),
        Message(role="tool", content=(ToolResultBlock(call_id="c", content=(TextBlock(text="r"),), is_error=True),)),
        Message.text_message("user", "thanks"),
        Message.text_message("system", "be brief"),
    ]
    system, out = messages_to_anthropic(msgs)
    assert system == "rules"
    assert out == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "working"},
                {"type": "tool_use", "id": "c", "name": "f", "input": {"raw_arguments": "not json"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c", "content": "r", "is_error": True},
                {"type": "text", "text": "thanks"},
                {"type": "text", "text": "be brief"},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("messages", "index", "needle"),
    [
        ([{"role": "system", "content": "x"}], 0, "unknown role 'system'; allowed: user, assistant"),
        (
            [{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "video"}]}],
            1,
            "unknown block type 'video' in a user message; allowed: text, image, document, tool_result",
        ),
        (
            [{"role": "assistant", "content": [{"type": "image", "source": {}}]}],
            0,
            "unknown block type 'image' in an assistant message",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": [1]}]}],
            0,
            "'input' must be an object, found a list",
        ),
        (
            [{"role": "user", "content": [{"type": "image", "source": {"type": "ftp"}}]}],
            0,
            "unknown image source type 'ftp'; allowed: base64, url, file",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "a", "content": [{"type": "audio"}]}],
                }
            ],
            0,
            "unknown block type 'audio' in a tool_result",
        ),
        ([{"role": "user"}], 0, "needs 'content'"),
        ([{"role": "user", "content": 3}], 0, "found a number"),
    ],
)
def test_bad_messages_name_index_found_and_allowed(messages: list[Any], index: int, needle: str) -> None:
    with pytest.raises(InputError) as info:
        anthropic_to_messages(messages)
    assert info.value.message_index == index
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_system_is_reported() -> None:
    with pytest.raises(InputError, match="system block 0: expected a text block, found 'image'"):
        anthropic_to_messages([], [{"type": "image"}])
    with pytest.raises(InputError, match="'system' must be a string or a list"):
        anthropic_to_messages([], 5)  # type: ignore[arg-type]


def test_server_tools_are_kept_verbatim() -> None:
    tools = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"name": "f", "input_schema": {"type": "object"}},
    ]
    specs = tools_from_anthropic(tools)
    assert [s.name for s in specs] == ["web_search", "f"]
    assert tools_to_anthropic(specs) == tools
    with pytest.raises(InputError, match="tool 0 needs a string 'name'"):
        tools_from_anthropic([{"input_schema": {}}])
