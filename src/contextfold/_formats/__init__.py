"""Provider formats: OpenAI chat completions and Anthropic messages <-> canonical messages.

Each direction is a plain function over plain dicts; `to_canonical` and
`render` dispatch on a `ProviderName`. Round trips are exact except for the
normalizations listed in ``docs/formats.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from contextfold._errors import ConfigError
from contextfold._formats._anthropic import (
    anthropic_to_messages,
    messages_to_anthropic,
    tools_from_anthropic,
    tools_to_anthropic,
)
from contextfold._formats._detect import detect_format
from contextfold._formats._openai import (
    messages_to_openai,
    openai_to_messages,
    tools_from_openai,
    tools_to_openai,
)
from contextfold._formats._providers import PROVIDERS, ProviderName, check_provider
from contextfold._messages import Message, ToolSpec

__all__ = [
    "PROVIDERS",
    "ProviderName",
    "anthropic_to_messages",
    "check_provider",
    "detect_format",
    "messages_to_anthropic",
    "messages_to_openai",
    "openai_to_messages",
    "render",
    "to_canonical",
    "tools_from",
    "tools_from_anthropic",
    "tools_from_openai",
    "tools_to_anthropic",
    "tools_to_openai",
]


def to_canonical(
    doc_messages: Sequence[Mapping[str, Any]],
    provider: ProviderName,
    system: str | list[dict[str, Any]] | None = None,
) -> list[Message]:
    """Convert a provider's message list (plus Anthropic's top-level ``system``) to canonical messages."""
    provider = check_provider(provider)
    match provider:
        case "openai":
            if system is not None:
                raise ConfigError("a top-level 'system' is an Anthropic field; OpenAI puts it in a system message")
            return openai_to_messages(doc_messages)
        case "anthropic":
            return anthropic_to_messages(doc_messages, system)
        case _:
            assert_never(provider)


def tools_from(tools: Sequence[Mapping[str, Any]] | None, provider: ProviderName) -> list[ToolSpec]:
    """Convert a provider's ``tools`` definitions."""
    provider = check_provider(provider)
    match provider:
        case "openai":
            return tools_from_openai(tools)
        case "anthropic":
            return tools_from_anthropic(tools)
        case _:
            assert_never(provider)


def render(messages: Sequence[Message], provider: ProviderName, tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
    """The request body fragment for ``provider``: ``messages``, ``tools`` (if any), Anthropic ``system`` (if any)."""
    out: dict[str, Any] = {}
    provider = check_provider(provider)  # a typo from untyped code: a ConfigError, not an assert
    match provider:
        case "openai":
            out["messages"] = messages_to_openai(messages)
            if tools:
                out["tools"] = tools_to_openai(tools)
        case "anthropic":
            system, rendered = messages_to_anthropic(messages)
            if system is not None:
                out["system"] = system
            out["messages"] = rendered
            if tools:
                out["tools"] = tools_to_anthropic(tools)
        case _:
            assert_never(provider)
    return out
