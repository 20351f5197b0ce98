"""The three wire formats the proxy rewrites, seen as lists of messages it can hash, count, cut and splice.

A request body is parsed once (orjson). Its message list is split into a
*head* that is never compacted (OpenAI's leading system/developer messages,
Responses' leading system/developer items; Anthropic keeps its system prompt
in ``system``) and a *body*. Each body message is handled as the client's own
JSON object, never re-rendered: the proxy only drops a covered prefix,
splices stored bytes in front, and (for an oversized tool result) swaps one
message for a stored rewrite. The library's formats convert single messages
to canonical `Message`s for counting and compaction, and render the summary.

`message_hash` is canonical: it ignores ``cache_control`` anywhere in the
message and a lone text's string-vs-block form, so a client that moves its
breakpoints, or writes the same text once as ``"x"`` and once as
``[{"type": "text", "text": "x"}]``, still matches its stored lineage; the
system prompt that names a lineage is read the same way (`system_identity`).

Anthropic's server-side compaction (``compact_20260112``) answers with an
assistant ``compaction`` block, and the API drops everything before the latest
such block. The message holding it (and the one answering its tool calls) is
the end of the head: forwarded as sent, never compacted, and counted as the
block's summary and what follows it, not as the history it replaced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import orjson

from contextfold._errors import InputError
from contextfold._formats._anthropic import anthropic_to_messages, is_compaction_boundary, messages_to_anthropic
from contextfold._formats._openai import messages_to_openai, openai_to_messages
from contextfold._formats._providers import ProviderName
from contextfold._formats._responses import (
    KEEP_TYPES,
    item_type,
    parse_item,
    render_message,
    responses_to_messages,
)
from contextfold._messages import Message

__all__ = [
    "FORMATS",
    "WireFormat",
    "WireName",
    "chain_hash",
    "message_hash",
    "strip_breakpoints",
]

WireName: TypeAlias = ProviderName
"""The wire format of a request: a `ProviderName` (the proxy speaks every one)."""
_TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
_BREAKPOINT = "cache_control"
EPHEMERAL: Mapping[str, Any] = {"type": "ephemeral"}


def _lone_text(parts: list[Any]) -> Any:
    """A list holding one plain text part, as its string; anything else unchanged."""
    if len(parts) == 1:
        only = parts[0]
        if isinstance(only, dict) and len(only) == 2 and only.get("type") in _TEXT_TYPES and "text" in only:
            return only["text"]
    return parts


def _canon_parts(parts: list[Any]) -> Any:
    out: list[Any] | None = None
    for i, part in enumerate(parts):
        new = _canon_node(part)
        if new is not part and out is None:
            out = list(parts[:i])
        if out is not None:
            out.append(new)
    return _lone_text(out if out is not None else parts)


def _canon_node(node: Any) -> Any:
    """A message, block or part without breakpoints, lone texts as strings (only where those can occur)."""
    if not isinstance(node, dict):
        return node
    changed = _BREAKPOINT in node
    nested: dict[str, Any] = {}
    for key in ("content", "output"):
        value = node.get(key)
        if isinstance(value, list):
            new = _canon_parts(value)
            if new is not value:
                nested[key] = new
    if not changed and not nested:
        return node
    out = {k: v for k, v in node.items() if k != _BREAKPOINT}
    out.update(nested)
    return out


def message_hash(message: Any) -> str:
    """Canonical hash of one wire message (see the module docstring), 32 hex digits.

    Only the places where breakpoints and text parts live are walked (the message, its blocks, a tool result's
    blocks); everything else is hashed as it is. SHA-256: hardware-accelerated here, faster than BLAKE2.
    """
    return hashlib.sha256(orjson.dumps(_canon_node(message))).hexdigest()[:32]


def chain_hash(previous: str, item: str) -> str:
    """The hash of a prefix extended by one message hash (a prefix's identity, in O(1) per step)."""
    return hashlib.blake2b(f"{previous}:{item}".encode(), digest_size=16).hexdigest()


def count_breakpoints(value: Any) -> int:
    """Number of ``cache_control`` markers anywhere in ``value`` (Anthropic allows at most four)."""
    if isinstance(value, dict):
        return (_BREAKPOINT in value) + sum(count_breakpoints(v) for v in value.values() if isinstance(v, dict | list))
    if isinstance(value, list):
        return sum(count_breakpoints(v) for v in value if isinstance(v, dict | list))
    return 0


def strip_breakpoints(value: Any) -> Any:
    """A copy of ``value`` without any ``cache_control`` marker."""
    if isinstance(value, dict):
        return {k: strip_breakpoints(v) for k, v in value.items() if k != _BREAKPOINT}
    if isinstance(value, list):
        return [strip_breakpoints(v) for v in value]
    return value


def transfer_breakpoints(client: Any, rewritten: dict[str, Any]) -> dict[str, Any]:
    """``rewritten`` with the client's current breakpoints put back on the same blocks (by position).

    A breakpoint on a block inside a ``tool_result`` goes back on the same inner block when the rewrite kept the
    result's blocks, else on its last inner block (a cut result ends with its notice and tail), else on the
    ``tool_result`` block itself (a result rewritten as one string): it still closes the same result.
    ``rewritten`` itself (not a copy) when the client's message carries none there: a caller can tell by identity
    that the stored bytes go out unchanged. Never modifies ``rewritten``.
    """
    if not isinstance(client, dict) or not _has_breakpoint(client):
        return rewritten
    out = dict(rewritten)
    if _BREAKPOINT in client:
        out[_BREAKPOINT] = client[_BREAKPOINT]
    theirs, ours = client.get("content"), out.get("content")
    if isinstance(theirs, list) and isinstance(ours, list):
        blocks = list(ours)
        for i, block in enumerate(theirs):
            if i >= len(blocks) or not isinstance(block, dict) or not isinstance(blocks[i], dict):
                continue
            if _BREAKPOINT in block:
                blocks[i] = {**blocks[i], _BREAKPOINT: block[_BREAKPOINT]}
            inner = block.get("content")
            if block.get("type") == "tool_result" and isinstance(inner, list):
                blocks[i] = _transfer_inner(inner, blocks[i])
        out["content"] = blocks
    return out


def _transfer_inner(theirs: list[Any], result: dict[str, Any]) -> dict[str, Any]:
    """The rewritten ``tool_result`` block with the breakpoints of the client's inner blocks (``theirs``)."""
    marks = [(j, b[_BREAKPOINT]) for j, b in enumerate(theirs) if isinstance(b, dict) and _BREAKPOINT in b]
    if not marks:
        return result
    ours = result.get("content")
    if not isinstance(ours, list) or not ours or not all(isinstance(b, dict) for b in ours):
        return {**result, _BREAKPOINT: marks[-1][1]}
    inner = list(ours)
    for j, mark in marks:
        at = j if len(inner) == len(theirs) else len(inner) - 1
        inner[at] = {**inner[at], _BREAKPOINT: mark}
    return {**result, "content": inner}


def _has_breakpoint(message: dict[str, Any]) -> bool:
    """Whether `transfer_breakpoints` has anything to move: a marker on the message, a block or a result's block."""
    if _BREAKPOINT in message:
        return True
    content = message.get("content")
    if not isinstance(content, list):
        return False
    for block in content:
        if isinstance(block, dict):
            if _BREAKPOINT in block:
                return True
            inner = block.get("content")
            if isinstance(inner, list) and any(isinstance(b, dict) and _BREAKPOINT in b for b in inner):
                return True
    return False


@dataclass(frozen=True, slots=True)
class Split:
    """A request's message list cut into what is never compacted and what may be."""

    head: list[Any]
    body: list[Any]


class WireFormat:
    """One wire format: where its messages live and how one becomes canonical."""

    name: WireName = "openai"
    key = "messages"
    """The body key holding the message list."""
    summary_role = "user"
    keep_first = True
    """Carried items go before the summary (provider memory of the earliest turns) rather than after it."""

    def messages_of(self, body: Mapping[str, Any]) -> list[Any] | None:
        """The message list of a request body, or None when it has none we can work on."""
        value = body.get(self.key)
        return value if isinstance(value, list) else None

    def split(self, body: Mapping[str, Any], messages: list[Any]) -> Split:
        """Head (never compacted) and body of the message list."""
        n = 0
        while n < len(messages) and self._is_head(messages[n]):
            n += 1
        return Split(messages[:n], messages[n:])

    def _is_head(self, message: Any) -> bool:
        return isinstance(message, dict) and message.get("role") in ("system", "developer")

    def system_messages(self, body: Mapping[str, Any], head: Sequence[Any]) -> list[Message]:
        """Canonical system messages: the prompt, never compacted."""
        return openai_to_messages(head) if head else []

    def system_identity(self, body: Mapping[str, Any], head: Sequence[Any]) -> Any:
        """What, besides tools and the model family, names the lineage: the system prompt.

        A lone text counts the same in string or block form; the caller drops the breakpoints.
        """
        return [_canon_node(m) for m in head]

    def canonical(self, index: int, message: Any) -> list[Message]:
        """One wire message as canonical messages (one or more, in order)."""
        return openai_to_messages([message])

    def is_user(self, message: Any) -> bool:
        """Whether a wire message is a user turn (the summary may not be followed by one where that matters)."""
        return isinstance(message, dict) and message.get("role") == "user"

    def must_keep(self, message: Any) -> bool:
        """Whether a compacted message must nevertheless be carried forward verbatim (provider memory)."""
        return False

    def glued_to_next(self, message: Any) -> bool:
        """Whether no cut may fall right after this message (it needs the next one)."""
        return False

    def render_summary(self, summary: Message, next_message: Any | None) -> list[dict[str, Any]]:
        """The wire messages that stand for the compacted part (the summary, plus what the format needs)."""
        return messages_to_openai([summary])

    def render_one(self, messages: Sequence[Message]) -> dict[str, Any]:
        """The canonical messages of one wire message rendered back into one wire message."""
        [one] = messages_to_openai(messages)
        return one

    def has_tool_result(self, message: Any) -> bool:
        """Whether a wire message carries a tool result (only those are cut when oversized)."""
        return isinstance(message, dict) and message.get("role") == "tool"

    def fixed_results(self, message: Any) -> frozenset[str]:
        """Call ids of the message's tool results that must go out as sent (content the canonical model lacks)."""
        return frozenset()

    def merge_rewrite(self, client: Any, rendered: dict[str, Any]) -> dict[str, Any]:
        """The rewritten message to store: ``rendered``, with what the rewrite did not change as the client sent it.

        ``rendered`` is the message re-rendered from canonical form with its results cut.
        """
        return rendered


class OpenAIChat(WireFormat):
    """``POST /v1/chat/completions``."""

    name: WireName = "openai"

    def canonical(self, index: int, message: Any) -> list[Message]:
        if isinstance(message, dict) and message.get("role") == "function":
            # The legacy ``functions`` API: the answer to the assistant's ``function_call`` (no call id), read as
            # the user text it is for counting and digesting; never cut (not a ``tool`` message).
            content = message.get("content")
            text = content if isinstance(content, str) else orjson.dumps(content).decode()
            return [Message.text_message("user", f"[function {message.get('name')}] {text}")]
        return openai_to_messages([message])

    def glued_to_next(self, message: Any) -> bool:
        # A legacy ``function_call`` and the ``function`` message answering it are never separated by a cut.
        return isinstance(message, dict) and message.get("role") == "assistant" and bool(message.get("function_call"))


class AnthropicMessages(WireFormat):
    """``POST /v1/messages``: system prompt at the top level, tool results inside user messages."""

    name: WireName = "anthropic"
    keep_first = False

    def _is_head(self, message: Any) -> bool:
        return False

    def split(self, body: Mapping[str, Any], messages: list[Any]) -> Split:
        # The API drops everything before the latest compaction block: the head ends with the message holding it
        # (and the answer to its tool calls, which must stay with it); what follows is compacted as usual.
        at = compaction_at(messages)
        if at < 0:
            return Split([], messages)
        end = at + 1
        if end < len(messages) and _calls_tools(messages[at]):
            end += 1
        return Split(messages[:end], messages[end:])

    def system_messages(self, body: Mapping[str, Any], head: Sequence[Any]) -> list[Message]:
        system = body.get("system")
        out = [] if system is None else anthropic_to_messages([], system)
        if head:
            # What the model reads of the head: the compaction block's summary and what follows it, as fixed
            # context (a leading system message is never compacted); what precedes it the API drops.
            at = compaction_at(head)
            text = "\n".join(_effective_text(m, first=k == 0) for k, m in enumerate(head[at:]))
            out.append(Message.text_message("system", text))
        return out

    def system_identity(self, body: Mapping[str, Any], head: Sequence[Any]) -> Any:
        system = body.get("system")
        prompt = _canon_parts(system) if isinstance(system, list) else system
        if not head:
            return prompt
        # A new server compaction starts a new lineage (what it replaced is gone for the API, and so is the cache).
        return [prompt, [message_hash(m) for m in head[compaction_at(head) :]]]

    def canonical(self, index: int, message: Any) -> list[Message]:
        try:
            if isinstance(message, dict) and message.get("role") == "system":
                raise InputError("a system message inside 'messages'")
            return anthropic_to_messages([message])
        except InputError:
            return anthropic_to_messages([_lenient(message)])

    def must_keep(self, message: Any) -> bool:
        # Claude Code's per-turn-control beta puts `role: system` messages (environment, date, deferred tools)
        # inside `messages`: context the model needs, never ours to summarize away.
        return isinstance(message, dict) and message.get("role") == "system"

    def render_summary(self, summary: Message, next_message: Any | None) -> list[dict[str, Any]]:
        _, rendered = messages_to_anthropic([summary])
        if next_message is not None and self.is_user(next_message):
            # Keep the roles alternating: a short assistant turn between the summary and the next user turn.
            rendered.append({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]})
        return rendered

    def render_one(self, messages: Sequence[Message]) -> dict[str, Any]:
        _, rendered = messages_to_anthropic(messages)
        [one] = rendered
        return one

    def has_tool_result(self, message: Any) -> bool:
        if not isinstance(message, dict) or message.get("role") != "user":
            return False
        content = message.get("content")
        return isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        )

    def fixed_results(self, message: Any) -> frozenset[str]:
        # A result holding blocks the canonical model does not know (`search_result`, future types) is read
        # leniently, as text naming them: cutting that text would forward our rendering, not the client's blocks.
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return frozenset()
        return frozenset(
            str(b.get("tool_use_id"))
            for b in content
            if isinstance(b, dict) and b.get("type") == "tool_result" and not _known_result(b)
        )

    def merge_rewrite(self, client: Any, rendered: dict[str, Any]) -> dict[str, Any]:
        # Only the tool_result blocks are ours; every other block (text with citations, `search_result`,
        # `container_upload`, ...) and every result left as it was goes out as the client's own block.
        theirs, ours = client.get("content") if isinstance(client, dict) else None, rendered.get("content")
        if not isinstance(theirs, list) or not isinstance(ours, list):
            return rendered
        results: dict[Any, Any] = {}
        for block in ours:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.setdefault(block.get("tool_use_id"), block)
        fixed = self.fixed_results(client)
        merged = [
            results.get(b.get("tool_use_id"), b)
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") not in fixed
            else b
            for b in theirs
        ]
        return {**client, "content": merged}


