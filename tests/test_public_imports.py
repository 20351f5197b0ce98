"""Public names are imported from where they are public (issue 13 items 6 and 7), checked from the code (`ast`).

- The CLI speaks through the public API: no module of ``contextfold._cli`` imports a private module outside
  ``_cli/`` (a dotted path with a part starting with ``_``: ``contextfold._formats._files``).
- Tests import a public name from its public home (``from contextfold import Message``), not from the private
  module that defines it; a test of a private unit imports that unit (``import contextfold._x._y as unit``) or
  the private names it tests.

The checkers are plain functions over a source tree, so the last tests run them on synthetic trees and check that
each reports what it must.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path

from test_layers_imports import PACKAGE_ROOT, collect_imports

TESTS_ROOT = Path(__file__).resolve().parent
PUBLIC_PACKAGES = (
    "contextfold",
    "contextfold.compaction",
    "contextfold.models",
    "contextfold.testing",
    "contextfold.files",
    "contextfold.proxy",
    "contextfold.adapters.pydantic_ai",
    "contextfold.adapters.langchain",
    "contextfold.adapters.openai_agents",
)


def is_private(dotted: str) -> bool:
    """Whether a module path of ours has a private part (``contextfold._x``, ``contextfold.models._base``)."""
    parts = dotted.split(".")
    return parts[0] == "contextfold" and any(part.startswith("_") for part in parts[1:])


# -- the CLI -------------------------------------------------------------------------------------------------------


def cli_private_imports(root: Path, unit: str = "_cli") -> list[str]:
    """Every import, by a module of ``contextfold.<unit>``, of a private module outside ``<unit>``."""
    own = f"{root.name}.{unit}"
    return sorted(
        f"{imp.path.name}:{imp.line}: {imp.module} imports {imp.target}: import the public name instead"
        for imp in collect_imports(root)
        if (imp.module == own or imp.module.startswith(own + "."))
        and is_private(imp.target)
        and not (imp.target == own or imp.target.startswith(own + "."))
    )


def test_the_cli_imports_only_public_names() -> None:
    assert cli_private_imports(PACKAGE_ROOT) == []


def test_the_cli_checker_reports_a_private_import(tmp_path: Path) -> None:
    root = tmp_path / "contextfold"
    (root / "_cli").mkdir(parents=True)
    (root / "_formats").mkdir()
    for path in (root / "__init__.py", root / "_cli" / "__init__.py", root / "_formats" / "__init__.py"):
        path.write_text("")
    (root / "_formats" / "_files.py").write_text("")
    (root / "_cli" / "_a.py").write_text(
        "from contextfold import Message\nfrom contextfold._cli import main\n"
        "def f():\n    from contextfold._formats._files import read_input\n"
        "import contextfold._formats as formats\n"
    )
    assert cli_private_imports(root) == [
        "_a.py:4: contextfold._cli._a imports contextfold._formats._files: import the public name instead",
        "_a.py:5: contextfold._cli._a imports contextfold._formats: import the public name instead",
    ]


# -- the tests -----------------------------------------------------------------------------------------------------


def public_homes() -> dict[tuple[str, int], str]:
    """``(name, id(object))`` -> the public package exporting that object under that name (the first one)."""
    homes: dict[tuple[str, int], str] = {}
    for name in PUBLIC_PACKAGES:
        try:
            package = importlib.import_module(name)
        except ImportError:  # an adapter whose framework is not installed
            continue
        for attr in getattr(package, "__all__", ()):
            homes.setdefault((attr, id(getattr(package, attr))), name)
    return homes


def _from_imports(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield node.lineno, node.module, alias.name


def private_imports_of_public_names(
    paths: list[Path], homes: Mapping[tuple[str, int], str], resolve: object = importlib.import_module
) -> list[str]:
    """``from contextfold._x import Name`` lines of ``paths`` where ``Name`` is public somewhere, one line each."""
    out: list[str] = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module, name in _from_imports(tree):
            if not is_private(module):
                continue
            try:
                obj = getattr(resolve(module), name)  # type: ignore[operator]
            except (ImportError, AttributeError):
                continue
            home = homes.get((name, id(obj)))
            if home is not None:
                out.append(f"{path.name}:{line}: from {module} import {name}: import it from {home}")
    return out


def _test_sources() -> list[Path]:
    return sorted(p for p in TESTS_ROOT.rglob("*.py") if "data" not in p.relative_to(TESTS_ROOT).parts)


def test_tests_import_public_names_from_their_public_home() -> None:
    assert private_imports_of_public_names(_test_sources(), public_homes()) == []


def test_the_tests_checker_reports_a_public_name_imported_privately(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "from contextfold._messages import Message, freeze_meta\n"
        "from contextfold._workspace._split import minimum_limit\n"
        "from contextfold import TextBlock\n"
        "import contextfold._workspace._split as split\n"
        "from contextfold.compaction._digest_strategy import DigestStrategy\n"
    )
    assert private_imports_of_public_names([sample], public_homes()) == [
        "test_sample.py:1: from contextfold._messages import Message: import it from contextfold",
        "test_sample.py:5: from contextfold.compaction._digest_strategy import DigestStrategy: "
        "import it from contextfold.compaction",
    ]
