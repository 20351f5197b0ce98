"""`ContextConfig`: the window, trigger, reserve and budget settings of a context.

The rules live here once, so every entry point (the session, the CLI, a
strategy) validates the same way. A bad value raises `ConfigError` (also a
``ValueError``) naming the field and the rule on one line, never pydantic's
multi-line report: configuration mistakes are made by people, who need the
one line that says what to change.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from contextfold._errors import ConfigError

__all__ = ["ContextConfig"]


def _one_line(exc: ValidationError) -> str:
    """The first validation problem as ``ContextConfig.FIELD: rule (got VALUE)``."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(part) for part in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "value_error":
        # Our own rules already name the field (and nested ConfigErrors arrive here too).
        return msg
    where = f"ContextConfig.{loc}" if loc else "ContextConfig"
    if err["type"] == "missing":
        return f"{where}: field required"
    return f"{where}: {msg} (got {err.get('input')!r})"


class ContextConfig(BaseModel):
    """How big the window is and how the context is kept inside it.

    ``budget`` (window × trigger_ratio / safety_margin) is what a compaction
    aims for; the margin absorbs token-estimate error so that a compacted
    context stays below the trigger even when the estimate is off.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False, defer_build=True)

    window: int = Field(gt=0)
    """The model's context length in tokens."""
    trigger_ratio: float = Field(default=0.8, gt=0, le=0.9)
    """Compact when the context passes this share of the window (at most 0.9, so the compaction call has room)."""
    reserve_ratio: float = Field(default=0.1, ge=0)
    """Share of the window of most recent context kept verbatim (below ``trigger_ratio``)."""
    safety_margin: float = Field(default=1.2, ge=1)
    """Divides the budget to absorb estimate error."""
    min_recent_messages: int = Field(default=6, ge=0)
    """Keep at least this many recent messages (unless they pass half the budget)."""
    summary_ratio: float = Field(default=0.4, gt=0, lt=1)
    """Share of the budget the summary of the older part aims for (its facts ledger may grow past it when the history
    holds more facts, up to `DigestStrategy`'s ``facts_share`` of the budget)."""
    tool_result_limit: int = Field(default=50_000, gt=0)
    """Tool results above this many tokens are split and offloaded."""
    tool_result_share: float = Field(default=0.25, gt=0, le=1)
    """A single tool result may take at most this share of the budget (see ``result_limit``)."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(_one_line(exc)) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> ContextConfig:
        """Validate a mapping, raising `ConfigError` (one line) instead of pydantic's report."""
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise ConfigError(_one_line(exc)) from None

    @model_validator(mode="before")
    @classmethod
    def _no_bools(cls, data: Any) -> Any:
        # ``True`` is an int to pydantic's lax mode; a bool window is always a mistake.
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, bool):
                    raise ValueError(f"ContextConfig.{key}: must be a number, not a bool (got {value!r})")
        return data

    @model_validator(mode="after")
    def _reserve_below_trigger(self) -> ContextConfig:
        if self.reserve_ratio >= self.trigger_ratio:
            raise ValueError(
                f"ContextConfig.reserve_ratio: must be < trigger_ratio ({self.trigger_ratio})"
                f" (got {self.reserve_ratio})"
            )
        return self

    @property
    def trigger_tokens(self) -> int:
        """Token count above which the context is compacted (window × trigger_ratio)."""
        return int(self.window * self.trigger_ratio)

    @property
    def budget(self) -> int:
        """Tokens a compacted context may use: window × trigger_ratio / safety_margin."""
        return int(self.window * self.trigger_ratio / self.safety_margin)

    @property
    def reserve_tokens(self) -> int:
        """Tokens of most recent context kept verbatim (window × reserve_ratio)."""
        return int(self.window * self.reserve_ratio)

    @property
    def recent_cap_tokens(self) -> int:
        """The recent (verbatim) part may take at most half the budget."""
        return self.budget // 2

    @property
    def result_limit(self) -> int:
        """Tokens one tool result may keep in the context: ``tool_result_limit`` capped to a share of the budget.

        Without the cap, a 250 KB result would pass a 50,000-token limit and
        defeat a 16k window on its own.
        """
        return max(1, min(self.tool_result_limit, int(self.budget * self.tool_result_share)))

    @property
    def summary_tokens(self) -> int:
        """Tokens the summary of the older part aims for (budget × summary_ratio)."""
        return int(self.budget * self.summary_ratio)
