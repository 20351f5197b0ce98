"""The end-to-end checks, as reusable functions over the requests a scripted upstream recorded.

Each check takes the recorded requests (`upstream.Recorded`) and returns a report (a dataclass with the numbers
and a ``problems`` list of sentences); the tests assert on the reports. Nothing here knows which hop (direct or
through a proxy) produced the requests.

- `fit_report`: every request's size in tokens (contextfold's counter over the canonical messages, plus the system
  prompt and the tool schemas) against a window.
- `pairing_report`: every request is pairing-valid for its wire format: `contextfold.validate` for Anthropic
  Messages; `responses_problems` (an independent validator written here) for the OpenAI Responses API.
- `prefix_report`: prompt-cache stability between consecutive requests of the main conversation (defined in
  `prefix_relation`).
- `key_report`: the client's key reached the upstream unchanged on every request.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from upstream import Recorded

import contextfold
from contextfold import (
    Message,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    TokenCounter,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._markers import SUMMARY_HEADER_PREFIX

__all__ = [
    "SUMMARY_HEADER_PREFIX",
    "FitReport",
    "KeyReport",
    "PairingReport",
    "PrefixReport",
    "WireRequest",
    "fit_report",
    "history_elements",
    "key_report",
    "pairing_report",
    "parse_all",
    "parse_request",
    "prefix_relation",
    "prefix_report",
    "request_tokens",
    "responses_problems",
]

WireFormat = Literal["anthropic", "responses"]

# --------------------------------------------------------------------------------------------------------------
# Parsing a recorded request, keeping the raw text of each history element


@dataclass(frozen=True)
class WireRequest:
    """A recorded model request, parsed: its format, body, and the raw text of each history element."""

    recorded: Recorded
    format: WireFormat
    body: dict[str, Any]
    text: str
    history: list[Any]
    raw_history: list[str]
    raw_fields: dict[str, str]
    _tokens: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def index(self) -> int:
        return self.recorded.index

    @property
    def role(self) -> str:
        return self.recorded.role


_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, idx: int) -> int:
    match = _WS.match(text, idx)
    return match.end() if match else idx


def _top_level_spans(text: str) -> tuple[dict[str, tuple[int, int]], dict[str, list[tuple[int, int]]]]:
    """Spans of every top-level value of a JSON object, and of the elements of every top-level array."""
    values: dict[str, tuple[int, int]] = {}
    elements: dict[str, list[tuple[int, int]]] = {}
    idx = _skip(text, 0)
    if text[idx : idx + 1] != "{":
        raise ValueError("the body is not a JSON object")
    idx = _skip(text, idx + 1)
    if text[idx : idx + 1] == "}":
        return values, elements
    while True:
        if text[idx] != '"':
            raise ValueError(f"expected a key at offset {idx}")
        key, idx = json.decoder.scanstring(text, idx + 1)  # type: ignore[attr-defined]
        idx = _skip(text, idx)
        if text[idx] != ":":
            raise ValueError(f"expected ':' at offset {idx}")
        idx = _skip(text, idx + 1)
        start = idx
        if text[idx] == "[":
            spans: list[tuple[int, int]] = []
            idx = _skip(text, idx + 1)
            if text[idx] != "]":
                while True:
                    _, end = _DECODER.raw_decode(text, idx)
                    spans.append((idx, end))
                    idx = _skip(text, end)
                    if text[idx] == ",":
                        idx = _skip(text, idx + 1)
                        continue
                    if text[idx] != "]":
                        raise ValueError(f"expected ',' or ']' at offset {idx}")
                    break
            idx += 1
            elements[key] = spans
        else:
            _, idx = _DECODER.raw_decode(text, idx)
        values[key] = (start, idx)
        idx = _skip(text, idx)
        if text[idx] == ",":
            idx = _skip(text, idx + 1)
            continue
        if text[idx] != "}":
            raise ValueError(f"expected ',' or '}}' at offset {idx}")
        return values, elements


def parse_request(recorded: Recorded) -> WireRequest | None:
    """The parsed model request (``None`` for anything that is not one: count_tokens, models, GETs)."""
    if recorded.kind == "messages":
        fmt: WireFormat = "anthropic"
        key = "messages"
        fields = ("system", "tools")
    elif recorded.kind in ("responses", "responses_compact"):
        fmt = "responses"
        key = "input"
        fields = ("instructions", "tools")
    else:
        return None
    text = recorded.text()
    body = json.loads(text)
    values, elements = _top_level_spans(text)
    history = body.get(key)
    if isinstance(history, str):  # the Responses API accepts a bare string input
        history = [{"type": "message", "role": "user", "content": history}]
        raw = [json.dumps(history[0])]
    else:
        history = list(history or [])
        raw = [text[a:b] for a, b in elements.get(key, [])]
    raw_fields = {name: text[a:b] for name, (a, b) in values.items() if name in fields}
    return WireRequest(recorded, fmt, body, text, history, raw, raw_fields)


Requests = Iterable["Recorded | WireRequest"]


def parse_all(requests: Requests) -> list[WireRequest]:
    """The model requests among ``requests``, parsed (already parsed ones kept as they are)."""
    out: list[WireRequest] = []
    for item in requests:
        parsed = item if isinstance(item, WireRequest) else parse_request(item)
        if parsed is not None:
            out.append(parsed)
    return out


def history_elements(request: WireRequest) -> list[str]:
    """The raw JSON text of each element of the history array (``messages`` or ``input``), as sent."""
    return request.raw_history


# --------------------------------------------------------------------------------------------------------------
# Tokens


def _anthropic_canonical(request: WireRequest) -> tuple[list[Message], list[dict[str, Any]]]:
    """Canonical messages of an Anthropic request, and its mid-conversation ``role: system`` messages apart.

    Claude Code 2.1.332 sends ``role: "system"`` messages inside ``messages`` (environment, reminders), which the
    Messages API accepts and contextfold's Anthropic format does not parse (yet): they are taken out here (they
    carry only text) and counted as text.
    """
    kept: list[dict[str, Any]] = []
    system_messages: list[dict[str, Any]] = []
    for message in request.history:
        (system_messages if isinstance(message, dict) and message.get("role") == "system" else kept).append(message)
    system = request.body.get("system")
    messages = contextfold.to_canonical(kept, "anthropic", system if system else None)
    return messages, system_messages


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    for block in content or ():
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                out.append(block["text"])
            else:
                out.append(json.dumps(block, ensure_ascii=False))
    return out


_RESPONSES_ROLES: dict[str, Role] = {"developer": "system", "system": "system", "assistant": "assistant"}


def responses_canonical(items: Sequence[Any], instructions: str | None = None) -> list[Message]:
    """Responses API input items as canonical messages, for counting (an independent mapping, not a format).

    Messages keep their role (``developer`` becomes ``system``); ``function_call``/``custom_tool_call`` become
    tool calls, their outputs tool results; reasoning items a thinking block (summary) plus a redacted one
    (``encrypted_content``); ``compaction`` items a redacted block; anything else its JSON text.
    """
    out: list[Message] = []
    if instructions:
        out.append(Message.text_message("system", instructions))
    for item in items:
        if not isinstance(item, dict):
            out.append(Message.text_message("user", json.dumps(item)))
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role: Role = _RESPONSES_ROLES.get(str(item.get("role")), "user")
            out.append(Message(role=role, content=tuple(TextBlock(text=t) for t in _texts(item.get("content")))))
        elif kind in ("function_call", "custom_tool_call"):
            arguments = item.get("arguments") if kind == "function_call" else item.get("input")
            call = ToolCallBlock(
                id=str(item.get("call_id")), name=str(item.get("name")), arguments=str(arguments or "")
            )
            out.append(Message(role="assistant", content=(call,)))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            text = output if isinstance(output, str) else "\n".join(_texts(output))
            result = ToolResultBlock(call_id=str(item.get("call_id")), content=(TextBlock(text=text),))
            out.append(Message(role="tool", content=(result,)))
        elif kind == "reasoning":
            blocks: list[Any] = [
                ThinkingBlock(thinking=s.get("text", "")) for s in item.get("summary") or () if isinstance(s, dict)
            ]
            if item.get("encrypted_content"):
                blocks.append(RedactedThinkingBlock(data=str(item["encrypted_content"])))
            out.append(Message(role="assistant", content=tuple(blocks)))
        elif kind == "compaction":
            out.append(
                Message(role="assistant", content=(RedactedThinkingBlock(data=str(item.get("encrypted_content"))),))
            )
        else:
            out.append(Message.text_message("user", json.dumps(item, ensure_ascii=False)))
    return out


def request_tokens(request: WireRequest, counter: TokenCounter) -> int:
    """The request's size: canonical messages (system prompt included) plus one count of each tool schema."""
    key = str(counter.key)
    if key not in request._tokens:
        request._tokens[key] = _count(request, counter)
    return request._tokens[key]


