"""Helpers shared by the provider formats: hint text, data URLs, error wording.

Kept apart so that `_openai` and `_anthropic` do not import each other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from contextfold._errors import InputError
from contextfold._markers import HINT_PREFIX, HINT_SUFFIX, hint_body, render_hint
from contextfold._messages import DataBlock, HintBlock, TextBlock

__all__ = [
    "HINT_PREFIX",
    "HINT_SUFFIX",
    "extras",
    "media_placeholder",
    "parse_user_text",
    "render_hint",
    "split_data_url",
    "type_name",
]


def parse_user_text(text: str, meta: Mapping[str, Any]) -> TextBlock | HintBlock:
    """A user text part, or a `HintBlock` when it is exactly a rendered hint (`contextfold._markers.render_hint`)."""
    body = hint_body(text)
    if body is not None:
        return HintBlock(text=body, meta=meta)
    return TextBlock(text=text, meta=meta)


def extras(d: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    """The keys of ``d`` we do not interpret (kept in ``meta`` for the round trip), or None."""
    if known.issuperset(d):
        return None
    return {k: v for k, v in d.items() if k not in known}


def split_data_url(url: str) -> tuple[str, str] | None:
    """``data:<media type>;base64,<data>`` -> (media type, data); None for any other URL."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url.partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    return header[5:-7], payload


def tool_definitions(tools: Sequence[Mapping[str, Any]] | None) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The ``tools`` of a request, each with its index, checked to be a list of objects (``None``: none)."""
    if tools is None:
        return
    if not isinstance(tools, Sequence) or isinstance(tools, str | bytes):
        raise InputError(f"'tools' must be a list, found {type_name(tools)}")
    for n, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise InputError(f"tool {n} must be an object, found {type_name(tool)}")
        yield n, tool


def type_name(value: Any) -> str:
    """A JSON-ish name for what was found, for error messages."""
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list() | tuple():
            return "a list"
        case Mapping():
            return "an object"
        case _:
            return type(value).__name__


def media_placeholder(block: DataBlock) -> str:
    """Text standing in for media the target format cannot carry (a local path, an audio URL, ...)."""
    where = block.url if block.url is not None else block.path if block.path is not None else "inline data"
    kind = block.media if block.media_type is None else f"{block.media} {block.media_type}"
    return f"[{kind}: {where}]"
