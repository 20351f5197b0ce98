"""The layered system prompt: base + project instructions + agent description + extras.

The system prompt is the prefix every request shares, so it must be
byte-identical from call to call or the provider's prompt cache misses. The
builder assembles the layers in a fixed order with fixed separators and no
hidden inputs (no time, no environment): same inputs, same bytes. Anything
that changes per turn belongs in a runtime hint instead (`contextfold._runtime._hints`).

`discover` is the only part that touches the filesystem: it finds the project
files, refuses what it should not read (not a regular file, or resolving
outside the directory), caps each at 64 KiB, and hands text to the pure
assembly.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from contextfold._errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "AGENT_FILES",
    "INSTRUCTION_FILES",
    "MAX_PROMPT_FILE_BYTES",
    "DiscoveredLayers",
    "PromptFile",
    "SkippedFile",
    "SystemPromptBuilder",
    "decode_prompt_bytes",
    "discover",
]

MAX_PROMPT_FILE_BYTES = 64 * 1024
"""Read at most this much of each prompt file; the rest is cut with a visible note."""

INSTRUCTION_FILES: tuple[str, ...] = ("CLAUDE.md", ".contextfold/instructions.md", ".claude/instructions.md")
"""Project instruction files, highest priority first; the first non-empty one wins."""

AGENT_FILES: tuple[str, ...] = ("AGENTS.md", ".contextfold/agents.md", "agents.md")
"""Agent description files, highest priority first; the first non-empty one wins."""

Category = Literal["instructions", "agent"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptFile:
    """A prompt layer read from a file, with what had to be done to it."""

    relative: str
    """Path relative to the discovered directory, with ``/`` separators (stable across machines)."""
    text: str
    """The text as it enters the prompt, notes included."""
    size: int
    """The file's full size in bytes."""
    truncated: bool = False
    """Cut at the size cap (a visible note says so)."""
    replaced_invalid_utf8: bool = False
    """Bytes that are not UTF-8 were replaced by U+FFFD (a visible note says so)."""


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A candidate file that exists but was not used, and why."""

    relative: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveredLayers:
    """What `discover` found in a directory."""

    instructions: PromptFile | None = None
    agent: PromptFile | None = None
    skipped: tuple[SkippedFile, ...] = ()


def _clean(text: str) -> str:
    """Normalise line endings and surrounding blank lines, so editors' habits do not change the bytes."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()


@dataclass(frozen=True, slots=True)
class SystemPromptBuilder:
    """Assembles the system prompt from its layers in a fixed order.

    Order: base, project instructions, agent description, extras. Each layer
    after the base is wrapped in a tag naming it (with the source file when it
    came from one), so its boundaries stay clear even when it contains its own
    headings. Empty layers are left out.
    """

    base: str
    instructions: str | PromptFile | None = field(default=None, kw_only=True)
    agent: str | PromptFile | None = field(default=None, kw_only=True)
    extras: Sequence[str] = field(default=(), kw_only=True)

    @classmethod
    def from_discovered(cls, base: str, layers: DiscoveredLayers, *, extras: Sequence[str] = ()) -> SystemPromptBuilder:
        """A builder using the files `discover` found."""
        return cls(base, instructions=layers.instructions, agent=layers.agent, extras=tuple(extras))

    def sections(self) -> list[tuple[str, str]]:
        """The non-empty layers as ``(name, rendered text)`` pairs, in prompt order."""
        out: list[tuple[str, str]] = []
        base = _clean(self.base)
        if base:
            out.append(("base", base))
        for name, tag, layer in (
            ("instructions", "project-instructions", self.instructions),
            ("agent", "agent-description", self.agent),
        ):
            if layer is None:
                continue
            text, source = (layer.text, layer.relative) if isinstance(layer, PromptFile) else (layer, None)
            body = _clean(text)
            if body:
                attr = f' source="{source}"' if source else ""
                out.append((name, f"<{tag}{attr}>\n{body}\n</{tag}>"))
        for extra in self.extras:
            body = _clean(extra)
            if body:
                out.append(("extra", f"<extra-context>\n{body}\n</extra-context>"))
        return out

    def build(self) -> str:
        """The system prompt: the sections separated by one blank line."""
        return "\n\n".join(text for _, text in self.sections())


