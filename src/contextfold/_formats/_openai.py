"""OpenAI chat-completions messages and tool definitions <-> the canonical model.

One OpenAI message becomes one canonical message (a ``tool`` message holds the
one result it carries), so message indexes in errors and reports point at the
same place in the file. Everything we do not interpret is kept in ``meta``
under ``openai.*`` keys and given back on rendering, so that
dict -> canonical -> dict is the identity. Plain loops, no validation
framework: a 2,000-message session is converted before every count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from contextfold._errors import InputError
from contextfold._formats._common import (
    extras,
    media_placeholder,
    parse_user_text,
    render_hint,
    split_data_url,
    tool_definitions,
    type_name,
)
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    freeze_meta,
)

__all__ = ["messages_to_openai", "openai_to_messages", "tools_from_openai", "tools_to_openai"]

# meta keys (all namespaced so another format never emits them)
K_ROLE = "openai.role"  # "developer" when the system message was a developer message
K_CONTENT = "openai.content"  # "str" | "parts" | "null" | "absent": how content was written
K_EXTRA = "openai.extra"  # keys of the message / part we do not interpret
K_INNER = "openai.inner"  # uninterpreted keys inside image_url / input_audio / file / function
K_KEYS = "openai.keys"  # original key order of the message, for byte-faithful writing
K_TOOL_CALLS = "openai.tool_calls"  # "null" | "empty" when tool_calls was present but had no call
K_REFUSAL = "openai.refusal"  # on a TextBlock: "key" (message refusal field) or "part" (refusal part)
K_NAME = "openai.name"  # on a ToolResultBlock: the tool message had a "name" key
K_PART = "openai.part"  # on a DataBlock: the part type it came from
K_RAW_DATA = "openai.raw_data"  # on a file DataBlock: file_data was bare base64, not a data URL
K_FORMAT = "openai.format"  # on an audio DataBlock: input_audio format as written
K_CALL_TYPE = "openai.type"  # on a ToolCallBlock: "custom", "flat" ({id, name, arguments}), None (no type key)
K_ARGS_OBJECT = "openai.args_object"  # arguments were a JSON object rather than a string
K_RAW_TOOL = "openai.raw"  # on a ToolSpec: a non-function tool kept verbatim
K_TOOL_FIELDS = "openai.fields"  # on a ToolSpec: which optional function fields were present

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
_ALLOWED_ROLES = "system, developer, user, assistant, tool"
_MSG_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id", "refusal"})
_PART_TYPES = "text, image_url, input_audio, file, refusal"
_TEXT_KEYS = frozenset({"type", "text"})
_REFUSAL_KEYS = frozenset({"type", "refusal"})
_IMAGE_KEYS = frozenset({"type", "image_url"})
_AUDIO_KEYS = frozenset({"type", "input_audio"})
_FILE_KEYS = frozenset({"type", "file"})
_URL_KEYS = frozenset({"url"})
_AUDIO_INNER = frozenset({"data", "format"})
_FILE_INNER = frozenset({"file_data", "file_id"})
_CALL_KEYS = frozenset({"id", "type", "function"})
_CUSTOM_CALL_KEYS = frozenset({"id", "type", "custom"})
_FLAT_CALL_KEYS = frozenset({"id", "name", "arguments"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_CUSTOM_KEYS = frozenset({"name", "input"})
_TOOL_KEYS = frozenset({"type", "function"})
_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
_DEFAULT_PARAMETERS: Mapping[str, Any] = {"type": "object", "properties": {}}


def _err(i: int, reason: str) -> InputError:
    return InputError(reason, message_index=i)


# ---------------------------------------------------------------------------------------------- parsing


def openai_to_messages(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Convert OpenAI chat-completions message dicts to canonical messages.

    Raises `InputError` with the message index, what was found and what is
    allowed, for an unknown role, content part type or a malformed field.
    A tool result gets the ``name`` of the call it answers (handy for digests);
    it is written back only if the tool message had one.
    """
    out: list[Message] = []
    call_names: dict[str, str] = {}
    for i, raw in enumerate(messages):
        if not isinstance(raw, Mapping):
            raise _err(i, f"expected a message object, found {type_name(raw)}")
        role = _parse_role(i, raw)
        extra = extras(raw, _MSG_KEYS)
        name = raw.get("name")
        if name is not None and not isinstance(name, str):
            raise _err(i, f"'name' must be a string, found {type_name(name)}")
        if role == "tool":
            out.append(_parse_tool(i, raw, name, extra, call_names))
        else:
            out.append(_parse_message(i, raw, role, name, extra, call_names))
    return out


