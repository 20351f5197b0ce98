"""``contextfold count FILE``: how many tokens a transcript costs, by role, block kind and tool schemas.

The JSON form (``--json``) is a stable schema scripts can rely on; it is
documented in docs/cli.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from contextfold._cli._common import (
    BLOCK_KINDS,
    ROLES,
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
from contextfold._tokens._counting import TokenCounter

if TYPE_CHECKING:
    from rich.console import Console

    from contextfold._cli import CLIContext
    from contextfold._formats._transcript import Transcript

__all__ = ["count_transcript", "register"]


def register(subparsers: Any) -> None:
    """Add the ``count`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "count",
        help="count the tokens of a transcript",
        description="Count the tokens of a transcript: total, by role, by block kind and tool schemas.",
    )
    add_common_arguments(parser)
    add_counter_argument(parser)
    parser.set_defaults(handler=run)


def count_transcript(transcript: Transcript, counter: TokenCounter, advance: Any = None) -> dict[str, Any]:
    """The per-conversation ``count`` result (without the identifying header).

    ``by_role`` and ``by_kind`` always list every role and block kind and sum
    to ``messages_total``; ``total`` adds the tool schemas, counted once.
    """
    names = call_names_of(transcript.messages)
    by_role = dict.fromkeys(ROLES, 0)
    by_kind = dict.fromkeys(BLOCK_KINDS, 0)
    per_message: list[int] = []
    for message in transcript.messages:
        part = message_breakdown(counter, message, names)
        per_message.append(part.tokens)
        by_role[message.role] += part.tokens
        for kind, n in part.by_kind.items():
            by_kind[kind] += n
        if advance is not None:
            advance()
    by_name: dict[str, int] = {}
    for tool in transcript.tools:
        by_name[tool.name] = by_name.get(tool.name, 0) + counter.count_text(tool.schema_json())
    tools_total = sum(by_name.values())
    messages_total = sum(per_message)
    return {
        "counter": counter.key,
        "total": messages_total + tools_total,
        "messages_total": messages_total,
        "by_role": by_role,
        "by_kind": by_kind,
        "tools": {"count": len(transcript.tools), "total": tools_total, "by_name": by_name},
        "messages": per_message,
    }


def run(ctx: CLIContext) -> int:
    """Handler: load, count every selected conversation, print a table or JSON."""
    counter = counter_from_args(ctx.args)
    with ProgressReporter(ctx) as reporter:
        transcripts = load_selected(ctx, reporter)
        results: list[dict[str, Any]] = []
        with reporter.task("counting", total=sum(len(t.messages) for t in transcripts)) as task:
            for position, t in enumerate(transcripts):
                results.append({**conversation_header(t, position), **count_transcript(t, counter, task.advance)})
    multi = is_multi(ctx, transcripts)
    if ctx.args.json:
        if multi:
            write_json(
                ctx,
                {
                    "file": ctx.args.file,
                    "counter": counter.key,
                    "total": sum(r["total"] for r in results),
                    "conversations": results,
                },
            )
        else:
            write_json(ctx, results[0])
        return 0
    console = ctx.console()
    if multi:
        _print_many(console, ctx.args.file, counter.key, results)
    else:
        _print_one(console, ctx.args.file, transcripts[0], results[0])
    return 0


def _pct(n: int, total: int) -> str:
    return f"{100 * n / total:.1f}%" if total else "-"


def _print_one(console: Console, path: str, t: Transcript, r: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    tools = r["tools"]
    console.print(
        f"[bold]{escape(path)}[/bold]: {escape(conversation_label(t, 0))}, {t.format} format, counter {r['counter']}"
    )
    console.print(
        f"[bold]{r['total']:,}[/bold] tokens: {len(r['messages']):,} messages {r['messages_total']:,}"
        f" + tool schemas {tools['total']:,} ({tools['count']} tools)"
    )
    roles = Table(title="By role", title_justify="left", show_edge=False, pad_edge=False)
    roles.add_column("role")
    roles.add_column("messages", justify="right")
    roles.add_column("tokens", justify="right")
    roles.add_column("share", justify="right")
    counts = {role: 0 for role in ROLES}
    for message in t.messages:
        counts[message.role] += 1
    for role in ROLES:
        roles.add_row(role, f"{counts[role]:,}", f"{r['by_role'][role]:,}", _pct(r["by_role"][role], r["total"]))
    if tools["count"]:
        roles.add_row("tool schemas", f"{tools['count']:,}", f"{tools['total']:,}", _pct(tools["total"], r["total"]))
    kinds = Table(title="By block kind", title_justify="left", show_edge=False, pad_edge=False)
    kinds.add_column("kind")
    kinds.add_column("tokens", justify="right")
    kinds.add_column("share", justify="right")
    for kind in BLOCK_KINDS:
        if r["by_kind"][kind]:
            kinds.add_row(kind, f"{r['by_kind'][kind]:,}", _pct(r["by_kind"][kind], r["total"]))
    console.print()
    console.print(roles)
    console.print()
    console.print(kinds)
    if tools["count"]:
        schemas = Table(title="Tool schemas", title_justify="left", show_edge=False, pad_edge=False)
        schemas.add_column("tool", overflow="fold")
        schemas.add_column("tokens", justify="right")
        for name, n in sorted(tools["by_name"].items(), key=lambda kv: -kv[1]):
            schemas.add_row(Text(name), f"{n:,}")
        console.print()
        console.print(schemas)


def _print_many(console: Console, path: str, counter_key: str, results: Sequence[dict[str, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    grand = sum(r["total"] for r in results)
    table = Table(
        title=escape(f"{path}: {len(results)} conversations, counter {counter_key}"),
        title_justify="left",
        show_edge=False,
        pad_edge=False,
        show_footer=True,
    )
    # Numbers never shrink; the id column takes what is left of the width.
    columns: list[tuple[str, list[str], str]] = [
        ("msgs", [f"{len(r['messages']):,}" for r in results], f"{sum(len(r['messages']) for r in results):,}")
    ]
    short = {"system": "system", "user": "user", "assistant": "asst", "tool": "tool"}
    for role in ROLES:
        cells = [f"{r['by_role'][role]:,}" for r in results]
        columns.append((short[role], cells, f"{sum(r['by_role'][role] for r in results):,}"))
    columns.append(
        ("schemas", [f"{r['tools']['total']:,}" for r in results], f"{sum(r['tools']['total'] for r in results):,}")
    )
    columns.append(("total", [f"{r['total']:,}" for r in results], f"{grand:,}"))
    widths = [max(len(header), len(footer), *(len(c) for c in cells)) for header, cells, footer in columns]
    number_width = max(1, *(len(str(r["conversation"])) for r in results))
    spare = console.width - sum(widths) - number_width - 3 * (len(columns) + 1)
    table.add_column("#", justify="right", footer="", no_wrap=True, min_width=number_width)
    table.add_column("id", overflow="ellipsis", no_wrap=True, footer="all", max_width=max(8, spare))
    for (header, _, footer), width in zip(columns, widths, strict=True):
        table.add_column(header, justify="right", footer=footer, no_wrap=True, min_width=width)
    for k, r in enumerate(results):
        table.add_row(str(r["conversation"]), Text(r["id"] or ""), *(cells[k] for _, cells, _ in columns))
    console.print(table)
    console.print(f"[bold]{grand:,}[/bold] tokens in {len(results)} conversations")
