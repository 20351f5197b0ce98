"""The public surface: what `contextfold` exports, that importing it is cheap, and that README examples run."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import contextfold

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"


def test_all_names_exist_and_are_unique() -> None:
    for name in contextfold.__all__:
        assert hasattr(contextfold, name), name
    assert len(set(contextfold.__all__)) == len(contextfold.__all__)


def test_exported_members_are_pinned() -> None:
    # A change to the public surface must be deliberate: update this list with it.
    expected = set(contextfold.__all__)
    public = {n for n in dir(contextfold) if not n.startswith("_")}
    submodules = {"compaction", "models", "proxy", "strategies", "testing"}
    assert public - expected - submodules == set(), "public names missing from __all__"


def test_every_exception_derives_from_the_root() -> None:
    for name in contextfold.__all__:
        obj = getattr(contextfold, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, contextfold.ContextfoldError), name


def test_import_is_cheap_and_quiet() -> None:
    code = (
        "import sys, contextfold, contextfold.models, contextfold.testing\n"
        "heavy = [m for m in ('rich', 'openai', 'anthropic', 'httpx', 'tiktoken', 'tokenizers', 'matplotlib')"
        " if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


def _python_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = _python_blocks()[index]
    if block.startswith("# Needs "):
        pytest.skip(block.splitlines()[0])
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    exec(compile(block, f"README.md example {index}", "exec"), namespace)
