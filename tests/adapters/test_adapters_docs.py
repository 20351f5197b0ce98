"""The adapter modules' public names each have one entry on docs/api/adapters.md, and the package stays light."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("pydantic_ai", "langchain", "openai_agents")


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_has_one_api_entry(name: str) -> None:
    module = importlib.import_module(f"contextfold.adapters.{name}")
    page = (ROOT / "docs" / "api" / "adapters.md").read_text(encoding="utf-8")
    entries = re.findall(rf"^::: contextfold\.adapters\.{name}\.(\w+)$", page, flags=re.M)
    assert sorted(entries) == sorted(module.__all__)
    for entry in entries:
        assert hasattr(module, entry), entry


def test_importing_the_package_imports_no_framework() -> None:
    code = (
        "import sys, contextfold, contextfold.adapters\n"
        "print([m for m in ('pydantic_ai', 'langchain', 'langchain_core', 'langgraph', 'agents') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
