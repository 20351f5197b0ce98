"""`ClearToolResults`: the cheapest tier, old tool output replaced by a one-line placeholder.

Old tool output is the bulk of an agent's context and the part it needs
least: the calls (what was run, on which file) stay, only the output goes,
and the original is archived so the agent can read it back. The tool call
and result ids stay, so tool pairing is untouched by construction.

Batched: a clear happens only when it reclaims at least ``min_reclaim``
tokens, because every clear changes the cached prefix from the first
cleared result on; clearing rarely and in bulk keeps the prompt cache warm.
The newest ``keep`` results, the results of the latest assistant turn and
results too small to be worth a placeholder are never cleared.

A placeholder keeps the facts of the output it replaces (the facts ledger's
file paths, identifiers and error lines, verbatim), within ``mention_share``
of the output's tokens: a cleared ``grep -rn`` or ``find`` listed the files a
later turn will edit, and naming them costs a fraction of the output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from contextfold._errors import ConfigError
from contextfold._markers import ARCHIVE_PENDING, MARKER_KEY, PLACEHOLDER_MARKER, is_placeholder_text
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._boundaries import fixed_prefix_count
from contextfold.compaction._groups import call_names
from contextfold.compaction._ledger import Fact, extract_facts
from contextfold.compaction._plan import CompactionPlan

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = ["ClearToolResults", "is_placeholder", "latest_turn_start", "placeholder_result", "rewrite_results"]


def is_placeholder(block: ToolResultBlock) -> bool:
    """Whether a result was already replaced by a contextfold placeholder."""
    return any(is_placeholder_text(b) for b in block.content)


def placeholder_result(block: ToolResultBlock, text: str) -> ToolResultBlock:
    """``block`` with its content replaced by ``text`` (ids, name and error flag kept, so pairing holds)."""
    inner = TextBlock(text=text, meta={MARKER_KEY: PLACEHOLDER_MARKER})
    return ToolResultBlock(
        call_id=block.call_id, content=(inner,), is_error=block.is_error, name=block.name, meta=block.meta
    )


def latest_turn_start(messages: Sequence[Message]) -> int:
    """Index of the latest assistant message with tool calls (``len(messages)`` when none): never edited from there."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant" and messages[index].tool_calls:
            return index
    return len(messages)


def rewrite_results(
    messages: Sequence[Message],
    chosen: dict[tuple[int, int], str],
) -> dict[int, Message]:
    """Messages with the chosen results (``(message index, block index) -> placeholder text``) replaced."""
    out: dict[int, Message] = {}
    for index in sorted({i for i, _ in chosen}):
        message = messages[index]
        content = []
        for b, block in enumerate(message.content):
            text = chosen.get((index, b))
            content.append(
                placeholder_result(block, text) if text is not None and isinstance(block, ToolResultBlock) else block
            )
        out[index] = message.replace(content=tuple(content))
    return out


def _result_tokens(block: ToolResultBlock, counter: TokenCounter) -> int:
    return counter.count_message(Message(role="tool", content=(block,)))


