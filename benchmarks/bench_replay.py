"""Replay benchmark of the `Context` session: corpus transcripts and synthetic sessions, turn by turn.

Why: the session runs before every model call, so its cost must not grow with
the history (incremental counts, no re-counting), and every context it hands
out must be provider-valid. This measures both, next to agentscope (through
the shared harness, same process, same sessions) and langchain-core's
``trim_messages``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_replay.py                 # everything (a few minutes on 2 cores)
    .venv/bin/python benchmarks/bench_replay.py --quick         # smoke run
    .venv/bin/python benchmarks/bench_replay.py --skip-corpus --sizes 500,2000

Sections: (1) corpus replay at 16k/32k/128k with both counters; (2) per-turn
overhead at 2,000 messages; (3) one compaction of 2,000 messages; (4) replay
scaling 100..2,000 messages for contextfold, agentscope and trim_messages,
with growth exponents and speed-ups; (5) validity of every prepared context
of the synthetic replays (both providers) and tokens saved.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import importlib.util
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `benchmarks.` imports from any cwd

from benchmarks.contextfold_adapter import (
    Adapter,
    CalibratedAdapter,
    MemoryOffloader,
    NoLedgerAdapter,
    to_message,
)

from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._formats import render
from contextfold._formats._transcript import load_transcripts
from contextfold._formats._validate import validate
from contextfold._messages import Message
from contextfold._tokens._counting import count_messages, count_tools
from contextfold._tokens._factory import make_counter

HARNESS = "/work/shared/bench/agentscope_bench.py"
CORPUS = "/work/shared/corpus/dev"
PROVIDERS = ("openai", "anthropic")


def src_fingerprint() -> str:
    """SHA-256 (12 hex) of the package sources: the tree is edited concurrently, so say which code was measured."""
    root = Path(__file__).resolve().parent.parent / "src" / "contextfold"
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def machine() -> dict[str, Any]:
    """CPU, cores, load and the measured sources, so figures can be compared across runs."""
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "loadavg": os.getloadavg(),
        "python": sys.version.split()[0],
        "src": src_fingerprint(),
    }


def load_harness(path: str) -> ModuleType | None:
    """Import the shared harness as ``agentscope_bench`` (None when it is not there)."""
    if not Path(path).is_file():
        return None
    spec = importlib.util.spec_from_file_location("agentscope_bench", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agentscope_bench"] = module
    spec.loader.exec_module(module)
    return module


def pct(values: Sequence[float], q: float) -> float:
    """The q-quantile (nearest rank below), 0 for an empty list."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def fitted_exponent(points: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of log(total) over log(N): ~1 linear, ~2 quadratic."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t > 0]
    if len(pts) < 2:
        return float("nan")
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den


def input_codes(messages: Sequence[Message]) -> set[tuple[str, str]]:
    """(provider, code) of the blocking problems the input already has (e.g. tau-bench reuses call ids)."""
    return {(provider, p.code) for provider in PROVIDERS for p in validate(messages, provider) if p.blocking}


