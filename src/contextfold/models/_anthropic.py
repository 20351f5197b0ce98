"""`ChatModel` over the Anthropic messages API, through the official ``anthropic`` SDK.

Thinking blocks come back with their signatures and are sent back untouched:
the canonical `ThinkingBlock` keeps the exact text and signature, and the
format layer renders them as they were. The SDK is imported when the adapter is
constructed; retries of rate limits, overload and 5xx are the SDK's own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from contextfold._errors import ConfigError, MissingExtraError
from contextfold._formats import anthropic_to_messages, messages_to_anthropic, tools_to_anthropic
from contextfold._messages import Message, ToolSpec
from contextfold.models._base import (
    ContextLengthExceeded,
    ModelError,
    ModelResponse,
    StopReason,
    StreamHandler,
    Usage,
    emit_delta,
    looks_like_context_length,
    schema_name,
)

if TYPE_CHECKING:
    import anthropic

__all__ = ["AnthropicChatModel"]

_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "content_filter",
}
_NO_KEY = "unused"  # a local server speaking the messages API may need no key; the SDK insists on one


def _import_anthropic() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise MissingExtraError("AnthropicChatModel", "anthropic", "anthropic") from exc
    return anthropic


class AnthropicChatModel:
    """A chat model served by the Anthropic messages API (or a server speaking it).

    ``api_key`` and ``base_url`` default to ``ANTHROPIC_API_KEY`` and
    ``ANTHROPIC_BASE_URL`` (read from ``env``, default ``os.environ``); without
    a key the SDK's own credential chain applies (and with only a base URL, a
    placeholder key is sent, as local servers ignore it). ``max_tokens`` is required by
    the API (keep it modest for non-streaming calls: the SDK refuses very large
    ones without streaming). ``thinking`` is passed as is (e.g.
    ``{"type": "enabled", "budget_tokens": 2048}``); ``options`` are extra
    request fields merged into every call. The instance is also a
    `contextfold.SummaryModel` that answers through a forced tool call.
    """

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout: float | None = None,
        max_tokens: int = 4096,
        thinking: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        client: anthropic.AsyncAnthropic | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not model:
            raise ConfigError("AnthropicChatModel needs a model name")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be 0 or more, got {max_retries}")
        if max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {max_tokens}")
        sdk = _import_anthropic()
        self.model = model
        self.max_tokens = max_tokens
        self.thinking: dict[str, Any] | None = dict(thinking) if thinking else None
        self.options: dict[str, Any] = dict(options or {})
        self._error_type: type[anthropic.AnthropicError] = sdk.AnthropicError
        self._connection_error: type[anthropic.APIConnectionError] = sdk.APIConnectionError
        if client is None:
            environ = os.environ if env is None else env
            kwargs: dict[str, Any] = {"max_retries": max_retries}
            base_url = base_url or environ.get("ANTHROPIC_BASE_URL") or None
            api_key = api_key or environ.get("ANTHROPIC_API_KEY") or None
            if api_key is None and base_url is not None and not environ.get("ANTHROPIC_AUTH_TOKEN"):
                api_key = _NO_KEY
            if base_url is not None:
                kwargs["base_url"] = base_url
            if api_key is not None:
                kwargs["api_key"] = api_key
            if timeout is not None:
                kwargs["timeout"] = timeout
            no_key = (
                "AnthropicChatModel needs an API key: pass api_key= or set ANTHROPIC_API_KEY "
                "(or give base_url= for a local server that speaks the messages API)"
            )
            try:
                client = cast("anthropic.AsyncAnthropic", sdk.AsyncAnthropic(**kwargs))
            except sdk.AnthropicError as exc:  # the SDK's own credential chain (profiles) failed
                raise ConfigError(f"{no_key}; the SDK said: {exc}") from exc
            if not any(getattr(client, name, None) for name in ("api_key", "auth_token", "credentials")):
                raise ConfigError(no_key)
        self.client: anthropic.AsyncAnthropic = client

    # -- lifecycle ---------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections."""
        await self.client.close()

    async def __aenter__(self) -> AnthropicChatModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AnthropicChatModel({self.model!r}, base_url={str(self.client.base_url)!r})"

    # -- ChatModel ---------------------------------------------------------------------------------

    def build_request(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *, thinking: bool = True
    ) -> dict[str, Any]:
        """The keyword arguments sent to ``messages.create`` (without the streaming flag)."""
        system, rendered = messages_to_anthropic(messages)
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": rendered}
        if system:
            request["system"] = system
        if tools:
            request["tools"] = tools_to_anthropic(tools)
        if thinking and self.thinking is not None:
            request["thinking"] = self.thinking
        request.update(self.options)
        return request

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] = (),
        stream: StreamHandler | None = None,
    ) -> ModelResponse:
        """One messages call; with ``stream``, text deltas are delivered as they arrive."""
        request = self.build_request(messages, tools)
        api: Any = self.client.messages
        try:
            if stream is None:
                response = await api.create(**request)
                blocks = [_dump(block) for block in response.content]
                usage = _usage(response.usage)
                return self._response(blocks, response.stop_reason, usage, response.model)
            return await self._complete_streaming(api, request, stream)
        except self._error_type as exc:
            raise self._translate(exc) from exc

    async def _complete_streaming(self, api: Any, request: dict[str, Any], handler: StreamHandler) -> ModelResponse:
        blocks: dict[int, dict[str, Any]] = {}
        partial_json: dict[int, list[str]] = {}
        usage: dict[str, int] = {}
        stop: str | None = None
        model: str | None = None
        events = await api.create(**request, stream=True)
        try:
            async for event in events:
                kind = event.type
                if kind == "message_start":
                    model = event.message.model
                    _merge_usage(usage, event.message.usage)
                elif kind == "content_block_start":
                    block = _dump(event.content_block)
                    blocks[event.index] = block
                    if "input" in block:
                        partial_json[event.index] = []
                elif kind == "content_block_delta":
                    await self._apply_delta(blocks[event.index], partial_json.get(event.index), event.delta, handler)
                elif kind == "content_block_stop":
                    parts = partial_json.pop(event.index, None)
                    if parts:
                        blocks[event.index]["input"] = _parse_input("".join(parts))
                elif kind == "message_delta":
                    stop = event.delta.stop_reason or stop
                    _merge_usage(usage, event.usage)
        finally:
            await events.close()
        ordered = [blocks[i] for i in sorted(blocks)]
        return self._response(ordered, stop, _usage_from_dict(usage), model)

    @staticmethod
    async def _apply_delta(
        block: dict[str, Any], json_parts: list[str] | None, delta: Any, handler: StreamHandler
    ) -> None:
        match delta.type:
            case "text_delta":
                block["text"] = block.get("text", "") + delta.text
                await emit_delta(handler, delta.text)
            case "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta.thinking
            case "signature_delta":
                block["signature"] = delta.signature
            case "input_json_delta":
                if json_parts is not None:
                    json_parts.append(delta.partial_json)
            case "citations_delta":
                block.setdefault("citations", []).append(_dump(delta.citation))
            case _:
                pass  # a delta kind this SDK knows and we do not: the final block keeps what we have

    def _response(
        self, blocks: list[dict[str, Any]], stop_reason: str | None, usage: Usage, model: str | None
    ) -> ModelResponse:
        message = anthropic_to_messages([{"role": "assistant", "content": blocks}])[0]
        return ModelResponse(
            message=message,
            usage=usage,
            stop_reason=_STOP.get(stop_reason or "", "other"),
            raw_stop_reason=stop_reason,
            model=model,
        )

    # -- SummaryModel ------------------------------------------------------------------------------

    async def structured(
        self, messages: Sequence[Message], schema: Mapping[str, Any], *, name: str | None = None
    ) -> dict[str, Any]:
        """Ask for an object matching ``schema`` through a forced tool call and return the tool input."""
        tool = schema_name(name, schema)
        # Forced tool use is incompatible with extended thinking, so thinking is left out here.
        request = self.build_request(messages, thinking=False)
        request["tools"] = [
            {
                "name": tool,
                "description": "Record your answer: call this tool with an object matching its input schema.",
                "input_schema": dict(schema),
            }
        ]
        request["tool_choice"] = {"type": "tool", "name": tool}
        api: Any = self.client.messages
        try:
            response = await api.create(**request)
        except self._error_type as exc:
            raise self._translate(exc) from exc
        for block in response.content:
            if getattr(block, "type", None) == "tool_use" and block.name == tool:
                value = block.input
                if isinstance(value, dict):
                    return value
                raise ModelError(
                    f"Anthropic model {self.model}: tool input is not an object: {value!r:.200}",
                    provider=self.provider,
                )
        raise ModelError(
            f"Anthropic model {self.model} did not call the {tool} tool (stop reason {response.stop_reason})",
            provider=self.provider,
        )

    async def __call__(self, messages: Sequence[Message], schema: Mapping[str, Any]) -> dict[str, Any]:
        """`SummaryModel` entry point: `structured` with the schema's own name."""
        return await self.structured(messages, schema)

    # -- errors ------------------------------------------------------------------------------------

    def _translate(self, exc: anthropic.AnthropicError) -> ModelError:
        status: int | None = getattr(exc, "status_code", None)
        detail = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
        client_side = status is None or (400 <= status < 500 and status != 429)  # never a rate limit or 5xx
        if client_side and not isinstance(exc, self._connection_error) and looks_like_context_length(detail, str(exc)):
            return ContextLengthExceeded(
                f"Anthropic model {self.model}: the prompt exceeds the model's context length ({detail})",
                provider=self.provider,
                status_code=status,
            )
        where = f" (HTTP {status})" if status is not None else ""
        return ModelError(
            f"Anthropic model {self.model} failed{where}: {type(exc).__name__}: {detail}",
            provider=self.provider,
            status_code=status,
        )


def _dump(obj: Any) -> dict[str, Any]:
    """An SDK model as the wire dict (fields the server did not send left out)."""
    if isinstance(obj, dict):
        return dict(obj)
    return cast(dict[str, Any], obj.model_dump(mode="json", exclude_none=True))


def _parse_input(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        # Cut off (e.g. by max_tokens): keep the call, with what could be read; the stop reason says why.
        return {}


def _merge_usage(into: dict[str, int], usage: Any) -> None:
    if usage is None:
        return
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        value = getattr(usage, key, None)
        if isinstance(value, int):
            into[key] = value


def _usage(usage: Any) -> Usage:
    values: dict[str, int] = {}
    _merge_usage(values, usage)
    return _usage_from_dict(values)


def _usage_from_dict(values: Mapping[str, int]) -> Usage:
    cache_read = values.get("cache_read_input_tokens", 0)
    cache_write = values.get("cache_creation_input_tokens", 0)
    return Usage(
        prompt_tokens=values.get("input_tokens", 0) + cache_read + cache_write,
        completion_tokens=values.get("output_tokens", 0),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
    )
