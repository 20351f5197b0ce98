r"""Files a user names: read them bounded, write them atomically, never clobber what is not a file.

Reading (`read_input`) takes a regular file or ``-`` for standard input,
never anything that does not end or may block: a FIFO, a device
(``/dev/zero`` through a symlink), a socket or a directory is refused after
``open`` (non-blocking, so a FIFO without a writer cannot hang it) by
``fstat`` on the opened descriptor (no race with a swapped path). At most
``max_bytes`` are read; more is an `InputError` that names the setting
raising the limit (the CLI passes ``--max-input-bytes``). Gzip data (found
by its magic bytes, not the suffix) is decompressed in bounded steps when
the caller reads transcripts, so a small bomb cannot expand past the same
limit; corrupt or truncated streams are `InputError`\ s too.

Writing (`OutputFile`) checks the target before any work is done: it must
be a new path or a regular file (not a symlink, FIFO, device or directory)
in an existing, writable directory. The temporary file it will be renamed
from is created right then, so an unwritable location fails before the
caller writes anything else (a workspace archive, say); the content is
written, fsynced and renamed over the target at `OutputFile.commit`, and the
temporary file is removed on any failure. Readers see the old file or the
new one, never half of either.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
import zlib
from collections.abc import Callable
from typing import BinaryIO, Self

from contextfold._errors import InputError

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "STDIN",
    "OutputFile",
    "decode_utf8",
    "escape_surrogates",
    "gunzip_bounded",
    "is_gzip",
    "read_input",
    "write_bytes_atomic",
]

DEFAULT_MAX_INPUT_BYTES = 512 * 1024 * 1024
"""Largest input read (and largest decompressed content): far above any real transcript, far below RAM."""
STDIN = "-"
"""The path that means standard input."""
_CHUNK = 1024 * 1024
_GZIP_STEP_IN = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _kind(mode: int) -> str:
    """What a non-regular file is, for the error message."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _source(path: str) -> str:
    return "<stdin>" if path == STDIN else path


def _too_large(limit: int, limit_name: str, what: str) -> str:
    return f"{what} more than the input limit of {limit:,} bytes; raise it with {limit_name}"


def read_input(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_INPUT_BYTES,
    decompress: bool = False,
    limit_name: str = "max_bytes",
    stdin: BinaryIO | None = None,
) -> bytes | bytearray:
    """The bytes of a regular file (or of standard input for ``-``), at most ``max_bytes`` of them.

    ``decompress``: gzip data is decompressed (bounded by ``max_bytes`` too);
    without it, gzip data is refused with a message saying so (the caller
    reads plain text). ``limit_name`` is what the error tells the user to
    raise. ``stdin``: the binary stream ``-`` reads (default: the process's).
    Every failure is an `InputError` naming the file.
    """
    name = os.fspath(path)
    source = _source(name)
    if name == STDIN:
        stream = stdin if stdin is not None else _stdin_buffer()
        data = _read_bounded(stream.read, max_bytes, limit_name, "standard input holds")
    else:
        data = _read_file(name, max_bytes, limit_name)
    if is_gzip(data):
        if not decompress:
            raise InputError(
                "the input is gzip-compressed, and this reads plain UTF-8 text; decompress it first "
                "(e.g. zcat FILE | contextfold ... -)",
                source=source,
            )
        return gunzip_bounded(data, max_bytes=max_bytes, limit_name=limit_name, source=source)
    return data


def _stdin_buffer() -> BinaryIO:
    buffer: BinaryIO | None = getattr(sys.stdin, "buffer", None)  # a replaced sys.stdin (tests, IDEs) may be text-only
    if buffer is not None:
        return buffer
    import io

    return io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))


def _read_file(path: str, max_bytes: int, limit_name: str) -> bytearray:
    try:
        # O_NONBLOCK: opening a FIFO without a writer must not hang; fstat below refuses it anyway.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=path) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                f"cannot read {_kind(info.st_mode)}: give a regular file, or - to read standard input", source=path
            )
        if info.st_size > max_bytes:
            raise InputError(_too_large(max_bytes, limit_name, f"the file is {info.st_size:,} bytes,"), source=path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return _read_bounded(fh.read, max_bytes, limit_name, "the file holds", source=path)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=path) from exc
    finally:
        os.close(fd)


def _read_bounded(
    read: Callable[[int], bytes], max_bytes: int, limit_name: str, what: str, *, source: str = "<stdin>"
) -> bytearray:
    """Read until EOF, failing as soon as more than ``max_bytes`` arrived (a file may grow while read).

    The result is the `bytearray` it was read into (no final copy: the peak stays near the input's size).
    """
    out = bytearray()
    while True:
        chunk = read(min(_CHUNK, max_bytes + 1 - len(out)))
        if not chunk:
            return out
        out += chunk
        if len(out) > max_bytes:
            raise InputError(_too_large(max_bytes, limit_name, what), source=source)


def is_gzip(data: bytes | bytearray) -> bool:
    """Whether ``data`` starts like a gzip stream."""
    return data[:2] == _GZIP_MAGIC


