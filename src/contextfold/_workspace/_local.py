"""`LocalWorkspace`: the default offloader, one directory per session on local disk.

Layout of a session directory (``ROOT/SESSION_ID/``)::

    index.jsonl                 one OffloadRef record per offload, in write order
    tool_results/<h>.txt        tool output, UTF-8 text
    context/<h>.jsonl           archived messages, canonical JSONL (`_codec`)
    media/<h>.<ext>             decoded media bytes (media type in the index)
    media/<h>.block.json        a data block that cannot be stored as plain bytes
    */.tmp-*                    a write in progress (or killed); always ignored

Names are content-addressed (`_naming`): ``<h>`` is a digest of the item's
content, so the same content offloaded twice is stored once (each offload
still appends its own index record: who offloaded it, when, which range) and
the same input always gives the same names. The time lives in the index only.

Why it is safe:

* A content file is written to a temporary file, fsynced, renamed into place
  and the directory fsynced; only then is its index line appended. So an
  index line always points at a complete file, and a crash leaves at worst a
  temp file or a complete file the index does not list.
* Index lines are appended with one ``write`` on an ``O_APPEND`` descriptor
  and fsynced. A torn last line (crash mid-append) is ignored on read, and
  the next append starts on a fresh line.
* Temporary names carry a random part and final names depend only on the
  content, so several asyncio tasks, or two processes, can write to the same
  session (or to different sessions of one root) without coordination or
  locks: two writers of the same content rename identical bytes into place.
* When the name is already taken, the bytes are compared before the item is
  reused; different bytes (a digest collision, or a file someone edited) make
  the item go under the full 64-digit digest instead.
* Any ``OSError`` (disk full, read-only file system) becomes `WorkspaceError`
  with the ``OSError`` as ``__cause__``; the partial file is removed (a file
  an earlier offload already stored is kept) and the index is untouched, so
  the caller can keep the content in the context.

Reading is just as careful, because a session directory can hold things the
workspace never wrote (a FIFO, a hard link to a file elsewhere, a symlink):
`LocalWorkspace.open_item` walks the path one component at a time with
``O_NOFOLLOW`` (no symlink is followed, not even one that stays inside),
opens the file with ``O_NONBLOCK`` (a FIFO cannot block the open), and keeps
it only when ``fstat`` says it is a regular file with exactly one link. The
index itself is opened the same way, for reading and for appending.

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
import stat
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path, PureWindowsPath
from typing import BinaryIO, Protocol

from contextfold._errors import ConfigError, InputError, PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import block_from_dict, dumps_canonical, messages_from_jsonl
from contextfold._workspace._naming import (
    _BLOCK_SUFFIX,
    SUBDIRS,
    Payload,
    payload_for_context,
    payload_for_media,
    payload_for_tool_result,
)
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
_O_SAFE = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
"""Flags of every open of a workspace file: never follow a symlink, never block on a FIFO or device."""
_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_COMPARE_CHUNK = 1 << 20


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_session_id(now: datetime) -> str:
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{uuid.uuid4().hex[:8]}"


class LocalWorkspace:
    """A session directory under ``root`` that stores offloaded content; implements `Offloader`.

    ``session_id`` defaults to a fresh ``<UTC time>-<random>`` id (the model
    never sees it: item paths are relative to the session directory). Nothing
    is created on disk until the first write, so opening a workspace never
    fails on a read-only disk; writing does, with `WorkspaceError`.

    ``durable=False`` skips the three ``fsync`` calls of a write (the disk's
    flush latency, on the caller's path): writes stay atomic and survive the process being killed,
    but the newest items may be lost if the machine itself goes down. The
    proxy uses it: the client keeps the whole history, and its SQLite store
    makes the same promise (WAL with ``synchronous=NORMAL``). Without a flush to
    wait for, a tool result is written on the caller's thread, even from
    `offload_tool_result_payload` (a copy into the page cache costs less than
    the hop to a worker thread and back); archives still go to a thread.
    """

    def __init__(
        self,
        root: Path | str,
        session_id: str | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        durable: bool = True,
    ) -> None:
        self._clock = clock or _utc_now
        self._durable = durable
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

    @classmethod
    def open_sessions(cls, directory: Path | str) -> list[LocalWorkspace]:
        """The session ``directory`` is (it holds an index), or every session of the workspace root it is.

        Sessions of a root come sorted by id. `InputError` when ``directory`` is not a directory, or neither
        it nor a sub-directory holds an index.
        """
        path = Path(directory)
        if not path.is_dir():
            raise InputError("not a directory", source=str(directory))
        if (path / INDEX_NAME).is_file():
            return [cls.open(path)]
        ids = cls.sessions(path)
        if not ids:
            raise InputError(
                f"no workspace here (no {INDEX_NAME} in it or in its sub-directories)", source=str(directory)
            )
        return [cls(path, sid) for sid in ids]

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
        """Store a tool result's text as a text file."""
        return await asyncio.to_thread(self.offload_tool_result_sync, text, call_id=call_id, tool_name=tool_name)

    async def offload_tool_result_payload(self, payload: Payload, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """`offload_tool_result` for a text already encoded and named (`payload_for_tool_result`).

        The split names the text before it cuts; handing the payload over saves encoding and hashing a large
        result a second time. Optional for other offloaders: the split calls it only where it exists.
        """
        if payload.kind != "tool_result":
            raise ConfigError(f"offload_tool_result_payload takes a tool_result payload, got {payload.kind!r}")
        if not self._durable:  # no fsync to wait for: inline (see the class docstring)
            return self._store(payload, media_type=TOOL_RESULT_MEDIA_TYPE, call_id=call_id, tool_name=tool_name)
        return await asyncio.to_thread(
            self._store, payload, media_type=TOOL_RESULT_MEDIA_TYPE, call_id=call_id, tool_name=tool_name
        )

    def offload_data_sync(self, block: DataBlock) -> OffloadRef:
        """Blocking form of `offload_data` (the async method runs it in a thread)."""
        return self._store(payload_for_media(block), media_type=block.media_type, media=block.media)

    def offload_context_sync(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        """Blocking form of `offload_context`."""
        if message_range is not None and not (0 <= message_range[0] <= message_range[1]):
            raise ConfigError(f"message_range {message_range} must be (start, stop) with 0 <= start <= stop")
        return self._store(payload_for_context(messages), media_type=CONTEXT_MEDIA_TYPE, message_range=message_range)

    def offload_tool_result_sync(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """Blocking form of `offload_tool_result`."""
        return self._store(
            payload_for_tool_result(text), media_type=TOOL_RESULT_MEDIA_TYPE, call_id=call_id, tool_name=tool_name
        )

    def _store(
        self,
        payload: Payload,
        *,
        media_type: str | None,
        message_range: tuple[int, int] | None = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        media: str | None = None,
    ) -> OffloadRef:
        created = self._clock().astimezone(UTC)
        rel = payload.path
        created_file: Path | None = None
        try:
            directory = self._subdir(payload.kind)
            held = self._holds(rel, payload)
            if held is False:  # the short name holds other bytes: a collision (or an edited file)
                rel = payload.full_path
                held = self._holds(rel, payload)
            if not held:
                created_file = self._write_item(directory, rel.rsplit("/", 1)[1], payload.chunks)
            ref = OffloadRef(
                path=rel,
                kind=payload.kind,
                size=payload.size,
                created=created.isoformat(),
                message_range=message_range,
                tool_name=tool_name,
                call_id=call_id,
                media_type=media_type,
                media=media,
            )
            record = dict(ref.to_dict(), v=INDEX_VERSION)
            _append_line(self._dir / INDEX_NAME, (dumps_canonical(record) + "\n").encode("utf-8"), self._durable)
        except BaseException as exc:
            if created_file is not None:
                _remove_quietly(created_file)
            if isinstance(exc, OSError):
                reason = exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))
                raise WorkspaceError(f"cannot write {rel} to workspace {self._dir}: {reason}") from exc
            raise
        return ref

    def _subdir(self, kind: OffloadKind) -> Path:
        """The directory of ``kind``, created if needed; refused if something planted a link or file there."""
        directory = self._dir / SUBDIRS[kind]
        directory.mkdir(parents=True, exist_ok=True)
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            raise OSError(errno.ENOTDIR, f"{directory.name} is not a plain directory (a symlink?)")
        return directory

    def _holds(self, rel: str, payload: Payload) -> bool | None:
        """Whether the item ``rel`` exists with exactly ``payload``'s bytes; None when there is no usable item."""
        try:
            with self.open_item(rel) as f:
                if os.fstat(f.fileno()).st_size != payload.size:
                    return False
                for chunk in payload.chunks:
                    view = memoryview(chunk)
                    while view:
                        got = f.read(min(len(view), _COMPARE_CHUNK))
                        if not got or got != view[: len(got)]:
                            return False
                        view = view[len(got) :]
                return not f.read(1)
        except WorkspaceError:  # missing, or planted (not a regular file): write ours over it
            return None

    def _write_item(self, directory: Path, name: str, chunks: Sequence[bytes]) -> Path:
        """Write a new item atomically (temp file, fsync, rename, directory fsync); returns its path."""
        tmp = directory / f"{TEMP_PREFIX}{uuid.uuid4().hex[:12]}-{name}"
        final = directory / name
        try:
            _write_file(tmp, chunks, self._durable)
            os.replace(tmp, final)
        except BaseException:
            _remove_quietly(tmp)
            raise
        if self._durable:
            _fsync_dir(directory)
        return final

    # -- reading -------------------------------------------------------------------------------

    def items(self) -> list[OffloadRef]:
        """Every offload of the session in write order, from the index (one record per offload).

        Content offloaded twice is stored once, so two records can share a
        path (each with its own time, call or message range). Lines that do
        not parse (a torn last line after a crash) are skipped; so are
        records whose path would leave the session directory.
        """
        try:
            with _open_regular(self._dir, [INDEX_NAME], INDEX_NAME) as f:
                raw = f.read()
        except WorkspaceError as exc:
            if isinstance(exc.__cause__, FileNotFoundError) or not self._dir.exists():
                return []
            raise WorkspaceError(f"cannot read the index of workspace {self._dir}: {exc}") from exc
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
        """The first index entry for a workspace-relative path, if there is one."""
        for ref in self.items():
            if ref.path == path:
                return ref
        return None

    def resolve(self, path: str | OffloadRef) -> Path:
        """The absolute file path of a workspace-relative path, confined to the session directory.

        Refuses (`PathRefusedError`) empty paths, NUL bytes, over-long paths,
        absolute paths, ``..`` components, backslashes, temp files, and paths
        whose real location (after symlinks) is outside the session directory.
        Reading goes through `open_item`, which refuses every symlink.
        """
        rel = path.path if isinstance(path, OffloadRef) else path
        parts = _check_relative(rel)
        candidate = self._dir.joinpath(*parts)
        base = os.path.realpath(self._dir)
        real = os.path.realpath(candidate)
        if real != base and not real.startswith(base + os.sep):
            raise PathRefusedError(f"path {rel!r} refused: it resolves outside the session workspace (symlink)")
        return Path(real)

    def open_item(self, path: str | OffloadRef) -> BinaryIO:
        """Open an item for reading: a regular file with one link, reached without following any symlink.

        Never blocks (a FIFO or device planted in the directory is refused, not
        opened for good). Raises `PathRefusedError` for paths that leave the
        workspace, symlinks, hard links and anything but regular files, and
        `WorkspaceError` for missing items.
        """
        rel = _rel(path)
        return _open_regular(self._dir, _check_relative(rel), rel)

    def read_bytes(self, path: str | OffloadRef) -> bytes:
        """The exact stored bytes of an item."""
        with self.open_item(path) as f:
            try:
                return f.read()
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
        return data_block_of(self, path, _rel(path))


class _ItemReader(Protocol):
    """What rebuilding a data block needs of a workspace (the local one and the object one)."""

    def find(self, path: str) -> OffloadRef | None: ...
    def read_bytes(self, path: str | OffloadRef) -> bytes: ...
    def read_text(self, path: str | OffloadRef) -> str: ...


def data_block_of(workspace: _ItemReader, path: str | OffloadRef, rel: str) -> DataBlock:
    """The data block item ``rel`` (``path`` as given) was offloaded from: a whole block, or media bytes."""
    if rel.endswith(_BLOCK_SUFFIX):
        block = block_from_dict(json.loads(workspace.read_text(rel)))
        if not isinstance(block, DataBlock):
            raise WorkspaceError(f"{rel} does not hold a data block")
        return block
    ref = path if isinstance(path, OffloadRef) and path.media_type else workspace.find(rel)
    if ref is None or ref.kind != "media":
        raise WorkspaceError(f"{rel} is not a media item of this workspace")
    media = ref.media if ref.media in ("image", "audio", "document") else "document"
    data = base64.b64encode(workspace.read_bytes(rel)).decode("ascii")
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


def _open_regular(base: Path, parts: Sequence[str], rel: str) -> BinaryIO:
    """Open ``base/parts...`` read-only: no symlink followed below ``base``, no blocking, a regular file, one link.

    ``base`` itself (the session directory the user chose) may be reached through symlinks.
    """
    try:
        dir_fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _read_error(rel, exc) from exc
    fd = -1
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, _O_DIR, dir_fd=dir_fd)
            except OSError as exc:
                raise _open_error(rel, exc, _is_symlink(part, dir_fd)) from exc
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            fd = os.open(parts[-1], os.O_RDONLY | _O_SAFE, dir_fd=dir_fd)
        except OSError as exc:
            raise _open_error(rel, exc, _is_symlink(parts[-1], dir_fd)) from exc
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise WorkspaceError(f"{rel!r} is a directory, not an item")
        if not stat.S_ISREG(info.st_mode):
            raise PathRefusedError(f"path {rel!r} refused: it is a {_file_type(info.st_mode)}, not a regular file")
        if info.st_nlink != 1:
            raise PathRefusedError(
                f"path {rel!r} refused: it has {info.st_nlink} hard links (a workspace item has exactly one;"
                " a hard link can expose a file from outside the workspace)"
            )
        f = os.fdopen(fd, "rb")
        fd = -1
        return f
    finally:
        os.close(dir_fd)
        if fd >= 0:
            os.close(fd)


def _file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _is_symlink(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_error(rel: str, exc: OSError, symlink: bool) -> WorkspaceError:
    # O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on FreeBSD); with O_DIRECTORY, Linux says ENOTDIR.
    if symlink:
        return PathRefusedError(
            f"path {rel!r} refused: it goes through a symbolic link, which could lead outside the session workspace"
        )
    if exc.errno == errno.ENOTDIR:
        return WorkspaceError(f"no item {rel!r} in this workspace")
    return _read_error(rel, exc)


def _read_error(path: str | OffloadRef, exc: OSError) -> WorkspaceError:
    if isinstance(exc, FileNotFoundError):
        return WorkspaceError(f"no item {_rel(path)!r} in this workspace")
    if isinstance(exc, IsADirectoryError):
        return WorkspaceError(f"{_rel(path)!r} is a directory, not an item")
    return WorkspaceError(f"cannot read {_rel(path)!r}: {exc.strerror or exc}")


def _write_file(path: Path, chunks: Sequence[bytes], durable: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_SAFE, 0o644)
    try:
        _write_all(fd, chunks)
        if durable:
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


def _append_line(path: Path, line: bytes, durable: bool) -> None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | _O_SAFE, 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            what = "has more than one hard link" if stat.S_ISREG(info.st_mode) else f"is a {_file_type(info.st_mode)}"
            raise OSError(errno.EPERM, f"{path.name} {what}, not the workspace's own index file")
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a crash tore the last line: start ours on a fresh one
        view = memoryview(line)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if durable:
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