def problems_of(
    messages: Sequence[Message], tools: Sequence[Any], inherited: AbstractSet[tuple[str, str]] = frozenset()
) -> tuple[int, int]:
    """(new, inherited) blocking provider problems of one prepared context, both providers; render must succeed.

    A problem is inherited when the whole input conversation already has one of
    the same code for that provider: compaction did not cause it.
    """
    new = old = 0
    for provider in PROVIDERS:
        render(messages, provider, tools)
        for p in validate(messages, provider):
            if p.blocking:
                if (provider, p.code) in inherited:
                    old += 1
                else:
                    new += 1
    return new, old


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table (printed, and pasted into the results file)."""
    out = [f"\n### {title}\n", "| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    text = "\n".join(out)
    print(text, flush=True)
    return text


# --- (1) corpus replay --------------------------------------------------------------------------------------------


@dataclass
class ReplayStats:
    """What one replay (or a group of them) measured."""

    conversations: int = 0
    turns: int = 0
    compactions: int = 0
    prepare_s: list[float] = field(default_factory=list)
    """prepare() of turns without a compaction."""
    step_s: list[float] = field(default_factory=list)
    """appends since the previous turn + prepare(), turns without a compaction."""
    compaction_s: list[float] = field(default_factory=list)
    total_s: float = 0.0
    sent_tokens: int = 0
    full_tokens: int = 0
    over_trigger: int = 0
    over_window: int = 0
    contexts_checked: int = 0
    problems: int = 0
    """Blocking problems the input did not already have (must be 0)."""
    inherited: int = 0
    """Blocking problems of a code the input conversation already had (kept as is, not caused by compaction)."""
    offloaded_results: int = 0

    def merge(self, other: ReplayStats) -> None:
        for name in self.__dataclass_fields__:
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, mine + theirs)


async def replay_messages(
    messages: Sequence[Message],
    tools: Sequence[Any],
    *,
    window: int,
    counter_spec: str,
    check: bool,
) -> ReplayStats:
    """Replay one conversation turn by turn: prepare() before every assistant message, as an agent loop would."""
    counter = make_counter(counter_spec)
    config = ContextConfig(window=window)
    ctx = Context(config, counter=counter, tools=tools, workspace=MemoryOffloader())
    stats = ReplayStats(conversations=1)
    inherited = input_codes(messages) if check else set()
    full = count_tools(counter, ctx.tools)
    pending = 0.0
    prev_role: str | None = None
    for message in messages:
        if message.role == "assistant" and prev_role is not None:
            t0 = time.perf_counter()
            prepared = await ctx.prepare(first_call_of_reply=prev_role == "user")
            dt = time.perf_counter() - t0
            stats.turns += 1
            stats.total_s += dt
            if prepared.compaction is not None:
                stats.compactions += 1
                stats.compaction_s.append(dt)
            else:
                stats.prepare_s.append(dt)
                stats.step_s.append(dt + pending)
            pending = 0.0
            stats.sent_tokens += prepared.tokens
            stats.full_tokens += full
            stats.over_trigger += prepared.tokens > config.trigger_tokens
            stats.over_window += prepared.tokens > window
            if check:
                stats.contexts_checked += 1
                new, old = problems_of(prepared.messages, prepared.tools, inherited)
                stats.problems += new
                stats.inherited += old
        t0 = time.perf_counter()
        if message.role == "tool":
            stats.offloaded_results += bool(await ctx.append_tool_result(message))
        else:
            ctx.append(message)
        dt = time.perf_counter() - t0
        pending += dt
        stats.total_s += dt
        full += count_messages(counter, (message,))
        prev_role = message.role
    return stats


async def corpus_section(corpus: str, windows: Sequence[int], counters: Sequence[str], check: bool) -> str:
    files = sorted(Path(corpus).glob("*.jsonl"))
    rows = []
    grand: dict[tuple[int, str], ReplayStats] = {}
    for path in files:
        transcripts = load_transcripts(path)
        for window in windows:
            for spec in counters:
                agg = ReplayStats()
                for t in transcripts:
                    gc.collect()
                    agg.merge(await replay_messages(t.messages, t.tools, window=window, counter_spec=spec, check=check))
                grand.setdefault((window, spec), ReplayStats()).merge(agg)
                rows.append(_corpus_row(path.stem, window, spec, agg))
    for (window, spec), agg in sorted(grand.items()):
        rows.append(_corpus_row("**all**", window, spec, agg))
    return table(
        "Corpus replay (prepare() before every assistant message; in-memory offloader)",
        [
            "file",
            "window",
            "counter",
            "convs",
            "turns",
            "compactions",
            "prepare µs med / p99",
            "step µs med / p99",
            "compaction ms med / max",
            "total ms",
            "tokens sent / all",
            "saved",
            "over trigger",
            "contexts checked",
            "new problems",
            "inherited",
        ],
        rows,
    )


def _corpus_row(name: str, window: int, spec: str, s: ReplayStats) -> list[Any]:
    saved = 1 - s.sent_tokens / s.full_tokens if s.full_tokens else 0.0
    return [
        name,
        f"{window // 1000}k",
        spec,
        s.conversations,
        s.turns,
        s.compactions,
        f"{pct(s.prepare_s, 0.5) * 1e6:.0f} / {pct(s.prepare_s, 0.99) * 1e6:.0f}",
        f"{pct(s.step_s, 0.5) * 1e6:.0f} / {pct(s.step_s, 0.99) * 1e6:.0f}",
        f"{pct(s.compaction_s, 0.5) * 1e3:.2f} / {max(s.compaction_s, default=0) * 1e3:.2f}",
        f"{s.total_s * 1e3:.0f}",
        f"{s.sent_tokens / 1e6:.2f}M / {s.full_tokens / 1e6:.2f}M",
        f"{saved:.0%}",
        s.over_trigger,
        s.contexts_checked,
        s.problems,
        s.inherited,
    ]


# --- (2) per-turn overhead at 2,000 messages ----------------------------------------------------------------------


async def steady_turns(h: ModuleType, session: list[dict[str, Any]], spec: str, hints: bool, turns: int) -> list[Any]:
    """Time prepare() on a context of ~2,000 messages that never compacts: one small tool round per turn."""
    counter = make_counter(spec)
    ctx = Context(
        ContextConfig(window=10**12),
        counter=counter,
        system=h.SYSTEM_PROMPT,
        tools=_tools(h),
        workspace=MemoryOffloader(),
        hints=None if hints else False,
    )
    start = len(session) - turns
    ctx.extend(to_message(m) for m in session[:start])
    await ctx.prepare()
    prep: list[float] = []
    step: list[float] = []
    gc.collect()
    for i in range(turns):
        call = {"id": f"steady_{i}", "name": "Read", "arguments": '{"path": "src/a.py"}'}
        t0 = time.perf_counter()
        ctx.append(to_message({"role": "assistant", "content": "", "tool_calls": [call]}))
        await ctx.append_tool_result(
            to_message({"role": "tool", "tool_call_id": call["id"], "name": "Read", "content": "x = 1\n" * 100})
        )
        t1 = time.perf_counter()
        prepared = await ctx.prepare(first_call_of_reply=False)
        t2 = time.perf_counter()
        assert prepared.compaction is None
        prep.append(t2 - t1)
        step.append(t2 - t0)
    return [
        spec,
        "on" if hints else "off",
        f"{start}..{len(ctx.messages)}",
        f"{pct(prep, 0.5) * 1e6:.1f}",
        f"{pct(prep, 0.99) * 1e6:.1f}",
        f"{pct(step, 0.5) * 1e6:.1f}",
        f"{pct(step, 0.99) * 1e6:.1f}",
    ]


def _tools(h: ModuleType) -> tuple[Any, ...]:
    from contextfold._formats import tools_from

    return tuple(tools_from(h.tool_schemas(), "openai"))


def cold_count_row(h: ModuleType, session: list[dict[str, Any]], spec: str) -> list[Any]:
    """One count of a whole 2,000-message context with no cached counts (what a stateless counter pays)."""
    times = []
    tokens = 0
    for _ in range(3):
        messages = [to_message(m) for m in session]
        counter = make_counter(spec)
        t0 = time.perf_counter()
        tokens = count_messages(counter, messages) + count_tools(counter, _tools(h))
        times.append(time.perf_counter() - t0)
    return [f"contextfold {spec} (cold, no cache)", tokens, f"{min(times) * 1e3:.1f}"]


class NoHintsAdapter(Adapter):
    """contextfold with runtime hints off: the session's own cost, without the hint decision's backward scan."""

    name = "contextfold (hints off)"

    async def setup(self, cfg: dict[str, Any]) -> None:
        await super().setup(dict(cfg, inject=False))


# --- (4) langchain-core trim_messages in the harness protocol -----------------------------------------------------


class TrimMessagesAdapter:
    """langchain-core ``trim_messages`` (strategy last, start on a human turn) re-counting the history every step.

    It has no tool-result truncation and no summary: the agent keeps the full
    history and sends the trimmed view; ``max_tokens`` is the trigger
    (window × trigger_ratio) minus the tool schemas.
    """

    name = "langchain-core trim_messages"

    def __init__(self) -> None:
        import langchain_core

        self.version = langchain_core.__version__

    async def setup(self, cfg: dict[str, Any]) -> None:
        from langchain_core.messages import SystemMessage
        from langchain_core.messages.utils import count_tokens_approximately

        self.cfg = cfg
        self.history: list[Any] = [SystemMessage(cfg["system_prompt"])]
        tool_tokens = count_tokens_approximately([], tools=cfg["tool_schemas"])
        self.max_tokens = max(1, int(cfg["context_size"] * cfg["trigger_ratio"]) - tool_tokens)
        self.sent: list[Any] = self.history
        self.trims = 0

    def _convert(self, m: dict[str, Any]) -> Any:
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

        if m["role"] == "user":
            return HumanMessage(m["content"])
        if m["role"] == "assistant":
            calls = [{"name": c["name"], "args": json.loads(c["arguments"]), "id": c["id"]} for c in m["tool_calls"]]
            return AIMessage(m["content"], tool_calls=calls)
        return ToolMessage(m["content"], tool_call_id=m["tool_call_id"], name=m["name"])

    async def load(self, messages: list[dict[str, Any]]) -> None:
        self.history = self.history[:1] + [self._convert(m) for m in messages]

    async def count_tokens(self) -> int:
        from langchain_core.messages.utils import count_tokens_approximately

        return int(count_tokens_approximately(self.history, tools=self.cfg["tool_schemas"]))

    def _trim(self) -> dict[str, Any]:
        from langchain_core.messages import trim_messages

        self.sent = trim_messages(
            self.history,
            max_tokens=self.max_tokens,
            token_counter="approximate",
            strategy="last",
            start_on="human",
            include_system=True,
            allow_partial=False,
        )
        fired = len(self.sent) < len(self.history)
        self.trims += fired
        return {"fired": fired, "model_seconds": 0.0}

    async def compress(self) -> dict[str, Any]:
        return self._trim()

    async def append(self, message: dict[str, Any]) -> None:
        self.history.append(self._convert(message))

    async def before_reasoning(self, turn_start: bool) -> dict[str, Any]:
        return self._trim()

    def context_messages(self) -> int:
        return len(self.sent)

    def stats(self) -> dict[str, Any]:
        return {"trims": self.trims, "sent_msgs_end": len(self.sent)}


def langchain_orphans(messages: Sequence[Any]) -> int:
    """ToolMessages without their AIMessage call before them, plus calls without all their results."""
    calls: set[str] = set()
    answered: set[str] = set()
    orphans = 0
    for m in messages:
        for c in getattr(m, "tool_calls", None) or ():
            calls.add(c["id"])
        call_id = getattr(m, "tool_call_id", None)
        if call_id is not None:
            answered.add(call_id)
            orphans += call_id not in calls
    return orphans + len(calls - answered)


# --- (5) validating replays ---------------------------------------------------------------------------------------


class _Checked:
    """Mixin: after each (timed elsewhere) step, validate the prepared context and track tokens."""

    ctx: Context
    counter: Any

    def _init_check(self) -> None:
        self.checked = 0
        self.problems = 0
        self.sent_tokens = 0
        self.full_tokens = 0
        self._full = count_tools(self.counter, self.ctx.tools) + count_messages(self.counter, self.ctx.messages)

    def _note_append(self, message: dict[str, Any]) -> None:
        self._full += self.counter.inner.count_message(to_message(message))

    def _check(self) -> None:
        self.checked += 1
        self.problems += problems_of(self.ctx.messages, self.ctx.tools)[0]
        self.sent_tokens += self.ctx.tokens
        self.full_tokens += self._full


def checked(base: type[Adapter]) -> type[Adapter]:
    """A validating variant of an adapter class (for the untimed validity pass)."""

    class Checked(base, _Checked):  # type: ignore[valid-type,misc]
        async def setup(self, cfg: dict[str, Any]) -> None:
            await super().setup(cfg)
            self._init_check()

        async def append(self, message: dict[str, Any]) -> None:
            await super().append(message)
            self._note_append(message)

        async def before_reasoning(self, turn_start: bool) -> dict[str, Any]:
            result = await super().before_reasoning(turn_start)
            self._check()
            return result

    Checked.__name__ = f"Checked{base.__name__}"
    return Checked


class CheckedTrim(TrimMessagesAdapter):
    """trim_messages with the pairing check of every trimmed view."""

    async def setup(self, cfg: dict[str, Any]) -> None:
        await super().setup(cfg)
        self.checked = 0
        self.problems = 0

    async def before_reasoning(self, turn_start: bool) -> dict[str, Any]:
        result = await super().before_reasoning(turn_start)
        self.checked += 1
        self.problems += langchain_orphans(self.sent)
        return result


async def validity_section(h: ModuleType, args: argparse.Namespace, sessions: dict[int, list[dict[str, Any]]]) -> str:
    n = max(args.sizes)
    rows = []
    for mode, ctx_size in (("compact", args.context_size), ("nocompact", 10**12)):
        hargs = _hargs(h, args, [n], [mode])
        for base in (Adapter, CalibratedAdapter):
            cls = checked(base)
            ad = cls()
            await ad.setup(h._cfg(hargs, ctx_size))
            await _drive(h, ad, sessions[n])
            saved = 1 - ad.sent_tokens / ad.full_tokens if ad.full_tokens else 0.0
            rows.append(
                [base.name, mode, n, ad.compressions, ad.checked, ad.problems, ad.unseen_compressed, f"{saved:.1%}"]
            )
        trim = CheckedTrim()
        await trim.setup(h._cfg(hargs, ctx_size))
        await _drive(h, trim, sessions[n])
        rows.append([trim.name, mode, n, trim.trims, trim.checked, trim.problems, "", ""])
        for layout in ("reply", "flat"):
            hargs.as_layout = layout
            asa = h.AgentScopeAdapter()
            await asa.setup(h._cfg(hargs, ctx_size))
            await _drive(h, asa, sessions[n])
            st = asa.stats()
            rows.append(
                [
                    f"agentscope ({layout} layout)",
                    mode,
                    n,
                    st["compressions"],
                    "after each compression",
                    f"{st['orphan_results_after_compress']} orphan results",
                    st["unseen_tool_results_compressed"],
                    "",
                ]
            )
        hargs.as_layout = "reply"
    return table(
        f"Validity of every prepared context, synthetic {n}-message session (both providers for contextfold)",
        [
            "library",
            "mode",
            "N",
            "compactions",
            "contexts checked",
            "blocking problems",
            "unseen results compacted",
            "tokens saved",
        ],
        rows,
    )


async def _drive(h: ModuleType, ad: Any, session: list[dict[str, Any]]) -> None:
    """The harness's replay order: hook before every assistant message, then the append."""
    prev = None
    for m in session:
        if m["role"] == "assistant":
            await ad.before_reasoning(turn_start=prev == "user")
        await ad.append(m)
        prev = m["role"]


