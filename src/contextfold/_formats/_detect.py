"""Tell an OpenAI chat-completions document from an Anthropic messages document.

Looks for the first decisive signal (a role or key or block type only one of
the formats has) and stops there, so detection costs a few messages, not the
whole file. Plain-text conversations are valid in both and default to OpenAI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contextfold._errors import UnknownFormatError
from contextfold._formats._common import type_name
from contextfold._formats._providers import ProviderName

__all__ = ["ProviderName", "detect_format"]

_OPENAI_ROLES = frozenset({"system", "developer", "tool"})
_OPENAI_KEYS = ("tool_calls", "tool_call_id", "refusal", "name")
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_ANTHROPIC_PARTS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"})
_EXPECTED = "expected a list of messages or an object with a 'messages' list"


def detect_format(doc: Any) -> ProviderName:
    """Which provider format ``doc`` (a list of message dicts, or an object with ``messages``) is in.

    Raises `UnknownFormatError` when the document is not a transcript at all.
    """
    if isinstance(doc, Mapping):
        if "messages" not in doc:
            keys = ", ".join(repr(k) for k in list(doc)[:5]) or "none"
            raise UnknownFormatError(f"not a transcript: a JSON object without 'messages' (keys: {keys}); {_EXPECTED}")
        messages = doc["messages"]
        if not isinstance(messages, list):
            raise UnknownFormatError(f"not a transcript: 'messages' is {type_name(messages)}, not a list")
        found = _scan(messages)
        if found is not None:
            return found
        if "system" in doc:
            return "anthropic"
        return _from_tools(doc.get("tools"))
    if isinstance(doc, list):
        return _scan(doc) or "openai"
    raise UnknownFormatError(f"not a transcript: found {type_name(doc)}; {_EXPECTED}")


def _scan(messages: Sequence[Any]) -> ProviderName | None:
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping) or "role" not in m:
            what = "an object without 'role'" if isinstance(m, Mapping) else type_name(m)
            raise UnknownFormatError(
                f"not a transcript: expected a message object with a 'role', found {what}", message_index=i
            )
        if m["role"] in _OPENAI_ROLES:
            return "openai"
        for key in _OPENAI_KEYS:
            if key in m:
                return "openai"
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, Mapping):
                    ptype = part.get("type")
                    if ptype in _OPENAI_PARTS:
                        return "openai"
                    if ptype in _ANTHROPIC_PARTS:
                        return "anthropic"
    return None


def _from_tools(tools: Any) -> ProviderName:
    if isinstance(tools, list):
        for tool in tools:
            if isinstance(tool, Mapping):
                if "function" in tool or tool.get("type") == "function":
                    return "openai"
                if "input_schema" in tool:
                    return "anthropic"
    return "openai"