def _count(request: WireRequest, counter: TokenCounter) -> int:
    if request.format == "anthropic":
        messages, system_messages = _anthropic_canonical(request)
        total = contextfold.count_messages(counter, messages)
        total += sum(counter.count_text(t) for m in system_messages for t in _texts(m.get("content")))
    else:
        instructions = request.body.get("instructions")
        total = contextfold.count_messages(counter, responses_canonical(request.history, instructions))
    for tool in request.body.get("tools") or ():
        total += counter.count_text(json.dumps(tool, ensure_ascii=False, separators=(",", ":")))
    return total


def part_tokens(request: WireRequest, counter: TokenCounter) -> dict[str, int]:
    """Tokens of the system prompt, the tool schemas and the history apart (for the clients' notes)."""
    tools = sum(
        counter.count_text(json.dumps(t, ensure_ascii=False, separators=(",", ":")))
        for t in request.body.get("tools") or ()
    )
    if request.format == "anthropic":
        system = request.body.get("system")
        sys_tokens = sum(counter.count_text(t) for t in _texts(system)) if system else 0
    else:  # Codex sends no instructions: its base prompt is the developer messages at the head of the input
        sys_tokens = counter.count_text(request.body.get("instructions") or "")
        for item in request.history:
            if not (
                isinstance(item, dict)
                and item.get("type", "message") == "message"
                and item.get("role") in ("developer", "system")
            ):
                break
            sys_tokens += sum(counter.count_text(t) for t in _texts(item.get("content")))
    return {"system": sys_tokens, "tools": tools, "total": request_tokens(request, counter)}


