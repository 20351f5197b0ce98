"""Byte-exact packing of a `LineageRecord`'s contents, for the stores that keep it as one value (Redis) or one column.

A packed record is a one-line JSON header (orjson: no raw newline inside)
followed by the raw byte strings it lists, concatenated::

    {"c":3,"h":"...","t":12,"n":1,"u":1.0,"r":57,"m":41,"w":[["h1",31]]}<newline><replacement><marked><rewrite h1>

Byte strings are stored as they are (never decoded), so a replacement
round-trips exactly whatever it holds; lengths are checked on unpacking and a
record that does not add up raises `StoreError` (a corrupt or foreign value
is never forwarded).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import orjson

from contextfold._stores._base import LineageRecord, StoreError

__all__ = ["pack_record", "pack_rewrites", "unpack_record", "unpack_rewrites"]


def pack_rewrites(rewrites: Mapping[str, bytes]) -> bytes:
    """The rewrites map as header line plus raw values (the ``w`` part of a packed record on its own)."""
    head = orjson.dumps([[key, len(value)] for key, value in rewrites.items()])
    return head + b"\n" + b"".join(rewrites.values())


def unpack_rewrites(data: bytes) -> Mapping[str, bytes]:
    """Inverse of `pack_rewrites`."""
    head, blobs = _split(data)
    entries = _entries(head)
    values, end = _take(blobs, 0, [n for _, n in entries])
    if end != len(blobs):
        raise StoreError("stored rewrites are corrupt (length mismatch)")
    return MappingProxyType({key: value for (key, _), value in zip(entries, values, strict=True)})


def pack_record(record: LineageRecord) -> bytes:
    """Everything of ``record`` but its key (tenant, session, lineage) and version, byte for byte."""
    marked = record.marked
    head = {
        "c": record.covered,
        "h": record.covered_hash,
        "t": record.tokens,
        "n": record.compactions,
        "u": record.updated,
        "r": len(record.replacement),
        "m": -1 if marked is None else len(marked),
        "w": [[key, len(value)] for key, value in record.rewrites.items()],
    }
    return b"".join([orjson.dumps(head), b"\n", record.replacement, marked or b"", *record.rewrites.values()])


def unpack_record(data: bytes, *, tenant: str, session: str, lineage: str, version: int) -> LineageRecord:
    """Inverse of `pack_record`; raises `StoreError` when ``data`` is not a packed record."""
    head_bytes, blobs = _split(data)
    try:
        head = orjson.loads(head_bytes)
        covered, covered_hash, tokens = int(head["c"]), str(head["h"]), int(head["t"])
        compactions, updated = int(head["n"]), float(head["u"])
        rep_len, marked_len = int(head["r"]), int(head["m"])
        entries = _entries(orjson.dumps(head["w"]))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"stored lineage record is corrupt: {exc}") from exc
    sizes = [rep_len, max(marked_len, 0), *(n for _, n in entries)]
    values, end = _take(blobs, 0, sizes)
    if end != len(blobs):
        raise StoreError("stored lineage record is corrupt (length mismatch)")
    rewrites = MappingProxyType({key: value for (key, _), value in zip(entries, values[2:], strict=True)})
    return LineageRecord(
        tenant=tenant,
        session=session,
        lineage=lineage,
        version=version,
        covered=covered,
        covered_hash=covered_hash,
        replacement=values[0],
        marked=None if marked_len < 0 else values[1],
        tokens=tokens,
        compactions=compactions,
        rewrites=rewrites,
        updated=updated,
    )


def _split(data: bytes) -> tuple[bytes, bytes]:
    head, sep, rest = bytes(data).partition(b"\n")
    if not sep:
        raise StoreError("stored value is corrupt (no header line)")
    return head, rest


def _entries(head: bytes) -> list[tuple[str, int]]:
    try:
        raw: Any = orjson.loads(head)
        entries = [(str(key), int(n)) for key, n in raw]
    except (orjson.JSONDecodeError, TypeError, ValueError) as exc:
        raise StoreError(f"stored rewrites are corrupt: {exc}") from exc
    if any(n < 0 for _, n in entries):
        raise StoreError("stored rewrites are corrupt (negative length)")
    return entries


def _take(blobs: bytes, start: int, sizes: list[int]) -> tuple[list[bytes], int]:
    out: list[bytes] = []
    pos = start
    for n in sizes:
        if n < 0 or pos + n > len(blobs):
            raise StoreError("stored value is corrupt (truncated)")
        out.append(blobs[pos : pos + n])
        pos += n
    return out, pos
