"""The wire formats contextfold speaks, by name: one type, one tuple, one check.

Every module that takes a provider name (`render`, `to_canonical`, `validate`, `Context.append`, the CLI's
``--provider``, the model adapters) uses `ProviderName` and `check_provider`; adding a format is one name in
`ProviderName` (then mypy's exhaustiveness checks point at every dispatch that must learn it).
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

from contextfold._errors import ConfigError

__all__ = ["PROVIDERS", "ProviderName", "check_provider"]

ProviderName: TypeAlias = Literal["openai", "anthropic"]
"""A wire format: OpenAI chat completions or Anthropic messages."""
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)
"""Every `ProviderName`, in order (``("openai", "anthropic")``)."""


def check_provider(value: object, *, what: str = "provider") -> ProviderName:
    """``value`` as a `ProviderName`; `ConfigError` naming the known ones when it is not one (untyped callers)."""
    for name in PROVIDERS:
        if value == name:
            return name
    raise ConfigError(f"unknown {what} {value!r}; use one of: {', '.join(PROVIDERS)}")
