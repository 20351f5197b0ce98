"""Helpers the ``count``, ``inspect`` and ``validate`` commands share.

They all read one FILE that may hold several conversations, may narrow it to
one with ``--conversation``, print per conversation (named by position and
``id``), and offer ``--json``. Loading and counting a large file can take a
while, so work runs under a progress bar on stderr that appears only after
`PROGRESS_DELAY` seconds, and only on a terminal unless ``--progress`` forces it.

`message_breakdown` is the one pure piece: it splits a message's token count
over its blocks so that per-kind and per-tool figures always add up to the total.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from contextfold import (
    DataBlock,
    HintBlock,
    InputError,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    TokenCounter,
    ToolCallBlock,
    ToolResultBlock,
    count_messages,
    data_tokens,
)
from contextfold.files import DEFAULT_MAX_INPUT_BYTES

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from contextfold import Transcript
    from contextfold._cli import CLIContext

__all__ = [
    "BLOCK_KINDS",
    "MAX_INPUT_FLAG",
    "PROGRESS_DELAY",
    "ROLES",
    "TRANSCRIPT_HELP",
    "MessageBreakdown",
    "ProgressReporter",
    "add_common_arguments",
    "add_counter_argument",
    "add_input_limit_argument",
    "call_names_of",
    "conversation_header",
    "conversation_label",
    "counter_from_args",
    "is_multi",
    "load_selected",
    "load_transcript_file",
    "message_breakdown",
    "progress",
    "read_user_text",
    "select_conversations",
    "write_json",
]

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")
BLOCK_KINDS: tuple[str, ...] = ("text", "hint", "tool_call", "tool_result", "thinking", "redacted_thinking", "data")

PROGRESS_DELAY = 1.0
"""Seconds of work before the progress bar appears: quick runs never show one."""


# --- arguments --------------------------------------------------------------------------------


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE, ``--conversation``, ``--json``, ``--progress`` and the input limit: what every transcript command takes."""
    parser.add_argument("file", metavar="FILE", help=TRANSCRIPT_HELP)
    add_input_limit_argument(parser)
    parser.add_argument(
        "--conversation",
        metavar="N|ID",
        help="only this conversation of a multi-conversation file (0-based position or its 'id')",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON (schema in docs/cli.md)")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr for slow inputs (default: only on a terminal)",
    )


TRANSCRIPT_HELP = "transcript: JSON list, JSON object with 'messages', or JSONL; gzip-compressed too; - for stdin"
MAX_INPUT_FLAG = "--max-input-bytes"
"""The one flag, on every command that reads a file, that raises the input limit."""


