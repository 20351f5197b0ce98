"""The contextfold adapter runs under the shared side-by-side harness (skipped when the harness is absent).

The harness lives outside the repository (/work/shared/bench); this only
checks that ``benchmarks/contextfold_adapter.py`` still speaks its protocol,
through the harness's own functions at tiny sizes.
"""

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = Path("/work/shared/bench/agentscope_bench.py")


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    if not HARNESS.is_file():
        pytest.skip(f"{HARNESS} not available")
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("agentscope_bench", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agentscope_bench"] = module
    spec.loader.exec_module(module)
    return module


def adapters() -> list[str]:
    return ["Adapter", "CalibratedAdapter", "StructuredAdapter", "DiskAdapter"]


@pytest.mark.parametrize("name", adapters())
def test_quick_run(harness: ModuleType, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The harness's --quick run with the adapter (what the documented command does)."""
    args = harness.parse_args(["--quick", "--adapter", f"benchmarks.contextfold_adapter:{name}"])
    out = asyncio.run(harness.main_async(args))
    assert capsys.readouterr().out.startswith("adapter: contextfold")
    assert [r["n"] for r in out["count"]] == [50, 100]
    for row in out["compress"]:
        assert row["fired"] is True
        assert row["orphans"] == 0
    modes = {r["mode"]: r for r in out["replay"] if r["n"] == 100}
    assert modes["nocompact"]["fired"] == 0
    assert modes["compact"]["fired"] >= 1
    for row in out["replay"]:
        assert row["stats"]["orphan_results_after_compress"] == 0


def test_replay_contexts_are_provider_valid(harness: ModuleType) -> None:
    """Every context the adapter hands out in a compacting replay validates for both providers."""
    from benchmarks.contextfold_adapter import Adapter

    from contextfold import render, validate

    async def run() -> tuple[int, int]:
        ad = Adapter()
        cfg: dict[str, Any] = harness._cfg(harness.parse_args(["--context-size", "20000"]), 20_000)
        await ad.setup(cfg)
        checked = problems = 0
        prev = None
        for m in harness.make_session(120, 1):
            if m["role"] == "assistant":
                await ad.before_reasoning(turn_start=prev == "user")
                for provider in ("openai", "anthropic"):
                    render(ad.ctx.messages, provider, ad.ctx.tools)
                    problems += sum(p.blocking for p in validate(ad.ctx.messages, provider))
                checked += 1
            await ad.append(m)
            prev = m["role"]
        assert ad.compressions >= 1
        assert ad.results_truncated >= 1
        return checked, problems

    checked, problems = asyncio.run(run())
    assert checked > 20
    assert problems == 0
