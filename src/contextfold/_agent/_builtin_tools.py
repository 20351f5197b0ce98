"""Safe built-in tools for ``contextfold run``: read, list and search files under one root; a shell only on request.

A small real agent needs to look around a project, and an agent driven by a
model must not wander the disk. Every path is resolved (symlinks included)
and refused unless it stays inside ``root``; reading is capped so one call
cannot return a gigabyte; regular expressions run on RE2 in linear time, like
the read-back search (`contextfold._workspace._pattern`), so no pattern can
hang a search, and only regular files are read (a FIFO is skipped, never
opened for good). The shell
(``run_command``) exists only with ``allow_shell=True`` and runs with ``root``
as its working directory, with a timeout. It is *not* a sandbox: a command can
still reach anything the user can (docs/design-notes.md, "The guard is not
a security boundary": neither is this).

Errors a model can fix (a path outside the root, a missing file, a refused
pattern) are raised as `ToolError`, so the model reads one plain line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from pathlib import Path

from contextfold._agent._tools import Tool, ToolError
from contextfold._errors import InputError
from contextfold._workspace._pattern import compile_pattern

__all__ = ["MAX_READ_BYTES", "builtin_tools"]

MAX_READ_BYTES = 256_000
"""A file read returns at most this many bytes per call (continue with ``offset``)."""
MAX_LIST_ENTRIES = 500
MAX_SEARCH_FILE_BYTES = 2_000_000
MAX_OUTPUT_CHARS = 100_000
SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".contextfold"})


def _resolve(root: Path, path: str) -> Path:
    """``path`` (relative to ``root``, or absolute) resolved; refused unless it stays inside ``root``."""
    candidate = Path(path).expanduser()
    full = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if full != root and root not in full.parents:
        raise ToolError(f"Error: {path!r} is outside the allowed root {root}; use a path inside it")
    return full


def _shown(root: Path, path: Path) -> str:
    return "." if path == root else path.relative_to(root).as_posix()


def builtin_tools(
    root: str | os.PathLike[str], *, allow_shell: bool = False, shell_timeout: float = 120.0
) -> list[Tool]:
    """The tools of ``contextfold run``, confined to ``root``.

    read_file, list_directory and search_text; run_command with ``allow_shell``.
    """
    base = Path(root).resolve()
    if not base.is_dir():
        raise InputError("the root is not a directory", source=str(root))

    def read_file(path: str, offset: int = 0, limit: int = 400) -> str:
        """Read a text file, numbered lines from line offset+1 on.

        Args:
            path: file path, relative to the project root.
            offset: number of lines to skip.
            limit: most lines to return.

        """
        full = _resolve(base, path)
        if not full.is_file():
            raise ToolError(f"Error: {path!r} is not a file (list_directory shows what exists)")
        rows: list[str] = []
        used = 0
        with full.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if number <= max(0, offset):
                    continue
                if len(rows) >= max(1, limit) or used + len(raw) > MAX_READ_BYTES:
                    rows.append(f"... (more lines: continue with offset={number - 1})")
                    break
                if b"\0" in raw:
                    raise ToolError(f"Error: {path!r} looks like a binary file")
                used += len(raw)
                rows.append(f"{number:>6}\t{raw.decode('utf-8', 'replace').rstrip()}")
        return "\n".join(rows) if rows else "(no lines in that range)"

    def list_directory(path: str = ".") -> str:
        """List a directory: one entry per line, directories end with '/', files show their size in bytes.

        Args:
            path: directory path, relative to the project root.

        """
        full = _resolve(base, path)
        if not full.is_dir():
            raise ToolError(f"Error: {path!r} is not a directory")
        entries = sorted(full.iterdir(), key=lambda p: (not p.is_dir(), p.name))
        rows = []
        for entry in entries[:MAX_LIST_ENTRIES]:
            if entry.is_dir():
                rows.append(f"{entry.name}/")
            else:
                try:
                    rows.append(f"{entry.name}  {entry.stat().st_size}")
                except OSError:
                    rows.append(entry.name)
        if len(entries) > MAX_LIST_ENTRIES:
            rows.append(f"... and {len(entries) - MAX_LIST_ENTRIES} more entries")
        return "\n".join(rows) if rows else "(empty directory)"

    def search_text(pattern: str, path: str = ".", regex: bool = False, max_results: int = 100) -> str:
        """Search files under a directory for a substring (or a regular expression); returns path:line: text rows.

        Args:
            pattern: the text to find (an RE2 regular expression when regex is true: Python syntax without
                backreferences or lookaround).
            path: directory or file to search, relative to the project root.
            regex: treat pattern as a regular expression.
            max_results: stop after this many matches.

        """
        if not pattern:
            raise ToolError("Error: give a non-empty pattern")
        try:
            find = compile_pattern(pattern, regex=regex)
        except InputError as exc:
            raise ToolError(f"Error: {exc}") from None
        start = _resolve(base, path)
        files = [start] if start.is_file() else _walk(start)
        hits: list[str] = []
        for file in files:
            try:
                if base not in file.resolve().parents:
                    continue  # a symlink leading out of the root
                data = _read_regular(file)
            except OSError:
                continue
            if data is None:
                continue
            if b"\0" in data[:8192]:
                continue
            for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
                if find(line[:1000]) is not None:
                    hits.append(f"{_shown(base, file)}:{number}: {line.strip()[:200]}")
                    if len(hits) >= max(1, max_results):
                        hits.append(f"... stopped at {len(hits)} matches (raise max_results or narrow path)")
                        return "\n".join(hits)
        return "\n".join(hits) if hits else "(no matches)"

    tools = [Tool.from_function(read_file), Tool.from_function(list_directory), Tool.from_function(search_text)]
    if allow_shell:

        async def run_command(command: str, timeout: float = shell_timeout) -> str:
            """Run a shell command in the project root; returns its exit code and combined output.

            Args:
                command: the command line, run by /bin/sh.
                timeout: seconds before the command is killed.

            """
            process = await asyncio.create_subprocess_shell(
                command,
                cwd=base,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                out, _ = await asyncio.wait_for(process.communicate(), timeout=max(0.1, timeout))
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # the whole group: the shell and what it started
                await process.wait()
                raise ToolError(f"Error: the command did not finish within {timeout:g} s and was killed") from None
            text = out.decode("utf-8", "replace")
            if len(text) > MAX_OUTPUT_CHARS:
                text = text[:MAX_OUTPUT_CHARS] + f"\n... ({len(text) - MAX_OUTPUT_CHARS} more characters cut)"
            return f"exit code {process.returncode}\n{text}"

        tools.append(Tool.from_function(run_command))
    return tools


def _read_regular(file: Path) -> bytes | None:
    """The bytes of a regular file of at most `MAX_SEARCH_FILE_BYTES`; None for anything else (never blocks)."""
    fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SEARCH_FILE_BYTES:
            return None
        return fh.read(MAX_SEARCH_FILE_BYTES + 1)


def _walk(start: Path) -> list[Path]:
    """Regular files under ``start`` in a stable order, skipping VCS, virtualenv and cache directories."""
    out: list[Path] = []
    for directory, dirs, files in os.walk(start):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        out.extend(Path(directory) / name for name in sorted(files))
    return out
