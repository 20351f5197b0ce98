"""Tell an OpenAI chat-completions document from an Anthropic messages or an OpenAI Responses document.

Looks for the first decisive signal (a role or key or block type only one of
the formats has) and stops there, so detection costs a few messages, not the
whole file. A ``system`` or ``developer`` message is OpenAI unless a Responses
signal follows (both formats have them). Plain-text conversations are valid
in all three and default to OpenAI. A Responses document is a list of input
items (one without ``role`` has a ``type``: ``function_call``, ``reasoning``,
...) or an object with ``input`` (and ``instructions``) instead of ``messages``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from contextfold._errors import UnknownFormatError
from contextfold._formats._common import type_name
from contextfold._formats._providers import ProviderName

__all__ = ["ProviderName", "detect_format"]

_OPENAI_ROLES = frozenset({"system", "developer"})
_OPENAI_KEYS = ("tool_calls", "tool_call_id", "refusal", "name")
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file"})  # "refusal" parts: OpenAI and Responses
_ANTHROPIC_PARTS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file"})
_RESPONSES_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "item_reference",
        "compaction",
        "compaction_summary",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)
"""Responses input item types (an item of another type is kept opaque once the document is known to be one)."""
_EXPECTED = "expected a list of messages or an object with a 'messages' list (or a Responses 'input')"


def detect_format(doc: Any) -> ProviderName:
    """Which provider format ``doc`` (a list of message dicts, or an object with ``messages``) is in.

    Raises `UnknownFormatError` when the document is not a transcript at all.
    """
    if isinstance(doc, Mapping):
        if "messages" not in doc and isinstance(doc.get("input"), list | str):
            return "responses"
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
    weak: ProviderName | None = None
    for i, m in enumerate(messages):
        if isinstance(m, Mapping) and "role" not in m and m.get("type") in _RESPONSES_ITEMS:
            return "responses"
        if not isinstance(m, Mapping) or "role" not in m:
            what = "an object without 'role'" if isinstance(m, Mapping) else type_name(m)
            raise UnknownFormatError(
                f"not a transcript: expected a message object with a 'role', found {what}", message_index=i
            )
        found = _signal(m)
        if found is not None:
            return found
        if m["role"] in _OPENAI_ROLES:  # "system" and "developer": OpenAI, unless a Responses signal follows
            weak = "openai"
    return weak


def _signal(m: Mapping[str, Any]) -> ProviderName | None:
    """The format one message decides, if it decides one."""
    if m.get("type") == "message":
        return "responses"
    if m["role"] == "tool":
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
                if ptype in _RESPONSES_PARTS:
                    return "responses"
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
