"""The OpenAI Responses API (``instructions`` plus ``input`` items) <-> the canonical model.

One input item becomes one canonical message, so an index in a request's
``input`` list is an index in the canonical list (after the ``instructions``
system message), and a proxy can cut, hash and splice the client's items
without re-rendering them:

* ``message`` items (``type`` present or not): ``user``, ``assistant``,
  ``system`` and ``developer`` (canonical ``system``) with ``input_text``,
  ``output_text``, ``refusal``, ``input_image`` and ``input_file`` parts;
* ``function_call`` / ``custom_tool_call``: an assistant message with one
  `ToolCallBlock` (``custom_tool_call``'s free-form ``input`` is its arguments);
* ``function_call_output`` / ``custom_tool_call_output``: a ``tool`` message
  with one `ToolResultBlock`;
* ``reasoning``: an assistant message with one `ThinkingBlock` (the summary
  texts, ``encrypted_content`` as its signature);
* anything else (``compaction``, ``web_search_call``, ``local_shell_call``,
  ``item_reference``, types that do not exist yet, and a message whose parts
  we do not know) is **opaque**: the item rides in ``meta`` verbatim and is
  given back byte for byte. An opaque item with a ``call_id`` becomes a tool
  call (or, for ``*_output`` types, a tool result), so tool pairing rules
  keep the two together (as do ``local_shell_call_output``, which names its
  call by ``id``, and an MCP approval request and its response); others hold
  a short placeholder text.

Reasoning and opaque items are always rendered from the stored original:
nothing in contextfold may edit encrypted content, signatures or provider
compaction items. Everything else we do not interpret (``id``, ``status``,
``annotations``, ``detail``, ...) rides in ``meta`` under ``responses.*`` and
comes back on rendering, in the original key order, so that
items -> canonical -> items is the identity.
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
)
from contextfold._formats._common import type_name as _type_name
from contextfold._markers import PROVIDER_KEEP, PROVIDER_STATE_KEY
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

__all__ = [
    "KEEP_TYPES",
    "is_opaque",
    "item_type",
    "messages_to_responses",
    "responses_to_messages",
    "tools_from_responses",
    "tools_to_responses",
]

K_RAW = "responses.raw"  # on a message: the original item, rendered verbatim (reasoning and opaque items)
K_TYPE = "responses.type"  # on a message: the item type, None when the item had no "type" key
K_KEYS = "responses.keys"  # original key order of the item
K_EXTRA = "responses.extra"  # uninterpreted keys of an item or part
K_ROLE = "responses.role"  # "developer" or "system" as written
K_CONTENT = "responses.content"  # "str" | "parts": how a message's content (or an output) was written
K_PART = "responses.part"  # on a block: the part type it came from
K_INSTRUCTIONS = "responses.instructions"  # on a system message: it is the top-level instructions
K_INPUT = "responses.input"  # on the first message: "str" when the whole input was one string
K_ARGS = "responses.args"  # on a tool call: "absent" when the item had no arguments/input key
K_OUTPUT = "responses.output"  # on a tool result: "absent" when the item had no output key
K_RAW_TOOL = "responses.raw_tool"  # on a ToolSpec: a non-function tool kept verbatim
K_TOOL_FIELDS = "responses.fields"  # on a ToolSpec: which optional function fields were present
FILE_ID_SCHEME = "file-id:"

KEEP_TYPES = frozenset({"compaction", "compaction_summary"})
"""Opaque item types that carry the provider's own memory of earlier turns: never dropped by a compaction (the
proxy's `must_keep`; in canonical form their block is marked `PROVIDER_KEEP`, which `CompactionPlan` carries)."""

_MESSAGE_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
_TEXT_PARTS = frozenset({"input_text", "output_text"})
_CALL_TYPES = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
_MSG_KEYS = frozenset({"type", "role", "content"})
_CALL_KEYS = {
    "function_call": frozenset({"type", "call_id", "name", "arguments"}),
    "custom_tool_call": frozenset({"type", "call_id", "name", "input"}),
}
_OUTPUT_KEYS = frozenset({"type", "call_id", "output"})
_TEXT_KEYS = frozenset({"type", "text"})
_REFUSAL_KEYS = frozenset({"type", "refusal"})
_IMAGE_KEYS = frozenset({"type", "image_url", "file_id"})
_FILE_KEYS = frozenset({"type", "file_data", "file_id", "file_url"})
_TOOL_KEYS = frozenset({"type", "name", "description", "parameters"})


