"""Helpers the framework adapters share: fingerprints for carried raw values, the read-back tool texts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from contextfold._errors import MissingExtraError

__all__ = ["fingerprint", "json_text", "missing_extra", "plain_json"]


def fingerprint(text: str) -> str:
    """A short digest of ``text``: a carried raw value is trusted only while the text it was sent as is unchanged.

    A compaction may rewrite a kept block (a cleared tool result keeps its ``meta``), so a raw value kept in
    ``meta`` (a structured tool return, dict arguments) goes back only when its text still matches.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def json_text(value: Any) -> str:
    """Compact JSON text of ``value`` (what a structured value is counted and sent as)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def plain_json(value: Any) -> Any:
    """``value`` with mappings and tuples turned into dicts and lists (``meta`` comes back read-only)."""
    if isinstance(value, Mapping):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    return value


def missing_extra(feature: str, extra: str, package: str, exc: ImportError) -> MissingExtraError:
    """The error an adapter raises when its framework is not installed (it names the pip install)."""
    error = MissingExtraError(feature, extra, package)
    error.__cause__ = exc
    return error
