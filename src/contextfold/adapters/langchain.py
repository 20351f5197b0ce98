"""contextfold inside LangChain v1: an ``AgentMiddleware`` for ``create_agent``, and the read-back tools.

`ContextfoldMiddleware` wraps every model call (``wrap_model_call`` and its async twin
``awrap_model_call``): it keeps a `Context` in step with the agent's ``messages``, sends what the context
prepared (compacted when over the trigger, oversized tool results split with the rest offloaded, a
runtime hint at the end), and leaves the agent's own ``messages`` whole. What it sent lives in the agent
state under ``contextfold`` (`ContextfoldState`): the context's messages as canonical JSON (the summary
that replaced the compacted prefix, the cut tool results, the hints), how many of the agent's messages it
has taken in, and what was offloaded. A checkpointer persists that state with the thread, so a resumed
thread, in this process or another, sends the same prompt prefix byte for byte and carries on from it.

`messages_from_langchain` and `messages_to_langchain` map LangChain messages to contextfold's and back.
What contextfold has no field for (message ids, ``additional_kwargs``, ``response_metadata``,
``usage_metadata``, content block lists with thinking signatures, ``artifact``, ``invalid_tool_calls``)
rides in ``meta["langchain"]`` as LangChain's own JSON form, so the round trip gives back equal messages.

Imports LangChain when this module is imported; without it the import raises `MissingExtraError` naming
``pip install 'contextfold[langchain]'``.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, cast

from contextfold._config import ContextConfig
from contextfold._context import Context
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
from contextfold._workspace._codec import message_from_dict, message_to_dict
from contextfold._workspace._offload import Offloader
from contextfold._workspace._readback import ReadableWorkspace, bind_readback_tools
from contextfold.adapters._common import fingerprint, json_text, missing_extra, plain_json
from contextfold.adapters._mirror import ContextSettings, Mirror, MirrorUpdate, run_sync
from contextfold.compaction._plan import CompactionStrategy, PlanFunction

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
    from langchain.agents.middleware.types import ExtendedModelResponse, OmitFromInput
    from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, messages_from_dict
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the package
    raise missing_extra("contextfold.adapters.langchain", "langchain", "langchain", exc) from exc

__all__ = [
    "META_KEY",
    "STATE_KEY",
    "ContextfoldMiddleware",
    "ContextfoldState",
    "messages_from_langchain",
    "messages_to_langchain",
    "readback_tools",
]

META_KEY = "langchain"
"""The ``meta`` key under which a message or block carries what contextfold has no field for."""
STATE_KEY = "contextfold"
"""The agent-state key of the middleware's saved state."""
_STATE_VERSION = 1
_CACHED_CONTEXTS = 8


class ContextfoldState(AgentState[Any]):
    """The agent state with the middleware's saved state (persisted by the checkpointer with the thread)."""

    contextfold: NotRequired[Annotated[dict[str, Any], OmitFromInput]]


# --- LangChain -> contextfold ----------------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for item in content or ():
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, Mapping) and item.get("type") == "text" and isinstance(item.get("text"), str):
            parts.append(item["text"])
    return "\n".join(parts)


def _media(item: Mapping[str, Any]) -> DataBlock | None:
    kind = item.get("type")
    if kind == "image_url":
        url = item.get("image_url")
        url = url.get("url") if isinstance(url, Mapping) else url
        if isinstance(url, str) and url:
            return DataBlock(media="image", url=url)
    if kind in ("image", "audio", "file"):
        media: Literal["image", "audio", "document"] = "document" if kind == "file" else kind
        mime = item.get("mime_type") if isinstance(item.get("mime_type"), str) else None
        for key in ("url", "base64", "data"):
            value = item.get(key)
            if isinstance(value, str) and value:
                if key == "url":
                    return DataBlock(media=media, media_type=mime, url=value)
                return DataBlock(media=media, media_type=mime, data=value)
    return None


