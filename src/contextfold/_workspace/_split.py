"""Tool-result splitting: keep the largest prefix that fits, offload the whole result.

`split_tool_result` is pure. It binary-searches the result's blocks for the
longest prefix of whole blocks that fits ``limit`` together with the notice;
when the first block that does not fit is text, it cuts that block: a first
guess by token ratio, then a binary search over code-point offsets near the
guess, then a step back to a line boundary when one is close. A cut never
falls inside a code point or between the two halves of a surrogate pair.

The notice is a function of the cut (it says on which line the kept part
ends), so every candidate is counted *with its own notice*, exactly as it
would be sent, and the search keeps the best candidate it has verified. So
the result never exceeds ``limit`` for any deterministic counter, even one
that is not monotone in the length of the text (the calibrated estimate is
not), and it fails only when the notice alone does not fit (the candidate
that keeps nothing): `ResultLimitError`, naming the tokens it needs.

Names are known before anything is written: the workspace file holds the
*whole* text of the result, not only the part after the cut, so its
content-addressed name (`_naming`) depends on the result alone, never on the
cut. The notice is planned with the real name, and the file is written once,
after the cut is final. Keeping the whole text also keeps the line numbers of
the original output (the notice points at the line to continue from, and
search hits cite lines the model can compare) and lets the same output at
another limit reuse the same file.

Cost: every candidate is counted once with the counter, and there are
O(log blocks + log chars) candidates; candidates for the cut text are at most
about ``limit`` tokens long. So splitting an n-character result costs one
full count (does it fit?), one hash of the text (its name), plus O(log n)
bounded counts: O(n log n) at worst, with no quadratic re-encoding.

`offload_oversized_result` is the async shell: it writes the text (and any
media in the cut-off part) and returns the kept block, which ends with
``<<<TRUNCATED>>>`` and a ``<system-reminder>`` naming the file to read.

Exactness: with ``kept_text`` the text of the kept blocks (without the
notice), ``kept_text + rest_text`` is exactly ``block.text`` of the original,
and the workspace file holds ``block.text``; at block level,
`SplitPlan.rejoin` gives back the original content, ``meta`` included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextfold._errors import ConfigError, ResultLimitError
from contextfold._markers import TRUNCATION_MARKER, render_hint
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter
from contextfold._workspace._naming import Payload, payload_for_media, payload_for_tool_result
from contextfold._workspace._offload import Offloader, OffloadRef

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = [
    "DEFAULT_TOOL_RESULT_LIMIT",
    "TRUNCATION_MARKER",
    "NoticeFor",
    "Render",
    "ResultLimitError",
    "SplitPlan",
    "explain_result_limit",
    "minimum_limit",
    "offload_oversized_result",
    "split_tool_result",
    "truncation_notice",
]

DEFAULT_TOOL_RESULT_LIMIT = 50_000
"""Tokens a single tool result may take in the context before it is split."""
LINE_SNAP_FRACTION = 0.1
"""A cut moves back to the last newline if that loses at most this fraction of the kept text..."""
LINE_SNAP_MAX_CHARS = 2000
"""...and at most this many characters."""
_EXAMPLE_PATH = "tool_results/0123456789abcdef.txt"

NoticeFor = Callable[[int, int], str]
"""The notice ending a kept part, as a function of the cut ``(index, offset)`` (see `SplitPlan`)."""
Render = Callable[[ToolResultBlock, "int | None"], ToolResultBlock]
"""How a block will be sent, given the index of its notice block (None: the whole result, no notice).

