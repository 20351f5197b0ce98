"""`ChatModel` over OpenAI chat completions, through the official ``openai`` SDK.

Works with any OpenAI-compatible server (vLLM, Ollama, llama.cpp) given its
base URL. The SDK is imported when the adapter is constructed, never at module
import, so ``import contextfold.models`` stays cheap; retries of rate limits and
5xx are the SDK's own (``max_retries``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from contextfold._errors import ConfigError, MissingExtraError
from contextfold._formats import messages_to_openai, openai_to_messages, tools_to_openai
from contextfold._messages import Message, ThinkingBlock, ToolSpec
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
    import openai

__all__ = ["OpenAIChatModel"]

_STOP: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filter",
}
_NO_KEY = "unused"  # local OpenAI-compatible servers take any key; the SDK insists on one


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise MissingExtraError("OpenAIChatModel", "openai", "openai") from exc
    return openai


class OpenAIChatModel:
    """A chat model served by the OpenAI chat-completions API or a compatible server.

    ``api_key`` and ``base_url`` default to ``OPENAI_API_KEY`` and
    ``OPENAI_BASE_URL`` (read from ``env``, default ``os.environ``). With a
    base URL and no key, a placeholder key is sent, since local servers ignore
    it. ``options`` are extra request fields (``temperature``,
    ``reasoning_effort``, ...) merged into every call. The instance is also a
    `contextfold.SummaryModel`: calling it with messages and a JSON schema
    returns the object the model produced under structured output.
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 2,
        timeout: float | None = None,
        max_tokens: int | None = None,
        options: Mapping[str, Any] | None = None,
        stream_usage: bool = True,
        client: openai.AsyncOpenAI | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not model:
            raise ConfigError("OpenAIChatModel needs a model name")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be 0 or more, got {max_retries}")
        sdk = _import_openai()
        self.model = model
        self.max_tokens = max_tokens
        self.options: dict[str, Any] = dict(options or {})
        self.stream_usage = stream_usage
        self._error_type: type[openai.OpenAIError] = sdk.OpenAIError
        self._connection_error: type[openai.APIConnectionError] = sdk.APIConnectionError
        if client is None:
            environ = os.environ if env is None else env
            base_url = base_url or environ.get("OPENAI_BASE_URL") or None
            api_key = api_key or environ.get("OPENAI_API_KEY") or None
            if api_key is None:
                if base_url is None:
                    raise ConfigError(
                        "OpenAIChatModel needs an API key: pass api_key= or set OPENAI_API_KEY "
                        "(or give base_url= for a local OpenAI-compatible server)"
                    )
                api_key = _NO_KEY
            kwargs: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "max_retries": max_retries}
            if timeout is not None:
                kwargs["timeout"] = timeout
            client = cast("openai.AsyncOpenAI", sdk.AsyncOpenAI(**kwargs))
        self.client: openai.AsyncOpenAI = client

    # -- lifecycle ---------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections."""
        await self.client.close()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model!r}, base_url={str(self.client.base_url)!r})"

    # -- ChatModel ---------------------------------------------------------------------------------

    def build_request(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> dict[str, Any]:
        """The request body sent to ``chat.completions.create`` (without streaming flags)."""
        request: dict[str, Any] = {"model": self.model, "messages": messages_to_openai(messages)}
        if tools:
            request["tools"] = tools_to_openai(tools)
        if self.max_tokens is not None:
            request["max_completion_tokens"] = self.max_tokens
        request.update(self.options)
        return request

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] = (),
        stream: StreamHandler | None = None,
    ) -> ModelResponse:
        """One chat completion; with ``stream``, text deltas are delivered as they arrive."""
        request = self.build_request(messages, tools)
        try:
            if stream is None:
                completion = await self._create(request)
                return self._from_completion(completion)
            return await self._complete_streaming(request, stream)
        except self._error_type as exc:
            raise self._translate(exc) from exc

    async def _create(self, request: Mapping[str, Any], *, stream: bool = False) -> Any:
        """Send a body that is already in wire format.

        The body goes through ``extra_body`` (documented as taking precedence)
        because the SDK otherwise re-walks every message against its TypedDicts,
        which costs tens of milliseconds per call on a few hundred messages
        (see ``benchmarks/results/models.md``); our dicts need no transformation.
        """
        body = dict(request)
        model = body.pop("model")
        completions: Any = self.client.chat.completions
        if stream:
            return await completions.create(model=model, messages=[], stream=True, extra_body=body)
        return await completions.create(model=model, messages=[], extra_body=body)

    async def _complete_streaming(self, request: dict[str, Any], handler: StreamHandler) -> ModelResponse:
        if self.stream_usage:
            request = {**request, "stream_options": {"include_usage": True}}
        reply = _StreamedReply()
        finish: str | None = None
        usage: Any = None
        model: str | None = None
        response = await self._create(request, stream=True)
        try:
            async for chunk in response:
                model = getattr(chunk, "model", None) or model
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or ():
                    if choice.index != 0:
                        continue
                    if choice.delta is not None:
                        piece = reply.add(choice.delta)
                        if piece:
                            await emit_delta(handler, piece)
                    if choice.finish_reason:
                        finish = choice.finish_reason
        finally:
            await response.close()
        return self._response(reply.message(), "".join(reply.reasoning), finish, _usage(usage), model)

    def _from_completion(self, completion: Any) -> ModelResponse:
        if not completion.choices:
            raise ModelError(f"OpenAI model {self.model}: the response has no choices", provider=self.provider)
        choice = completion.choices[0]
        message = choice.message
        raw: dict[str, Any] = {"role": "assistant", "content": message.content}
        if isinstance(getattr(message, "refusal", None), str):
            raw["refusal"] = message.refusal
        if message.tool_calls:
            raw["tool_calls"] = [_call_dict(call) for call in message.tool_calls]
        usage = _usage(getattr(completion, "usage", None))
        return self._response(raw, _reasoning_of(message), choice.finish_reason, usage, completion.model)

    def _response(
        self, raw: dict[str, Any], reasoning: str | None, finish: str | None, usage: Usage, model: str | None
    ) -> ModelResponse:
        message = openai_to_messages([raw])[0]
        if reasoning:
            # Chat completions has no field to send reasoning back, so it is kept
            # for the record (and counting) and dropped again when rendering.
            message = message.replace(content=(ThinkingBlock(thinking=reasoning), *message.content))
        stop: StopReason = _STOP.get(finish or "", "other")
        if message.tool_calls and stop == "end_turn":
            stop = "tool_use"  # some compatible servers say "stop" after tool calls
        return ModelResponse(message=message, usage=usage, stop_reason=stop, raw_stop_reason=finish, model=model)

    # -- SummaryModel ------------------------------------------------------------------------------

    async def structured(
        self, messages: Sequence[Message], schema: Mapping[str, Any], *, name: str | None = None
    ) -> dict[str, Any]:
        """Ask for an object matching ``schema`` with JSON-schema structured output and return it parsed."""
        request = self.build_request(messages)
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name(name, schema), "schema": dict(schema), "strict": is_strict(schema)},
        }
        try:
            completion = await self._create(request)
        except self._error_type as exc:
            raise self._translate(exc) from exc
        if not completion.choices:
            raise ModelError(f"OpenAI model {self.model}: the response has no choices", provider=self.provider)
        message = completion.choices[0].message
        if isinstance(getattr(message, "refusal", None), str) and message.refusal:
            raise ModelError(f"OpenAI model {self.model} refused: {message.refusal}", provider=self.provider)
        return _parse_object(message.content or "", f"OpenAI model {self.model}", self.provider)

    async def __call__(self, messages: Sequence[Message], schema: Mapping[str, Any]) -> dict[str, Any]:
        """`SummaryModel` entry point: `structured` with the schema's own name."""
        return await self.structured(messages, schema)

    # -- errors ------------------------------------------------------------------------------------

    def _translate(self, exc: openai.OpenAIError) -> ModelError:
        status: int | None = getattr(exc, "status_code", None)
        code = getattr(exc, "code", None)
        detail = getattr(exc, "message", None) or str(exc)
        client_side = status is None or (400 <= status < 500 and status != 429)  # never a rate limit or 5xx
        if (
            client_side
            and not isinstance(exc, self._connection_error)
            and looks_like_context_length(code if isinstance(code, str) else None, detail)
        ):
            return ContextLengthExceeded(
                f"OpenAI model {self.model}: the prompt exceeds the model's context length ({detail})",
                provider=self.provider,
                status_code=status,
            )
        where = f" (HTTP {status})" if status is not None else ""
        return ModelError(
            f"OpenAI model {self.model} failed{where}: {type(exc).__name__}: {detail}",
            provider=self.provider,
            status_code=status,
        )


