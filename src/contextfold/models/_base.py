"""The model extension point: one async call, canonical messages in, one assistant message out.

The agent loop talks to every provider through `ChatModel`, so it never sees an
SDK type. Adapters translate the provider's errors at the edge::

    ContextfoldError
    └── ModelError                 the provider call failed (SDK error kept as __cause__)
        └── ContextLengthExceeded  the provider says the prompt is longer than its window

`ContextLengthExceeded` is separate because the agent loop reacts to it by
compacting once and retrying; every other `ModelError` has already been retried
by the SDK (rate limits, 5xx) and is final.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from contextfold._errors import ContextLengthExceeded, ModelError, looks_like_context_length
from contextfold._messages import Message, ToolSpec

__all__ = [
    "ChatModel",
    "ContextLengthExceeded",
    "ModelError",
    "ModelResponse",
    "StopReason",
    "StreamHandler",
    "Usage",
    "emit_delta",
    "looks_like_context_length",
    "schema_name",
]

StreamHandler: TypeAlias = Callable[[str], object]
"""Receives each text delta as it arrives; may be sync or return an awaitable."""

StopReason: TypeAlias = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filter", "other"]
"""Why the model stopped, normalized across providers (the raw value is kept too)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Tokens the provider billed for one call.

    ``prompt_tokens`` is the whole prompt, cached parts included, for every
    provider (Anthropic reports cached input separately; we add it back), so
    it can be compared with our own count of the context.
    """

    prompt_tokens: int = 0
    """Every input token, including the cache reads and writes below."""
    completion_tokens: int = 0
    """Output tokens, reasoning included."""
    cache_read_tokens: int = 0
    """Prompt tokens served from the provider's prompt cache."""
    cache_write_tokens: int = 0
    """Prompt tokens written to the provider's prompt cache (Anthropic)."""
    reasoning_tokens: int = 0
    """Part of ``completion_tokens`` spent on reasoning, when the provider says so."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages field by field (for totals over a session)."""
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    """One model turn: the assistant message, what it cost, and why it ended."""

    message: Message
    """The assistant message (text, thinking with signatures, tool calls), ready to append."""
    usage: Usage
    stop_reason: StopReason
    raw_stop_reason: str | None = None
    """The provider's own spelling (``"stop"``, ``"tool_calls"``, ``"end_turn"``, ...)."""
    model: str | None = None
    """The model name the provider reported."""


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers canonical messages with one assistant turn."""

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] = (),
        stream: StreamHandler | None = None,
    ) -> ModelResponse:
        """Send ``messages`` (and the tools offered) and return the assistant's answer.

        With ``stream``, text deltas are delivered as they arrive; the full
        message is still returned. Raises `ContextLengthExceeded` when the
        prompt is too long for the model, `ModelError` for other failures.
        """
        ...


async def emit_delta(handler: StreamHandler | None, delta: str) -> None:
    """Deliver one text delta to a sync or async stream handler."""
    if handler is None or not delta:
        return
    result = handler(delta)
    if inspect.isawaitable(result):
        await result


_NAME_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def schema_name(name: str | None, schema: Mapping[str, Any]) -> str:
    """A name for a structured-output schema or forced tool that both providers accept (``[a-zA-Z0-9_-]{1,64}``)."""
    title = name or schema.get("title") or "structured_output"
    return _NAME_UNSAFE.sub("_", str(title))[:64] or "structured_output"
