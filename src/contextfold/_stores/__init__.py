"""Session stores for the proxy: the `SessionStore` protocol and its backends, one module per backend.

`open_store` picks the backend from a URL or a state directory:

* ``sqlite:///PATH`` or a state directory (the embedded SQLite file inside it): one machine;
* ``redis://HOST:PORT/DB`` (``rediss://`` for TLS): several replicas share it (`_redis`, extra ``redis``);
* ``postgresql://USER@HOST:PORT/DB``: several replicas share it (`_postgres`, extra ``postgres``).

The proxy logic only calls the protocol; the shared backends import their
client libraries lazily, inside their modules.
"""

from __future__ import annotations

from pathlib import Path

from contextfold._errors import ConfigError
from contextfold._stores._base import LineageRecord, SessionStats, SessionStore, StoreError
from contextfold._stores._ops import DEFAULT_RETENTION, OperableStore, check_store, display_url, parse_duration

__all__ = [
    "DEFAULT_RETENTION",
    "STATE_DB",
    "STORE_SCHEMES",
    "LineageRecord",
    "OperableStore",
    "SessionStats",
    "SessionStore",
    "StoreError",
    "check_store",
    "display_url",
    "is_store_url",
    "open_store",
    "parse_duration",
]

STATE_DB = "state.sqlite3"
"""File name of the embedded store inside a state directory."""
STORE_SCHEMES = ("sqlite", "redis", "rediss", "postgresql", "postgres")
"""URL schemes `open_store` accepts (``postgresql+asyncpg`` too)."""


def is_store_url(target: str | Path) -> bool:
    """Whether ``target`` is a store URL (rather than a state directory)."""
    return "://" in str(target)


def open_store(target: str | Path, *, retention: float | None = DEFAULT_RETENTION) -> SessionStore:
    """The store a URL names, or the embedded SQLite store of a state directory.

    ``retention`` (seconds; None keeps everything) applies to the shared
    stores: Redis expires idle keys, Postgres purges idle sessions. The
    embedded SQLite file keeps everything.
    """
    text = str(target)
    if not is_store_url(text):
        from contextfold._stores._sqlite import SQLiteStore

        return SQLiteStore(Path(text) / STATE_DB)
    scheme, _, rest = text.partition("://")
    scheme = scheme.lower()
    if scheme == "sqlite":
        from contextfold._stores._sqlite import SQLiteStore

        if not rest.startswith("/"):
            raise ConfigError(f"store URL {text!r}: use sqlite:///ABSOLUTE/PATH (three slashes)")
        return SQLiteStore(rest)
    if scheme in ("redis", "rediss"):
        from contextfold._stores._redis import RedisStore

        return RedisStore(text, retention=retention)
    if scheme in ("postgresql", "postgres", "postgresql+asyncpg"):
        from contextfold._stores._postgres import PostgresStore

        return PostgresStore("postgresql" + text[len(scheme) :], retention=retention)
    raise ConfigError(
        f"unknown store URL scheme {scheme!r} in {display_url(text)!r}; "
        "use sqlite:///PATH, redis://HOST:PORT/DB or postgresql://USER@HOST:PORT/DB"
    )
