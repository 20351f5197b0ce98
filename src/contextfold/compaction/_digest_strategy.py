"""`DigestStrategy`: the embedded, model-free compaction strategy.

It finds a safe boundary (`find_boundary`), digests the older part with
fidelity tiers (`build_digest`) into what is left of the budget (about
``summary_ratio`` of it, more when the facts ledger grows), and returns a
`CompactionPlan`. Leading system
messages are the prompt and are never compacted; if they alone do not fit
the budget, it raises `ContextOverflowError` naming that floor.

The facts ledger (`contextfold.compaction._ledger`) of the compacted part is attached
after the digest, verbatim; it may take up to ``ledger_share`` (0.9) of the
summary's tokens, and what it leaves unused goes to the digest: when room is
tight, facts are kept before prose. Its budget grows with what the history
holds: when the facts need more than that, the ledger may take up to
``facts_share`` (0.6) of the whole budget, out of the room the kept part leaves
(a long history compacted in one step, a resumed session, names hundreds of
paths and commands), while the digest keeps its tenth of the summary; what does
not fit is chosen by the ledger's priorities. When the cap still cuts facts (a large
latest turn, kept verbatim by invariant 4, leaves little room), the facts it
cut ride along in the summary's meta (`OVERFLOW_META_KEY`, never sent) and
the next compaction, with more room, brings them back. The room set aside
for the ledger before the cut is chosen is estimated from cached per-line
costs (`ledger_size`), without building a ledger of the whole history.

Where to cut is its own step (`find_summary_cut`, `DigestStrategy.cut`), so
another summarizing strategy (the structured summary) cuts at the same place
without building a digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextfold._errors import ConfigError, ContextOverflowError
from contextfold._messages import Message
from contextfold._tokens._counting import TokenCounter, count_messages
from contextfold.compaction._boundaries import (
    DEFAULT_RULES,
    Boundary,
    CutRule,
    dead_span,
    find_boundary,
    fixed_prefix_count,
    leading_system_count,
)
from contextfold.compaction._digest import build_digest
from contextfold.compaction._groups import call_names, pending_tail
from contextfold.compaction._ledger import OVERFLOW_META_KEY, ledger_size, ledger_with_overflow
from contextfold.compaction._plan import ARCHIVE_REF_TOKENS, CompactionPlan, summary_message

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = ["DigestStrategy", "SummaryCut", "find_summary_cut", "leading_system_count"]


@dataclass(frozen=True, slots=True)
class SummaryCut:
    """Where a summarizing strategy cuts, and the room its summary has."""

    boundary: Boundary
    kept_limit: int
    """Tokens left for the kept part and the summary body: the budget less the system prompt and the header."""
    ledger_reserve: int
    """Tokens set aside for the facts ledger before the cut was chosen (0 without a ledger)."""


def find_summary_cut(
    messages: Sequence[Message],
    *,
    counter: TokenCounter,
    config: ContextConfig,
    rules: Sequence[CutRule] = DEFAULT_RULES,
    ledger_share: float = 0.9,
    facts_share: float = 0.0,
) -> SummaryCut | None:
    """Where to cut ``messages`` for a summary: the boundary search of every summarizing strategy.

    ``None`` when nothing can be compacted; `ContextOverflowError` (naming the floor) when the system prompt, or
    the running tool calls, alone exceed the budget. The ledger's room (``ledger_share`` of the summary, or up to
    ``facts_share`` of the budget when the history holds the facts; at most half the room) is set aside first, so
    a large kept turn cannot squeeze the facts out.
    """
    lo = fixed_prefix_count(messages)
    counts = [count_messages(counter, (m,)) for m in messages]
    dead_start, dead_end = dead_span(messages)
    for index in range(dead_start, dead_end):  # the provider drops these: they cost nothing
        counts[index] = 0
    budget = config.budget
    system = sum(counts[:lo])
    overhead = count_messages(counter, (summary_message("", count=len(messages), archive_ref=None),))
    overhead += ARCHIVE_REF_TOKENS
    if system + overhead > budget:
        raise ContextOverflowError(
            f"the system prompt alone takes {system} tokens; with the summary header that exceeds "
            f"the budget of {budget} tokens (window {config.window})",
            floor={"system": system},
            budget=budget,
        )
    kept_limit = budget - system - overhead
    # Reserve room for the ledger before choosing the cut, so a large kept turn cannot squeeze the facts out.
    cap = _ledger_cap(config, ledger_share, facts_share)
    reserve = ledger_size(messages[lo:], counter, cap) + 2 if cap > 0 else 0
    reserve = min(reserve, kept_limit // 2)
    # The ledger's room never costs the latest user turn its verbatim place (invariant 4): when the full
    # reserve leaves that turn out, halve it until the turn fits, and drop it last.
    boundary = None
    for room in dict.fromkeys((reserve, reserve // 2, reserve // 4, 0)):
        found = find_boundary(
            messages,
            counts,
            counter=counter,
            lo=lo,
            reserve_tokens=config.reserve_tokens,
            min_recent=config.min_recent_messages,
            recent_cap=config.recent_cap_tokens,
            kept_limit=kept_limit - room,
            rules=rules,
        )
        if found is not None and (boundary is None or found.protected):
            boundary = found
        if boundary is not None and boundary.protected:
            break
    if boundary is None:
        pending = pending_tail(messages[lo:])
        turn = sum(counts[lo + pending :]) if pending is not None else 0
        raise ContextOverflowError(
            f"the system prompt ({system} tokens) and the running tool calls ({turn} tokens) "
            f"cannot be compacted and exceed the budget of {budget} tokens (window {config.window})",
            floor={"system": system, "current_turn": turn},
            budget=budget,
        )
    if boundary.cut == lo and boundary.split is None:
        return None
    return SummaryCut(boundary=boundary, kept_limit=kept_limit, ledger_reserve=reserve)


def _ledger_cap(config: ContextConfig, ledger_share: float, facts_share: float) -> int:
    """The most tokens the ledger may take: its share of the summary, or of the budget when that is more (0: off)."""
    cap = int(config.summary_tokens * ledger_share)
    return max(cap, int(config.budget * facts_share)) if cap > 0 else 0


class DigestStrategy:
    """Compact the older part into an extractive digest; keep the recent part verbatim.

    ``truncate_chars`` is N of the Truncated tier; ``rules`` are the provider
    rules the boundary must satisfy (tool pairing and thinking by default);
    ``ledger_share`` is the share of the summary the facts ledger may take
    (0 turns the ledger off); ``facts_share`` is the share of the whole budget
    the ledger may grow to when the history holds more facts than that and the
    kept part leaves the room (the summary then passes ``summary_ratio``).
    """

    name = "digest"

    def __init__(
        self,
        *,
        truncate_chars: int = 400,
        rules: Sequence[CutRule] = DEFAULT_RULES,
        ledger_share: float = 0.9,
        facts_share: float = 0.6,
    ) -> None:
        if truncate_chars < 16:
            raise ConfigError(f"DigestStrategy.truncate_chars: must be >= 16 (got {truncate_chars})")
        if not 0 <= ledger_share <= 1:
            raise ConfigError(f"DigestStrategy.ledger_share: must be between 0 and 1 (got {ledger_share})")
        if not 0 <= facts_share <= 1:
            raise ConfigError(f"DigestStrategy.facts_share: must be between 0 and 1 (got {facts_share})")
        self.truncate_chars = truncate_chars
        self.rules = tuple(rules)
        self.ledger_share = ledger_share
        self.facts_share = facts_share

    def cut(self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig) -> SummaryCut | None:
        """Where this strategy cuts ``messages`` (`find_summary_cut` with its rules and ledger shares)."""
        return find_summary_cut(
            messages,
            counter=counter,
            config=config,
            rules=self.rules,
            ledger_share=self.ledger_share,
            facts_share=self.facts_share,
        )

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan a digest compaction of ``messages``; ``None`` when nothing can be compacted."""
        cut = self.cut(messages, counter=counter, config=config)
        return self.plan_at(messages, cut, counter=counter, config=config) if cut is not None else None

    def plan_at(
        self, messages: Sequence[Message], cut: SummaryCut, *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan:
        """The digest plan for a cut already found (by `cut`)."""
        boundary, kept_limit, reserve = cut.boundary, cut.kept_limit, cut.ledger_reserve
        budget = config.budget
        older = list(boundary.compacted(messages))
        # `base`: the summary as `summary_ratio` sizes it; the digest keeps its share of that (`floor`), the ledger
        # takes the rest and may grow into what the kept part leaves free, up to `cap`.
        cap = _ledger_cap(config, self.ledger_share, self.facts_share)
        free = max(kept_limit - boundary.kept_tokens, 0)
        base = min(config.summary_tokens, free)
        floor = base - int(base * self.ledger_share)
        ledger_cap = min(max(int(base * self.ledger_share), reserve, min(cap, free - floor)), free)
        target = free
        names = call_names(messages)
        plan: CompactionPlan | None = None
        built: tuple[int, str, tuple[str, ...]] | None = None  # (cap, ledger, overflow): rebuilt only if the cap moves
        # A content-aware counter is not additive: the summary message may count a little more than its parts
        # (header, digest, ledger). Shrink by the overshoot and retry, so the plan always fits the budget.
        for _ in range(4):
            if built is None or built[0] != ledger_cap:
                made = ledger_with_overflow(older, counter, ledger_cap) if self.ledger_share else ("", ())
                built = (ledger_cap, *made)
            _, ledger, overflow = built
            ledger_tokens = counter.count_text(ledger) + 2 if ledger else 0
            digest = build_digest(
                older,
                counter=counter,
                target_tokens=max(min(max(base - ledger_tokens, floor), target - ledger_tokens), 0),
                names=names,
                truncate_chars=self.truncate_chars,
            )
            text = "\n\n".join(part for part in (digest.text, ledger) if part)
            plan = CompactionPlan.build(
                strategy=self.name,
                messages=messages,
                boundary=boundary,
                summary_text=text,
                counter=counter,
                summary_meta={OVERFLOW_META_KEY: overflow} if overflow else None,
                details={
                    "tiers": digest.tier_counts(),
                    "omitted": digest.omitted,
                    "protected": boundary.protected,
                    "ledger_tokens": ledger_tokens,
                },
            )
            over = plan.tokens_after - budget
            if over <= 0 or not text:
                break
            if digest.text:  # prose goes first
                target = max(counter.count_text(digest.text) + ledger_tokens - over, ledger_tokens)
            else:
                ledger_cap = max(ledger_tokens - over - 2, 0)
                target = min(target, ledger_cap)
        assert plan is not None  # the loop runs at least once
        return plan
