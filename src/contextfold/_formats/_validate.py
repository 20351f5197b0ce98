"""Provider rules a conversation must satisfy before it is sent, checked with message indexes.

Providers reject a request whose tool pairing is broken, but their errors
("tool_use ids were found without tool_result blocks", "messages with role
'tool' must be a response to a preceding message with 'tool_calls'") name
neither the message nor the call. `validate` checks the canonical list against
the rules of one provider and says where: the message index (0-based, in the
canonical list), the call id, the tool name and which message should have held
the answer.

For Anthropic the check runs on what the renderer sends: consecutive
``user``/``tool`` messages merge into one user turn and consecutive
``assistant`` messages into one assistant turn, and leading ``system``
messages become the top-level ``system`` field.

Severities: ``error`` means the provider rejects the request; ``warning``
means it is accepted but likely a mistake (an empty OpenAI message, a call id
reused in a later OpenAI message); ``info`` is not a problem. A conversation
may end on tool calls whose results are not there yet (the agent runs them
next): those are ``pending_tool_call`` with severity ``info``. Only errors
make a conversation invalid (`Problem.blocking`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, assert_never

from contextfold._formats._providers import ProviderName, check_provider
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
)

__all__ = ["PROBLEM_CODES", "Problem", "Provider", "Severity", "anthropic_turns", "validate"]

Provider: TypeAlias = ProviderName | Literal["responses"]
"""A `ProviderName`, or ``"responses"`` (the OpenAI Responses API, which the proxy speaks; not yet a `ProviderName`
of `render`/`to_canonical`/the CLI, so it is accepted here only)."""
Severity: TypeAlias = Literal["error", "warning", "info"]

PROBLEM_CODES: tuple[str, ...] = (
    "orphan_tool_result",
    "misplaced_tool_result",
    "duplicate_tool_result",
    "missing_tool_result",
    "pending_tool_call",
    "duplicate_call_id",
    "invalid_call_id",
    "alternation",
    "first_message_role",
    "thinking_placement",
    "misplaced_block",
    "empty_message",
)
"""Every code `validate` can report; the strings are stable (scripts match on them)."""

_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]+")
"""Anthropic's pattern for ``tool_use`` ids; ids from other providers may break it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One broken provider rule, located precisely enough to fix it by hand."""

    code: str
    """Stable identifier, one of `PROBLEM_CODES`."""
    message_index: int | None
    """0-based index in the canonical message list (None when the whole conversation is concerned)."""
    severity: Severity
    """``error``: the provider rejects the request (makes the conversation invalid); ``warning``: accepted,
    but likely a mistake or rejected elsewhere; ``info``: not a problem (a trailing call awaiting its result)."""
    message: str
    """A sentence saying what is wrong, where, and what the provider expects instead."""
    call_id: str | None = None
    """The tool call id concerned, when there is one."""
    tool_name: str | None = None
    """The tool name concerned, when known."""

    @property
    def blocking(self) -> bool:
        """Whether the provider would reject the conversation for this (only errors; warnings and info do not)."""
        return self.severity == "error"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``contextfold validate --json``."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message_index": self.message_index,
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = f"message {self.message_index}" if self.message_index is not None else "conversation"
        return f"{where}: {self.severity} {self.code}: {self.message}"


@dataclass(frozen=True, slots=True)
class _Call:
    """Where a tool call was made."""

    index: int
    block: ToolCallBlock


@dataclass(frozen=True, slots=True)
class _Result:
    """Where a tool result sits."""

    index: int
    block: ToolResultBlock


@dataclass(slots=True)
class _Group:
    """Calls made by one assistant message (OpenAI) or turn (Anthropic) and the results found for them."""

    calls: dict[str, _Call]
    last_index: int
    """Index of the last message of the calling turn."""
    answered: set[str]


def validate(messages: Sequence[Message], provider: Provider) -> list[Problem]:
    """Every rule of ``provider`` that ``messages`` break, ordered by message index.

    The list is empty (or holds only non-blocking ``info`` items) when the
    provider would accept the conversation as far as tool pairing, roles and
    block placement go.
    """
    if provider != "responses":
        provider = check_provider(provider)
    problems: list[Problem] = []
    problems += _check_blocks(messages, provider)
    problems += _check_call_ids(messages, provider)
    if provider == "openai":
        problems += _pair_openai(messages)
    elif provider == "responses":
        problems += _pair_responses(messages)
    else:
        problems += _check_anthropic_turns(messages)
        problems += _pair_anthropic(messages)
    order = {code: i for i, code in enumerate(PROBLEM_CODES)}
    return sorted(
        problems,
        key=lambda p: (-1 if p.message_index is None else p.message_index, order.get(p.code, len(order))),
    )


