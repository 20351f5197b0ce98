"""Anthropic messages (top-level ``system``, content blocks) <-> the canonical model.

Anthropic puts tool results inside user messages; the canonical model keeps
them in ``tool`` messages. A user message with ``tool_result`` blocks becomes
a ``tool`` message (the results, in order) and, when it also had other blocks,
a following ``user`` message flagged ``anthropic.continues``. Rendering merges
them back: consecutive tool/user messages become one user message (results
first), consecutive assistant messages one assistant message, unless the
original document itself had two turns of the same side in a row
(``anthropic.new_turn``). Uninterpreted keys (``cache_control``, citations,
titles, ...) ride in ``meta`` under ``anthropic.*``.

A contextfold summary is its own canonical message: rendering merges it with
the user messages after it (the re-attached pins, the latest user turn), so
parsing splits a user message whose first text block is a summary header
(`contextfold._markers.is_summary_text`) back into the summary and a
``anthropic.continues`` rest; rendering merges them again, byte for byte.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, assert_never

from contextfold._errors import InputError
from contextfold._formats._common import (
    extras,
    media_placeholder,
    parse_user_text,
    render_hint,
    tool_definitions,
    type_name,
)
from contextfold._formats._openai import FILE_ID_SCHEME
from contextfold._markers import PROVIDER_BOUNDARY, PROVIDER_NOOP, PROVIDER_STATE_KEY, is_summary_text
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    freeze_meta,
)

__all__ = [
    "anthropic_to_messages",
    "is_compaction_boundary",
    "messages_to_anthropic",
    "tools_from_anthropic",
    "tools_to_anthropic",
]

K_CONTENT = "anthropic.content"  # "str" | "list" (| "absent" on a tool result): how content was written
K_EXTRA = "anthropic.extra"  # uninterpreted keys of the message or block
K_INNER = "anthropic.inner"  # uninterpreted keys of an image/document source
K_SOURCE = "anthropic.source"  # on a DataBlock: the source type ("base64", "url", "file", "text")
K_NEW_TURN = "anthropic.new_turn"  # the original had two turns of the same side in a row: do not merge
K_CONTINUES = "anthropic.continues"  # split off the user message before it (merge back)
K_IS_ERROR = "anthropic.is_error"  # on a tool result: the is_error key was present
K_RAW_TOOL = "anthropic.raw"  # on a ToolSpec: a server tool kept verbatim
K_TOOL_FIELDS = "anthropic.fields"  # on a ToolSpec: which optional fields were present
K_RAW = "anthropic.raw"  # on a text block: a provider block kept verbatim (a server-side `compaction` block)

_MSG_KEYS = frozenset({"role", "content"})
_USER_TYPES = "text, image, document, tool_result"
_ASSISTANT_TYPES = "text, thinking, redacted_thinking, tool_use, compaction"
_RESULT_TYPES = "text, image, document"
_TEXT_KEYS = frozenset({"type", "text"})
_DATA_KEYS = frozenset({"type", "source"})
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})
_REDACTED_KEYS = frozenset({"type", "data"})
_TOOL_KEYS = frozenset({"name", "description", "input_schema"})
_SOURCE_KEYS = {
    "base64": frozenset({"type", "media_type", "data"}),
    "url": frozenset({"type", "url"}),
    "file": frozenset({"type", "file_id"}),
    "text": frozenset({"type", "media_type", "data"}),
}
_DEFAULT_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}


def _err(i: int | None, reason: str) -> InputError:
    return InputError(reason, message_index=i)


def is_compaction_boundary(block: Any) -> bool:
    """Whether a wire block is a server-side ``compaction`` block the API drops everything before.

    One with a null ``content`` is a failed compaction, which the API treats as a no-op: not a boundary.
    """
    return isinstance(block, Mapping) and block.get("type") == "compaction" and block.get("content") is not None


def _found(value: Any) -> str:
    return repr(value) if isinstance(value, str) else type_name(value)


# ---------------------------------------------------------------------------------------------- parsing


def anthropic_to_messages(
    messages: Sequence[Mapping[str, Any]], system: str | list[dict[str, Any]] | None = None
) -> list[Message]:
    """Convert Anthropic message dicts (and the top-level ``system``) to canonical messages.

    Raises `InputError` with the message index for an unknown role or block
    type. Tool results get the ``name`` of the ``tool_use`` they answer.
    """
    out: list[Message] = []
    if system is not None:
        out.append(_parse_system(system))
    call_names: dict[str, str] = {}
    prev_role: str | None = None
    for i, raw in enumerate(messages):
        role = _parse_role(i, raw)
        meta: dict[str, Any] = {}
        if prev_role == role:
            meta[K_NEW_TURN] = True
        prev_role = role
        extra = extras(raw, _MSG_KEYS)
        if extra:
            meta[K_EXTRA] = extra
        content = raw["content"]
        if isinstance(content, str):
            meta[K_CONTENT] = "str"
            blocks: tuple[Any, ...] = ()
            if content:
                blocks = (parse_user_text(content, {}) if role == "user" else TextBlock(text=content),)
            out.append(Message(role=role, content=blocks, meta=freeze_meta(meta)))
            continue
        if not isinstance(content, list):
            raise _err(i, f"'content' must be a string or a list of blocks, found {type_name(content)}")
        meta[K_CONTENT] = "list"
        if role == "assistant":
            out.append(_parse_assistant(i, content, meta, call_names))
        else:
            out.extend(_parse_user(i, content, meta, call_names))
    return out


def _parse_role(i: int, raw: Any) -> Literal["user", "assistant"]:
    """The role of an Anthropic message, checked with the presence of its ``content``."""
    if not isinstance(raw, Mapping):
        raise _err(i, f"expected a message object, found {type_name(raw)}")
    role = raw.get("role")
    if role != "user" and role != "assistant":
        found = "no role" if "role" not in raw else _found(role)
        raise _err(i, f"unknown role {found}; allowed: user, assistant (system goes in the top-level 'system')")
    if "content" not in raw:
        raise _err(i, "a message needs 'content' (a string or a list of blocks)")
    return "user" if role == "user" else "assistant"


def _parse_assistant(i: int, content: list[Any], meta: dict[str, Any], call_names: dict[str, str]) -> Message:
    """An assistant message's blocks; the names of its tool calls go to ``call_names`` for the results."""
    blocks = [_parse_assistant_block(i, b) for b in content]
    for block in blocks:
        if isinstance(block, ToolCallBlock):
            call_names[block.id] = block.name
    return Message(role="assistant", content=tuple(blocks), meta=freeze_meta(meta))


