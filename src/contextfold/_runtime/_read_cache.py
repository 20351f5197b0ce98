"""The file read cache: which files the context already shows, and since when.

Tools like ``read_file`` can skip re-sending a file the model has already
seen ("file X at mtime T is in context"). That belief becomes false the
moment the message holding the content is compacted or offloaded; the cache
must then forget the file so the agent re-reads it instead of trusting a
view it no longer has. Pure bookkeeping: the caller passes mtimes in, the
cache never touches the disk.

A record names the message that holds the content, by identity (the
`Message` object) or by index in the session's message list; ``invalidate``
takes the messages (or index range) that leave the context.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from contextfold._messages import Message

__all__ = ["FileRead", "ReadCache"]


@dataclass(frozen=True, slots=True)
class FileRead:
    """One recorded read: ``path`` at ``mtime`` is shown by ``message`` (or message ``index``)."""

    path: str
    mtime: float
    message: Message | None = None
    index: int | None = None


class ReadCache:
    """Records of files whose content is in the context, cleared when that content leaves it."""

    __slots__ = ("_reads",)

    def __init__(self) -> None:
        self._reads: dict[str, FileRead] = {}

    def record(self, path: str, mtime: float, holder: Message | int) -> FileRead:
        """Remember that ``holder`` (a message or its index) shows ``path`` as of ``mtime``.

        A newer read of the same path replaces the older record.
        """
        if isinstance(holder, Message):
            read = FileRead(path, mtime, message=holder)
        else:
            read = FileRead(path, mtime, index=holder)
        self._reads[path] = read
        return read

    def is_fresh(self, path: str, mtime: float) -> bool:
        """True when the context shows ``path`` and the file has not changed since (same mtime)."""
        read = self._reads.get(path)
        return read is not None and read.mtime == mtime

    def get(self, path: str) -> FileRead | None:
        """The record for ``path``, if any."""
        return self._reads.get(path)

    def invalidate(self, messages: Iterable[Message]) -> list[str]:
        """Forget files held by these messages (being compacted or offloaded); return their paths.

        Messages are matched by identity, not equality: two equal messages
        at different places in the history are different views.
        """
        gone = {id(m) for m in messages}
        dropped = [p for p, r in self._reads.items() if r.message is not None and id(r.message) in gone]
        for path in dropped:
            del self._reads[path]
        return dropped

    def invalidate_range(self, start: int, stop: int) -> list[str]:
        """Forget files held by message indices in ``[start, stop)``; return their paths."""
        dropped = [p for p, r in self._reads.items() if r.index is not None and start <= r.index < stop]
        for path in dropped:
            del self._reads[path]
        return dropped

    def shift(self, removed: int) -> None:
        """After the first ``removed`` messages left the list, move index records down by that much.

        Call `invalidate_range` (0, removed) first; records still below zero are dropped.
        """
        shifted: dict[str, FileRead] = {}
        for path, read in self._reads.items():
            if read.index is None:
                shifted[path] = read
            elif read.index - removed >= 0:
                shifted[path] = FileRead(read.path, read.mtime, index=read.index - removed)
        self._reads = shifted

    def clear(self) -> None:
        """Forget everything (after a full compaction)."""
        self._reads.clear()

    def paths(self) -> list[str]:
        """The paths currently believed to be in the context, sorted."""
        return sorted(self._reads)

    def __len__(self) -> int:
        return len(self._reads)
