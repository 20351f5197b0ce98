"""Build a value once, on first use, from any thread: the guard compiles its tables only when it first runs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Once"]

T = TypeVar("T")


class Once(Generic[T]):
    """``get()`` calls ``build`` the first time (under a lock, so exactly once across threads) and caches it."""

    __slots__ = ("_build", "_lock", "_value")

    def __init__(self, build: Callable[[], T]) -> None:
        """``build`` is called at most once, by the first `get`."""
        self._build = build
        self._lock = threading.Lock()
        self._value: T | None = None

    def get(self) -> T:
        """The built value (a build that raised is tried again by the next call)."""
        value = self._value
        if value is None:
            with self._lock:
                value = self._value
                if value is None:
                    value = self._value = self._build()
        return value