# --- (3) and (4): harness sections --------------------------------------------------------------------------------


def _hargs(h: ModuleType, args: argparse.Namespace, sizes: list[int], modes: list[str]) -> argparse.Namespace:
    hargs = h.parse_args(["--context-size", str(args.context_size)])
    hargs.sizes = sizes
    hargs.replay_sizes = sizes
    hargs.replay_modes = modes
    hargs.repeat = 3
    hargs.repeat_compress = args.repeat_compress
    return hargs


async def compaction_section(h: ModuleType, args: argparse.Namespace, sessions: dict[int, list[dict[str, Any]]]) -> str:
    from benchmarks.contextfold_adapter import DiskAdapter, StructuredAdapter

    n = max(args.sizes)
    hargs = _hargs(h, args, [n], [])
    hargs.compress_variants = ["sized", "fixed"]
    rows = []
    adapters: list[Any] = [Adapter, CalibratedAdapter, StructuredAdapter, DiskAdapter, h.AgentScopeAdapter]
    for cls in adapters:
        for r in await h.bench_compress(cls, hargs, {n: sessions[n]}):
            scanned = r.get("mtok_scanned", "")
            rows.append(
                [
                    cls().name,
                    r["variant"],
                    r["context_size"],
                    r["tokens_before"],
                    r["fired"],
                    r["kept_msgs"],
                    r.get("count_calls", ""),
                    f"{scanned:.2f}" if isinstance(scanned, float) else scanned,
                    r.get("orphans", ""),
                    f"{r['ms_median']:.1f}",
                ]
            )
    return table(
        f"One compaction of a {n}-message context (harness `bench_compress`, median of {args.repeat_compress}, "
        "fake model time excluded)",
        [
            "library",
            "variant",
            "window",
            "tokens before",
            "fired",
            "kept msgs",
            "count calls",
            "Mtok counted",
            "orphans",
            "ms",
        ],
        rows,
    )


