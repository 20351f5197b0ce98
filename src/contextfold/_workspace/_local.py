"""`LocalWorkspace`: the default offloader, one directory per session on local disk.

Layout of a session directory (``ROOT/SESSION_ID/``)::

    index.jsonl                 one OffloadRef record per line, in write order
    tool_results/<stamp>-<rand>.txt     cut-off tool output, UTF-8 text
    context/<stamp>-<rand>.jsonl        archived messages, canonical JSONL (`_codec`)
    media/<stamp>-<rand>.<ext>          decoded media bytes (media type in the index)
    media/<stamp>-<rand>.block.json     a data block that cannot be stored as plain bytes
    */.tmp-*                            a write in progress (or killed); always ignored

Why it is safe:

* A content file is written to a temporary file, fsynced, renamed into place
  and the directory fsynced; only then is its index line appended. So an
  index line always points at a complete file, and a crash leaves at worst a
  temp file or a complete file the index does not list.
* Index lines are appended with one ``write`` on an ``O_APPEND`` descriptor
  and fsynced. A torn last line (crash mid-append) is ignored on read, and
  the next append starts on a fresh line.
* File names carry a timestamp and a random part, so several asyncio tasks,
  or two processes, can write to the same session (or to different sessions
  of one root) without coordination or locks.
* Any ``OSError`` (disk full, read-only file system) becomes `WorkspaceError`
  with the ``OSError`` as ``__cause__``; the partial file is removed and the
  index is untouched, so the caller can keep the content in the context.

Text that is not valid Unicode (lone surrogates in a Python ``str``) is
encoded with ``surrogatepass`` and decoded the same way, so it reads back
exactly; such a file is not strictly valid UTF-8.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import json
import os
import re
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath

from contextfold._errors import ConfigError, InputError, PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import (
    block_from_dict,
    block_to_dict,
    dumps_canonical,
    messages_from_jsonl,
    messages_to_jsonl_chunks,
)
from contextfold._workspace._naming import _BLOCK_SUFFIX, _SUBDIRS, _extension, _plain_media_bytes
from contextfold._workspace._offload import OffloadKind, OffloadRef

__all__ = ["INDEX_NAME", "MAX_PATH_CHARS", "TEMP_PREFIX", "LocalWorkspace"]

INDEX_NAME = "index.jsonl"
TEMP_PREFIX = ".tmp-"
MAX_PATH_CHARS = 1024
"""Longest workspace-relative path a read-back tool accepts (each component at most 255 bytes)."""
INDEX_VERSION = 1
TOOL_RESULT_MEDIA_TYPE = "text/plain; charset=utf-8"
CONTEXT_MEDIA_TYPE = "application/jsonl"
_SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_session_id(now: datetime) -> str:
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{uuid.uuid4().hex[:8]}"


class LocalWorkspace:
    """A session directory under ``root`` that stores offloaded content; implements `Offloader`.

    ``session_id`` defaults to a fresh ``<UTC time>-<random>`` id. Nothing is
    created on disk until the first write, so opening a workspace never fails
    on a read-only disk; writing does, with `WorkspaceError`.
    """

    def __init__(
        self,
        root: Path | str,
        session_id: str | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._clock = clock or _utc_now
        if session_id is None:
            session_id = _new_session_id(self._clock().astimezone(UTC))
        if not _SESSION_RE.fullmatch(session_id):
            raise ConfigError(
                f"session_id {session_id!r} must be 1-128 characters of letters, digits, '.', '_' or '-'"
                " and start with a letter or digit"
            )
        self._root = Path(root)
        self._session_id = session_id
        self._dir = self._root / session_id

    @classmethod
    def open(cls, session_dir: Path | str) -> LocalWorkspace:
        """Open an existing session directory (``ROOT/SESSION_ID``) for reading or writing."""
        path = Path(session_dir)
        if not path.is_dir():
            raise InputError("not a directory", source=str(path))
        return cls(path.parent, path.name)

    @staticmethod
    def sessions(root: Path | str) -> list[str]:
        """The session ids under ``root`` that have an index, sorted."""
        base = Path(root)
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if (p / INDEX_NAME).is_file())

    @property
    def root(self) -> Path:
        return self._root

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def session_dir(self) -> Path:
        """The directory holding this session's files and index."""
        return self._dir

    # -- writing (Offloader) -------------------------------------------------------------------

    async def offload_data(self, block: DataBlock) -> OffloadRef:
        """Store a media block: inline base64 as decoded bytes, anything else as the block's JSON."""
        return await asyncio.to_thread(self.offload_data_sync, block)

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        """Archive messages as canonical JSONL (exact round trip, ``meta`` included)."""
        return await asyncio.to_thread(self.offload_context_sync, messages, message_range=message_range)

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """Store the cut-off part of a tool result as a text file."""
        return await asyncio.to_thread(self.offload_tool_result_sync, text, call_id=call_id, tool_name=tool_name)

    def offload_data_sync(self, block: DataBlock) -> OffloadRef:
        """Blocking form of `offload_data` (the async method runs it in a thread)."""
        payload = _plain_media_bytes(block)
        if payload is None:
            data = (dumps_canonical(block_to_dict(block)) + "\n").encode("utf-8")
            suffix = _BLOCK_SUFFIX
        else:
            data = payload
            suffix = _extension(block.media_type)
        return self._store("media", suffix, lambda: data, media_type=block.media_type, media=block.media)

    def offload_context_sync(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        """Blocking form of `offload_context`."""
        if message_range is not None and not (0 <= message_range[0] <= message_range[1]):
            raise ConfigError(f"message_range {message_range} must be (start, stop) with 0 <= start <= stop")
        msgs = list(messages)
        return self._store(
            "context",
            ".jsonl",
            lambda: messages_to_jsonl_chunks(msgs),
            media_type=CONTEXT_MEDIA_TYPE,
            message_range=message_range,
        )

    def offload_tool_result_sync(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """Blocking form of `offload_tool_result`."""
        return self._store(
            "tool_result",
            ".txt",
            lambda: text.encode("utf-8", "surrogatepass"),
            media_type=TOOL_RESULT_MEDIA_TYPE,
            call_id=call_id,
            tool_name=tool_name,
        )

    def _store(
        self,
        kind: OffloadKind,
        suffix: str,
        payload: Callable[[], bytes | Sequence[bytes]],
        *,
        media_type: str | None,
        message_range: tuple[int, int] | None = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        media: str | None = None,
    ) -> OffloadRef:
        created = self._clock().astimezone(UTC)
        name = f"{created.strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:12]}{suffix}"
        subdir = _SUBDIRS[kind]
        rel = f"{subdir}/{name}"
        directory = self._dir / subdir
        tmp = directory / f"{TEMP_PREFIX}{name}"
        final = directory / name
        renamed = False
        produced = payload()
        chunks: Sequence[bytes] = (produced,) if isinstance(produced, bytes) else produced
        try:
            directory.mkdir(parents=True, exist_ok=True)
            _write_file(tmp, chunks)
            os.replace(tmp, final)
            renamed = True
            _fsync_dir(directory)
            ref = OffloadRef(
                path=rel,
                kind=kind,
                size=sum(len(chunk) for chunk in chunks),
                created=created.isoformat(),
                message_range=message_range,
                tool_name=tool_name,
                call_id=call_id,
                media_type=media_type,
                media=media,
            )
            record = dict(ref.to_dict(), v=INDEX_VERSION)
            _append_line(self._dir / INDEX_NAME, (dumps_canonical(record) + "\n").encode("utf-8"))
        except BaseException as exc:
            _remove_quietly(tmp)
            if renamed:
                _remove_quietly(final)
            if isinstance(exc, OSError):
                reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
                raise WorkspaceError(f"cannot write {rel} to workspace {self._dir}: {reason}") from exc
            raise
        return ref

    # -- reading -------------------------------------------------------------------------------

    def items(self) -> list[OffloadRef]:
        """Every item of the session in write order, from the index.

        Lines that do not parse (a torn last line after a crash) are skipped;
        so are records whose path would leave the session directory.
        """
        try:
            raw = (self._dir / INDEX_NAME).read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise WorkspaceError(f"cannot read the index of workspace {self._dir}: {exc.strerror}") from exc
        refs: list[OffloadRef] = []
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    continue
                ref = OffloadRef.from_dict(record)
                _check_relative(ref.path)
            except (ValueError, PathRefusedError):
                continue
            refs.append(ref)
        return refs

    def find(self, path: str) -> OffloadRef | None:
        """The index entry for a workspace-relative path, if there is one."""
        for ref in self.items():
            if ref.path == path:
                return ref
        return None

    def resolve(self, path: str | OffloadRef) -> Path:
        """The absolute file path of a workspace-relative path, confined to the session directory.

        Refuses (`PathRefusedError`) empty paths, NUL bytes, over-long paths,
        absolute paths, ``..`` components, backslashes, temp files, and paths
        whose real location (after symlinks) is outside the session directory.
        """
        rel = path.path if isinstance(path, OffloadRef) else path
        parts = _check_relative(rel)
        candidate = self._dir.joinpath(*parts)
        base = os.path.realpath(self._dir)
        real = os.path.realpath(candidate)
        if real != base and not real.startswith(base + os.sep):
            raise PathRefusedError(f"path {rel!r} refused: it resolves outside the session workspace (symlink)")
        return Path(real)

    def read_bytes(self, path: str | OffloadRef) -> bytes:
        """The exact stored bytes of an item."""
        target = self.resolve(path)
        try:
            return target.read_bytes()
        except OSError as exc:
            raise _read_error(path, exc) from exc

    def read_text(self, path: str | OffloadRef) -> str:
        """An item as text (UTF-8 with ``surrogatepass``: what `offload_tool_result` was given)."""
        data = self.read_bytes(path)
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            raise WorkspaceError(f"{_rel(path)} is not text (binary content)") from exc

    def read_messages(self, path: str | OffloadRef) -> list[Message]:
        """The messages of an archived context item, exactly as they were offloaded."""
        return messages_from_jsonl(self.read_text(path), source=_rel(path))

    def read_data_block(self, path: str | OffloadRef) -> DataBlock:
        """Rebuild the data block an item was offloaded from."""
        rel = _rel(path)
        if rel.endswith(_BLOCK_SUFFIX):
            block = block_from_dict(json.loads(self.read_text(path)))
            if not isinstance(block, DataBlock):
                raise WorkspaceError(f"{rel} does not hold a data block")
            return block
        ref = path if isinstance(path, OffloadRef) else self.find(rel)
        if ref is None or ref.kind != "media":
            raise WorkspaceError(f"{rel} is not a media item of this workspace")
        media = ref.media if ref.media in ("image", "audio", "document") else "document"
        data = base64.b64encode(self.read_bytes(ref)).decode("ascii")
        return DataBlock(media=media, media_type=ref.media_type, data=data)  # type: ignore[arg-type]


def _rel(path: str | OffloadRef) -> str:
    return path.path if isinstance(path, OffloadRef) else path


def _check_relative(rel: object) -> list[str]:
    """Validate a workspace-relative path lexically and return its components."""
    if not isinstance(rel, str):
        raise PathRefusedError(f"path must be a string, got {type(rel).__name__}")
    if not rel:
        raise PathRefusedError("path refused: it is empty")
    if "\x00" in rel:
        raise PathRefusedError("path refused: it contains a NUL byte")
    if len(rel) > MAX_PATH_CHARS:
        raise PathRefusedError(f"path refused: {len(rel)} characters is longer than the {MAX_PATH_CHARS} allowed")
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        raise PathRefusedError("path refused: it is not valid Unicode") from None
    if rel.startswith(("/", "~")) or PureWindowsPath(rel).drive:
        raise PathRefusedError(f"path {rel!r} refused: absolute paths are not allowed; use a workspace-relative path")
    if "\\" in rel:
        raise PathRefusedError(f"path {rel!r} refused: backslashes are not allowed; use '/'")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PathRefusedError(f"path {rel!r} refused: '..' would leave the session workspace")
    if not parts:
        raise PathRefusedError(f"path {rel!r} refused: it names the workspace itself, not an item")
    if any(len(p.encode("utf-8")) > 255 for p in parts):
        raise PathRefusedError("path refused: a component is longer than 255 bytes")
    if parts[-1].startswith(TEMP_PREFIX):
        raise PathRefusedError(f"path {rel!r} refused: it is an incomplete temporary file")
    return parts


def _read_error(path: str | OffloadRef, exc: OSError) -> WorkspaceError:
    if isinstance(exc, FileNotFoundError):
        return WorkspaceError(f"no item {_rel(path)!r} in this workspace")
    if isinstance(exc, IsADirectoryError):
        return WorkspaceError(f"{_rel(path)!r} is a directory, not an item")
    return WorkspaceError(f"cannot read {_rel(path)!r}: {exc.strerror or exc}")


def _write_file(path: Path, chunks: Sequence[bytes]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_all(fd, chunks)
        os.fsync(fd)
    finally:
        os.close(fd)


_IOV_MAX = 1024
"""Chunks per ``writev`` call (POSIX guarantees at least 16; Linux and macOS allow 1024)."""


def _write_all(fd: int, chunks: Sequence[bytes]) -> None:
    """Write ``chunks`` in order, in as few system calls as ``writev`` allows, resuming after short writes."""
    views = [memoryview(chunk) for chunk in chunks if chunk]
    first = 0
    while first < len(views):
        # os.writev is POSIX only; Windows writes one chunk per call.
        written = (
            os.writev(fd, views[first : first + _IOV_MAX]) if hasattr(os, "writev") else os.write(fd, views[first])
        )
        if written <= 0:
            raise OSError(errno.EIO, "the file system accepted no bytes")
        while written:
            size = len(views[first])
            if written < size:
                views[first] = views[first][written:]
                break
            written -= size
            first += 1


def _append_line(path: Path, line: bytes) -> None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a crash tore the last line: start ours on a fresh one
        view = memoryview(line)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory descriptors
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on directories
        pass
    finally:
        os.close(fd)


def _remove_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
