import dataclasses

import pytest

from contextfold import (
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
)
from contextfold._messages import iter_text


def test_messages_are_immutable() -> None:
    m = Message.text_message("user", "hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.role = "assistant"  # type: ignore[misc]
    with pytest.raises(TypeError):
        m.meta["x"] = 1  # type: ignore[index]


def test_block_kinds_are_stable_tags() -> None:
    assert TextBlock(text="a").kind == "text"
    assert ToolCallBlock(id="1", name="f").kind == "tool_call"
    assert ToolResultBlock(call_id="1").kind == "tool_result"
    assert DataBlock(media="image", url="http://x").kind == "data"
    assert ThinkingBlock(thinking="t", signature="s").kind == "thinking"
    assert HintBlock(text="h").kind == "hint"


def test_data_block_needs_exactly_one_source() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        DataBlock(media="image")
    with pytest.raises(ValueError, match="exactly one"):
        DataBlock(media="image", url="u", data="d")


def test_iter_text_covers_everything_a_message_carries() -> None:
    m = Message(
        role="assistant",
        content=(
            ThinkingBlock(thinking="think"),
            TextBlock(text="say"),
            ToolCallBlock(id="c1", name="bash", arguments='{"command": "ls"}'),
        ),
    )
    assert list(iter_text(m)) == ["think", "say", "bash", '{"command": "ls"}']
    r = Message(
        role="tool",
        content=(ToolResultBlock(call_id="c1", content=(TextBlock(text="out"), DataBlock(media="image", data="AA"))),),
    )
    assert list(iter_text(r)) == ["out"]
    assert r.tool_results[0].text == "out"


def test_replace_drops_token_cache_and_keeps_equality_semantics() -> None:
    m = Message.text_message("user", "hello")
    m._tokens["k"] = 5
    copy = m.replace()
    assert copy == m
    assert copy._tokens == {}
    assert m.replace(name="bob") != m


def test_tool_call_arguments_parse() -> None:
    assert ToolCallBlock(id="1", name="f", arguments='{"a": 1}').parsed_arguments() == {"a": 1}
    assert ToolCallBlock(id="1", name="f", arguments="").parsed_arguments() == {}
    with pytest.raises(ValueError):
        ToolCallBlock(id="1", name="f", arguments="{bad").parsed_arguments()


def test_tool_spec_schema_json_is_stable() -> None:
    a = ToolSpec(name="f", description="d", parameters={"type": "object", "properties": {"b": {}, "a": {}}})
    b = ToolSpec(name="f", description="d", parameters={"properties": {"a": {}, "b": {}}, "type": "object"})
    assert a.schema_json() == b.schema_json()