def _call_dict(call: Any) -> dict[str, Any]:
    function = getattr(call, "function", None)
    if function is None:  # a custom (free-form) tool call
        custom = call.custom
        return {"id": call.id, "type": "custom", "custom": {"name": custom.name, "input": custom.input}}
    return {"id": call.id, "type": "function", "function": {"name": function.name, "arguments": function.arguments}}


class _StreamedReply:
    """The deltas of choice 0 of a streamed chat completion, joined into a message dict at the end."""

    __slots__ = ("calls", "reasoning", "refusal", "text")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}

    def add(self, delta: Any) -> str | None:
        """Take one delta in; returns its text, for the stream handler."""
        if delta.content:
            self.text.append(delta.content)
        if getattr(delta, "refusal", None):
            self.refusal.append(delta.refusal)
        piece = _reasoning_of(delta)
        if piece:
            self.reasoning.append(piece)
        for call in delta.tool_calls or ():  # a call's name and arguments come in pieces, by its index
            slot = self.calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
            if call.id and not slot["id"]:
                slot["id"] = call.id
            if call.function is not None:
                slot["name"] += call.function.name or ""
                slot["arguments"] += call.function.arguments or ""
        return delta.content or None

    def message(self) -> dict[str, Any]:
        """The assistant message the deltas make, as a chat-completions message dict."""
        raw: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if self.refusal:
            raw["refusal"] = "".join(self.refusal)
        if self.calls:
            raw["tool_calls"] = [
                {
                    "id": slot["id"] or f"call_{index}",
                    "type": "function",
                    "function": {"name": slot["name"], "arguments": slot["arguments"]},
                }
                for index, slot in sorted(self.calls.items())
            ]
        return raw


