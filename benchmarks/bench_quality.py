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

One-shot (``--one-shot``; ``--one-shot-only`` skips the replay): every conversation compacted once at its end, as
``contextfold compact`` does on a saved session and the proxy on a resumed one (the command's core,
`compact_transcript`, with a fresh workspace; compacted whenever it is over the budget). Measured: of the distinct
paths, commands and identifiers of the whole conversation (the same extraction as above), the share still verbatim
in the output (a message kept as it was keeps its items; any other item must appear in the output's text or in a
kept call's decoded arguments); the same for the paths the user or the agent named (text, call arguments) and the
commands that failed (non-zero exit status); fit (tokens with the tool schemas <= the budget); pairing validity with
`validate` for both providers (a problem the input already has is not counted against the output: the tau-bench
transcripts reuse call ids, which Anthropic rejects); identical output in a second run, once through `Context.compact`
without a workspace (fresh ledger caches) and once through the command's core with a fresh workspace, compared
byte for byte (the workspace's names are content-addressed); the time of the compaction.
``--generated N`` adds N sessions of `long_sessions.py` (long, many paths, three tool shapes) as a second corpus;
``--cv`` picks ``facts_share`` by 3-fold cross-validation over the corpus.

    .venv/bin/python benchmarks/bench_quality.py --one-shot-only --generated 24 --cv
    .venv/bin/python benchmarks/bench_quality.py --windows 8000 16000 32000 --one-shot --generated 24 \
        --write-results benchmarks/results/compaction-quality.md
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
import tempfile
import time
from collections import Counter, defaultdict
from typing import Any

import contextfold.compaction._ledger as _ledger_module
from contextfold._cli._compact import compact_transcript
from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._errors import BudgetError
from contextfold._formats import render, to_canonical
from contextfold._formats._transcript import Transcript
from contextfold._formats._validate import validate
from contextfold._messages import Message, ToolSpec, iter_text
from contextfold._tokens._counting import count_messages, count_tools
from contextfold._tokens._factory import make_counter
from contextfold._workspace._local import LocalWorkspace
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._ledger import LEDGER_HEADER, _ids, _result_exits, extract_facts
from contextfold.compaction._plan import is_summary_message
from contextfold.compaction._tiered import TieredCompaction

PATH_RE = re.compile(r"(?:/[\w.-]+){2,}\.\w{1,5}\b")
_HERE = os.path.dirname(os.path.abspath(__file__))
# Beside the clone (``../shared``), or beside the folder of worktrees a clone's branches are checked out in.
_CORPORA = [os.path.join(_HERE, *[".."] * up, "shared", "corpus", "dev") for up in (2, 3)]
CORPUS = next((d for d in _CORPORA if os.path.isdir(d)), _CORPORA[0])


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


# -- one-shot: every conversation compacted once at its end -------------------------------------------------------


def _decoded_leaves(messages: list[Message]) -> list[str]:
    """String leaves of the decoded arguments of every call: a command with quotes is verbatim there, not in JSON."""
    out: list[str] = []
    for m in messages:
        for call in m.tool_calls:
            try:
                stack = [call.parsed_arguments()]
            except ValueError:
                continue
            while stack:
                value = stack.pop()
                if isinstance(value, str):
                    out.append(value)
                elif isinstance(value, dict):
                    stack.extend(value.values())
                elif isinstance(value, list):
                    stack.extend(value)
    return out


def _classes(msgs: list[Message], skip: set[str]) -> dict[str, set[str]]:
    """Items a later turn needs most: paths the user or the agent named, commands that failed (exit status != 0)."""
    named: set[str] = set()
    for m in msgs:
        if m.role in ("user", "assistant"):
            named.update(v for k, v in items(m, skip) if k == "path")
    exits: dict[str, int] = {}
    for m in msgs:
        exits.update(_result_exits(m))
    failed: set[str] = set()
    for m in msgs:
        for call in m.tool_calls:
            if exits.get(call.id, 0) == 0 or call.name in skip:
                continue
            try:
                cmd = call.parsed_arguments().get("command")
            except (ValueError, AttributeError):
                continue
            if isinstance(cmd, str) and cmd.split("\n", 1)[0][:80].strip():
                failed.add(cmd.split("\n", 1)[0][:80])
    return {"named": named, "failed": failed}


def _rendered(messages: list[Message]) -> list[str]:
    """The rendered request, byte for byte (workspace names are content-addressed: no masking)."""
    rendered = render(messages, "openai", ())["messages"]
    return [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in rendered]


def _problems(messages: list[Message], provider: str) -> set[tuple[str, str | None]]:
    return {(p.code, p.call_id) for p in validate(messages, provider) if p.blocking}  # type: ignore[arg-type]


async def _compact_once(
    conv: dict[str, Any], window: int, facts_share: float | None = None
) -> tuple[list[Message], int, float, bool]:
    """``contextfold compact``'s core on the whole conversation, fresh workspace: (messages, tokens, compaction s,
    compacted).

    The default strategy (the digest with its default ``facts_share``), or the digest with ``facts_share``.
    """
    msgs = to_canonical(conv["messages"], "openai")
    config = ContextConfig(window=window)
    counter = make_counter()
    transcript = Transcript(messages=tuple(msgs), tools=tuple(tools_of(conv)), format="openai", shape="object")
    with tempfile.TemporaryDirectory(prefix="oneshot_") as ws:
        over = count_messages(counter, msgs) + count_tools(counter, transcript.tools) > config.budget
        strategy = DigestStrategy(facts_share=facts_share) if facts_share is not None else None
        result = await compact_transcript(
            transcript, config=config, counter=counter, workspace=LocalWorkspace(ws), strategy=strategy, force=over
        )
    seconds = result.compaction.seconds if result.compaction is not None else 0.0  # plan, archive and apply
    return list(result.transcript.messages), result.tokens_after, seconds, result.compaction is not None


async def _compact_plain(conv: dict[str, Any], window: int) -> list[str]:
    """The rendered request after `Context.compact` of the whole conversation, no workspace (fresh caches)."""
    _ledger_module._CACHE.clear()
    _ledger_module._RENDERED.clear()
    config = ContextConfig(window=window)
    ctx = Context(config, counter=make_counter(), hints=False, tools=tools_of(conv))
    for m in to_canonical(conv["messages"], "openai"):
        ctx.append(m)
    if ctx.tokens > config.budget:
        await ctx.compact(reason="forced")
    return [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in render(ctx.messages, "openai", ())["messages"]]


async def one_shot(conv: dict[str, Any], window: int, facts_share: float | None = None) -> dict[str, Any]:
    """One conversation compacted once at its end: retention of its items, fit, validity, determinism, time."""
    msgs = to_canonical(conv["messages"], "openai")
    skip = enum_tools(conv.get("tools") or [])
    out, tokens, seconds, compacted = await _compact_once(conv, window, facts_share)
    again, _, _, _ = await _compact_once(conv, window, facts_share)
    same = _rendered(out) == _rendered(again)
    plain = [await _compact_plain(conv, window) for _ in range(2)]
    kept_ids = {id(m) for m in out}
    every: set[tuple[str, str]] = set()
    kept: set[tuple[str, str]] = set()
    for m in msgs:
        found = items(m, skip)
        every |= found
        if id(m) in kept_ids:
            kept |= found
    blob = "\n".join(["\n".join(iter_text(m)) for m in out] + _decoded_leaves(out))

    def share(values: set[str], kind: str) -> float | None:
        if not values:
            return None
        return sum(1 for v in values if (kind, v) in kept or v in blob) / len(values)

    row: dict[str, Any] = {
        "file": conv["_file"],
        "id": conv.get("id"),
        "messages": len(msgs),
        "compacted": compacted,
        "fit": tokens <= ContextConfig(window=window).budget,
        "same": same,
        "same_plain": plain[0] == plain[1],
        "seconds": seconds,
    }
    for kind in ("path", "cmd", "id"):
        values = {v for k, v in every if k == kind}
        row[kind] = share(values, kind)
        row[f"n_{kind}"] = len(values)
    classes = _classes(msgs, skip)
    row["named"] = share(classes["named"], "path")
    row["failed"] = share(classes["failed"], "cmd")
    for provider in ("openai", "anthropic"):
        row[f"valid_{provider}"] = not (_problems(out, provider) - _problems(msgs, provider))
    return row


def one_shot_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"conversations": len(rows), "compacted": sum(r["compacted"] for r in rows)}
    for key in ("path", "cmd", "id", "named", "failed"):
        out[key] = mean([r[key] for r in rows if r[key] is not None])
    for key in ("fit", "same", "same_plain", "valid_openai", "valid_anthropic"):
        out[key] = mean([1.0 if r[key] else 0.0 for r in rows])
    times = [r["seconds"] for r in rows if r["compacted"]]
    out["ms"] = 1000 * statistics.fmean(times) if times else None
    out["ms_max"] = 1000 * max(times) if times else None
    out["paths_median"] = statistics.median([r["n_path"] for r in rows]) if rows else None
    return out


def one_shot_table(results: dict[str, dict[int, list[dict[str, Any]]]]) -> str:
    lines = [
        "| corpus | W | conversations (compacted) | distinct paths, median | paths kept % | commands kept % "
        "| ids kept % | named paths kept % | failed commands kept % | fit % | valid OpenAI % | valid Anthropic % "
        "| identical output % (no workspace / CLI core) | compaction ms mean / max |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for corpus, per_w in results.items():
        for w, rows in per_w.items():
            s = one_shot_summary(rows)
            ms = "–" if s["ms"] is None else f"{s['ms']:.0f} / {s['ms_max']:.0f}"
            lines.append(
                f"| {corpus} | {w} | {s['conversations']} ({s['compacted']}) | {s['paths_median']:.0f} "
                f"| {pct(s['path'])} | {pct(s['cmd'])} | {pct(s['id'])} | {pct(s['named'])} | {pct(s['failed'])} "
                f"| {pct(s['fit'])} | {pct(s['valid_openai'])} | {pct(s['valid_anthropic'])} "
                f"| {pct(s['same_plain'])} / {pct(s['same'])} "
                f"| {ms} |"
            )
    return "\n".join(lines)


def one_shot_by_source(results: dict[int, list[dict[str, Any]]]) -> str:
    lines = [
        "| W | source | conversations | paths kept % | commands kept % | ids kept % |",
        "|---|---|---|---|---|---|",
    ]
    for w, rows in results.items():
        for f in sorted({r["file"] for r in rows}):
            s = one_shot_summary([r for r in rows if r["file"] == f])
            lines.append(f"| {w} | {f} | {s['conversations']} | {pct(s['path'])} | {pct(s['cmd'])} | {pct(s['id'])} |")
    return "\n".join(lines)


CV_SHARES = (0.5, 0.6, 0.75)


async def cross_validate(convs: list[dict[str, Any]], window: int, folds: int = 3) -> str:
    """Pick ``facts_share`` on all folds but one (mean of paths and commands kept), measure on the one left out."""
    default = DigestStrategy().facts_share
    per_share = {value: [await one_shot(c, window, value) for c in convs] for value in CV_SHARES}

    def score(rows: list[dict[str, Any]]) -> float:
        s = one_shot_summary(rows)
        return ((s["path"] or 0.0) + (s["cmd"] or 0.0)) / 2

    lines = [
        f"| fold | conversations held out | facts_share chosen on the others | held-out paths kept % "
        f"| held-out commands kept % | held-out with the default {default} |",
        "|---|---|---|---|---|---|",
    ]
    for fold in range(folds):
        train = [i for i in range(len(convs)) if i % folds != fold]
        test = [i for i in range(len(convs)) if i % folds == fold]
        best = max(CV_SHARES, key=lambda v: (score([per_share[v][i] for i in train]), -abs(v - default)))
        held = one_shot_summary([per_share[best][i] for i in test])
        base = one_shot_summary([per_share[default][i] for i in test]) if default in per_share else None
        base_cell = f"{pct(base['path'])} / {pct(base['cmd'])}" if base else "–"
        lines.append(f"| {fold + 1} | {len(test)} | {best} | {pct(held['path'])} | {pct(held['cmd'])} | {base_cell} |")
    return "\n".join(lines)


def replay_md(summary: dict[str, dict[int, dict[str, Any]]], by_source: dict[str, Any], windows: list[int]) -> str:
    md = table(summary, windows)
    md += "\n\nBy source (paths / commands / ids kept %, cache non-compaction %):\n\n"
    md += "| strategy | W | source | paths | commands | ids | cache nc |\n|---|---|---|---|---|---|---|\n"
    for name, per_w in by_source.items():
        for w, files in per_w.items():
            for f, s in files.items():
                cells = [pct(s[k]) for k in ("path", "cmd", "id", "cache_nc")]
                md += f"| {name} | {w} | {f} | " + " | ".join(cells) + " |\n"
    return md


async def main_async(args: argparse.Namespace) -> int:
    convs = load(args.corpus)
    if args.limit:
        convs = convs[: args.limit]
    summary: dict[str, dict[int, dict[str, Any]]] = {}
    by_source: dict[str, dict[int, dict[str, dict[str, Any]]]] = {}
    started = time.time()
    for name in [] if args.one_shot_only else args.strategies.split(","):
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
    parts: list[str] = []
    if summary:
        parts.append(replay_md(summary, by_source, args.windows))
    shots: dict[str, dict[int, list[dict[str, Any]]]] = {}
    if args.one_shot or args.one_shot_only:
        corpora: dict[str, list[dict[str, Any]]] = {"dev corpus": convs}
        if args.generated:
            from long_sessions import sessions

            generated = sessions(args.generated)
            for conv in generated:
                conv["_file"] = f"generated ({conv['agent'].split('(')[1].split()[0]} tools)"
            corpora[f"generated ({args.generated} sessions)"] = generated
        for label, group in corpora.items():
            shots[label] = {}
            for w in args.one_shot_windows:
                shots[label][w] = [await one_shot(c, w) for c in group]
                print(f"one-shot {label} W={w} done at {time.time() - started:.0f}s", file=sys.stderr, flush=True)
        parts.append("One-shot (every conversation compacted once at its end):\n\n" + one_shot_table(shots))
        for label, per_w in shots.items():
            parts.append(f"One-shot by source, {label}:\n\n" + one_shot_by_source(per_w))
    if args.cv:
        parts.append(
            f"Cross-validation of `facts_share` (one-shot, W = {args.cv_window}, 3 folds by conversation index):\n\n"
            + await cross_validate(convs, args.cv_window)
        )
    md = "\n\n".join(parts)
    print(md)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as fh:
            fh.write(md + "\n")
    if args.json:
        doc = {
            "replay": {n: {str(w): v for w, v in per_w.items()} for n, per_w in summary.items()},
            "one_shot": {
                label: {str(w): one_shot_summary(rows) for w, rows in per_w.items()} for label, per_w in shots.items()
            },
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1, default=str)
    if args.write_results:
        before = _against(args) if args.against else None
        _write_results(args, md, before)
    print(f"{len(convs)} conversations, {time.time() - started:.1f} s", file=sys.stderr)
    return 0


RESULTS_BEGIN = "<!-- bench_quality.py --write-results: begin -->"
RESULTS_END = "<!-- bench_quality.py --write-results: end -->"


def _against(args: argparse.Namespace) -> str:
    """The same measures (replay and one-shot, no cross-validation) on another revision's ``src``, in its process."""
    import subprocess
    import tarfile

    root = os.path.dirname(_HERE)
    with tempfile.TemporaryDirectory(prefix="against_") as tmp:
        archive = subprocess.run(
            ["git", "-C", root, "archive", args.against, "src"], check=True, capture_output=True
        ).stdout
        with open(os.path.join(tmp, "src.tar"), "wb") as fh:
            fh.write(archive)
        with tarfile.open(os.path.join(tmp, "src.tar")) as tar:
            tar.extractall(tmp, filter="data")
        out = os.path.join(tmp, "before.md")
        argv = [sys.executable, os.path.abspath(__file__), "--md", out, "--corpus", *args.corpus]
        argv += ["--windows", *map(str, args.windows), "--strategies", args.strategies]
        argv += ["--one-shot-windows", *map(str, args.one_shot_windows)]
        if args.one_shot or args.one_shot_only:
            argv.append("--one-shot-only" if args.one_shot_only else "--one-shot")
        if args.generated:
            argv += ["--generated", str(args.generated)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(tmp, "src"), _HERE])}
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as fh:
            return fh.read()


