"""The tool-result path, one owner: guard, split (room left for the fence), offload, fence, count.

Every tool result enters the context through `admit_tool_message`: `Context.append_tool_result` calls it with the
session's limit, counter and workspace, and the agent loop calls `Context.append_tool_result` with its guard and
fence. In order, per result:

1. the guard redacts secrets and defangs injections (``guard`` given; its mode decides how much);
2. a result over ``limit`` is split: the kept head stays, the whole text is offloaded to the workspace and named by
   a truncation notice (`offload_oversized_result`). With a fence, the split counts every candidate cut fenced
   (its ``render``), since fencing first would cut the closing tag off into the workspace file, and fencing after
   a split planned without it could overshoot under a counter that is not additive;
3. the kept text blocks are fenced (the notice is ours and stays outside the fence);
4. the tool message is rebuilt and counted once; the count is cached on the message, so appending it costs no
   second count. If a fenced result comes out over the limit anyway (a counter that is not additive), it is
   split again with the overshoot taken off, never appended over the limit with a broken fence.

What happened is reported through ``on_event`` as it happens, per result: ``guard`` (a `GuardInfo`, when the guard
changed it), ``offload`` (a list of the `OffloadRef` of its cut-off text), ``tool_result`` (the kept block). These
are `Context` events; the agent forwards them as its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from contextfold._errors import ConfigError
from contextfold._guard import Fence, GuardConfig, guard_tool_result
from contextfold._messages import Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter, count_messages
from contextfold._workspace._offload import Offloader, OffloadRef
from contextfold._workspace._split import Render, offload_oversized_result

__all__ = ["GuardInfo", "ToolResultAdmission", "admit_tool_message"]

_FENCE_ROUNDS = 4
"""Splits tried when the fenced result overshoots the limit (each planned with what the fence cost in the last)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardInfo:
    """What the guard changed in one tool result."""

    call_id: str
    tool: str | None
    redactions: tuple[str, ...]
    """Kinds of the secrets redacted."""
    blocked: tuple[str, ...]
    """Categories of the injections defanged."""


@dataclass(frozen=True, slots=True)
class ToolResultAdmission:
    """A tool message ready to append, and what the path did to it."""

    message: Message
    """The tool message to append: guarded, split, fenced; its token count is cached on it."""
    tokens: int
    refs: tuple[OffloadRef, ...]
    """What the split offloaded (the cut-off text of each split result)."""
    guarded: tuple[GuardInfo, ...]
    """The results the guard changed."""


Emit = Callable[[Any, Any], None]


async def admit_tool_message(
    message: Message,
    *,
    limit: int,
    counter: TokenCounter,
    offloader: Offloader | None,
    guard: GuardConfig | None = None,
    fence: Fence | None = None,
    on_event: Emit | None = None,
) -> ToolResultAdmission:
    """Run every result of the tool message ``message`` through the path (see the module docstring).

    ``guard`` None: no sanitizing and no fence. With ``guard.fence`` on, ``fence`` (the session's, whose nonce the
    system prompt names) must be given. If the workspace write fails, `WorkspaceError` propagates and nothing is
    returned: the caller still has the whole result.
    """
    fencing = guard is not None and guard.fence
    if fencing and fence is None:
        raise ConfigError("the guard's fence is on, but no Fence was given (pass the session's fence)")
    emit: Emit = on_event if on_event is not None else _ignore
    if guard is None:  # the usual case first: every result fits as it is, and the one count is cached
        tokens = count_messages(counter, (message,))
        if tokens <= limit:
            for result in message.tool_results:
                emit("tool_result", result)
            return ToolResultAdmission(message, tokens, (), ())
    single = len(message.content) == 1
    measured: dict[int, Message] = {}  # id(block) -> the one-result message it was counted in (single only)

    def cost(block: ToolResultBlock) -> int:
        """Tokens of ``block`` as it will be sent; for a one-result message, counted on the message itself."""
        if not single:
            return counter.count_message(Message(role="tool", content=(block,)))
        candidate = message if block is message.content[0] else message.replace(content=(block,))
        measured[id(block)] = candidate
        return count_messages(counter, (candidate,))

    content: list[Any] = []
    refs: list[OffloadRef] = []
    guarded: list[GuardInfo] = []
    for block in message.content:
        if not isinstance(block, ToolResultBlock):
            content.append(block)
            continue
        kept = block
        if guard is not None and guard.mode != "off":
            kept, report = guard_tool_result(block, _unfenced(guard))
            if report.changed:
                info = GuardInfo(
                    call_id=block.call_id,
                    tool=block.name,
                    redactions=tuple(r.kind for r in report.redactions),
                    blocked=tuple(f.category for f in report.blocked),
                )
                guarded.append(info)
                emit("guard", info)
        kept, ref = await _fit(kept, limit, counter, offloader, fence if fencing else None, cost)
        if ref is not None:
            refs.append(ref)
            emit("offload", [ref])
        emit("tool_result", kept)
        content.append(kept)
    if single and id(content[0]) in measured:
        final = measured[id(content[0])]
    elif all(a is b for a, b in zip(content, message.content, strict=True)):
        final = message
    else:
        final = message.replace(content=tuple(content))
    return ToolResultAdmission(final, count_messages(counter, (final,)), tuple(refs), tuple(guarded))


async def _fit(
    block: ToolResultBlock,
    limit: int,
    counter: TokenCounter,
    offloader: Offloader | None,
    fence: Fence | None,
    cost: Callable[[ToolResultBlock], int],
) -> tuple[ToolResultBlock, OffloadRef | None]:
    """``block`` fenced, and split to ``limit`` first when it does not fit (the rest offloaded); and the ref."""
    whole = _fenced(block, fence, skip=None) if fence is not None else block
    if cost(whole) <= limit:
        return whole, None
    room = limit
    render: Render | None = None
    if fence is not None:
        wrap = fence

        def render(candidate: ToolResultBlock, notice: int | None) -> ToolResultBlock:
            """The candidate fenced as it will be sent: the split counts it so, and the fenced cut fits."""
            return _fenced(candidate, wrap, skip=notice)

    for _ in range(_FENCE_ROUNDS):  # one round; more only if the message-level count differs from the block's
        kept, ref = await offload_oversized_result(
            block, limit=room, counter=counter, offloader=offloader, render=render
        )
        if fence is None:
            break
        notice = len(kept.content) - 1 if kept is not block else None  # the truncation notice is ours: not fenced
        bare, kept = kept, _fenced(kept, fence, skip=notice)
        total = cost(kept)
        if total <= limit or room <= 1:
            break
        # The split counted the fenced candidate alone; the message it goes in counted more. Plan again, tighter.
        overhead = total - counter.count_message(Message(role="tool", content=(bare,)))
        room = max(1, min(room - 1, limit - overhead - 1))
    return kept, ref


def _fenced(block: ToolResultBlock, fence: Fence, *, skip: int | None) -> ToolResultBlock:
    """``block`` with each text block wrapped in the fence, but for the block at index ``skip``."""
    content = tuple(
        TextBlock(text=fence.wrap(b.text), meta=b.meta) if isinstance(b, TextBlock) and i != skip else b
        for i, b in enumerate(block.content)
    )
    return replace(block, content=content)


@lru_cache(maxsize=16)
def _unfenced(guard: GuardConfig) -> GuardConfig:
    """The guard's sanitizing alone: the path fences after the split."""
    return guard if not guard.fence else guard.model_copy(update={"fence": False})


def _ignore(kind: Any, data: Any) -> None:
    return None
