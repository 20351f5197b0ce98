from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _offload_strategies import blocks, messages
from contextfold import (
    Block,
    DataBlock,
    HintBlock,
    InputError,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._workspace._codec import (
    block_from_dict,
    block_to_dict,
    dumps_canonical,
    message_from_dict,
    message_to_dict,
    message_to_json,
    message_to_json_bytes,
    messages_from_jsonl,
    messages_to_jsonl,
    messages_to_jsonl_chunks,
)


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


# --- The orjson paths against the plain computation -------------------------------------------------------------
# `message_to_json_bytes` uses orjson (sorting keys when there is meta) whenever its bytes are provably those of
# ``json.dumps(..., sort_keys=True)``; the reference below is that plain path, with the dicts built by class pattern.


def _ref_block_dict(block: Block) -> dict[str, Any]:
    match block:
        case TextBlock() | HintBlock():
            d: dict[str, Any] = {"kind": block.kind, "text": block.text}
        case ToolCallBlock():
            d = {"arguments": block.arguments, "id": block.id, "kind": "tool_call", "name": block.name}
        case ToolResultBlock():
            content = [_ref_block_dict(inner) for inner in block.content]
            d = {"call_id": block.call_id, "content": content, "is_error": block.is_error}
            d |= {"kind": "tool_result", "name": block.name}
        case DataBlock():
            d = {"data": block.data, "kind": "data", "media": block.media, "media_type": block.media_type}
            d |= {"path": block.path, "url": block.url}
        case ThinkingBlock():
            d = {"kind": "thinking", "signature": block.signature, "thinking": block.thinking}
        case RedactedThinkingBlock():
            d = {"data": block.data, "kind": "redacted_thinking"}
    if block.meta:
        d["meta"] = dict(block.meta)
    return d


def _ref_dict(message: Message) -> dict[str, Any]:
    d: dict[str, Any] = {"content": [_ref_block_dict(b) for b in message.content]}
    d |= {"name": message.name, "role": message.role}
    if message.meta:
        d["meta"] = dict(message.meta)
    return d


def _ref_line(message: Message) -> bytes:
    return dumps_canonical(_ref_dict(message)).encode("utf-8")


def _outcome(make: Callable[[], bytes]) -> bytes | type[BaseException]:
    try:
        return make()
    except (TypeError, ValueError, RecursionError) as exc:
        return type(exc)


class _Str(str):
    __slots__ = ()


_INT_EDGES = [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**40, -(10**40), 0, -1]
_any_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=12)
_odd_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(_INT_EDGES),
    st.floats(),  # NaN, infinities, 1e16...: json.dumps and orjson write floats differently
    st.sampled_from([1e16, 1e-7, 0.1, -0.0, 5e-324, 1.7976931348623157e308]),
    _any_text,
    st.sampled_from(["\ud800", "a\udfff", '\u2028\x85\x00\x1f"\\', "中文🙂", "\x7f"]),
    st.just(frozenset()),  # not JSON: both paths raise
    st.sampled_from([HTTPStatus.OK, _Str("s"), _Str("\ud800")]),  # subclasses of int and str
)
_odd_key = _any_text | st.sampled_from(["a", "B", "é", "中", "🙂", "\uffff", "\U00010000", "\ud800"])
_odd_value = st.recursive(
    _odd_scalar,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_odd_key, inner, max_size=4)
        | st.dictionaries(st.integers(-3, 3) | st.none() | st.booleans(), inner, max_size=2)
    ),  # non-str keys
    max_leaves=10,
)
_odd_meta = st.dictionaries(_odd_key, _odd_value, max_size=4) | st.dictionaries(
    _odd_key, _any_text | st.booleans() | st.none() | st.sampled_from(_INT_EDGES), max_size=6
)


@st.composite
def _with_odd_meta(draw: st.DrawFn) -> Message:
    """A message whose meta (its own and its blocks', some left empty) holds adversarial JSON-ish values."""

    def meta() -> dict[Any, Any]:
        return draw(st.just({}) | _odd_meta | st.just({"contextfold": "summary"}))

    message = draw(messages)
    content = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            inner = tuple(dataclasses.replace(b, meta=meta()) for b in block.content)
            block = dataclasses.replace(block, content=inner)
        content.append(dataclasses.replace(block, meta=meta()))
    return dataclasses.replace(message, content=tuple(content), meta=meta())


@settings(max_examples=250, deadline=None)
@given(_with_odd_meta())
def test_json_line_is_the_plain_json_line(message: Message) -> None:
    expected = _outcome(lambda: _ref_line(message))
    assert _outcome(lambda: message_to_json_bytes(message)) == expected
    if isinstance(expected, bytes):
        assert messages_to_jsonl_chunks([message, message]) == [expected, b"\n", expected, b"\n"]
        # the dicts too, key order included (the meta-free orjson path relies on it)
        assert repr(message_to_dict(message)) == repr(_ref_dict(message))


@pytest.mark.parametrize("value", [*_INT_EDGES, 1.0, float("nan"), 1e16, [[[]]], {"b": 1, "a": {"é": 2, "e": 3}}])
def test_meta_edges_match_the_plain_line(value: object) -> None:
    for meta in ({"k": value}, {"contextfold": "summary", "z": [value, (value,)]}):
        m = Message.text_message("user", "text é \u2028", meta=meta)
        assert _outcome(lambda m=m: message_to_json_bytes(m)) == _outcome(lambda m=m: _ref_line(m))


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 200, 400])
def test_deep_meta_matches_the_plain_line(depth: int) -> None:
    value: Any = "leaf"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    m = Message.text_message("user", "x", meta={"deep": value})
    assert message_to_json_bytes(m) == _ref_line(m)


def test_non_str_meta_keys_take_the_plain_path() -> None:
    m = Message.text_message("user", "x", meta={1: "a", 2: "b"})
    assert (
        message_to_json_bytes(m)
        == _ref_line(m)
        == b'{"content":[{"kind":"text","text":"x"}],"meta":{"1":"a","2":"b"},"name":null,"role":"user"}'
    )
    mixed = Message.text_message("user", "x", meta={1: "a", "b": 2})
    with pytest.raises(TypeError):
        message_to_json_bytes(mixed)  # json.dumps cannot sort int and str keys together: as before


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _SubText(TextBlock):
    pass


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _SubResult(ToolResultBlock):
    pass


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _SubCall(ToolCallBlock):
    pass


@pytest.mark.parametrize("inner_meta", [{}, {"b": 1, "a": "x"}, {"f": 1.5}])
@pytest.mark.parametrize("outer_meta", [{}, {"z": True}])
def test_block_subclasses_match_the_plain_line(inner_meta: dict[str, Any], outer_meta: dict[str, Any]) -> None:
    inner = (_SubText(text="a", meta=inner_meta), TextBlock(text="b", meta=inner_meta))
    for result in (_SubResult(call_id="c", content=inner), ToolResultBlock(call_id="c", content=inner)):
        content = (result, _SubCall(id="c", name="n", meta=outer_meta), _SubText(text="t", meta=outer_meta))
        for m in (Message(role="tool", content=(result,)), Message(role="assistant", content=content)):
            assert message_to_json_bytes(m) == _ref_line(m)
            assert repr(message_to_dict(m)) == repr(_ref_dict(m))
