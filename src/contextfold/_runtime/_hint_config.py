"""`HintConfig`: what the runtime hints say and when.

Its own module, so that ``import contextfold`` does not load pydantic: the settings model is built the first time a
program asks for it (``contextfold.HintConfig``, a `Context` with hints on, or `plan_hint` without a config).
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from contextfold._errors import ConfigError
from contextfold._public import publish
from contextfold._runtime._hints import DEFAULT_HINT_TEMPLATE, DEFAULT_TIME_FORMAT, PLACEHOLDER, _check_time_format

__all__ = ["HintConfig"]


class HintConfig(BaseModel):
    """What the runtime hints say and when.

    Invalid values raise `ConfigError` (also a ``ValueError``) naming the field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    time_interval: timedelta = timedelta(minutes=30)
    """Re-state the time when the last time hint is older than this."""
    time_format: str = DEFAULT_TIME_FORMAT
    """strftime format of ``<current-time>``; must include date and time (``%:z`` is supported)."""
    template: str = DEFAULT_HINT_TEMPLATE
    """Hint text; ``{runtime_state}`` is replaced by the state (other braces are literal)."""
    task_tool_names: tuple[str, ...] = ("TaskCreate", "TaskList", "TaskUpdate", "TodoWrite")
    """A call of one of these in the context means the model already sees its tasks."""
    usage_buffer: float = Field(default=0.2, ge=0.0, lt=1.0)
    """Usage is reported when it is at most this share of the window below the trigger."""
    time_enabled: bool = True
    """Inject the current time and timezone."""
    tasks_enabled: bool = True
    """Inject open tasks."""
    usage_enabled: bool = True
    """Inject context usage near the compaction trigger."""

    if not TYPE_CHECKING:  # keep the typed constructor for checkers; translate errors at runtime

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise ConfigError(_explain(exc)) from exc

    @field_validator("time_interval")
    @classmethod
    def _positive_interval(cls, value: timedelta) -> timedelta:
        if value <= timedelta():
            raise ValueError("must be positive")
        return value

    @field_validator("time_format")
    @classmethod
    def _date_in_format(cls, value: str) -> str:
        _check_time_format(value)
        return value

    @field_validator("template")
    @classmethod
    def _placeholder_in_template(cls, value: str) -> str:
        if PLACEHOLDER not in value:
            raise ValueError(f"must contain {PLACEHOLDER} (otherwise the hint would carry no state)")
        return value


def _explain(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "value"
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"HintConfig.{field}: {message}")
    return "; ".join(parts)


# Loaded on first use, by the facade or by the session: shown under its public path either way (as `publish` in the
# facade would show it), so a config the session built reprs, pickles and type-checks like one the user built.
publish("contextfold", globals(), __all__)