def _byte_size(text: str) -> int:
    """``536870912``, ``512M``, ``2G``, ``64KiB``: a positive number of bytes (K, M, G are powers of 1024)."""
    found = _BYTE_SIZE.fullmatch(text.strip().replace("_", "").replace(",", ""))
    if found is None or int(found.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes such as 536870912 or 512M, got {text!r}")
    power: int = " KMGT".index((found.group(2) or " ").upper())
    size: int = int(found.group(1)) * (1 << (10 * power))
    return size


_BYTE_SIZE = re.compile(r"(\d+)\s*(?:([KMGTkmgt])(?:i?[Bb])?)?")


def add_input_limit_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--max-input-bytes`` option: inputs larger than this (decompressed, for .gz) are refused."""
    parser.add_argument(
        MAX_INPUT_FLAG,
        type=_byte_size,
        default=DEFAULT_MAX_INPUT_BYTES,
        metavar="N",
        help="refuse an input file, standard input or decompressed .gz content larger than N bytes "
        f"(suffixes K, M, G; default {DEFAULT_MAX_INPUT_BYTES // 1024**2} MiB)",
    )


def read_user_text(ctx: CLIContext, path: str, *, what: str = "") -> str:
    """A plain UTF-8 text file the user named (``-``: stdin), bounded by ``--max-input-bytes``; see `read_text`.

    Every command reads its files through here or `load_transcript_file`: regular files only, never more than the
    limit, and the message of a file over it names the flag.
    """
    from contextfold.files import read_text

    return read_text(path, max_bytes=ctx.args.max_input_bytes, limit_name=MAX_INPUT_FLAG, what=what)


def load_transcript_file(ctx: CLIContext, path: str) -> list[Transcript]:
    """Every conversation of a transcript file (or ``-``), gzip decompressed, bounded by ``--max-input-bytes``."""
    from contextfold import load_transcripts

    return load_transcripts(path, max_bytes=ctx.args.max_input_bytes, limit_name=MAX_INPUT_FLAG)


def add_counter_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--counter`` option (validated before the file is read)."""
    parser.add_argument(
        "--counter",
        default="calibrated",
        metavar="SPEC",
        help="calibrated (default) | bytes | tiktoken:ENCODING_OR_FILE | hf:PATH",
    )


def counter_from_args(args: argparse.Namespace) -> TokenCounter:
    """Build the counter named by ``--counter``; a bad spec raises `ConfigError` (one line, exit 2)."""
    from contextfold import make_counter

    return make_counter(args.counter)


# --- loading and selecting --------------------------------------------------------------------


def select_conversations(transcripts: Sequence[Transcript], spec: str | None, source: str) -> list[Transcript]:
    """All conversations, or the one ``spec`` names: its ``id`` first, else its 0-based position."""
    if spec is None:
        return list(transcripts)
    for t in transcripts:
        if str(t.extra.get("id", "")) == spec:
            return [t]
    if spec.isdigit() and int(spec) < len(transcripts):
        return [transcripts[int(spec)]]
    n = len(transcripts)
    held = f"it holds {n} conversation{'s' if n != 1 else ''}" + (f" (0-{n - 1})" if n > 1 else " (0)")
    raise InputError(f"no conversation {spec!r}: {held}; give a position or an id", source=source)


def load_selected(ctx: CLIContext, reporter: ProgressReporter) -> list[Transcript]:
    """Read FILE and apply ``--conversation``; every kind of bad input raises `InputError`."""
    path: str = ctx.args.file
    with reporter.task(f"reading {path}", total=None):
        transcripts = load_transcript_file(ctx, path)
    if not transcripts:
        raise InputError("the file holds no conversation", source=path)
    return select_conversations(transcripts, ctx.args.conversation, path)


def is_multi(ctx: CLIContext, transcripts: Sequence[Transcript]) -> bool:
    """Whether the output wraps conversations in a list: a conversations file read whole."""
    if ctx.args.conversation is not None:
        return False
    return len(transcripts) > 1 or any(t.shape == "jsonl-conversations" for t in transcripts)


def conversation_index(t: Transcript, position: int) -> int:
    """The conversation's position in its file."""
    return t.index if t.index is not None else position


def conversation_label(t: Transcript, position: int) -> str:
    """``conversation 3 (id swebench/x)``: how output names a conversation."""
    ident = t.extra.get("id")
    label = f"conversation {conversation_index(t, position)}"
    return f"{label} (id {ident})" if ident is not None else label


def conversation_header(t: Transcript, position: int) -> dict[str, Any]:
    """The identifying fields every per-conversation JSON object starts with."""
    ident = t.extra.get("id")
    return {
        "conversation": conversation_index(t, position),
        "id": None if ident is None else str(ident),
        "format": t.format,
    }


def write_json(ctx: CLIContext, obj: Any) -> None:
    """Pretty, UTF-8 JSON on stdout with a final newline (a lone surrogate from the input stays escaped)."""
    from contextfold.files import escape_surrogates

    ctx.stdout.write(escape_surrogates(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")


# --- progress ---------------------------------------------------------------------------------


class ProgressReporter:
    """A rich progress bar on stderr that shows up only once work has lasted `PROGRESS_DELAY` seconds.

    Disabled (every method a no-op) when stderr is not a terminal and the
    user did not pass ``--progress``, so captured output never holds one.
    """

    def __init__(self, ctx: CLIContext, *, delay: float | None = None) -> None:
        forced: bool | None = getattr(ctx.args, "progress", None)
        is_tty = bool(getattr(ctx.stderr, "isatty", lambda: False)())
        self._enabled = forced if forced is not None else is_tty
        self._delay = PROGRESS_DELAY if delay is None else delay
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self._timer: threading.Timer | None = None
        self._progress: Progress | None = None
        if self._enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(
                file=ctx.stderr,
                force_terminal=True,
                no_color="NO_COLOR" in ctx.env,
                width=None if is_tty else int(ctx.env.get("COLUMNS", "100")),
            )
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )

    def __enter__(self) -> ProgressReporter:
        if self._progress is not None:
            self._timer = threading.Timer(self._delay, self._start)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._started and self._progress is not None:
                self._progress.stop()

    def _start(self) -> None:
        with self._lock:
            if not self._closed and self._progress is not None:
                self._progress.start()
                self._started = True

    @property
    def started(self) -> bool:
        """Whether the bar was actually shown."""
        return self._started

    @contextmanager
    def task(self, description: str, total: float | None) -> Iterator[_Task]:
        """A task on the bar (``total`` None: indeterminate), removed when the block ends."""
        if self._progress is None:
            yield _Task(None, None)
            return
        task_id = self._progress.add_task(description, total=total)
        try:
            yield _Task(self._progress, task_id)
        finally:
            self._progress.remove_task(task_id)


@dataclass
class _Task:
    progress: Progress | None
    task_id: TaskID | None

    def advance(self, n: float = 1) -> None:
        if self.progress is not None and self.task_id is not None:
            self.progress.advance(self.task_id, n)


def progress(ctx: CLIContext) -> ProgressReporter:
    """The progress reporter for a command run (use as a context manager)."""
    return ProgressReporter(ctx)


# --- token breakdown (pure) -------------------------------------------------------------------


@dataclass
class MessageBreakdown:
    """A message's tokens, split over block kinds and tool names; the parts sum to ``tokens``."""

    tokens: int
    by_kind: dict[str, int] = field(default_factory=dict)
    call_tokens: dict[str, int] = field(default_factory=dict)
    """Tokens of tool calls (name and arguments), by tool name."""
    result_tokens: dict[str, int] = field(default_factory=dict)
    """Tokens of tool results, by tool name (``?`` when the call is unknown)."""
    calls: dict[str, int] = field(default_factory=dict)
    """Number of tool calls by tool name."""


def message_breakdown(
    counter: TokenCounter, message: Message, call_names: Mapping[str, str] | None = None
) -> MessageBreakdown:
    """Split ``message``'s count (from the counter's cache) over its blocks, in proportion to their text.

    Counters count a message as a whole; the split uses the counter on each
    block and hands out the message total by largest remainder, so per-kind
    and per-tool sums always equal the totals shown next to them.
    """
    total = count_messages(counter, (message,))
    names = call_names or {}
    parts: list[tuple[str, str | None, bool, int]] = []  # kind, tool name, is_call, weight
    for block in message.content:
        match block:
            case TextBlock() | HintBlock():
                parts.append((block.kind, None, False, counter.count_text(block.text)))
            case ToolCallBlock():
                weight = counter.count_text(block.name) + counter.count_text(block.arguments)
                parts.append((block.kind, block.name or "?", True, weight))
            case ToolResultBlock():
                weight = sum(
                    data_tokens(inner, counter) if isinstance(inner, DataBlock) else counter.count_text(inner.text)
                    for inner in block.content
                )
                name = block.name or names.get(block.call_id) or "?"
                parts.append((block.kind, name, False, weight))
            case ThinkingBlock():
                parts.append((block.kind, None, False, counter.count_text(block.thinking)))
            case RedactedThinkingBlock():
                parts.append((block.kind, None, False, 0))
            case DataBlock():
                parts.append((block.kind, None, False, data_tokens(block, counter)))
            case _:
                assert_never(block)
    shares = _apportion(total, [w for *_, w in parts])
    out = MessageBreakdown(tokens=total)
    for (kind, tool_name, is_call, _), share in zip(parts, shares, strict=True):
        out.by_kind[kind] = out.by_kind.get(kind, 0) + share
        if tool_name is not None:
            target = out.call_tokens if is_call else out.result_tokens
            target[tool_name] = target.get(tool_name, 0) + share
            if is_call:
                out.calls[tool_name] = out.calls.get(tool_name, 0) + 1
    if not parts and total:
        out.by_kind["text"] = total
    return out


def _apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder; all to the first part if weights are 0)."""
    if not weights:
        return []
    wsum = sum(weights)
    if wsum <= 0:
        return [total] + [0] * (len(weights) - 1)
    exact = [total * w / wsum for w in weights]
    shares = [int(x) for x in exact]
    left = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda k: exact[k] - shares[k], reverse=True)
    for k in order[:left]:
        shares[k] += 1
    return shares


def call_names_of(messages: Sequence[Message]) -> dict[str, str]:
    """Tool name for every call id (results often carry only the id)."""
    return {call.id: call.name for m in messages for call in m.tool_calls}
