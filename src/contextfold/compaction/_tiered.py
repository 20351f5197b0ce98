"""`TieredCompaction`: cheapest tier first, stop as soon as the context is below the target.

Tiers come in two kinds, told apart by their plans. A *rewriting* tier
(`DedupeFileReads`, `ClearToolResults`) rewrites messages in place and
compacts nothing; its rewrites accumulate and the next tier sees them. A
*summarizing* tier (`DigestStrategy`, `StructuredStrategy`) replaces the
older part by a summary: it plans on the original messages (so the summary
and the facts ledger see the real tool output, not placeholders), and the
rewrites that fall in its kept part are carried over. The default order:

1. dedupe repeated file reads (loses nothing the newest read does not show);
2. clear old tool results (the calls stay; outputs archived);
3. the digest (no model);
4. the structured summary, only when a summary model is given: the digest
   is then accepted only when it had to omit no message entirely.

The plan's ``details["tier_runs"]`` says which tiers ran and what each
reclaimed; ``strategy`` names the tiers whose work is in the plan
(``clear_tool_results+digest``). The sync and async entry points share one
generator (`_flow`), so the logic is written once.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from contextfold._errors import ConfigError
from contextfold._messages import Message
from contextfold._tokens._counting import TokenCounter, count_messages
from contextfold.compaction._boundaries import fixed_prefix_count
from contextfold.compaction._clear_results import ClearToolResults
from contextfold.compaction._dedupe_reads import DedupeFileReads
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._plan import (
    ARCHIVE_REF_TOKENS,
    PLACEHOLDER_REF_TOKENS,
    CompactionPlan,
    CompactionStrategy,
    Replacement,
    plan_async,
)
from contextfold.compaction._summary import StructuredSummarizer

if TYPE_CHECKING:
    from contextfold._config import ContextConfig

__all__ = ["TieredCompaction"]

_Request = tuple[CompactionStrategy, Sequence[Message]]
_Flow = Generator[_Request, CompactionPlan | None, CompactionPlan | None]


class TieredCompaction:
    """Run tiers cheapest first until the context is at most ``target`` (a share of the window; default: the budget).

    ``tiers`` defaults to dedupe, clear, digest, plus the structured summary
    when ``summarizer`` is given.
    """

    name = "tiered"

    def __init__(
        self,
        tiers: Sequence[CompactionStrategy] | None = None,
        *,
        summarizer: StructuredSummarizer | None = None,
        target: float | None = None,
    ) -> None:
        if tiers is None:
            built: list[CompactionStrategy] = [DedupeFileReads(), ClearToolResults(), DigestStrategy()]
            if summarizer is not None:
                from contextfold.compaction._structured_strategy import StructuredStrategy

                built.append(StructuredStrategy(summarizer))
            tiers = built
        elif summarizer is not None:
            raise ConfigError("TieredCompaction: give either tiers or a summarizer, not both")
        if not tiers:
            raise ConfigError("TieredCompaction: needs at least one tier")
        if target is not None and not 0 < target < 1:
            raise ConfigError(f"TieredCompaction.target: must be a share of the window in (0, 1) (got {target})")
        self.tiers: tuple[CompactionStrategy, ...] = tuple(tiers)
        self.target = target

    def target_tokens(self, config: ContextConfig) -> int:
        """Tokens the context must be at or under for the tiers to stop."""
        return config.budget if self.target is None else int(config.window * self.target)

    # -- entry points --------------------------------------------------------------------------

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan with each tier's synchronous ``plan`` (a model tier then answers with its fallback)."""
        flow = self._flow(messages, counter, config)
        try:
            tier, msgs = next(flow)
            while True:
                tier, msgs = flow.send(tier.plan(msgs, counter=counter, config=config))
        except StopIteration as stop:
            result: CompactionPlan | None = stop.value
            return result

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan, awaiting tiers that plan asynchronously (a summary model)."""
        flow = self._flow(messages, counter, config)
        try:
            tier, msgs = next(flow)
            while True:
                tier, msgs = flow.send(await plan_async(tier, msgs, counter=counter, config=config))
        except StopIteration as stop:
            result: CompactionPlan | None = stop.value
            return result

    # -- the logic, once -----------------------------------------------------------------------

    def _flow(self, messages: Sequence[Message], counter: TokenCounter, config: ContextConfig) -> _Flow:
        target = self.target_tokens(config)
        original = tuple(messages)
        work = list(messages)
        rewrites: dict[int, Message] = {}  # index in `messages` -> current rewrite
        rewriters: list[str] = []
        runs: list[dict[str, Any]] = []
        current = count_messages(counter, work)
        best: CompactionPlan | None = None
        for position, tier in enumerate(self.tiers):
            planned = yield (tier, work if _is_rewriter(tier) else original)
            if planned is None:
                runs.append(_run(tier.name, current, current, applied=False))
                continue
            if not planned.compacted:  # a rewriting tier: accumulate and go on
                lo = len(planned.prefix)
                for r in planned.replaced:
                    work[lo + r.index] = planned.kept[r.index]
                    rewrites[lo + r.index] = planned.kept[r.index]
                after = count_messages(counter, work)
                runs.append(_run(tier.name, current, after, applied=True))
                current = after
                rewriters.append(tier.name)
                if current + PLACEHOLDER_REF_TOKENS * len(rewrites) <= target:
                    return self._rewrite_plan(original, rewrites, rewriters, runs, counter)
                continue
            combined = self._combine(planned, rewrites, rewriters, counter)
            runs.append(_run(tier.name, current, combined.tokens_after, applied=True))
            final = _with_runs(combined, runs)
            later = any(not _is_rewriter(t) for t in self.tiers[position + 1 :])
            good = combined.tokens_after <= target and not (later and combined.details.get("omitted", 0))
            if good:
                return final
            if best is None or final.tokens_after < best.tokens_after:
                best = final
        if best is not None:
            return _with_runs(best, runs)
        if rewrites:
            return self._rewrite_plan(original, rewrites, rewriters, runs, counter)
        return None

    def _rewrite_plan(
        self,
        messages: Sequence[Message],
        rewrites: dict[int, Message],
        rewriters: list[str],
        runs: list[dict[str, Any]],
        counter: TokenCounter,
    ) -> CompactionPlan:
        plan = CompactionPlan.rewrite(
            strategy="+".join(rewriters),
            messages=messages,
            lo=fixed_prefix_count(messages),
            rewrites=rewrites,
            counter=counter,
            details={"messages_rewritten": len(rewrites)},
        )
        return _with_runs(plan, runs)

    @staticmethod
    def _combine(
        planned: CompactionPlan, rewrites: dict[int, Message], rewriters: list[str], counter: TokenCounter
    ) -> CompactionPlan:
        """A summarizing plan made on the originals, with the rewrites of its kept part carried over."""
        boundary = planned.boundary
        shift = boundary.cut - (1 if boundary.split is not None else 0)
        kept = list(planned.kept)
        replaced: list[Replacement] = []
        for index in sorted(rewrites):
            k = index - shift
            if index >= boundary.cut and 0 <= k < len(kept):
                replaced.append(Replacement(index=k, original=kept[k]))
                kept[k] = rewrites[index]
        if not replaced:
            return planned
        plan = replace(
            planned,
            kept=tuple(kept),
            replaced=tuple(replaced),
            strategy="+".join([*rewriters, planned.strategy]),
        )
        after = count_messages(counter, plan.messages) + ARCHIVE_REF_TOKENS + PLACEHOLDER_REF_TOKENS * len(replaced)
        return replace(plan, tokens_after=after)


def _is_rewriter(tier: CompactionStrategy) -> bool:
    return isinstance(tier, DedupeFileReads | ClearToolResults) or bool(getattr(tier, "rewrites_only", False))


def _run(name: str, before: int, after: int, *, applied: bool) -> dict[str, Any]:
    return {
        "tier": name,
        "applied": applied,
        "tokens_before": before,
        "tokens_after": after,
        "reclaimed": before - after,
    }


def _with_runs(plan: CompactionPlan, runs: list[dict[str, Any]]) -> CompactionPlan:
    details = dict(plan.details)
    details["tier_runs"] = tuple(MappingProxyType(r) for r in runs)
    details["model_used"] = any(r["applied"] and r["tier"] == "structured" for r in runs) and not details.get(
        "fallback"
    )
    return replace(plan, details=MappingProxyType(details))