def _parse_role(i: int, raw: Mapping[str, Any]) -> Role:
    """The canonical role of an OpenAI message (``developer`` is a system message)."""
    role_raw = raw.get("role")
    role = _ROLES.get(role_raw) if isinstance(role_raw, str) else None
    if role is None:
        found = repr(role_raw) if isinstance(role_raw, str) else type_name(role_raw)
        if "role" not in raw:
            found = "no role"
        raise _err(i, f"unknown role {found}; allowed: {_ALLOWED_ROLES}")
    return role


def _parse_message(
    i: int,
    raw: Mapping[str, Any],
    role: Role,
    name: str | None,
    extra: dict[str, Any] | None,
    call_names: dict[str, str],
) -> Message:
    """A system, user or assistant message: its content, a ``refusal`` field, then its tool calls."""
    meta: dict[str, Any] = {K_KEYS: tuple(raw)}
    if raw.get("role") == "developer":
        meta[K_ROLE] = "developer"
    if "tool_call_id" in raw:
        extra = dict(extra or {})
        extra["tool_call_id"] = raw["tool_call_id"]
    content = _content_of(i, raw, meta)
    blocks: list[Any] = []
    if isinstance(content, list):
        blocks.extend(_parse_part(i, part, role) for part in content)
    elif content:
        blocks.append(parse_user_text(content, {}) if role == "user" else TextBlock(text=content))
    refusal = raw.get("refusal")
    if isinstance(refusal, str):
        blocks.append(TextBlock(text=refusal, meta={K_REFUSAL: "key"}))
    elif "refusal" in raw:
        extra = dict(extra or {})
        extra["refusal"] = refusal
    blocks.extend(_parse_calls(i, raw, role, meta, call_names))
    if extra:
        meta[K_EXTRA] = extra
    return Message(role=role, content=tuple(blocks), name=name, meta=freeze_meta(meta))


def _content_of(i: int, raw: Mapping[str, Any], meta: dict[str, Any]) -> str | list[Any]:
    """A message's ``content`` ("" when absent or null), with how it was written noted in ``meta``."""
    if "content" not in raw:
        meta[K_CONTENT] = "absent"
        return ""
    content = raw["content"]
    if content is None:
        meta[K_CONTENT] = "null"
        return ""
    if isinstance(content, str):
        meta[K_CONTENT] = "str"
        return content
    if isinstance(content, list):
        meta[K_CONTENT] = "parts"
        return content
    raise _err(i, f"'content' must be a string, a list of parts or null, found {type_name(content)}")


def _parse_calls(
    i: int, raw: Mapping[str, Any], role: Role, meta: dict[str, Any], call_names: dict[str, str]
) -> list[ToolCallBlock]:
    """The tool calls of a message (only an assistant makes them); a null or empty list is noted in ``meta``."""
    if "tool_calls" not in raw:
        return []
    calls = raw["tool_calls"]
    if calls is None:
        meta[K_TOOL_CALLS] = "null"
        return []
    if not isinstance(calls, list):
        raise _err(i, f"'tool_calls' must be a list, found {type_name(calls)}")
    if not calls:
        meta[K_TOOL_CALLS] = "empty"
        return []
    if role != "assistant":
        raise _err(i, f"'tool_calls' on a {raw.get('role')} message; only assistant messages make tool calls")
    blocks = [_parse_call(i, call) for call in calls]
    for block in blocks:
        call_names[block.id] = block.name
    return blocks


def _parse_tool(
    i: int, raw: Mapping[str, Any], name: str | None, extra: dict[str, Any] | None, call_names: dict[str, str]
) -> Message:
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str):
        raise _err(i, f"a tool message needs a string 'tool_call_id', found {type_name(call_id)}")
    meta: dict[str, Any] = {K_KEYS: tuple(raw)}
    content: list[TextBlock | DataBlock] = []
    body = _content_of(i, raw, meta)
    if isinstance(body, list):
        for part in body:
            block = _parse_part(i, part, "tool")
            if isinstance(block, HintBlock):  # pragma: no cover - hints are only parsed in user messages
                block = TextBlock(text=render_hint(block.text), meta=block.meta)
            content.append(block)
    elif body:
        content.append(TextBlock(text=body))
    if name is not None:
        meta[K_NAME] = True
    if extra:
        meta[K_EXTRA] = extra
    result = ToolResultBlock(
        call_id=call_id,
        content=tuple(content),
        name=name if name is not None else call_names.get(call_id),
        meta=freeze_meta(meta),
    )
    return Message(role="tool", content=(result,))


