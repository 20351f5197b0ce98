import pytest

from contextfold import (
    BudgetError,
    ConfigError,
    ContextfoldError,
    ContextOverflowError,
    InputError,
    MissingExtraError,
    PathRefusedError,
    UnknownFormatError,
    WorkspaceError,
)


def test_every_error_derives_from_the_root() -> None:
    for cls in (
        ConfigError,
        InputError,
        UnknownFormatError,
        BudgetError,
        ContextOverflowError,
        WorkspaceError,
        PathRefusedError,
        MissingExtraError,
    ):
        assert issubclass(cls, ContextfoldError)
    assert issubclass(ConfigError, ValueError)
    assert issubclass(MissingExtraError, ImportError)


def test_input_error_names_where() -> None:
    err = InputError("unexpected token", source="t.json", line=3, column=7)
    assert str(err) == "t.json:3:7: unexpected token"
    err = InputError("unknown role 'bot'", source="t.json", message_index=4)
    assert str(err) == "t.json, message 4: unknown role 'bot'"
    assert str(InputError("bare")) == "bare"


def test_input_error_with_source_keeps_cause() -> None:
    try:
        try:
            raise ValueError("inner")
        except ValueError as exc:
            raise InputError("bad", line=1) from exc
    except InputError as err:
        named = err.with_source("f.jsonl")
    assert str(named) == "f.jsonl:1: bad"
    assert isinstance(named.__cause__, ValueError)


def test_missing_extra_names_the_install() -> None:
    err = MissingExtraError("exact counting", "tiktoken", "tiktoken")
    assert "pip install 'contextfold[tiktoken]'" in str(err)


def test_overflow_error_carries_floor() -> None:
    err = ContextOverflowError("too big", floor={"system": 900}, budget=500)
    assert err.floor == {"system": 900} and err.budget == 500
    with pytest.raises(BudgetError):
        raise err


# -- the tree drawn in _errors.py is the whole tree -----------------------------------------------------------------

_UNDRAWN_PRIVATE = {"_Bad", "_UsageError"}
"""Private helpers that derive from the tree but are not drawn in it (the codec's and the CLI's internal signals)."""


def _package_exceptions() -> dict[str, type[BaseException]]:
    import importlib
    import pkgutil

    import contextfold

    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(contextfold.__path__, "contextfold."):
        if info.name == "contextfold.__main__":
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__.startswith("contextfold"):
                found[obj.__name__] = obj
    return found


def _drawn_tree() -> dict[str, str | None]:
    """Class name -> parent name, read from the drawing in `contextfold._errors`'s docstring."""
    import re

    import contextfold._errors

    doc = contextfold._errors.__doc__ or ""
    lines = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert lines[0].strip() == "ContextfoldError"
    tree: dict[str, str | None] = {"ContextfoldError": None}
    stack = ["ContextfoldError"]
    for line in lines[1:]:
        m = re.match(r"^    ((?:[│ ]   )*)[├└]── (\w+)", line)
        assert m, line
        depth = len(m.group(1)) // 4 + 1
        del stack[depth:]
        tree[m.group(2)] = stack[-1]
        stack.append(m.group(2))
    return tree


def test_every_exception_of_the_package_is_drawn_in_the_tree_and_derives_from_the_root() -> None:
    found = _package_exceptions()
    assert {"ChannelFullError", "ToolError", "ReplayExhausted", "ModelError", "ContextLengthExceeded"} <= set(found)
    tree = _drawn_tree()
    for name, cls in found.items():
        assert issubclass(cls, ContextfoldError), f"{name} does not derive from ContextfoldError"
        if name not in _UNDRAWN_PRIVATE:
            assert name in tree, f"{name} is not drawn in the tree in _errors.py"
    for name, parent in tree.items():
        assert name in found, f"{name} is drawn but not defined"
        if parent is not None:
            assert found[parent] in found[name].__bases__, f"{name} is drawn under {parent}"


def test_every_exception_is_defined_on_the_ground_floor_and_importable_where_it_was() -> None:
    import contextfold._errors as errors
    from contextfold._agent._replay import ReplayExhausted
    from contextfold._agent._tools import ToolError
    from contextfold._runtime._steering import ChannelFullError
    from contextfold.models import ContextLengthExceeded, ModelError
    from contextfold.models._base import ContextLengthExceeded as BaseCLE
    from contextfold.models._base import ModelError as BaseModelError

    assert errors.ReplayExhausted is ReplayExhausted
    assert errors.ToolError is ToolError
    assert errors.ChannelFullError is ChannelFullError
    assert errors.ModelError is ModelError is BaseModelError
    assert errors.ContextLengthExceeded is ContextLengthExceeded is BaseCLE


def test_errors_pickle_with_their_fields() -> None:
    import pickle

    from contextfold import ChannelFullError, FollowUp, ToolError
    from contextfold.models import ContextLengthExceeded, ModelError

    def again(err: BaseException) -> BaseException:
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err)
        assert str(back) == str(err)
        return back

    located = again(InputError("bad", source="t.json", line=3, column=7, message_index=2))
    assert isinstance(located, InputError)
    assert (located.reason, located.source, located.line, located.column, located.message_index) == (
        "bad",
        "t.json",
        3,
        7,
        2,
    )
    overflow = again(ContextOverflowError("big", floor={"system": 9}, budget=5))
    assert isinstance(overflow, ContextOverflowError)
    assert (overflow.floor, overflow.budget) == ({"system": 9}, 5)
    extra = again(MissingExtraError("exact counting", "tiktoken", "tiktoken"))
    assert isinstance(extra, MissingExtraError)
    assert extra.extra == "tiktoken"
    for cls in (ModelError, ContextLengthExceeded):
        model = again(cls("no", provider="openai", status_code=400))
        assert isinstance(model, ModelError)
        assert (model.provider, model.status_code) == ("openai", 400)
    full = again(ChannelFullError(2, [FollowUp("a")]))
    assert isinstance(full, ChannelFullError)
    assert full.capacity == 2
    assert "1 follow-up" in str(full)
    again(ToolError("tool said no"))