# --- blocks, roles and empty messages ---------------------------------------------------------

_ALLOWED: dict[Role, tuple[str, ...]] = {
    "system": ("text", "hint"),
    "user": ("text", "data", "hint", "tool_result"),
    "assistant": ("text", "hint", "thinking", "redacted_thinking", "tool_call"),
    "tool": ("tool_result",),
}


def _allowed(role: Role, provider: Provider) -> tuple[str, ...]:
    if role == "user" and provider == "openai":
        # OpenAI carries tool results only in 'tool' messages.
        return ("text", "data", "hint")
    if role == "system" and provider == "anthropic":
        return ("text", "hint", "data")  # media becomes a text placeholder in the system field
    return _ALLOWED[role]


def _is_empty(message: Message) -> bool:
    for block in message.content:
        match block:
            case TextBlock() | HintBlock():
                if block.text.strip():
                    return False
            case ToolCallBlock() | ToolResultBlock() | DataBlock() | ThinkingBlock() | RedactedThinkingBlock():
                return False
            case _:
                assert_never(block)
    return True


def _check_blocks(messages: Sequence[Message], provider: Provider) -> list[Problem]:
    problems: list[Problem] = []
    for i, message in enumerate(messages):
        allowed = _allowed(message.role, provider)
        for block in message.content:
            if block.kind in allowed:
                continue
            if block.kind in ("thinking", "redacted_thinking"):
                problems.append(
                    Problem(
                        code="thinking_placement",
                        message_index=i,
                        severity="error",
                        message=(
                            f"a {block.kind} block sits in a {message.role!r} message; "
                            "thinking blocks belong only to assistant messages"
                        ),
                    )
                )
                continue
            call_id, tool_name = _block_ids(block)
            problems.append(
                Problem(
                    code="misplaced_block",
                    message_index=i,
                    severity="error",
                    message=(
                        f"a {block.kind} block{_describe_ids(call_id, tool_name)} sits in a {message.role!r} "
                        f"message, which may hold only {_join(allowed)} blocks for {provider}"
                    ),
                    call_id=call_id,
                    tool_name=tool_name,
                )
            )
        if _is_empty(message):
            if provider == "anthropic" and (message.role == "system" or _anthropic_drops(message)):
                continue  # the renderer leaves it out (or it is the system field, which may be empty)
            # Anthropic rejects empty or whitespace-only content outright; OpenAI accepts an empty
            # string, but the message only wastes a turn.
            severity: Severity = "error" if provider == "anthropic" else "warning"
            what = "no content at all" if not message.content else "only empty or whitespace text"
            problems.append(
                Problem(
                    code="empty_message",
                    message_index=i,
                    severity=severity,
                    message=f"the {message.role} message has {what}; {provider} expects non-empty content",
                )
            )
    return problems


def _block_ids(block: Block) -> tuple[str | None, str | None]:
    match block:
        case ToolCallBlock():
            return block.id, block.name
        case ToolResultBlock():
            return block.call_id, block.name
        case TextBlock() | HintBlock() | DataBlock() | ThinkingBlock() | RedactedThinkingBlock():
            return None, None
        case _:
            assert_never(block)


def _describe_ids(call_id: str | None, tool_name: str | None) -> str:
    parts = []
    if call_id is not None:
        parts.append(f"id {call_id!r}")
    if tool_name:
        parts.append(f"tool {tool_name!r}")
    return f" ({', '.join(parts)})" if parts else ""


def _join(kinds: Sequence[str]) -> str:
    return ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else kinds[0]


def _check_call_ids(messages: Sequence[Message], provider: Provider) -> list[Problem]:
    problems: list[Problem] = []
    first: dict[str, int] = {}
    for i, message in enumerate(messages):
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            if not call.id:
                problems.append(
                    Problem(
                        code="invalid_call_id",
                        message_index=i,
                        severity="error",
                        message=f"tool call to {call.name!r} has an empty id; results cannot refer to it",
                        call_id=call.id,
                        tool_name=call.name,
                    )
                )
            elif provider == "anthropic" and not _ANTHROPIC_ID.fullmatch(call.id):
                problems.append(
                    Problem(
                        code="invalid_call_id",
                        message_index=i,
                        severity="error",
                        message=(
                            f"tool call id {call.id!r} ({call.name}) does not match Anthropic's pattern "
                            "^[a-zA-Z0-9_-]+$; rename it (and its result's id) before sending"
                        ),
                        call_id=call.id,
                        tool_name=call.name,
                    )
                )
            if call.id in first:
                # OpenAI pairs results with the calls of the message right before them, so it accepts an id
                # reused in a later message (real gpt-4o transcripts do this); Anthropic rejects any reuse.
                earlier = first[call.id]
                reused_later = provider == "openai" and earlier != i
                where = "an earlier message" if earlier != i else "the same message"
                consequence = (
                    "OpenAI accepts it, but Anthropic rejects reused ids and tools that match results by id get "
                    "confused"
                    if reused_later
                    else "every tool call needs a unique id so its result can be matched"
                )
                problems.append(
                    Problem(
                        code="duplicate_call_id",
                        message_index=i,
                        severity="warning" if reused_later else "error",
                        message=(
                            f"tool call id {call.id!r} ({call.name}) is already used by a call in {where} "
                            f"(message {earlier}); {consequence}"
                        ),
                        call_id=call.id,
                        tool_name=call.name,
                    )
                )
            else:
                first[call.id] = i
    return problems