def _parse_part(i: int, part: Any, role: str) -> TextBlock | HintBlock | DataBlock:
    if not isinstance(part, Mapping):
        raise _err(i, f"a content part must be an object, found {type_name(part)}")
    ptype = part.get("type")
    if ptype == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise _err(i, f"a text part needs a string 'text', found {type_name(text)}")
        extra = extras(part, _TEXT_KEYS)
        meta: dict[str, Any] = {K_EXTRA: extra} if extra else {}
        return parse_user_text(text, meta) if role == "user" else TextBlock(text=text, meta=meta)
    if ptype == "refusal":
        text = part.get("refusal")
        if not isinstance(text, str):
            raise _err(i, f"a refusal part needs a string 'refusal', found {type_name(text)}")
        meta2: dict[str, Any] = {K_REFUSAL: "part"}
        extra = extras(part, _REFUSAL_KEYS)
        if extra:
            meta2[K_EXTRA] = extra
        return TextBlock(text=text, meta=meta2)
    if ptype == "image_url":
        return _parse_image(i, part)
    if ptype == "input_audio":
        return _parse_audio(i, part)
    if ptype == "file":
        return _parse_file(i, part)
    found = repr(ptype) if isinstance(ptype, str) else type_name(ptype)
    raise _err(i, f"unknown content part type {found} in a {role} message; allowed: {_PART_TYPES}")


