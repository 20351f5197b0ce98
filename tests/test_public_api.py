"""The public surface: what `contextfold` exports, and that importing it is cheap.

The README and docs examples run in tests/test_docs_examples.py.
"""

import subprocess
import sys

import contextfold


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
