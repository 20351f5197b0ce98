"""``contextfold guard FILE|-``: scan text for prompt injection, or print it sanitized.

Exit codes: 0 nothing of medium or high severity, 1 something was found,
2 unreadable input (missing file, not UTF-8).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from contextfold._cli._common import add_input_limit_argument, read_user_text

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``guard`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "guard",
        help="scan text for prompt injection and secrets (defence in depth, not a security boundary)",
        description="Report suspected prompt injections (category, severity, offsets, excerpt) in FILE, or print "
        "the sanitized text with --sanitize. Exit 0: nothing medium/high; 1: found; 2: unreadable input.",
    )
    parser.add_argument("file", metavar="FILE", help="text file to scan, or - for stdin")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--sanitize", action="store_true", help="print the redacted and defanged text instead")
    parser.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also ask the learned model (default: off, rules only; docs/guard.md)",
    )
    add_input_limit_argument(parser)
    parser.set_defaults(handler=_run)


def _read(ctx: Any) -> tuple[str, str]:
    path: str = ctx.args.file
    return ("<stdin>" if path == "-" else path), read_user_text(ctx, path)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _run(ctx: Any) -> int:
    from contextfold import sanitize_tool_output, scan_injection

    source, text = _read(ctx)
    learned: bool = ctx.args.learned
    findings = scan_injection(text, learned=learned)
    found = any(f.blocking for f in findings)
    if ctx.args.sanitize:
        result = sanitize_tool_output(text, "full", learned=learned)
        if ctx.args.json:
            json.dump({"source": source, "text": result.text, "report": result.report()}, ctx.stdout)
            ctx.stdout.write("\n")
        else:
            ctx.stdout.write(result.text)
        return 1 if found else 0
    rows = []
    for f in findings:
        line, col = _line_col(text, f.start)
        rows.append(
            {"category": f.category, "severity": f.severity, "start": f.start, "end": f.end, "line": line,
             "column": col, "rule": f.rule, "excerpt": f.excerpt}
        )  # fmt: skip
    if ctx.args.json:
        json.dump({"source": source, "found": found, "findings": rows}, ctx.stdout)
        ctx.stdout.write("\n")
    else:
        for r in rows:
            ctx.stdout.write(
                f"{source}:{r['line']}:{r['column']}: {r['severity']} {r['category']} [{r['rule']}] "
                f"{r['start']}-{r['end']}: {r['excerpt']}\n"
            )
        if not rows:
            ctx.stdout.write(f"{source}: no findings\n")
    return 1 if found else 0
