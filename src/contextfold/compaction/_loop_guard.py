"""The loop guard: a compaction must pay off, or the session says why it cannot.

A compaction that reclaims almost nothing, or lands just under the trigger,
fires again at the next call, and again: each one costs time (and, with a
model, money) and busts the prompt cache. So an automatic compaction is
accepted only when it reclaims at least ``min_reclaim_ratio`` of the tokens
and lands at least ``margin_ratio`` of the window below the trigger. When no
tier manages that, the session raises `ContextOverflowError` whose ``floor``
says what cannot be compacted: the system prompt, the tool schemas, the
pinned and re-attached messages, and the current turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextfold._errors import ConfigError, ContextOverflowError

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = ["LoopGuard", "floor_error"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopGuard:
    """When an automatic compaction counts as done."""

    min_reclaim_ratio: float = 0.05
    """Share of the tokens before that a compaction must reclaim."""
    margin_ratio: float = 0.05
    """Share of the window the result must stay below the trigger."""

    def __post_init__(self) -> None:
        for name in ("min_reclaim_ratio", "margin_ratio"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise ConfigError(f"LoopGuard.{name}: must be >= 0 and < 1 (got {value})")

    def limit(self, config: ContextConfig) -> int:
        """The most tokens an accepted compaction may leave."""
        return config.trigger_tokens - int(self.margin_ratio * config.window)

    def accepts(self, before: int, after: int, config: ContextConfig) -> bool:
        """Whether going from ``before`` to ``after`` tokens is a compaction worth applying."""
        return before - after >= self.min_reclaim_ratio * before and after <= self.limit(config)


def floor_error(
    floor: Mapping[str, int], *, best: int | None, limit: int, config: ContextConfig
) -> ContextOverflowError:
    """The error naming the irreducible floor, with token figures."""
    labels = {
        "system": "system prompt",
        "tools": "tool schemas",
        "pinned": "pinned/re-attached",
        "current_turn": "current turn",
    }
    parts = ", ".join(f"{labels.get(k, k)} {v}" for k, v in floor.items())
    total = sum(floor.values())
    got = f"the best compaction left {best} tokens" if best is not None else "nothing could be compacted"
    return ContextOverflowError(
        f"compaction cannot bring the context to {limit} tokens (trigger {config.trigger_tokens} minus the margin, "
        f"window {config.window}): {got}; the irreducible floor is {total} tokens ({parts})",
        floor=dict(floor),
        budget=limit,
    )