# --------------------------------------------------------------------------------------------------------------
# Fit


@dataclass
class FitReport:
    """Each model request's tokens against the window."""

    window: int
    tokens: list[tuple[int, int]] = field(default_factory=list)  # (request index, tokens)
    problems: list[str] = field(default_factory=list)

    @property
    def max_tokens(self) -> int:
        return max((t for _, t in self.tokens), default=0)

    @property
    def ok(self) -> bool:
        return not self.problems


def fit_report(requests: Requests, window: int, counter: TokenCounter | None = None) -> FitReport:
    """Every model request's size (see `request_tokens`) must be at most ``window``."""
    counter = counter or contextfold.make_counter()
    report = FitReport(window)
    for request in parse_all(requests):
        recorded = request.recorded
        try:
            tokens = request_tokens(request, counter)
        except contextfold.ContextfoldError as exc:  # a request contextfold cannot read is a finding, not a crash
            report.problems.append(f"request {recorded.index} ({recorded.role}) cannot be counted: {exc}")
            continue
        report.tokens.append((recorded.index, tokens))
        if tokens > window:
            report.problems.append(
                f"request {recorded.index} ({recorded.role}, {recorded.path}) has {tokens:,} tokens > window {window:,}"
            )
    return report


# --------------------------------------------------------------------------------------------------------------
# Pairing

