"""Load the recorded sample requests in ``tests/e2e/samples/`` as `upstream.Recorded` (for unit tests).

Each sample file holds one request as Claude Code 2.1.332 or Codex CLI 0.171.0 sent it to the scripted upstream
(long strings shortened, see ``record_samples.py``). The body is re-serialized compactly, as both clients send
it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from upstream import Kind, Recorded, Role

__all__ = ["SAMPLES", "SAMPLE_KEY", "load", "sample_body"]

SAMPLES = Path(__file__).parent / "samples"
SAMPLE_KEY = "sk-e2e-sample-key"


def sample_body(name: str) -> dict[str, Any]:
    """The body of sample ``name`` (e.g. ``"claude_code/turn-0"``) as a dict."""
    doc = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    body = doc["body"]
    assert isinstance(body, dict)
    return body


def encode(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def load(name: str, index: int, *, role: Role | None = None, body: Any = None) -> Recorded:
    """Sample ``name`` as the ``index``-th recorded request (``body`` replaces the sample's own)."""
    doc = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    path = str(doc["path"])
    kind: Kind = "messages" if "/messages" in path else "responses"
    if role is None:
        role = "compact" if "compact-" in name and name.endswith("request") else "main"
    return Recorded(
        index=index,
        method=str(doc["method"]),
        path=path,
        headers=tuple((str(k), str(v)) for k, v in doc["headers"]),
        body=encode(doc["body"] if body is None else body),
        kind=kind,
        role=role,
    )
