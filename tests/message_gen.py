"""Shared hypothesis strategies: realistic canonical conversations and provider message dicts.

`conversations()` builds what an agent loop produces: an optional system
prompt, user turns (text, sometimes media or a hint), assistant steps with
optional signed thinking, text and one to three parallel tool calls, their
results either in one tool message or spread over several, and sometimes a user
message interleaved after the results. Every tool call is answered, ids are
unique, and each result carries the name of its call.

`openai_messages()` and `anthropic_documents()` build provider dicts with the
optional fields and extras the round trip must preserve (not necessarily
valid conversations).
"""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import strategies as st

from contextfold import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

__all__ = [
    "anthropic_documents",
    "conversations",
    "data_blocks",
    "json_objects",
    "openai_messages",
    "texts",
    "tool_names",
]

_ALPHABET = string.ascii_letters + string.digits + " .,:;!?-_/()[]{}\"'\n\té中ß€🙂"


def texts(min_size: int = 1, max_size: int = 60) -> st.SearchStrategy[str]:
    """Text with at least one visible character (providers reject blank text blocks)."""
    return st.text(_ALPHABET, min_size=min_size, max_size=max_size).map(lambda s: s if s.strip() else s + "x")


tool_names = st.sampled_from(["bash", "read_file", "str_replace_editor", "get_weather", "search", "think"])
_b64 = st.binary(min_size=1, max_size=24).map(lambda b: __import__("base64").b64encode(b).decode())
_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(_ALPHABET, max_size=20))
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_ALPHABET, max_size=8), inner, max_size=3),
    max_leaves=6,
)


def json_objects() -> st.SearchStrategy[dict[str, Any]]:
    """Small JSON objects (tool arguments)."""
    return st.dictionaries(st.text(string.ascii_lowercase, min_size=1, max_size=8), _json_values, max_size=4)


