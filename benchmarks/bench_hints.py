"""Per-model-call overhead of the hint step and of prompt discovery.

Usage: .venv/bin/python benchmarks/bench_hints.py [--messages N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from contextfold._messages import Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._runtime._hints import ContextUsage, inject_hint, plan_hint
from contextfold._runtime._layers import SystemPromptBuilder, discover

NOW = datetime(2025, 3, 1, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))


def context(n: int) -> list[Message]:
    out = [Message.text_message("user", "start")]
    for i in range(n // 2):
        out.append(Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name="Read", arguments="{}"),)))
        out.append(
            Message(role="tool", content=(ToolResultBlock(call_id=f"c{i}", content=(TextBlock(text="x" * 200),)),))
        )
    return out


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    bare = context(args.messages)
    hint = plan_hint(bare, now=NOW, open_tasks=["a"])
    assert hint is not None
    hinted = inject_hint(bare, hint) + context(10)[1:]
    usage = ContextUsage(70_000, 100_000)
    cases = {
        "no hint in context (full scan)": lambda: plan_hint(bare, now=NOW, open_tasks=["a"], usage=usage),
        "hint 10 messages back (typical)": lambda: plan_hint(
            hinted, now=NOW + timedelta(minutes=5), open_tasks=["a"], usage=usage, first_call_of_reply=False
        ),
    }
    print(f"| case ({args.messages} messages) | median µs | p99 µs |")
    print("|---|---:|---:|")
    for name, fn in cases.items():
        med, p99 = timed(fn, args.repeat)
        print(f"| plan_hint, {name} | {med:.1f} | {p99:.1f} |")
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "CLAUDE.md").write_text("instructions\n" * 5000)  # 65 KB: hits the cap
        Path(tmp, "AGENTS.md").write_text("agent\n" * 100)
        med, p99 = timed(lambda: SystemPromptBuilder.from_discovered("base", discover(tmp)).build(), args.repeat)
        print(f"| discover + build (64 KiB instructions) | {med:.1f} | {p99:.1f} |")


if __name__ == "__main__":
    main()
