"""``contextfold demo``: replay a real long agent session through the loop with a small window.

This is the main job in one command: a recorded coding-agent session (shipped
in the package, see ``contextfold/data/README.md``) runs through `Agent` on
the embedded defaults (digest compaction, byte estimator, local workspace),
driven by `ReplayModel`/`ReplayTools`, so it needs no key and no network. A
live view shows the context filling up and each compaction and offload as it
happens; the summary compares the tokens sent with what a naive loop (the
whole history every call) would have sent, and checks every request the loop
prepared against both providers' tool-pairing rules.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from contextfold._agent._loop import Agent, AgentEvent, AgentResult, ModelCallInfo, SteeringInfo
from contextfold._agent._replay import END_OF_RECORDING, ReplayModel, ReplayTools, replay
from contextfold._cli import EXIT_OK, CLIContext
from contextfold._cli._common import add_input_limit_argument, load_transcript_file, write_json
from contextfold._config import ContextConfig
from contextfold._context import CompactionReport, Context
from contextfold._errors import ConfigError
from contextfold._formats._files import DEFAULT_MAX_INPUT_BYTES, gunzip_bounded
from contextfold._formats._providers import PROVIDERS
from contextfold._formats._transcript import Transcript, load_transcripts, pick_conversation, transcripts_from_bytes
from contextfold._formats._validate import validate
from contextfold._messages import Message, ToolSpec
from contextfold._tokens._counting import BytesCounter, TokenCounter, count_tools
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold.models._base import ModelResponse, StreamHandler

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

__all__ = ["DEFAULT_WINDOW", "DemoReport", "load_demo_transcript", "register", "run_demo_session"]

DEFAULT_WINDOW = 16_000
DEMO_TRANSCRIPT = "demo_transcript.json.gz"
TERMINAL_DELAY = 0.03
"""Seconds per model call on a terminal, so the eye can follow; the replay itself takes well under a second."""
MAX_PROBLEMS = 10
MAX_DELAY = 60.0
"""Longest ``--delay`` per model call, in seconds."""


def register(subparsers: Any) -> None:
    """Add the ``demo`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="replay a real long agent session through the loop with a small window (no key, no network)",
        description=(
            "Replay a recorded agent session (the shipped one, or --transcript) through the agent loop with a "
            "small window: watch it compact and offload, then compare the tokens sent with a naive loop."
        ),
    )
    p.add_argument(
        "--transcript", metavar="FILE", help="any transcript file the CLI reads (.gz and - too); default: shipped"
    )
    p.add_argument("--conversation", metavar="N|ID", help="which conversation of a multi-conversation file")
    p.add_argument(
        "--window", type=int, default=DEFAULT_WINDOW, metavar="N", help=f"window in tokens (default {DEFAULT_WINDOW})"
    )
    p.add_argument("--workspace", metavar="DIR", help="workspace root (default: a new temporary directory)")
    p.add_argument(
        "--delay",
        type=_delay,
        metavar="SECONDS",
        help=f"pause per model call so the live view can be followed (default {TERMINAL_DELAY} on a terminal, else 0; "
        f"at most {MAX_DELAY:g})",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON (schema in docs/cli.md)")
    add_input_limit_argument(p)
    p.set_defaults(handler=run_demo)


def _delay(text: str) -> float:
    """``--delay``: finite seconds from 0 to `MAX_DELAY` (``inf`` would hang the run, ``nan`` compares false)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_DELAY:
        raise argparse.ArgumentTypeError(f"must be a number of seconds from 0 to {MAX_DELAY:g}, got {text!r}")
    return value


# ---------------------------------------------------------------------------------------------- loading


def load_demo_transcript(
    path: str | None = None, conversation: str | None = None, *, max_bytes: int = DEFAULT_MAX_INPUT_BYTES
) -> Transcript:
    """The shipped demo transcript, or one conversation of ``path`` (plain or gzip-compressed, ``-``: stdin)."""
    if path is None:
        data = resources.files("contextfold").joinpath("data", DEMO_TRANSCRIPT).read_bytes()
        return transcripts_from_bytes(gunzip_bounded(data, max_bytes=max_bytes), source=DEMO_TRANSCRIPT)[0]
    return pick_conversation(load_transcripts(path, max_bytes=max_bytes), conversation, source=path)


# ---------------------------------------------------------------------------------------------- the session


@dataclass
class _Problem:
    provider: str
    step: int
    code: str
    message: str


class _CheckedModel:
    """Wraps the replay model: validates every request for both providers, and paces the run."""

    def __init__(self, inner: ReplayModel, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self.problems: list[_Problem] = []
        self.problem_count = 0
        self.requests = 0

    async def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (), stream: StreamHandler | None = None
    ) -> ModelResponse:
        self.requests += 1
        for provider in PROVIDERS:
            for problem in validate(messages, provider):
                if problem.blocking:
                    self.problem_count += 1
                    if len(self.problems) < MAX_PROBLEMS:
                        self.problems.append(_Problem(provider, self.requests, problem.code, str(problem)))
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        return await self.inner.complete(messages, tools=tools, stream=stream)


@dataclass
class DemoReport:
    """What ``contextfold demo`` measured; `to_json` is the documented ``--json`` object."""

    transcript: str
    conversation: str | None
    messages: int
    window: int
    trigger: int
    counter: str
    result: AgentResult
    naive: list[int]
    problems: list[_Problem]
    problem_count: int
    follow_ups: int
    guard_changes: int
    seconds: float
    workspace: str

    @property
    def overhead_ms(self) -> list[float]:
        return sorted(s.overhead_seconds * 1000 for s in self.result.steps)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object (see docs/cli.md)."""
        steps = self.result.steps
        overhead = self.overhead_ms
        sent = [s.tokens for s in steps]
        offloaded: Sequence[OffloadRef] = self.result.offloaded
        tokens_sent = sum(sent)
        naive_tokens = sum(self.naive)
        return {
            "transcript": self.transcript,
            "conversation": self.conversation,
            "messages": self.messages,
            "window": self.window,
            "trigger": self.trigger,
            "counter": self.counter,
            "turns": len(steps),
            "tokens_sent": tokens_sent,
            "naive_tokens": naive_tokens,
            "saved_ratio": round(1 - tokens_sent / naive_tokens, 4) if naive_tokens else 0.0,
            "peak_tokens": max(sent, default=0),
            "naive_peak_tokens": max(self.naive, default=0),
            "within_window": all(t <= self.window for t in sent),
            "compactions": len(self.result.compactions),
            "compaction_strategies": dict(Counter(c.strategy for c in self.result.compactions)),
            "archived_messages": sum(c.messages_compacted for c in self.result.compactions),
            "offloaded_results": len(offloaded),
            "offloaded_bytes": sum(ref.size for ref in offloaded),
            "follow_ups": self.follow_ups,
            "guard_changes": self.guard_changes,
            "pairs_intact": self.problem_count == 0,
            "problems": [p.__dict__ for p in self.problems],
            "overhead_ms_median": round(statistics.median(overhead), 3) if overhead else 0.0,
            "overhead_ms_p99": round(_percentile(overhead, 0.99), 3),
            "overhead_ms_max": round(max(overhead, default=0.0), 3),
            "stop_reason": self.result.stop_reason,
            "cancel_reason": self.result.cancel_reason,
            "seconds": round(self.seconds, 3),
            "workspace": self.workspace,
        }


def _percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (0 when empty)."""
    if not values:
        return 0.0
    return values[max(0, math.ceil(q * len(values)) - 1)]


def naive_prompt_tokens(transcript: Transcript, counter: TokenCounter) -> list[int]:
    """Tokens a naive loop sends for each recorded assistant turn: the whole history before it, tools included."""
    tools = count_tools(counter, transcript.tools)
    out: list[int] = []
    total = 0
    for message in transcript.messages:
        if message.role == "assistant":
            out.append(total + tools)
        total += counter.count_message(message)
    return out


async def run_demo_session(
    transcript: Transcript,
    *,
    window: int = DEFAULT_WINDOW,
    workspace: LocalWorkspace,
    delay: float = 0.0,
    on_event: Callable[[AgentEvent], None] | None = None,
) -> DemoReport:
    """Replay ``transcript`` through an `Agent` on the embedded defaults and measure it."""
    counter = BytesCounter()
    config = ContextConfig(window=window)
    replay_model = ReplayModel(transcript, counter=counter)
    checked = _CheckedModel(replay_model, delay)
    tools = ReplayTools(replay_model.script, steering=replay_model.steering)
    context = Context(config, counter=counter, workspace=workspace)
    follow_ups = 0
    guard_changes = 0

    def handle(event: AgentEvent) -> None:
        nonlocal follow_ups, guard_changes
        if event.kind == "steering" and isinstance(event.data, SteeringInfo):
            follow_ups += event.data.follow_ups
        elif event.kind == "guard":
            guard_changes += 1
        if on_event is not None:
            on_event(event)

    agent = Agent(
        checked,
        tools=tools,
        context=context,
        steering=replay_model.steering,
        max_steps=len(replay_model.script.turns) + 1,
        on_event=handle,
    )
    started = time.perf_counter()
    result = await replay(agent, replay_model)
    seconds = time.perf_counter() - started
    naive = naive_prompt_tokens(transcript, counter)[: len(result.steps)]
    return DemoReport(
        transcript=transcript.source or "<transcript>",
        conversation=transcript.id,
        messages=len(transcript.messages),
        window=window,
        trigger=config.trigger_tokens,
        counter=counter.key,
        result=result,
        naive=naive,
        problems=checked.problems,
        problem_count=checked.problem_count,
        follow_ups=follow_ups,
        guard_changes=guard_changes,
        seconds=seconds,
        workspace=str(workspace.session_dir),
    )


# ---------------------------------------------------------------------------------------------- views


class _State:
    """What the live view shows, updated from agent events."""

    def __init__(self, transcript: Transcript, window: int, trigger: int) -> None:
        self.title = transcript.id or transcript.source or "transcript"
        self.turns = sum(1 for m in transcript.messages if m.role == "assistant")
        self.window = window
        self.trigger = trigger
        self.step = 0
        self.tokens = 0
        self.peak = 0
        self.compactions = 0
        self.offloads = 0
        self.offloaded_bytes = 0
        self.follow_ups = 0
        self.log: list[str] = []

    def update(self, event: AgentEvent) -> str | None:
        """Apply ``event``; returns a log line when it is worth one."""
        line: str | None = None
        data = event.data
        if event.kind == "model_call" and isinstance(data, ModelCallInfo):
            self.step = event.step
            self.tokens = data.tokens
            self.peak = max(self.peak, data.tokens)
        elif event.kind == "compaction" and isinstance(data, CompactionReport):
            self.compactions += 1
            self.tokens = data.tokens_after
            line = f"compaction [{data.strategy}]: {data.tokens_before:,} -> {data.tokens_after:,} tokens"
            cleared = data.details.get("messages_rewritten")
            if isinstance(cleared, int) and cleared:
                line += f", {cleared} old tool results cleared"
            if data.messages_compacted:
                line += f", {data.messages_compacted} messages summarized"
            if data.reason != "trigger":
                line += f" ({data.reason})"
        elif event.kind == "offload" and isinstance(data, list):
            for ref in data:
                if isinstance(ref, OffloadRef):
                    self.offloads += 1
                    self.offloaded_bytes += ref.size
                    line = f"offload: {_size(ref.size)} of a {ref.tool_name or 'tool'} result -> {ref.path}"
        elif event.kind == "steering" and isinstance(data, SteeringInfo) and data.follow_ups:
            self.follow_ups += data.follow_ups
            line = f"follow-up: {data.follow_ups} user message(s) from the recording"
        elif event.kind == "guard":
            line = "guard: redacted or defanged part of a tool result"
        if line is not None:
            line = f"step {event.step:>3}  {line}"
            self.log.append(line)
        return line

    def render(self) -> RenderableType:
        from rich.console import Group
        from rich.text import Text

        header = Text.assemble(
            ("contextfold demo ", "bold"),
            f"· {self.title} · window {self.window:,} · trigger {self.trigger:,}",
        )
        progress = Text(f"step {self.step}/{self.turns}  ")
        progress.append_text(_bar(self.tokens, self.window, self.trigger))
        progress.append(f"  {self.tokens:,} / {self.window:,} tokens ({self.tokens / self.window:.0%})")
        stats = Text(
            f"compactions {self.compactions} · offloaded {self.offloads} ({_size(self.offloaded_bytes)}) · "
            f"follow-ups {self.follow_ups} · peak {self.peak:,}",
            style="dim",
        )
        recent = [Text(line) for line in self.log[-8:]]
        return Group(header, progress, stats, *recent)


def _bar(tokens: int, window: int, trigger: int, width: int = 40) -> Text:
    from rich.text import Text

    filled = min(width, round(width * tokens / window)) if window else 0
    mark = min(width - 1, round(width * trigger / window)) if window else width - 1
    style = "green" if tokens < trigger * 0.75 else "yellow" if tokens <= trigger else "red"
    bar = Text()
    for i in range(width):
        if i == mark:
            bar.append("┊", style="bold")
        elif i < filled:
            bar.append("█", style=style)
        else:
            bar.append("░", style="dim")
    return bar


def _size(n: int) -> str:
    return f"{n / 1000:.1f} kB" if n >= 1000 else f"{n} B"


def _print_summary(console: Console, report: DemoReport) -> None:
    from rich.table import Table

    data = report.to_json()
    table = Table(title="contextfold demo: summary", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    saved = f"{data['saved_ratio']:.0%} fewer" if data["naive_tokens"] else "-"
    rows = [
        ("conversation", str(data["conversation"] or data["transcript"])),
        ("messages in the recording", f"{data['messages']:,}"),
        ("turns (model calls)", f"{data['turns']:,}"),
        ("window / trigger", f"{data['window']:,} / {data['trigger']:,}"),
        ("tokens sent", f"{data['tokens_sent']:,}"),
        ("naive loop would send", f"{data['naive_tokens']:,}  ({saved})"),
        ("largest request", f"{data['peak_tokens']:,} (naive {data['naive_peak_tokens']:,})"),
        ("compactions", f"{data['compactions']} ({data['archived_messages']} messages archived)"),
        ("offloaded tool results", f"{data['offloaded_results']} ({_size(data['offloaded_bytes'])})"),
        ("follow-ups fed", str(data["follow_ups"])),
        ("tool pairs intact", "yes (every request, OpenAI and Anthropic)" if data["pairs_intact"] else "NO"),
        (
            "context-layer overhead per turn",
            f"median {data['overhead_ms_median']:.2f} ms, p99 {data['overhead_ms_p99']:.2f} ms",
        ),
        ("wall time", f"{data['seconds']:.2f} s"),
        ("stopped", _stopped(report.result)),
    ]
    for what, value in rows:
        table.add_row(what, value)
    console.print(table)
    for problem in report.problems:
        console.print(
            f"problem ({problem.provider}, request {problem.step}): {problem.message}", soft_wrap=True, markup=False
        )
    console.print(f"workspace: {data['workspace']}", soft_wrap=True, markup=False)
    console.print(f"  (look inside with: contextfold workspace ls {data['workspace']})", soft_wrap=True, markup=False)


def _stopped(result: AgentResult) -> str:
    if result.cancel_reason == END_OF_RECORDING:
        return "end of the recording"
    if result.stop_reason == "end_turn":
        return "the recording ended on an answer"
    return result.stop_reason + (f" ({result.cancel_reason})" if result.cancel_reason else "")


# ---------------------------------------------------------------------------------------------- command


def run_demo(ctx: CLIContext) -> int:
    """Handler of ``contextfold demo``."""
    args = ctx.args
    if args.window <= 0:
        raise ConfigError(f"--window must be a positive number of tokens (got {args.window})")
    if args.transcript is None:
        transcript = load_demo_transcript(max_bytes=args.max_input_bytes)
    else:
        transcripts = load_transcript_file(ctx, args.transcript)
        transcript = pick_conversation(transcripts, args.conversation, source=args.transcript)
    if args.workspace:
        workspace = LocalWorkspace(args.workspace)
    else:
        workspace = LocalWorkspace(tempfile.mkdtemp(prefix="contextfold-demo-"))
    console = ctx.console()
    live_view = console.is_terminal and not args.json
    delay = args.delay if args.delay is not None else (TERMINAL_DELAY if live_view else 0.0)
    config = ContextConfig(window=args.window)
    state = _State(transcript, args.window, config.trigger_tokens)

    if args.json:
        report = asyncio.run(run_demo_session(transcript, window=args.window, workspace=workspace, delay=delay))
        write_json(ctx, report.to_json())
        return EXIT_OK
    if not live_view:

        def plain(event: AgentEvent) -> None:
            line = state.update(event)
            if line is not None:
                console.print(line, soft_wrap=True, markup=False)

        console.print(
            f"contextfold demo: replaying {state.title} ({len(transcript.messages)} messages, {state.turns} turns) "
            f"with a {args.window:,}-token window",
            soft_wrap=True,
            markup=False,
        )
        report = asyncio.run(
            run_demo_session(transcript, window=args.window, workspace=workspace, delay=delay, on_event=plain)
        )
        _print_summary(console, report)
        return EXIT_OK

    from rich.live import Live

    with Live(state.render(), console=console, refresh_per_second=12, transient=False) as live:

        def live_update(event: AgentEvent) -> None:
            state.update(event)
            live.update(state.render())

        report = asyncio.run(
            run_demo_session(transcript, window=args.window, workspace=workspace, delay=delay, on_event=live_update)
        )
    _print_summary(console, report)
    return EXIT_OK