# --- tool pairing ------------------------------------------------------------------------------


def _first_calls(messages: Sequence[Message]) -> dict[str, _Call]:
    """The first call made per id (linear: one dict for the whole conversation).

    The first call with an id made strictly before index ``i`` is this call when
    its index is below ``i``, else there is none: no per-index copies needed.
    """
    first: dict[str, _Call] = {}
    for i, message in enumerate(messages):
        if message.role == "assistant":
            for call in message.tool_calls:
                first.setdefault(call.id, _Call(i, call))
    return first


def _result_blocks(message: Message) -> list[ToolResultBlock]:
    return list(message.tool_results) if message.role in ("tool", "user") else []


class _Pairing:
    """Shared bookkeeping for both providers: which results answer which calls, and what is wrong."""

    def __init__(self, messages: Sequence[Message], provider: Provider) -> None:
        self.messages = messages
        self.provider = provider
        self.first_calls = _first_calls(messages)
        self.problems: list[Problem] = []
        roles = ("tool",) if provider == "openai" else ("tool", "user")
        self.last_result: dict[str, int] = {}
        """Index of the last message holding a result for each call id (a result out of place still counts)."""
        for i, message in enumerate(messages):
            if message.role in roles:
                for block in message.tool_results:
                    self.last_result[block.call_id] = i
        self.groups: list[_Group] = []

    def result(self, result: _Result, group: _Group | None, rule: str) -> None:
        """Check one result against the group it may answer (None when no group may be answered here)."""
        block = result.block
        name = block.name
        if group is not None and block.call_id in group.calls:
            call = group.calls[block.call_id]
            name = name or call.block.name
            if block.call_id in group.answered:
                self.problems.append(
                    Problem(
                        code="duplicate_tool_result",
                        message_index=result.index,
                        severity="error",
                        message=(
                            f"second tool result for call {block.call_id!r} ({name}, called in message "
                            f"{call.index}); each tool call takes exactly one result"
                        ),
                        call_id=block.call_id,
                        tool_name=name,
                    )
                )
            else:
                group.answered.add(block.call_id)
            return
        earlier = self.first_calls.get(block.call_id)
        if earlier is None or earlier.index >= result.index:
            self.problems.append(
                Problem(
                    code="orphan_tool_result",
                    message_index=result.index,
                    severity="error",
                    message=(
                        f"tool result for call {block.call_id!r}{_tool(name)} answers no earlier tool call: "
                        f"no assistant message before it calls {block.call_id!r}; {rule}"
                    ),
                    call_id=block.call_id,
                    tool_name=name,
                )
            )
            return
        name = name or earlier.block.name
        self.problems.append(
            Problem(
                code="misplaced_tool_result",
                message_index=result.index,
                severity="error",
                message=(
                    f"tool result for call {block.call_id!r} ({name}) is not where {self.provider} expects it: "
                    f"the call is in message {earlier.index}, and {rule}"
                ),
                call_id=block.call_id,
                tool_name=name,
            )
        )

    def close(self, group: _Group, next_index: int | None, expected: str) -> None:
        """Report the calls of a finished group that got no result (``next_index`` None: end of conversation)."""
        for call_id, call in group.calls.items():
            if call_id in group.answered or self.last_result.get(call_id, -1) > call.index:
                continue  # answered, or answered out of place (reported on the result)
            name = call.block.name
            if next_index is None:
                self.problems.append(
                    Problem(
                        code="pending_tool_call",
                        message_index=call.index,
                        severity="info",
                        message=(
                            f"tool call {call_id!r} ({name}) has no result yet; the conversation ends on it, "
                            "so the agent runs it next (send its result before the next model call)"
                        ),
                        call_id=call_id,
                        tool_name=name,
                    )
                )
                continue
            found = self.messages[next_index].role
            self.problems.append(
                Problem(
                    code="missing_tool_result",
                    message_index=call.index,
                    severity="error",
                    message=(
                        f"tool call {call_id!r} ({name}) has no tool result: {expected} (message "
                        f"{next_index} is a {found} message that does not answer it)"
                    ),
                    call_id=call_id,
                    tool_name=name,
                )
            )