_PAIRED_BY = {
    "local_shell_call_output": "id",
    "mcp_approval_request": "id",
    "mcp_approval_response": "approval_request_id",
}
"""Opaque items that name the call they make or answer by a field other than ``call_id`` (the Responses API's
``local_shell_call_output`` has no ``call_id``: its ``id`` is the call's; an MCP approval is asked by its ``id``
and answered by ``approval_request_id``). Read as a call and its result, so no compaction separates them."""
_ANSWER_TYPES = frozenset({"mcp_approval_response"})
"""Opaque items that answer a call without the ``_output`` suffix."""

_OPAQUE = None
"""What a part or item parser returns when the item must be kept verbatim (an unknown part, role or shape)."""


def _err(i: int, reason: str) -> InputError:
    return InputError(reason, message_index=i)


def item_type(item: Mapping[str, Any]) -> str:
    """The item's type; an item without ``type`` but with a ``role`` is a message."""
    t = item.get("type")
    if isinstance(t, str):
        return t
    return "message" if "role" in item else ""


def is_opaque(message: Message) -> bool:
    """Whether a canonical message stands for an item kept verbatim (reasoning or opaque)."""
    return K_RAW in message.meta


# ---------------------------------------------------------------------------------------------- parsing


def responses_to_messages(items: str | Sequence[Mapping[str, Any]], instructions: str | None = None) -> list[Message]:
    """Convert a Responses ``input`` (a string or a list of items) and ``instructions`` to canonical messages.

    ``instructions`` becomes a leading system message. Raises `InputError`
    with the item index for an item that is not an object or whose known
    fields have the wrong type; unknown item and part types are kept opaque.
    """
    out: list[Message] = []
    if instructions is not None:
        if not isinstance(instructions, str):
            raise InputError(f"'instructions' must be a string, found {_type_name(instructions)}")
        blocks = (TextBlock(text=instructions),) if instructions else ()
        out.append(Message(role="system", content=blocks, meta=freeze_meta({K_INSTRUCTIONS: True})))
    if isinstance(items, str):
        block = parse_user_text(items, {})
        out.append(Message(role="user", content=(block,) if items else (), meta=freeze_meta({K_INPUT: "str"})))
        return out
    if not isinstance(items, Sequence):
        raise InputError(f"'input' must be a string or a list of items, found {_type_name(items)}")
    names: dict[str, str] = {}
    for i, item in enumerate(items):
        out.append(parse_item(i, item, names))
    return out


def parse_item(i: int, item: Any, names: dict[str, str] | None = None) -> Message:
    """One input item as one canonical message (``names``: call id -> tool name, filled and used)."""
    if not isinstance(item, Mapping):
        raise _err(i, f"expected an input item object, found {_type_name(item)}")
    names = {} if names is None else names
    itype = item_type(item)
    parsed: Message | None = _OPAQUE
    if itype == "message":
        parsed = _parse_message(i, item)
    elif itype in _CALL_TYPES:
        parsed = _parse_call(i, item, itype, names)
    elif itype in _OUTPUT_TYPES:
        parsed = _parse_output(i, item, itype, names)
    elif itype == "reasoning":
        parsed = _parse_reasoning(item)
    return parsed if parsed is not None else _opaque(item, itype, names)


