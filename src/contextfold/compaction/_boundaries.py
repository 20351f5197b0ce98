"""Safe boundaries: where the older, compacted part of a context ends and the kept part begins.

A cut at index ``c`` compacts ``messages[lo:c]`` and keeps ``messages[c:]``.
Provider rules are small objects (`ToolPairingRule`, `ThinkingRule`), each
saying which cuts are safe and which messages may be split; the finder
intersects them, so a new provider rule is one new class, not an edit to the
search. The search itself:

(a) walk from the tail adding message counts until the reserve is met;
    keep at least ``min_recent`` messages, but the recent part at most
    ``recent_cap`` tokens;
(b) the most recent real user message and everything after it stay (design
    invariant 4) unless they alone exceed ``kept_limit`` (or, when that user
    message interrupted a tool group, the group with it does); a trailing
    assistant message whose calls are still running always stays;
(c) move the cut to the nearest cut every rule accepts, keeping more when
    that still fits, compacting more otherwise;
(d) when the cut left the reserve unmet because the next older message is
    large, split that message at a block boundary (a text block by token
    ratio) and keep its tail. A split assistant message keeps all its tool
    calls in the kept half; a message with thinking is never split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from contextfold._markers import MARKER_KEY, PROVIDER_BOUNDARY, SUMMARY_MARKER, is_summary, provider_state
from contextfold._messages import (
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens._counting import TokenCounter, count_messages
from contextfold.compaction._groups import pending_tail, tool_groups

__all__ = [
    "DEFAULT_RULES",
    "SUMMARY_META_KEY",
    "SUMMARY_META_VALUE",
    "Boundary",
    "CutRule",
    "Split",
    "ThinkingRule",
    "ToolPairingRule",
    "count_live",
    "dead_span",
    "find_boundary",
    "fixed_prefix_count",
    "is_real_user",
    "last_user_index",
    "leading_system_count",
    "reserve_cut",
    "safe_cuts",
    "split_message",
]

SUMMARY_META_KEY = MARKER_KEY
"""Old name of `contextfold._markers.MARKER_KEY`."""
SUMMARY_META_VALUE = SUMMARY_MARKER
"""Old name of `contextfold._markers.SUMMARY_MARKER`."""
_SNAP_CHARS = 64  # how far back a text cut may move to land on whitespace


class CutRule(Protocol):
    """A provider rule: which cuts are safe, and which messages may be split."""

    @property
    def name(self) -> str: ...

    def safe_cuts(self, messages: Sequence[Message]) -> list[bool]:
        """``len(messages) + 1`` flags: whether keeping ``messages[c:]`` is safe for this rule."""
        ...

    def may_split(self, message: Message) -> bool:
        """Whether this message may be cut in two (head compacted, tail kept)."""
        ...


class ToolPairingRule:
    """No kept result without its call, no call separated from its results.

    A cut is unsafe inside a tool group's span and in front of a tool
    message (the kept part never starts on a tool result, even an orphan the
    input already had). A message holding results is never split.
    """

    name = "tool_pairing"

    def safe_cuts(self, messages: Sequence[Message]) -> list[bool]:
        safe = [True] * (len(messages) + 1)
        for index, message in enumerate(messages):
            if message.role == "tool":
                safe[index] = False
                continue
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    safe[index] = False
                    break
        for group in tool_groups(messages):
            for cut in range(group.start + 1, group.end + 1):
                safe[cut] = False
        return safe

    def may_split(self, message: Message) -> bool:
        return message.role in ("user", "assistant") and not message.tool_results


class ThinkingRule:
    """A thinking block stays whole with its assistant turn, and so does a provider's compaction state.

    Signed thinking is tamper-evident and must come first in its turn, so an
    assistant message carrying any thinking (signed, unsigned or redacted), or
    a block of provider state (`contextfold._markers.PROVIDER_STATE_KEY`), is
    never split or edited; it leaves the context whole or stays whole. Cuts
    between messages never touch a block, so every cut is safe for this rule.
    """

    name = "thinking"

    def safe_cuts(self, messages: Sequence[Message]) -> list[bool]:
        return [True] * (len(messages) + 1)

    def may_split(self, message: Message) -> bool:
        return not any(isinstance(b, ThinkingBlock | RedactedThinkingBlock) for b in message.content) and (
            provider_state(message) is None
        )


DEFAULT_RULES: tuple[CutRule, ...] = (ToolPairingRule(), ThinkingRule())


def safe_cuts(messages: Sequence[Message], rules: Sequence[CutRule] = DEFAULT_RULES) -> list[bool]:
    """Intersection of every rule's safe cuts."""
    safe = [True] * (len(messages) + 1)
    for rule in rules:
        flags = rule.safe_cuts(messages)
        if not all(flags):
            safe = [a and b for a, b in zip(safe, flags, strict=True)]
    return safe


def leading_system_count(messages: Sequence[Message]) -> int:
    """Number of system messages at the start: the prompt, which compaction never touches (the ``lo`` of a cut)."""
    count = 0
    for message in messages:
        if message.role != "system":
            break
        count += 1
    return count


