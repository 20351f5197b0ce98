"""Many replicas at the trigger at once: one compaction is stored, every other request adopts it (every backend).

Six `Engine` instances, each with its own connection to the store (six replicas), get the same over-the-trigger
history twelve times at once. Only the store's compare-and-set orders them.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

from contextfold import BytesCounter
from contextfold.proxy import ProxyConfig, open_store
from contextfold.proxy._engine import Engine, Outcome, lineage_of
from contextfold.proxy._wire import FORMATS

TENANT = "a" * 32


def _body(messages: list[Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "be useful", "messages": messages}


def test_replicas_racing_at_the_trigger_store_one_compaction(store_url: str, tmp_path: Path) -> None:
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i} " + "text " * 300} for i in range(15)]
    config = ProxyConfig(window=3000, state_dir=tmp_path / "state")

    async def run() -> tuple[list[Outcome], int]:
        stores = [open_store(store_url, retention=None) for _ in range(6)]
        engines = [Engine(config, store, BytesCounter()) for store in stores]
        try:
            jobs = [
                engines[n % 6].rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
                for n in range(12)
            ]
            outcomes = list(await asyncio.gather(*jobs))
            lineage = lineage_of(FORMATS["anthropic"], _body(history), [], {})
            record = await stores[0].get_lineage(TENANT, outcomes[0].session, lineage)
            assert record is not None
            return outcomes, record.compactions
        finally:
            for store in stores:
                await store.aclose()

    outcomes, stored = asyncio.run(run())
    assert stored == 1
    assert sum(o.compacted for o in outcomes) == 1  # one winner; the others forwarded its replacement
    assert len({o.body for o in outcomes}) == 1 and outcomes[0].body is not None