def _user_blocks(content: Any) -> tuple[Block, ...]:
    """The blocks of a human or system message; a list content rides whole in the first block's meta."""
    if isinstance(content, str):
        return (parse_user_text(content, freeze_meta(None)),)
    blocks: list[Block] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(TextBlock(text=item))
        elif isinstance(item, Mapping):
            if item.get("type") == "text" and isinstance(item.get("text"), str):
                blocks.append(TextBlock(text=item["text"]))
            else:
                media = _media(item)
                if media is not None:
                    blocks.append(media)
    if not blocks:
        blocks.append(TextBlock(text=""))
    head = {"content": content, "fp": fingerprint(_blocks_key(blocks))}
    first = blocks[0]
    if isinstance(first, TextBlock):
        blocks[0] = TextBlock(text=first.text, meta=freeze_meta({META_KEY: head}))
    else:
        assert isinstance(first, DataBlock)
        blocks[0] = DataBlock(
            media=first.media,
            media_type=first.media_type,
            url=first.url,
            data=first.data,
            meta=freeze_meta({META_KEY: head}),
        )
    return tuple(blocks)


def _blocks_key(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, TextBlock | HintBlock):
            out.append("t:" + b.text)
        elif isinstance(b, DataBlock):
            out.append(f"d:{b.media}:{b.url or ''}:{len(b.data or '')}")
    return "\x00".join(out)


def _assistant_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    blocks: list[Block] = []
    for item in content or ():
        if isinstance(item, str):
            blocks.append(TextBlock(text=item))
            continue
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str):
            blocks.append(TextBlock(text=item["text"]))
        elif kind == "thinking" and isinstance(item.get("thinking"), str):
            signature = item.get("signature")
            blocks.append(ThinkingBlock(thinking=item["thinking"], signature=signature if signature else None))
        elif kind == "reasoning":
            text = item.get("reasoning") or item.get("text") or ""
            blocks.append(ThinkingBlock(thinking=str(text)))
        elif kind == "redacted_thinking" and isinstance(item.get("data"), str):
            blocks.append(RedactedThinkingBlock(data=item["data"]))
    return blocks


def _one_from_langchain(message: BaseMessage) -> Message:
    dumped = message.model_dump(mode="json")
    kind = dumped.get("type")
    content = dumped.get("content")
    residual = {k: v for k, v in dumped.items() if k != "content"}
    if kind == "tool":
        text = _content_text(content)
        if isinstance(content, str):
            extra: dict[str, Any] = {}
        else:
            extra = {"content": content, "fp": fingerprint(text)}
        residual.pop("tool_call_id", None)
        block = ToolResultBlock(
            call_id=str(dumped["tool_call_id"]),
            content=(TextBlock(text=text),),
            is_error=dumped.get("status") == "error",
            name=dumped.get("name"),
            meta=freeze_meta({META_KEY: {**residual, **extra}}),
        )
        return Message(role="tool", content=(block,))
    if kind in ("ai", "AIMessageChunk"):
        blocks = _assistant_blocks(content)
        calls = dumped.get("tool_calls") or []
        for call in calls:
            blocks.append(
                ToolCallBlock(id=str(call.get("id")), name=str(call.get("name")), arguments=json_text(call["args"]))
            )
        residual.pop("tool_calls", None)
        if not isinstance(content, str):
            residual["content"] = content
            residual["fp"] = fingerprint(_blocks_key(blocks))
        return Message(role="assistant", content=tuple(blocks), meta=freeze_meta({META_KEY: residual}))
    role: Literal["system", "user"] = "system" if kind == "system" else "user"
    return Message(role=role, content=_user_blocks(content), meta=freeze_meta({META_KEY: residual}))


def messages_from_langchain(messages: Sequence[BaseMessage]) -> list[Message]:
    """LangChain messages as contextfold messages, one for one."""
    return [_one_from_langchain(m) for m in messages]


# --- contextfold -> LangChain ----------------------------------------------------------------------------------


def _carried(item: Block | Message) -> dict[str, Any]:
    value = item.meta.get(META_KEY)
    return cast(dict[str, Any], plain_json(value)) if isinstance(value, Mapping) else {}