def _reasoning_of(obj: Any) -> str | None:
    """Reasoning text from compatible servers: vLLM/DeepSeek ``reasoning_content``, Ollama ``reasoning``."""
    for key in ("reasoning_content", "reasoning"):
        value = getattr(obj, key, None)
        if isinstance(value, str) and value:
            return value
    return None


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    return Usage(
        prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
        completion_tokens=getattr(usage, "completion_tokens", None) or 0,
        cache_read_tokens=getattr(prompt_details, "cached_tokens", None) or 0,
        reasoning_tokens=getattr(completion_details, "reasoning_tokens", None) or 0,
    )


def is_strict(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts ``schema``: every object closed, every property required."""
    if isinstance(schema, Mapping):
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            if schema.get("additionalProperties") is not False:
                return False
            if set(schema.get("required") or ()) != set(properties):
                return False
        elif schema.get("type") == "object" and schema.get("additionalProperties") is not False:
            return False
        return all(is_strict(value) for key, value in schema.items() if key not in ("required", "enum", "const"))
    if isinstance(schema, list):
        return all(is_strict(item) for item in schema)
    return True


def _parse_object(content: str, who: str, provider: str) -> dict[str, Any]:
    try:
        value = json.loads(content)
    except ValueError as exc:
        raise ModelError(f"{who} returned text that is not JSON: {content[:200]!r}", provider=provider) from exc
    if not isinstance(value, dict):
        raise ModelError(f"{who} returned JSON that is not an object: {content[:200]!r}", provider=provider)
    return value
