"""Token counting speed, side by side: contextfold vs agentscope 2.0.6 vs langchain-core.

Two measurements on the same deterministic 2,000-message session (the generator
of ``../shared/bench/agentscope_bench.py``):

* **from scratch**: count the whole session with empty caches (contextfold:
  fresh `Message` objects, so no cached counts; peers always re-count);
* **append + total**: append one message to the 2,000-message context and read
  the new total (contextfold: `TokenTally.append` then ``.total``; peers: what
  they must do, a full re-count).

The implementations take turns within each repeat (round robin), so a burst of
load from other processes hits all of them alike; the ratio to agentscope is
the median of the per-repeat ratios.

    .venv-agentscope/bin/python benchmarks/bench_count.py [--n 2000] [--repeat 15] [--out benchmarks/results/tokens.md]

(``make bench`` makes that venv: AgentScope 2.0.6 pins ``mcp<2``, which the dev extra's ``mcp>=2`` cannot share.)

Message conversion to each library's own types is done before timing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contextfold._messages import Message, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec
from contextfold._tokens._calibrated import CalibratedCounter
from contextfold._tokens._counting import BytesCounter, TokenCounter, TokenTally, count_messages, count_tools

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


def bench_contextfold(counter: TokenCounter, session: list[dict[str, Any]], tools: list[ToolSpec]):
    """A from-scratch counting function (fresh messages each call) and the append + total cost."""
    msgs = [to_message(m) for m in session]

    def scratch() -> tuple[float, int]:
        fresh = [m.replace() for m in msgs]  # uncached copies, made before timing
        t0 = time.perf_counter()
        n = count_messages(counter, fresh) + count_tools(counter, tools)
        return time.perf_counter() - t0, n

    extra = [m.replace() for m in msgs[-200:]]
    tally = TokenTally(counter, msgs[:-1])
    t0 = time.perf_counter()
    for m in extra:
        tally.append(m)
        _ = tally.total
    per_append = (time.perf_counter() - t0) / len(extra)
    return scratch, per_append


def bench_agentscope(session: list[dict[str, Any]]):
    sys.path.insert(0, str(BENCH))
    import agentscope
    from agentscope_bench import AgentScopeAdapter, _cfg, parse_args

    ad = AgentScopeAdapter()
    loop = asyncio.new_event_loop()
    loop.run_until_complete(ad.setup(_cfg(parse_args([]), 10**12)))
    loop.run_until_complete(ad.load(session))

    def scratch() -> tuple[float, int]:
        t0 = time.perf_counter()
        n = loop.run_until_complete(ad.count_tokens())
        return time.perf_counter() - t0, n

    return scratch, agentscope.__version__


def bench_langchain(session: list[dict[str, Any]]):
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

    def scratch() -> tuple[float, int]:
        t0 = time.perf_counter()
        n = count_tokens_approximately(msgs)
        return time.perf_counter() - t0, n

    return scratch, langchain_core.__version__


def machine() -> str:
    cpu = next(
        (ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if "model name" in ln),
        platform.processor(),
    )
    return f"Python {platform.python_version()}, {cpu}, nproc = {os.cpu_count()}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--out", type=Path, default=None, help="write the table into this markdown file")
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
    load_before = load()
    impls: list[tuple[str, Callable[[], tuple[float, int]], float | None]] = []
    for name, counter in (("contextfold calibrated", CalibratedCounter()), ("contextfold bytes", BytesCounter())):
        scratch, app = bench_contextfold(counter, session, tools)
        impls.append((f"{name} (`{counter.key}`)", scratch, app))
    try:
        scratch, ver = bench_agentscope(session)
        impls.append((f"agentscope {ver} count_tokens", scratch, None))
    except ImportError as exc:
        print(f"agentscope skipped: {exc}", file=sys.stderr)
    try:
        scratch, ver = bench_langchain(session)
        impls.append((f"langchain-core {ver} count_tokens_approximately", scratch, None))
    except ImportError as exc:
        print(f"langchain-core skipped: {exc}", file=sys.stderr)
    times: dict[str, list[float]] = {name: [] for name, _, _ in impls}
    tokens: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, scratch, _ in impls:
            elapsed, tokens[name] = scratch()
            times[name].append(elapsed)
    ref = next((name for name in times if name.startswith("agentscope")), impls[0][0])
    exact = None
    try:
        from contextfold._tokens._exact import TiktokenCounter

        exact = count_messages(TiktokenCounter("o200k_base"), [to_message(m) for m in session])
    except Exception as exc:  # the tiktoken extra is optional here
        print(f"o200k reference skipped: {exc}", file=sys.stderr)
    lines = [
        f"Session: {args.n} messages, {mb:.1f} MB (make_session seed 0); {args.repeat} repeats, round robin; "
        f"o200k_base count of the message texts: {exact or 'n/a'} (`tokens ÷ o200k` divides each total by it; "
        "contextfold's totals also hold its framing tokens and the tool schemas, under 1 %).",
        "",
        "| implementation | tokens | tokens ÷ o200k | from scratch, median (min) ms | ÷ agentscope (median of "
        "per-repeat ratios) | append one + total (µs) | re-count ÷ append |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, _, app in impls:
        ts = times[name]
        ratio = statistics.median(t / r for t, r in zip(ts, times[ref], strict=True))
        per_append = app if app is not None else statistics.median(ts)
        recount = statistics.median(times[ref])
        share = f"{tokens[name] / exact:.3f}" if exact else "-"
        lines.append(
            f"| {name} | {tokens[name]} | {share} | {statistics.median(ts) * 1e3:.2f} ({min(ts) * 1e3:.2f}) | "
            f"{ratio:.2f}x | {per_append * 1e6:.1f} | {recount / per_append:.0f}x |"
        )
    lines += ["", f"Machine: {machine()}; load average (1, 5, 15 min) {load_before} before, {load()} after."]
    table = "\n".join(lines)
    print(table)
    if args.out:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else "# Token counting benchmarks\n"
        body = (
            "<!-- bench_count -->\n## Counting speed\n\n"
            "Command: `.venv-agentscope/bin/python benchmarks/bench_count.py "
            f"--repeat {args.repeat} --out {args.out}`\n\n"
            f"{table}\n<!-- /bench_count -->"
        )
        if "<!-- bench_count -->" in old:
            before, rest = old.split("<!-- bench_count -->", 1)
            new = before + body + rest.split("<!-- /bench_count -->", 1)[1]
        else:
            new = old.rstrip("\n") + "\n\n" + body + "\n"
        args.out.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
