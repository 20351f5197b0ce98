"""``contextfold validate FILE --provider openai|anthropic``: check that a provider would accept a transcript.

Exit code 0 when every selected conversation is valid, 1 when problems were
found, 2 when the file could not be read. Pending tool calls at the very end
(the agent runs them next) are listed but do not make a conversation invalid.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from contextfold._cli._common import (
    ProgressReporter,
    add_common_arguments,
    conversation_header,
    conversation_label,
    is_multi,
    load_selected,
    write_json,
)
from contextfold._formats._providers import PROVIDERS
from contextfold._formats._validate import Problem, validate

if TYPE_CHECKING:
    from contextfold._cli import CLIContext

__all__ = ["register"]

EXIT_VALID = 0
EXIT_PROBLEMS = 1


def register(subparsers: Any) -> None:
    """Add the ``validate`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "validate",
        help="check tool pairing, roles and thinking blocks against a provider's rules",
        description=(
            "Report every tool result without its call, tool call without its result, duplicate call id, "
            "Anthropic alternation and thinking-block problem, with message indexes. "
            "Exit 0: valid, 1: problems found, 2: unreadable input."
        ),
    )
    add_common_arguments(parser)
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        help="whose rules to check (default: the format the file is written in)",
    )
    parser.set_defaults(handler=run)


def run(ctx: CLIContext) -> int:
    """Handler: validate every selected conversation and report; the exit code says whether all are valid."""
    with ProgressReporter(ctx) as reporter:
        transcripts = load_selected(ctx, reporter)
        results: list[tuple[dict[str, Any], list[Problem]]] = []
        with reporter.task("validating", total=len(transcripts)) as task:
            for position, t in enumerate(transcripts):
                provider = ctx.args.provider or t.format
                problems = validate(t.messages, provider)
                header = {**conversation_header(t, position), "provider": provider}
                results.append((header, problems))
                task.advance()
    invalid = sum(1 for _, problems in results if any(p.blocking for p in problems))
    blocking = sum(1 for _, problems in results for p in problems if p.blocking)
    if ctx.args.json:
        objects = [
            {**header, "valid": not any(p.blocking for p in problems), "problems": [p.to_dict() for p in problems]}
            for header, problems in results
        ]
        if is_multi(ctx, transcripts):
            write_json(
                ctx,
                {
                    "file": ctx.args.file,
                    "provider": ctx.args.provider,
                    "valid": invalid == 0,
                    "invalid_conversations": invalid,
                    "problem_count": blocking,
                    "conversations": objects,
                },
            )
        else:
            write_json(ctx, objects[0])
        return EXIT_PROBLEMS if invalid else EXIT_VALID
    from rich.markup import escape

    console = ctx.console()
    path = ctx.args.file
    for position, ((header, problems), t) in enumerate(zip(results, transcripts, strict=True)):
        errors = sum(1 for p in problems if p.severity == "error")
        warnings = sum(1 for p in problems if p.severity == "warning")
        pending = sum(1 for p in problems if p.severity == "info")
        label = escape(f"{path}: {conversation_label(t, position)}")
        if errors:
            verdict = f"[red]{_plural(errors, 'problem')}[/red] for {header['provider']}"
        else:
            verdict = f"[green]valid[/green] for {header['provider']}"
        notes = [_plural(warnings, "warning")] if warnings else []
        if pending:
            notes.append(f"{_plural(pending, 'pending tool call')} at the end")
        if notes:
            verdict += f" ({', '.join(notes)})"
        console.print(f"{label}: {verdict}", soft_wrap=True)
        for p in problems:
            colour = {"error": "red", "warning": "yellow"}.get(p.severity, "cyan")
            where = f"message {p.message_index}" if p.message_index is not None else "conversation"
            console.print(
                f"  {where}: [{colour}]{p.severity}[/{colour}] {p.code}: {escape(p.message)}",
                soft_wrap=True,
                markup=True,
            )
    if len(results) > 1:
        console.print(
            f"{invalid} of {len(results)} conversations have problems ({blocking} in all)"
            if invalid
            else f"all {len(results)} conversations are valid",
            soft_wrap=True,
        )
    return EXIT_PROBLEMS if invalid else EXIT_VALID


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