_CALLS = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
_OUTPUTS = {v: k for k, v in _CALLS.items()}
_MODEL_ITEMS = ("reasoning", "function_call", "custom_tool_call")


def _is_model_item(item: Mapping[str, Any]) -> bool:
    kind = item.get("type", "message")
    return kind in _MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")


def responses_problems(items: Sequence[Any]) -> list[str]:
    """Pairing problems of a Responses API input list (empty when valid); independent of contextfold.

    Rules (what the API rejects): every ``function_call_output``/``custom_tool_call_output`` answers an earlier
    call of the matching kind with its ``call_id``, at most once; no two calls share a ``call_id``; every call
    has its output before the next model turn starts (a model item after a non-model item) and before the end of
    the input; a ``reasoning`` item is followed by another model item (the output it was produced with).
    """
    problems: list[str] = []
    calls: dict[str, tuple[int, str]] = {}
    answered: set[str] = set()
    open_calls: list[str] = []
    prev_model = False
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"input[{i}] is not an object")
            continue
        kind = item.get("type", "message")
        model = _is_model_item(item)
        if model and not prev_model and open_calls:
            problems.append(f"input[{i}] starts a model turn while call(s) {', '.join(open_calls)} have no output yet")
            open_calls = []
        if kind in _CALLS:
            call_id = str(item.get("call_id"))
            if call_id in calls:
                problems.append(
                    f"input[{i}]: call_id {call_id} is used by two calls (first at input[{calls[call_id][0]}])"
                )
            calls[call_id] = (i, kind)
            open_calls.append(call_id)
        elif kind in _OUTPUTS:
            call_id = str(item.get("call_id"))
            if call_id not in calls:
                problems.append(f"input[{i}]: {kind} for call_id {call_id} has no earlier call")
            elif calls[call_id][1] != _OUTPUTS[kind]:
                problems.append(f"input[{i}]: {kind} answers a {calls[call_id][1]} ({call_id})")
            elif call_id in answered:
                problems.append(f"input[{i}]: second output for call_id {call_id}")
            answered.add(call_id)
            if call_id in open_calls:
                open_calls.remove(call_id)
        if kind == "reasoning":
            nxt = items[i + 1] if i + 1 < len(items) else None
            if not (isinstance(nxt, dict) and _is_model_item(nxt)):
                problems.append(f"input[{i}]: reasoning item {item.get('id')} is not followed by the item it produced")
        prev_model = model
    if open_calls:
        problems.append(f"call(s) {', '.join(open_calls)} have no output at the end of the input")
    return problems


def anthropic_problems(request: WireRequest) -> list[str]:
    """Blocking problems `contextfold.validate` finds (mid-conversation system messages taken out first)."""
    problems: list[str] = []
    messages, system_messages = _anthropic_canonical(request)
    for message in system_messages:
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") != "text" for b in content):
            problems.append("a role 'system' message holds a non-text block")
    problems.extend(str(p) for p in contextfold.validate(messages, "anthropic") if p.blocking)
    return problems


@dataclass
class PairingReport:
    """Pairing problems per request."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def pairing_report(requests: Requests) -> PairingReport:
    """Every model request is pairing-valid for its wire format."""
    report = PairingReport()
    for request in parse_all(requests):
        recorded = request.recorded
        report.checked += 1
        try:
            found = (
                anthropic_problems(request) if request.format == "anthropic" else responses_problems(request.history)
            )
        except contextfold.ContextfoldError as exc:
            found = [f"cannot be read as {request.format} messages: {exc}"]
        report.problems.extend(f"request {recorded.index} ({recorded.role}): {p}" for p in found)
    return report


# --------------------------------------------------------------------------------------------------------------
# Prefix stability

Relation = Literal["extends", "compaction", "break"]


def _normalized(value: Any) -> Any:
    """``value`` without ``cache_control`` markers, a lone string content as one text block."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            if key == "cache_control":
                continue
            if key == "content" and isinstance(inner, str) and "role" in value:
                out[key] = [{"type": "text", "text": inner}]
            else:
                out[key] = _normalized(inner)
        return out
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def normalized_element(raw: str) -> str:
    """One history element as compact JSON without breakpoints, string content as a block (key order kept)."""
    return json.dumps(_normalized(json.loads(raw)), ensure_ascii=False, separators=(",", ":"))


