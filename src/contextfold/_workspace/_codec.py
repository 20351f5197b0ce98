r"""Canonical JSON form of messages and blocks: the archive format.

Archived context must read back exactly, so every field of every block is
written, including ``meta`` (provider extras) and fields that hold their
default. One message is one JSON object; a list of messages is JSONL, one
object per line. The form is canonical: keys are sorted and separators
compact, so the same message always gives the same line (archives can be
compared and hashed byte for byte).

Lines are UTF-8 with non-ASCII characters written as is. A Python ``str`` may
hold lone surrogates (a tool that decoded bytes with ``surrogateescape``, for
instance), which UTF-8 cannot carry; a line holding one is written with
``\uXXXX`` escapes instead (pure ASCII), which JSON reads back to the same
code points. ``meta`` values must be JSON values; tuples come back as lists.

Speed: a message without ``meta`` (the usual case) is encoded by ``orjson``
(about eight times faster than ``json.dumps`` on large tool outputs, twice as
fast as pydantic-core's ``to_json``), straight to the UTF-8 bytes the
workspace writes. Its dict is built with its keys already in sorted order, and
``orjson`` writes the same bytes as ``json.dumps(..., ensure_ascii=False)`` for
every code point (tested), so the line is the same as the plain path's. A
message with ``meta`` whose values are strings, booleans, ``None``, 64-bit
integers, and str-keyed dicts and lists of those (a summary's marker, for
instance) is encoded by ``orjson`` sorting keys, which gives the same bytes
too (tested). Other ``meta`` (floats, which the two libraries write
differently; larger integers, which ``orjson`` refuses; keys that are not
strings) and lone surrogates (``orjson`` refuses them) take the ``json`` path.

Decoding is strict: an unknown ``kind`` or role, a missing field or a value of
the wrong type raises `InputError` naming the line and message index.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, assert_never, cast

import orjson

from contextfold._errors import InputError
from contextfold._messages import (
    ROLES,
    Block,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    freeze_meta,
)

__all__ = [
    "block_from_dict",
    "block_to_dict",
    "dumps_canonical",
    "message_from_dict",
    "message_to_dict",
    "message_to_json",
    "message_to_json_bytes",
    "messages_from_jsonl",
    "messages_to_jsonl",
    "messages_to_jsonl_chunks",
]

_MEDIA = ("image", "audio", "document")


def dumps_canonical(obj: Any) -> str:
    """One-line canonical JSON; ASCII-escaped only when the text holds lone surrogates."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return text