def _tool(name: str | None) -> str:
    return f" ({name})" if name else ""


def _pair_openai(messages: Sequence[Message]) -> list[Problem]:
    """OpenAI: the tool messages right after an assistant message with tool_calls answer each of its calls."""
    pairing = _Pairing(messages, "openai")
    group: _Group | None = None
    for i, message in enumerate(messages):
        if message.role == "tool":
            rule = (
                "messages with role 'tool' must directly follow the assistant message with 'tool_calls' "
                "(or another tool message answering it)"
            )
            if group is not None:
                rule = (
                    f"the tool messages after message {group.last_index} may answer only the calls of "
                    f"message {group.last_index}"
                )
            elif i > 0:
                rule = f"message {i - 1} right before it is a {messages[i - 1].role} message; " + rule
            for block in _result_blocks(message):
                pairing.result(_Result(i, block), group, rule)
            continue
        if message.role == "assistant" and _thinking_only(message):
            continue  # the OpenAI renderer drops a thinking-only message: it separates nothing
        if group is not None:
            pairing.close(
                group, i, f"the tool messages right after message {group.last_index} must answer each of its calls"
            )
            group = None
        if message.role == "assistant" and message.tool_calls:
            calls: dict[str, _Call] = {}
            for call in message.tool_calls:
                calls.setdefault(call.id, _Call(i, call))
            group = _Group(calls=calls, last_index=i, answered=set())
    if group is not None:
        pairing.close(group, None, "")
    return pairing.problems


def _pair_responses(messages: Sequence[Message]) -> list[Problem]:
    """Responses API: every output item answers an earlier call item, and every call gets a later output.

    Each item is its own canonical message, so parallel calls are consecutive
    assistant messages followed by their outputs; a call with no output is
    pending (``info``) while only assistant items and outputs follow it.
    """
    pairing = _Pairing(messages, "responses")
    group = _Group(calls={}, last_index=-1, answered=set())
    for i, message in enumerate(messages):
        if message.role == "tool":
            rule = "an output item must come after the call item with the same call_id"
            for block in _result_blocks(message):
                pairing.result(_Result(i, block), group, rule)
        elif message.role == "assistant":
            for made in message.tool_calls:
                group.calls.setdefault(made.id, _Call(i, made))
    for call_id, call in group.calls.items():
        if call_id in group.answered:
            continue
        ended = next((j for j in range(call.index + 1, len(messages)) if messages[j].role in ("user", "system")), None)
        if ended is None:
            pairing.problems.append(
                Problem(
                    code="pending_tool_call",
                    message_index=call.index,
                    severity="info",
                    message=f"call item {call_id!r} ({call.block.name}) has no output yet; the agent runs it next",
                    call_id=call_id,
                    tool_name=call.block.name,
                )
            )
            continue
        pairing.problems.append(
            Problem(
                code="missing_tool_result",
                message_index=call.index,
                severity="error",
                message=(
                    f"call item {call_id!r} ({call.block.name}) has no function_call_output before message "
                    f"{ended} ({messages[ended].role}); the Responses API rejects a call without its output"
                ),
                call_id=call_id,
                tool_name=call.block.name,
            )
        )
    return pairing.problems


_ANTHROPIC_CONTENT = "anthropic.content"
"""Message meta key the Anthropic adapter sets on messages read from Anthropic documents (kept in sync by a test)."""
_ANTHROPIC_NEW_TURN = "anthropic.new_turn"
"""Message meta key: the original document had two turns of the same side in a row, so the renderer does not merge."""


def _anthropic_drops(message: Message) -> bool:
    """Whether the Anthropic renderer leaves this message out (nothing it can carry, not from an Anthropic file)."""
    if _ANTHROPIC_CONTENT in message.meta:
        return False
    return all(isinstance(b, TextBlock) and not b.text.strip() for b in message.content)


