"""The import layers, pinned from the code's own imports (parsed with `ast`, not grepped).

`LAYERS` says, for every folder (or root module) of the package, which others it may import; `SDKS` says which
module may import each third-party SDK (always lazily: inside a function, or under ``TYPE_CHECKING``), so that
``import contextfold`` loads none of them. A new folder is one line in `LAYERS`; a new SDK one line in `SDKS`.
docs/architecture.md draws the same table.

The checker (`collect_imports`, `violations`) is plain code over a source tree, so the last tests run it over a
synthetic tree with forbidden imports and check that it reports each one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "src" / "contextfold"

# -- the table -----------------------------------------------------------------------------------------------------

GROUND = frozenset({"_messages", "_errors", "_config", "_markers", "_public", "_lazy"})
"""The ground floor: the message model, the exception tree, the settings, the markers written into messages, the
helper that shows public names under their public path, and the one that builds values (patterns) on first use."""
PURE = GROUND | {"_tokens", "_formats"}
"""What a pure layer may stand on: the ground floor, token counting and the wire formats."""
SESSION = PURE | {"_runtime", "_guard", "_workspace", "compaction", "_context", "_tool_results"}
"""Everything the `Context` session is made of."""

LAYERS: Mapping[str, frozenset[str]] = {
    # unit: the units it may import (its own folder is always allowed)
    "_messages": GROUND,
    "_errors": GROUND,
    "_config": GROUND,
    "_markers": GROUND,
    "_public": GROUND,
    "_lazy": GROUND,
    "_tokens": GROUND,
    "_formats": GROUND,
    "_runtime": GROUND,
    "_guard": GROUND,
    "_workspace": PURE,
    "compaction": PURE,  # plans are pure: no workspace, runtime, models, agent or CLI
    "_tool_results": PURE | {"_guard", "_workspace"},
    "_context": SESSION,
    "testing": SESSION,
    "models": PURE,
    "_agent": SESSION | {"models"},
    "_stores": SESSION,
    "proxy": SESSION | {"models", "_stores"},
    "adapters": SESSION | {"models", "_agent", "_stores"},
    "files": GROUND | {"_formats"},
    "_cli": frozenset({"__init__", "files", "models", "compaction", "proxy"}),  # public names only: see below
    "strategies": frozenset({"compaction"}),
    "__init__": SESSION | {"models", "_agent"},
    "__main__": frozenset({"_cli"}),
}

SDKS: Mapping[str, tuple[str, ...]] = {
    # top-level module of the SDK: the modules (or folders) that may import it, lazily
    "openai": ("contextfold.models._openai",),
    "anthropic": ("contextfold.models._anthropic",),
    "tiktoken": ("contextfold._tokens._exact",),
    "bpe_openai": ("contextfold._tokens._exact",),
    "tokenizers": ("contextfold._tokens._exact",),
    "rich": ("contextfold._cli",),
    "matplotlib": ("contextfold._cli._inspect",),
    "starlette": ("contextfold.proxy",),
    "uvicorn": ("contextfold.proxy",),
    "httpx": ("contextfold.proxy",),
    "redis": ("contextfold._stores",),
    "sqlalchemy": ("contextfold._stores",),
    "mcp": ("contextfold.proxy", "contextfold.adapters"),
    "pydantic_ai": ("contextfold.adapters.pydantic_ai",),
    "langchain": ("contextfold.adapters.langchain",),
    "langchain_core": ("contextfold.adapters.langchain",),
    "langgraph": ("contextfold.adapters.langchain",),
    "agents": ("contextfold.adapters.openai_agents",),
}

EAGER: frozenset[str] = frozenset(
    {"contextfold.adapters.pydantic_ai", "contextfold.adapters.langchain", "contextfold.adapters.openai_agents"}
)
"""Modules that import their SDK when imported: a framework adapter subclasses the framework's classes, and
importing it is the use (it raises `MissingExtraError` naming the extra); ``contextfold.adapters`` imports none."""

# -- the checker ---------------------------------------------------------------------------------------------------

_DYNAMIC_IMPORTERS = frozenset({"import_module", "__import__", "find_spec", "_require"})
"""Calls whose first argument, a string literal, names a module they import (``importlib.import_module("x")``)."""


@dataclass(frozen=True)
class Import:
    """One import statement (or dynamic import call) found in a module."""

    module: str
    """The importing module, dotted (``contextfold._formats._openai``)."""
    target: str
    """The imported module, dotted and absolute."""
    path: Path
    line: int
    lazy: bool
    """Inside a function body or under ``if TYPE_CHECKING:``: not run by importing the module."""


def module_name(path: Path, root: Path) -> str:
    """``contextfold._formats._openai`` for ``root/_formats/_openai.py`` (``root`` is the package folder)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def collect_imports(root: Path) -> list[Import]:
    """Every import in every module under ``root`` (a package folder), with absolute targets."""
    found: list[Import] = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found.extend(_walk(tree, module, package, path, root, lazy=False))
    return found


