"""Test doubles, public so users can test their own agents the way we test ours.

- `ScriptedSummaryModel`: answers summary requests from a script and records every request.
- `FunctionSummaryModel`: hands the exact request to a function you write.
- `FixedClock`: a clock you set and advance, for exact runtime-hint tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from contextfold._messages import Message
from contextfold._public import publish as _publish
from contextfold._runtime._hints import FixedClock

__all__ = ["FixedClock", "FunctionSummaryModel", "ScriptedSummaryModel"]


class ScriptedSummaryModel:
    """A summary model that returns scripted answers in order.

    Each script entry is returned as is, or raised when it is an exception.
    When the script runs out, the last entry repeats. ``requests`` records
    every (messages, schema) pair received.
    """

    def __init__(self, script: Iterable[Mapping[str, Any] | BaseException | str]) -> None:
        self._script = list(script)
        if not self._script:
            raise ValueError("ScriptedSummaryModel needs at least one scripted answer")
        self.requests: list[tuple[list[Message], Mapping[str, Any]]] = []

    async def __call__(self, messages: Sequence[Message], schema: Mapping[str, Any]) -> Any:
        self.requests.append((list(messages), schema))
        index = min(len(self.requests) - 1, len(self._script) - 1)
        answer = self._script[index]
        if isinstance(answer, BaseException):
            raise answer
        return answer


class FunctionSummaryModel:
    """A summary model backed by a function (sync or async) that receives the exact request."""

    def __init__(self, function: Callable[[Sequence[Message], Mapping[str, Any]], Any]) -> None:
        self._function = function
        self.calls = 0

    async def __call__(self, messages: Sequence[Message], schema: Mapping[str, Any]) -> Any:
        self.calls += 1
        result = self._function(messages, schema)
        if inspect.isawaitable(result):
            result = await result
        return result


SummaryFunction = Callable[[Sequence[Message], Mapping[str, Any]], Awaitable[Any] | Any]


_publish(__name__, globals(), __all__)
