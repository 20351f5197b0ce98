"""Where the compacting replay's time goes: timers around the session's phases, warm, in one process.

The harness's 2,000-message session (``agentscope_bench.make_session``) is replayed through the benchmark adapter
as ``bench_replay.py`` and the harness do (append every message, ``prepare()`` before every assistant message, window
128k); each phase below is timed by wrapping the method that runs it. Phases nest: ``prepare`` holds ``compact``
(``plan`` + ``apply``) and ``hints``; ``append_tool_result`` holds the ``append`` of tool messages.

    .venv/bin/python benchmarks/replay_phases.py                # the default (facts ledger on)
    .venv/bin/python benchmarks/replay_phases.py --no-ledger    # the engine without the ledger
    .venv/bin/python benchmarks/replay_phases.py --runs 6 --size 1000

The last run is reported (the first ones warm caches and the allocator up); this is a profile, not the benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT.parent / "shared" / "bench")]

import agentscope_bench as harness  # noqa: E402
import benchmarks.contextfold_adapter as adapter_module  # noqa: E402

from contextfold._context import Context  # noqa: E402

PHASES: dict[str, tuple[Any, str]] = {
    "to_message": (adapter_module, "to_message"),
    "append": (Context, "append"),
    "append_tool_result": (Context, "append_tool_result"),
    "prepare": (Context, "prepare"),
    "hints": (Context, "_plan_hint"),
    "compact": (Context, "compact"),
    "plan": (Context, "_plan"),
    "apply": (Context, "_apply"),
}


def _timed(totals: dict[str, float], name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    if asyncio.iscoroutinefunction(func):

        @functools.wraps(func)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await func(*args, **kwargs)
            finally:
                totals[name] = totals.get(name, 0.0) + time.perf_counter() - started

        return timed_async

    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - started

    return timed


async def replay(adapter_class: type[Any], session: list[dict[str, Any]], args: argparse.Namespace) -> float:
    adapter = adapter_class()
    await adapter.setup(harness._cfg(args, args.window))
    total = 0.0
    previous = None
    for message in session:
        if message["role"] == "assistant":
            started = time.perf_counter()
            await adapter.before_reasoning(turn_start=previous == "user")
            total += time.perf_counter() - started
        started = time.perf_counter()
        await adapter.append(message)
        total += time.perf_counter() - started
        previous = message["role"]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-ledger", action="store_true", help="the engine without the facts ledger")
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--window", type=int, default=128_000)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    hargs = harness.parse_args(["--replay-sizes", str(args.size)])
    hargs.window = args.window
    totals: dict[str, float] = {}
    for name, (owner, attribute) in PHASES.items():
        setattr(owner, attribute, _timed(totals, name, getattr(owner, attribute)))
    adapter_class = adapter_module.NoLedgerAdapter if args.no_ledger else adapter_module.Adapter
    session = harness.make_session(args.size)
    total = 0.0
    for _ in range(args.runs):
        totals.clear()
        total = asyncio.run(replay(adapter_class, session, hargs))
    phases = ", ".join(f"{name} {totals.get(name, 0.0) * 1e3:.1f}" for name in PHASES)
    print(f"{adapter_class.name}: total {total * 1e3:.1f} ms ({phases} ms)")


if __name__ == "__main__":
    main()