def _text_content(blocks: Sequence[Block]) -> str | list[Any]:
    texts: list[Any] = []
    plain = True
    for b in blocks:
        if isinstance(b, TextBlock):
            texts.append({"type": "text", "text": b.text})
        elif isinstance(b, HintBlock):
            texts.append({"type": "text", "text": render_hint(b.text)})
        elif isinstance(b, DataBlock):
            plain = False
            if b.url is not None:
                texts.append({"type": "image_url", "image_url": {"url": b.url}})
            else:
                texts.append({"type": b.media if b.media != "document" else "file", "base64": b.data or ""})
    if plain and len(texts) == 1:
        return cast(str, texts[0]["text"])
    return texts


def _one_to_dict(message: Message) -> dict[str, Any]:
    residual = _carried(message)
    if message.role == "tool":
        block = message.content[0] if message.content else None
        if not isinstance(block, ToolResultBlock):
            raise ValueError("a tool message without a tool result")
        carried = _carried(block)
        text = block.text
        fp = carried.pop("fp", None)
        raw = carried.pop("content", None)
        content: Any = raw if fp is not None and fp == fingerprint(text) else text
        data = {"type": "tool", **carried, "content": content, "tool_call_id": block.call_id}
        data["status"] = "error" if block.is_error else data.get("status", "success")
        if block.name is not None:
            data["name"] = block.name
        return {"type": "tool", "data": data}
    if message.role == "assistant":
        calls = [b for b in message.content if isinstance(b, ToolCallBlock)]
        others = [b for b in message.content if not isinstance(b, ToolCallBlock)]
        fp = residual.pop("fp", None)
        raw = residual.pop("content", None)
        if fp is not None and fp == fingerprint(_blocks_key(list(message.content))):
            content = raw
        else:
            content = _assistant_content(others)
        tool_calls = [{"name": c.name, "args": _args(c), "id": c.id, "type": "tool_call"} for c in calls]
        data = {"type": "ai", **residual, "content": content, "tool_calls": tool_calls}
        return {"type": str(data.get("type") or "ai"), "data": data}
    head = _carried(message.content[0]) if message.content else {}
    kind = residual.get("type") or ("system" if message.role == "system" else "human")
    fp = head.pop("fp", None)
    raw = head.pop("content", None)
    if fp is not None and fp == fingerprint(_blocks_key(message.content)):
        content = raw
    else:
        content = _text_content(message.content)
    data = {**residual, "type": kind, "content": content}
    return {"type": kind, "data": data}


def _assistant_content(blocks: Sequence[Block]) -> str | list[Any]:
    if all(isinstance(b, TextBlock | HintBlock) for b in blocks) and len(blocks) <= 1:
        return blocks[0].text if blocks and isinstance(blocks[0], TextBlock | HintBlock) else ""
    out: list[Any] = []
    for b in blocks:
        if isinstance(b, TextBlock | HintBlock):
            out.append({"type": "text", "text": b.text})
        elif isinstance(b, ThinkingBlock):
            item: dict[str, Any] = {"type": "thinking", "thinking": b.thinking}
            if b.signature is not None:
                item["signature"] = b.signature
            out.append(item)
        elif isinstance(b, RedactedThinkingBlock):
            out.append({"type": "redacted_thinking", "data": b.data})
    return out


def _args(call: ToolCallBlock) -> dict[str, Any]:
    try:
        parsed = call.parsed_arguments()
    except ValueError:
        return {"__raw__": call.arguments}
    return parsed if isinstance(parsed, dict) else {"__value__": parsed}


def messages_to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    """Canonical messages as LangChain messages (the inverse of `messages_from_langchain`).

    A message contextfold wrote (a summary, a hint turn) becomes a ``HumanMessage``.
    """
    return list(messages_from_dict([_one_to_dict(m) for m in messages]))


# --- the middleware ----------------------------------------------------------------------------------------------