def _with_meta(d: dict[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    if meta:
        d["meta"] = dict(meta)
    return d


def block_to_dict(block: Block) -> dict[str, Any]:
    """The canonical dict of one block (``kind`` plus every field; ``meta`` when not empty)."""
    d: dict[str, Any]
    match block:
        case TextBlock():
            return _with_meta({"kind": "text", "text": block.text}, block.meta)
        case HintBlock():
            return _with_meta({"kind": "hint", "text": block.text}, block.meta)
        case ToolCallBlock():
            d = {"arguments": block.arguments, "id": block.id, "kind": "tool_call", "name": block.name}
            return _with_meta(d, block.meta)
        case ToolResultBlock():
            d = {
                "call_id": block.call_id,
                "content": [block_to_dict(inner) for inner in block.content],
                "is_error": block.is_error,
                "kind": "tool_result",
                "name": block.name,
            }
            return _with_meta(d, block.meta)
        case DataBlock():
            d = {
                "data": block.data,
                "kind": "data",
                "media": block.media,
                "media_type": block.media_type,
                "path": block.path,
                "url": block.url,
            }
            return _with_meta(d, block.meta)
        case ThinkingBlock():
            d = {"kind": "thinking", "signature": block.signature, "thinking": block.thinking}
            return _with_meta(d, block.meta)
        case RedactedThinkingBlock():
            return _with_meta({"data": block.data, "kind": "redacted_thinking"}, block.meta)
        case _:
            assert_never(block)


def _plain_dict(message: Message) -> dict[str, Any] | None:
    """`message_to_dict` of a message without ``meta`` anywhere, in one pass (usual blocks inline); else ``None``.

    Also ``None`` for a subclass of `ToolResultBlock` (its inner blocks are not looked at here).
    """
    if message.meta:
        return None
    content: list[dict[str, Any]] = []
    for block in message.content:
        if block.meta:
            return None
        if type(block) is TextBlock:
            content.append({"kind": "text", "text": block.text})
        elif type(block) is ToolCallBlock:
            content.append({"arguments": block.arguments, "id": block.id, "kind": "tool_call", "name": block.name})
        elif type(block) is ToolResultBlock:
            inner: list[dict[str, Any]] = []
            for b in block.content:
                if b.meta:
                    return None
                inner.append({"kind": "text", "text": b.text} if type(b) is TextBlock else block_to_dict(b))
            content.append(
                {
                    "call_id": block.call_id,
                    "content": inner,
                    "is_error": block.is_error,
                    "kind": "tool_result",
                    "name": block.name,
                }
            )
        elif isinstance(block, ToolResultBlock):
            return None
        else:
            content.append(block_to_dict(block))
    return {"content": content, "name": message.name, "role": message.role}


def _full_dict(message: Message) -> dict[str, Any]:
    d: dict[str, Any] = {
        "content": [block_to_dict(b) for b in message.content],
        "name": message.name,
        "role": message.role,
    }
    return _with_meta(d, message.meta)


def message_to_dict(message: Message) -> dict[str, Any]:
    """The canonical dict of a message (the token cache is not part of it)."""
    d = _plain_dict(message)
    return d if d is not None else _full_dict(message)


def _metas(message: Message) -> list[Mapping[str, Any]]:
    """Every non-empty ``meta`` of the message and its blocks (the usual message has none)."""
    found = [message.meta] if message.meta else []
    for block in message.content:
        if block.meta:
            found.append(block.meta)
        if isinstance(block, ToolResultBlock):
            found.extend(inner.meta for inner in block.content if inner.meta)
    return found


_ORJSON_INT = range(-(2**63), 2**64)
"""Integers ``orjson`` writes (it refuses larger ones); within it, the same digits as ``json.dumps``."""
_ORJSON_DEPTH = 64
"""Deeper ``meta`` values take the ``json`` path (``orjson`` stops at 255 levels)."""


def _orjson_exact(value: Any, depth: int = 0) -> bool:
    """Whether ``orjson`` (sorting keys) writes ``value`` as ``json.dumps(..., sort_keys=True)`` does or refuses it.

    So: str, bool, ``None``, 64-bit ints, and dicts with str keys, lists and tuples of those (exact types: no
    subclasses, whose ``__str__`` or ordering the two libraries may treat differently). Floats are not: ``orjson``
    writes ``1e16`` where ``json`` writes ``1e+16``, and ``null`` for NaN. A lone surrogate makes ``orjson`` raise.
    Keys sort alike: ``orjson`` compares them as UTF-8, which orders as code points do.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return value in _ORJSON_INT
    if depth >= _ORJSON_DEPTH:
        return False
    if kind is dict:
        return all(type(k) is str and _orjson_exact(v, depth + 1) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(_orjson_exact(v, depth + 1) for v in value)
    return False


def message_to_json_bytes(message: Message) -> bytes:
    """The canonical JSON line of one message as UTF-8 bytes (no trailing newline).

    Without ``meta`` anywhere, `message_to_dict` has its keys in sorted order and holds only strings, lists,
    ``None`` and booleans, which ``orjson`` writes byte for byte as ``json.dumps`` does. With ``meta`` whose
    values `_orjson_exact` accepts, ``orjson`` sorting keys does too. A lone surrogate makes ``orjson`` raise: the
    ``json`` path then escapes it, and the line is pure ASCII. Any other ``meta`` takes the ``json`` path.
    """
    d = _plain_dict(message)
    if d is not None:
        option = 0
    else:
        d = _full_dict(message)
        if all(type(k) is str and _orjson_exact(v) for meta in _metas(message) for k, v in meta.items()):
            option = orjson.OPT_SORT_KEYS
        else:
            return dumps_canonical(d).encode("utf-8")
    try:
        return orjson.dumps(d, option=option)
    except orjson.JSONEncodeError:  # a lone surrogate
        pass
    return dumps_canonical(d).encode("utf-8")


def message_to_json(message: Message) -> str:
    """The canonical JSON line of one message (no trailing newline): ``dumps_canonical(message_to_dict(message))``."""
    return message_to_json_bytes(message).decode("utf-8")


def messages_to_jsonl_chunks(messages: Iterable[Message]) -> list[bytes]:
    """`messages_to_jsonl` as UTF-8 chunks: each line, then its newline (what the workspace writes, in order).

    Not joined: an archive holds every compacted tool output, and the workspace writes the chunks as they are
    (``writev``), so the archive is never copied into one more buffer of its whole size.
    """
    chunks: list[bytes] = []
    for message in messages:
        chunks.append(message_to_json_bytes(message))
        chunks.append(b"\n")
    return chunks


def messages_to_jsonl(messages: Iterable[Message]) -> str:
    """JSONL text: one canonical line per message, each ending with a newline."""
    return b"".join(messages_to_jsonl_chunks(messages)).decode("utf-8")


class _Bad(InputError):
    """A structural problem inside one message; re-raised as a plain `InputError` with its location."""


def _field(d: Mapping[str, Any], key: str, kind: type, *, optional: bool = False, default: Any = None) -> Any:
    if key not in d:
        if optional:
            return default
        raise _Bad(f"missing field {key!r}")
    value = d[key]
    if value is None and optional:
        return default
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise _Bad(f"field {key!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def _meta(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return freeze_meta(cast(Mapping[str, Any] | None, _field(d, "meta", dict, optional=True)))


def block_from_dict(d: Any) -> Block:
    """Rebuild a block from its canonical dict; raises `InputError` when it does not validate."""
    try:
        return _block(d)
    except _Bad as exc:
        raise InputError(str(exc)) from None


def _block(d: Any) -> Block:
    if not isinstance(d, dict):
        raise _Bad(f"a block must be an object, got {type(d).__name__}")
    kind = _field(d, "kind", str)
    meta = _meta(d)
    if kind == "text":
        return TextBlock(text=_field(d, "text", str), meta=meta)
    if kind == "hint":
        return HintBlock(text=_field(d, "text", str), meta=meta)
    if kind == "tool_call":
        return ToolCallBlock(
            id=_field(d, "id", str),
            name=_field(d, "name", str),
            arguments=_field(d, "arguments", str, optional=True, default="{}"),
            meta=meta,
        )
    if kind == "tool_result":
        inner: list[TextBlock | DataBlock] = []
        for item in _field(d, "content", list, optional=True, default=[]):
            b = _block(item)
            if not isinstance(b, TextBlock | DataBlock):
                raise _Bad(f"a tool result may hold only text and data blocks, got {b.kind!r}")
            inner.append(b)
        return ToolResultBlock(
            call_id=_field(d, "call_id", str),
            content=tuple(inner),
            is_error=_field(d, "is_error", bool, optional=True, default=False),
            name=_field(d, "name", str, optional=True),
            meta=meta,
        )
    if kind == "data":
        media = _field(d, "media", str)
        if media not in _MEDIA:
            raise _Bad(f"unknown media {media!r} (expected one of {', '.join(_MEDIA)})")
        try:
            return DataBlock(
                media=media,
                media_type=_field(d, "media_type", str, optional=True),
                url=_field(d, "url", str, optional=True),
                data=_field(d, "data", str, optional=True),
                path=_field(d, "path", str, optional=True),
                meta=meta,
            )
        except ValueError as exc:
            raise _Bad(str(exc)) from None
    if kind == "thinking":
        return ThinkingBlock(
            thinking=_field(d, "thinking", str),
            signature=_field(d, "signature", str, optional=True),
            meta=meta,
        )
    if kind == "redacted_thinking":
        return RedactedThinkingBlock(data=_field(d, "data", str), meta=meta)
    raise _Bad(f"unknown block kind {kind!r}")


def message_from_dict(d: Any, *, message_index: int | None = None) -> Message:
    """Rebuild a message from its canonical dict; raises `InputError` naming the message index."""
    try:
        if not isinstance(d, dict):
            raise _Bad(f"a message must be an object, got {type(d).__name__}")
        role = _field(d, "role", str)
        if role not in ROLES:
            raise _Bad(f"unknown role {role!r} (expected one of {', '.join(ROLES)})")
        blocks = tuple(_block(b) for b in _field(d, "content", list, optional=True, default=[]))
        return Message(
            role=cast(Role, role),
            content=blocks,
            name=_field(d, "name", str, optional=True),
            meta=_meta(d),
        )
    except _Bad as exc:
        raise InputError(str(exc), message_index=message_index) from None


def messages_from_jsonl(text: str, *, source: str | None = None) -> list[Message]:
    """Parse JSONL written by `messages_to_jsonl`; blank lines are skipped.

    Raises `InputError` with the 1-based line (and column for JSON syntax
    errors) and the 0-based message index.
    """
    messages: list[Message] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON: {exc.msg}",
                source=source,
                line=lineno,
                column=exc.colno,
                message_index=len(messages),
            ) from None
        try:
            messages.append(message_from_dict(obj, message_index=len(messages)))
        except InputError as exc:
            raise InputError(exc.reason, source=source, line=lineno, message_index=len(messages)) from None
    return messages
