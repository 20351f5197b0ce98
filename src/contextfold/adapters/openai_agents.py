"""contextfold inside the OpenAI Agents SDK: a compacting ``Session``, a ``call_model_input_filter``, tools.

Two hooks, because the SDK has two places where history lives:

* `ContextfoldSession` stores the conversation between runs (in memory, or in any SDK ``Session`` given as
  ``store``, e.g. ``SQLiteSession``). After each write it compacts: new tool outputs over the limit are
  split (the rest offloaded to the workspace) and, over the trigger, the history is compacted and the
  store rewritten with the result, so the next run, in this process or after a restart, starts from the
  same compacted prefix. The runner calls ``run_compaction`` after a turn only when the model reported a
  response id and the turn had no local tool outputs (Responses models; chat-completions models, and so
  most non-OpenAI providers, report none), so the session compacts on ``add_items`` as well and treats
  ``run_compaction`` as a forced compaction when asked with ``force``.
* `ContextfoldInputFilter` (``RunConfig(call_model_input_filter=...)``) keeps every model request of a run
  inside the window: within a run the SDK sends the session history plus everything the run generated,
  and only the filter sees each request. It counts the instructions and the agent's tool definitions,
  and adds runtime hints. `ContextfoldSession.input_filter` gives one with the same settings.

`items_to_messages` and `messages_to_items` map the SDK's input items (Responses-API dicts: messages,
``function_call``, ``function_call_output``, ``reasoning``, ``custom_tool_call``, ...) to contextfold's
messages and back. What contextfold has no field for (item ids, statuses, annotations, encrypted reasoning,
items it does not know) rides in ``meta["openai_agents"]``, so the round trip gives back equal items.

Works with any model the SDK can drive, through its model providers: ``OpenAIChatCompletionsModel`` with an
``AsyncOpenAI(base_url=...)`` for OpenAI-compatible servers, or a ``ModelProvider`` of your own.

Imports the SDK when this module is imported; without it the import raises `MissingExtraError` naming
``pip install 'contextfold[openai-agents]'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._errors import ConfigError
from contextfold._formats._common import parse_user_text, render_hint
from contextfold._messages import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    Role,
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
from contextfold.adapters._mirror import ContextSettings, Mirror, MirrorUpdate
from contextfold.compaction._plan import CompactionStrategy, PlanFunction

try:
    from agents import FunctionTool, function_tool
    from agents.memory.session import Session
    from agents.run_config import CallModelData, ModelInputData
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the package
    raise missing_extra("contextfold.adapters.openai_agents", "openai-agents", "openai-agents", exc) from exc

__all__ = [
    "META_KEY",
    "ContextfoldInputFilter",
    "ContextfoldSession",
    "items_to_messages",
    "messages_to_items",
    "readback_function_tools",
]

META_KEY = "openai_agents"
"""The ``meta`` key under which a message or block carries what contextfold has no field for."""

_INSTRUCTIONS = "contextfold_instructions"
_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


# --- SDK items -> contextfold ------------------------------------------------------------------------------------


def _meta(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return freeze_meta({META_KEY: dict(value)})


def _item_texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content or ():
        if isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif isinstance(part, Mapping) and isinstance(part.get("refusal"), str):
            parts.append(part["refusal"])
    return "\n".join(parts)


def _blocks_key(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, TextBlock | HintBlock):
            out.append("t:" + b.text)
        elif isinstance(b, DataBlock):
            out.append(f"d:{b.media}:{b.url or ''}:{len(b.data or '')}")
    return "\x00".join(out)


def _input_blocks(item: Mapping[str, Any]) -> tuple[Block, ...]:
    """The blocks of a user / system / developer message item; a list content rides whole in meta."""
    content = item.get("content")
    residual = {k: v for k, v in item.items() if k != "content"}
    if isinstance(content, str):
        return (parse_user_text(content, _meta(residual)),)
    blocks: list[Block] = []
    for part in content or ():
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if isinstance(part.get("text"), str):
            blocks.append(TextBlock(text=part["text"]))
        elif kind == "input_image":
            url = part.get("image_url")
            blocks.append(DataBlock(media="image", url=url if isinstance(url, str) and url else "about:blank"))
        elif kind in ("input_file", "input_audio"):
            data = part.get("file_data") or part.get("data") or ""
            media: Literal["audio", "document"] = "audio" if kind == "input_audio" else "document"
            blocks.append(DataBlock(media=media, data=str(data)))
    if not blocks:
        blocks.append(TextBlock(text=""))
    head = {**residual, "content": content, "fp": fingerprint(_blocks_key(blocks))}
    first = blocks[0]
    if isinstance(first, TextBlock):
        blocks[0] = TextBlock(text=first.text, meta=_meta(head))
    else:
        assert isinstance(first, DataBlock)
        blocks[0] = DataBlock(
            media=first.media, media_type=first.media_type, url=first.url, data=first.data, meta=_meta(head)
        )
    return tuple(blocks)


def _assistant_blocks(item: Mapping[str, Any]) -> list[Block]:
    """Blocks of one assistant-side item (a message, a reasoning item, a call, an item we do not know)."""
    kind = item.get("type")
    if kind in _CALLS and isinstance(item.get("call_id"), str):
        arguments = item.get("arguments") if kind == "function_call" else item.get("input")
        text = arguments if isinstance(arguments, str) else json_text(arguments)
        residual = {k: v for k, v in item.items() if k not in ("call_id", "name", "arguments", "input")}
        residual["field"] = "arguments" if kind == "function_call" else "input"
        if not isinstance(arguments, str):
            residual.update(raw=arguments, fp=fingerprint(text))
        return [ToolCallBlock(id=item["call_id"], name=str(item.get("name", "")), arguments=text, meta=_meta(residual))]
    if kind == "reasoning":
        summary = "\n".join(
            str(s.get("text", "")) for s in item.get("summary") or () if isinstance(s, Mapping)
        ) or _item_texts(item.get("content"))
        return [ThinkingBlock(thinking=summary, meta=_meta({"item": item, "fp": fingerprint(summary)}))]
    if (kind == "message" or kind is None) and item.get("role") == "assistant":
        content = item.get("content")
        residual = {k: v for k, v in item.items() if k != "content"}
        if isinstance(content, str):
            return [TextBlock(text=content, meta=_meta(residual))]
        texts = [TextBlock(text=_item_texts([p])) for p in content or () if isinstance(p, Mapping)]
        if not texts:
            texts = [TextBlock(text="")]
        head = {**residual, "content": content, "n": len(texts), "fp": fingerprint(_blocks_key(texts))}
        texts[0] = TextBlock(text=texts[0].text, meta=_meta(head))
        return list(texts)
    return [TextBlock(text="", meta=_meta({"item": item, "opaque": True}))]


def items_to_messages(items: Sequence[Any]) -> list[Message]:
    """SDK input items as contextfold messages.

    Consecutive assistant-side items (reasoning, an assistant message, calls) make one assistant message,
    consecutive call outputs one tool message; user, system and developer messages one message each.
    """
    out: list[Message] = []
    assistant: list[Block] = []
    results: list[ToolResultBlock] = []

    def flush() -> None:
        if assistant:
            out.append(Message(role="assistant", content=tuple(assistant)))
            assistant.clear()
        if results:
            out.append(Message(role="tool", content=tuple(results)))
            results.clear()

    for raw in items:
        item = cast(Mapping[str, Any], raw)
        kind = item.get("type")
        if kind in _OUTPUTS and isinstance(item.get("call_id"), str):
            if assistant:
                out.append(Message(role="assistant", content=tuple(assistant)))
                assistant.clear()
            output = item.get("output")
            text = output if isinstance(output, str) else _item_texts(output)
            residual = {k: v for k, v in item.items() if k not in ("call_id", "output")}
            if not isinstance(output, str):
                residual.update(raw=output, fp=fingerprint(text))
            results.append(
                ToolResultBlock(call_id=item["call_id"], content=(TextBlock(text=text),), meta=_meta(residual))
            )
            continue
        role = item.get("role")
        if role in ("user", "system", "developer") and kind in (None, "message"):
            flush()
            canonical: Role = "user" if role == "user" else "system"
            out.append(Message(role=canonical, content=_input_blocks(item)))
            continue
        if results:
            out.append(Message(role="tool", content=tuple(results)))
            results.clear()
        assistant.extend(_assistant_blocks(item))
    flush()
    return out


# --- contextfold -> SDK items ------------------------------------------------------------------------------------


def _carried(block: Block) -> dict[str, Any]:
    value = block.meta.get(META_KEY)
    return cast(dict[str, Any], plain_json(value)) if isinstance(value, Mapping) else {}


def _input_item(message: Message) -> dict[str, Any]:
    head = _carried(message.content[0]) if message.content else {}
    fp = head.pop("fp", None)
    raw = head.pop("content", None)
    role = head.get("role") or ("system" if message.role == "system" else "user")
    if fp is not None and fp == fingerprint(_blocks_key(message.content)):
        return {**head, "content": raw}
    blocks = [b for b in message.content if isinstance(b, TextBlock | HintBlock | DataBlock)]
    if len(blocks) == 1 and not isinstance(blocks[0], DataBlock):
        text = blocks[0].text if isinstance(blocks[0], TextBlock) else render_hint(blocks[0].text)
        return {**head, "role": role, "content": text}
    parts: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append({"type": "input_text", "text": b.text})
        elif isinstance(b, HintBlock):
            parts.append({"type": "input_text", "text": render_hint(b.text)})
        elif b.url is not None:
            parts.append({"type": "input_image", "image_url": b.url, "detail": "auto"})
        else:
            parts.append({"type": "input_file", "file_data": b.data or ""})
    return {**head, "role": role, "content": parts}


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    blocks = list(message.content)
    i = 0
    while i < len(blocks):
        block = blocks[i]
        carried = _carried(block)
        if carried.get("opaque"):
            items.append(carried["item"])
        elif isinstance(block, ToolCallBlock):
            field = carried.pop("field", "arguments")
            fp = carried.pop("fp", None)
            raw = carried.pop("raw", None)
            value: Any = raw if fp is not None and fp == fingerprint(block.arguments) else block.arguments
            kind = carried.pop("type", "function_call" if field == "arguments" else "custom_tool_call")
            items.append({"type": kind, **carried, "call_id": block.id, "name": block.name, field: value})
        elif isinstance(block, ThinkingBlock):
            if "item" in carried and carried.get("fp") == fingerprint(block.thinking):
                items.append(carried["item"])
            else:
                items.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": block.thinking}]})
        elif isinstance(block, RedactedThinkingBlock):
            items.append({"type": "reasoning", "summary": [], "encrypted_content": block.data})
        elif isinstance(block, TextBlock | HintBlock):
            if "n" not in carried:  # a message item with a plain string content, or a block contextfold wrote
                if carried:
                    items.append({**carried, "content": block.text})
                else:
                    parts = [{"type": "output_text", "text": block.text, "annotations": []}]
                    items.append({"type": "message", "role": "assistant", "content": parts})
                i += 1
                continue
            count = max(1, int(carried.pop("n")))
            group = [b for b in blocks[i : i + count] if isinstance(b, TextBlock | HintBlock)]
            fp = carried.pop("fp", None)
            raw = carried.pop("content", None)
            if fp is not None and fp == fingerprint(_blocks_key(group)):
                items.append({**carried, "content": raw})
            else:
                parts = [{"type": "output_text", "text": b.text, "annotations": []} for b in group]
                items.append({"type": "message", **carried, "role": "assistant", "content": parts})
            i += count
            continue
        i += 1
    return items


def _output_items(message: Message) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in message.content:
        if not isinstance(block, ToolResultBlock):
            continue
        carried = _carried(block)
        fp = carried.pop("fp", None)
        raw = carried.pop("raw", None)
        text = block.text
        output: Any = raw if fp is not None and fp == fingerprint(text) else text
        kind = carried.pop("type", "function_call_output")
        items.append({"type": kind, **carried, "call_id": block.call_id, "output": output})
    return items


def messages_to_items(messages: Sequence[Message]) -> list[Any]:
    """Canonical messages as SDK input items (the inverse of `items_to_messages`).

    A message contextfold wrote (a summary, a hint turn) becomes ``{"role": "user", "content": text}``.
    """
    items: list[Any] = []
    for message in messages:
        if message.role == "assistant":
            items.extend(_assistant_items(message))
        elif message.role == "tool":
            items.extend(_output_items(message))
        else:
            items.append(_input_item(message))
    return items


# --- tools, the filter, the session ------------------------------------------------------------------------------


def readback_function_tools(
    workspace: ReadableWorkspace, *, max_tokens: int, counter: TokenCounter | None = None
) -> list[FunctionTool]:
    """``read_offloaded`` and ``search_offloaded`` over ``workspace`` as SDK function tools.

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
        function_tool(read_offloaded, name_override=read_spec.name, description_override=read_spec.description),
        function_tool(search_offloaded, name_override=search_spec.name, description_override=search_spec.description),
    ]


