import dataclasses

import pytest
from hypothesis import given, settings

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
from message_gen import anthropic_documents, openai_messages


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


# -- pickling (messages cross process boundaries: worker pools, caches) ----------------------------------------------


def _pickle_round_trip(messages: list[Message]) -> list[Message]:
    import pickle

    back: list[Message] = pickle.loads(pickle.dumps(messages))
    return back


def _check_same(messages: list[Message], back: list[Message], provider: str) -> None:
    from contextfold import render

    assert back == messages
    assert render(back, provider) == render(messages, provider)  # meta (compared by neither ==) came back too
    for m in back:
        with pytest.raises(TypeError):
            m.meta["x"] = 1  # type: ignore[index]
        for block in m.content:
            with pytest.raises(TypeError):
                block.meta["x"] = 1  # type: ignore[index]


@settings(max_examples=60, deadline=None)
@given(openai_messages())
def test_openai_messages_pickle_with_their_meta(doc: list[dict[str, object]]) -> None:
    from contextfold import openai_to_messages

    messages = openai_to_messages(doc)
    _check_same(messages, _pickle_round_trip(messages), "openai")


@settings(max_examples=60, deadline=None)
@given(anthropic_documents())
def test_anthropic_messages_pickle_with_their_meta(document: tuple[object, list[dict[str, object]]]) -> None:
    from contextfold import anthropic_to_messages

    system, doc = document
    messages = anthropic_to_messages(doc, system)  # type: ignore[arg-type]
    _check_same(messages, _pickle_round_trip(messages), "anthropic")


def test_a_pickled_message_and_tool_spec_load_equal_and_recount() -> None:
    import pickle

    from contextfold import BytesCounter
    from contextfold._messages import freeze_meta

    block = TextBlock(text="hi", meta=freeze_meta({"cache_control": {"type": "ephemeral"}}))
    message = Message(role="user", content=(block,), meta=freeze_meta({"raw_role": "developer"}))
    counter = BytesCounter()
    tokens = counter.count_message(message)
    back = pickle.loads(pickle.dumps(message))
    assert back == message and dict(back.meta) == {"raw_role": "developer"}
    assert dict(back.content[0].meta) == {"cache_control": {"type": "ephemeral"}}
    assert counter.count_message(back) == tokens
    spec = ToolSpec(name="ls", description="list", parameters={"type": "object", "properties": {}})
    assert pickle.loads(pickle.dumps(spec)) == spec
