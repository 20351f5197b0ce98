"""Read-back tools: how the agent gets offloaded content back, a window at a time.

Two tools, each a plain function plus its JSON schema for OpenAI and
Anthropic tool definitions:

* `read_offloaded` shows lines ``offset+1 .. offset+limit`` of a workspace
  file, numbered. A line longer than ``max_line_chars`` is cut with a note
  telling how to continue (``column``), so a single 5 MB line is readable in
  pieces. Files are streamed: memory stays bounded by the window, not the file.
* `search_offloaded` finds a substring or regular expression in everything
  offloaded in the session and returns ``path:line: excerpt`` rows.

Both outputs are cut so that they never exceed ``max_tokens`` (the
tool-result limit) by the given counter.

Regular expressions run on RE2 (`_pattern`), which matches in time linear
in the text whatever the pattern, so no pattern can hang a search; what RE2
cannot run (backreferences, lookaround) is refused with a message saying so.
Only the first `SEARCH_LINE_CHARS` characters of each line are scanned (a
line is held in memory while it is searched). A search also stops after
``max_results`` matches or `SEARCH_SECONDS` seconds, and says so.

Arguments come from a model, so they are checked before use: an offset that
is a string, a float, a bool, negative or absurdly large is an `InputError`
with a message the model can act on (the bound tools return it as
``Error: ...`` text), never a ``TypeError`` from deep inside. Files are opened
through the workspace's `open_item`, which refuses FIFOs, hard links and
symlinks without blocking; a search skips such items and counts them.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, Protocol

from contextfold._errors import ConfigError, ContextfoldError, InputError, WorkspaceError
from contextfold._messages import ToolSpec
from contextfold._tokens._counting import BytesCounter, TokenCounter
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._pattern import compile_pattern
from contextfold._workspace._split import DEFAULT_TOOL_RESULT_LIMIT

__all__ = [
    "READ_OFFLOADED_SPEC",
    "SEARCH_OFFLOADED_SPEC",
    "ReadableWorkspace",
    "ReadbackTools",
    "anthropic_tool",
    "bind_readback_tools",
    "openai_tool",
    "read_offloaded",
    "search_offloaded",
]

DEFAULT_LINES = 200
DEFAULT_LINE_CHARS = 2000
DEFAULT_MAX_RESULTS = 50
SEARCH_LINE_CHARS = 100_000
"""Characters of each line a search scans (RE2 is linear, so this bounds memory, not time)."""
SEARCH_SECONDS = 5.0
EXCERPT_BEFORE = 60
EXCERPT_AFTER = 140
MAX_INT_ARG = 2**31 - 1
"""Largest offset, column, limit or max_results a read-back tool accepts."""


class ReadableWorkspace(Protocol):
    """What the read-back tools need from a workspace (`LocalWorkspace` has it; so can an object store)."""

    def open_item(self, path: str | OffloadRef) -> BinaryIO:
        """Open an item for reading; `PathRefusedError` for paths that leave the workspace or are not plain files."""
        ...

    def items(self) -> list[OffloadRef]:
        """Every offloaded item of the session."""
        ...


def _text(raw: BinaryIO) -> io.TextIOWrapper:
    # Display only: bytes that are not UTF-8 show as U+FFFD; exact bytes come from read_bytes.
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="\n")


_DIGITS = re.compile(r"\s*[+-]?\d{1,18}\s*")


def _int_arg(name: str, value: object, *, minimum: int, maximum: int = MAX_INT_ARG) -> int:
    """``value`` as an int in ``[minimum, maximum]``; integral floats and digit strings (what models send) pass."""
    number: int | None = None
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, got a boolean ({value!r})")
    if isinstance(value, int):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
        isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value)
    ):
        number = int(value)
    if number is None:
        raise InputError(f"{name} must be an integer, got {_shown(value)}")
    if not minimum <= number <= maximum:
        shown = str(number) if abs(number) < 10**18 else ("a huge number" if number > 0 else "a huge negative number")
        raise InputError(f"{name} must be between {minimum} and {maximum}, got {shown}")
    return number


def _bool_arg(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InputError(f"{name} must be true or false, got {_shown(value)}")


def _shown(value: object) -> str:
    """A short description of a wrong argument value, safe for any value (huge ints, deep lists)."""
    kind = type(value).__name__
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, float):
        return f"the number {value!r}"
    if value is None:
        return "null"
    return f"a {kind}" if not isinstance(value, int) else "an integer"


def _lines(f: IO[str], head_chars: int) -> Iterator[tuple[str, int]]:
    """Yield (first ``head_chars`` characters, full length) per line without holding long lines."""
    while True:
        chunk = f.readline(head_chars + 1)
        if not chunk:
            return
        if chunk.endswith("\n"):
            yield chunk[:-1], len(chunk) - 1
            continue
        if len(chunk) <= head_chars:
            yield chunk, len(chunk)
            return
        extra = 0
        while True:
            more = f.readline(1 << 16)
            if not more:
                break
            if more.endswith("\n"):
                extra += len(more) - 1
                break
            extra += len(more)
        yield chunk[:head_chars], len(chunk) + extra


def _skip_lines(raw: IO[bytes], n: int) -> int:
    """Skip ``n`` lines of a binary file in large chunks; return how many lines were skipped.

    Fewer than ``n`` means the file has fewer lines (the count includes a last line without newline).
    """
    skipped, pos, last = 0, 0, b"\n"
    while skipped < n:
        chunk = raw.read(1 << 20)
        if not chunk:
            if last != b"\n":
                skipped += 1  # a last line without a newline
            return skipped
        count = chunk.count(b"\n")
        if skipped + count < n:
            skipped += count
            pos += len(chunk)
            last = chunk[-1:]
            continue
        idx = -1
        for _ in range(n - skipped):
            idx = chunk.index(b"\n", idx + 1)
        pos += idx + 1
        skipped = n
    raw.seek(pos)
    return skipped


def _fit(counter: TokenCounter, max_tokens: int, rows: list[str], footer: Callable[[int], str]) -> str:
    """The largest prefix of ``rows`` that fits ``max_tokens`` together with its footer."""

    def render(k: int) -> str:
        return "\n".join([*rows[:k], footer(k)])

    if counter.count_text(render(0)) > max_tokens:
        raise ConfigError(f"max_tokens {max_tokens} is too small for the read-back output's footer")
    # Fast path by per-row estimate, then verify with whole-output counts (binary search).
    budget, k = max_tokens - counter.count_text(footer(len(rows))), 0
    for row in rows:
        budget -= counter.count_text(row) + 1
        if budget < 0:
            break
        k += 1
    if counter.count_text(render(k)) <= max_tokens:
        lo, hi = k, len(rows) + 1
        if k == len(rows):
            return render(k)
        # Per-row estimates may undercount rounding; grow while it still fits.
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if counter.count_text(render(mid)) <= max_tokens:
                lo = mid
            else:
                hi = mid
        return render(lo)
    lo, hi = 0, k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if counter.count_text(render(mid)) <= max_tokens:
            lo = mid
        else:
            hi = mid
    return render(lo)


def _kind_of(workspace: ReadableWorkspace, rel: str) -> OffloadRef | None:
    for ref in workspace.items():
        if ref.path == rel:
            return ref
    return None


def _is_binary(ref: OffloadRef | None) -> bool:
    if ref is None or ref.kind != "media":
        return False
    mt = (ref.media_type or "").lower()
    return not (mt.startswith("text/") or mt.endswith(("json", "xml")))


def read_offloaded(
    workspace: ReadableWorkspace,
    path: str,
    offset: int = 0,
    limit: int = DEFAULT_LINES,
    *,
    column: int = 0,
    max_line_chars: int = DEFAULT_LINE_CHARS,
    max_tokens: int = DEFAULT_TOOL_RESULT_LIMIT,
    counter: TokenCounter | None = None,
) -> str:
    """Lines ``offset+1 .. offset+limit`` of an offloaded file, numbered like ``cat -n``.

    ``offset`` is the number of lines to skip; ``column`` the number of
    characters to skip on each shown line. The output (rows and the footer
    saying how to continue) never exceeds ``max_tokens``. Raises
    `PathRefusedError` for paths outside the workspace and `WorkspaceError`
    for missing items.
    """
    counter = counter or BytesCounter()
    offset = _int_arg("offset", offset, minimum=0)
    limit = _int_arg("limit", limit, minimum=1)
    column = _int_arg("column", column, minimum=0)
    max_line_chars = _int_arg("max_line_chars", max_line_chars, minimum=1)
    max_tokens = _int_arg("max_tokens", max_tokens, minimum=1)
    opened = workspace.open_item(path)  # refuses bad paths, links, FIFOs (before the index is read)
    rows: list[str] = []
    total = 0
    more = False
    try:
        with opened as raw:
            ref = _kind_of(workspace, path)
            if _is_binary(ref) and ref is not None:
                kind = ref.media_type or "unknown type"
                return f"[{path} is binary media ({kind}, {ref.size} bytes); it has no lines]"
            total = _skip_lines(raw, offset)
            if total == offset:
                f = _text(raw)
                for lineno, (head, full) in enumerate(_lines(f, column + max_line_chars), start=offset + 1):
                    total = lineno
                    if lineno > offset + limit:
                        more = True
                        break
                    segment = head[column : column + max_line_chars]
                    left = full - column - len(segment)
                    if left > 0:
                        segment += (
                            f" … [{left} more characters on this line; "
                            f"read_offloaded(path={path!r}, offset={lineno - 1}, limit=1, "
                            f"column={column + len(segment)})]"
                        )
                    rows.append(f"{lineno:>6}\t{segment}")
                f.detach()
    except OSError as exc:
        raise WorkspaceError(f"cannot read {path!r}: {exc.strerror or exc}") from exc

    def footer(k: int) -> str:
        if offset >= total and not rows:
            return f"[offset {offset} is past the end of {path} ({total} lines)]"
        last = offset + k
        if k < len(rows) or more:
            return (
                f"[lines {offset + 1}-{last} of {path} shown; more follow: "
                f"read_offloaded(path={path!r}, offset={last})]"
            )
        return f"[end of {path}: {total} lines]"

    return _fit(counter, max_tokens, rows, footer)


@dataclass(frozen=True, slots=True)
class _Hit:
    path: str
    line: int
    excerpt: str


def search_offloaded(
    workspace: ReadableWorkspace,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    max_results: int = DEFAULT_MAX_RESULTS,
    max_tokens: int = DEFAULT_TOOL_RESULT_LIMIT,
    counter: TokenCounter | None = None,
    deadline_seconds: float = SEARCH_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """Find ``pattern`` in every text item offloaded in the session: ``path:line: excerpt`` rows.

    Substring search by default; ``regex=True`` for an RE2 regular expression
    (linear time; no backreferences or lookaround). Binary media are skipped;
    so are items that are not plain files (counted in the footer). A file
    offloaded twice is searched once.
    """
    counter = counter or BytesCounter()
    regex = _bool_arg("regex", regex)
    ignore_case = _bool_arg("ignore_case", ignore_case)
    max_results = _int_arg("max_results", max_results, minimum=1)
    max_tokens = _int_arg("max_tokens", max_tokens, minimum=1)
    find = compile_pattern(pattern, regex=regex, ignore_case=ignore_case)
    started = clock()
    hits: list[_Hit] = []
    stopped: str | None = None
    scanned = refused = 0
    seen: set[str] = set()
    for ref in workspace.items():
        if _is_binary(ref) or ref.path in seen:
            continue
        seen.add(ref.path)
        try:
            raw = workspace.open_item(ref)
        except ContextfoldError:
            refused += 1  # vanished, or not a plain file (a planted FIFO, link): nothing to search
            continue
        with _text(raw) as f:
            scanned += 1
            try:
                for lineno, (head, full) in enumerate(_lines(f, SEARCH_LINE_CHARS), start=1):
                    span = find(head)
                    if span is not None:
                        start = max(0, span[0] - EXCERPT_BEFORE)
                        excerpt = head[start : span[0] + EXCERPT_AFTER].replace("\t", " ")
                        if full > DEFAULT_LINE_CHARS and span[0] > EXCERPT_BEFORE:
                            excerpt += f" [column {span[0]}]"
                        hits.append(_Hit(ref.path, lineno, excerpt))
                        if len(hits) >= max_results:
                            stopped = f"stopped at max_results={max_results}"
                            break
                    if clock() - started > deadline_seconds:
                        stopped = f"stopped after {deadline_seconds:g} s; narrow the pattern"
                        break
            except OSError:
                refused += 1
        if stopped:
            break
    rows = [f"{h.path}:{h.line}: {h.excerpt}" for h in hits]

    def footer(k: int) -> str:
        note = f"; {stopped}" if stopped else ""
        if k < len(rows):
            note += f"; {len(rows) - k} more not shown (output limit)"
        if refused:
            note += f"; {refused} item{'s' if refused != 1 else ''} skipped (missing or not a plain file)"
        return f"[{k} match{'es' if k != 1 else ''} for {pattern!r} in {scanned} offloaded items{note}]"

    return _fit(counter, max_tokens, rows, footer)


_READ_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative path named in a truncation reminder."},
        "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Lines to skip."},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "default": DEFAULT_LINES,
            "description": "Number of lines to show.",
        },
        "column": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Characters to skip on each line (to continue a very long line).",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}
_SEARCH_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Text to find (a regular expression when regex is true)."},
        "regex": {"type": "boolean", "default": False, "description": "Treat pattern as a regular expression."},
        "ignore_case": {"type": "boolean", "default": False},
        "max_results": {"type": "integer", "minimum": 1, "default": DEFAULT_MAX_RESULTS},
    },
    "required": ["pattern"],
    "additionalProperties": False,
}

READ_OFFLOADED_SPEC = ToolSpec(
    name="read_offloaded",
    description=(
        "Read lines of content that was moved out of the context into the workspace "
        "(truncated tool output, archived messages). Output is line-numbered; use offset to page."
    ),
    parameters=_READ_PARAMS,
)
SEARCH_OFFLOADED_SPEC = ToolSpec(
    name="search_offloaded",
    description=(
        "Search everything offloaded to the workspace in this session for a substring or regular "
        "expression; returns path:line: excerpt for each match."
    ),
    parameters=_SEARCH_PARAMS,
)


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """An OpenAI chat-completions tool definition for ``spec``."""
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": dict(spec.parameters)},
    }


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """An Anthropic messages tool definition for ``spec``."""
    return {"name": spec.name, "description": spec.description, "input_schema": dict(spec.parameters)}


@dataclass(frozen=True, slots=True)
class ReadbackTools:
    """The read-back tools bound to one workspace: plain callables plus their definitions.

    The callables never raise for a bad path or pattern: they return an
    ``Error: ...`` string the model can read and act on.
    """

    read_offloaded: Callable[..., str]
    search_offloaded: Callable[..., str]
    specs: tuple[ToolSpec, ...]

    def openai(self) -> list[dict[str, Any]]:
        """Tool definitions for OpenAI chat completions."""
        return [openai_tool(s) for s in self.specs]

    def anthropic(self) -> list[dict[str, Any]]:
        """Tool definitions for Anthropic messages."""
        return [anthropic_tool(s) for s in self.specs]

    def by_name(self) -> dict[str, Callable[..., str]]:
        """Map of tool name to callable, for an agent's dispatch table."""
        return {"read_offloaded": self.read_offloaded, "search_offloaded": self.search_offloaded}


def bind_readback_tools(
    workspace: ReadableWorkspace,
    *,
    max_tokens: int = DEFAULT_TOOL_RESULT_LIMIT,
    counter: TokenCounter | None = None,
) -> ReadbackTools:
    """Bind `read_offloaded` and `search_offloaded` to ``workspace`` for an agent."""

    def read(path: str, offset: int = 0, limit: int = DEFAULT_LINES, column: int = 0) -> str:
        try:
            return read_offloaded(workspace, path, offset, limit, column=column, max_tokens=max_tokens, counter=counter)
        except ContextfoldError as exc:
            return f"Error: {exc}"

    def search(
        pattern: str, regex: bool = False, ignore_case: bool = False, max_results: int = DEFAULT_MAX_RESULTS
    ) -> str:
        try:
            return search_offloaded(
                workspace,
                pattern,
                regex=regex,
                ignore_case=ignore_case,
                max_results=max_results,
                max_tokens=max_tokens,
                counter=counter,
            )
        except ContextfoldError as exc:
            return f"Error: {exc}"

    return ReadbackTools(read, search, (READ_OFFLOADED_SPEC, SEARCH_OFFLOADED_SPEC))
