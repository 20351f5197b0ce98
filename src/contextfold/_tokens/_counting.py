"""Token counting: the `TokenCounter` protocol, the per-message cache and a running tally.

Counting is the hot path: it runs before every model call. Messages are
immutable, so a counter caches each message's count on the message itself
(keyed by ``counter.key``) and counting a context after appending k messages
costs O(k), not O(history).
"""

from __future__ import annotations

import base64
import binascii
import math
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
    "PAYLOAD_BYTES_PER_TOKEN",
    "BytesCounter",
    "TokenCounter",
    "TokenTally",
    "count_messages",
    "count_tools",
    "data_tokens",
    "media_blocks",
    "media_tokens",
]

MEDIA_TOKENS = 2000
"""Cost of an image, an audio clip, or media given by reference (URL, file id, path), and the least a document
costs (`data_tokens`). The reference design's flat rule, kept for images because it needs no decoding and bounds
what one image costs after the providers' own downscaling (Anthropic about width x height / 750, at most about
1,600 tokens; OpenAI's high detail at most 1,445 on GPT-4o-class models)."""

PAYLOAD_BYTES_PER_TOKEN = 16
"""Bytes of an inline, non-text document (a PDF) per token: a PDF page costs 1,500-3,000 tokens of text plus its
page image on Anthropic, and a text PDF takes some 30-60 KB a page; rounded toward counting more."""

_TEXT_MEDIA = ("text/", "application/json", "application/xml", "application/x-ndjson", "application/yaml")


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


def data_tokens(block: DataBlock, counter: TokenCounter) -> int:
    """Tokens one data block costs: the one rule every counter (and the proxy, through them) uses.

    - an image, an audio clip, or anything given by reference (nothing here to measure): `MEDIA_TOKENS`;
    - a document whose inline payload is text (a ``text/*``, JSON, XML or YAML media type; Anthropic's ``text``
      source): its text, counted by ``counter``;
    - any other inline document (a PDF, a binary file): by its size, one token per `PAYLOAD_BYTES_PER_TOKEN`
      decoded bytes, and at least `MEDIA_TOKENS`.
    """
    data = block.data
    if block.media != "document" or data is None:
        return MEDIA_TOKENS
    media_type = (block.media_type or "").lower()
    if media_type.startswith(_TEXT_MEDIA):
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            pass  # not base64 of UTF-8 text: counted by size below
        else:
            return counter.count_text(text)
    return max(MEDIA_TOKENS, math.ceil(len(data) * 3 / 4 / PAYLOAD_BYTES_PER_TOKEN))


def media_tokens(message: Message, counter: TokenCounter) -> int:
    """Tokens of a message's data blocks, including those nested in tool results (`data_tokens` each)."""
    n = 0
    for block in message.content:
        if isinstance(block, DataBlock):
            n += data_tokens(block, counter)
        elif isinstance(block, ToolResultBlock):
            n += sum(data_tokens(inner, counter) for inner in block.content if isinstance(inner, DataBlock))
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
    """The reference design's estimate: round(UTF-8 bytes / 4), data blocks by `data_tokens`.

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
                        media += data_tokens(inner, self)
            elif isinstance(block, ThinkingBlock):
                nbytes += utf8_length(block.thinking)
            elif isinstance(block, DataBlock):
                media += data_tokens(block, self)
        return round(nbytes / 4) + media


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