async def scaling_section(
    h: ModuleType, args: argparse.Namespace, sessions: dict[int, list[dict[str, Any]]]
) -> tuple[str, dict[str, Any]]:
    hargs = _hargs(h, args, list(args.sizes), ["compact", "nocompact"])
    results: dict[str, list[dict[str, Any]]] = {}
    adapters: list[Any] = [Adapter, CalibratedAdapter, NoHintsAdapter, NoLedgerAdapter, h.AgentScopeAdapter]
    if not args.skip_langchain:
        adapters.append(TrimMessagesAdapter)
    for cls in adapters:
        # Objects left by the earlier sections and libraries are frozen (out of the collector's reach), so that no
        # library pays for the garbage collector traversing them: with a million live objects the same replay is
        # about a third slower. A fresh process (the harness on its own) has no such objects.
        gc.collect()
        gc.freeze()
        results[cls().name] = await h.bench_replay(cls, hargs, sessions)
    gc.unfreeze()
    rows = []
    summary: dict[str, Any] = {}
    for name, rs in results.items():
        for mode in ("nocompact", "compact"):
            mine = [r for r in rs if r["mode"] == mode]
            exp = fitted_exponent([(r["n"], r["total_s"]) for r in mine])
            for r in mine:
                rows.append(
                    [
                        name,
                        mode,
                        r["n"],
                        r["steps"],
                        f"{r['total_s']:.3f}",
                        f"{r['hook_s']:.3f}",
                        f"{r['append_s']:.3f}",
                        f"{r['mean_ms'] * 1e3:.0f}",
                        f"{r['last10_ms'] * 1e3:.0f}",
                        r["fired"],
                        archived if (archived := r.get("stats", {}).get("archived_messages")) else "",
                        f"{r['total_s'] / archived * 1e6:.0f}" if archived else "",
                        f"{r.get('exp_vs_prev', float('nan')):.2f}",
                        f"{exp:.2f}" if r is mine[-1] else "",
                    ]
                )
            summary[f"{name}/{mode}"] = {"total_at_max": mine[-1]["total_s"], "exponent": exp}
    text = table(
        "Replay scaling (harness `bench_replay`: append every message, hook before every assistant message)",
        [
            "library",
            "mode",
            "N",
            "steps",
            "total s",
            "hook s",
            "append s",
            "mean µs/step",
            "last 10% µs/step",
            "fired",
            "archived msgs",
            "µs per archived msg",
            "exp vs prev",
            "fitted exp",
        ],
        rows,
    )
    ratio_rows = []
    base = "agentscope"
    for name in results:
        if name == base:
            continue
        cells = [name]
        for mode in ("nocompact", "compact"):
            ours = summary[f"{name}/{mode}"]["total_at_max"]
            theirs = summary[f"{base}/{mode}"]["total_at_max"]
            cells.append(f"{theirs / ours:.1f}x" if ours else "")
        ratio_rows.append(cells)
    text += "\n" + table(
        f"Speed-up over agentscope, total replay at N={max(args.sizes)} (target >= 50x never fires, >= 5x fires)",
        ["library", "never fires (nocompact)", "fires (compact)"],
        ratio_rows,
    )
    return text, summary


