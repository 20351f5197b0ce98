"""Build a `TokenCounter` from a short spec string (CLI flags, config files).

``calibrated`` (the default), ``bytes``, ``tiktoken:ENCODING_OR_FILE`` or
``hf:PATH``. One parser, so every entry point accepts the same spellings and
reports a bad one the same way.
"""

from __future__ import annotations

from contextfold._errors import ConfigError
from contextfold._tokens._counting import BytesCounter, TokenCounter

__all__ = ["COUNTER_SPECS", "DEFAULT_COUNTER", "make_counter"]

DEFAULT_COUNTER = "calibrated"
COUNTER_SPECS = ("calibrated", "bytes", "tiktoken:ENCODING_OR_FILE", "hf:PATH")
"""The spellings `make_counter` accepts, for help texts and error messages."""


def make_counter(spec: str = DEFAULT_COUNTER) -> TokenCounter:
    """The counter a spec names; raises `ConfigError` (or `MissingExtraError`) when it cannot be built."""
    kind, sep, arg = spec.strip().partition(":")
    if not sep:
        if kind == "calibrated":
            from contextfold._tokens._calibrated import CalibratedCounter

            return CalibratedCounter()
        if kind == "bytes":
            return BytesCounter()
    elif arg:
        if kind == "tiktoken":
            from contextfold._tokens._exact import TiktokenCounter

            return TiktokenCounter(arg)
        if kind == "hf":
            from contextfold._tokens._exact import HFCounter

            return HFCounter(arg)
    allowed = " | ".join(COUNTER_SPECS)
    raise ConfigError(f"unknown token counter {spec!r}: use {allowed}")
