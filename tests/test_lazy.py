"""`lazy_pattern`: a module-level regex compiled on first use, answering exactly as the compiled pattern does."""

from __future__ import annotations

import re
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._lazy import lazy_pattern

PATTERNS = [
    (r"https?://[^\s<>\"'`)\]}]+", 0),
    (r"\b(?:task|job|pid)(?:[ _-]?id)?\s*(?:[:=#]\s*|\s)([A-Za-z0-9][\w-]{1,63})\b", re.IGNORECASE),
    (r"^- (rule|file)(?: \[exit (-?\d+)\])?:(?: (.*))?$", re.MULTILINE),
]


def test_it_compiles_on_first_use_only() -> None:
    pattern = lazy_pattern(r"a+b", re.IGNORECASE)
    assert pattern.pattern == r"a+b"  # no compile needed for the source
    assert "search" not in vars(pattern)
    assert pattern.search("xAAb") is not None
    assert "search" in vars(pattern)  # cached: later calls are a plain attribute lookup
    assert pattern.flags == re.compile(r"a+b", re.IGNORECASE).flags
    assert repr(pattern) == "lazy_pattern('a+b')"


@given(st.text(alphabet="ab-: /#\n" + "taskjobpidTASK0123ehtp", max_size=60))
def test_every_method_answers_as_the_compiled_pattern(text: str) -> None:
    for source, flags in PATTERNS:
        lazy, compiled = lazy_pattern(source, flags), re.compile(source, flags)
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
        assert lazy.findall(text) == compiled.findall(text)
        assert lazy.sub("<x>", text) == compiled.sub("<x>", text)
        assert lazy.split(text) == compiled.split(text)
        for pos in range(0, len(text) + 1, 7):
            a, b = lazy.match(text, pos), compiled.match(text, pos)
            assert (a and a.groups()) == (b and b.groups())


def test_first_use_from_many_threads_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = re.compile

    def counting(source: str, flags: int = 0) -> re.Pattern[str]:
        calls.append(source)
        return real(source, flags)

    monkeypatch.setattr(re, "compile", counting)
    pattern = lazy_pattern(r"(\d+)-(\d+)")
    assert calls == []
    gate = threading.Barrier(8)
    got: list[object] = []

    def use() -> None:
        gate.wait()
        match = pattern.search("x 12-34")
        got.append(match.groups() if match else None)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert got == [("12", "34")] * 8
    assert calls == [r"(\d+)-(\d+)"]