def _args_text(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def data_blocks(media: tuple[str, ...] = ("image", "document")) -> st.SearchStrategy[DataBlock]:
    """Media blocks by inline base64 or URL."""

    @st.composite
    def build(draw: st.DrawFn) -> DataBlock:
        kind = draw(st.sampled_from(media))
        mt = {"image": "image/png", "document": "application/pdf", "audio": "audio/wav"}[kind]
        if kind != "audio" and draw(st.booleans()):
            return DataBlock(media=kind, url=f"https://example.com/{draw(st.integers(0, 999))}.bin")  # type: ignore[arg-type]
        return DataBlock(media=kind, media_type=mt, data=draw(_b64))  # type: ignore[arg-type]

    return build()


@st.composite
def conversations(
    draw: st.DrawFn,
    *,
    system: bool = True,
    thinking: bool = True,
    media: bool = True,
    hints: bool = True,
    max_turns: int = 4,
) -> list[Message]:
    """A valid agent conversation in the canonical model (see the module docstring)."""
    out: list[Message] = []
    counter = 0
    if system and draw(st.booleans()):
        out.append(Message.text_message("system", draw(texts())))
    for _ in range(draw(st.integers(1, max_turns))):
        user: list[Any] = [TextBlock(text=draw(texts()))]
        if media and draw(st.integers(0, 3)) == 0:
            user.append(draw(data_blocks()))
        if hints and draw(st.integers(0, 4)) == 0:
            user.append(HintBlock(text=draw(texts())))
        out.append(Message(role="user", content=tuple(user)))
        for _step in range(draw(st.integers(0, 3))):
            blocks: list[Any] = []
            if thinking and draw(st.integers(0, 2)) == 0:
                blocks.append(ThinkingBlock(thinking=draw(texts()), signature=draw(_b64)))
                if draw(st.integers(0, 3)) == 0:
                    blocks.append(RedactedThinkingBlock(data=draw(_b64)))
            if draw(st.booleans()):
                blocks.append(TextBlock(text=draw(texts())))
            calls: list[ToolCallBlock] = []
            for _c in range(draw(st.integers(1, 3))):
                counter += 1
                calls.append(
                    ToolCallBlock(
                        id=f"call_{counter:04d}", name=draw(tool_names), arguments=_args_text(draw(json_objects()))
                    )
                )
            out.append(Message(role="assistant", content=(*blocks, *calls)))
            results: list[ToolResultBlock] = []
            for call in calls:
                content: list[TextBlock | DataBlock] = [TextBlock(text=draw(texts(max_size=120)))]
                if media and draw(st.integers(0, 5)) == 0:
                    content.append(draw(data_blocks(("image",))))
                results.append(
                    ToolResultBlock(
                        call_id=call.id, content=tuple(content), is_error=draw(st.integers(0, 5)) == 0, name=call.name
                    )
                )
            if draw(st.booleans()):
                out.append(Message(role="tool", content=tuple(results)))
            else:
                for result in results:
                    out.append(Message(role="tool", content=(result,)))
            if draw(st.integers(0, 3)) == 0:
                out.append(Message.text_message("user", draw(texts())))
        if draw(st.integers(0, 3)) > 0:
            out.append(Message.text_message("assistant", draw(texts())))
    return out


# ---------------------------------------------------------------------------------------------- provider dicts

_extra = st.dictionaries(st.sampled_from(["x_trace", "annotations", "cache_hint"]), _json_scalars, max_size=1)


def _with(d: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    d.update(extra)
    return d


@st.composite
def _openai_part(draw: st.DrawFn, role: str) -> dict[str, Any]:
    kinds = ["text", "text", "image_url", "input_audio", "file"] if role == "user" else ["text"]
    if role == "assistant":
        kinds.append("refusal")
    kind = draw(st.sampled_from(kinds))
    if kind == "text":
        return _with({"type": "text", "text": draw(st.text(_ALPHABET, max_size=30))}, draw(_extra))
    if kind == "refusal":
        return {"type": "refusal", "refusal": draw(texts())}
    if kind == "image_url":
        url = draw(st.sampled_from(["https://example.com/a.png", "data:image/jpeg;base64,", "data:image/png;base64,"]))
        if url.endswith(","):
            url += draw(_b64)
        inner: dict[str, Any] = {"url": url}
        if draw(st.booleans()):
            inner["detail"] = draw(st.sampled_from(["low", "high", "auto"]))
        return {"type": "image_url", "image_url": inner}
    if kind == "input_audio":
        return {
            "type": "input_audio",
            "input_audio": {"data": draw(_b64), "format": draw(st.sampled_from(["wav", "mp3"]))},
        }
    body: dict[str, Any] = draw(
        st.sampled_from(
            [
                {"file_id": "file-abc123"},
                {"file_data": "data:application/pdf;base64,JVBERi0x"},
                {"file_data": "JVBERi0x"},
            ]
        )
    )
    if draw(st.booleans()):
        body = {**body, "filename": "doc.pdf"}
    return {"type": "file", "file": body}


@st.composite
def _openai_content(draw: st.DrawFn, role: str, *, allow_none: bool) -> tuple[bool, Any]:
    options = ["str", "parts", "absent"] + (["null"] if allow_none else [])
    how = draw(st.sampled_from(options))
    if how == "str":
        return True, draw(st.text(_ALPHABET, max_size=40))
    if how == "parts":
        return True, draw(st.lists(_openai_part(role), max_size=3))
    if how == "null":
        return True, None
    return False, None


@st.composite
def _openai_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["system", "developer", "user", "assistant", "tool"]))
    d: dict[str, Any] = {"role": role}
    if role == "tool":
        d["tool_call_id"] = f"call_{draw(st.integers(0, 50))}"
        present, content = draw(_openai_content("tool", allow_none=False))
        if present:
            d["content"] = content
        if draw(st.integers(0, 3)) == 0:
            d["name"] = draw(tool_names)
        return _with(d, draw(_extra))
    if draw(st.integers(0, 4)) == 0:
        d["name"] = draw(st.sampled_from(["ana", "bot", "ops"]))
    present, content = draw(_openai_content(role, allow_none=role == "assistant"))
    if present:
        d["content"] = content
    if role == "assistant":
        if draw(st.integers(0, 4)) == 0:
            d["refusal"] = draw(st.none() | texts())
        n = draw(st.integers(0, 3))
        if n:
            calls = []
            for k in range(n):
                fn: dict[str, Any] = {"name": draw(tool_names)}
                fn["arguments"] = draw(st.sampled_from([_args_text(draw(json_objects())), "", "{not json", '{"a": 1}']))
                call: dict[str, Any] = {
                    "id": f"call_{draw(st.integers(0, 50))}_{k}",
                    "type": "function",
                    "function": fn,
                }
                calls.append(_with(call, draw(_extra)))
            d["tool_calls"] = calls
        elif draw(st.integers(0, 5)) == 0:
            d["tool_calls"] = draw(st.sampled_from([[], None]))
    keys = list(d)
    if len(keys) > 2 and draw(st.booleans()):
        keys = draw(st.permutations(keys))
        d = {k: d[k] for k in keys}
    return _with(d, draw(_extra))


