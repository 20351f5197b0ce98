"""The naming rule of workspace items: a path is a function of the item's kind and content, nothing else.

Every name the model sees (in a truncation notice, a summary header, a
placeholder) is content-addressed, so the same input gives byte-identical
output, a restarted process reproduces the same prompt prefix (prompt caching
keeps working), and storing the same content twice stores it once::

    tool_results/<h>.txt        the text, UTF-8 (lone surrogates: ``surrogatepass``)
    context/<h>.jsonl           archived messages, canonical JSONL (`_codec`)
    media/<h>.<ext>             decoded media bytes; ``ext`` from a fixed table of media types
    media/<h>.block.json        a data block that cannot be stored as plain bytes (its canonical JSON line)

``h`` is the first `NAME_HEX_DIGITS` hex digits of the SHA-256 of the item's
*identity*: the stored bytes, and for plain media also the media kind and
type (NUL-separated, before the bytes), so one name never stands for two
different data blocks. No clock, no randomness, no machine state (the
extension table is fixed, not the system's ``mime.types``).

This module is the one owner of the rule: `LocalWorkspace` stores under these
names, the tool-result split plans its notice with them before anything is
written, and another backend (an object store) reuses `payload_for_*` to get
the same bytes under the same keys. 16 hex digits are 64 bits: with a million
items in one workspace the chance of any collision is about 3e-8, and a
backend must still compare the bytes when a name is already taken; on a real
collision it stores the item under the full 64-digit digest instead
(`Payload.full_path`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import block_to_dict, dumps_canonical, messages_to_jsonl_chunks
from contextfold._workspace._offload import OffloadKind

__all__ = [
    "NAME_HEX_DIGITS",
    "SUBDIRS",
    "Payload",
    "content_digest",
    "item_path",
    "payload_for_context",
    "payload_for_media",
    "payload_for_tool_result",
]

NAME_HEX_DIGITS = 16
"""Hex digits of the SHA-256 digest in a name (64 bits; about 13 tokens for the whole path under o200k)."""
_BLOCK_SUFFIX = ".block.json"
SUBDIRS: dict[OffloadKind, str] = {"tool_result": "tool_results", "context": "context", "media": "media"}
"""The first component of an item's path, per kind."""
_EXTENSIONS: dict[str, str] = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "image/bmp": ".bmp",
    "image/tiff": ".tiff",
    "image/heic": ".heic",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/mp4": ".m4a",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "audio/webm": ".weba",
    "video/mp4": ".mp4",
    "video/webm": ".webm",
    "application/pdf": ".pdf",
    "application/json": ".json",
    "application/xml": ".xml",
    "application/zip": ".zip",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "text/html": ".html",
    "text/markdown": ".md",
    "text/xml": ".xml",
}
"""Media type -> file extension: fixed here so a name never depends on the machine's ``mime.types``."""


def content_digest(chunks: Iterable[bytes]) -> str:
    """The full SHA-256 hex digest of the concatenated ``chunks``."""
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk)
    return h.hexdigest()


def item_path(kind: OffloadKind, digest: str, suffix: str, *, digits: int = NAME_HEX_DIGITS) -> str:
    """The workspace-relative path of an item: ``<subdir of kind>/<digest[:digits]><suffix>``."""
    return f"{SUBDIRS[kind]}/{digest[:digits]}{suffix}"


@dataclass(frozen=True, slots=True)
class Payload:
    """What a backend stores for one item, and under which name."""

    kind: OffloadKind
    chunks: Sequence[bytes]
    """The bytes to store, in order (not joined: an archive can be large)."""
    suffix: str
    digest: str
    """SHA-256 hex of the item's identity (the stored bytes, plus media kind and type for plain media)."""

    @property
    def path(self) -> str:
        """The item's name: the short digest (what the model sees)."""
        return item_path(self.kind, self.digest, self.suffix)

    @property
    def full_path(self) -> str:
        """The name used when `path` is already taken by different bytes (a digest collision)."""
        return item_path(self.kind, self.digest, self.suffix, digits=len(self.digest))

    @property
    def size(self) -> int:
        return sum(len(chunk) for chunk in self.chunks)

    def data(self) -> bytes:
        """The stored bytes joined (for comparison with an existing item)."""
        return b"".join(self.chunks)


def payload_for_tool_result(text: str) -> Payload:
    """A tool result's text as stored: UTF-8, lone surrogates kept with ``surrogatepass``."""
    data = text.encode("utf-8", "surrogatepass")
    return Payload("tool_result", (data,), ".txt", content_digest((data,)))


def payload_for_context(messages: Iterable[Message]) -> Payload:
    """Archived messages as stored: canonical JSONL, one line per message."""
    chunks = messages_to_jsonl_chunks(messages)
    return Payload("context", chunks, ".jsonl", content_digest(chunks))


def payload_for_media(block: DataBlock) -> Payload:
    """A data block as stored: its decoded bytes when that loses nothing, else its canonical JSON line."""
    raw = _plain_media_bytes(block)
    if raw is None:
        data = (dumps_canonical(block_to_dict(block)) + "\n").encode("utf-8")
        return Payload("media", (data,), _BLOCK_SUFFIX, content_digest((data,)))
    header = f"{block.media}\0{block.media_type or ''}\0".encode("utf-8", "surrogatepass")
    return Payload("media", (raw,), _extension(block.media_type), content_digest((header, raw)))


def _plain_media_bytes(block: DataBlock) -> bytes | None:
    """Decoded bytes when storing them loses nothing (canonical base64, no meta), else None."""
    if block.data is None or block.meta:
        return None
    try:
        raw = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(raw).decode("ascii") != block.data:
        return None
    return raw


def _extension(media_type: str | None) -> str:
    if media_type:
        ext = _EXTENSIONS.get(media_type.split(";")[0].strip().lower())
        if ext is not None:
            return ext
    return ".bin"
