"""Tool groups: an assistant message with tool calls plus every message answering them.

Providers reject a tool result whose call is missing ("orphan") and, for
OpenAI and Anthropic, a call without its result. Every boundary decision is
therefore made in terms of groups: the span from the calling assistant
message to the last message holding one of its results must stay on one side
of a cut. Results may arrive in several tool messages and user messages may
sit between them, so a span is an index range, not a fixed shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contextfold._messages import Message, ToolCallBlock, ToolResultBlock

__all__ = [
    "ToolGroup",
    "call_names",
    "orphan_results",
    "pending_tail",
    "tool_groups",
    "unanswered_calls",
]


@dataclass(frozen=True, slots=True)
class ToolGroup:
    """One assistant message with tool calls and the messages answering it.

    ``start`` is the index of the assistant message, ``end`` (inclusive) the
    index of the last message holding one of its results (``start`` when no
    result arrived yet). ``pending`` lists calls that have no result.
    """

    start: int
    end: int
    call_ids: tuple[str, ...]
    pending: tuple[str, ...]

    def crosses(self, cut: int) -> bool:
        """Whether cutting before message ``cut`` would separate part of this group from the rest."""
        return self.start < cut <= self.end


def tool_groups(messages: Sequence[Message]) -> tuple[ToolGroup, ...]:
    """The tool groups of a conversation, in order of their assistant message.

    A result answers the most recent earlier call with its id; results whose
    call never appears (or appears later) belong to no group (see `orphan_results`).
    """
    owner: dict[str, int] = {}  # call id -> group position in `starts`
    starts: list[int] = []
    calls: list[list[str]] = []
    ends: list[int] = []
    answered: list[set[str]] = []
    for index, message in enumerate(messages):
        ids: list[str] | None = None
        for block in message.content:  # one pass over the blocks; results before calls, as they are answered
            if isinstance(block, ToolResultBlock):
                group = owner.get(block.call_id)
                if group is not None:
                    ends[group] = index
                    answered[group].add(block.call_id)
            elif isinstance(block, ToolCallBlock):
                if ids is None:
                    ids = []
                ids.append(block.id)
        if ids is not None:
            group = len(starts)
            starts.append(index)
            calls.append(ids)
            ends.append(index)
            answered.append(set())
            for call_id in ids:
                owner[call_id] = group
    groups: list[ToolGroup] = []
    for start, end, ids, done in zip(starts, ends, calls, answered, strict=True):
        pending = () if len(done) == len(ids) else tuple([c for c in ids if c not in done])
        groups.append(ToolGroup(start, end, tuple(ids), pending))
    return tuple(groups)


def orphan_results(messages: Sequence[Message]) -> list[tuple[int, str]]:
    """``(message index, call id)`` of every result with no earlier call of that id in ``messages``."""
    seen: set[str] = set()
    orphans: list[tuple[int, str]] = []
    for index, message in enumerate(messages):
        for result in message.tool_results:
            if result.call_id not in seen:
                orphans.append((index, result.call_id))
        seen.update(call.id for call in message.tool_calls)
    return orphans


def unanswered_calls(messages: Sequence[Message]) -> list[tuple[int, str]]:
    """``(message index, call id)`` of every call with no later result of that id in ``messages``."""
    return [(group.start, call_id) for group in tool_groups(messages) for call_id in group.pending]


def pending_tail(messages: Sequence[Message]) -> int | None:
    """Index of the trailing assistant message whose calls are still running, else ``None``.

    Trailing means it is the last assistant message: only results of some of
    its calls (and perhaps a user message sent while they run) follow it. The
    agent is about to append the missing results, so such a message is the
    live end of the conversation, not an orphan: it must be kept.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role in ("tool", "user"):
            continue
        if message.role != "assistant" or not message.tool_calls:
            return None
        answered = {r.call_id for m in messages[index + 1 :] for r in m.tool_results}
        return index if any(c.id not in answered for c in message.tool_calls) else None
    return None


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Map call id to tool name, so a result without a name can be described."""
    return {
        block.id: block.name for message in messages for block in message.content if isinstance(block, ToolCallBlock)
    }
