"""Token counting: the `TokenCounter` protocol, the per-message cache and a running tally.

Counting is the hot path: it runs before every model call. Messages are
immutable, so a counter caches each message's count on the message itself
(keyed by ``counter.key``) and counting a context after appending k messages
costs O(k), not O(history).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
)

__all__ = [
    "MEDIA_TOKENS",
    "BytesCounter",
    "TokenCounter",
    "TokenTally",
    "count_messages",
    "count_tools",
    "media_blocks",
]

MEDIA_TOKENS = 2000
"""Flat cost of one media (data) block, as in the reference design."""


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens of text; messages and tool schemas are counted through it.

    ``key`` identifies the counter (and its settings) in per-message caches:
    two counters with the same key must give the same counts.
    """

    @property
    def key(self) -> str: ...

    def count_text(self, text: str) -> int:
        """Tokens in one piece of text."""
        ...

    def count_message(self, message: Message) -> int:
        """Tokens a message costs in the context (text, tool calls, results, media)."""
        ...


def media_blocks(message: Message) -> int:
    """Number of media blocks in a message, including those nested in tool results."""
    n = 0
    for block in message.content:
        if isinstance(block, DataBlock):
            n += 1
        elif isinstance(block, ToolResultBlock):
            n += sum(1 for inner in block.content if isinstance(inner, DataBlock))
    return n


def count_messages(counter: TokenCounter, messages: Iterable[Message]) -> int:
    """Sum of message counts, using and filling each message's cache."""
    key = counter.key
    total = 0
    for message in messages:
        cached = message._tokens.get(key)
        if cached is None:
            cached = counter.count_message(message)
            message._tokens[key] = cached
        total += cached
    return total


def count_tools(counter: TokenCounter, tools: Sequence[ToolSpec]) -> int:
    """Tokens of the tool schemas, counted once per request."""
    return sum(counter.count_text(tool.schema_json()) for tool in tools)


class BytesCounter:
    """The reference design's estimate: round(UTF-8 bytes / 4), media blocks at a flat cost.

    Simple and fast, but it undercounts tool output by about a third against
    real tokenizers; `CalibratedCounter` is the default for that reason.
    """

    key = "bytes"

    def count_text(self, text: str) -> int:
        return round(utf8_length(text) / 4)

    def count_message(self, message: Message) -> int:
        content = message.content
        if len(content) == 1:  # the usual shapes, without the generic walk: one text, or one result of one text
            block = content[0]
            if type(block) is TextBlock:
                return round(utf8_length(block.text) / 4)
            if type(block) is ToolResultBlock and len(block.content) == 1 and type(block.content[0]) is TextBlock:
                return round(utf8_length(block.content[0].text) / 4)
        # `iter_text` and `media_blocks` in one walk, without generators (a test compares it with them).
        nbytes = media = 0
        for block in content:
            if isinstance(block, TextBlock | HintBlock):
                nbytes += utf8_length(block.text)
            elif isinstance(block, ToolCallBlock):
                nbytes += utf8_length(block.name) + utf8_length(block.arguments)
            elif isinstance(block, ToolResultBlock):
                for inner in block.content:
                    if isinstance(inner, TextBlock):
                        nbytes += utf8_length(inner.text)
                    elif isinstance(inner, DataBlock):
                        media += 1
            elif isinstance(block, ThinkingBlock):
                nbytes += utf8_length(block.thinking)
            elif isinstance(block, DataBlock):
                media += 1
        return round(nbytes / 4) + MEDIA_TOKENS * media


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (lone surrogates as three bytes each), without encoding an ASCII text.

    ``str.isascii`` is O(1) in CPython (the string knows its widest character), and an ASCII text has one byte per
    character: most tool output is ASCII, and encoding a 200 KB result only to measure it costs a copy.
    """
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class TokenTally:
    """A running token total over a growing list of messages.

    ``append`` costs one message count; ``total`` is O(1). Removing a prefix
    (after a compaction) or replacing the list re-uses cached message counts.
    """

    __slots__ = ("_counter", "_counts", "_total")

    def __init__(self, counter: TokenCounter, messages: Iterable[Message] = ()) -> None:
        self._counter = counter
        self._counts: list[int] = []
        self._total = 0
        self.extend(messages)

    @property
    def counter(self) -> TokenCounter:
        return self._counter

    @property
    def total(self) -> int:
        """Tokens of all messages appended so far."""
        return self._total

    @property
    def counts(self) -> Sequence[int]:
        """Per-message counts, in message order."""
        return self._counts

    def append(self, message: Message) -> int:
        """Count one more message and return its tokens."""
        n = count_messages(self._counter, (message,))
        self._counts.append(n)
        self._total += n
        return n

    def prefix_total(self, count: int) -> int:
        """Tokens of the first ``count`` messages, summing only the (usually short) rest: O(len - count)."""
        return self._total - sum(self._counts[count:])

    def replace_last(self, message: Message) -> int:
        """Swap the last message for ``message`` (e.g. a hint merged into it) and return its tokens."""
        if not self._counts:
            raise IndexError("replace_last on an empty tally")
        n = count_messages(self._counter, (message,))
        self._total += n - self._counts[-1]
        self._counts[-1] = n
        return n

    def extend(self, messages: Iterable[Message]) -> None:
        for message in messages:
            self.append(message)

    def reset(self, messages: Iterable[Message]) -> None:
        """Replace the whole list (cached message counts are reused)."""
        self._counts = []
        self._total = 0
        self.extend(messages)
