"""Compaction strategies: one small class per strategy behind one interface, plus a pipeline and a no-op.

A strategy answers *what* to compact (`CompactionStrategy.plan` returns a
`CompactionPlan` or ``None``); the `Context` decides *when*, archives and
applies. Every class here is usable alone or as a tier of `TieredCompaction`:

- `DedupeFileReads`: older reads of a file re-read later become placeholders.
- `ClearToolResults`: old tool output becomes a placeholder naming the archived copy.
- `DigestStrategy`: the model-free extractive summary, with the facts ledger.
- `StructuredStrategy`: the five-field summary written by a model (digest fallback).
- `TieredCompaction`: the above, cheapest first, until the context is below the target.
- `NoCompaction`: never compacts.

`Ledger`/`Fact` are the facts ledger attached to every summary; `LoopGuard`
says when an automatic compaction counts as done. A strategy that awaits (a
model) also has ``aplan`` (`AsyncCompactionStrategy`); `plan_async` calls
whichever a strategy has.
"""

from contextfold._public import publish as _publish
from contextfold.compaction._clear_results import ClearToolResults
from contextfold.compaction._dedupe_reads import DedupeFileReads, read_key
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._ledger import Fact, FactKind, Ledger, extract_facts, parse_ledger
from contextfold.compaction._loop_guard import LoopGuard
from contextfold.compaction._plan import (
    AsyncCompactionStrategy,
    CompactionPlan,
    CompactionStrategy,
    NoCompaction,
    Replacement,
    plan_async,
)
from contextfold.compaction._structured_strategy import StructuredStrategy
from contextfold.compaction._tiered import TieredCompaction

__all__ = [
    "AsyncCompactionStrategy",
    "ClearToolResults",
    "CompactionPlan",
    "CompactionStrategy",
    "DedupeFileReads",
    "DigestStrategy",
    "Fact",
    "FactKind",
    "Ledger",
    "LoopGuard",
    "NoCompaction",
    "Replacement",
    "StructuredStrategy",
    "TieredCompaction",
    "extract_facts",
    "parse_ledger",
    "plan_async",
    "read_key",
]

_publish(__name__, globals(), __all__)