def _write_results(args: argparse.Namespace, md: str, before: str | None) -> None:
    """Replace this script's section of the results page (between the markers) by this run's tables."""
    import platform

    command = " ".join(["benchmarks/bench_quality.py", *sys.argv[1:]])
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "?")
    head = (
        f"Written by `.venv/bin/python {command}` on {time.strftime('%Y-%m-%d %H:%M')} "
        f"(`nproc` = {os.cpu_count()}, {cpu}, Python {platform.python_version()}; load average "
        f"{os.getloadavg()[0]:.1f} at the end). No model anywhere."
    )
    body = f"{head}\n\n**This tree**\n\n{md}\n"
    if before is not None:
        body += f"\n**Before: revision `{args.against}`, same command, same session**\n\n{before}\n"
    with open(args.write_results, encoding="utf-8") as fh:
        page = fh.read()
    section = f"{RESULTS_BEGIN}\n{body}{RESULTS_END}"
    if RESULTS_BEGIN in page and RESULTS_END in page:
        page = page[: page.index(RESULTS_BEGIN)] + section + page[page.index(RESULTS_END) + len(RESULTS_END) :]
    else:
        page = page.rstrip("\n") + "\n\n" + section + "\n"
    with open(args.write_results, "w", encoding="utf-8") as fh:
        fh.write(page)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", default=[CORPUS])
    ap.add_argument("--windows", nargs="+", type=int, default=[16000, 32000])
    ap.add_argument("--strategies", default="digest,tiered", help=f"comma-separated, of {', '.join(STRATEGIES)}")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--md")
    ap.add_argument("--json", help="write the summaries as JSON here")
    ap.add_argument("--lost", action="store_true", help="list lost items by the tier that dropped them (stderr)")
    ap.add_argument("--one-shot", action="store_true", help="also compact every conversation once at its end")
    ap.add_argument("--one-shot-only", action="store_true", help="only the one-shot measure (no replay)")
    ap.add_argument("--one-shot-windows", nargs="+", type=int, default=[8000, 16000, 32000])
    ap.add_argument("--generated", type=int, default=0, metavar="N", help="add N generated long sessions (one-shot)")
    ap.add_argument("--cv", action="store_true", help="cross-validate facts_share over the corpus (one-shot)")
    ap.add_argument("--cv-window", type=int, default=16000)
    ap.add_argument("--write-results", metavar="PAGE", help="replace this script's section of PAGE by the tables")
    ap.add_argument("--against", metavar="REV", help="with --write-results: the same measures on REV, side by side")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
