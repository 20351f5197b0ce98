"""`StructuredStrategy`: the five-field LLM summary, falling back to the digest when the model cannot.

The boundary is the digest's (`DigestStrategy.cut`: same safe cuts, same
budget); only the summary body differs, and the digest is built only when it
is needed as the fallback. Planning needs a model call, so this strategy is async
(``aplan``); the session awaits it. Any failure of the model — an error, an
invalid object, a summary too big for the budget — yields the digest plan,
with the reason recorded in ``details["fallback"]``. The facts ledger of the
compacted part follows the model's summary verbatim (a model paraphrases;
paths and commands must survive exactly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from contextfold._config import ContextConfig
from contextfold._errors import SummarizerError
from contextfold._messages import Message
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._ledger import ledger_for
from contextfold.compaction._plan import CompactionPlan
from contextfold.compaction._summary import StructuredSummarizer, render_summary_text

__all__ = ["StructuredStrategy"]


class StructuredStrategy:
    """Compact the older part into a structured summary written by a model."""

    name = "structured"

    def __init__(
        self,
        summarizer: StructuredSummarizer,
        *,
        fallback: DigestStrategy | None = None,
        ledger_share: float | None = None,
    ) -> None:
        self.summarizer = summarizer
        self.fallback = fallback or DigestStrategy()
        self.ledger_share = self.fallback.ledger_share if ledger_share is None else ledger_share

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """The synchronous answer is the digest: a model call needs ``aplan``."""
        return self.fallback.plan(messages, counter=counter, config=config)

    async def aplan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan with the model's summary; fall back to the digest plan and say why."""
        cut = self.fallback.cut(messages, counter=counter, config=config)
        if cut is None:
            return None
        compacted = cut.boundary.compacted(messages)

        def fallback(reason: str) -> CompactionPlan:
            return _with_fallback(self.fallback.plan_at(messages, cut, counter=counter, config=config), reason)

        try:
            outcome = await self.summarizer.summarize(compacted)
        except SummarizerError as exc:
            return fallback(str(exc))
        text = render_summary_text(outcome.summary)
        if self.ledger_share:
            ledger = ledger_for(compacted, counter, int(config.summary_tokens * self.ledger_share))
            text = "\n\n".join(part for part in (text, ledger) if part)
        plan = CompactionPlan.build(
            strategy=self.name,
            messages=messages,
            boundary=cut.boundary,
            summary_text=text,
            counter=counter,
            details={
                "attempts": outcome.attempts,
                "messages_dropped_from_summary_input": outcome.messages_dropped,
                "notes": list(outcome.notes),
            },
        )
        if plan.tokens_after > config.budget:
            return fallback(f"the model's summary left {plan.tokens_after} tokens, over the budget of {config.budget}")
        return plan


def _with_fallback(plan: CompactionPlan, reason: str) -> CompactionPlan:
    details = dict(plan.details)
    details["fallback"] = reason
    return replace(plan, details=MappingProxyType(details))