def openai_messages(max_size: int = 8) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of OpenAI chat-completions message dicts with every optional field and extras."""
    return st.lists(_openai_message(), max_size=max_size)


_cache = st.sampled_from([{}, {"cache_control": {"type": "ephemeral"}}])


@st.composite
def _anthropic_data(draw: st.DrawFn, kinds: tuple[str, ...] = ("image", "document")) -> dict[str, Any]:
    kind = draw(st.sampled_from(kinds))
    sources: list[dict[str, Any]] = [
        {"type": "base64", "media_type": "image/png" if kind == "image" else "application/pdf", "data": draw(_b64)},
        {"type": "url", "url": "https://example.com/x"},
        {"type": "file", "file_id": "file_011"},
    ]
    if kind == "document":
        sources.append({"type": "text", "media_type": "text/plain", "data": draw(st.text(_ALPHABET, max_size=30))})
    d: dict[str, Any] = {"type": kind, "source": draw(st.sampled_from(sources))}
    if kind == "document" and draw(st.booleans()):
        d["title"] = "Spec"
    return _with(d, draw(_cache))


def _anthropic_text(draw: st.DrawFn) -> dict[str, Any]:
    return _with({"type": "text", "text": draw(texts())}, draw(_cache))


@st.composite
def _anthropic_result(draw: st.DrawFn) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"toolu_{draw(st.integers(0, 40))}"}
    how = draw(st.sampled_from(["str", "list", "absent"]))
    if how == "str":
        d["content"] = draw(st.text(_ALPHABET, max_size=40))
    elif how == "list":
        d["content"] = draw(
            st.lists(st.one_of(st.builds(dict, type=st.just("text"), text=texts()), _anthropic_data()), max_size=3)
        )
    if draw(st.booleans()):
        d["is_error"] = draw(st.booleans())
    return _with(d, draw(_cache))


@st.composite
def _anthropic_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant"]))
    if draw(st.integers(0, 3)) == 0:
        return {"role": role, "content": draw(st.text(_ALPHABET, max_size=40))}
    blocks: list[dict[str, Any]] = []
    if role == "user":
        blocks.extend(draw(st.lists(_anthropic_result(), max_size=3)))
        for _ in range(draw(st.integers(0, 3))):
            blocks.append(draw(_anthropic_data()) if draw(st.booleans()) else _anthropic_text(draw))
    else:
        if draw(st.booleans()):
            sig = draw(st.sampled_from([{"signature": "c2ln"}, {}]))
            blocks.append({"type": "thinking", "thinking": draw(texts()), **sig})
        if draw(st.integers(0, 3)) == 0:
            blocks.append({"type": "redacted_thinking", "data": draw(_b64)})
        if draw(st.booleans()):
            blocks.append(_anthropic_text(draw))
        for _ in range(draw(st.integers(0, 3))):
            blocks.append(
                _with(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{draw(st.integers(0, 40))}",
                        "name": draw(tool_names),
                        "input": draw(json_objects()),
                    },
                    draw(_cache),
                )
            )
    return {"role": role, "content": blocks}


@st.composite
def anthropic_documents(draw: st.DrawFn, max_size: int = 8) -> tuple[Any, list[dict[str, Any]]]:
    """``(system, messages)`` in Anthropic's format, with extras such as ``cache_control``."""
    system = draw(
        st.one_of(
            st.none(),
            st.text(_ALPHABET, max_size=30),
            st.lists(st.builds(lambda t, c: {"type": "text", "text": t, **c}, texts(), _cache), max_size=3),
        )
    )
    return system, draw(st.lists(_anthropic_message(), max_size=max_size))