def gunzip_bounded(
    data: bytes | bytearray, *, max_bytes: int, limit_name: str = "max_bytes", source: str = "<input>"
) -> bytearray:
    """Decompress gzip ``data`` (several members too), never holding more than ``max_bytes`` plus a step of output.

    Input goes in 64 KiB pieces and output comes out at most 1 MiB per step, into one growing buffer that is
    returned as is, so memory stays near the output size whatever the ratio. Corrupt, truncated or oversized
    data is an `InputError`.
    """
    out = bytearray()
    view = memoryview(data)
    pos = 0
    while True:  # one gzip member per round
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            while not inflater.eof:
                at_end = pos >= len(view)
                pending: bytes = b"" if at_end else bytes(view[pos : pos + _GZIP_STEP_IN])
                pos += len(pending)
                produced = 0
                while not inflater.eof:  # until this piece is used up and no full step of output is pending
                    chunk = inflater.decompress(pending, _CHUNK)
                    out += chunk
                    produced += len(chunk)
                    if len(out) > max_bytes:
                        raise InputError(
                            _too_large(max_bytes, limit_name, "the gzip data decompresses to"), source=source
                        )
                    pending = inflater.unconsumed_tail
                    if not pending and len(chunk) < _CHUNK:
                        break
                if at_end and not produced and not inflater.eof:
                    raise InputError("truncated gzip data: the stream ends before its last block", source=source)
                if inflater.eof:
                    pos -= len(inflater.unused_data)  # the start of the next member, or trailing bytes
        except zlib.error as exc:
            raise InputError(f"corrupt gzip data: {exc}", source=source) from None
        rest = view[pos:]
        if not bytes(rest).strip(b"\x00"):  # gzip itself ignores trailing zero padding
            return out
        if not is_gzip(bytes(rest[:2])):
            raise InputError("corrupt gzip data: trailing bytes after the last gzip member", source=source)


def decode_utf8(data: bytes | bytearray, *, source: str, what: str = "") -> str:
    """``data`` as UTF-8 text; invalid bytes are an `InputError` with byte offset, line and column.

    ``what``: how the message names the input (``--base-file``); empty for the file itself.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        prefix = f"{what} is not UTF-8 text" if what else "not UTF-8 text"
        raise InputError(
            f"{prefix}: invalid byte 0x{data[start]:02x} at byte offset {start}",
            source=source,
            line=line,
            column=column,
        ) from None


def escape_surrogates(text: str) -> str:
    r"""``text`` with each lone surrogate written as its ``\uXXXX`` escape, so UTF-8 can carry it.

    A lone surrogate (valid in JSON, ``"\ud800"``) cannot be encoded as UTF-8.
    In JSON text produced with ``ensure_ascii=False`` it can only sit inside a
    string, where the escape reads back as the same code point; in plain
    output it shows what the input held. Text without one is returned as is.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


# ---------------------------------------------------------------------------------------------- writing


class OutputFile:
    """A file about to be written atomically at ``path``; checked, and its temporary file made, on creation.

    Use as a context manager: ``with OutputFile(path) as out: ...; out.commit(data)``. Leaving the block
    without a commit (an error) removes the temporary file and leaves ``path`` as it was.
    """

    def __init__(self, path: str | os.PathLike[str], *, what: str = "the output") -> None:
        self.path = os.fspath(path)
        self._what = what
        self._mode = 0o644  # a new file; not 0o666 & ~umask: reading the umask means changing it, which races threads
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise InputError(f"cannot use {what}: {exc.strerror or exc}", source=self.path) from exc
        if info is not None:
            if stat.S_ISDIR(info.st_mode):
                raise InputError(f"{what} is a directory; give a file path", source=self.path)
            if not stat.S_ISREG(info.st_mode):
                raise InputError(
                    f"{what} is {_kind(info.st_mode)}, not a regular file; refusing to replace it "
                    "(give a new path or a regular file)",
                    source=self.path,
                )
            self._mode = info.st_mode & 0o7777
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            raise InputError(f"the output directory {directory!r} does not exist", source=self.path)
        try:
            fd, self._tmp = tempfile.mkstemp(
                dir=directory, prefix="." + os.path.basename(self.path) + ".", suffix=".tmp"
            )
        except OSError as exc:
            raise InputError(
                f"cannot write to the output directory {directory!r}: {exc.strerror or exc}", source=self.path
            ) from exc
        self._fh: BinaryIO | None = os.fdopen(fd, "wb")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    def commit(self, data: bytes) -> None:
        """Write ``data``, fsync it and rename it over the target (keeping an existing file's permission bits)."""
        fh = self._fh
        if fh is None:
            raise RuntimeError("OutputFile.commit after commit or discard")
        try:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            self._fh = None
            os.chmod(self._tmp, self._mode)
            os.replace(self._tmp, self.path)
        except OSError as exc:
            self.discard()
            raise InputError(f"cannot write {self._what}: {exc.strerror or exc}", source=self.path) from exc
        self._tmp = ""

    def discard(self) -> None:
        """Remove the temporary file (nothing happens after a commit)."""
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None
        if self._tmp:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._tmp)
            self._tmp = ""


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, what: str = "the output") -> None:
    """Check ``path`` (see `OutputFile`) and write ``data`` there atomically."""
    with OutputFile(path, what=what) as out:
        out.commit(data)
