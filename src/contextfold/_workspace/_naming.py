"""Names of workspace items (moved out of `_local`)."""

from __future__ import annotations

import base64
import binascii
import mimetypes

from contextfold._messages import DataBlock
from contextfold._workspace._offload import OffloadKind

_BLOCK_SUFFIX = ".block.json"
_SUBDIRS: dict[OffloadKind, str] = {"tool_result": "tool_results", "context": "context", "media": "media"}


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
        ext = mimetypes.guess_extension(media_type.split(";")[0].strip())
        if ext and ext != _BLOCK_SUFFIX:
            return ext
    return ".bin"