_COMPACTION_TEXTS = (
    SUMMARY_HEADER_PREFIX,  # contextfold's own summary (what the proxy splices in)
    "This session is being continued from a previous conversation",  # Claude Code after its compaction
    "Another language model started to solve this problem",  # Codex after its local compaction
)


def _compaction_marks(request: WireRequest) -> set[str]:
    """Fingerprints of the compaction artifacts the request carries (summaries, Codex compaction items)."""
    marks: set[str] = set()
    for raw, element in zip(request.raw_history, request.history, strict=True):
        if isinstance(element, dict) and element.get("type") == "compaction":
            marks.add(hashlib.sha256(raw.encode()).hexdigest())
            continue
        if any(marker in raw for marker in _COMPACTION_TEXTS):
            marks.add(hashlib.sha256(normalized_element(raw).encode()).hexdigest())
    return marks


def prefix_relation(prev: WireRequest, nxt: WireRequest) -> tuple[bool, bool]:
    """(cache-stable, raw-identical) for two consecutive requests of one conversation.

    *Cache-stable* (what "the previous request is a byte-identical prefix of the next" means here): the cached
    part of a request is everything up to its newest message, in the provider's order (tools, then system or
    instructions, then the history), so
    1. ``tools`` and ``system``/``instructions`` are byte-identical (their raw JSON text as sent), and
    2. the next request's history has at least as many elements, and each element of the previous request's
       history equals the element at the same position in the next: byte-identical, or equal as JSON values
       with key order kept (so JSON whitespace and escape spelling, which no provider's cache sees, do not
       count) after two normalizations: ``cache_control`` markers are removed (clients move their breakpoint to
       the newest message every turn), and a message whose ``content`` is a string is read as one text block
       (Claude Code switches a lone text between the two forms).
    *Raw-identical* is the same without any normalization: each previous element's raw text reappears exactly.
    """
    fields_same = all(
        prev.raw_fields.get(k) == nxt.raw_fields.get(k) for k in set(prev.raw_fields) | set(nxt.raw_fields)
    )
    if len(prev.raw_history) > len(nxt.raw_history):
        return False, False
    pairs = list(zip(prev.raw_history, nxt.raw_history, strict=False))
    raw_same = fields_same and all(a == b for a, b in pairs)
    stable = fields_same and all(a == b or normalized_element(a) == normalized_element(b) for a, b in pairs)
    return stable, raw_same


@dataclass
class PrefixReport:
    """Prefix stability over the consecutive requests of the main conversation."""

    transitions: list[tuple[int, int, Relation, bool]] = field(default_factory=list)  # (prev, next, relation, raw)
    problems: list[str] = field(default_factory=list)
    required: float = 0.95

    def count(self, relation: Relation) -> int:
        return sum(1 for t in self.transitions if t[2] == relation)

    @property
    def without_compaction(self) -> int:
        return self.count("extends") + self.count("break")

    @property
    def stable_fraction(self) -> float:
        total = self.without_compaction
        return self.count("extends") / total if total else 1.0

    @property
    def raw_identical(self) -> int:
        return sum(1 for t in self.transitions if t[2] == "extends" and t[3])

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        return (
            f"{len(self.transitions)} transitions: {self.count('extends')} cache-stable "
            f"({self.raw_identical} also raw-identical), {self.count('compaction')} compactions, "
            f"{self.count('break')} breaks; stable {self.stable_fraction:.1%} of the turns without a compaction"
        )


