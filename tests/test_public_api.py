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
    submodules = {"adapters", "compaction", "models", "proxy", "strategies", "testing"}
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


# -- public names show their public path (the facade rewrites __module__) -------------------------------------------


def _published() -> list[tuple[str, object]]:
    import types

    import contextfold.compaction
    import contextfold.models
    import contextfold.testing

    out: list[tuple[str, object]] = []
    for package in (contextfold, contextfold.compaction, contextfold.models, contextfold.testing):
        for name in package.__all__:
            obj = getattr(package, name)
            if isinstance(obj, type | types.FunctionType):
                out.append((f"{package.__name__}.{name}", obj))
    return out


def test_public_classes_and_functions_show_a_public_path_that_resolves() -> None:
    import contextfold.compaction
    import contextfold.models

    published = _published()
    assert len(published) > 100
    for where, obj in published:
        module: str = obj.__module__  # type: ignore[attr-defined]
        assert not any(part.startswith("_") for part in module.split(".")), f"{where} shows {module}"
        assert getattr(sys.modules[module], obj.__qualname__) is obj, where  # type: ignore[attr-defined]
    assert repr(contextfold.Context) == "<class 'contextfold.Context'>"
    assert repr(contextfold.ConfigError) == "<class 'contextfold.ConfigError'>"
    assert contextfold.render.__module__ == "contextfold"
    assert repr(contextfold.compaction.DigestStrategy) == "<class 'contextfold.compaction.DigestStrategy'>"
    assert repr(contextfold.models.ModelError) == "<class 'contextfold.models.ModelError'>"


def test_published_classes_keep_their_type_hints() -> None:
    import typing

    for _, obj in _published():
        if isinstance(obj, type):
            typing.get_type_hints(obj)  # resolves in the public namespace: no NameError
    hints = typing.get_type_hints(contextfold.Message)
    assert hints["content"] == tuple[contextfold.Block, ...]


def test_published_objects_pickle_and_extend() -> None:
    import dataclasses
    import pickle

    import pydantic

    import contextfold.compaction
    import contextfold.models

    values: list[object] = [
        contextfold.ContextConfig(window=8000),
        contextfold.GuardConfig(mode="redact"),
        contextfold.HintConfig(),
        contextfold.Task(subject="x"),
        contextfold.OffloadRef(path="tool_results/a.txt", kind="tool_result", size=1, created="x"),
        contextfold.BytesCounter(),
        contextfold.models.Usage(prompt_tokens=3),
        contextfold.compaction.Fact(kind="file", value="src/a.py"),
        contextfold.compaction.LoopGuard(),
        contextfold.ConfigError("bad"),
        contextfold.ToolError("no"),
    ]
    for value in values:
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        if not isinstance(value, BaseException | contextfold.BytesCounter | contextfold.compaction.LoopGuard):
            assert back == value
    assert pickle.loads(pickle.dumps(contextfold.render)) is contextfold.render
    assert pickle.loads(pickle.dumps(contextfold.compaction.DigestStrategy)) is contextfold.compaction.DigestStrategy

    class Wider(contextfold.ContextConfig):  # a pydantic subclass of a published model still builds
        note: str = ""

    assert Wider(window=9000, note="n").window == 9000
    ref = contextfold.OffloadRef(path="a", kind="context", size=1, created="x")
    assert dataclasses.replace(ref, size=2).size == 2
    block = pydantic.TypeAdapter(contextfold.TextBlock).validate_python({"text": "hi"})
    assert block == contextfold.TextBlock(text="hi")
