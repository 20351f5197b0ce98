"""contextfold inside pydantic-ai: a history processor, a capability, and the read-back tools as a toolset.

pydantic-ai v2 runs history processors as capabilities (``history_processors=`` was removed in v2):
``Agent(..., capabilities=[ProcessHistory(history)])`` with a `ContextfoldHistory` (its ``__call__`` is the
async form, ``history.sync`` the plain-function form), or the all-in-one `ContextfoldCapability`, which
also offers ``read_offloaded``/``search_offloaded`` as tools and counts the tool definitions of each request
against the window. The processor's answer becomes the run's history (``ProcessHistory`` writes it back),
so a compaction happens once and later requests extend it; an oversized tool return is split the first
time the processor sees it (the rest offloaded to the workspace, a notice saying where) and the
history keeps the cut version. Runtime hints go in as a ``UserPromptPart`` holding the
``<system-reminder>`` text, in the last ``ModelRequest``.

`messages_from_pydantic_ai` and `messages_to_pydantic_ai` map pydantic-ai messages to contextfold's and
back. What contextfold has no field for (timestamps, part ids, provider details, usage, structured tool
returns and dict arguments, parts it does not know) rides in ``meta["pydantic_ai"]`` as pydantic-ai's own
JSON form, so the round trip gives back the same messages (equal JSON dumps).

Imports pydantic-ai when this module is imported; without it the import raises `MissingExtraError`
naming ``pip install 'contextfold[pydantic-ai]'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._errors import InputError
from contextfold._formats._common import parse_user_text, render_hint
from contextfold._messages import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    freeze_meta,
)
from contextfold._runtime._hints import Clock, HintConfig
from contextfold._tokens._counting import TokenCounter
from contextfold._workspace._offload import Offloader
from contextfold._workspace._readback import ReadableWorkspace, bind_readback_tools
from contextfold.adapters._common import fingerprint, json_text, missing_extra, plain_json
from contextfold.adapters._mirror import ContextSettings, Mirror, MirrorUpdate, run_sync
from contextfold.compaction._plan import CompactionStrategy, PlanFunction

try:
    from pydantic_ai import messages as _pm
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse
    from pydantic_ai.tools import RunContext, Tool
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the package
    raise missing_extra("contextfold.adapters.pydantic_ai", "pydantic-ai", "pydantic-ai-slim", exc) from exc

__all__ = [
    "META_KEY",
    "ContextfoldCapability",
    "ContextfoldHistory",
    "messages_from_pydantic_ai",
    "messages_to_pydantic_ai",
    "readback_toolset",
]

META_KEY = "pydantic_ai"
"""The ``meta`` key under which a message or block carries what contextfold has no field for."""

_ERROR_OUTCOMES = frozenset(getattr(_pm, "ERROR_OUTCOMES", ("failed", "denied")))


# --- pydantic-ai -> contextfold ------------------------------------------------------------------------------------


def _dump(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], ModelMessagesTypeAdapter.dump_python(list(messages), mode="json"))


def _meta(part: Mapping[str, Any], *drop: str, **extra: Any) -> Mapping[str, Any]:
    residual = {k: v for k, v in part.items() if k not in drop}
    residual.update(extra)
    return freeze_meta({META_KEY: residual})


def _answers_a_call(d: Mapping[str, Any]) -> bool:
    """A request part that answers a tool call (a return, a retry of a call, a tool-search return, ...)."""
    if d["part_kind"] == "retry-prompt":
        return d.get("tool_name") is not None
    return isinstance(d.get("tool_call_id"), str)


def _makes_a_call(d: Mapping[str, Any]) -> bool:
    """A response part that calls a tool answered in the next request (not a provider's built-in tool)."""
    kind = str(d["part_kind"])
    return isinstance(d.get("tool_call_id"), str) and not kind.startswith("builtin") and kind.endswith("call")


def _tool_result(part: Any, dumped: dict[str, Any]) -> ToolResultBlock:
    kind = dumped["part_kind"]
    if kind == "retry-prompt":
        text = part.model_response()
        is_error = True
    elif hasattr(part, "model_response_str"):
        text = part.model_response_str()
        is_error = getattr(part, "outcome", "success") in _ERROR_OUTCOMES
    else:
        content = dumped.get("content")
        text = content if isinstance(content, str) else json_text(content)
        is_error = False
    drop: list[str] = ["tool_call_id"]
    extra: dict[str, Any] = {}
    if isinstance(dumped.get("tool_name"), str):
        drop.append("tool_name")
    if isinstance(dumped.get("content"), str) and dumped["content"] == text and kind == "tool-return":
        drop.append("content")
    else:
        extra["fp"] = fingerprint(text)
    return ToolResultBlock(
        call_id=dumped["tool_call_id"],
        content=(TextBlock(text=text),),
        is_error=is_error,
        name=dumped.get("tool_name"),
        meta=_meta(dumped, *drop, **extra),
    )


def _user_blocks(dumped: dict[str, Any]) -> tuple[Block, ...]:
    content = dumped["content"]
    if isinstance(content, str):
        return (parse_user_text(content, _meta(dumped, "content")),)
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(TextBlock(text=item))
        else:
            blocks.append(_data_block(item))
    if not blocks:
        blocks.append(TextBlock(text=""))
    first = blocks[0]
    head = _meta(dumped, "content", n=len(content))
    if isinstance(first, TextBlock):
        blocks[0] = TextBlock(text=first.text, meta=head)
    else:
        assert isinstance(first, DataBlock)
        meta = {**head[META_KEY], "item": first.meta[META_KEY]["item"]}
        blocks[0] = DataBlock(
            media=first.media, media_type=first.media_type, url=first.url, data=first.data, meta={META_KEY: meta}
        )
    return tuple(blocks)


_MEDIA_KINDS: dict[str, Literal["image", "audio", "document"]] = {
    "image-url": "image",
    "audio-url": "audio",
    "document-url": "document",
    "video-url": "document",
}


def _data_block(item: dict[str, Any]) -> DataBlock:
    """A media item of a user prompt: counted as media; its own JSON rides along for the way back."""
    kind = str(item.get("kind", ""))
    media_type = item.get("media_type")
    if kind == "binary" or "data" in item:
        media: Literal["image", "audio", "document"] = "document"
        if isinstance(media_type, str) and media_type.split("/", 1)[0] in ("image", "audio"):
            media = cast(Literal["image", "audio"], media_type.split("/", 1)[0])
        return DataBlock(
            media=media, media_type=media_type, data=str(item.get("data", "")), meta={META_KEY: {"item": item}}
        )
    url = item.get("url")
    return DataBlock(
        media=_MEDIA_KINDS.get(kind, "document"),
        media_type=media_type if isinstance(media_type, str) else None,
        url=url if isinstance(url, str) and url else "about:blank",
        meta={META_KEY: {"item": item}},
    )


def _request_messages(request: ModelRequest, dumped: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    results: list[ToolResultBlock] = []

    def flush() -> None:
        if results:
            out.append(Message(role="tool", content=tuple(results)))
            results.clear()

    for part, d in zip(request.parts, dumped["parts"], strict=True):
        kind = d["part_kind"]
        if _answers_a_call(d):
            results.append(_tool_result(part, d))
            continue
        flush()
        if kind == "system-prompt":
            out.append(Message(role="system", content=(TextBlock(text=d["content"], meta=_meta(d, "content")),)))
        elif kind == "user-prompt":
            out.append(Message(role="user", content=_user_blocks(d)))
        elif kind == "retry-prompt":
            text = cast(Any, part).model_response()
            out.append(Message(role="user", content=(TextBlock(text=text, meta=_meta(d, fp=fingerprint(text))),)))
        else:  # a part contextfold does not know: carried whole, counted as nothing
            out.append(Message(role="user", content=(TextBlock(text="", meta=_meta(d, opaque=True)),)))
    flush()
    fields = {k: v for k, v in dumped.items() if k != "parts"}
    if not out:
        return [Message(role="user", content=(), meta={META_KEY: {"message": fields}})]
    out[0] = out[0].replace(meta={META_KEY: {"message": fields}})
    return out


def _response_message(response: ModelResponse, dumped: dict[str, Any]) -> Message:
    blocks: list[Block] = []
    for d in dumped["parts"]:
        kind = d["part_kind"]
        if kind == "text":
            blocks.append(TextBlock(text=d["content"], meta=_meta(d, "content")))
        elif kind == "thinking":
            meta = _meta(d, "content", "signature")
            blocks.append(ThinkingBlock(thinking=d["content"], signature=d.get("signature"), meta=meta))
        elif _makes_a_call(d):
            args = d.get("args")
            if isinstance(args, str):
                blocks.append(
                    ToolCallBlock(
                        id=d["tool_call_id"],
                        name=d["tool_name"],
                        arguments=args,
                        meta=_meta(d, "args", "tool_name", "tool_call_id"),
                    )
                )
            else:
                text = json_text(args) if args is not None else "{}"
                blocks.append(
                    ToolCallBlock(
                        id=d["tool_call_id"],
                        name=d["tool_name"],
                        arguments=text,
                        meta=_meta(d, "tool_name", "tool_call_id", fp=fingerprint(text)),
                    )
                )
        else:
            blocks.append(TextBlock(text="", meta=_meta(d, opaque=True)))
    fields = {k: v for k, v in dumped.items() if k != "parts"}
    return Message(role="assistant", content=tuple(blocks), meta={META_KEY: {"message": fields}})


def messages_from_pydantic_ai(messages: Sequence[ModelMessage]) -> list[Message]:
    """pydantic-ai messages as contextfold messages (a ``ModelRequest`` may give several: system, user, tool)."""
    out: list[Message] = []
    for message, dumped in zip(messages, _dump(messages), strict=True):
        if isinstance(message, ModelResponse):
            out.append(_response_message(message, dumped))
        else:
            out.extend(_request_messages(message, dumped))
    return out


# --- contextfold -> pydantic-ai ------------------------------------------------------------------------------------


def _residual(block: Block | Message) -> dict[str, Any] | None:
    carried = block.meta.get(META_KEY)
    if not isinstance(carried, Mapping):
        return None
    return cast(dict[str, Any], plain_json(carried))


def _tool_part(block: ToolResultBlock) -> dict[str, Any]:
    text = block.text
    residual = _residual(block)
    if residual is None:
        return {
            "part_kind": "tool-return",
            "tool_name": block.name or "unknown",
            "tool_call_id": block.call_id,
            "content": text,
            "outcome": "failed" if block.is_error else "success",
        }
    fp = residual.pop("fp", None)
    if fp is None or fp != fingerprint(text):
        residual["content"] = text  # the text changed (split, cleared): it is what goes back
        if residual.get("part_kind") not in ("tool-return", None):
            outcome = "failed" if block.is_error else "success"
            residual = {**residual, "part_kind": "tool-return", "outcome": outcome}
    if block.name is not None:
        residual["tool_name"] = block.name
    residual.setdefault("tool_name", "unknown")
    residual["tool_call_id"] = block.call_id
    return residual


def _media_item(block: DataBlock) -> Any:
    residual = _residual(block)
    if residual is not None and "item" in residual:
        return residual["item"]
    if block.data is not None:
        return {"kind": "binary", "data": block.data, "media_type": block.media_type or "application/octet-stream"}
    kind = {"image": "image-url", "audio": "audio-url", "document": "document-url"}[block.media]
    return {"kind": kind, "url": block.url or block.path or ""}


def _user_item(block: TextBlock | HintBlock | DataBlock) -> Any:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, HintBlock):
        return render_hint(block.text)
    return _media_item(block)


def _request_parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if message.role == "tool":
        return [_tool_part(b) for b in message.content if isinstance(b, ToolResultBlock)]
    blocks = list(message.content)
    i = 0
    while i < len(blocks):
        block = blocks[i]
        residual = _residual(block) if not isinstance(block, ToolResultBlock) else None
        if residual is not None and residual.get("opaque"):
            part = {k: v for k, v in residual.items() if k != "opaque"}
            parts.append(part)
            i += 1
            continue
        if message.role == "system":
            text = block.text if isinstance(block, TextBlock | HintBlock) else ""
            parts.append({**(residual or {}), "part_kind": "system-prompt", "content": text})
            i += 1
            continue
        if residual is not None and residual.get("part_kind") == "retry-prompt":
            fp = residual.pop("fp", None)
            text = block.text if isinstance(block, TextBlock) else ""
            if fp != fingerprint(text):
                residual = {"part_kind": "user-prompt", "content": text}
            parts.append(residual)
            i += 1
            continue
        count = residual.pop("n", None) if residual is not None else None
        if count is not None:  # a list content: ``count`` items from here
            items = [_user_item(b) for b in blocks[i : i + count] if isinstance(b, TextBlock | HintBlock | DataBlock)]
            part = {k: v for k, v in (residual or {}).items() if k != "item"}
            parts.append({**part, "part_kind": "user-prompt", "content": items})
            i += max(1, count)
            continue
        if isinstance(block, DataBlock):
            parts.append({"part_kind": "user-prompt", "content": [_media_item(block)]})
        elif isinstance(block, HintBlock):
            parts.append({**(residual or {}), "part_kind": "user-prompt", "content": render_hint(block.text)})
        elif isinstance(block, TextBlock):
            parts.append({**(residual or {}), "part_kind": "user-prompt", "content": block.text})
        elif isinstance(block, ToolResultBlock):
            parts.append(_tool_part(block))
        i += 1
    return parts


def _response_parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in message.content:
        residual = _residual(block) or {}
        if residual.get("opaque"):
            parts.append({k: v for k, v in residual.items() if k != "opaque"})
        elif isinstance(block, TextBlock | HintBlock):
            parts.append({**residual, "part_kind": "text", "content": block.text})
        elif isinstance(block, ThinkingBlock):
            parts.append({**residual, "part_kind": "thinking", "content": block.thinking, "signature": block.signature})
        elif isinstance(block, RedactedThinkingBlock):
            details = {"redacted_thinking": block.data}
            parts.append({"part_kind": "thinking", "content": "", "provider_details": details})
        elif isinstance(block, ToolCallBlock):
            fp = residual.pop("fp", None)
            if fp is None or fp != fingerprint(block.arguments):
                residual["args"] = block.arguments
            parts.append({"part_kind": "tool-call", **residual, "tool_name": block.name, "tool_call_id": block.id})
        elif isinstance(block, DataBlock):
            raise InputError("an assistant message with a media block has no pydantic-ai form")
    return parts


def _dicts(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    request: dict[str, Any] | None = None
    for message in messages:
        carried = _residual(message)
        fields = carried.get("message") if carried is not None else None
        if message.role == "assistant":
            request = None
            out.append({**(fields or {}), "kind": "response", "parts": _response_parts(message)})
            continue
        if fields is not None or request is None:
            request = {**(fields or {}), "kind": "request", "parts": []}
            out.append(request)
        request["parts"].extend(_request_parts(message))
    return out


def messages_to_pydantic_ai(messages: Sequence[Message]) -> list[ModelMessage]:
    """Canonical messages as pydantic-ai messages (the inverse of `messages_from_pydantic_ai`).

    Consecutive non-assistant messages become the parts of one ``ModelRequest`` (a new one starts where a
    pydantic-ai request started); a message contextfold wrote (a summary, a hint) joins the request before it.
    """
    return list(ModelMessagesTypeAdapter.validate_python(_dicts(messages)))


# --- the processor and the capability ------------------------------------------------------------------------------


class ContextfoldHistory:
    """A pydantic-ai history processor that keeps the run inside the window (see the module docstring).

    ``await history(messages)`` is the async form, ``history.sync(messages)`` the plain-function form; both
    go to ``ProcessHistory``. The keyword arguments are `Context`'s: give ``window`` (or a ``config``), and a
    ``workspace`` to offload oversized tool returns and archive what compaction removes.
    """

    def __init__(
        self,
        window: int | None = None,
        *,
        config: ContextConfig | None = None,
        counter: TokenCounter | None = None,
        strategy: CompactionStrategy | PlanFunction | None = None,
        workspace: Offloader | None = None,
        hints: HintConfig | Literal[False] | None = None,
        clock: Clock | None = None,
    ) -> None:
        settings = ContextSettings.of(
            window,
            config=config,
            counter=counter,
            strategy=strategy,
            workspace=workspace,
            hints=hints,
            clock=clock,
            owner="ContextfoldHistory",
        )
        self._mirror: Mirror[ModelMessage] = Mirror(settings, messages_from_pydantic_ai)
        self._cache: dict[int, tuple[Message, ModelMessage]] = {}
        self.last: MirrorUpdate[ModelMessage] | None = None
        """What the last call did (the prepared request, whether it compacted, what it offloaded)."""

    @property
    def context(self) -> Context:
        """The `Context` that mirrors the run's history."""
        return self._mirror.context

    @property
    def settings(self) -> ContextSettings:
        return self._mirror.settings

    def set_tools(self, tools: Sequence[ToolSpec]) -> None:
        """Count these tool definitions against the window (a change costs the prompt cache, as on the wire)."""
        if tuple(tools) != self.context.tools:
            self.context.set_tools(tools)

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The history to send: compacted when over the trigger, new tool returns split, a hint at the end."""
        update = await self._mirror.update(messages)
        self.last = update
        out = self._to_pydantic_ai(update.prepared.messages)
        self._mirror.remember_sent(out)
        return out

    def sync(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The plain-function form of the processor (pydantic-ai runs it on a worker thread)."""
        return run_sync(self(messages))

    def _to_pydantic_ai(self, messages: Sequence[Message]) -> list[ModelMessage]:
        # A message mapped before maps to the same object: the history the run keeps is then the same
        # objects, call after call, and nothing is validated twice. Grouping needs whole requests, so
        # only assistant messages and single-message requests are cached.
        out: list[ModelMessage] = []
        cache: dict[int, tuple[Message, ModelMessage]] = {}
        pending: list[Message] = []

        def flush() -> None:
            if not pending:
                return
            if len(pending) == 1:
                hit = self._cache.get(id(pending[0]))
                if hit is not None and hit[0] is pending[0]:
                    out.append(hit[1])
                    cache[id(pending[0])] = hit
                    pending.clear()
                    return
            built = messages_to_pydantic_ai(pending)
            if len(pending) == 1 and len(built) == 1:
                cache[id(pending[0])] = (pending[0], built[0])
            out.extend(built)
            pending.clear()

        for message in messages:
            carried = _residual(message)
            starts = message.role == "assistant" or (carried is not None and "message" in carried)
            if starts:
                flush()
            if message.role == "assistant":
                hit = self._cache.get(id(message))
                if hit is not None and hit[0] is message:
                    out.append(hit[1])
                    cache[id(message)] = hit
                    continue
                built = messages_to_pydantic_ai([message])
                cache[id(message)] = (message, built[0])
                out.extend(built)
                continue
            pending.append(message)
        flush()
        self._cache = cache
        return out


def readback_toolset(workspace: ReadableWorkspace, *, max_tokens: int, counter: TokenCounter | None = None) -> Any:
    """``read_offloaded`` and ``search_offloaded`` over ``workspace`` as a pydantic-ai ``FunctionToolset``.

    ``max_tokens`` caps each output (the adapter's ``settings.readback_limit``: the tool-result limit less the
    message around it, so a read-back output is never split again). Bad paths and patterns come back as
    ``Error: ...`` text the model can act on.
    """
    bound = bind_readback_tools(workspace, max_tokens=max_tokens, counter=counter)
    read_spec, search_spec = bound.specs

    def read_offloaded(path: str, offset: int = 0, limit: int = 200, column: int = 0) -> str:
        return bound.read_offloaded(path, offset, limit, column)

    def search_offloaded(pattern: str, regex: bool = False, ignore_case: bool = False, max_results: int = 50) -> str:
        return bound.search_offloaded(pattern, regex, ignore_case, max_results)

    tools = [
        Tool(read_offloaded, name=read_spec.name, description=read_spec.description, takes_ctx=False),
        Tool(search_offloaded, name=search_spec.name, description=search_spec.description, takes_ctx=False),
    ]
    return FunctionToolset(tools)


@dataclass(init=False)
class ContextfoldCapability(AbstractCapability[Any]):
    """contextfold as one pydantic-ai capability.

    It runs `ContextfoldHistory` before every model request (counting the request's tool definitions
    against the window) and offers the read-back tools when the workspace can be read back.
    ``Agent(model, capabilities=[ContextfoldCapability(window=32_000, workspace=LocalWorkspace(root))])``.
    """

    history: ContextfoldHistory

    def __init__(
        self,
        window: int | None = None,
        *,
        config: ContextConfig | None = None,
        counter: TokenCounter | None = None,
        strategy: CompactionStrategy | PlanFunction | None = None,
        workspace: Offloader | None = None,
        hints: HintConfig | Literal[False] | None = None,
        clock: Clock | None = None,
        readback: bool = True,
        id: str | None = None,
    ) -> None:
        self.id = id
        self.description = None
        self.defer_loading = False
        self.history = ContextfoldHistory(
            window, config=config, counter=counter, strategy=strategy, workspace=workspace, hints=hints, clock=clock
        )
        self._toolset: Any = None
        if readback and workspace is not None and hasattr(workspace, "resolve") and hasattr(workspace, "items"):
            settings = self.history.settings
            self._toolset = readback_toolset(
                cast(ReadableWorkspace, workspace), max_tokens=settings.readback_limit, counter=settings.counter
            )

    @property
    def context(self) -> Context:
        """The `Context` that mirrors the run's history."""
        return self.history.context

    def get_toolset(self) -> Any:
        """The read-back tools (``None`` without a readable workspace)."""
        return self._toolset

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not spec-serializable (it holds a live context)."""
        return None

    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        """Count the request's tools, then process the history; the result persists as the run's history."""
        params = getattr(request_context, "model_request_parameters", None)
        if params is not None:
            definitions = [*getattr(params, "function_tools", ()), *getattr(params, "output_tools", ())]
            self.history.set_tools(
                [
                    ToolSpec(name=d.name, description=d.description or "", parameters=d.parameters_json_schema)
                    for d in definitions
                ]
            )
        messages = await self.history(list(request_context.messages))
        request_context.messages = list(messages)
        ctx.messages[:] = messages
        return request_context
