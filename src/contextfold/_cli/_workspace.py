"""``contextfold workspace ls|show``: look into what a session offloaded.

DIR is a session directory (it holds ``index.jsonl``) or a workspace root
holding session directories; in a root, item paths are prefixed with the
session id. REF is an item's path (as listed) or its number in the listing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contextfold import InputError, LocalWorkspace, OffloadRef

if TYPE_CHECKING:
    from contextfold._cli import CLIContext

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``workspace`` command and its ``ls`` and ``show`` sub-commands."""
    parser = subparsers.add_parser("workspace", help="list and show offloaded items of a session workspace")
    sub = parser.add_subparsers(dest="workspace_command", metavar="ACTION", parser_class=type(parser))
    ls = sub.add_parser("ls", help="list the items of a session (or of every session in a root)")
    ls.add_argument("dir", metavar="DIR", help="session directory or workspace root")
    ls.add_argument("--json", action="store_true", help="print the items as a JSON array")
    ls.set_defaults(handler=_ls)
    show = sub.add_parser("show", help="print one item")
    show.add_argument("dir", metavar="DIR", help="session directory or workspace root")
    show.add_argument("ref", metavar="REF", help="item path as listed, or its number in the listing")
    show.add_argument("--raw", action="store_true", help="write the exact stored bytes")
    show.set_defaults(handler=_show)
    parser.set_defaults(handler=_need_action(parser))


def _need_action(parser: argparse.ArgumentParser) -> Any:
    def handler(ctx: CLIContext) -> int:
        raise InputError("workspace: choose an action: ls or show")

    return handler


def _sessions(directory: str) -> list[tuple[str, LocalWorkspace]]:
    """Each session of DIR with the prefix its item paths are shown with (none when DIR is the session)."""
    found = LocalWorkspace.open_sessions(directory)
    inside = Path(directory).resolve()
    return [("" if ws.session_dir.resolve() == inside else f"{ws.session_id}/", ws) for ws in found]


def _listing(directory: str) -> list[tuple[str, LocalWorkspace, OffloadRef]]:
    return [(prefix + ref.path, ws, ref) for prefix, ws in _sessions(directory) for ref in ws.items()]


def _detail(ref: OffloadRef) -> str:
    if ref.kind == "context" and ref.message_range is not None:
        return f"messages {ref.message_range[0]}-{ref.message_range[1] - 1}"
    if ref.kind == "tool_result":
        return " ".join(x for x in (ref.tool_name or "", f"call {ref.call_id}" if ref.call_id else "") if x)
    return " ".join(x for x in (ref.media or "", ref.media_type or "") if x)


def _ls(ctx: CLIContext) -> int:
    rows = _listing(ctx.args.dir)
    if ctx.args.json:
        data = [dict(ref.to_dict(), path=shown) for shown, _, ref in rows]
        ctx.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    from rich.table import Table

    table = Table(title=f"workspace {ctx.args.dir}: {len(rows)} item{'s' if len(rows) != 1 else ''}")
    for name, justify in (("#", "right"), ("path", "left"), ("kind", "left"), ("size", "right")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    table.add_column("created", overflow="fold")
    table.add_column("range / tool / call id", overflow="fold")
    for n, (shown, _, ref) in enumerate(rows, start=1):
        table.add_row(str(n), shown, ref.kind, str(ref.size), ref.created, _detail(ref))
    ctx.console().print(table)
    return 0


def _show(ctx: CLIContext) -> int:
    rows = _listing(ctx.args.dir)
    ref_arg: str = ctx.args.ref
    match = None
    if ref_arg.isdigit() and 1 <= int(ref_arg) <= len(rows):
        match = rows[int(ref_arg) - 1]
    else:
        for row in rows:
            if row[0] == ref_arg:
                match = row
                break
    if match is None:
        raise InputError(f"no item {ref_arg!r} (see `contextfold workspace ls {ctx.args.dir}`)", source=ctx.args.dir)
    _, ws, ref = match
    if ctx.args.raw:
        data = ws.read_bytes(ref)
        buffer = getattr(ctx.stdout, "buffer", None)
        if buffer is not None:
            ctx.stdout.flush()
            buffer.write(data)
            buffer.flush()
        else:
            ctx.stdout.write(data.decode("utf-8", "surrogateescape"))
        return 0
    console = ctx.console()
    console.print(ref.describe(), markup=False)
    if ref.kind == "context":
        ws.read_messages(ref)  # a damaged archive is an InputError naming the line, before anything is printed
        _print_messages(console, ws.read_text(ref))
    elif ref.kind == "tool_result":
        console.print(ws.read_bytes(ref).decode("utf-8", "replace"), markup=False, highlight=False)
    else:
        console.print(f"binary media; {ref.size} bytes (use --raw to write the bytes)", markup=False)
    return 0


def _print_messages(console: Any, archive: str) -> None:
    """An archived context block by block, from its lines: one message per line in the canonical JSON form."""
    from rich.rule import Rule

    messages = [json.loads(line) for line in archive.splitlines() if line.strip()]
    for i, message in enumerate(messages):
        title = f"[{i}] {message['role']}" + (f" ({message['name']})" if message.get("name") else "")
        console.print(Rule(title, align="left"))
        for d in message["content"]:
            kind = d.pop("kind")
            if kind in ("text", "hint") and set(d) == {"text"}:
                label = "" if kind == "text" else "hint: "
                console.print(label + d["text"], markup=False, highlight=False)
            else:
                console.print(f"{kind}: " + json.dumps(d, ensure_ascii=False, indent=2), markup=False)