# --- main ---------------------------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace) -> int:
    start = machine()
    print(f"machine at start: {start}", flush=True)
    load = ", ".join(f"{x:.2f}" for x in start["loadavg"])
    parts = [
        f"machine at start: nproc={start['nproc']}, cpu={start['cpu']}, loadavg={load}, "
        f"python {start['python']}, src sha256[:12]={start['src']}"
    ]
    if not args.skip_corpus:
        if Path(args.corpus).is_dir():
            parts.append(await corpus_section(args.corpus, args.windows, args.counters, not args.no_check))
        else:
            print(f"corpus {args.corpus} not found: skipped")
    h = load_harness(args.harness)
    if h is None:
        print(f"harness {args.harness} not found: synthetic sections skipped")
    else:
        logging_quiet()
        sessions = {n: h.make_session(n, 0) for n in args.sizes}
        n = max(args.sizes)
        print(f"synthetic sessions: {[h.session_stats(s) for s in sessions.values()]}", flush=True)
        rows = []
        for spec in args.counters:
            for hints in (True, False):
                rows.append(await steady_turns(h, sessions[n], spec, hints, args.steady_turns))
        parts.append(
            table(
                f"Per-turn overhead without compaction, context of ~{n} messages (one small tool round per turn)",
                ["counter", "hints", "messages", "prepare µs med", "p99", "step µs med", "p99"],
                rows,
            )
        )
        count_rows = [cold_count_row(h, sessions[n], spec) for spec in args.counters]
        for r in await h.bench_count(h.AgentScopeAdapter, _hargs(h, args, [n], []), {n: sessions[n]}):
            count_rows.append(["agentscope (count_tokens, every call)", r["tokens"], f"{r['ms_median']:.1f}"])
        parts.append(table(f"One full count of {n} messages", ["counter", "tokens", "ms"], count_rows))
        if not args.skip_compaction:
            parts.append(await compaction_section(h, args, sessions))
        if not args.skip_scaling:
            text, _ = await scaling_section(h, args, sessions)
            parts.append(text)
        if not args.no_check:
            parts.append(await validity_section(h, args, sessions))
    end = machine()
    load = ", ".join(f"{x:.2f}" for x in end["loadavg"])
    parts.append(f"machine at end: loadavg={load}, src sha256[:12]={end['src']}")
    print(parts[-1])
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return 0