def _parse_user(i: int, content: list[Any], meta: dict[str, Any], call_names: dict[str, str]) -> list[Message]:
    """A user message: its tool results become a tool message, what else it holds a user message after it.

    A summary of ours that starts a user message without results is a message of its own.
    """
    results: list[ToolResultBlock] = []
    others: list[Any] = []
    for b in content:
        if isinstance(b, Mapping) and b.get("type") == "tool_result":
            results.append(_parse_result(i, b, call_names))
        else:
            others.append(_parse_user_block(i, b))
    continues = freeze_meta({K_CONTINUES: True})
    if results:
        tool = Message(role="tool", content=tuple(results), meta=freeze_meta(meta))
        return [tool, Message(role="user", content=tuple(others), meta=continues)] if others else [tool]
    first = others[0] if len(others) > 1 else None
    if isinstance(first, TextBlock) and is_summary_text(first.text):  # our summary: its own message
        summary = Message(role="user", content=(first,), meta=freeze_meta(meta))
        return [summary, Message(role="user", content=tuple(others[1:]), meta=continues)]
    return [Message(role="user", content=tuple(others), meta=freeze_meta(meta))]


def _parse_system(system: Any) -> Message:
    if isinstance(system, str):
        blocks = (TextBlock(text=system),) if system else ()
        return Message(role="system", content=blocks, meta=freeze_meta({K_CONTENT: "str"}))
    if not isinstance(system, list):
        raise InputError(f"'system' must be a string or a list of text blocks, found {type_name(system)}")
    texts: list[TextBlock] = []
    for n, b in enumerate(system):
        if not isinstance(b, Mapping) or b.get("type") != "text" or not isinstance(b.get("text"), str):
            found = _found(b.get("type")) if isinstance(b, Mapping) else type_name(b)
            raise InputError(f"system block {n}: expected a text block, found {found}; allowed: text")
        texts.append(_text(b))
    return Message(role="system", content=tuple(texts), meta=freeze_meta({K_CONTENT: "list"}))