def compaction_at(messages: Sequence[Any]) -> int:
    """Index of the latest assistant message holding a server-side ``compaction`` block, or -1.

    The wire twin of the library's `fixed_prefix_count` (both read `is_compaction_boundary`): a block whose
    ``content`` is null is a failed compaction, which the API treats as a no-op, not a boundary.
    """
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, list) and any(is_compaction_boundary(block) for block in content):
            return i
    return -1


def _calls_tools(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)


def _effective_text(message: Any, *, first: bool) -> str:
    """The text a head message puts before the model, for counting: from its compaction block on (``first``)."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return content if isinstance(content, str) else orjson.dumps(content).decode()
    if first:
        start = max(i for i, b in enumerate(content) if isinstance(b, dict) and b.get("type") == "compaction")
        content = content[start:]
    parts = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "compaction":
            parts.append(str(block.get("content") or ""))
        else:
            parts.append(orjson.dumps(block).decode())
    return "\n".join(parts)


_ANTHROPIC_USER_BLOCKS = frozenset({"text", "image", "document", "tool_result"})
_ANTHROPIC_RESULT_BLOCKS = frozenset({"text", "image", "document"})


def _known_result(block: Mapping[str, Any]) -> bool:
    """Whether a ``tool_result`` block holds only what the canonical model reads (a string or known blocks)."""
    content = block.get("content")
    if not isinstance(content, list):
        return True
    return all(isinstance(inner, dict) and inner.get("type") in _ANTHROPIC_RESULT_BLOCKS for inner in content)


_ANTHROPIC_ASSISTANT_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use"})


def _lenient(message: Any) -> dict[str, Any]:
    """A message the canonical model can read, for counting and digesting only (never forwarded).

    A ``system`` role becomes ``user``; blocks the model does not know (server tools, references, future
    types; also inside a tool result) become a text naming them, so the known blocks (tool calls, results) keep
    their pairing.
    """
    if not isinstance(message, dict):
        raise InputError(f"expected a message object, found {type(message).__name__}")
    role = "assistant" if message.get("role") == "assistant" else "user"
    content = message.get("content")
    allowed = _ANTHROPIC_ASSISTANT_BLOCKS if role == "assistant" else _ANTHROPIC_USER_BLOCKS
    if isinstance(content, list):
        blocks = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and not _known_result(block):
                inner = [_known(b, _ANTHROPIC_RESULT_BLOCKS) for b in block["content"]]
                blocks.append({**block, "content": inner})
            else:
                blocks.append(_known(block, allowed))
        content = blocks
    elif not isinstance(content, str):
        content = orjson.dumps(content).decode()
    return {"role": role, "content": content}


def _known(block: Any, allowed: frozenset[str]) -> Any:
    """A block of an ``allowed`` type as it is; any other as a text naming it, with its JSON."""
    if isinstance(block, dict) and block.get("type") in allowed:
        return block
    kind = block.get("type") if isinstance(block, dict) else type(block).__name__
    # The whole block, not an excerpt: the text is what the block is counted as (a server tool's output or a
    # search result can hold most of a request's tokens).
    return {"type": "text", "text": f"[{kind}] " + orjson.dumps(block).decode()}


class Responses(WireFormat):
    """``POST /v1/responses``: ``instructions`` plus ``input`` items, one item per canonical message."""

    name: WireName = "responses"
    key = "input"

    def system_messages(self, body: Mapping[str, Any], head: Sequence[Any]) -> list[Message]:
        instructions = body.get("instructions")
        return responses_to_messages(list(head), instructions if isinstance(instructions, str) else None)

    def system_identity(self, body: Mapping[str, Any], head: Sequence[Any]) -> Any:
        return [body.get("instructions"), [_canon_node(m) for m in head]]

    def _is_head(self, message: Any) -> bool:
        return (
            isinstance(message, dict)
            and item_type(message) == "message"
            and message.get("role")
            in (
                "system",
                "developer",
            )
        )

    def canonical(self, index: int, message: Any) -> list[Message]:
        return [parse_item(index, message)]

    def must_keep(self, message: Any) -> bool:
        return isinstance(message, dict) and item_type(message) in KEEP_TYPES

    def glued_to_next(self, message: Any) -> bool:
        return isinstance(message, dict) and item_type(message) == "reasoning"

    def render_summary(self, summary: Message, next_message: Any | None) -> list[dict[str, Any]]:
        return render_message(0, summary)

    def render_one(self, messages: Sequence[Message]) -> dict[str, Any]:
        [message] = messages
        [one] = render_message(0, message)
        return one

    def has_tool_result(self, message: Any) -> bool:
        return isinstance(message, dict) and item_type(message) in ("function_call_output", "custom_tool_call_output")


FORMATS: dict[WireName, WireFormat] = {
    "anthropic": AnthropicMessages(),
    "openai": OpenAIChat(),
    "responses": Responses(),
}
