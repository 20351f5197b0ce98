"""Build a model from a ``provider:name`` spec, the form the CLI and config files use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contextfold._errors import ConfigError
from contextfold._formats._providers import ProviderName
from contextfold.models._anthropic import AnthropicChatModel
from contextfold.models._openai import OpenAIChatModel

__all__ = ["PROVIDERS", "model_from_spec"]

_ADAPTERS: Mapping[ProviderName, type[OpenAIChatModel] | type[AnthropicChatModel]] = {
    "openai": OpenAIChatModel,
    "anthropic": AnthropicChatModel,
}
PROVIDERS: tuple[ProviderName, ...] = tuple(_ADAPTERS)
"""The providers with a model adapter (a subset of the wire formats, `contextfold.ProviderName`)."""


def model_from_spec(
    spec: str, *, base_url: str | None = None, api_key: str | None = None, **options: Any
) -> OpenAIChatModel | AnthropicChatModel:
    """``"openai:gpt-4o-mini"`` or ``"anthropic:claude-sonnet-4-5"`` -> a ready adapter.

    Only the first colon separates the provider, so local model names such as
    ``openai:llama3.1:8b`` (Ollama) keep theirs. Further keyword arguments go to
    the adapter (``max_retries``, ``max_tokens``, ``env``, ...). Raises
    `ConfigError` for a malformed spec or an unknown provider.
    """
    provider, sep, name = spec.partition(":")
    provider = provider.strip().lower()
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"model spec {spec!r} must be PROVIDER:MODEL, e.g. openai:gpt-4o-mini")
    for known, adapter in _ADAPTERS.items():
        if provider == known:
            return adapter(name, base_url=base_url, api_key=api_key, **options)
    raise ConfigError(f"unknown model provider {provider!r} in {spec!r}; known: {', '.join(PROVIDERS)}")