def _last_boundary(messages: Sequence[Message], lo: int) -> int | None:
    """Index (at or after ``lo``) of the latest message holding a `PROVIDER_BOUNDARY` block."""
    for index in range(len(messages) - 1, lo - 1, -1):
        if provider_state(messages[index]) == PROVIDER_BOUNDARY:
            return index
    return None


def dead_span(messages: Sequence[Message]) -> tuple[int, int]:
    """``(start, end)``: the messages the provider drops, between the prompt and its latest compaction boundary.

    Anthropic's server-side compaction drops every message block before its latest ``compaction`` block; what the
    model reads starts at the message holding it. Empty (``start == end``) when there is no boundary.
    """
    lo = leading_system_count(messages)
    at = _last_boundary(messages, lo)
    return (lo, lo) if at is None else (lo, at)


def fixed_prefix_count(messages: Sequence[Message]) -> int:
    """Messages at the start that no compaction touches (the ``lo`` of a cut).

    The leading system messages (the prompt) and, after a provider compaction, everything up to the message holding
    its latest boundary plus the results of that message's tool calls: what precedes the boundary the provider
    drops itself, and compacting after it keeps the provider's summary first, as its rules want.
    """
    lo = leading_system_count(messages)
    at = _last_boundary(messages, lo)
    if at is None:
        return lo
    end = at + 1
    for group in tool_groups(messages):
        if group.start == at:
            end = max(end, group.end + 1)
            break
    return end


def count_live(counter: TokenCounter, messages: Sequence[Message]) -> int:
    """Tokens of ``messages`` as the provider reads them: the messages it drops (`dead_span`) cost nothing."""
    start, end = dead_span(messages)
    if start == end:
        return count_messages(counter, messages)
    return count_messages(counter, messages[:start]) + count_messages(counter, messages[end:])


def is_real_user(message: Message) -> bool:
    """A user turn written by a person: not only hints, not a contextfold summary (`is_summary`), not tool results."""
    if message.role != "user" or message.tool_results:
        return False
    if is_summary(message):
        return False
    return any(not isinstance(b, HintBlock) for b in message.content)


def last_user_index(messages: Sequence[Message], lo: int = 0) -> int | None:
    """Index of the most recent real user message at or after ``lo``."""
    for index in range(len(messages) - 1, lo - 1, -1):
        if is_real_user(messages[index]):
            return index
    return None


def reserve_cut(counts: Sequence[int], reserve_tokens: int, lo: int = 0) -> int:
    """The largest cut whose kept part holds at least ``reserve_tokens`` (``lo`` when all together hold less)."""
    if reserve_tokens <= 0:
        return len(counts)
    total = 0
    for index in range(len(counts) - 1, lo - 1, -1):
        total += counts[index]
        if total >= reserve_tokens:
            return index
    return lo


@dataclass(frozen=True, slots=True)
class Split:
    """One message cut in two: ``head`` is compacted, ``tail`` is kept.

    ``text_cut`` says whether a text block was cut inside (its two parts are
    the last block of ``head`` and the first of ``tail``), so `rejoin`
    restores the original exactly.
    """

    index: int
    head: Message
    tail: Message
    text_cut: bool

    def rejoin(self) -> Message:
        """The original message."""
        head, tail = self.head.content, self.tail.content
        if self.text_cut:
            first, second = head[-1], tail[0]
            if not (isinstance(first, TextBlock) and isinstance(second, TextBlock)):  # pragma: no cover
                raise TypeError("a text cut must join two text blocks")
            merged = TextBlock(text=first.text + second.text, meta=first.meta)
            return self.head.replace(content=(*head[:-1], merged, *tail[1:]))
        return self.head.replace(content=head + tail)


