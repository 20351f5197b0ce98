"""The python examples of docs/guard.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "guard.md"


def test_guard_page_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/guard.md (example {i + 1})", "exec"), {"__name__": "guard_doc_example"})