def _base_meta(item: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
    meta: dict[str, Any] = {K_KEYS: tuple(item), K_TYPE: item.get("type") if "type" in item else None}
    extra = extras(item, known)
    if extra:
        meta[K_EXTRA] = extra
    return meta


def _parse_message(i: int, item: Mapping[str, Any]) -> Message | None:
    role_raw = item.get("role")
    role = _MESSAGE_ROLES.get(role_raw) if isinstance(role_raw, str) else None
    if role is None:
        return _OPAQUE  # an unknown role: keep it as it is
    meta = _base_meta(item, _MSG_KEYS)
    if role == "system":
        meta[K_ROLE] = role_raw
    content = item.get("content")
    blocks: list[Any] = []
    if isinstance(content, str):
        meta[K_CONTENT] = "str"
        if content:
            blocks.append(parse_user_text(content, {}) if role == "user" else TextBlock(text=content))
    elif isinstance(content, list):
        meta[K_CONTENT] = "parts"
        for part in content:
            block = _parse_part(i, part, role)
            if block is None:
                return _OPAQUE
            blocks.append(block)
    else:
        return _OPAQUE
    return Message(role=role, content=tuple(blocks), meta=freeze_meta(meta))


def _parse_part(i: int, part: Any, role: str) -> TextBlock | HintBlock | DataBlock | None:
    if not isinstance(part, Mapping):
        raise _err(i, f"a content part must be an object, found {_type_name(part)}")
    ptype = part.get("type")
    if ptype in _TEXT_PARTS:
        text = part.get("text")
        if not isinstance(text, str):
            raise _err(i, f"an {ptype} part needs a string 'text', found {_type_name(text)}")
        meta: dict[str, Any] = {K_PART: ptype, K_KEYS: tuple(part)}
        extra = extras(part, _TEXT_KEYS)
        if extra:
            meta[K_EXTRA] = extra
        if role == "user" and ptype == "input_text":
            return parse_user_text(text, meta)
        return TextBlock(text=text, meta=meta)
    if ptype == "refusal":
        text = part.get("refusal")
        if not isinstance(text, str):
            raise _err(i, f"a refusal part needs a string 'refusal', found {_type_name(text)}")
        meta = {K_PART: "refusal", K_KEYS: tuple(part)}
        extra = extras(part, _REFUSAL_KEYS)
        if extra:
            meta[K_EXTRA] = extra
        return TextBlock(text=text, meta=meta)
    if ptype == "input_image":
        return _parse_image(part)
    if ptype == "input_file":
        return _parse_file(part)
    return _OPAQUE


def _parse_image(part: Mapping[str, Any]) -> DataBlock | None:
    url, file_id = part.get("image_url"), part.get("file_id")
    meta: dict[str, Any] = {K_PART: "input_image", K_KEYS: tuple(part)}
    extra = extras(part, _IMAGE_KEYS)
    if isinstance(url, str) and file_id is None:
        if extra:
            meta[K_EXTRA] = extra
        split = split_data_url(url)
        if split is not None:
            return DataBlock(media="image", media_type=split[0], data=split[1], meta=meta)
        return DataBlock(media="image", url=url, meta=meta)
    if isinstance(file_id, str) and url is None:
        if extra:
            meta[K_EXTRA] = extra
        return DataBlock(media="image", url=FILE_ID_SCHEME + file_id, meta=meta)
    return _OPAQUE


def _parse_file(part: Mapping[str, Any]) -> DataBlock | None:
    meta: dict[str, Any] = {K_PART: "input_file", K_KEYS: tuple(part)}
    extra = extras(part, _FILE_KEYS)
    if extra:
        meta[K_EXTRA] = extra
    given = [k for k in ("file_data", "file_id", "file_url") if k in part]
    if len(given) != 1 or not isinstance(part[given[0]], str):
        return _OPAQUE
    value: str = part[given[0]]
    if given[0] == "file_id":
        return DataBlock(media="document", url=FILE_ID_SCHEME + value, meta=meta)
    if given[0] == "file_url":
        return DataBlock(media="document", url=value, meta=meta)
    split = split_data_url(value)
    if split is None:
        return _OPAQUE  # bare base64 without a media type: keep verbatim
    return DataBlock(media="document", media_type=split[0], data=split[1], meta=meta)


def _parse_call(i: int, item: Mapping[str, Any], itype: str, names: dict[str, str]) -> Message:
    call_id, name = item.get("call_id"), item.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise _err(i, f"a {itype} item needs a string 'call_id' and a string 'name'")
    key = _CALL_TYPES[itype]
    meta = _base_meta(item, _CALL_KEYS[itype])
    block_meta: dict[str, Any] = {}
    if key not in item:
        block_meta[K_ARGS] = "absent"
        arguments = ""
    else:
        arguments = item[key]
        if not isinstance(arguments, str):
            raise _err(i, f"{itype} {call_id!r}: '{key}' must be a string, found {_type_name(arguments)}")
    names[call_id] = name
    call = ToolCallBlock(id=call_id, name=name, arguments=arguments, meta=freeze_meta(block_meta))
    return Message(role="assistant", content=(call,), meta=freeze_meta(meta))


def _parse_output(i: int, item: Mapping[str, Any], itype: str, names: dict[str, str]) -> Message | None:
    call_id = item.get("call_id")
    if not isinstance(call_id, str):
        raise _err(i, f"a {itype} item needs a string 'call_id', found {_type_name(call_id)}")
    meta = _base_meta(item, _OUTPUT_KEYS)
    block_meta: dict[str, Any] = {}
    content: list[TextBlock | DataBlock] = []
    if "output" not in item:
        block_meta[K_OUTPUT] = "absent"
    else:
        output = item["output"]
        if isinstance(output, str):
            block_meta[K_CONTENT] = "str"
            if output:
                content.append(TextBlock(text=output))
        elif isinstance(output, list):
            block_meta[K_CONTENT] = "parts"
            for part in output:
                block = _parse_part(i, part, "tool")
                if block is None:
                    return _OPAQUE
                if isinstance(block, HintBlock):  # pragma: no cover - hints are parsed only in user messages
                    block = TextBlock(text=render_hint(block.text), meta=block.meta)
                content.append(block)
        else:
            return _OPAQUE
    result = ToolResultBlock(
        call_id=call_id, content=tuple(content), name=names.get(call_id), meta=freeze_meta(block_meta)
    )
    return Message(role="tool", content=(result,), meta=freeze_meta(meta))


def _parse_reasoning(item: Mapping[str, Any]) -> Message:
    texts: list[str] = []
    summary = item.get("summary")
    if isinstance(summary, list):
        texts.extend(p["text"] for p in summary if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    content = item.get("content")
    if isinstance(content, list):
        texts.extend(p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    encrypted = item.get("encrypted_content")
    block: ThinkingBlock | RedactedThinkingBlock
    if texts or not isinstance(encrypted, str):
        block = ThinkingBlock(thinking="\n\n".join(texts), signature=encrypted if isinstance(encrypted, str) else None)
    else:
        block = RedactedThinkingBlock(data=encrypted)
    return Message(role="assistant", content=(block,), meta=freeze_meta({K_RAW: dict(item), K_TYPE: "reasoning"}))


def _opaque(item: Mapping[str, Any], itype: str, names: dict[str, str]) -> Message:
    """An item kept verbatim; a ``call_id`` makes it a tool call or result, so pairing rules see it."""
    meta = freeze_meta({K_RAW: dict(item), K_TYPE: itype or None})
    call_id = item.get("call_id")
    if call_id is None and itype in _PAIRED_BY:
        call_id = item.get(_PAIRED_BY[itype])
    label = f"[{itype or 'item'}]"
    if isinstance(call_id, str):
        if itype.endswith("_output") or itype in _ANSWER_TYPES:
            output = item.get("output")
            text = output if isinstance(output, str) else label
            result = ToolResultBlock(call_id=call_id, content=(TextBlock(text=text),), name=names.get(call_id))
            return Message(role="tool", content=(result,), meta=meta)
        names[call_id] = itype
        rest = {k: v for k, v in item.items() if k not in ("type", "call_id", "id", "status")}
        arguments = json.dumps(rest, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        return Message(
            role="assistant", content=(ToolCallBlock(id=call_id, name=itype, arguments=arguments),), meta=meta
        )
    role: Role = "user" if item.get("role") == "user" else "assistant"
    # The provider's compaction state: never summarized away, carried forward verbatim (`CompactionPlan.carried`).
    block_meta = freeze_meta({PROVIDER_STATE_KEY: PROVIDER_KEEP}) if itype in KEEP_TYPES else None
    return Message(role=role, content=(TextBlock(text=label, meta=block_meta or freeze_meta(None)),), meta=meta)


# ---------------------------------------------------------------------------------------------- rendering


def messages_to_responses(messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]] | str]:
    """Render canonical messages as Responses ``(instructions, input)``.

    The system message that came from ``instructions`` goes back there (the
    first leading system message of a foreign conversation too); other
    system messages become ``developer``/``system`` message items. A whole
    ``input`` that was one string comes back as that string. A foreign
    assistant message with text and several tool calls becomes a message
    item followed by one ``function_call`` item per call; a foreign tool
    message one output item per result; foreign thinking is dropped (the
    Responses API accepts only its own reasoning items).
    """
    instructions: str | None = None
    start = 0
    if (
        messages
        and messages[0].role == "system"
        and (messages[0].meta.get(K_INSTRUCTIONS) or K_TYPE not in messages[0].meta)
    ):
        instructions = messages[0].text
        start = 1
    rest = messages[start:]
    if len(rest) == 1 and rest[0].meta.get(K_INPUT) == "str":
        return instructions, rest[0].text
    items: list[dict[str, Any]] = []
    for i, message in enumerate(rest, start=start):
        items.extend(render_message(i, message))
    return instructions, items


def render_message(i: int, message: Message) -> list[dict[str, Any]]:
    """The input items one canonical message becomes (one for a message read from Responses)."""
    meta = message.meta
    raw = meta.get(K_RAW)
    if raw is not None:
        return [dict(raw)]
    if message.role == "tool":
        return _render_outputs(i, message)
    parts, calls = _render_blocks(i, message)
    if calls and not parts:
        return calls
    if not parts and not message.content and K_TYPE not in meta:
        return []
    item: dict[str, Any] = {"type": "message", "role": meta.get(K_ROLE, message.role)}
    if K_TYPE in meta and meta[K_TYPE] is None:
        del item["type"]
    shape = meta.get(K_CONTENT)
    if shape == "str" and len(parts) <= 1 and (not parts or _plain_text(parts[0])):
        item["content"] = parts[0]["text"] if parts else ""
    else:
        item["content"] = parts
    extra = meta.get(K_EXTRA)
    if extra:
        item.update(extra)
    return [_reorder(item, meta.get(K_KEYS)), *calls]


def _render_outputs(i: int, message: Message) -> list[dict[str, Any]]:
    """One output item per result of a tool message (a lone result keeps the item's own keys)."""
    items: list[dict[str, Any]] = []
    for block in message.content:
        if not isinstance(block, ToolResultBlock):
            raise InputError(f"a tool message may hold only tool results, found a {block.kind} block", message_index=i)
        items.append(_render_output(block, message.meta if len(message.content) == 1 else {}))
    return items


def _render_blocks(i: int, message: Message) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The content parts and the call items of a message that is not a tool message (thinking is dropped)."""
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for block in message.content:
        match block:
            case TextBlock():
                parts.append(_text_part(block, message.role))
            case HintBlock():
                hint = TextBlock(text=render_hint(block.text), meta=block.meta)
                parts.append(_text_part(hint, message.role))
            case DataBlock():
                parts.append(_data_part(block))
            case ToolCallBlock():
                calls.append(_render_call(block, message.meta if len(message.content) == 1 else {}))
            case ThinkingBlock() | RedactedThinkingBlock():
                pass
            case ToolResultBlock():
                raise InputError(
                    f"a tool result in a {message.role} message; tool results belong in tool messages",
                    message_index=i,
                )
            case _:
                assert_never(block)
    return parts, calls


def _plain_text(part: Mapping[str, Any]) -> bool:
    return part.get("type") in _TEXT_PARTS and len(part) == 2 and "text" in part


def _text_part(block: TextBlock, role: str) -> dict[str, Any]:
    ptype = block.meta.get(K_PART)
    if ptype is None:
        ptype = "output_text" if role == "assistant" else "input_text"
    part: dict[str, Any] = {"type": ptype, "refusal" if ptype == "refusal" else "text": block.text}
    extra = block.meta.get(K_EXTRA)
    if extra:
        part.update(extra)
    return _reorder(part, block.meta.get(K_KEYS))


def _data_part(block: DataBlock) -> dict[str, Any]:
    meta = block.meta
    part: dict[str, Any]
    if block.media == "image" and block.path is None:
        part = {"type": "input_image"}
        if block.url is not None and block.url.startswith(FILE_ID_SCHEME):
            part["file_id"] = block.url[len(FILE_ID_SCHEME) :]
        elif block.url is not None:
            part["image_url"] = block.url
        else:
            part["image_url"] = f"data:{block.media_type or 'application/octet-stream'};base64,{block.data}"
    elif block.media == "document" and block.path is None:
        part = {"type": "input_file"}
        if block.url is not None and block.url.startswith(FILE_ID_SCHEME):
            part["file_id"] = block.url[len(FILE_ID_SCHEME) :]
        elif block.url is not None:
            part["file_url"] = block.url
        else:
            part["file_data"] = f"data:{block.media_type or 'application/pdf'};base64,{block.data}"
    else:
        return {"type": "input_text", "text": media_placeholder(block)}
    extra = meta.get(K_EXTRA)
    if extra:
        part.update(extra)
    return _reorder(part, meta.get(K_KEYS))


def _render_call(block: ToolCallBlock, meta: Mapping[str, Any]) -> dict[str, Any]:
    itype = meta.get(K_TYPE, "function_call") or "function_call"
    if itype not in _CALL_TYPES:
        itype = "function_call"
    item: dict[str, Any] = {"type": itype, "call_id": block.id, "name": block.name}
    if block.meta.get(K_ARGS) != "absent":
        item[_CALL_TYPES[itype]] = block.arguments
    extra = meta.get(K_EXTRA)
    if extra:
        item.update(extra)
    return _reorder(item, meta.get(K_KEYS))


def _render_output(block: ToolResultBlock, meta: Mapping[str, Any]) -> dict[str, Any]:
    itype = meta.get(K_TYPE, "function_call_output") or "function_call_output"
    if itype not in _OUTPUT_TYPES:
        itype = "function_call_output"
    item: dict[str, Any] = {"type": itype, "call_id": block.call_id}
    bmeta = block.meta
    if bmeta.get(K_OUTPUT) != "absent":
        parts = [_text_part(b, "tool") if isinstance(b, TextBlock) else _data_part(b) for b in block.content]
        if bmeta.get(K_CONTENT) == "parts" or any(not _plain_text(p) for p in parts) or len(parts) > 1:
            item["output"] = parts
        else:
            item["output"] = parts[0]["text"] if parts else ""
    extra = meta.get(K_EXTRA)
    if extra:
        item.update(extra)
    return _reorder(item, meta.get(K_KEYS))


def _reorder(d: dict[str, Any], keys: tuple[str, ...] | None) -> dict[str, Any]:
    if keys is None or tuple(d) == keys:
        return d
    ordered = {k: d[k] for k in keys if k in d}
    if len(ordered) != len(d):
        ordered.update(d)
    return ordered


# ---------------------------------------------------------------------------------------------- tools


def tools_from_responses(tools: Sequence[Mapping[str, Any]] | None) -> list[ToolSpec]:
    """Convert Responses ``tools`` (flat ``{"type": "function", "name", ...}``); other tools are kept verbatim."""
    out: list[ToolSpec] = []
    for n, tool in tool_definitions(tools):
        name = tool.get("name")
        params = tool.get("parameters")
        description = tool.get("description")
        if (
            tool.get("type") != "function"
            or not isinstance(name, str)
            or not isinstance(params, Mapping)
            or (description is not None and not isinstance(description, str))
        ):
            label = name if isinstance(name, str) else str(tool.get("type", f"tool_{n}"))
            desc = description if isinstance(description, str) else ""
            out.append(
                ToolSpec(name=label, description=desc, parameters={}, meta=freeze_meta({K_RAW_TOOL: dict(tool)}))
            )
            continue
        meta: dict[str, Any] = {K_KEYS: tuple(tool), K_TOOL_FIELDS: ("description",) if "description" in tool else ()}
        extra = extras(tool, _TOOL_KEYS)
        if extra:
            meta[K_EXTRA] = extra
        out.append(ToolSpec(name=name, description=description or "", parameters=params, meta=freeze_meta(meta)))
    return out


def tools_to_responses(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Render tool definitions in the Responses ``tools`` shape."""
    out: list[dict[str, Any]] = []
    for spec in tools:
        raw = spec.meta.get(K_RAW_TOOL)
        if raw is not None:
            out.append(dict(raw))
            continue
        d: dict[str, Any] = {"type": "function", "name": spec.name}
        fields = spec.meta.get(K_TOOL_FIELDS)
        if (fields is None and spec.description) or (fields is not None and "description" in fields):
            d["description"] = spec.description
        d["parameters"] = dict(spec.parameters)
        extra = spec.meta.get(K_EXTRA)
        if extra:
            d.update(extra)
        out.append(_reorder(d, spec.meta.get(K_KEYS)))
    return out
