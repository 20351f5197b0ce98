"""Run the Python examples of one README section, so each feature's tests own its documented example."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def section_blocks(heading: str) -> list[str]:
    """The ```python blocks of the README section whose ``## `` heading starts with ``heading``."""
    text = README.read_text(encoding="utf-8")
    for section in re.split(r"\n(?=## )", text):
        if section.startswith(f"## {heading}"):
            return re.findall(r"```python\n(.*?)```", section, flags=re.S)
    raise AssertionError(f"README.md has no section '## {heading}'")


def run_section(heading: str) -> None:
    """Execute every Python example of a README section in a fresh namespace."""
    blocks = section_blocks(heading)
    assert blocks, f"README section {heading!r} has no Python example"
    for block in blocks:
        exec(compile(block, f"README.md ({heading})", "exec"), {"__name__": "readme_example"})
