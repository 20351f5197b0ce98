"""What operators need from a store beyond the `SessionStore` protocol: a check, retention, a safe display name.

These are optional capabilities (`OperableStore`), kept out of the protocol
so a store that only implements `SessionStore` still works: `check_store`
falls back to ``ping``. Redis and Postgres implement them; the embedded
SQLite store keeps everything and needs no check beyond opening its file.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from contextfold._errors import ConfigError
from contextfold._stores._base import SessionStore

__all__ = [
    "DEFAULT_RETENTION",
    "OperableStore",
    "check_store",
    "display_url",
    "parse_duration",
]

DEFAULT_RETENTION = 7 * 24 * 3600.0
"""Seconds a shared store keeps a session after its last request (Redis TTL, Postgres purge): 7 days."""
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}


@runtime_checkable
class OperableStore(Protocol):
    """A store that can verify itself and forget old sessions."""

    async def check(self) -> str:
        """Verify connectivity and schema; a one-line description on success, `StoreError` otherwise."""
        ...

    async def purge(self, now: float) -> int:
        """Delete what is past retention at ``now``; the number of records removed (0 when expiry is native)."""
        ...


async def check_store(store: SessionStore) -> str:
    """The store's own check, or a ping for a store without one."""
    if isinstance(store, OperableStore):
        return await store.check()
    await store.ping()
    where = getattr(store, "path", None)
    return f"sqlite {where} answers" if where is not None else f"{type(store).__name__} answers"


def parse_duration(text: str, *, name: str = "--retention") -> float | None:
    """Seconds from ``30``, ``90s``, ``15m``, ``12h``, ``7d``, ``2w``; ``0``, ``none``, ``forever``: keep (None)."""
    value = text.strip().lower()
    if value in ("0", "none", "never", "forever", "off"):
        return None
    match = _DURATION.fullmatch(value)
    if match is None:
        raise ConfigError(f"{name} {text!r}: use a number of seconds or a duration like 90s, 15m, 12h, 7d, 2w")
    seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if seconds < 1:
        raise ConfigError(f"{name} {text!r}: must be at least one second (or 'none' to keep everything)")
    return seconds


def display_url(url: str) -> str:
    """``url`` without its password (for messages and logs): ``redis://:secret@h:1/0`` -> ``redis://h:1/0``."""
    parts = urlsplit(url)
    if parts.password is None and parts.username is None:
        return urlunsplit(parts._replace(query=""))
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    if parts.username and parts.password is None:
        netloc = f"{parts.username}@{netloc}"
    elif parts.username:
        netloc = f"{parts.username}:***@{netloc}"
    else:
        netloc = f":***@{netloc}"
    return urlunsplit(parts._replace(netloc=netloc, query=""))