def _data_meta(part: Mapping[str, Any], known: frozenset[str], inner: dict[str, Any] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {K_PART: part["type"]}
    extra = extras(part, known)
    if extra:
        meta[K_EXTRA] = extra
    if inner:
        meta[K_INNER] = inner
    return meta


def _parse_image(i: int, part: Mapping[str, Any]) -> DataBlock:
    body = part.get("image_url")
    if not isinstance(body, Mapping) or not isinstance(body.get("url"), str):
        raise _err(i, "an image_url part needs an object 'image_url' with a string 'url'")
    url: str = body["url"]
    meta = _data_meta(part, _IMAGE_KEYS, extras(body, _URL_KEYS))
    split = split_data_url(url)
    if split is not None:
        return DataBlock(media="image", media_type=split[0], data=split[1], meta=meta)
    return DataBlock(media="image", url=url, meta=meta)


def _parse_audio(i: int, part: Mapping[str, Any]) -> DataBlock:
    body = part.get("input_audio")
    if not isinstance(body, Mapping) or not isinstance(body.get("data"), str):
        raise _err(i, "an input_audio part needs an object 'input_audio' with a string 'data'")
    fmt = body.get("format")
    meta = _data_meta(part, _AUDIO_KEYS, extras(body, _AUDIO_INNER))
    meta[K_FORMAT] = fmt
    media_type = _AUDIO_TYPES.get(fmt, f"audio/{fmt}") if isinstance(fmt, str) else None
    return DataBlock(media="audio", media_type=media_type, data=body["data"], meta=meta)


def _parse_file(i: int, part: Mapping[str, Any]) -> DataBlock:
    body = part.get("file")
    if not isinstance(body, Mapping):
        raise _err(i, f"a file part needs an object 'file', found {type_name(body)}")
    meta = _data_meta(part, _FILE_KEYS, extras(body, _FILE_INNER))
    file_data = body.get("file_data")
    file_id = body.get("file_id")
    if isinstance(file_data, str) and file_id is None:
        split = split_data_url(file_data)
        if split is not None:
            return DataBlock(media="document", media_type=split[0], data=split[1], meta=meta)
        meta[K_RAW_DATA] = True
        return DataBlock(media="document", data=file_data, meta=meta)
    if isinstance(file_id, str) and file_data is None:
        return DataBlock(media="document", url=FILE_ID_SCHEME + file_id, meta=meta)
    raise _err(i, "a file part needs exactly one of a string 'file_data' or 'file_id'")


FILE_ID_SCHEME = "file-id:"
"""Canonical URL prefix for a file stored with the provider (``file-id:<id>``)."""


def _parse_call(i: int, call: Any) -> ToolCallBlock:
    if not isinstance(call, Mapping):
        raise _err(i, f"a tool call must be an object, found {type_name(call)}")
    call_id = call.get("id")
    if not isinstance(call_id, str):
        raise _err(i, f"a tool call needs a string 'id', found {type_name(call_id)}")
    ctype = call.get("type", None)
    meta: dict[str, Any] = {}
    if "type" not in call:
        meta[K_CALL_TYPE] = None
    if ctype == "custom":
        body = call.get("custom")
        if not isinstance(body, Mapping) or not isinstance(body.get("name"), str):
            raise _err(i, "a custom tool call needs an object 'custom' with a string 'name'")
        meta[K_CALL_TYPE] = "custom"
        known, inner_known, args_key = _CUSTOM_CALL_KEYS, _CUSTOM_KEYS, "input"
    elif "type" not in call and "function" not in call and isinstance(call.get("name"), str):
        # Flat variant some frameworks log: {"id", "name", "arguments"}.
        body = call
        meta[K_CALL_TYPE] = "flat"
        known, inner_known, args_key = _FLAT_CALL_KEYS, _FLAT_CALL_KEYS, "arguments"
    elif ctype == "function" or "type" not in call:
        body = call.get("function")
        if not isinstance(body, Mapping) or not isinstance(body.get("name"), str):
            raise _err(i, f"tool call {call_id!r} needs an object 'function' with a string 'name'")
        known, inner_known, args_key = _CALL_KEYS, _FUNCTION_KEYS, "arguments"
    else:
        found = repr(ctype) if isinstance(ctype, str) else type_name(ctype)
        raise _err(i, f"unknown tool call type {found}; allowed: function, custom")
    args = body.get(args_key, "")
    if args_key not in body:
        meta[K_ARGS_OBJECT] = "absent"
        args = ""
    elif isinstance(args, Mapping):
        meta[K_ARGS_OBJECT] = True
        args = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    elif not isinstance(args, str):
        raise _err(i, f"tool call {call_id!r} arguments must be a string, found {type_name(args)}")
    extra = extras(call, known)
    if extra:
        meta[K_EXTRA] = extra
    inner = extras(body, inner_known)
    if inner:
        meta[K_INNER] = inner
    return ToolCallBlock(id=call_id, name=body["name"], arguments=args, meta=freeze_meta(meta))


# ---------------------------------------------------------------------------------------------- rendering


def messages_to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Render canonical messages as OpenAI chat-completions dicts.

    A canonical ``tool`` message becomes one OpenAI tool message per result.
    Thinking blocks are dropped (chat completions has no place for them);
    media inside a tool result that did not come from OpenAI is moved to a user
    message right after the run of tool messages, since tool messages carry text.
    """
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        if msg.role == "tool":
            for block in msg.content:
                if not isinstance(block, ToolResultBlock):
                    raise InputError(
                        f"a tool message may hold only tool results, found a {block.kind} block", message_index=i
                    )
                out.append(_render_result(block, pending))
            continue
        if pending:
            out.append({"role": "user", "content": pending})
            pending = []
        rendered = _render_message(i, msg)
        if rendered is not None:
            out.append(rendered)
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def _text_part(block: TextBlock) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": block.text}
    extra = block.meta.get(K_EXTRA)
    if extra:
        part.update(extra)
    return part


def _data_part(block: DataBlock) -> dict[str, Any]:
    meta = block.meta
    part: dict[str, Any]
    inner: dict[str, Any]
    match block.media:
        case "image":
            if block.data is not None:
                url = f"data:{block.media_type or 'application/octet-stream'};base64,{block.data}"
            elif block.url is not None:
                url = block.url
            else:
                return {"type": "text", "text": media_placeholder(block)}
            inner = {"url": url}
            part = {"type": "image_url", "image_url": inner}
        case "audio":
            if block.data is None:
                return {"type": "text", "text": media_placeholder(block)}
            fmt = meta[K_FORMAT] if K_FORMAT in meta else _AUDIO_FORMATS.get(block.media_type or "", "wav")
            inner = {"data": block.data, "format": fmt}
            if fmt is None:
                del inner["format"]
            part = {"type": "input_audio", "input_audio": inner}
        case "document":
            if block.data is not None:
                if meta.get(K_RAW_DATA):
                    inner = {"file_data": block.data}
                else:
                    inner = {"file_data": f"data:{block.media_type or 'application/pdf'};base64,{block.data}"}
            elif block.url is not None and block.url.startswith(FILE_ID_SCHEME):
                inner = {"file_id": block.url[len(FILE_ID_SCHEME) :]}
            else:
                return {"type": "text", "text": media_placeholder(block)}
            part = {"type": "file", "file": inner}
        case _:
            assert_never(block.media)
    more = meta.get(K_INNER)
    if more:
        inner.update(more)
    extra = meta.get(K_EXTRA)
    if extra:
        part.update(extra)
    return part


def _render_message(i: int, msg: Message) -> dict[str, Any] | None:
    meta = msg.meta
    parts, calls, refusal = _render_blocks(i, msg)
    shape = meta.get(K_CONTENT)
    if shape is None and not parts and not calls and refusal is None and msg.role == "assistant" and msg.content:
        return None  # only thinking: nothing OpenAI can carry
    d: dict[str, Any] = {"role": meta.get(K_ROLE, msg.role)}
    if msg.name is not None:
        d["name"] = msg.name
    _put_content(d, shape, parts, bool(calls))
    if refusal is not None:
        d["refusal"] = refusal
    if calls:
        d["tool_calls"] = calls
    elif K_TOOL_CALLS in meta:
        d["tool_calls"] = None if meta[K_TOOL_CALLS] == "null" else []
    extra = meta.get(K_EXTRA)
    if extra:
        d.update(extra)
    return _reorder(d, meta.get(K_KEYS))


def _render_blocks(i: int, msg: Message) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    """The content parts, the tool calls and the ``refusal`` field of a message (thinking has no place)."""
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    refusal: str | None = None
    for block in msg.content:
        match block:
            case TextBlock() if block.meta.get(K_REFUSAL) == "key":
                refusal = block.text
            case TextBlock() | HintBlock():
                parts.append(_text_like_part(block))
            case DataBlock():
                parts.append(_data_part(block))
            case ToolCallBlock():
                calls.append(_render_call(block))
            case ThinkingBlock() | RedactedThinkingBlock():
                pass
            case ToolResultBlock():
                raise InputError(
                    f"a tool result in a {msg.role} message; tool results belong in tool messages", message_index=i
                )
            case _:
                assert_never(block)
    return parts, calls, refusal


def _text_like_part(block: TextBlock | HintBlock) -> dict[str, Any]:
    """The part of a text block (a refusal part if it was read from one) or of a hint (as its text)."""
    if isinstance(block, HintBlock):
        return _with_extra({"type": "text", "text": render_hint(block.text)}, block.meta.get(K_EXTRA))
    if block.meta.get(K_REFUSAL) == "part":
        return _with_extra({"type": "refusal", "refusal": block.text}, block.meta.get(K_EXTRA))
    return _text_part(block)


def _put_content(d: dict[str, Any], shape: str | None, parts: list[dict[str, Any]], has_calls: bool) -> None:
    """Set ``d["content"]`` as the message wrote it (``shape``): a string for one plain text, null, [], or absent."""
    if not parts:
        if shape == "null" or (shape is None and has_calls):
            d["content"] = None
        elif shape == "parts":
            d["content"] = []
        elif shape != "absent":
            d["content"] = ""
    elif shape != "parts" and len(parts) == 1 and parts[0]["type"] == "text" and len(parts[0]) == 2:
        d["content"] = parts[0]["text"]
    else:
        d["content"] = parts


def _reorder(d: dict[str, Any], keys: tuple[str, ...] | None) -> dict[str, Any]:
    if keys is None or tuple(d) == keys:
        return d
    ordered = {k: d[k] for k in keys if k in d}
    if len(ordered) != len(d):
        ordered.update(d)
    return ordered


def _render_call(block: ToolCallBlock) -> dict[str, Any]:
    meta = block.meta
    how = meta.get(K_ARGS_OBJECT)
    args: Any = block.arguments
    if how is True:
        try:
            args = json.loads(block.arguments)
        except (ValueError, RecursionError):  # nested too deep to decode: sent as the text it is
            args = block.arguments
    ctype = meta.get(K_CALL_TYPE, "function")
    if ctype == "flat":
        flat: dict[str, Any] = {"id": block.id, "name": block.name}
        if how != "absent":
            flat["arguments"] = args
        return _with_extra(flat, meta.get(K_EXTRA))
    key, args_key = ("custom", "input") if ctype == "custom" else ("function", "arguments")
    body: dict[str, Any] = {"name": block.name}
    if how != "absent":
        body[args_key] = args
    inner = meta.get(K_INNER)
    if inner:
        body.update(inner)
    d: dict[str, Any] = {"id": block.id}
    if ctype is not None:
        d["type"] = ctype
    d[key] = body
    extra = meta.get(K_EXTRA)
    if extra:
        d.update(extra)
    return d


def _with_extra(d: dict[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    if extra:
        d.update(extra)
    return d


def _render_result(block: ToolResultBlock, pending: list[dict[str, Any]]) -> dict[str, Any]:
    meta = block.meta
    parts: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    for inner in block.content:
        if isinstance(inner, TextBlock):
            parts.append(_text_part(inner))
        elif K_PART in inner.meta:
            parts.append(_data_part(inner))
        else:
            moved.append(_data_part(inner))
    if moved:
        pending.append({"type": "text", "text": f"Media returned by tool call {block.call_id}:"})
        pending.extend(moved)
    d: dict[str, Any] = {"role": "tool", "tool_call_id": block.call_id}
    shape = meta.get(K_CONTENT)
    if not parts:
        if shape == "null":
            d["content"] = None
        elif shape == "parts":
            d["content"] = []
        elif shape != "absent":
            d["content"] = ""
    elif shape != "parts" and len(parts) == 1 and parts[0]["type"] == "text" and len(parts[0]) == 2:
        d["content"] = parts[0]["text"]
    else:
        d["content"] = parts
    if meta.get(K_NAME) and block.name is not None:
        d["name"] = block.name
    extra = meta.get(K_EXTRA)
    if extra:
        d.update(extra)
    return _reorder(d, meta.get(K_KEYS))


# ---------------------------------------------------------------------------------------------- tools


def tools_from_openai(tools: Sequence[Mapping[str, Any]] | None) -> list[ToolSpec]:
    """Convert OpenAI ``tools`` definitions (``None`` gives no tools)."""
    out: list[ToolSpec] = []
    for n, tool in tool_definitions(tools):
        fn = tool.get("function")
        if tool.get("type") != "function" or not isinstance(fn, Mapping):
            # Custom and hosted tools: keep them verbatim, name them as best we can.
            body = tool.get(tool.get("type", "")) if isinstance(tool.get("type"), str) else None
            name = body.get("name") if isinstance(body, Mapping) else None
            out.append(
                ToolSpec(
                    name=name if isinstance(name, str) else str(tool.get("type", f"tool_{n}")),
                    description=str(body.get("description", "")) if isinstance(body, Mapping) else "",
                    parameters={},
                    meta=freeze_meta({K_RAW_TOOL: dict(tool)}),
                )
            )
            continue
        name = fn.get("name")
        if not isinstance(name, str):
            raise InputError(f"tool {n} needs a string function 'name', found {type_name(name)}")
        description = fn.get("description")
        params = fn.get("parameters")
        known = {"name"}
        if isinstance(description, str):
            known.add("description")
        if isinstance(params, Mapping):
            known.add("parameters")
        meta: dict[str, Any] = {K_TOOL_FIELDS: tuple(k for k in ("description", "parameters") if k in known)}
        extra = extras(tool, _TOOL_KEYS)
        if extra:
            meta[K_EXTRA] = extra
        inner = extras(fn, frozenset(known))
        if inner:
            meta[K_INNER] = inner
        out.append(
            ToolSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                parameters=params if isinstance(params, Mapping) else _DEFAULT_PARAMETERS,
                meta=freeze_meta(meta),
            )
        )
    return out


def tools_to_openai(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Render tool definitions in OpenAI's ``tools`` shape."""
    out: list[dict[str, Any]] = []
    for spec in tools:
        raw = spec.meta.get(K_RAW_TOOL)
        if raw is not None:
            out.append(dict(raw))
            continue
        fields = spec.meta.get(K_TOOL_FIELDS)
        fn: dict[str, Any] = {"name": spec.name}
        if fields is None:
            if spec.description:
                fn["description"] = spec.description
            fn["parameters"] = dict(spec.parameters)
        else:
            if "description" in fields:
                fn["description"] = spec.description
            if "parameters" in fields:
                fn["parameters"] = dict(spec.parameters)
        inner = spec.meta.get(K_INNER)
        if inner:
            fn.update(inner)
        d: dict[str, Any] = {"type": "function", "function": fn}
        extra = spec.meta.get(K_EXTRA)
        if extra:
            d.update(extra)
        out.append(d)
    return out
