"""Session stores for the proxy: the `SessionStore` protocol and its backends, one module per backend.

`open_store` picks the backend from a URL (``sqlite:///PATH``) or a state
directory (the embedded SQLite file inside it). New backends (Redis,
Postgres) add a module and a scheme here; the proxy logic does not change.
"""

from __future__ import annotations

from pathlib import Path

from contextfold._errors import ConfigError
from contextfold._stores._base import LineageRecord, SessionStats, SessionStore, StoreError

__all__ = ["STATE_DB", "LineageRecord", "SessionStats", "SessionStore", "StoreError", "open_store"]

STATE_DB = "state.sqlite3"
"""File name of the embedded store inside a state directory."""


def open_store(target: str | Path) -> SessionStore:
    """The store a URL names (``sqlite:///PATH``), or the embedded SQLite store of a state directory."""
    from contextfold._stores._sqlite import SQLiteStore

    text = str(target)
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme == "sqlite":
            if not rest.startswith("/"):
                raise ConfigError(f"store URL {text!r}: use sqlite:///ABSOLUTE/PATH (three slashes)")
            return SQLiteStore(rest)
        raise ConfigError(f"unknown store URL scheme {scheme!r} in {text!r}; use sqlite:///PATH")
    return SQLiteStore(Path(text) / STATE_DB)