def _readback_for(settings: ContextSettings) -> list[FunctionTool]:
    workspace = settings.workspace
    if workspace is None or not (hasattr(workspace, "resolve") and hasattr(workspace, "items")):
        raise ConfigError("the read-back tools need a readable workspace (a LocalWorkspace)")
    return readback_function_tools(
        cast(ReadableWorkspace, workspace), max_tokens=settings.readback_limit, counter=settings.counter
    )


def _settings(
    owner: str,
    window: int | None,
    config: ContextConfig | None,
    counter: TokenCounter | None,
    strategy: CompactionStrategy | PlanFunction | None,
    workspace: Offloader | None,
    hints: HintConfig | Literal[False] | None,
    clock: Clock | None,
) -> ContextSettings:
    return ContextSettings.of(
        window,
        config=config,
        counter=counter,
        strategy=strategy,
        workspace=workspace,
        hints=hints,
        clock=clock,
        owner=owner,
    )


class ContextfoldInputFilter:
    """A ``call_model_input_filter`` that keeps every model request of a run inside the window.

    ``RunConfig(call_model_input_filter=ContextfoldInputFilter(window=32_000, workspace=ws))``. The
    instructions are counted as a leading system message (and left where the SDK keeps them), the agent's
    tool definitions as tools. One filter follows one conversation at a time: a request that does not
    extend the one before starts a fresh context.
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
        settings: ContextSettings | None = None,
    ) -> None:
        if settings is None:
            settings = _settings("ContextfoldInputFilter", window, config, counter, strategy, workspace, hints, clock)
        self._mirror: Mirror[Any] = Mirror(settings, items_to_messages)
        self.last: MirrorUpdate[Any] | None = None
        """What the last request did (the prepared request, whether it compacted, what it offloaded)."""

    @property
    def settings(self) -> ContextSettings:
        """How the filter builds its context (``settings.readback_limit`` caps the read-back tools)."""
        return self._mirror.settings

    def readback_tools(self) -> list[FunctionTool]:
        """The read-back tools over this filter's workspace, capped and counted as its context counts."""
        return _readback_for(self.settings)

    @property
    def context(self) -> Context:
        """The `Context` that mirrors the run's input."""
        return self._mirror.context

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The input to send: compacted when over the trigger, new tool outputs split, a hint at the end."""
        instructions = data.model_data.instructions
        incoming: list[Any] = list(data.model_data.input)
        if instructions:
            incoming.insert(0, {"role": "system", "content": instructions, _INSTRUCTIONS: True})
        specs = _agent_tools(data.agent)
        if tuple(specs) != self.context.tools:
            self.context.set_tools(specs)
        update = await self._mirror.update(incoming)
        if self.context.tools != tuple(specs):  # a reset built a new context
            self.context.set_tools(specs)
        self.last = update
        items = messages_to_items(update.prepared.messages)
        if instructions and items and isinstance(items[0], Mapping) and items[0].get(_INSTRUCTIONS):
            items = items[1:]
        return ModelInputData(input=items, instructions=instructions)


def _agent_tools(agent: Any) -> list[ToolSpec]:
    specs: list[ToolSpec] = []
    for tool in getattr(agent, "tools", None) or ():
        if isinstance(tool, FunctionTool):
            specs.append(ToolSpec(name=tool.name, description=tool.description, parameters=tool.params_json_schema))
    return specs


class _MemoryStore:
    """The default store: a list in memory (what ``SQLiteSession(":memory:")`` would be, without SQLite)."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.session_settings = None
        self._items: list[Any] = []

    async def get_items(self, limit: int | None = None) -> list[Any]:
        return list(self._items[-limit:]) if limit else list(self._items)

    async def add_items(self, items: list[Any]) -> None:
        self._items.extend(items)

    async def pop_item(self) -> Any:
        return self._items.pop() if self._items else None

    async def clear_session(self) -> None:
        self._items.clear()


