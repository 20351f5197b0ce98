"""The extractive digest: a model-free summary of the older part, with fidelity tiers by age.

Each compacted message is rendered at one tier. Truncated keeps text and
tool arguments cut to N characters; Compact keeps one line per message
(``User:`` first non-empty line, ``Called NAME``, ``NAME: ok - ...``);
Summary keeps one sentence per stretch (a user message and what followed
it). Tiers are chosen so the digest fits its token target: everything starts
Truncated and the oldest messages degrade first, so the newest compacted
history stays the most detailed. If even one sentence per stretch does not
fit, the oldest stretches are replaced by one line pointing at the archive.
Pure and deterministic: same input, same digest. The common case (the
whole older part fits at the Truncated tier) costs one count of the
assembled text: Compact lines, sentences and per-line counts are only
computed when it does not fit.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import assert_never

from contextfold._markers import is_summary
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._boundaries import is_real_user
from contextfold.compaction._groups import call_names
from contextfold.compaction._ledger import without_ledger

__all__ = [
    "COMPACT_RESULT_CHARS",
    "COMPACT_USER_CHARS",
    "Digest",
    "Tier",
    "build_digest",
    "cut_text",
    "digest_lines",
    "stretch_sentence",
    "stretches",
]

COMPACT_USER_CHARS = 200
"""A user message in the Compact tier: its first non-empty line, at most this many characters."""
COMPACT_RESULT_CHARS = 100
"""A tool result in the Compact tier: at most this many characters after ``NAME: ok - ``."""
SENTENCE_QUOTE_CHARS = 80
MEDIA_NOTE = "[media omitted]"


class Tier(enum.IntEnum):
    """Fidelity tiers, from most to least detailed."""

    FULL = 0
    TRUNCATED = 1
    COMPACT = 2
    SUMMARY = 3


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (code points, never inside one), marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


_FIRST_LINE_SCAN = 8192
"""`_first_line` looks for the first non-empty line in this many characters before reading the whole text."""
_FIRST_LINE_HEAD = 256
"""`_first_line` tries this many characters first: a line ended inside them is the line of the longer scan."""


def _one_line(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces; with ``limit``, only enough of a long text for `cut_text` to ``limit``.

    The result then is an exact prefix of the full normalization, longer than ``limit``, so ``cut_text(..., limit)``
    gives the same string as on the whole text without normalizing a 200 KB tool output. A head a little longer
    than ``limit`` is tried first (usually enough), then one four times as long, then the whole text.
    """
    if limit is not None:
        for size in (limit + limit // 4 + 64, 4 * limit + 64):
            if len(text) <= size:
                break
            words = text[:size].split()[:-1]  # the last word may be cut: drop it
            joined = " ".join(words)
            if len(joined) > limit:
                return joined
    return " ".join(text.split())


def _cut_line(text: str, limit: int) -> str:
    """``cut_text(_one_line(text, limit), limit)``, without splitting the text into words when it need not.

    Fast path: the head ``text[:limit + 1]`` with newlines made spaces is often already normal (printable, so its
    only whitespace is ``" "``; no double, leading or trailing space). The normalization of the whole text then
    starts with that head, which is all `cut_text` reads. A head ending in one space needs the next character.
    """
    if limit < 1:
        return cut_text(_one_line(text, limit), limit)
    head = text[: limit + 1]
    if "\n" in head:
        head = head.replace("\n", " ")
    if head.isprintable() and "  " not in head and head[:1] != " ":
        if head[-1:] != " ":
            return head if len(head) <= limit else head[: limit - 1].rstrip() + "…"  # `cut_text`
        if len(head) <= limit:  # the whole text, one trailing space
            return head[:-1]
        after = text[limit + 1 : limit + 2]
        if not after:
            return head[:-1]
        if not after.isspace():
            return head[: limit - 1].rstrip() + "…"
    return cut_text(_one_line(text, limit), limit)


_LABELS = {"user": "User", "assistant": "Assistant", "system": "Context", "tool": "Tool"}


def _first_line(text: str) -> str:
    """The first non-empty line of ``text[:8192]`` (a line cut there counts as cut), else of the text, stripped.

    A 256-character head is read first: a non-empty line that ends inside it is that line.
    """
    for size in (_FIRST_LINE_HEAD, _FIRST_LINE_SCAN):
        lines = text[:size].splitlines()
        for index, line in enumerate(lines):
            stripped = line.strip()
            if stripped:
                if size == _FIRST_LINE_SCAN or index < len(lines) - 1 or len(text) <= size:
                    return stripped
                break  # it may go on past the head
        else:
            if len(text) <= size:
                return ""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _result_line(result: ToolResultBlock, names: Mapping[str, str], limit: int, *, whole: bool) -> str:
    name = result.name or names.get(result.call_id, "tool")
    status = "error" if result.is_error else "ok"
    content = result.content
    if len(content) == 1 and type(content[0]) is TextBlock and type(result) is ToolResultBlock:
        text = content[0].text  # the usual result: one text block (``result.text`` is that text)
        media = False
    else:
        text = result.text
        media = any(isinstance(b, DataBlock) for b in content)
    source = text if whole else _first_line(text) or text
    cut = "" if not source or source.isspace() else _cut_line(source, limit)
    line = f"{name}: {status} - {cut}".rstrip(" -") if cut else f"{name}: {status}"
    if media:
        line += f" {MEDIA_NOTE}"
    return line


_COMPACT = Tier.COMPACT  # module constants: `Tier.X` is a Python-level lookup on every call
_LINE_TIERS = (Tier.TRUNCATED, Tier.COMPACT)


def digest_lines(message: Message, tier: Tier, names: Mapping[str, str], *, truncate_chars: int = 400) -> list[str]:
    """The digest of one message at the Truncated or Compact tier (hints and thinking are dropped).

    ``names`` maps call ids to tool names, for results that do not carry one.
    """
    if tier not in _LINE_TIERS:
        raise ValueError(f"digest_lines renders the Truncated and Compact tiers, not {tier.name}")
    compact = tier is _COMPACT
    if is_summary(message):
        if compact:
            return [_first_line(message.text)]
        return [cut_text(without_ledger(message.text), truncate_chars * 4)]  # its facts: in the next ledger
    content = message.content
    role = message.role
    if role == "tool":
        # The usual tool message: one line per result (no text, call or media line to add).
        limit = COMPACT_RESULT_CHARS if compact else truncate_chars
        out: list[str] = []
        for block in content:
            if type(block) is not ToolResultBlock:
                break
            out.append(_result_line(block, names, limit, whole=not compact))
        else:
            return out
    texts: list[str] = []
    calls: list[ToolCallBlock] = []
    results: list[ToolResultBlock] = []
    media = False
    for block in content:
        if type(block) is TextBlock:  # exact classes first (fast); the patterns below take subclasses
            texts.append(block.text)
        elif type(block) is ToolCallBlock:
            calls.append(block)
        else:
            match block:
                case TextBlock():
                    texts.append(block.text)
                case ToolCallBlock():
                    calls.append(block)
                case ToolResultBlock():
                    results.append(block)
                case DataBlock():
                    media = True
                case HintBlock() | ThinkingBlock() | RedactedThinkingBlock():
                    pass
                case _:
                    assert_never(block)
    text = "\n".join(texts)
    lines: list[str] = []
    if compact:
        limit = COMPACT_USER_CHARS if role == "user" else truncate_chars
        body = cut_text(_first_line(text), limit)
    else:
        body = _cut_line(text, truncate_chars)
    label = _LABELS[role]
    if body or media:
        lines.append(f"{label}: {body}{' ' if body and media else ''}{MEDIA_NOTE if media else ''}")
    if calls:
        if compact:
            lines.extend([f"Called {call.name}" for call in calls])
        else:
            args_limit = max(truncate_chars // 4, 16)
            lines.extend([f"Called {call.name}({_cut_line(call.arguments, args_limit)})" for call in calls])
    if results:
        limit = COMPACT_RESULT_CHARS if compact else truncate_chars
        lines.extend([_result_line(result, names, limit, whole=not compact) for result in results])
    return lines


def stretches(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """``(start, end)`` ranges: a new stretch begins at every real user message or earlier summary."""
    starts = [i for i, m in enumerate(messages) if i == 0 or is_real_user(m) or is_summary(m)]
    return [(s, e) for s, e in zip(starts, [*starts[1:], len(messages)], strict=True)]


def stretch_sentence(messages: Sequence[Message], names: Mapping[str, str]) -> str:
    """One sentence for a stretch: what the user asked and what the assistant did."""
    first = messages[0]
    if is_summary(first):
        opener = f"Earlier: {_first_line(first.text)}"
        rest = messages[1:]
    elif is_real_user(first):
        said = cut_text(_first_line(first.text), SENTENCE_QUOTE_CHARS) or MEDIA_NOTE
        opener = f'User asked "{said}"'
        rest = messages[1:]
    else:
        opener = "Earlier"
        rest = messages
    tools: dict[str, int] = {}
    errors = 0
    replies = 0
    for message in rest:
        for call in message.tool_calls:
            tools[call.name] = tools.get(call.name, 0) + 1
        errors += sum(1 for r in message.tool_results if r.is_error)
        if message.role == "assistant" and message.text.strip():
            replies += 1
    parts: list[str] = []
    if tools:
        used = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in tools.items())
        parts.append(f"{sum(tools.values())} tool calls ({used}{f'; {errors} failed' if errors else ''})")
    if replies:
        parts.append(f"{replies} {'reply' if replies == 1 else 'replies'}")
    return f"{opener}; then {' and '.join(parts)}." if parts else f"{opener}."


_TIERS = tuple(Tier)
_TIER_NAMES = {tier: tier.name.lower() for tier in Tier}


@dataclass(frozen=True, slots=True)
class Digest:
    """A digest: its text and the tier each message was rendered at."""

    text: str
    tiers: tuple[Tier, ...]
    omitted: int
    """Messages not described at all (the oldest), pointed to in the archive."""

    def tier_counts(self) -> dict[str, int]:
        """Messages per tier name, for reports."""
        tiers = self.tiers
        present = sorted((tiers.index(tier), tier) for tier in _TIERS if tier in tiers)  # by first appearance
        return {_TIER_NAMES[tier]: tiers.count(tier) for _, tier in present}


def _prefix(values: Sequence[int]) -> list[int]:
    out = [0]
    for value in values:
        out.append(out[-1] + value)
    return out


def _omitted_line(count: int) -> str:
    return f"[{count} earlier messages omitted here; they are in the archive]"


def build_digest(
    messages: Sequence[Message],
    *,
    counter: TokenCounter,
    target_tokens: int,
    names: Mapping[str, str] | None = None,
    truncate_chars: int = 400,
) -> Digest:
    """Digest ``messages`` into at most ``target_tokens`` (by ``counter``), degrading the oldest first.

    Degradation order: Truncated → Compact one message at a time from the
    oldest; then Compact → Summary one stretch at a time from the oldest;
    then the oldest stretches are dropped behind an "omitted" line. The text
    is empty when not even that line fits.
    """
    n = len(messages)
    if n == 0:
        return Digest(text="", tiers=(), omitted=0)
    names = dict(names) if names is not None else call_names(messages)
    truncated = [digest_lines(m, Tier.TRUNCATED, names, truncate_chars=truncate_chars) for m in messages]
    # The common case first: everything Truncated fits. One count of the assembled text decides it, with no
    # per-line counts and no Compact or Summary rendering (the first state below, by its exact count).
    whole = "\n".join(chain.from_iterable(truncated))
    if counter.count_text(whole) <= target_tokens:
        return Digest(text=whole, tiers=(Tier.TRUNCATED,) * n, omitted=0)
    compact = [digest_lines(m, Tier.COMPACT, names, truncate_chars=truncate_chars) for m in messages]
    spans = stretches(messages) if n else []
    sentences = [stretch_sentence(messages[s:e], names) for s, e in spans]

    def cost(lines: Sequence[str]) -> int:
        # Each line plus its newline; an upper bound of the joined text for additive counters.
        return sum(counter.count_text(line) + 1 for line in lines)

    p_trunc = _prefix([cost(lines) for lines in truncated])
    p_comp = _prefix([cost(lines) for lines in compact])
    p_sent = _prefix([cost([s]) for s in sentences])
    omitted_cost = counter.count_text(_omitted_line(n)) + 1

    # States in degradation order: (summarized stretches, first truncated message, dropped stretches).
    def states() -> list[tuple[int, int, int]]:
        out = [(0, j, 0) for j in range(n + 1)]
        out += [(k, n, 0) for k in range(1, len(spans) + 1)]
        out += [(len(spans), n, d) for d in range(1, len(spans) + 1)]
        return out

    def estimate(k: int, j: int, d: int) -> int:
        start = spans[k - 1][1] if k else 0
        j = max(j, start)
        total = p_sent[k] - p_sent[d] + p_comp[j] - p_comp[start] + p_trunc[n] - p_trunc[j]
        return total + (omitted_cost if d else 0)

    def render(k: int, j: int, d: int) -> Digest:
        start = spans[k - 1][1] if k else 0
        lines: list[str] = []
        tiers: list[Tier] = []
        omitted = spans[d - 1][1] if d else 0
        if d:
            lines.append(_omitted_line(omitted))
        lines.extend(sentences[d:k])
        tiers.extend([Tier.SUMMARY] * (start - omitted))
        for i in range(start, n):
            tier = Tier.COMPACT if i < j else Tier.TRUNCATED
            lines.extend(compact[i] if tier is Tier.COMPACT else truncated[i])
            tiers.append(tier)
        return Digest(text="\n".join(lines), tiers=tuple(tiers), omitted=omitted)

    for k, j, d in states():
        if estimate(k, j, d) > target_tokens:
            continue
        digest = render(k, j, d)
        if counter.count_text(digest.text) <= target_tokens:
            return digest
    return Digest(text="", tiers=(), omitted=n)