def readback_tools(workspace: ReadableWorkspace, *, max_tokens: int, counter: TokenCounter | None = None) -> list[Any]:
    """``read_offloaded`` and ``search_offloaded`` over ``workspace`` as LangChain tools.

    ``max_tokens`` caps each output (the adapter's ``settings.readback_limit``: the tool-result limit less the
    message around it, so a read-back output is never split again). Bad paths and patterns come
    back as ``Error: ...`` text the model can act on.
    """
    bound = bind_readback_tools(workspace, max_tokens=max_tokens, counter=counter)
    read_spec, search_spec = bound.specs

    def read_offloaded(path: str, offset: int = 0, limit: int = 200, column: int = 0) -> str:
        return bound.read_offloaded(path, offset, limit, column)

    def search_offloaded(pattern: str, regex: bool = False, ignore_case: bool = False, max_results: int = 50) -> str:
        return bound.search_offloaded(pattern, regex, ignore_case, max_results)

    return [
        StructuredTool.from_function(read_offloaded, name=read_spec.name, description=read_spec.description),
        StructuredTool.from_function(search_offloaded, name=search_spec.name, description=search_spec.description),
    ]


def _tool_specs(tools: Sequence[Any]) -> list[ToolSpec]:
    specs: list[ToolSpec] = []
    for tool in tools:
        if isinstance(tool, BaseTool):
            schema = tool.tool_call_schema
            parameters = schema if isinstance(schema, dict) else cast(Any, schema).model_json_schema()
            specs.append(ToolSpec(name=tool.name, description=tool.description or "", parameters=parameters))
        elif isinstance(tool, Mapping):
            fn = tool.get("function", tool)
            specs.append(
                ToolSpec(
                    name=str(fn.get("name", "")),
                    description=str(fn.get("description", "")),
                    parameters=fn.get("parameters") or fn.get("input_schema") or {},
                )
            )
    return specs