class ContextfoldSession:
    """An Agents SDK ``Session`` that keeps the stored history compacted (see the module docstring).

    ``store`` holds the items (default: in memory; give a ``SQLiteSession`` to persist them). The store
    holds what contextfold keeps: after a compaction it is rewritten with the compacted history, so a
    resumed session, in this process or another, starts from the same prefix.
    """

    session_settings = None

    def __init__(
        self,
        session_id: str,
        window: int | None = None,
        *,
        store: Session | None = None,
        config: ContextConfig | None = None,
        counter: TokenCounter | None = None,
        strategy: CompactionStrategy | PlanFunction | None = None,
        workspace: Offloader | None = None,
        hints: HintConfig | Literal[False] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.session_id = session_id
        self.store: Session = store if store is not None else cast(Session, _MemoryStore(session_id))
        settings = _settings("ContextfoldSession", window, config, counter, strategy, workspace, hints, clock)
        # The stored history gets no hints (they belong to a request); the filter adds them.
        self._settings = settings
        self._mirror: Mirror[Any] = Mirror(
            ContextSettings(
                config=settings.config,
                counter=settings.counter,
                strategy=settings.strategy,
                workspace=settings.workspace,
                hints=False,
                clock=settings.clock,
            ),
            items_to_messages,
        )
        self.compactions = 0
        """Compactions applied to the stored history by this session object."""
        self.compaction_calls: list[dict[str, Any]] = []
        """The arguments of every ``run_compaction`` call (the SDK's hook), oldest first."""
        self.last: MirrorUpdate[Any] | None = None

    @property
    def context(self) -> Context:
        """The `Context` that mirrors the stored history."""
        return self._mirror.context

    def readback_tools(self) -> list[FunctionTool]:
        """The read-back tools over this session's workspace, capped and counted as its context counts."""
        return _readback_for(self._settings)

    @property
    def input_filter(self) -> ContextfoldInputFilter:
        """A `ContextfoldInputFilter` with this session's settings (window, counter, workspace, hints)."""
        return ContextfoldInputFilter(settings=self._settings)

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The stored (compacted) history, the last ``limit`` items when given."""
        return await self.store.get_items(limit)

    async def add_items(self, items: list[Any]) -> None:
        """Store ``items``, then split new oversized tool outputs and compact when over the trigger."""
        await self.store.add_items(items)
        await self._fold(force=False)

    async def pop_item(self) -> Any:
        """Remove and return the newest stored item."""
        return await self.store.pop_item()

    async def clear_session(self) -> None:
        """Forget the stored history."""
        await self.store.clear_session()
        self._mirror = Mirror(self._mirror.settings, items_to_messages)

    async def run_compaction(self, args: Mapping[str, Any] | None = None) -> None:
        """The SDK's compaction hook: compact when over the trigger, or now with ``{"force": True}``."""
        self.compaction_calls.append(dict(args or {}))
        await self._fold(force=bool(args and args.get("force")))

    async def _fold(self, *, force: bool) -> None:
        stored = await self.store.get_items()
        update = await self._mirror.update(stored)
        self.last = update
        compacted = update.prepared.compaction is not None
        if force and not compacted and await self.context.compact(reason="forced") is not None:
            compacted = True
        if compacted:
            self.compactions += 1
        if not compacted and not update.offloaded:
            self._mirror.remember_sent(stored)
            return
        items = messages_to_items(self.context.messages)
        await self.store.clear_session()
        await self.store.add_items(items)
        self._mirror.remember_sent(items)
