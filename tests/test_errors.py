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