def logging_quiet() -> None:
    import logging

    logging.getLogger("as").setLevel(logging.ERROR)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    def ints(s: str) -> list[int]:
        return [int(x) for x in s.split(",") if x]

    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--corpus", default=CORPUS)
    p.add_argument("--harness", default=HARNESS)
    p.add_argument("--windows", type=ints, default=[16_000, 32_000, 128_000])
    p.add_argument("--counters", type=lambda s: s.split(","), default=["bytes", "calibrated"])
    p.add_argument("--sizes", type=ints, default=[100, 500, 1000, 2000])
    p.add_argument("--context-size", type=int, default=128_000, help="window of the synthetic 'compact' mode")
    p.add_argument("--steady-turns", type=int, default=100)
    p.add_argument("--repeat-compress", type=int, default=1, help="runs per compaction figure (median)")
    p.add_argument("--skip-corpus", action="store_true")
    p.add_argument("--skip-compaction", action="store_true")
    p.add_argument("--skip-scaling", action="store_true")
    p.add_argument("--skip-langchain", action="store_true")
    p.add_argument("--no-check", action="store_true", help="skip validating every prepared context")
    p.add_argument("--markdown", help="also write the tables to this Markdown file")
    p.add_argument("--quick", action="store_true", help="sizes 50,100; window 16k; 20 steady turns")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes = [50, 100]
        args.windows = [16_000]
        args.steady_turns = 20
    return args


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
