"""`DedupeFileReads`: when the same file was read several times, only the newest read keeps its output.

An agent re-reads a file after editing it, or forgets it already read it;
every older copy is dead weight, and the newest one shows the file as it is
now. Older reads become a one-line placeholder pointing at the newer read
and the archived original; nothing else changes (ids and pairing stay).

What counts as a read of a file (`read_key`), by tool name and arguments:

* a read tool (``read_file``, ``Read``, ``read``, ``view_file``,
  ``open_file``, ``cat``) with a ``path``, ``file_path``, ``filename`` or
  ``file`` argument: the key is the path (plus ``offset``/``limit``/
  ``view_range`` when given, so partial reads only supersede the same part);
* an editor tool whose ``command`` is ``view`` (``str_replace_editor``,
  ``text_editor``...) with a ``path``: the path plus ``view_range``;
* a shell tool (any call with a string ``command``/``cmd``) running a single
  ``cat FILE`` (options allowed, no pipe or redirection): the path; any
  other single read-only viewer (``nl``, ``head``, ``tail``, ``sed -n``,
  ``less``, ``more``, ``bat``) without redirection: the whole command, so
  only an identical command supersedes it.

Failed reads (``is_error``) never supersede a good one.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from typing import Any

from contextfold._config import ContextConfig
from contextfold._errors import ConfigError
from contextfold._markers import ARCHIVE_PENDING
from contextfold._messages import Message, ToolCallBlock, ToolResultBlock
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._clear_results import is_placeholder, plan_result_rewrites
from contextfold.compaction._plan import CompactionPlan

__all__ = ["DedupeFileReads", "read_key"]

READ_TOOLS = frozenset({"read_file", "read", "view_file", "open_file", "cat", "readfile", "file_read"})
PATH_KEYS = ("path", "file_path", "filename", "file")
RANGE_KEYS = ("offset", "limit", "view_range", "start_line", "end_line", "line_range")
VIEWERS = frozenset({"nl", "head", "tail", "sed", "less", "more", "bat"})
_SHELL_META = re.compile(r"[|;&<>`$]|\n")


def _range(args: dict[str, Any]) -> str:
    parts = {k: args[k] for k in RANGE_KEYS if k in args and args[k] is not None}
    return json.dumps(parts, sort_keys=True) if parts else ""


def _shell_key(command: str) -> str | None:
    command = command.strip()
    if not command or _SHELL_META.search(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    if words[0] == "cat":
        files = [w for w in words[1:] if not w.startswith("-")]
        return f"file:{files[0]}" if len(files) == 1 else None
    if words[0] in VIEWERS:
        return "cmd:" + " ".join(words)
    return None


def read_key(call: ToolCallBlock) -> str | None:
    """What a call reads, as a key equal for reads that show the same thing; ``None`` if it is not a read."""
    try:
        args = call.parsed_arguments()
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    path = next((args[k] for k in PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
    command = args.get("command", args.get("cmd"))
    if call.name.lower() in READ_TOOLS and path is not None:
        return f"file:{path}{_range(args)}"
    if path is not None and command == "view":
        return f"file:{path}{_range(args)}"
    if isinstance(command, str):
        return _shell_key(command)
    return None


class DedupeFileReads:
    """Keep only the newest read of each file; older reads become placeholders (originals archived)."""

    name = "dedupe_file_reads"

    def __init__(self, *, min_reclaim: int = 1) -> None:
        if min_reclaim < 0:
            raise ConfigError(f"DedupeFileReads.min_reclaim: must be >= 0 (got {min_reclaim})")
        self.min_reclaim = min_reclaim

    def plan(
        self, messages: Sequence[Message], *, counter: TokenCounter, config: ContextConfig
    ) -> CompactionPlan | None:
        """Plan the deduplication; ``None`` when no file was read twice."""
        return plan_result_rewrites(
            self.name, messages, counter=counter, select=self._select, min_reclaim=self.min_reclaim
        )

    def _select(
        self, messages: Sequence[Message], lo: int, stop: int, counter: TokenCounter
    ) -> dict[tuple[int, int], str]:
        keys: dict[str, str] = {}  # call id -> read key
        for message in messages[lo:]:
            for call in message.tool_calls:
                key = read_key(call)
                if key is not None:
                    keys[call.id] = key
        reads: dict[str, list[tuple[int, int, ToolResultBlock]]] = {}
        for i in range(lo, len(messages)):
            for b, block in enumerate(messages[i].content):
                if isinstance(block, ToolResultBlock) and block.call_id in keys and not block.is_error:
                    reads.setdefault(keys[block.call_id], []).append((i, b, block))
        chosen: dict[tuple[int, int], str] = {}
        for key, found in reads.items():
            newest_call = found[-1][2].call_id
            what = key.split(":", 1)[1]
            for i, b, block in found[:-1]:
                if i >= stop or is_placeholder(block):
                    continue
                chosen[(i, b)] = (
                    f"[superseded: a newer read of {what} follows (call {newest_call}); "
                    f"this older copy is archived at {ARCHIVE_PENDING} (call {block.call_id})]"
                )
        return chosen