@dataclass(frozen=True, slots=True)
class Boundary:
    """Where the kept part begins.

    ``cut`` is the index of the first message kept whole. With a ``split``,
    message ``cut - 1`` is cut in two and its tail is kept in front.
    ``kept_tokens`` estimates the kept part; ``protected`` says whether the
    latest user turn was kept whole (design invariant 4).
    """

    lo: int
    cut: int
    split: Split | None
    kept_tokens: int
    protected: bool

    @property
    def compacted_end(self) -> int:
        """Index of the first message not (even partly) compacted, on the original list."""
        return self.cut - 1 if self.split is not None else self.cut

    def compacted(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        """The messages this cut of ``messages`` compacts, in order (a split message's head last)."""
        older = tuple(messages[self.lo : self.compacted_end])
        return (*older, self.split.head) if self.split is not None else older


def _block_tokens(role: str, block: object, counter: TokenCounter) -> int:
    return counter.count_message(Message(role=role, content=(block,)))  # type: ignore[arg-type]


def _snap(text: str, pos: int) -> int:
    """Move a cut forward onto whitespace when some is near, so words stay whole (and the tail only shrinks)."""
    for index in range(pos, min(pos + _SNAP_CHARS, len(text))):
        if text[index - 1].isspace():
            return index
    return pos


def split_message(message: Message, keep_tokens: int, counter: TokenCounter) -> Split | None:
    """Split ``message`` so that its tail holds about ``keep_tokens``; ``None`` when no useful split exists.

    Whole blocks are taken from the end; the next text block is cut by token
    ratio. Every tool call (and whatever follows the first one) goes to the
    tail, so a tool group is never separated from its calls.
    """
    blocks = message.content
    first_call = next((i for i, b in enumerate(blocks) if isinstance(b, ToolCallBlock)), len(blocks))
    taken = 0
    k = len(blocks)
    while k > 0:
        cost = _block_tokens(message.role, blocks[k - 1], counter)
        if k - 1 >= first_call or taken + cost <= keep_tokens:
            taken += cost
            k -= 1
            continue
        break
    head = blocks[:k]
    tail = blocks[k:]
    text_cut = False
    if k > 0 and taken < keep_tokens:
        block = blocks[k - 1]
        if isinstance(block, TextBlock) and block.text:
            cost = max(_block_tokens(message.role, block, counter), 1)
            share = min((keep_tokens - taken) / cost, 1.0)
            pos = _snap(block.text, len(block.text) - int(len(block.text) * share))
            if 0 < pos < len(block.text):
                head = (*blocks[: k - 1], TextBlock(text=block.text[:pos], meta=block.meta))
                tail = (TextBlock(text=block.text[pos:], meta=block.meta), *tail)
                text_cut = True
    if not head or not tail:
        return None
    return Split(
        index=-1,
        head=message.replace(content=tuple(head)),
        tail=message.replace(content=tuple(tail)),
        text_cut=text_cut,
    )


def find_boundary(
    messages: Sequence[Message],
    counts: Sequence[int],
    *,
    counter: TokenCounter,
    lo: int = 0,
    reserve_tokens: int,
    min_recent: int,
    recent_cap: int,
    kept_limit: int,
    rules: Sequence[CutRule] = DEFAULT_RULES,
) -> Boundary | None:
    """Choose the cut (and maybe a split) for a compaction; ``None`` when no kept part fits ``kept_limit``.

    ``messages[:lo]`` is never compacted (the system prompt); ``counts`` are
    per-message tokens. ``recent_cap`` bounds the recent part, ``kept_limit``
    is the hard ceiling (what is left of the budget for kept messages).
    """
    n = len(messages)
    suffix = [0] * (n + 1)
    for index in range(n - 1, -1, -1):
        suffix[index] = suffix[index + 1] + counts[index]
    safe = safe_cuts(messages, rules)
    for index in range(lo):
        safe[index] = False
    pending = pending_tail(messages[lo:])
    pending_max = n if pending is None else lo + pending
    user = last_user_index(messages, lo)

    for protected in (True, False):
        if protected and (user is None or suffix[user] > kept_limit):
            continue
        hard_max = min(pending_max, user) if protected and user is not None else pending_max
        desired = min(reserve_cut(counts, reserve_tokens, lo), max(lo, n - min_recent))
        cap_cut = next(c for c in range(lo, n + 1) if suffix[c] <= recent_cap)
        desired = min(max(desired, cap_cut), hard_max)
        soft = min(max(recent_cap, suffix[desired]), kept_limit)
        back = next((c for c in range(desired, lo - 1, -1) if safe[c]), None)
        cut: int | None
        if back is not None and suffix[back] <= soft:
            cut = back
        else:
            cut = next((c for c in range(desired + 1, hard_max + 1) if safe[c] and suffix[c] <= kept_limit), None)
            if cut is None and back is not None and suffix[back] <= kept_limit:
                cut = back
        if cut is None:
            continue
        want = min(reserve_tokens, soft, kept_limit) - suffix[cut]
        split = _fill_split(messages, safe, cut, lo, counter, rules, want)
        kept = suffix[cut] + (count_tail(split, counter) if split else 0)
        return Boundary(lo=lo, cut=cut, split=split, kept_tokens=kept, protected=protected and user is not None)
    return None


def count_tail(split: Split, counter: TokenCounter) -> int:
    """Tokens of the kept half of a split message."""
    return counter.count_message(split.tail)


def _fill_split(
    messages: Sequence[Message],
    safe: Sequence[bool],
    cut: int,
    lo: int,
    counter: TokenCounter,
    rules: Sequence[CutRule],
    want: int,
) -> Split | None:
    """Keep the tail of the message before ``cut`` when the reserve is not met and it may be split."""
    index = cut - 1
    if want <= 0 or index < lo or not safe[index]:
        return None
    message = messages[index]
    if not all(rule.may_split(message) for rule in rules):
        return None
    target = want
    for _ in range(3):  # the ratio is an estimate: shrink the target by the overshoot and retry
        split = split_message(message, target, counter)
        if split is None:
            return None
        over = count_tail(split, counter) - want
        if over <= 0:
            return Split(index=index, head=split.head, tail=split.tail, text_cut=split.text_cut)
        target -= over
    return None