def _walk(node: ast.AST, module: str, package: str, path: Path, root: Path, *, lazy: bool) -> Iterator[Import]:
    for child in ast.iter_child_nodes(node):
        inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), module, package, path, root, lazy=True)
            for stmt in child.orelse:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), module, package, path, root, lazy=lazy)
            continue
        if isinstance(child, ast.Import):
            for alias in child.names:
                yield Import(module, alias.name, path, child.lineno, inner)
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - child.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in child.names:
                sub = f"{base}.{alias.name}"
                yield Import(module, sub if _is_module(sub, root) else base, path, child.lineno, inner)
        elif isinstance(child, ast.Call) and child.args:
            func = child.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            first = child.args[0]
            if name in _DYNAMIC_IMPORTERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield Import(module, first.value, path, child.lineno, inner)
        yield from _walk(child, module, package, path, root, lazy=inner)


def _is_module(dotted: str, root: Path) -> bool:
    parts = dotted.split(".")
    if parts[0] != root.name:
        return False
    rel = root.joinpath(*parts[1:])
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def unit_of(dotted: str) -> str:
    """The layer unit of a module of ours: its first folder (or root module) under the package."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _owns(owner: str, module: str) -> bool:
    return module == owner or module.startswith(owner + ".")


def violations(
    imports: list[Import],
    *,
    package: str = "contextfold",
    layers: Mapping[str, frozenset[str]] = LAYERS,
    sdks: Mapping[str, tuple[str, ...]] = SDKS,
    eager: frozenset[str] = EAGER,
) -> list[str]:
    """Every import that breaks the table, one readable line each (empty when the tree keeps to it)."""
    out: list[str] = []
    for units in {unit_of(i.module) for i in imports} | {unit_of(i.target) for i in imports if _ours(i, package)}:
        if units not in layers:
            out.append(f"{package}.{units}: not in the layer table; add a line to LAYERS saying what it may import")
    for imp in imports:
        where = f"{imp.path.name}:{imp.line}: {imp.module} imports {imp.target}"
        if _ours(imp, package):
            src, dst = unit_of(imp.module), unit_of(imp.target)
            if src != dst and src in layers and dst not in layers[src]:
                allowed = ", ".join(sorted(layers[src])) or "nothing of ours"
                out.append(f"{where}: {src} may import only {allowed}")
            continue
        top = imp.target.split(".")[0]
        owners = sdks.get(top)
        if owners is None:
            continue
        if not any(_owns(owner, imp.module) for owner in owners):
            out.append(f"{where}: the {top} SDK is imported only in {', '.join(owners)}")
        elif not imp.lazy and imp.module not in eager:
            out.append(f"{where}: import the {top} SDK inside a function, so that importing the package stays cheap")
    return sorted(set(out))


def _ours(imp: Import, package: str) -> bool:
    return imp.target == package or imp.target.startswith(package + ".")


# -- the package keeps to the table ---------------------------------------------------------------------------------


def test_the_checker_sees_the_package() -> None:
    imports = collect_imports(PACKAGE_ROOT)
    targets = {(i.module, i.target) for i in imports}
    # A sample of known edges, so an empty or broken walk cannot pass the tests below.
    assert ("contextfold._context", "contextfold.compaction._plan") in targets
    assert any(i.module == "contextfold.models._openai" and i.target == "openai" and i.lazy for i in imports)
    assert any(i.target == "tiktoken" for i in imports)  # the dynamic `_require("tiktoken", ...)`


def test_every_folder_is_in_the_layer_table() -> None:
    units = {unit_of(module_name(p, PACKAGE_ROOT)) for p in PACKAGE_ROOT.rglob("*.py")}
    assert units - set(LAYERS) == set(), "add a line to LAYERS for each new folder"


def test_imports_keep_to_the_layers_and_sdks_stay_in_their_adapters() -> None:
    assert violations(collect_imports(PACKAGE_ROOT)) == []


def test_the_ground_floor_imports_nothing_above_it() -> None:
    for unit in GROUND:
        assert LAYERS[unit] <= GROUND, unit
    for unit in ("_tokens", "_formats", "_runtime", "_guard"):
        assert LAYERS[unit] == GROUND, unit
    assert not LAYERS["compaction"] & {"_workspace", "_runtime", "models", "_agent", "_cli", "_context"}


def test_importing_the_package_loads_no_sdk() -> None:
    # Every public name touched (the agent loop loads on first use), every model's validator built.
    code = (
        "import sys, contextfold, contextfold.compaction, contextfold.strategies, contextfold.models, "
        "contextfold.testing\n"
        "[getattr(contextfold, n) for n in contextfold.__all__]\n"
        "contextfold.ContextConfig(window=1000); contextfold.GuardConfig(); contextfold.HintConfig()\n"
        f"print(sorted(m for m in {sorted(SDKS)!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_the_agent_loop_loads_on_first_use() -> None:
    code = (
        "import sys, contextfold\n"
        "before = 'contextfold._agent._loop' in sys.modules\n"
        "agent = contextfold.Agent\n"
        "print(before, 'contextfold._agent._loop' in sys.modules, agent.__module__, 'Agent' in dir(contextfold))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["False", "True", "contextfold", "True"]


def test_the_pydantic_models_load_on_first_use() -> None:
    # The settings models and the summary's model are the only pydantic models a session needs; pydantic's model
    # machinery loads with the first of them (here: the Context's own ContextConfig), not with the import.
    code = (
        "import sys, contextfold, contextfold.compaction\n"
        "print('pydantic.main' in sys.modules)\n"
        "ctx = contextfold.Context(window=1000)\n"
        "print('pydantic.main' in sys.modules, type(ctx.config).__module__, type(ctx.hints).__module__)\n"
        "print(type(ctx.config) is contextfold.ContextConfig)\n"
        "names = ('ContextConfig', 'GuardConfig', 'HintConfig', 'StructuredSummary')\n"
        "print(*(getattr(contextfold, n).__module__ for n in names), all(n in dir(contextfold) for n in names))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    # Built by the session before the facade's name was touched, still shown under its public path.
    assert out.stdout.split() == ["False", "True", "contextfold", "contextfold", "True", *["contextfold"] * 4, "True"]


# -- the checker fails on a forbidden import ------------------------------------------------------------------------


def _tree(tmp_path: Path, files: Mapping[str, str]) -> Path:
    root = tmp_path / "contextfold"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in {p.parent for p in root.rglob("*.py")}:
        (folder / "__init__.py").touch()
    return root


def test_the_checker_reports_each_forbidden_import(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "_messages.py": "from contextfold.compaction import _plan\n",
            "_errors.py": "",
            "compaction/_plan.py": "from contextfold._errors import ConfigError\nfrom .._workspace import _local\n",
            "compaction/_ok.py": "from contextfold.compaction._plan import x\nfrom . import _plan\n",
            "_workspace/_local.py": "def f():\n    from contextfold import _messages\n",
            "_guard/_fence.py": "from contextfold.models import _base\n",
            "models/_base.py": "",
            "models/_openai.py": "import openai\n",
            "models/_anthropic.py": "def f():\n    import anthropic\n",
            "_formats/_x.py": "def f():\n    import anthropic.types\n",
            "_tokens/_exact.py": "import importlib\ndef f():\n    return importlib.import_module('tokenizers')\n",
            "_tokens/_bad.py": "def f():\n    return _require('tiktoken')\n",
        },
    )
    found = violations(collect_imports(root))
    assert found == [
        "_bad.py:2: contextfold._tokens._bad imports tiktoken: the tiktoken SDK is imported only in "
        "contextfold._tokens._exact",
        "_fence.py:1: contextfold._guard._fence imports contextfold.models._base: _guard may import only "
        "_config, _errors, _lazy, _markers, _messages, _public",
        "_messages.py:1: contextfold._messages imports contextfold.compaction._plan: _messages may import only "
        "_config, _errors, _lazy, _markers, _messages, _public",
        "_openai.py:1: contextfold.models._openai imports openai: import the openai SDK inside a function, "
        "so that importing the package stays cheap",
        "_plan.py:2: contextfold.compaction._plan imports contextfold._workspace._local: compaction may import only "
        "_config, _errors, _formats, _lazy, _markers, _messages, _public, _tokens",
        "_x.py:2: contextfold._formats._x imports anthropic.types: the anthropic SDK is imported only in "
        "contextfold.models._anthropic",
    ]


def test_the_checker_reports_a_folder_missing_from_the_table(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"_messages.py": "", "_newthing/_a.py": "from contextfold._messages import Message\n"})
    assert violations(collect_imports(root)) == [
        "contextfold._newthing: not in the layer table; add a line to LAYERS saying what it may import"
    ]


def test_the_checker_resolves_relative_and_type_only_imports(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "_context.py": "",
            "_agent/_loop.py": "from ..models._base import ChatModel\nfrom . import _tools\n",
            "_agent/_tools.py": "",
            "models/_base.py": "",
            "models/_openai.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import openai\n",
        },
    )
    imports = collect_imports(root)
    assert ("contextfold._agent._loop", "contextfold.models._base") in {(i.module, i.target) for i in imports}
    assert ("contextfold._agent._loop", "contextfold._agent._tools") in {(i.module, i.target) for i in imports}
    assert next(i for i in imports if i.target == "openai").lazy
    assert violations(imports) == []


# -- docs/architecture.md draws the same table -----------------------------------------------------------------------

DOC = PACKAGE_ROOT.parent.parent / "docs" / "architecture.md"
_GROUPS = {"ground": GROUND, "pure": PURE, "session": SESSION}


def _documented_layers() -> dict[str, frozenset[str]]:
    import re

    text = DOC.read_text(encoding="utf-8")
    table = text.split("| folder | owns | may import |", 1)[1].split("\n\n", 1)[0]
    out: dict[str, frozenset[str]] = {}
    for row in table.strip().splitlines()[1:]:
        folder, _, may = (cell.strip() for cell in row.strip("|").split("|"))
        unit = folder.strip("`").removesuffix("/").removesuffix(".py")
        names: set[str] = set()
        for part in re.split(r",\s*", may):
            part = part.strip("`")
            names |= _GROUPS.get(part, {part})
        out[unit] = frozenset(names)
    return out


def test_the_architecture_page_draws_the_layer_table() -> None:
    documented = _documented_layers()
    assert set(documented) == set(LAYERS)
    for unit, allowed in LAYERS.items():
        assert documented[unit] - {unit} == allowed - {unit}, unit
    text = DOC.read_text(encoding="utf-8")
    for sdk in SDKS:
        assert f"`{sdk}`" in text, sdk
