"""Compaction quality: retention, prompt cache and tier use over the dev corpus, replayed through `Context.prepare`.

Each conversation is replayed turn by turn (a turn: the point where an assistant message is about to be
produced). At each turn the new messages are appended and ``prepare()`` is called, as an agent loop would;
no model is used. Measured per strategy and window:

- retention: of the distinct file paths, commands and identifiers of the messages that left the context
  (compacted, or rewritten by a tier), the share still present verbatim in what is sent (turns after the first
  compaction; per turn, then averaged). Items are found as in ``fidelity_bench.py`` (paths: its PATH_RE;
  commands: first line, 80 chars, of a ``command`` argument of a non-editor tool) plus identifiers found by
  the ledger's own rules in the same places it looks (issue numbers, URLs, commit hashes and task/job ids in
  user and assistant text, tool-call arguments and tool output; ``*_id`` argument values).
- cache: `Prepared.cache.share` (unchanged prefix tokens / previous request tokens), over calls without a
  compaction and over all calls; plus a byte check: the rendered OpenAI request's messages before the prefix end
  are byte-identical to the previous request's.
- tiers: share of compactions that needed no model (all here), compactions per tier, tokens reclaimed per tier.

    .venv/bin/python benchmarks/bench_quality.py --windows 16000 32000 --md out.md
    .venv/bin/python benchmarks/bench_quality.py --windows 16000 --strategies digest --lost   # why items are lost
    .venv/bin/python benchmarks/bench_quality.py --strategies digest,digest-noledger          # what the ledger buys

``--lost`` classifies, at every compaction turn, each lost item by what dropped it (stderr; ``CF_LOST_VERBOSE=1``
lists them one by one).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from typing import Any

from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._errors import BudgetError
from contextfold._formats import render, to_canonical
from contextfold._messages import Message, ToolSpec, iter_text
from contextfold._tokens._factory import make_counter
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._ledger import LEDGER_HEADER, _ids, extract_facts
from contextfold.compaction._plan import is_summary_message
from contextfold.compaction._tiered import TieredCompaction

PATH_RE = re.compile(r"(?:/[\w.-]+){2,}\.\w{1,5}\b")
CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus", "dev")


def load(dirs: list[str]) -> list[dict[str, Any]]:
    out = []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.jsonl"))) if os.path.isdir(d) else [d]:
            with open(f, encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        c = json.loads(line)
                        c["_file"] = os.path.basename(f)
                        out.append(c)
    return out


def enum_tools(tools: list[dict[str, Any]]) -> set[str]:
    names = set()
    for t in tools or []:
        f = t.get("function") or {}
        cmd = ((f.get("parameters") or {}).get("properties") or {}).get("command")
        if isinstance(cmd, dict) and cmd.get("enum"):
            names.add(f.get("name") or "")
    return names


def items(m: Message, skip: set[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    text = "\n".join(iter_text(m))
    out.update(("path", p) for p in PATH_RE.findall(text))
    for call in m.tool_calls:
        try:
            args = json.loads(call.arguments)
        except ValueError:
            continue
        if isinstance(args, dict):
            for v in args.values():
                if isinstance(v, str):
                    out.update(("path", p) for p in PATH_RE.findall(v))
            cmd = args.get("command")
            if isinstance(cmd, str) and call.name not in skip and cmd.split("\n", 1)[0][:80].strip():
                out.add(("cmd", cmd.split("\n", 1)[0][:80]))
            for k, v in args.items():
                if isinstance(v, str | int) and (k == "id" or k.endswith("_id")):
                    out.add(("id", str(v)))
                elif isinstance(v, str):
                    out.update(("id", i) for i in id_values(v, hashes=True))
    if m.role in ("user", "assistant"):
        out.update(("id", i) for i in id_values(m.text, hashes=True))
    for result in m.tool_results:
        out.update(("id", i) for i in id_values(result.text, hashes=False))
    return out


def id_values(text: str, *, hashes: bool) -> list[str]:
    """Identifiers as the ledger finds them (`_ids`, the same rules and places), but each as its verbatim value.

    The ledger writes a job-style id as ``job 42`` (keyword lower-cased), so only the value is checked for those.
    """
    return [i.split(" ", 1)[1] if " " in i else i for i in _ids(text, hashes=hashes)]


def tools_of(conv: dict[str, Any]) -> list[ToolSpec]:
    out = []
    for t in conv.get("tools") or []:
        f = t.get("function") or {}
        out.append(
            ToolSpec(name=f.get("name", ""), description=f.get("description", ""), parameters=f.get("parameters") or {})
        )
    return out


def lost_reason(value: str, summary: str, extracted: set[str]) -> str:
    """Why an item that left the context is not verbatim in what is sent (at a compaction turn).

    ``not extracted``: the ledger's rules never saw it, or wrote it differently (e.g. with its spaces
    collapsed); ``ledger cap``: extracted, but the ledger's token cap cut it (and the digest lines do not hold
    it either); ``no ledger (no room)``: the summary has no ledger at all, there was no room for one.
    """
    ledger_at = summary.find(LEDGER_HEADER)
    if not any(value in e or e in value for e in extracted):
        return "not extracted"
    if ledger_at < 0:
        return "no ledger (no room)"
    return "ledger cap"


STRATEGIES: dict[str, Any] = {
    "digest": DigestStrategy,
    "tiered": TieredCompaction,
    # The digest without the facts ledger: what the ledger buys (issue 4's engine, measured against issue 8).
    "digest-noledger": lambda: DigestStrategy(ledger_share=0),
}


async def replay(
    conv: dict[str, Any], window: int, strategy: str, lost: Counter[tuple[str, str]] | None = None
) -> dict[str, Any]:
    msgs = to_canonical(conv["messages"], "openai")
    skip = enum_tools(conv.get("tools") or [])
    strat = STRATEGIES[strategy]()
    ctx = Context(
        ContextConfig(window=window), counter=make_counter(), strategy=strat, hints=False, tools=tools_of(conv)
    )
    turns = [i for i, m in enumerate(msgs) if m.role == "assistant"]
    fed = 0
    rows = []
    left: set[tuple[str, str]] = set()  # items of messages that left the context
    originals_seen: list[Message] = []
    prev_render: list[str] | None = None
    compactions = []
    cache: dict[int, set[tuple[str, str]]] = {}  # per replay: ids of live messages only

    def its(m: Message) -> set[tuple[str, str]]:
        got = cache.get(id(m))
        if got is None:
            got = cache[id(m)] = items(m, skip)
        return got

    for t in turns:
        for m in msgs[fed:t]:
            ctx.append(m)
            originals_seen.append(m)
        fed = t
        started = time.perf_counter()
        try:
            p = await ctx.prepare()
        except BudgetError as exc:
            rows.append({"error": str(exc)[:120]})
            prev_render = None
            continue
        dt = time.perf_counter() - started
        sent = list(p.messages)
        rendered = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in render(sent, "openai", ())["messages"]]
        byte_ok = None
        if prev_render is not None and not p.compaction:
            keep = p.cache.unchanged_messages
            byte_ok = rendered[:keep] == prev_render[:keep]
        prev_render = rendered
        if p.compaction is not None:
            compactions.append(p.compaction)
        sent_ids = {id(m) for m in sent}
        verbatim = [m for m in originals_seen if id(m) in sent_ids]
        all_items: set[tuple[str, str]] = set()
        for m in originals_seen:
            all_items |= its(m)
        kept_items: set[tuple[str, str]] = set()
        for m in verbatim:
            kept_items |= its(m)
        left = all_items - kept_items
        blob = "\n".join("\n".join(iter_text(m)) for m in sent)
        row: dict[str, Any] = {
            "compacted": p.compaction is not None,
            "cache": p.cache.share if prev_render is not None else None,
            "byte_ok": byte_ok,
            "fit": p.tokens <= window,
            "time": dt,
        }
        if ctx.compactions and left:
            for kind in ("path", "cmd", "id"):
                group = [v for k, v in left if k == kind]
                if group:
                    row[kind] = sum(1 for v in group if v in blob) / len(group)
            if lost is not None and p.compaction is not None:
                missing = [(k, v) for k, v in left if v not in blob]
                if missing:
                    summary = next((m.text for m in sent if is_summary_message(m)), "")
                    gone = [m for m in originals_seen if id(m) not in sent_ids]
                    extracted = {f.value for f in extract_facts(gone).facts}
                    for k, v in missing:
                        lost[(k, lost_reason(v, summary, extracted))] += 1
                        if os.environ.get("CF_LOST_VERBOSE"):
                            print(f"LOST {k} {lost_reason(v, summary, extracted)}: {v!r}", file=sys.stderr)
        rows.append(row)
    return {"rows": rows, "compactions": compactions, "file": conv["_file"]}


def mean(xs: list[float]) -> float | None:
    return statistics.fmean(xs) if xs else None


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for res in results for r in res["rows"]]
    comps = [c for res in results for c in res["compactions"]]
    per_tier: Counter[str] = Counter()
    reclaimed: defaultdict[str, int] = defaultdict(int)
    for c in comps:
        for run in c.tier_runs or (
            {"tier": c.strategy, "applied": True, "reclaimed": c.tokens_before - c.tokens_after},
        ):
            if run["applied"]:
                per_tier[run["tier"]] += 1
                reclaimed[run["tier"]] += run["reclaimed"]
    ok = [r for r in rows if "error" not in r]
    return {
        "turns": len(rows),
        "errors": len(rows) - len(ok),
        "path": mean([r["path"] for r in ok if "path" in r]),
        "cmd": mean([r["cmd"] for r in ok if "cmd" in r]),
        "id": mean([r["id"] for r in ok if "id" in r]),
        "cache_nc": mean([r["cache"] for r in ok if r["cache"] is not None and not r["compacted"]]),
        "cache_all": mean([r["cache"] for r in ok if r["cache"] is not None]),
        "byte_ok": mean([1.0 if r["byte_ok"] else 0.0 for r in ok if r["byte_ok"] is not None]),
        "fit": mean([1.0 if r["fit"] else 0.0 for r in ok]),
        "compactions": len(comps),
        "no_model": 1.0 if comps else None,
        "per_tier": dict(per_tier),
        "reclaimed": dict(reclaimed),
        "ms": 1000 * statistics.fmean(r["time"] for r in ok) if ok else None,
    }


def table(summary: dict[str, dict[int, dict[str, Any]]], windows: list[int]) -> str:
    lines = [
        "| strategy | W | turns | paths kept % | commands kept % | ids kept % | cache non-compaction % | cache all % "
        "| prefix bytes identical % | fit % | compactions | no model % | per tier: compactions / tokens reclaimed "
        "| prepare ms mean |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, per_w in summary.items():
        for w in windows:
            s = per_w[w]
            tiers = "; ".join(f"{t} {n} / {s['reclaimed'][t]:,}" for t, n in sorted(s["per_tier"].items()))
            err = f" ({s['errors']} errors)" if s["errors"] else ""
            lines.append(
                f"| {name}{err} | {w} | {s['turns']} | {pct(s['path'])} | {pct(s['cmd'])} | {pct(s['id'])} | "
                f"{pct(s['cache_nc'])} | {pct(s['cache_all'])} | {pct(s['byte_ok'])} | {pct(s['fit'])} | "
                f"{s['compactions']} | {pct(s['no_model'])} | {tiers} | {s['ms']:.2f} |"
            )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    convs = load(args.corpus)
    if args.limit:
        convs = convs[: args.limit]
    summary: dict[str, dict[int, dict[str, Any]]] = {}
    by_source: dict[str, dict[int, dict[str, dict[str, Any]]]] = {}
    started = time.time()
    for name in args.strategies.split(","):
        summary[name] = {}
        by_source[name] = {}
        for w in args.windows:
            lost: Counter[tuple[str, str]] | None = Counter() if args.lost else None
            results = [await replay(c, w, name, lost) for c in convs]
            summary[name][w] = summarize(results)
            if lost:
                print(f"{name} W={w} lost items at compaction turns (kind, reason):", file=sys.stderr)
                for (kind, reason), n in sorted(lost.items()):
                    print(f"  {kind:5} {reason:20} {n}", file=sys.stderr)
            files = sorted({r["file"] for r in results})
            by_source[name][w] = {f: summarize([r for r in results if r["file"] == f]) for f in files}
            print(f"{name} W={w} done at {time.time() - started:.0f}s", file=sys.stderr, flush=True)
    md = table(summary, args.windows)
    md += "\n\nBy source (paths / commands / ids kept %, cache non-compaction %):\n\n"
    md += "| strategy | W | source | paths | commands | ids | cache nc |\n|---|---|---|---|---|---|---|\n"
    for name, per_w in by_source.items():
        for w, files in per_w.items():
            for f, s in files.items():
                cells = [pct(s[k]) for k in ("path", "cmd", "id", "cache_nc")]
                md += f"| {name} | {w} | {f} | " + " | ".join(cells) + " |\n"
    print(md)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as fh:
            fh.write(md + "\n")
    print(f"{len(convs)} conversations, {time.time() - started:.1f} s", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", default=[CORPUS])
    ap.add_argument("--windows", nargs="+", type=int, default=[16000, 32000])
    ap.add_argument("--strategies", default="digest,tiered", help=f"comma-separated, of {', '.join(STRATEGIES)}")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--md")
    ap.add_argument("--lost", action="store_true", help="list lost items by the tier that dropped them (stderr)")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