def _block_meta(b: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
    extra = extras(b, known)
    return {K_EXTRA: extra} if extra else {}


def _text(b: Mapping[str, Any]) -> TextBlock:
    return TextBlock(text=b["text"], meta=_block_meta(b, _TEXT_KEYS))


def _check_text(i: int, b: Mapping[str, Any]) -> None:
    if not isinstance(b.get("text"), str):
        raise _err(i, f"a text block needs a string 'text', found {type_name(b.get('text'))}")


def _parse_user_block(i: int, b: Any) -> TextBlock | HintBlock | DataBlock:
    if not isinstance(b, Mapping):
        raise _err(i, f"a content block must be an object, found {type_name(b)}")
    btype = b.get("type")
    if btype == "text":
        _check_text(i, b)
        return parse_user_text(b["text"], _block_meta(b, _TEXT_KEYS))
    if btype == "image" or btype == "document":
        return _parse_data(i, b, btype)
    raise _err(i, f"unknown block type {_found(btype)} in a user message; allowed: {_USER_TYPES}")


def _parse_data(i: int, b: Mapping[str, Any], media: Any) -> DataBlock:
    source = b.get("source")
    if not isinstance(source, Mapping):
        raise _err(i, f"an {media} block needs an object 'source', found {type_name(source)}")
    stype = source.get("type")
    known = _SOURCE_KEYS.get(stype) if isinstance(stype, str) else None
    if known is None or (stype == "text" and media != "document"):
        allowed = "base64, url, file, text" if media == "document" else "base64, url, file"
        raise _err(i, f"unknown {media} source type {_found(stype)}; allowed: {allowed}")
    meta = _block_meta(b, _DATA_KEYS)
    meta[K_SOURCE] = stype
    inner = extras(source, known)
    if inner:
        meta[K_INNER] = inner
    media_type = source.get("media_type")
    if media_type is not None and not isinstance(media_type, str):
        raise _err(i, f"'media_type' must be a string, found {type_name(media_type)}")
    if stype == "url":
        value = source.get("url")
        field = "url"
    elif stype == "file":
        value = source.get("file_id")
        field = "file_id"
    else:
        value = source.get("data")
        field = "data"
    if not isinstance(value, str):
        raise _err(i, f"a {stype} {media} source needs a string '{field}', found {type_name(value)}")
    if stype == "url":
        return DataBlock(media=media, url=value, meta=meta)
    if stype == "file":
        return DataBlock(media=media, url=FILE_ID_SCHEME + value, meta=meta)
    if stype == "text":
        value = base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii")
    return DataBlock(media=media, media_type=media_type, data=value, meta=meta)


def _parse_result(i: int, b: Mapping[str, Any], call_names: dict[str, str]) -> ToolResultBlock:
    call_id = b.get("tool_use_id")
    if not isinstance(call_id, str):
        raise _err(i, f"a tool_result block needs a string 'tool_use_id', found {type_name(call_id)}")
    known = {"type", "tool_use_id", "content"}
    meta: dict[str, Any] = {}
    is_error = b.get("is_error")
    if isinstance(is_error, bool):
        known.add("is_error")
        meta[K_IS_ERROR] = True
    content: list[TextBlock | DataBlock] = []
    if "content" not in b:
        meta[K_CONTENT] = "absent"
    else:
        body = b["content"]
        if isinstance(body, str):
            meta[K_CONTENT] = "str"
            if body:
                content.append(TextBlock(text=body))
        elif isinstance(body, list):
            meta[K_CONTENT] = "list"
            for inner in body:
                if not isinstance(inner, Mapping):
                    raise _err(i, f"a tool_result content block must be an object, found {type_name(inner)}")
                itype = inner.get("type")
                if itype == "text":
                    _check_text(i, inner)
                    content.append(_text(inner))
                elif itype == "image" or itype == "document":
                    content.append(_parse_data(i, inner, itype))
                else:
                    raise _err(i, f"unknown block type {_found(itype)} in a tool_result; allowed: {_RESULT_TYPES}")
        else:
            raise _err(i, f"tool_result 'content' must be a string or a list, found {type_name(body)}")
    extra = extras(b, frozenset(known))
    if extra:
        meta[K_EXTRA] = extra
    return ToolResultBlock(
        call_id=call_id,
        content=tuple(content),
        is_error=is_error is True,
        name=call_names.get(call_id),
        meta=freeze_meta(meta),
    )


def _parse_assistant_block(i: int, b: Any) -> TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock:
    if not isinstance(b, Mapping):
        raise _err(i, f"a content block must be an object, found {type_name(b)}")
    btype = b.get("type")
    if btype == "text":
        _check_text(i, b)
        return _text(b)
    if btype == "tool_use":
        call_id, name, args = b.get("id"), b.get("name"), b.get("input")
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise _err(i, "a tool_use block needs a string 'id' and a string 'name'")
        if not isinstance(args, Mapping):
            raise _err(i, f"tool_use {call_id!r} 'input' must be an object, found {type_name(args)}")
        arguments = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        return ToolCallBlock(id=call_id, name=name, arguments=arguments, meta=_block_meta(b, _TOOL_USE_KEYS))
    if btype == "thinking":
        thinking = b.get("thinking")
        if not isinstance(thinking, str):
            raise _err(i, f"a thinking block needs a string 'thinking', found {type_name(thinking)}")
        signature = b.get("signature")
        known = {"type", "thinking", "signature"} if isinstance(signature, str) else {"type", "thinking"}
        return ThinkingBlock(
            thinking=thinking,
            signature=signature if isinstance(signature, str) else None,
            meta=_block_meta(b, frozenset(known)),
        )
    if btype == "redacted_thinking":
        data = b.get("data")
        if not isinstance(data, str):
            raise _err(i, f"a redacted_thinking block needs a string 'data', found {type_name(data)}")
        return RedactedThinkingBlock(data=data, meta=_block_meta(b, _REDACTED_KEYS))
    if btype == "compaction":
        return _compaction(i, b)
    raise _err(i, f"unknown block type {_found(btype)} in an assistant message; allowed: {_ASSISTANT_TYPES}")


def _compaction(i: int, b: Mapping[str, Any]) -> TextBlock:
    """A server-side compaction block: its summary as the text the model reads, the block itself kept verbatim.

    The text is for counting and reading only: rendering gives back ``anthropic.raw`` (its signature covers the
    summary, so nothing may edit it).
    """
    content = b.get("content")
    if content is not None and not isinstance(content, str):
        raise _err(i, f"a compaction block's 'content' must be a string or null, found {type_name(content)}")
    state = PROVIDER_BOUNDARY if content is not None else PROVIDER_NOOP
    return TextBlock(text=content or "", meta=freeze_meta({K_RAW: dict(b), PROVIDER_STATE_KEY: state}))


# ---------------------------------------------------------------------------------------------- rendering


class _Turn:
    """One Anthropic message being assembled from one or more canonical messages."""

    __slots__ = ("blocks", "extra", "parts", "results", "role", "shape")

    def __init__(self, role: str, shape: str | None, extra: Mapping[str, Any] | None) -> None:
        self.role = role
        self.shape = shape
        self.extra = extra
        self.results: list[dict[str, Any]] = []
        self.blocks: list[dict[str, Any]] = []
        self.parts = 1

    def render(self) -> dict[str, Any]:
        content: Any = self.results + self.blocks if self.results else self.blocks
        if self.parts == 1 and self.shape != "list":
            if not content and self.shape == "str":
                content = ""
            elif len(content) == 1 and content[0]["type"] == "text" and len(content[0]) == 2:
                content = content[0]["text"]
        d: dict[str, Any] = {"role": self.role, "content": content}
        if self.extra:
            d.update(self.extra)
        return d


def messages_to_anthropic(
    messages: Sequence[Message],
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """Render canonical messages as Anthropic ``(system, messages)``.

    Leading system messages become the top-level ``system``; a system message
    later in the conversation (OpenAI allows them) becomes user text.
    Consecutive tool/user messages merge into one user message with the
    ``tool_result`` blocks first; consecutive assistant messages merge. A
    message with nothing Anthropic can carry is left out, never sent empty.
    """
    n = len(messages)
    start = 0
    while start < n and messages[start].role == "system":
        start += 1
    system = _render_system(messages[:start]) if start else None
    turns: list[_Turn] = []
    for i in range(start, n):
        msg = messages[i]
        meta = msg.meta
        shape = meta.get(K_CONTENT)
        role = "assistant" if msg.role == "assistant" else "user"
        blocks: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        _render_blocks(i, msg, shape is None, blocks, results)
        if not blocks and not results and shape is None:
            continue
        if turns and turns[-1].role == role and not meta.get(K_NEW_TURN):
            turn = turns[-1]
            turn.parts += 1
            if meta.get(K_EXTRA):
                turn.extra = {**(turn.extra or {}), **meta[K_EXTRA]}
        else:
            turn = _Turn(role, shape, meta.get(K_EXTRA))
            turns.append(turn)
        turn.results.extend(results)
        turn.blocks.extend(blocks)
    return system, [t.render() for t in turns]


def _render_system(messages: Sequence[Message]) -> str | list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for msg in messages:
        for block in msg.content:
            match block:
                case TextBlock():
                    blocks.append(_text_block(block))
                case HintBlock():
                    blocks.append(_text_block(TextBlock(text=render_hint(block.text), meta=block.meta)))
                case DataBlock():
                    blocks.append({"type": "text", "text": media_placeholder(block)})
                case ThinkingBlock() | RedactedThinkingBlock() | ToolCallBlock() | ToolResultBlock():
                    raise InputError(f"a {block.kind} block in a system message; system messages hold text")
                case _:
                    assert_never(block)
    if len(messages) == 1 and messages[0].meta.get(K_CONTENT) != "list":
        if not blocks:
            return ""
        if len(blocks) == 1 and len(blocks[0]) == 2:
            text: str = blocks[0]["text"]
            return text
    return blocks


def _text_block(block: TextBlock) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "text", "text": block.text}
    extra = block.meta.get(K_EXTRA)
    if extra:
        d.update(extra)
    return d


def _render_blocks(
    i: int, msg: Message, foreign: bool, blocks: list[dict[str, Any]], results: list[dict[str, Any]]
) -> None:
    for block in msg.content:
        match block:
            case TextBlock():
                raw = block.meta.get(K_RAW)
                if raw is not None:
                    blocks.append(dict(raw))
                    continue
                if foreign and not block.text.strip():
                    continue  # Anthropic rejects blank text blocks
                blocks.append(_text_block(block))
            case HintBlock():
                blocks.append(_text_block(TextBlock(text=render_hint(block.text), meta=block.meta)))
            case DataBlock():
                blocks.append(_data_block(block))
            case ThinkingBlock():
                d: dict[str, Any] = {"type": "thinking", "thinking": block.thinking}
                if block.signature is not None:
                    d["signature"] = block.signature
                blocks.append(_with_extra(d, block.meta))
            case RedactedThinkingBlock():
                blocks.append(_with_extra({"type": "redacted_thinking", "data": block.data}, block.meta))
            case ToolCallBlock():
                if msg.role != "assistant":
                    raise InputError(
                        f"a tool call in a {msg.role} message; only assistants call tools", message_index=i
                    )
                blocks.append(_tool_use(block))
            case ToolResultBlock():
                if msg.role == "assistant":
                    raise InputError("a tool result in an assistant message", message_index=i)
                results.append(_tool_result(block))
            case _:
                assert_never(block)


def _with_extra(d: dict[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    extra = meta.get(K_EXTRA)
    if extra:
        d.update(extra)
    return d


def _tool_use(block: ToolCallBlock) -> dict[str, Any]:
    try:
        args = block.parsed_arguments()  # ValueError also for arguments nested too deep to decode
    except ValueError:
        args = None
    if not isinstance(args, dict):
        # Anthropic needs an object; OpenAI arguments may be anything the model wrote.
        args = {"raw_arguments": block.arguments}
    d = {"type": "tool_use", "id": block.id, "name": block.name, "input": args}
    return _with_extra(d, block.meta)


def _tool_result(block: ToolResultBlock) -> dict[str, Any]:
    meta = block.meta
    inner = [_text_block(b) if isinstance(b, TextBlock) else _data_block(b) for b in block.content]
    d: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.call_id}
    shape = meta.get(K_CONTENT)
    if shape == "list":
        d["content"] = inner
    elif not inner:
        if shape == "str":
            d["content"] = ""
    elif len(inner) == 1 and inner[0]["type"] == "text" and len(inner[0]) == 2:
        d["content"] = inner[0]["text"]
    else:
        d["content"] = inner
    if meta.get(K_IS_ERROR) or block.is_error:
        d["is_error"] = block.is_error
    return _with_extra(d, meta)


def _data_block(block: DataBlock) -> dict[str, Any]:
    if block.media == "audio" or block.path is not None:
        return {"type": "text", "text": media_placeholder(block)}
    meta = block.meta
    source: dict[str, Any]
    if block.url is not None:
        if block.url.startswith(FILE_ID_SCHEME):
            source = {"type": "file", "file_id": block.url[len(FILE_ID_SCHEME) :]}
        else:
            source = {"type": "url", "url": block.url}
    elif block.data is not None:
        default = "image/png" if block.media == "image" else "application/pdf"
        if meta.get(K_SOURCE) == "text":
            text = base64.b64decode(block.data).decode("utf-8", "surrogatepass")
            source = {"type": "text", "media_type": block.media_type, "data": text}
            if block.media_type is None:
                del source["media_type"]
        else:
            source = {"type": "base64", "media_type": block.media_type or default, "data": block.data}
    else:  # pragma: no cover - DataBlock guarantees one of url, data, path
        raise AssertionError("DataBlock without a source")
    inner = meta.get(K_INNER)
    if inner:
        source.update(inner)
    return _with_extra({"type": block.media, "source": source}, meta)


# ---------------------------------------------------------------------------------------------- tools


def tools_from_anthropic(tools: Sequence[Mapping[str, Any]] | None) -> list[ToolSpec]:
    """Convert Anthropic ``tools`` definitions (``None`` gives no tools)."""
    out: list[ToolSpec] = []
    for n, tool in tool_definitions(tools):
        name = tool.get("name")
        ttype = tool.get("type")
        schema = tool.get("input_schema")
        if not isinstance(name, str):
            raise InputError(f"tool {n} needs a string 'name', found {type_name(name)}")
        if (ttype is not None and ttype != "custom") or not isinstance(schema, Mapping):
            # Server tools (web search, code execution, ...) have no schema: keep them verbatim.
            out.append(ToolSpec(name=name, parameters={}, meta=freeze_meta({K_RAW_TOOL: dict(tool)})))
            continue
        description = tool.get("description")
        known = {"name", "input_schema"}
        if isinstance(description, str):
            known.add("description")
        meta: dict[str, Any] = {K_TOOL_FIELDS: ("description",) if "description" in known else ()}
        extra = extras(tool, frozenset(known))
        if extra:
            meta[K_EXTRA] = extra
        out.append(
            ToolSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                parameters=schema,
                meta=freeze_meta(meta),
            )
        )
    return out


def tools_to_anthropic(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Render tool definitions in Anthropic's ``tools`` shape."""
    out: list[dict[str, Any]] = []
    for spec in tools:
        raw = spec.meta.get(K_RAW_TOOL)
        if raw is not None:
            out.append(dict(raw))
            continue
        d: dict[str, Any] = {"name": spec.name}
        fields = spec.meta.get(K_TOOL_FIELDS)
        if (fields is None and spec.description) or (fields is not None and "description" in fields):
            d["description"] = spec.description
        d["input_schema"] = dict(spec.parameters) if spec.parameters else dict(_DEFAULT_SCHEMA)
        extra = spec.meta.get(K_EXTRA)
        if extra:
            d.update(extra)
        out.append(d)
    return out
