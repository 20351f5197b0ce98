"""Token counting speed, side by side: contextfold vs agentscope 2.0.6 vs langchain-core.

Two measurements on the same deterministic 2,000-message session (the generator
of ``../shared/bench/agentscope_bench.py``):

* **from scratch**: count the whole session with empty caches (contextfold:
  fresh `Message` objects, so no cached counts; peers always re-count);
* **append + total**: append one message to the 2,000-message context and read
  the new total (contextfold: `TokenTally.append` then ``.total``; peers: what
  they must do, a full re-count).

    .venv/bin/python benchmarks/bench_count.py [--n 2000] [--repeat 5]

Message conversion to each library's own types is done before timing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contextfold._calibrated import CalibratedCounter
from contextfold._messages import Message, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec
from contextfold._tokens import BytesCounter, TokenCounter, TokenTally, count_messages, count_tools

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"


def to_message(m: dict[str, Any]) -> Message:
    if m["role"] == "tool":
        block = ToolResultBlock(call_id=m["tool_call_id"], name=m.get("name"), content=(TextBlock(text=m["content"]),))
        return Message(role="tool", content=(block,))
    content: list[Any] = [TextBlock(text=m["content"])] if m["content"] else []
    for c in m.get("tool_calls") or []:
        content.append(ToolCallBlock(id=c["id"], name=c["name"], arguments=c["arguments"]))
    return Message(role=m["role"], content=tuple(content))


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def bench_contextfold(counter: TokenCounter, session: list[dict[str, Any]], tools: list[ToolSpec], repeat: int):
    def scratch() -> int:
        msgs = [to_message(m) for m in session]  # fresh objects: empty caches
        t0 = time.perf_counter()
        n = count_messages(counter, msgs) + count_tools(counter, tools)
        scratch.elapsed = time.perf_counter() - t0  # type: ignore[attr-defined]
        return n

    times = []
    total = 0
    for _ in range(repeat):
        total = scratch()
        times.append(scratch.elapsed)  # type: ignore[attr-defined]
    full = statistics.median(times)
    msgs = [to_message(m) for m in session]
    extra = [to_message(m) for m in session[-200:]]
    tally = TokenTally(counter, msgs[:-1])
    fresh = [m.replace() for m in extra]  # un-cached copies
    t0 = time.perf_counter()
    for m in fresh:
        tally.append(m)
        _ = tally.total
    per_append = (time.perf_counter() - t0) / len(fresh)
    return full, per_append, total


def bench_agentscope(session: list[dict[str, Any]], repeat: int):
    sys.path.insert(0, str(BENCH))
    from agentscope_bench import SYSTEM_PROMPT, AgentScopeAdapter, _cfg, parse_args

    ad = AgentScopeAdapter()
    args = parse_args([])

    async def run() -> tuple[float, int]:
        await ad.setup(_cfg(args, 10**12))
        await ad.load(session)
        times, n = [], 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            n = await ad.count_tokens()
            times.append(time.perf_counter() - t0)
        return statistics.median(times), n

    del SYSTEM_PROMPT
    full, n = asyncio.run(run())
    return full, full, n, ad.version


def bench_langchain(session: list[dict[str, Any]], repeat: int):
    import langchain_core
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.messages.utils import count_tokens_approximately

    msgs: list[Any] = []
    for m in session:
        if m["role"] == "user":
            msgs.append(HumanMessage(m["content"]))
        elif m["role"] == "assistant":
            calls = [{"id": c["id"], "name": c["name"], "args": json.loads(c["arguments"])} for c in m["tool_calls"]]
            msgs.append(AIMessage(m["content"], tool_calls=calls))
        else:
            msgs.append(ToolMessage(m["content"], tool_call_id=m["tool_call_id"]))
    full, n = timed(lambda: count_tokens_approximately(msgs), repeat)
    return full, full, n, langchain_core.__version__


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", type=Path, default=None, help="append the table to this markdown file")
    args = p.parse_args(argv)
    if not (BENCH / "agentscope_bench.py").exists():
        print(f"harness not found: {BENCH}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(BENCH))
    from agentscope_bench import make_session, tool_schemas

    session = make_session(args.n, 0)
    mb = sum(len(m["content"].encode("utf-8")) for m in session) / 1e6
    tools = [
        ToolSpec(
            name=t["function"]["name"], description=t["function"]["description"], parameters=t["function"]["parameters"]
        )
        for t in tool_schemas()
    ]
    rows = []
    for name, counter in (("contextfold calibrated", CalibratedCounter()), ("contextfold bytes", BytesCounter())):
        full, app, n = bench_contextfold(counter, session, tools, args.repeat)
        rows.append((name, full, app, n))
    try:
        full, app, n, ver = bench_agentscope(session, args.repeat)
        rows.append((f"agentscope {ver} count_tokens", full, app, n))
    except ImportError as exc:
        print(f"agentscope skipped: {exc}", file=sys.stderr)
    try:
        full, app, n, ver = bench_langchain(session, args.repeat)
        rows.append((f"langchain-core {ver} count_tokens_approximately", full, app, n))
    except ImportError as exc:
        print(f"langchain-core skipped: {exc}", file=sys.stderr)
    ref = next((r for r in rows if r[0].startswith("agentscope")), rows[0])
    lines = [
        f"Session: {args.n} messages, {mb:.1f} MB (make_session seed 0); median of {args.repeat}.",
        "",
        "| implementation | tokens | from scratch (ms) | vs agentscope | append one + total (µs) | re-count ÷ this |",
        "|---|---|---|---|---|---|",
    ]
    for name, full, app, n in rows:
        lines.append(
            f"| {name} | {n} | {full * 1e3:.2f} | {full / ref[1]:.2f}x | {app * 1e6:.1f} | {ref[2] / app:.0f}x |"
        )
    table = "\n".join(lines)
    print(table)
    if args.out:
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if "model name" in ln
            ),
            platform.processor(),
        )
        with args.out.open("a", encoding="utf-8") as f:
            f.write(
                "\n## Counting speed\n\nCommand: `.venv/bin/python benchmarks/bench_count.py --out "
                f"benchmarks/results/tokens.md` (Python {platform.python_version()}, {cpu}).\n\n{table}\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
