"""Build a value once, on first use, from any thread: tables and regexes cost nothing at ``import contextfold``.

`Once` holds a value built by its first `Once.get` (the guard's rule tables); `lazy_pattern` is a regex compiled
by its first use, written where ``re.compile`` was and used the same way (``_URL.search(text)``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

__all__ = ["Once", "lazy_pattern"]

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


class _LazyPattern:
    """Stands in for ``re.compile(pattern, flags)``: compiled (once, by `Once`) when a method is first looked up.

    ``pattern`` is there without compiling. Each attribute of the compiled pattern (``search``, ``finditer``, ...) is
    copied onto the instance the first time it is looked up, so later calls cost what they cost on the compiled
    pattern: one attribute lookup.
    """

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._compiled = Once(lambda: re.compile(pattern, flags))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_compiled":  # protocols (copy, pickle) look for dunders: not ours
            raise AttributeError(name)
        value = getattr(self._compiled.get(), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A regex compiled on first use, for a module-level pattern that ``import contextfold`` should not compile.

    Use it as the compiled pattern (its methods and ``pattern``); it is not an ``re.Pattern`` instance, so do not
    hand it to ``re.sub(pattern, ...)`` and friends, which accept only strings and compiled patterns.
    """
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