def anthropic_turns(messages: Sequence[Message]) -> list[tuple[Literal["user", "assistant"], list[int]]]:
    """The turns the Anthropic renderer sends, as lists of canonical indexes.

    Leading system messages go to the top-level ``system`` field and belong to
    no turn; a later system message becomes user text. Consecutive
    ``user``/``tool``/``system`` messages form one user turn (tool results
    moved first) and consecutive ``assistant`` messages one assistant turn,
    unless the message is flagged ``anthropic.new_turn``. Messages with
    nothing to send are left out.
    """
    turns: list[tuple[Literal["user", "assistant"], list[int]]] = []
    for i in range(_leading_system(messages), len(messages)):
        message = messages[i]
        if _anthropic_drops(message):
            continue
        side: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        if turns and turns[-1][0] == side and not message.meta.get(_ANTHROPIC_NEW_TURN):
            turns[-1][1].append(i)
        else:
            turns.append((side, [i]))
    return turns


def _leading_system(messages: Sequence[Message]) -> int:
    start = 0
    while start < len(messages) and messages[start].role == "system":
        start += 1
    return start


def _check_anthropic_turns(messages: Sequence[Message]) -> list[Problem]:
    problems: list[Problem] = []
    turns = anthropic_turns(messages)
    if not turns:
        problems.append(
            Problem(
                code="first_message_role",
                message_index=None,
                severity="error",
                message="the conversation has no user or assistant message; Anthropic needs at least one user message",
            )
        )
        return problems
    first = turns[0][1][0]
    if turns[0][0] != "user":
        problems.append(
            Problem(
                code="first_message_role",
                message_index=first,
                severity="error",
                message=(
                    f"the first message after the system prompt is an {messages[first].role} message; "
                    "Anthropic requires the conversation to start with a user message"
                ),
            )
        )
    for (side_a, idx_a), (side_b, idx_b) in itertools.pairwise(turns):
        if side_a == side_b:  # only when the document asked not to merge (anthropic.new_turn)
            problems.append(
                Problem(
                    code="alternation",
                    message_index=idx_b[0],
                    severity="warning",
                    message=(
                        f"two {side_a} turns in a row (messages {idx_a[-1]} and {idx_b[0]} are sent as separate "
                        f"{side_a} messages); Anthropic expects user and assistant turns to alternate (the API "
                        "merges them, some gateways reject them)"
                    ),
                )
            )
    for side, indexes in turns:
        if side == "assistant":
            problems += _thinking_order(messages, indexes)
    return problems


def _thinking_order(messages: Sequence[Message], indexes: list[int]) -> list[Problem]:
    """Within one merged assistant turn, thinking blocks come before any text or tool call."""
    problems: list[Problem] = []
    first_other: int | None = None
    for i in indexes:
        reported = False
        for block in messages[i].content:
            if block.kind in ("thinking", "redacted_thinking"):
                if first_other is not None and not reported:
                    reported = True
                    where = "earlier in this message" if first_other == i else f"in message {first_other}"
                    problems.append(
                        Problem(
                            code="thinking_placement",
                            message_index=i,
                            severity="error",
                            message=(
                                f"a {block.kind} block comes after text or a tool call of the same assistant turn "
                                f"({where}); Anthropic requires thinking blocks first in the turn"
                            ),
                        )
                    )
            elif first_other is None:
                first_other = i
    return problems


def _pair_anthropic(messages: Sequence[Message]) -> list[Problem]:
    """Anthropic: the user turn right after an assistant turn starts with a tool_result for each tool_use."""
    pairing = _Pairing(messages, "anthropic")
    group: _Group | None = None
    turns = anthropic_turns(messages)
    for side, indexes in turns:
        if side == "assistant":
            if group is not None:
                pairing.close(
                    group,
                    indexes[0],
                    f"the user turn right after message {group.last_index} must hold its tool_result",
                )
            calls: dict[str, _Call] = {}
            for i in indexes:
                for call in messages[i].tool_calls:
                    calls.setdefault(call.id, _Call(i, call))
            group = _Group(calls=calls, last_index=indexes[-1], answered=set()) if calls else None
            continue
        for i in indexes:
            for block in messages[i].tool_results:
                if group is None:
                    rule = "each tool_result must answer a tool_use of the assistant turn right before its user turn"
                else:
                    rule = f"the user turn after message {group.last_index} may answer only the calls of that turn"
                pairing.result(_Result(i, block), group, rule)
        if group is not None:
            if indexes is turns[-1][1] and all(messages[i].role == "tool" for i in indexes):
                pairing.close(group, None, "")  # the agent is still running the remaining calls
            else:
                pairing.close(
                    group,
                    indexes[0],
                    f"the user turn right after message {group.last_index} must hold its tool_result",
                )
            group = None
    if group is not None:
        pairing.close(group, None, "")
    return pairing.problems


def _thinking_only(message: Message) -> bool:
    return bool(message.content) and all(b.kind in ("thinking", "redacted_thinking") for b in message.content)