class ClearToolResults:
    """Replace tool results older than the newest ``keep`` by a placeholder naming the archived copy.

    ``min_result_tokens``: smaller results are kept (a placeholder would save
    little and lose the content). ``min_reclaim``: the least a clear must
    reclaim, in tokens (an int) or as a share of the window (a float below 1).
    ``mention_paths``: how many file paths found in a cleared result the
    placeholder still names at most, and ``mention_share``: the share of the
    result's tokens those facts (paths, identifiers, error lines) may take, so
    a later turn knows what it showed and a clear still reclaims the rest.
    """

    name = "clear_tool_results"

    def __init__(
        self,
        *,
        keep: int = 3,
        min_result_tokens: int = 128,
        min_reclaim: int | float = 0.05,
        mention_paths: int = 200,
        mention_share: float = 0.5,
        exclude_tools: Sequence[str] = (),
    ) -> None:
        if keep < 0:
            raise ConfigError(f"ClearToolResults.keep: must be >= 0 (got {keep})")
        if min_result_tokens < 0:
            raise ConfigError(f"ClearToolResults.min_result_tokens: must be >= 0 (got {min_result_tokens})")
        if min_reclaim < 0 or (isinstance(min_reclaim, float) and min_reclaim >= 1):
            raise ConfigError(
                f"ClearToolResults.min_reclaim: tokens (int >= 0) or a share of the window (0 <= float < 1), "
                f"got {min_reclaim}"
            )
        self.keep = keep
        self.min_result_tokens = min_result_tokens
        self.min_reclaim = min_reclaim
        if not 0 <= mention_share < 1:
            raise ConfigError(f"ClearToolResults.mention_share: must be in [0, 1) (got {mention_share})")
        self.mention_paths = mention_paths
        self.mention_share = mention_share
        self.exclude_tools = frozenset(exclude_tools)

    def min_reclaim_tokens(self, config: ContextConfig) -> int:
        """The least a clear must reclaim, in tokens, for ``config``'s window."""
        if isinstance(self.min_reclaim, float):
            return math.ceil(self.min_reclaim * config.window)
        return self.min_reclaim

    def _text(self, message: Message, block: ToolResultBlock, name: str, tokens: int, counter: TokenCounter) -> str:
        text = (
            f"[{name} output cleared to save context ({tokens} tokens); "
            f"the original is archived at {ARCHIVE_PENDING} (call {block.call_id}); read it back if needed]"
        )
        if self.mention_paths and self.mention_share and block.text:
            # The message itself when it holds only this result: its facts are then cached by the ledger.
            source = message if len(message.content) == 1 else Message(role="tool", content=(block,))
            text += _mentions(
                extract_facts([source]).facts, self.mention_paths, int(tokens * self.mention_share), counter
            )
        if any(isinstance(b, DataBlock) for b in block.content):
            text += " [media omitted]"
        return text

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan the clear; ``None`` when it would reclaim less than the minimum."""
        return plan_result_rewrites(
            self.name,
            messages,
            counter=counter,
            select=self._select,
            min_reclaim=self.min_reclaim_tokens(config),
        )

    def _select(
        self, messages: Sequence[Message], lo: int, stop: int, counter: TokenCounter
    ) -> dict[tuple[int, int], str]:
        names = call_names(messages)
        positions = [
            (i, b, block)
            for i in range(lo, len(messages))
            for b, block in enumerate(messages[i].content)
            if isinstance(block, ToolResultBlock)
        ]
        old = positions[: max(len(positions) - self.keep, 0)]
        chosen: dict[tuple[int, int], str] = {}
        for i, b, block in old:
            name = block.name or names.get(block.call_id, "tool")
            if i >= stop or is_placeholder(block) or name in self.exclude_tools:
                continue
            tokens = _result_tokens(block, counter)
            if tokens < self.min_result_tokens:
                continue
            chosen[(i, b)] = self._text(messages[i], block, name, tokens, counter)
        return chosen


def _mentions(facts: Sequence[Fact], max_paths: int, max_tokens: int, counter: TokenCounter) -> str:
    """`` It showed: a, b; ids: …; errors: …``: files first (in output order), then ids and errors, within the cap."""
    groups = {
        "files": [f.value for f in facts if f.kind == "file"][:max_paths],
        "ids": [f.value for f in facts if f.kind == "id"],
        "errors": [f.value for f in facts if f.kind == "error"],
    }
    parts: list[str] = []
    used = 0
    for label, values in groups.items():
        taken: list[str] = []
        for value in values:
            cost = counter.count_text(value) + 1
            if used + cost > max_tokens:
                break
            taken.append(value)
            used += cost
        if taken:
            parts.append(", ".join(taken) if label == "files" else f"{label}: " + " | ".join(taken))
    return " It showed: " + "; ".join(parts) if parts else ""


Selector = Callable[[Sequence[Message], int, int, TokenCounter], dict[tuple[int, int], str]]


def plan_result_rewrites(
    strategy: str,
    messages: Sequence[Message],
    *,
    counter: TokenCounter,
    select: Selector,
    min_reclaim: int,
) -> CompactionPlan | None:
    """Shared by the result-rewriting tiers: choose results, rewrite them, keep only rewrites that pay off."""
    lo = fixed_prefix_count(messages)
    stop = latest_turn_start(messages)
    chosen = select(messages, lo, stop, counter)
    if not chosen:
        return None
    rewrites = rewrite_results(messages, chosen)
    reclaimed = 0
    for index in list(rewrites):
        saved = counter.count_message(messages[index]) - counter.count_message(rewrites[index])
        if saved <= 0:
            del rewrites[index]
        else:
            reclaimed += saved
    if not rewrites or reclaimed < max(min_reclaim, 1):
        return None
    cleared = sum(1 for i, _ in chosen if i in rewrites)
    return CompactionPlan.rewrite(
        strategy=strategy,
        messages=messages,
        lo=lo,
        rewrites=rewrites,
        counter=counter,
        details={"results_replaced": cleared, "reclaimed": reclaimed},
    )
