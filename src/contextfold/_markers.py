"""The markers contextfold writes into messages, and the one place that reads them back.

Every message or block contextfold writes carries ``meta[MARKER_KEY]`` naming what it is: `SUMMARY_MARKER` (the
summary of the compacted part), `PLACEHOLDER_MARKER` (a text block standing for archived output) or
`REATTACHED_MARKER` (pins, open tasks and project instructions re-attached after a summary). Meta never goes on the
wire, so a message that went out and came back (rendered to a provider format, then `to_canonical`: a transcript
file, a proxy request that resends our summary) has lost it. The text stays: `is_summary` recognizes a summary by
its header line then, so every component (boundary finder, digest, ledger) answers the question the same way.

The texts below are what the model reads; they are part of the prompt prefix, so changing one changes every
cached prompt that holds it. Ground floor: this module imports only the message model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from contextfold._messages import Message, TextBlock

__all__ = [
    "ARCHIVE_PENDING",
    "HINT_PREFIX",
    "HINT_SUFFIX",
    "INSTRUCTIONS_TAG",
    "LEDGER_OVERFLOW_KEY",
    "MARKER_KEY",
    "OPEN_TASKS_HEADER",
    "PINNED_HEADER",
    "PLACEHOLDER_MARKER",
    "PROVIDER_BOUNDARY",
    "PROVIDER_KEEP",
    "PROVIDER_NOOP",
    "PROVIDER_STATE_KEY",
    "REATTACHED_MARKER",
    "REATTACH_HEADER",
    "SUMMARY_HEADER_PREFIX",
    "SUMMARY_MARKER",
    "TRUNCATION_MARKER",
    "hint_body",
    "is_placeholder_text",
    "is_reattached",
    "is_summary",
    "is_summary_text",
    "marker",
    "provider_state",
    "render_hint",
    "summary_header",
]

MARKER_KEY = "contextfold"
"""The meta key (on a message or a block) saying which of contextfold's markers it is."""
SUMMARY_MARKER = "summary"
"""``meta[MARKER_KEY]`` of the summary message that replaces the compacted part."""
PLACEHOLDER_MARKER = "placeholder"
"""``meta[MARKER_KEY]`` of a text block written by a strategy in place of archived output."""
REATTACHED_MARKER = "reattached"
"""``meta[MARKER_KEY]`` of the message re-attached after a summary."""
LEDGER_OVERFLOW_KEY = "contextfold_ledger_overflow"
"""Meta key of a summary: the ledger facts its cap left out, for the next compaction (never sent)."""

PROVIDER_STATE_KEY = "contextfold.provider_state"
"""Meta key of a block holding a provider's own compaction state, set by the format that read it; its value says
what the provider does with it. Such a block is given back byte for byte, never split, edited or summarized."""
PROVIDER_BOUNDARY = "boundary"
"""The provider drops everything before this block (Anthropic's ``compaction`` block with a summary): the message
holding it ends a fixed prefix no compaction touches, and what precedes it costs nothing."""
PROVIDER_KEEP = "keep"
"""The provider's memory of earlier turns, which it reads but does not drop what precedes (a Responses
``compaction`` item): kept verbatim, carried forward in front of the summary when its turn is compacted."""
PROVIDER_NOOP = "noop"
"""A failed compaction the provider treats as a no-op (an Anthropic ``compaction`` block whose ``content`` is null):
given back verbatim while its message stays, and leaves with its message (never split from it)."""

SUMMARY_HEADER_PREFIX = "Summary of earlier conversation ("
"""How the first line of a summary starts."""
ARCHIVE_PENDING = "(archive pending)"
"""Stands for the archive path in a summary header or placeholder until the archive is written."""
REATTACH_HEADER = "Re-attached after the summary above; these still apply:"
"""First line of the re-attached message."""
PINNED_HEADER = "Pinned:"
"""Heads the pinned messages in the re-attached message (one ``- text`` line each)."""
OPEN_TASKS_HEADER = "Open tasks:"
"""Heads the open tasks in the re-attached message (one ``- [status] subject`` line each)."""
INSTRUCTIONS_TAG = "project-instructions"
"""The tag around the project instructions in the re-attached message."""
HINT_PREFIX = "<system-reminder>\n"
"""A runtime hint on the wire starts with this..."""
HINT_SUFFIX = "\n</system-reminder>"
"""...and ends with this."""
TRUNCATION_MARKER = "<<<TRUNCATED>>>"
"""First line of the notice that ends a split tool result (the notice itself is a rendered hint after it)."""

_HEADER = re.compile(r"Summary of earlier conversation \(\d+ messages?, archived at [^\n]*\)(?:\n|$)")
_HINT_MIN = len(HINT_PREFIX) + len(HINT_SUFFIX)


def marker(meta: Mapping[str, Any]) -> Any:
    """The marker in a message's or block's meta (`SUMMARY_MARKER`, ...), or ``None``."""
    return meta.get(MARKER_KEY) if meta else None


def provider_state(message: Message) -> str | None:
    """The strongest provider state a message's blocks hold (`PROVIDER_BOUNDARY` first), or ``None``."""
    found: str | None = None
    for block in message.content:
        state = block.meta.get(PROVIDER_STATE_KEY) if block.meta else None
        if state == PROVIDER_BOUNDARY:
            return PROVIDER_BOUNDARY
        if isinstance(state, str):
            found = state
    return found


def summary_header(count: int, archive_ref: str | None) -> str:
    """First line of a summary: how much was compacted and where the originals are."""
    where = archive_ref if archive_ref is not None else ARCHIVE_PENDING
    noun = "message" if count == 1 else "messages"
    return f"Summary of earlier conversation ({count} {noun}, archived at {where})"


def is_summary_text(text: str) -> bool:
    """Whether ``text`` starts with a summary header line (as `summary_header` writes it)."""
    return text.startswith(SUMMARY_HEADER_PREFIX) and _HEADER.match(text) is not None


def is_summary(message: Message) -> bool:
    """Whether ``message`` is a contextfold summary: by its meta, or, when the meta was lost, by its header."""
    meta = message.meta
    if meta and meta.get(MARKER_KEY) == SUMMARY_MARKER:
        return True
    if message.role != "user" or not message.content:
        return False
    first = message.content[0]
    return isinstance(first, TextBlock) and is_summary_text(first.text)


def is_reattached(message: Message) -> bool:
    """Whether ``message`` is the re-attached message (pins, tasks, instructions): by its meta, or its first line."""
    if marker(message.meta) == REATTACHED_MARKER:
        return True
    first = message.content[0] if message.role == "user" and message.content else None
    return isinstance(first, TextBlock) and first.text.startswith(REATTACH_HEADER + "\n")


def is_placeholder_text(block: object) -> bool:
    """Whether ``block`` is a placeholder text block a strategy wrote (it names the archive once written)."""
    return isinstance(block, TextBlock) and marker(block.meta) == PLACEHOLDER_MARKER


def render_hint(text: str) -> str:
    """The user text a runtime hint becomes on the wire."""
    return HINT_PREFIX + text + HINT_SUFFIX


def hint_body(text: str) -> str | None:
    """The hint inside ``text`` when it is exactly a rendered hint, else ``None``."""
    if len(text) >= _HINT_MIN and text.startswith(HINT_PREFIX) and text.endswith(HINT_SUFFIX):
        return text[len(HINT_PREFIX) : len(text) - len(HINT_SUFFIX)]
    return None
