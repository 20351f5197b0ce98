"""The canonical message model every other module works on.

Provider formats (OpenAI chat completions, Anthropic messages) are converted to
and from this model at the edges. Messages and blocks are frozen so that a token
count computed once for a message stays valid: counters cache it on the
message itself (see `contextfold._tokens._counting`).

Every block has a literal ``kind`` tag used on the wire (never the class name)
and a ``meta`` mapping that carries provider details we do not interpret but
must give back on a round trip (``cache_control``, image ``detail``, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias, assert_never

__all__ = [
    "ROLES",
    "Block",
    "DataBlock",
    "HintBlock",
    "Message",
    "RedactedThinkingBlock",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolSpec",
    "freeze_meta",
    "iter_text",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def freeze_meta(meta: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Return a read-only copy of ``meta`` (shared empty mapping when there is none)."""
    if not meta:
        return _EMPTY
    return MappingProxyType(dict(meta))


@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    """Plain text."""

    text: str
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["text"] = field(default="text", init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallBlock:
    """A tool call made by the assistant.

    ``arguments`` is the JSON text of the arguments exactly as the model wrote
    it (OpenAI sends a string, which may even be invalid JSON; Anthropic's
    ``input`` object is serialized compactly). Keeping the text makes round
    trips exact and counting honest.
    """

    id: str
    name: str
    arguments: str = "{}"
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["tool_call"] = field(default="tool_call", init=False)

    def parsed_arguments(self) -> Any:
        """The arguments as a Python object; raises ``ValueError`` on invalid JSON or JSON nested too deep.

        Python's JSON decoder recurses once per level of nesting, so a 2 KB string like ``[[[[...]]]]`` a thousand
        levels deep would raise `RecursionError` (at a depth that depends on the caller's stack). Arguments nested
        deeper than `MAX_ARGUMENT_DEPTH` are refused the same way wherever they are read, as invalid JSON is:
        callers treat them as unparsed text.
        """
        text = self.arguments
        if not text.strip():
            return {}
        if _nested_deeper(text, MAX_ARGUMENT_DEPTH):
            raise ValueError(f"tool-call arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        try:
            return json.loads(text)
        except RecursionError:  # not reached under the depth cap; kept so that no caller ever sees one
            raise ValueError(f"tool-call arguments nested too deep to decode ({len(text)} characters)") from None


MAX_ARGUMENT_DEPTH = 200
"""Deepest nesting of arrays and objects `ToolCallBlock.parsed_arguments` decodes (real arguments use a few levels)."""

_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""Strings (skipped whole, so brackets inside them do not count) and the brackets that open and close a level."""


def _nested_deeper(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays and objects deeper than ``limit`` (linear; brackets in strings skipped).

    Text holding at most ``limit`` opening brackets cannot nest deeper: that is checked first, by counting.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


@dataclass(frozen=True, slots=True, kw_only=True)
class DataBlock:
    """Media: an image, audio clip or document, by URL, inline base64 or local path.

    Exactly one of ``url``, ``data`` (base64 text) or ``path`` is set.
    """

    media: Literal["image", "audio", "document"]
    media_type: str | None = None
    url: str | None = None
    data: str | None = None
    path: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["data"] = field(default="data", init=False)

    def __post_init__(self) -> None:
        given = sum(x is not None for x in (self.url, self.data, self.path))
        if given != 1:
            raise ValueError(f"DataBlock needs exactly one of url, data or path (got {given})")


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingBlock:
    """Model reasoning. A ``signature`` makes it tamper-evident: never edit a signed block."""

    thinking: str
    signature: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["thinking"] = field(default="thinking", init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class RedactedThinkingBlock:
    """Reasoning the provider encrypted; only ``data`` is kept and passed back untouched."""

    data: str
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["redacted_thinking"] = field(default="redacted_thinking", init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class HintBlock:
    """Runtime state injected by contextfold, rendered as ``<system-reminder>`` user text."""

    text: str
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["hint"] = field(default="hint", init=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultBlock:
    """The answer to a tool call; ``content`` holds text and data blocks."""

    call_id: str
    content: tuple[TextBlock | DataBlock, ...] = ()
    is_error: bool = False
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    kind: Literal["tool_result"] = field(default="tool_result", init=False)

    @property
    def text(self) -> str:
        """All text blocks of the result joined by newlines."""
        return "\n".join([b.text for b in self.content if isinstance(b, TextBlock)])


Block: TypeAlias = (
    TextBlock | ToolCallBlock | ToolResultBlock | DataBlock | ThinkingBlock | RedactedThinkingBlock | HintBlock
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One turn of the conversation.

    ``tool`` messages hold only `ToolResultBlock`s; ``assistant`` messages may
    hold text, thinking and tool calls; ``user`` and ``system`` messages hold
    text, data and hints. ``meta`` keeps provider details needed for an exact
    round trip (the original role spelling, whether content was a plain string).
    """

    role: Role
    content: tuple[Block, ...] = ()
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    # Per-counter token cache: counter key -> tokens. Not part of equality.
    _tokens: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def text_message(cls, role: Role, text: str, **kwargs: Any) -> Message:
        """Build a message holding one text block."""
        return cls(role=role, content=(TextBlock(text=text),), **kwargs)

    @property
    def text(self) -> str:
        """The text blocks (and hints) of this message joined by newlines."""
        return "\n".join([b.text for b in self.content if isinstance(b, TextBlock | HintBlock)])

    # List comprehensions rather than generator expressions: these run for every message at every compaction, and
    # building the tuple from a list is about a third cheaper.
    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The tool calls this message makes (empty unless assistant)."""
        return tuple([b for b in self.content if isinstance(b, ToolCallBlock)])

    @property
    def tool_results(self) -> tuple[ToolResultBlock, ...]:
        """The tool results this message carries."""
        return tuple([b for b in self.content if isinstance(b, ToolResultBlock)])

    def blocks(self, kind: type[Any]) -> Iterator[Any]:
        """Iterate the blocks of one class."""
        return (b for b in self.content if isinstance(b, kind))

    def replace(self, **changes: Any) -> Message:
        """Return a copy with some fields changed (the token cache is not carried over)."""
        fields_: dict[str, Any] = {"role": self.role, "content": self.content, "name": self.name, "meta": self.meta}
        fields_.update(changes)
        return Message(**fields_)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool definition offered to the model: name, description and JSON schema of its input."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)

    def schema_json(self) -> str:
        """Compact JSON of the definition as counted against the window."""
        return json.dumps(
            {"name": self.name, "description": self.description, "parameters": self.parameters},
            ensure_ascii=False,
            separators=(",", ":"),
            sort_keys=True,
        )


def iter_text(message: Message) -> Iterable[str]:
    """Every piece of text a message carries, as counted against the window.

    Text, hints, tool names and argument JSON, tool result text, thinking text.
    Media and redacted thinking are not text (counted separately).
    """
    for block in message.content:
        match block:
            case TextBlock() | HintBlock():
                yield block.text
            case ToolCallBlock():
                yield block.name
                yield block.arguments
            case ToolResultBlock():
                for inner in block.content:
                    if isinstance(inner, TextBlock):
                        yield inner.text
            case ThinkingBlock():
                yield block.thinking
            case DataBlock() | RedactedThinkingBlock():
                pass
            case _:
                assert_never(block)