class ContextfoldMiddleware(AgentMiddleware[ContextfoldState, Any, Any]):
    """contextfold for ``create_agent(model, tools, middleware=[ContextfoldMiddleware(window=...)])``.

    See the module docstring. The keyword arguments are `Context`'s: ``window`` (or ``config``), and a
    ``workspace`` to offload oversized tool results and archive what compaction removes; with a readable
    workspace (`LocalWorkspace`) the read-back tools are added to the agent (``readback=False`` leaves them
    out). The agent's system prompt and tool definitions are counted against the window.
    """

    state_schema = ContextfoldState

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
    ) -> None:
        super().__init__()
        self.settings = ContextSettings.of(
            window,
            config=config,
            counter=counter,
            strategy=strategy,
            workspace=workspace,
            hints=hints,
            clock=clock,
            owner="ContextfoldMiddleware",
        )
        self.tools = []
        if readback and workspace is not None and hasattr(workspace, "resolve") and hasattr(workspace, "items"):
            self.tools = readback_tools(
                cast(ReadableWorkspace, workspace),
                max_tokens=self.settings.readback_limit,
                counter=self.settings.counter,
            )
        self._contexts: OrderedDict[str, Mirror[BaseMessage]] = OrderedDict()
        self.last: MirrorUpdate[BaseMessage] | None = None
        """What the last model call did (the prepared request, whether it compacted, what it offloaded)."""

    # -- the hooks ------------------------------------------------------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Send the prepared context instead of the whole history; save the state the next call starts from."""
        prepared, state = run_sync(self._prepare(request))
        return _with_state(handler(prepared), state)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """The async twin of `wrap_model_call`."""
        prepared, state = await self._prepare(request)
        return _with_state(await handler(prepared), state)

    # -- internals ------------------------------------------------------------------------------------------

    def context_for(self, state: Mapping[str, Any]) -> Context | None:
        """The `Context` the saved ``state[STATE_KEY]`` stands for, if this middleware holds it."""
        saved = state.get(STATE_KEY)
        if not isinstance(saved, Mapping):
            return None
        mirror = self._contexts.get(str(saved.get("digest")))
        return mirror.context if mirror is not None else None

    async def _prepare(self, request: ModelRequest[Any]) -> tuple[ModelRequest[Any], dict[str, Any]]:
        messages: list[BaseMessage] = list(request.messages)
        system = request.system_message
        system_text = system.text if isinstance(system, SystemMessage) else None
        saved = request.state.get(STATE_KEY) if isinstance(request.state, Mapping) else None
        mirror, seen = self._mirror(saved, messages, system_text)
        specs = _tool_specs(request.tools)
        if tuple(specs) != mirror.context.tools:
            mirror.context.set_tools(specs)
        update = await mirror.take(messages[seen:])
        self.last = update
        sent = list(update.prepared.messages)
        leading_system = bool(sent) and sent[0].role == "system" and system_text is not None
        out = messages_to_langchain(sent[1:] if leading_system else sent)
        dicts = [message_to_dict(m) for m in sent]
        digest = hashlib.sha256(json.dumps(dicts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]
        last = messages[-1] if messages else None
        state = {
            "version": _STATE_VERSION,
            "messages": dicts,
            "system": system_text,
            "seen": len(messages),
            "last_id": getattr(last, "id", None),
            "compactions": self._compactions(saved, update),
            "offloaded": [
                *(saved.get("offloaded", []) if isinstance(saved, Mapping) else []),
                *(ref.to_dict() for ref in update.offloaded),
                *_archive(update),
            ],
            "digest": digest,
        }
        self._remember(digest, mirror)
        return request.override(messages=cast(Any, out)), state

    @staticmethod
    def _compactions(saved: Any, update: MirrorUpdate[BaseMessage]) -> int:
        before = int(saved.get("compactions", 0)) if isinstance(saved, Mapping) else 0
        return before + (1 if update.prepared.compaction is not None else 0)

    def _mirror(
        self, saved: Any, messages: list[BaseMessage], system_text: str | None
    ) -> tuple[Mirror[BaseMessage], int]:
        """The mirror to continue from, and how many of ``messages`` it has taken in."""
        if isinstance(saved, Mapping) and saved.get("version") == _STATE_VERSION:
            seen = int(saved.get("seen", 0))
            last_id = saved.get("last_id")
            continues = seen <= len(messages) and (seen == 0 or getattr(messages[seen - 1], "id", None) == last_id)
            if continues and saved.get("system") == system_text:
                cached = self._contexts.pop(str(saved.get("digest")), None)
                if cached is not None:
                    return cached, seen
                context = self.settings.new_context()
                context.extend(message_from_dict(d, message_index=i) for i, d in enumerate(saved["messages"]))
                return Mirror(self.settings, messages_from_langchain, context=context), seen
        context = self.settings.new_context()
        if system_text is not None:
            context.append(Message.text_message("system", system_text))
        return Mirror(self.settings, messages_from_langchain, context=context), 0

    def _remember(self, digest: str, mirror: Mirror[BaseMessage]) -> None:
        self._contexts[digest] = mirror
        self._contexts.move_to_end(digest)
        while len(self._contexts) > _CACHED_CONTEXTS:
            self._contexts.popitem(last=False)


def _archive(update: MirrorUpdate[Any]) -> list[dict[str, Any]]:
    compaction = update.prepared.compaction
    if compaction is None or compaction.archive is None:
        return []
    return [compaction.archive.to_dict()]


def _with_state(result: Any, state: dict[str, Any]) -> ExtendedModelResponse[Any]:
    """The handler's result with the saved state added to its state update."""
    if isinstance(result, ExtendedModelResponse):
        command = result.command
        update = dict(command.update) if command is not None and isinstance(command.update, Mapping) else {}
        update[STATE_KEY] = state
        return ExtendedModelResponse(model_response=result.model_response, command=Command(update=update))
    if isinstance(result, AIMessage):
        result = ModelResponse(result=[result])
    return ExtendedModelResponse(model_response=result, command=Command(update={STATE_KEY: state}))
