"""Tool-result splitting: keep the largest prefix that fits, offload the rest.

`split_tool_result` is pure. It binary-searches the result's blocks for the
longest prefix of whole blocks that fits ``limit`` together with the notice;
when the first block that does not fit is text, it cuts that block: a first
guess by token ratio, then a binary search over code-point offsets near the
guess, then a step back to a line boundary when one is close. A cut never
falls inside a code point or between the two halves of a surrogate pair.

Cost: every candidate is counted once with the counter, and there are
O(log blocks + log chars) candidates; candidates for the cut text are at most
about ``limit`` tokens long. So splitting an n-character result costs one
full count (does it fit?) plus O(log n) bounded counts: O(n log n) at worst,
with no quadratic re-encoding.

`offload_oversized_result` is the async shell: it offloads the cut-off text
(and any media in the cut-off part) and returns the kept block, which ends
with ``<<<TRUNCATED>>>`` and a ``<system-reminder>`` naming the file to read.

Exactness: with ``kept_text`` the text of the kept blocks (without the
notice) and ``rest_text`` the offloaded text, ``kept_text + rest_text`` is
exactly ``block.text`` of the original; at block level, `SplitPlan.rejoin`
gives back the original content, ``meta`` included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contextfold._errors import ConfigError
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter
from contextfold._workspace._offload import Offloader, OffloadRef

__all__ = [
    "DEFAULT_TOOL_RESULT_LIMIT",
    "TRUNCATION_MARKER",
    "SplitPlan",
    "minimum_limit",
    "offload_oversized_result",
    "split_tool_result",
    "truncation_notice",
]

DEFAULT_TOOL_RESULT_LIMIT = 50_000
"""Tokens a single tool result may take in the context before it is split."""
TRUNCATION_MARKER = "<<<TRUNCATED>>>"
LINE_SNAP_FRACTION = 0.1
"""A cut moves back to the last newline if that loses at most this fraction of the kept text..."""
LINE_SNAP_MAX_CHARS = 2000
"""...and at most this many characters."""
_PLACEHOLDER_PATH = "tool_results/00000000T000000000000Z-000000000000.txt"
_MAX_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """Where a tool result is cut: the first ``index`` blocks are kept whole, plus ``offset`` code points of the next.

    ``offset`` is 0 when the boundary block is a data block or is dropped whole.
    """

    original: ToolResultBlock
    index: int
    offset: int
    kept_tokens: int
    """Tokens of the kept block including the notice it was planned with."""

    @property
    def kept_blocks(self) -> tuple[TextBlock | DataBlock, ...]:
        """The blocks that stay in the context (the cut text block holds only its head)."""
        content = self.original.content
        if self.offset == 0:
            return content[: self.index]
        boundary = content[self.index]
        if not isinstance(boundary, TextBlock):  # pragma: no cover - offsets are only planned in text
            raise TypeError("offset inside a data block")
        return (*content[: self.index], TextBlock(text=boundary.text[: self.offset], meta=boundary.meta))

    @property
    def rest_blocks(self) -> tuple[TextBlock | DataBlock, ...]:
        """The blocks that leave the context (the cut text block holds only its tail)."""
        content = self.original.content
        if self.offset == 0:
            return content[self.index :]
        boundary = content[self.index]
        if not isinstance(boundary, TextBlock):  # pragma: no cover
            raise TypeError("offset inside a data block")
        return (TextBlock(text=boundary.text[self.offset :], meta=boundary.meta), *content[self.index + 1 :])

    @property
    def kept_text(self) -> str:
        """Text of the kept blocks joined as `ToolResultBlock.text` joins them."""
        return "\n".join(b.text for b in self.kept_blocks if isinstance(b, TextBlock))

    @property
    def rest_text(self) -> str:
        """The text that leaves the context: ``kept_text + rest_text == original.text``."""
        return self.original.text[len(self.kept_text) :]

    @property
    def rest_media(self) -> tuple[DataBlock, ...]:
        """Data blocks that leave the context (offloaded one by one)."""
        return tuple(b for b in self.rest_blocks if isinstance(b, DataBlock))

    def rejoin(self) -> tuple[TextBlock | DataBlock, ...]:
        """The original content rebuilt from the kept and rest blocks (a check of exactness)."""
        kept, rest = self.kept_blocks, self.rest_blocks
        if self.offset == 0:
            return (*kept, *rest)
        head, tail = kept[-1], rest[0]
        if not isinstance(head, TextBlock) or not isinstance(tail, TextBlock):  # pragma: no cover
            raise TypeError("a cut boundary is always text")
        return (*kept[:-1], TextBlock(text=head.text + tail.text, meta=head.meta), *rest[1:])

    def kept_block(self, notice: str) -> ToolResultBlock:
        """The block that goes into the context: kept blocks plus the notice as a last text block."""
        return _candidate(self.original, self.kept_blocks, notice)


def truncation_notice(path: str | None, media_paths: Sequence[str] = ()) -> str:
    """The marker and reminder ending a kept part; ``path`` None means nothing was saved."""
    if path is None:
        body = (
            "The remaining content of this tool result was omitted because of limited context. "
            "No workspace is configured, so it was not saved and cannot be read back; "
            "re-run the tool with a narrower request if you need it."
        )
    else:
        body = (
            "The remaining content of this tool result was omitted because of limited context. "
            f"It is saved in the workspace file {path}; read it with read_offloaded(path={path!r}, offset=0) "
            "or search it with search_offloaded."
        )
        if media_paths:
            body += " Media blocks after the cut are saved as: " + ", ".join(media_paths) + "."
    return f"{TRUNCATION_MARKER}\n<system-reminder>\n{body}\n</system-reminder>"


def minimum_limit(counter: TokenCounter, *, offloaded: bool = True) -> int:
    """The smallest ``limit`` a split can honour: the cost of a result holding only the notice.

    With `BytesCounter` it is about 110 tokens (offloaded) and 70 (truncated only).
    """
    notice = truncation_notice(_PLACEHOLDER_PATH if offloaded else None)
    return _cost(counter, _candidate(ToolResultBlock(call_id="x"), (), notice))


def split_tool_result(
    block: ToolResultBlock,
    *,
    limit: int,
    counter: TokenCounter,
    notice: str | None = None,
) -> SplitPlan | None:
    """Plan the cut of a tool result so that kept blocks plus ``notice`` fit ``limit`` tokens.

    Returns None when the whole result fits ``limit`` as it is. ``notice``
    defaults to the offloaded reminder with a placeholder path. Raises
    `ConfigError` when even the notice alone does not fit (see `minimum_limit`).
    """
    if limit <= 0:
        raise ConfigError(f"tool result limit must be positive, got {limit}")
    if _cost(counter, block) <= limit:
        return None
    notice = truncation_notice(_PLACEHOLDER_PATH) if notice is None else notice
    content = block.content

    def fits(kept: tuple[TextBlock | DataBlock, ...]) -> int | None:
        cost = _cost(counter, _candidate(block, kept, notice))
        return cost if cost <= limit else None

    floor = fits(())
    if floor is None:
        raise ConfigError(
            f"tool result limit {limit} is too small to hold the truncation notice "
            f"({_cost(counter, _candidate(block, (), notice))} tokens)"
        )
    # Largest number of whole blocks that fit (0 fits; all of them do not, or we would have returned).
    lo, hi, lo_cost = 0, len(content), floor
    while hi - lo > 1:
        mid = (lo + hi) // 2
        cost = fits(content[:mid])
        if cost is not None:
            lo, lo_cost = mid, cost
        else:
            hi = mid
    boundary = content[lo] if lo < len(content) else None
    if not isinstance(boundary, TextBlock) or not boundary.text:
        return SplitPlan(block, lo, 0, lo_cost)
    offset, cost = _cut_text(counter, block, content[:lo], boundary, notice, limit, lo_cost)
    return SplitPlan(block, lo, offset, cost)


def _cut_text(
    counter: TokenCounter,
    block: ToolResultBlock,
    prefix: tuple[TextBlock | DataBlock, ...],
    boundary: TextBlock,
    notice: str,
    limit: int,
    prefix_cost: int,
) -> tuple[int, int]:
    """Largest offset into ``boundary.text`` whose head fits, snapped to a line end when close."""
    text = boundary.text

    def cost_at(offset: int) -> int:
        head = TextBlock(text=text[:offset], meta=boundary.meta)
        return _cost(counter, _candidate(block, (*prefix, head), notice))

    # First guess by token ratio on a bounded slice: the head cannot be longer than ~limit tokens.
    sample = text[: max(64, 16 * limit)]
    sample_tokens = max(1, counter.count_text(sample))
    room = max(0, limit - prefix_cost)
    guess = min(len(text), int(len(sample) * room / sample_tokens))
    # Bracket [lo, hi): lo fits, hi does not (the whole text does not, or there would be no split).
    lo, lo_cost, hi = 0, prefix_cost, len(text)

    def probe(offset: int) -> int:
        """Count the head ending at ``offset`` (``lo < offset < hi``) and narrow the bracket with it."""
        nonlocal lo, lo_cost, hi
        cost = cost_at(offset)
        if cost <= limit:
            lo, lo_cost = offset, cost
        else:
            hi = offset
        return cost

    guess = min(guess, hi - 1)
    if guess > 0:
        cost = probe(guess)
        step = max(16, guess // 64)
        # One secant step: a head's count grows almost linearly with its length, so the line through the prefix
        # and the guess meets the limit within a few characters of the cut, and a short gallop brackets it.
        if cost > prefix_cost:
            secant = int(guess * (limit - prefix_cost) / (cost - prefix_cost))
            if lo < secant < hi:
                cost = probe(secant)
                step = 16
            elif secant == guess:  # the guess already sits where the line meets the limit
                step = 16
        if cost <= limit:  # the last probe fits: gallop up from it
            while lo + step < hi and probe(lo + step) <= limit:
                step *= 2
        else:  # it does not: gallop down
            while hi - step > lo and probe(hi - step) > limit:
                step *= 2
    while hi - lo > 1:
        probe((lo + hi) // 2)
    # Never split a surrogate pair (a str can hold one as two code points).
    if 0 < lo < len(text) and "\ud800" <= text[lo - 1] <= "\udbff" and "\udc00" <= text[lo] <= "\udfff":
        lo -= 1
        lo_cost = cost_at(lo) if lo else prefix_cost
        if lo_cost > limit:  # a counter that is not monotone: fall back to the verified block prefix
            lo, lo_cost = 0, prefix_cost
    # Prefer a line boundary when one is near: keep through the newline.
    if lo > 0 and text[lo - 1] != "\n":
        window = min(LINE_SNAP_MAX_CHARS, int(lo * LINE_SNAP_FRACTION))
        newline = text.rfind("\n", lo - window, lo) if window > 0 else -1
        if newline >= 0:
            snapped = newline + 1
            cost = cost_at(snapped)
            if cost <= limit:
                lo, lo_cost = snapped, cost
    return lo, lo_cost


def _candidate(block: ToolResultBlock, kept: tuple[TextBlock | DataBlock, ...], notice: str) -> ToolResultBlock:
    return ToolResultBlock(
        call_id=block.call_id,
        content=(*kept, TextBlock(text=notice)),
        is_error=block.is_error,
        name=block.name,
        meta=block.meta,
    )


def _cost(counter: TokenCounter, block: ToolResultBlock) -> int:
    return counter.count_message(Message(role="tool", content=(block,)))


async def offload_oversized_result(
    block: ToolResultBlock,
    *,
    limit: int = DEFAULT_TOOL_RESULT_LIMIT,
    counter: TokenCounter,
    offloader: Offloader | None,
) -> tuple[ToolResultBlock, OffloadRef | None]:
    """Split a tool result above ``limit``, offload the rest, return the kept block and the text's reference.

    A result that fits comes back unchanged with no reference. Otherwise the
    kept block ends with ``<<<TRUNCATED>>>`` and a reminder naming the file
    (or, with no offloader, saying that the rest was dropped). Offloading
    happens before anything is returned: if it raises `WorkspaceError`, the
    caller still has the whole result. Media blocks in the cut-off part are
    offloaded too and named in the reminder.

    Paths are not known before writing, so the cut is planned with a
    placeholder path; if the real reminder turns out longer, the cut is
    planned again with it (at most a few rounds; the superseded file stays
    in the workspace, harmless).
    """
    if offloader is None:
        notice = truncation_notice(None)
        plan = split_tool_result(block, limit=limit, counter=counter, notice=notice)
        if plan is None:
            return block, None
        return plan.kept_block(notice), None
    notice = truncation_notice(_PLACEHOLDER_PATH)
    media_refs: dict[int, OffloadRef] = {}
    for _ in range(_MAX_ROUNDS):
        plan = split_tool_result(block, limit=limit, counter=counter, notice=notice)
        if plan is None:
            return block, None
        media_paths: list[str] = []
        first_rest = plan.index
        for i, item in enumerate(block.content[first_rest:], start=first_rest):
            if isinstance(item, DataBlock):
                if i not in media_refs:
                    media_refs[i] = await offloader.offload_data(item)
                media_paths.append(media_refs[i].path)
        ref = await offloader.offload_tool_result(plan.rest_text, call_id=block.call_id, tool_name=block.name)
        final_notice = truncation_notice(ref.path, media_paths)
        kept = plan.kept_block(final_notice)
        if _cost(counter, kept) <= limit:
            return kept, ref
        notice = final_notice + " " * 8  # the real paths cost more than planned: plan again with them
    raise ConfigError(f"tool result limit {limit} is too small for the truncation notice with the workspace paths")
