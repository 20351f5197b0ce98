from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _offload_strategies import blocks, messages
from contextfold._codec import (
    block_from_dict,
    block_to_dict,
    dumps_canonical,
    message_from_dict,
    message_to_dict,
    message_to_json,
    messages_from_jsonl,
    messages_to_jsonl,
)
from contextfold._errors import InputError
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock


@settings(max_examples=300, deadline=None)
@given(st.lists(messages, max_size=5))
def test_jsonl_round_trip_is_exact(msgs: list[Message]) -> None:
    text = messages_to_jsonl(msgs)
    back = messages_from_jsonl(text)
    assert back == msgs
    # meta is not part of equality: compare the full canonical form too
    assert [message_to_dict(m) for m in back] == [message_to_dict(m) for m in msgs]
    assert messages_to_jsonl(back) == text  # canonical: same bytes again
    text.encode("utf-8")  # always valid UTF-8, even with lone surrogates inside
    assert text.count("\n") == len(msgs)


@settings(max_examples=200, deadline=None)
@given(blocks)
def test_block_round_trip(block: object) -> None:
    d = block_to_dict(block)  # type: ignore[arg-type]
    back = block_from_dict(json.loads(json.dumps(d)))
    assert back == block
    assert block_to_dict(back) == d


def test_meta_and_defaults_kept() -> None:
    m = Message(
        role="tool",
        content=(
            ToolResultBlock(
                call_id="c1",
                content=(TextBlock(text="x", meta={"cache_control": {"type": "ephemeral"}}),),
                name="grep",
                meta={"k": [1, 2]},
            ),
        ),
        meta={"original_role": "function"},
    )
    back = message_from_dict(json.loads(json.dumps(message_to_dict(m))))
    result = back.content[0]
    assert isinstance(result, ToolResultBlock)
    assert dict(result.content[0].meta) == {"cache_control": {"type": "ephemeral"}}
    assert dict(result.meta) == {"k": [1, 2]}
    assert dict(back.meta) == {"original_role": "function"}


def test_lone_surrogate_line_is_ascii_escaped() -> None:
    m = Message.text_message("user", "bad \ud800 text é")
    line = messages_to_jsonl([m])
    assert "\\ud800" in line and line.isascii()
    assert messages_from_jsonl(line)[0].text == "bad \ud800 text é"
    plain = messages_to_jsonl([Message.text_message("user", "é")])
    assert "é" in plain  # without surrogates, non-ASCII is kept as is


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ('{"role":"user","content":[]}\n{"role":', "a.jsonl:2:9, message 1"),
        ('{"role":"robot","content":[]}', "unknown role"),
        ('{"role":"user","content":[{"kind":"nope"}]}', "unknown block kind"),
        ('{"role":"user","content":[{"kind":"text","text":3}]}', "must be str"),
        ('{"role":"user","content":[{"kind":"data","media":"image"}]}', "exactly one of"),
        (
            '{"role":"tool","content":[{"kind":"tool_result","call_id":"a","content":[{"kind":"hint","text":"x"}]}]}',
            "only text and data",
        ),
        ("[1]", "must be an object"),
    ],
)
def test_bad_input_names_the_place(text: str, expect: str) -> None:
    with pytest.raises(InputError) as info:
        messages_from_jsonl(text, source="a.jsonl")
    assert expect in str(info.value)
    assert str(info.value).startswith("a.jsonl:")


def test_error_carries_message_index() -> None:
    good = messages_to_jsonl([Message.text_message("user", "a")])
    with pytest.raises(InputError) as info:
        messages_from_jsonl(good + "\n" + '{"role":"user","content":[{"kind":"x"}]}')
    assert info.value.message_index == 1
    assert info.value.line == 3


def test_data_block_fields() -> None:
    b = DataBlock(media="image", media_type="image/png", url="https://example.com/a.png")
    assert block_to_dict(b) == {
        "kind": "data",
        "media": "image",
        "media_type": "image/png",
        "url": "https://example.com/a.png",
        "data": None,
        "path": None,
    }


def _without_meta(message: Message) -> Message:
    """``message`` with every ``meta`` emptied (the fast ``orjson`` path)."""
    content = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            inner = tuple(dataclasses.replace(b, meta={}) for b in block.content)
            block = dataclasses.replace(block, content=inner)
        content.append(dataclasses.replace(block, meta={}))
    return dataclasses.replace(message, content=tuple(content), meta={})


@settings(max_examples=300, deadline=None)
@given(messages)
def test_fast_line_is_the_canonical_json_line(message: Message) -> None:
    # Both paths (orjson without meta, json.dumps with meta or lone surrogates) give the same bytes.
    for m in (message, _without_meta(message)):
        assert message_to_json(m) == dumps_canonical(message_to_dict(m))
        assert messages_from_jsonl(message_to_json(m)) == [m]


def test_fast_line_every_code_point() -> None:
    # Escapes (controls, quotes, backslash, U+2028...) are written as json.dumps writes them, for every code point.
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    m = Message(role="tool", content=(ToolResultBlock(call_id="c", content=(TextBlock(text=text),), name="x"),))
    assert message_to_json(m) == dumps_canonical(message_to_dict(m))
    lone = Message(role="user", content=(TextBlock(text="a\udc80b"),))
    assert message_to_json(lone) == dumps_canonical(message_to_dict(lone))
    assert message_to_json(lone).isascii()