def _is_continuation(byte: int) -> bool:
    return (byte & 0xC0) == 0x80


def decode_prompt_bytes(data: bytes, *, size: int, relative: str, limit: int = MAX_PROMPT_FILE_BYTES) -> PromptFile:
    """Turn the first bytes of a prompt file into text (pure).

    ``data`` holds at least ``min(size, limit + 1)`` bytes of the file. Beyond
    ``limit`` the text is cut at a UTF-8 character boundary; invalid UTF-8 is
    replaced. Both leave a visible note, so neither the model nor the user is
    misled by a silently shortened or altered file.
    """
    truncated = size > limit or len(data) > limit
    if truncated:
        cut = min(limit, len(data))
        if cut < len(data):
            # data[cut] is the first byte left out; if it continues a character, cut before that
            # character's lead byte (at most 3 bytes back) so that no character is split.
            back = cut
            while back > cut - 3 and back > 0 and _is_continuation(data[back]):
                back -= 1
            if not _is_continuation(data[back]):
                cut = back
        data = data[:cut]
    try:
        text = data.decode("utf-8")
        replaced = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        replaced = True
    notes: list[str] = []
    if replaced:
        notes.append(f"[contextfold: {relative} is not valid UTF-8; undecodable bytes were replaced by U+FFFD]")
    if truncated:
        notes.append(
            f"[contextfold: {relative} truncated: showing the first {len(data):,} of {max(size, len(data)):,} bytes]"
        )
    if notes:
        text = text.rstrip() + "\n\n" + "\n".join(notes)
    return PromptFile(
        relative=relative, text=text, size=max(size, len(data)), truncated=truncated, replaced_invalid_utf8=replaced
    )


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _read_candidate(root: Path, relative: str, limit: int) -> PromptFile | SkippedFile | None:
    """Read one candidate: a `PromptFile`, a `SkippedFile` with the reason, or ``None`` if absent."""
    path = root / relative
    if not os.path.lexists(path):
        return None
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:  # dangling or looping symlink
        return SkippedFile(relative, f"cannot resolve ({type(exc).__name__}: {exc})")
    if not _is_within(resolved, root):
        return SkippedFile(relative, f"resolves outside the directory (to {resolved})")
    try:
        # O_NONBLOCK: opening a FIFO must not hang; fstat below refuses it anyway.
        fd = os.open(resolved, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        return SkippedFile(relative, f"cannot open ({exc.strerror or exc})")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return SkippedFile(relative, "not a regular file")
        chunks: list[bytes] = []
        want = limit + 1
        while want > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
    except OSError as exc:
        return SkippedFile(relative, f"cannot read ({exc.strerror or exc})")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    prompt = decode_prompt_bytes(data, size=max(info.st_size, len(data)), relative=relative, limit=limit)
    if not _clean(prompt.text):
        return SkippedFile(relative, "empty")
    return prompt


def discover(directory: str | os.PathLike[str], *, limit: int = MAX_PROMPT_FILE_BYTES) -> DiscoveredLayers:
    """Find the project instructions and agent description in ``directory``.

    Per category the first non-empty file in priority order wins (see
    `INSTRUCTION_FILES`, `AGENT_FILES`). Files that exist but are refused
    (not a regular file, resolving outside the directory, unreadable, empty)
    are recorded in ``skipped`` with the reason; discovery never fails on them.
    Raises `InputError` if ``directory`` itself is not a directory.
    """
    from pathlib import Path  # here, not at import: pathlib loads urllib.parse, ipaddress and fnmatch

    root_path = Path(directory)
    if not root_path.is_dir():
        raise InputError("not a directory", source=str(directory))
    root = root_path.resolve()
    found: dict[Category, PromptFile | None] = {"instructions": None, "agent": None}
    skipped: list[SkippedFile] = []
    categories: tuple[tuple[Category, tuple[str, ...]], ...] = (
        ("instructions", INSTRUCTION_FILES),
        ("agent", AGENT_FILES),
    )
    for category, candidates in categories:
        for relative in candidates:
            result = _read_candidate(root, relative, limit)
            if isinstance(result, SkippedFile):
                skipped.append(result)
            elif isinstance(result, PromptFile):
                found[category] = result
                break
    return DiscoveredLayers(instructions=found["instructions"], agent=found["agent"], skipped=tuple(skipped))
