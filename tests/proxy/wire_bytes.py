"""Byte-level views of JSON request bodies: the exact span of a top-level key's value."""

from __future__ import annotations

__all__ = ["value_span"]


def value_span(raw: bytes, key: str) -> bytes | None:
    """The bytes of ``raw[key]`` exactly as written (``raw`` is a JSON object), or None when absent."""
    target = b'"' + key.encode() + b'"'
    depth = 0
    i = 0
    n = len(raw)
    expect_key = False
    while i < n:
        c = raw[i]
        if c == 0x22:  # a string
            j = i + 1
            while raw[j] != 0x22:
                j += 2 if raw[j] == 0x5C else 1
            if depth == 1 and expect_key and raw[i : j + 1] == target:
                k = j + 1
                while raw[k] in b" \t\r\n:":
                    k += 1
                return raw[k : _value_end(raw, k)]
            i = j + 1
            expect_key = False
            continue
        if c in b"{[":
            depth += 1
            expect_key = c == 0x7B
        elif c in b"}]":
            depth -= 1
        elif c == 0x2C:
            expect_key = depth == 1
        i += 1
    return None


def _value_end(raw: bytes, k: int) -> int:
    depth = 0
    i = k
    while True:
        c = raw[i]
        if c == 0x22:
            j = i + 1
            while raw[j] != 0x22:
                j += 2 if raw[j] == 0x5C else 1
            i = j + 1
            if depth == 0:
                return i
            continue
        if c in b"{[":
            depth += 1
        elif c in b"}]":
            depth -= 1
            if depth == 0:
                return i + 1
        elif depth == 0 and c in b",}":
            return i
        i += 1