The tool-result path fences every text block but the notice; the split counts each candidate as rendered, so the
fenced result fits exactly, in one pass."""


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
    notice: str = ""
    """The notice it was planned (and counted) with."""

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

    def kept_block(self, notice: str | None = None) -> ToolResultBlock:
        """The block that goes into the context: kept blocks plus the notice (default: the planned one)."""
        return _candidate(self.original, self.kept_blocks, self.notice if notice is None else notice)


def truncation_notice(
    path: str | None,
    media_paths: Sequence[str] = (),
    *,
    line: int = 0,
    column: int = 0,
    lines: int | None = None,
    text_complete: bool = False,
) -> str:
    """The marker and reminder ending a kept part.

    ``path`` is the workspace file holding the whole text of the result;
    ``line`` and ``column`` (0-based) say where the part after the cut starts
    in it, ``lines`` how many lines it has; ``text_complete``: the kept part
    holds all the text and only media were cut off. ``path`` None: nothing
    was saved.
    """
    media = " Media blocks after the cut are saved as: " + ", ".join(media_paths) + "." if media_paths else ""
    if path is not None and text_complete:
        body = (
            "The media blocks after this point were omitted because of limited context; the text above is "
            f"complete (also saved in the workspace file {path})." + media
        )
    elif path is None:
        body = (
            "The remaining content of this tool result was omitted because of limited context. "
            "No workspace is configured, so it was not saved and cannot be read back; "
            "re-run the tool with a narrower request if you need it."
        )
    else:
        size = f" ({lines} line{'s' if lines != 1 else ''})" if lines is not None else ""
        if column:
            resume = (
                f"line {line + 1} goes on from character {column}: read_offloaded(path={path!r}, offset={line}, "
                f"limit=1, column={column}), then offset={line + 1} for the lines after it"
            )
        else:
            resume = f"continue from line {line + 1} with read_offloaded(path={path!r}, offset={line})"
        body = (
            "The rest of this tool result was omitted because of limited context. "
            f"The whole result{size} is saved in the workspace file {path}; {resume}, "
            "or search it with search_offloaded." + media
        )
    return f"{TRUNCATION_MARKER}\n{render_hint(body)}"


def _rest_start(content: Sequence[TextBlock | DataBlock], index: int, offset: int) -> int:
    r"""Where the part after the cut ``(index, offset)`` starts in ``ToolResultBlock.text`` (blocks joined by \n)."""
    pos, seen = 0, False
    for item in content[:index]:
        if isinstance(item, TextBlock):
            pos += int(seen) + len(item.text)
            seen = True
    if offset:
        return pos + int(seen) + offset
    if seen and any(isinstance(item, TextBlock) for item in content[index:]):
        pos += 1  # the separator: the rest starts with the next text block's first character
    return pos


def offloaded_notices(block: ToolResultBlock, path_of: Callable[[str | int], str | None]) -> NoticeFor:
    """The notice for each cut of ``block`` when its text and media are saved under ``path_of(key)``.

    ``path_of("text")`` is the file of the whole text, ``path_of(i)`` the file
    of the data block ``block.content[i]``.
    """
    text = block.text
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    media = [i for i, item in enumerate(block.content) if isinstance(item, DataBlock)]

    def notice(index: int, offset: int) -> str:
        media_paths = [p for p in (path_of(i) for i in media if i >= index) if p is not None]
        pos = _rest_start(block.content, index, offset)
        if pos >= len(text):
            return truncation_notice(path_of("text"), media_paths, text_complete=True)
        line = text.count("\n", 0, pos)
        column = pos - (text.rfind("\n", 0, pos) + 1)
        return truncation_notice(path_of("text"), media_paths, line=line, column=column, lines=lines)

    return notice


def planned_paths(block: ToolResultBlock, text: Payload | None = None) -> dict[str | int, str]:
    """The content-addressed paths the whole text (``"text"``) and each data block (its index) will be saved under.

    ``text``: the text's payload when the caller already has it.
    """
    paths: dict[str | int, str] = {"text": (text or payload_for_tool_result(block.text)).path}
    for i, item in enumerate(block.content):
        if isinstance(item, DataBlock):
            paths[i] = payload_for_media(item).path
    return paths


def minimum_limit(counter: TokenCounter, block: ToolResultBlock | None = None, *, offloaded: bool = True) -> int:
    """The smallest ``limit`` a split of ``block`` can honour: the cost of the candidate keeping only the notice.

    Without ``block``, the figure for a one-text-block result (with `BytesCounter` about 120 tokens offloaded,
    70 truncated only); each media block cut off adds its path to the notice.
    """
    if block is None:
        block = ToolResultBlock(call_id="x", content=(TextBlock(text="x"),))
        notice = truncation_notice(_EXAMPLE_PATH, line=0, lines=1) if offloaded else truncation_notice(None)
    elif offloaded:
        paths = planned_paths(block)
        notice = offloaded_notices(block, paths.get)(0, 0)
    else:
        notice = truncation_notice(None)
    return _cost(counter, _candidate(block, (), notice))


def split_tool_result(
    block: ToolResultBlock,
    *,
    limit: int,
    counter: TokenCounter,
    notice: str | NoticeFor | None = None,
    render: Render | None = None,
) -> SplitPlan | None:
    """Plan the cut of a tool result so that kept blocks plus the notice fit ``limit`` tokens.

    Returns None when the whole result fits ``limit`` as it is. ``notice`` is
    a fixed text or a function of the cut (`NoticeFor`); it defaults to the
    offloaded reminder with the real content-addressed paths. Every candidate
    is counted with its own notice, so the plan fits for any deterministic
    counter. ``render``: how blocks are sent (e.g. fenced); everything is
    counted as rendered, and `SplitPlan.kept_block` is the block before
    rendering. Raises `ResultLimitError` (a `ConfigError`) when even the
    notice alone does not fit (see `minimum_limit`).
    """
    if limit <= 0:
        raise ConfigError(f"tool result limit must be positive, got {limit}")
    shown = render if render is not None else _as_is
    if _cost(counter, shown(block, None)) <= limit:
        return None
    if notice is None:
        notice_for = offloaded_notices(block, planned_paths(block).get)
    elif isinstance(notice, str):
        fixed = notice

        def notice_for(index: int, offset: int) -> str:
            return fixed
    else:
        notice_for = notice
    content = block.content

    def cost_of(index: int, offset: int) -> int:
        kept = content[:index] if not offset else (*content[:index], _head(content[index], offset))
        return _cost(counter, shown(_candidate(block, kept, notice_for(index, offset)), len(kept)))

    floor = cost_of(0, 0)
    if floor > limit:
        raise ResultLimitError(
            f"tool result limit {limit} is too small: the truncation notice alone takes {floor} tokens",
            limit=limit,
            needed=floor,
        )
    # Largest number of whole blocks that fit (0 fits; all of them may not, or we would have returned).
    lo, hi, lo_cost = 0, len(content), floor
    while hi - lo > 1:
        mid = (lo + hi) // 2
        cost = cost_of(mid, 0)
        if cost <= limit:
            lo, lo_cost = mid, cost
        else:
            hi = mid
    boundary = content[lo] if lo < len(content) else None
    if not isinstance(boundary, TextBlock) or not boundary.text:
        return SplitPlan(block, lo, 0, lo_cost, notice_for(lo, 0))
    offset, cost = _cut_text(counter, boundary, lambda off: cost_of(lo, off), limit, lo_cost)
    return SplitPlan(block, lo, offset, cost, notice_for(lo, offset))


def _as_is(block: ToolResultBlock, notice: int | None) -> ToolResultBlock:
    return block


def _head(boundary: TextBlock | DataBlock, offset: int) -> TextBlock:
    if not isinstance(boundary, TextBlock):  # pragma: no cover - offsets are only planned in text
        raise TypeError("offset inside a data block")
    return TextBlock(text=boundary.text[:offset], meta=boundary.meta)


def _cut_text(
    counter: TokenCounter,
    boundary: TextBlock,
    cost_at: Callable[[int], int],
    limit: int,
    prefix_cost: int,
) -> tuple[int, int]:
    """Largest offset into ``boundary.text`` whose head fits, snapped to a line end when close.

    ``cost_at(offset)`` is the exact cost of the candidate cut there (its own notice included); ``lo`` only
    ever holds an offset whose cost was verified, so the answer fits even when counts are not monotone.
    """
    text = boundary.text

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

    tried: list[int] = []  # the line start `_settled` tried and found too long (at most one)

    def settled() -> tuple[int, int] | None:
        return None if tried else _settled(text, lo, hi, cost_at, limit, tried)

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
        if (done := settled()) is not None:
            return done
        probe((lo + hi) // 2)
    lo, lo_cost = _off_surrogate(text, lo, lo_cost, cost_at, limit, prefix_cost)
    return _snap_to_line(text, lo, lo_cost, cost_at, limit)


def _settled(
    text: str, lo: int, hi: int, cost_at: Callable[[int], int], limit: int, tried: list[int]
) -> tuple[int, int] | None:
    """The search's answer when the bracket ``[lo, hi)`` already decides it, else None (the bisection goes on).

    The bisection would end on some ``x`` in ``[lo, hi - 1]``, then `_off_surrogate` and `_snap_to_line` run on it.
    When no code point of ``text[lo - 1 : hi]`` is a surrogate, no newline is in ``text[lo - 1 : hi - 1]`` and the
    last newline before ``lo`` is inside the snap window of every such ``x`` (its start only moves forward with
    ``x``), each ``x`` snaps back to the same line start: if that head fits, it is the answer whichever ``x`` it
    would have been, and the bisection's counts are saved. If it does not fit, its offset goes into ``tried`` and
    the bisection runs as before.
    """
    if lo <= 0 or text.find("\n", lo - 1, hi - 1) >= 0:
        return None
    window = min(LINE_SNAP_MAX_CHARS, int(lo * LINE_SNAP_FRACTION))
    if window <= 0:
        return None
    newline = text.rfind("\n", lo - window, lo)
    last = hi - 1
    if newline < 0 or newline < last - min(LINE_SNAP_MAX_CHARS, int(last * LINE_SNAP_FRACTION)):
        return None
    between = text[lo - 1 : hi]
    if not between.isascii() and any("\ud800" <= c <= "\udfff" for c in between):
        return None
    snapped = newline + 1
    cost = cost_at(snapped)
    if cost > limit:
        tried.append(snapped)
        return None
    return snapped, cost


def _off_surrogate(
    text: str, lo: int, lo_cost: int, cost_at: Callable[[int], int], limit: int, prefix_cost: int
) -> tuple[int, int]:
    """The cut ``lo`` moved before a surrogate pair it would split (a str can hold one as two code points)."""
    if 0 < lo < len(text) and "\ud800" <= text[lo - 1] <= "\udbff" and "\udc00" <= text[lo] <= "\udfff":
        lo -= 1
        lo_cost = cost_at(lo) if lo else prefix_cost
        if lo_cost > limit:  # a counter that is not monotone: fall back to the verified block prefix
            lo, lo_cost = 0, prefix_cost
    return lo, lo_cost


def _snap_to_line(text: str, lo: int, lo_cost: int, cost_at: Callable[[int], int], limit: int) -> tuple[int, int]:
    """The cut ``lo`` moved back to just after a newline when one is near and the head still fits."""
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
    render: Render | None = None,
) -> tuple[ToolResultBlock, OffloadRef | None]:
    """Split a tool result above ``limit``, offload it, return the kept block and the text's reference.

    A result that fits comes back unchanged with no reference. Otherwise the
    kept block ends with ``<<<TRUNCATED>>>`` and a reminder naming the file
    that holds the whole text and the line to continue from (or, with no
    offloader, saying that the rest was dropped). Media blocks in the cut-off
    part are offloaded too and named in the reminder; the reference returned
    is the text's (written even when only media were cut off, so a caller
    always gets the whole text back from it).
    Offloading happens before anything is returned: if it raises
    `WorkspaceError`, the caller still has the whole result.

    The cut is planned with the paths the content will be stored under
    (`_naming`), and each file is written once, after the cut is final. An
    offloader that names items differently is handled too: the cut is
    planned again with the paths it returned (at most once per item).
    ``render`` as for `split_tool_result`: the block returned is not rendered
    yet, and fits ``limit`` once it is. Raises `ResultLimitError` when
    ``limit`` cannot hold the notice.
    """
    if offloader is None:
        plan = split_tool_result(block, limit=limit, counter=counter, notice=truncation_notice(None), render=render)
        return (block, None) if plan is None else (plan.kept_block(), None)
    text_payload = payload_for_tool_result(block.text)
    planned = planned_paths(block, text_payload)
    written: dict[str | int, OffloadRef] = {}
    store_payload = getattr(offloader, "offload_tool_result_payload", None)  # saves a second encode and hash

    def path_of(key: str | int) -> str | None:
        ref = written.get(key)
        return ref.path if ref is not None else planned.get(key)

    notices = offloaded_notices(block, path_of)
    for _ in range(len(planned) + 1):
        plan = split_tool_result(block, limit=limit, counter=counter, notice=notices, render=render)
        if plan is None:
            return block, None
        needed: list[str | int] = ["text"]  # always: the reference returned is the text's, as callers expect
        needed += [i for i, item in enumerate(block.content) if isinstance(item, DataBlock) and i >= plan.index]
        used = {key: path_of(key) for key in needed}
        for key in needed:
            if key in written:
                continue
            if key == "text":
                call, name = block.call_id, block.name
                if store_payload is not None:
                    written[key] = await store_payload(text_payload, call_id=call, tool_name=name)
                else:
                    written[key] = await offloader.offload_tool_result(block.text, call_id=call, tool_name=name)
            else:
                item = block.content[int(key)]
                if not isinstance(item, DataBlock):  # pragma: no cover - media keys index data blocks
                    raise TypeError("not a data block")
                written[key] = await offloader.offload_data(item)
        if all(written[key].path == used[key] for key in needed):  # planned with the real paths: done
            return plan.kept_block(), written["text"]
    raise AssertionError("unreachable: every round either returns or learns the real path of one more item")


def explain_result_limit(exc: ResultLimitError, config: ContextConfig) -> ResultLimitError:
    """``exc`` restated in terms of the settings that set the limit (``window``, ``tool_result_limit``).

    ``exc.limit`` may be below ``config.result_limit`` (the agent keeps room for the fence); the window
    suggested (also in ``min_window``) leaves the same room.
    """
    reserved = max(0, config.result_limit - exc.limit)
    need = exc.needed + reserved
    derived = (
        f"window {config.window} x trigger_ratio {config.trigger_ratio:g} / safety_margin {config.safety_margin:g}"
        f" x tool_result_share {config.tool_result_share:g}"
    )
    min_window = None if config.tool_result_limit < need else min_window_for_result_limit(config, need)
    if min_window is None:
        fix = f"raise tool_result_limit to at least {need}"
    else:
        fix = f"use a window of at least {min_window} tokens"
    message = (
        f"ContextConfig.result_limit is {config.result_limit} tokens ({derived}, at most tool_result_limit "
        f"{config.tool_result_limit}), too small for the truncation notice of a split tool result "
        f"({exc.needed} tokens{f' plus {reserved} reserved' if reserved else ''}); {fix}"
    )
    return ResultLimitError(message, limit=exc.limit, needed=exc.needed, min_window=min_window)


def min_window_for_result_limit(config: ContextConfig, need: int) -> int:
    """The smallest window whose ``result_limit`` (other settings as in ``config``) is at least ``need``."""
    lo, hi = config.window, max(config.window, 1) * 2
    while config.model_copy(update={"window": hi}).result_limit < need:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if config.model_copy(update={"window": mid}).result_limit >= need:
            hi = mid
        else:
            lo = mid
    return hi
