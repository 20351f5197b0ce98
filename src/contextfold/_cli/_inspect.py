"""``contextfold inspect FILE``: where the tokens of a transcript go, and how close it is to the window.

Shows tokens per turn (a turn is a user message and everything up to the next
one), the largest messages, tokens by tool, a window usage bar and the
pairing problems `validate` finds for the transcript's own provider. With
``--plot`` it also draws tokens per turn and the cumulative curve against the
window (matplotlib, the optional ``plot`` extra, imported only then).
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contextfold._cli._common import (
    ProgressReporter,
    add_common_arguments,
    add_counter_argument,
    call_names_of,
    conversation_header,
    conversation_label,
    counter_from_args,
    is_multi,
    load_selected,
    message_breakdown,
    write_json,
)
from contextfold._errors import InputError, MissingExtraError
from contextfold._formats._files import OutputFile, escape_surrogates
from contextfold._formats._validate import validate
from contextfold._messages import DataBlock, Message, TextBlock
from contextfold._tokens._counting import TokenCounter

if TYPE_CHECKING:
    from rich.console import Console

    from contextfold._cli import CLIContext
    from contextfold._formats._transcript import Transcript

__all__ = ["DEFAULT_WINDOW", "TRIGGER", "inspect_transcript", "register"]

DEFAULT_WINDOW = 128_000
"""Window used when ``--window`` is not given (a common context length today)."""
TRIGGER = 0.8
"""The default compaction trigger, marked on the usage bar and the plot."""
LARGEST = 10
_PLOT_SUFFIXES = (".png", ".svg")
_MAX_TURN_ROWS = 24
_MAX_PROBLEMS = 12


def register(subparsers: Any) -> None:
    """Add the ``inspect`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "inspect",
        help="show where a transcript's tokens go",
        description=("Show tokens per turn, the largest messages, tokens by tool, window usage and pairing problems."),
    )
    add_common_arguments(parser)
    add_counter_argument(parser)
    parser.add_argument(
        "--window",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"the model's context window in tokens (default {DEFAULT_WINDOW:,})",
    )
    parser.add_argument("--plot", metavar="FILE.png|svg", help="also draw tokens per turn and the cumulative curve")
    parser.set_defaults(handler=run)


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of tokens, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"the window must be positive, got {value}")
    return value


# --- analysis ---------------------------------------------------------------------------------


def _starts_turn(message: Message) -> bool:
    """A user message with something the user said (not only hints or tool results) starts a turn."""
    return message.role == "user" and any(isinstance(b, TextBlock | DataBlock) for b in message.content)


def _preview(message: Message, width: int = 60) -> str:
    text = " ".join(message.text.split())
    if not text and any(isinstance(b, DataBlock) for b in message.content):
        text = "(media)"
    return text if len(text) <= width else text[: width - 1] + "…"


def _label(message: Message, names: dict[str, str]) -> str:
    """What a message is, in a few words, for the largest-messages table."""
    if message.role == "tool" or message.tool_results:
        results = message.tool_results
        tools = sorted({r.name or names.get(r.call_id, "?") for r in results})
        ids = ", ".join(r.call_id for r in results[:2]) + (", …" if len(results) > 2 else "")
        head = f"result of {', '.join(tools)} ({ids})"
        output = " ".join(" ".join(r.text[:400] for r in results).split())
        output = output if len(output) <= 80 else output[:79] + "…"
        return f"{head}: {output}" if output else head
    if message.tool_calls:
        head = f"calls {', '.join(c.name for c in message.tool_calls)}"
        text = _preview(message, 80)
        return f"{head}: {text}" if text else head
    return _preview(message) or "(empty)"


def inspect_transcript(
    transcript: Transcript, counter: TokenCounter, window: int, advance: Any = None
) -> dict[str, Any]:
    """The per-conversation ``inspect`` result (without the identifying header); pure apart from counting."""
    messages = transcript.messages
    names = call_names_of(messages)
    tools_total = sum(counter.count_text(t.schema_json()) for t in transcript.tools)
    per_message: list[int] = []
    by_tool: dict[str, dict[str, int]] = {}
    for message in messages:
        part = message_breakdown(counter, message, names)
        per_message.append(part.tokens)
        for name, n in part.call_tokens.items():
            entry = by_tool.setdefault(name, {"calls": 0, "call_tokens": 0, "result_tokens": 0})
            entry["call_tokens"] += n
            entry["calls"] += part.calls.get(name, 0)
        for name, n in part.result_tokens.items():
            entry = by_tool.setdefault(name, {"calls": 0, "call_tokens": 0, "result_tokens": 0})
            entry["result_tokens"] += n
        if advance is not None:
            advance()
    messages_total = sum(per_message)
    total = messages_total + tools_total

    turns: list[dict[str, Any]] = []
    cumulative = tools_total
    number = 0  # turn 0 holds what comes before the first user message (the system prompt)
    for i, message in enumerate(messages):
        starts = _starts_turn(message)
        number += starts
        if starts or not turns:
            turns.append(
                {
                    "turn": number,
                    "start": i,
                    "end": i,
                    "messages": 0,
                    "tool_calls": 0,
                    "tokens": 0,
                    "cumulative": 0,
                    "user": _preview(message) if starts else "",
                }
            )
        turn = turns[-1]
        turn["end"] = i
        turn["messages"] += 1
        turn["tool_calls"] += len(message.tool_calls)
        turn["tokens"] += per_message[i]
        cumulative += per_message[i]
        turn["cumulative"] = cumulative

    order = sorted(range(len(messages)), key=lambda k: (-per_message[k], k))[:LARGEST]
    largest = [
        {"index": k, "role": messages[k].role, "tokens": per_message[k], "label": _label(messages[k], names)}
        for k in order
    ]
    tools = [
        {"name": name, **entry, "tokens": entry["call_tokens"] + entry["result_tokens"]}
        for name, entry in sorted(by_tool.items(), key=lambda kv: -(kv[1]["call_tokens"] + kv[1]["result_tokens"]))
    ]
    problems = validate(messages, transcript.format)
    return {
        "counter": counter.key,
        "window": window,
        "total": total,
        "messages_total": messages_total,
        "tools_total": tools_total,
        "usage": total / window,
        "messages": per_message,
        "turns": turns,
        "largest": largest,
        "by_tool": tools,
        "provider": transcript.format,
        "problems": [p.to_dict() for p in problems],
    }


# --- command ----------------------------------------------------------------------------------


def run(ctx: CLIContext) -> int:
    """Handler: check the options, load, analyse, draw the plot if asked, then print."""
    plot: str | None = ctx.args.plot
    if plot is not None and Path(plot).suffix.lower() not in _PLOT_SUFFIXES:
        suffix = Path(plot).suffix or "(none)"
        raise InputError(f"--plot: unsupported file extension {suffix}; use .png or .svg", source=plot)
    counter = counter_from_args(ctx.args)
    # The plot file is checked (a new path or a regular file, in a writable directory) before any work.
    with OutputFile(plot, what="the --plot file") if plot is not None else contextlib.nullcontext() as output:
        return _run(ctx, counter, output)


def _run(ctx: CLIContext, counter: TokenCounter, output: OutputFile | None) -> int:
    plot: str | None = ctx.args.plot
    window: int = ctx.args.window or DEFAULT_WINDOW
    with ProgressReporter(ctx) as reporter:
        transcripts = load_selected(ctx, reporter)
        if plot is not None and len(transcripts) > 1:
            raise InputError(
                f"--plot draws one conversation, and the file holds {len(transcripts)}: "
                "choose one with --conversation N|ID",
                source=ctx.args.file,
            )
        results: list[dict[str, Any]] = []
        with reporter.task("inspecting", total=sum(len(t.messages) for t in transcripts)) as task:
            for position, t in enumerate(transcripts):
                results.append(
                    {**conversation_header(t, position), **inspect_transcript(t, counter, window, task.advance)}
                )
    if output is not None:
        title = escape_surrogates(f"{Path(ctx.args.file).name}: {conversation_label(transcripts[0], 0)}")
        output.commit(_draw(output.path, results[0], title=title))
    multi = is_multi(ctx, transcripts)
    if ctx.args.json:
        if multi:
            write_json(
                ctx,
                {
                    "file": ctx.args.file,
                    "counter": counter.key,
                    "window": window,
                    "total": sum(r["total"] for r in results),
                    "conversations": results,
                },
            )
        else:
            write_json(ctx, results[0])
        return 0
    console = ctx.console()
    for position, (t, r) in enumerate(zip(transcripts, results, strict=True)):
        if position:
            console.print()
            console.rule()
        _print(console, ctx.args.file, t, position, r, default_window=ctx.args.window is None)
    if plot is not None:
        console.print(f"\nplot written to {plot}")
    return 0


# --- text output ------------------------------------------------------------------------------


def _print(
    console: Console, path: str, t: Transcript, position: int, r: dict[str, Any], *, default_window: bool
) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console.print(f"[bold]{escape(path)}[/bold]", soft_wrap=True)
    console.print(f"{escape(conversation_label(t, position))} · {t.format} · {len(t.messages):,} messages")
    console.print(_usage_bar(r["total"], r["window"], default_window=default_window))
    n_tools = len(t.tools)
    console.print(
        f"  messages {r['messages_total']:,} + tool schemas {r['tools_total']:,}"
        f" ({n_tools} tool{'s' if n_tools != 1 else ''}) · counter {r['counter']}",
        style="dim",
    )

    turns = Table(
        title="Tokens per turn",
        title_justify="left",
        caption=f"cumulative starts with the tool schemas ({r['tools_total']:,} tokens)" if r["tools_total"] else None,
        caption_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    turns.add_column("turn", justify="right")
    turns.add_column("msgs", justify="right")
    turns.add_column("user says", overflow="ellipsis", no_wrap=True, max_width=44)
    turns.add_column("calls", justify="right")
    turns.add_column("tokens", justify="right")
    turns.add_column("cumulative", justify="right")
    turns.add_column("window", justify="right")
    rows: list[dict[str, Any] | None] = list(r["turns"])
    if len(rows) > _MAX_TURN_ROWS:
        half = _MAX_TURN_ROWS // 2
        rows = [*rows[:half], None, *rows[-half:]]
    for turn in rows:
        if turn is None:
            turns.add_row("…", "", f"({len(r['turns']) - 2 * (_MAX_TURN_ROWS // 2)} more turns)", "", "", "", "")
            continue
        says = turn["user"] if turn["turn"] else "(before the first user message)"
        turns.add_row(
            str(turn["turn"]),
            f"{turn['messages']:,}",
            Text(says),
            f"{turn['tool_calls']:,}",
            f"{turn['tokens']:,}",
            f"{turn['cumulative']:,}",
            f"{100 * turn['cumulative'] / r['window']:.1f}%",
        )
    console.print()
    console.print(turns)

    largest = Table(
        title=f"{min(LARGEST, len(r['largest']))} largest messages",
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    largest.add_column("msg", justify="right")
    largest.add_column("role")
    largest.add_column("tokens", justify="right")
    largest.add_column("share", justify="right")
    largest.add_column("what", overflow="ellipsis", no_wrap=True, max_width=max(30, console.width - 36))
    for row in r["largest"]:
        share = f"{100 * row['tokens'] / r['total']:.1f}%" if r["total"] else "-"
        largest.add_row(str(row["index"]), row["role"], f"{row['tokens']:,}", share, Text(row["label"]))
    console.print()
    console.print(largest)

    if r["by_tool"]:
        tools = Table(title="Tokens by tool", title_justify="left", show_edge=False, pad_edge=False)
        tools.add_column("tool", overflow="ellipsis", no_wrap=True, max_width=32)
        tools.add_column("calls", justify="right")
        tools.add_column("call tokens", justify="right")
        tools.add_column("result tokens", justify="right")
        tools.add_column("total", justify="right")
        tools.add_column("share", justify="right")
        for row in r["by_tool"]:
            share = f"{100 * row['tokens'] / r['total']:.1f}%" if r["total"] else "-"
            tools.add_row(
                Text(row["name"]),
                f"{row['calls']:,}",
                f"{row['call_tokens']:,}",
                f"{row['result_tokens']:,}",
                f"{row['tokens']:,}",
                share,
            )
        console.print()
        console.print(tools)

    console.print()
    _print_problems(console, r)


def _usage_bar(total: int, window: int, *, default_window: bool, width: int = 40) -> Any:
    from rich.text import Text

    usage = total / window
    filled = min(width, round(usage * width))
    mark = round(TRIGGER * width)
    style = "green" if usage < TRIGGER else ("yellow" if usage <= 1 else "red")
    bar = Text("window ")
    for k in range(width):
        if k < filled:
            bar.append("█", style=style)
        elif k == mark:
            bar.append("┊", style="dim")
        else:
            bar.append("░", style="dim")
    note = " (default; set --window)" if default_window else ""
    bar.append(f" {total:,} / {window:,} tokens{note}, {100 * usage:.1f}%")
    if usage > 1:
        bar.append(f", over by {total - window:,}", style="bold red")
    elif usage >= TRIGGER:
        bar.append(f", past the {TRIGGER:.0%} trigger", style="yellow")
    return bar


def _print_problems(console: Console, r: dict[str, Any]) -> None:
    from rich.padding import Padding
    from rich.text import Text

    problems = r["problems"]
    errors = sum(1 for p in problems if p["severity"] == "error")
    title = f"Pairing problems ({r['provider']} rules)"
    if not problems:
        console.print(f"[bold]{title}[/bold]: none")
        return
    others = len(problems) - errors
    extra = f" (and {others} warning{'s' if others != 1 else ''} or note{'s' if others != 1 else ''})" if others else ""
    console.print(f"[bold]{title}[/bold]: {errors} error{'s' if errors != 1 else ''}{extra}")
    for p in problems[:_MAX_PROBLEMS]:
        colour = {"error": "red", "warning": "yellow"}.get(p["severity"], "cyan")
        where = "conversation" if p["message_index"] is None else f"message {p['message_index']}"
        console.print(f"  {where}: [{colour}]{p['severity']}[/{colour}] {p['code']}")
        console.print(Padding(Text(p["message"]), (0, 0, 0, 4)))
    if len(problems) > _MAX_PROBLEMS:
        console.print(f"  … {len(problems) - _MAX_PROBLEMS} more: run contextfold validate for the full list")


# --- plot -------------------------------------------------------------------------------------


def _draw(path: str, r: dict[str, Any], *, title: str) -> bytes:
    """Tokens per turn (bars) over the cumulative curve against the window, as PNG or SVG (by ``path``'s suffix)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingExtraError("inspect --plot", "plot", "matplotlib") from exc

    window = r["window"]
    fig = Figure(figsize=(9, 6), layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1)
    labels = [str(t["turn"]) for t in r["turns"]]
    top.bar(range(len(labels)), [t["tokens"] for t in r["turns"]], color="#4C72B0")
    top.set_xticks(range(len(labels)), labels if len(labels) <= 40 else [""] * len(labels))
    top.set_xlabel("turn (0: before the first user message)")
    top.set_ylabel("tokens")
    top.set_title("Tokens per turn")

    cumulative: list[int] = []
    running = r["tools_total"]
    for n in r["messages"]:
        running += n
        cumulative.append(running)
    bottom.plot(range(len(cumulative)), cumulative, color="#4C72B0", label="cumulative tokens")
    bottom.axhline(window, color="#C44E52", linestyle="-", label=f"window {window:,}")
    bottom.axhline(window * TRIGGER, color="#DD8452", linestyle="--", label=f"trigger {TRIGGER:.0%}")
    for t in r["turns"][1:]:
        bottom.axvline(t["start"], color="#999999", linewidth=0.5, linestyle=":")
    bottom.set_xlabel("message index (dotted: a user turn starts)")
    bottom.set_ylabel("tokens")
    bottom.set_title("Cumulative tokens against the window")
    bottom.set_ylim(0, max(window, running) * 1.05)
    bottom.legend(loc="upper left")
    fig.suptitle(title)
    suffix = Path(path).suffix.lower()
    metadata: dict[str, Any] = {"Date": None} if suffix == ".svg" else {}
    image = io.BytesIO()
    fig.savefig(image, format=suffix[1:], metadata=metadata)
    return image.getvalue()
