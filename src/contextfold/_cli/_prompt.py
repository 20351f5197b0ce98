"""``contextfold prompt [DIR]``: show the layered system prompt a directory yields, and what it costs.

Useful to check which project files an agent picks up, which were refused
and why, and that the prompt is stable (the SHA-256 stays the same as long
as the inputs do, so the provider's prompt cache keeps hitting).
"""

from __future__ import annotations

import argparse
import hashlib
from typing import TYPE_CHECKING, Any

from contextfold._cli._common import (
    add_counter_argument,
    add_input_limit_argument,
    counter_from_args,
    read_user_text,
    write_json,
)
from contextfold._errors import InputError
from contextfold._runtime._layers import PromptFile, SystemPromptBuilder, discover

if TYPE_CHECKING:
    from contextfold._cli import CLIContext

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``prompt`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "prompt",
        help="assemble and count the layered system prompt of a directory",
        description=(
            "Discover project instructions and the agent description in DIR, assemble the system prompt "
            "(base, instructions, agent, extras) and count it."
        ),
    )
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR", help="project directory (default: .)")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", default="", metavar="TEXT", help="the base prompt text")
    base.add_argument("--base-file", metavar="FILE", help="read the base prompt from FILE (UTF-8; - for stdin)")
    parser.add_argument("--extra", action="append", default=[], metavar="TEXT", help="an extra layer (repeatable)")
    add_counter_argument(parser)
    add_input_limit_argument(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="machine-readable output")
    out.add_argument("--print", dest="print_prompt", action="store_true", help="print only the assembled prompt")
    parser.set_defaults(handler=run)


def prompt_report(directory: str, base: str, extras: list[str], counter_spec: str) -> dict[str, Any]:
    """The ``--json`` object: the prompt, its size and hash, each layer and each skipped file."""
    from contextfold._tokens._factory import make_counter

    counter = make_counter(counter_spec)
    layers = discover(directory)
    builder = SystemPromptBuilder.from_discovered(base, layers, extras=extras)
    prompt = builder.build()
    files: dict[str, PromptFile | None] = {"instructions": layers.instructions, "agent": layers.agent}
    rows = []
    for name, text in builder.sections():
        file = files.get(name)
        rows.append(
            {
                "name": name,
                "source": file.relative if file else None,
                "bytes": len(text.encode()),
                "tokens": counter.count_text(text),
                "truncated": bool(file and file.truncated),
                "replaced_invalid_utf8": bool(file and file.replaced_invalid_utf8),
            }
        )
    return {
        "directory": directory,
        "counter": counter.key,
        "tokens": counter.count_text(prompt),
        "bytes": len(prompt.encode()),
        "sha256": hashlib.sha256(prompt.encode()).hexdigest(),
        "layers": rows,
        "skipped": [{"path": s.relative, "reason": s.reason} for s in layers.skipped],
        "prompt": prompt,
    }


def _argument_text(text: str, flag: str) -> str:
    """An option's text; bytes that are not UTF-8 (argv gives them as lone surrogates) are refused, naming it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(text[exc.start])
        what = f"invalid byte 0x{char - 0xDC00:02x}" if 0xDC80 <= char <= 0xDCFF else f"lone surrogate U+{char:04X}"
        raise InputError(f"{flag} is not UTF-8 text: {what} at character {exc.start}") from None
    return text


def run(ctx: CLIContext) -> int:
    """Handle ``contextfold prompt``."""
    args = ctx.args
    counter_from_args(args)  # a bad --counter fails before any file is read
    if args.base_file is not None:
        base = read_user_text(ctx, args.base_file, what="--base-file")
    else:
        base = _argument_text(args.base, "--base")
    extras = [_argument_text(extra, "--extra") for extra in args.extra]
    report = prompt_report(str(args.directory), base, extras, args.counter)
    if args.json:
        write_json(ctx, report)
        return 0
    if args.print_prompt:
        ctx.stdout.write(report["prompt"] + "\n")
        return 0
    from rich.table import Table

    console = ctx.console()
    table = Table(title=f"system prompt layers in {report['directory']}")
    for column in ("layer", "source", "bytes", "tokens", "notes"):
        table.add_column(column, justify="right" if column in ("bytes", "tokens") else "left")
    for row in report["layers"]:
        notes = ", ".join(
            n for n, on in (("truncated", row["truncated"]), ("not UTF-8", row["replaced_invalid_utf8"])) if on
        )
        table.add_row(row["name"], row["source"] or "-", f"{row['bytes']:,}", f"{row['tokens']:,}", notes)
    console.print(table)
    for skip in report["skipped"]:
        console.print(f"skipped {skip['path']}: {skip['reason']}")
    console.print(
        f"total: {report['tokens']:,} tokens ({report['counter']}), {report['bytes']:,} bytes, "
        f"sha256 {report['sha256'][:16]}"
    )
    return 0