def prefix_report(
    requests: Requests,
    counter: TokenCounter | None = None,
    *,
    required: float = 0.95,
    role: str = "main",
) -> PrefixReport:
    """Prefix stability between consecutive main-conversation requests; see `prefix_relation`.

    A transition counts as a compaction (and is left out of the fraction) when the client sent its own
    compaction request in between (the upstream saw a request of role ``compact``), when the next request
    carries a compaction artifact the previous did not (a contextfold summary, Claude Code's continuation
    summary, a Codex ``compaction`` item or handoff summary), or when the next request has fewer tokens than the
    previous (history only grows between compactions). At least ``required`` of the other transitions must be
    cache-stable.
    """
    counter = counter or contextfold.make_counter()
    report = PrefixReport(required=required)
    items = list(requests)
    recorded = [r.recorded if isinstance(r, WireRequest) else r for r in items]
    parsed = [p for p in parse_all(items) if p.role == role]
    tokens = {p.index: _tokens_or_none(p, counter) for p in parsed}
    for prev, nxt in itertools.pairwise(parsed):
        stable, raw = prefix_relation(prev, nxt)
        between = [r for r in recorded if prev.index < r.index < nxt.index and r.role == "compact"]
        new_marks = _compaction_marks(nxt) - _compaction_marks(prev)
        before, after = tokens[prev.index], tokens[nxt.index]
        shrank = before is not None and after is not None and after < before
        relation: Relation
        if stable:
            relation = "extends"
        elif between or new_marks or shrank:
            relation = "compaction"
        else:
            relation = "break"
        report.transitions.append((prev.index, nxt.index, relation, raw))
    if report.stable_fraction < required:
        breaks = [f"{a}->{b}" for a, b, rel, _ in report.transitions if rel == "break"]
        report.problems.append(
            f"only {report.stable_fraction:.1%} of the turns without a compaction are cache-stable "
            f"(need {required:.0%}); breaks at {', '.join(breaks[:20])}"
        )
    return report


def _tokens_or_none(request: WireRequest, counter: TokenCounter) -> int | None:
    try:
        return request_tokens(request, counter)
    except contextfold.ContextfoldError:
        return None


def first_difference(prev: WireRequest, nxt: WireRequest) -> str:
    """Where two requests stop being prefix-stable, for a failure message."""
    for name in sorted(set(prev.raw_fields) | set(nxt.raw_fields)):
        if prev.raw_fields.get(name) != nxt.raw_fields.get(name):
            return f"top-level {name!r} differs"
    for i, (a, b) in enumerate(zip(prev.raw_history, nxt.raw_history, strict=False)):
        if a != b and normalized_element(a) != normalized_element(b):
            return f"history element {i} differs: {a[:200]!r} vs {b[:200]!r}"
    return f"history shrank from {len(prev.raw_history)} to {len(nxt.raw_history)} elements"


# --------------------------------------------------------------------------------------------------------------
# Keys


@dataclass
class KeyReport:
    """Which requests carried the client's key unchanged."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _anthropic_key(recorded: Recorded) -> str | None:
    key = recorded.header("x-api-key")
    if key is not None:
        return key
    auth = recorded.header("authorization")
    return auth.removeprefix("Bearer ") if auth else None


def _bearer(recorded: Recorded) -> str | None:
    auth = recorded.header("authorization")
    return auth[len("Bearer ") :] if auth and auth.startswith("Bearer ") else None


KEY_READERS: Mapping[str, Callable[[Recorded], str | None]] = {
    "messages": _anthropic_key,
    "count_tokens": _anthropic_key,
    "responses": _bearer,
    "responses_compact": _bearer,
}


def key_report(requests: Requests, key: str) -> KeyReport:
    """Every model request (and count_tokens) carried exactly ``key`` (``x-api-key`` or ``Bearer``)."""
    report = KeyReport()
    for item in requests:
        recorded = item.recorded if isinstance(item, WireRequest) else item
        reader = KEY_READERS.get(recorded.kind)
        if reader is None:
            continue
        report.checked += 1
        found = reader(recorded)
        if found != key:
            shown = "no key" if found is None else f"a different key ({len(found)} characters)"
            report.problems.append(f"request {recorded.index} ({recorded.path}) carried {shown}")
    if report.checked == 0:
        report.problems.append("no model request reached the upstream")
    return report
