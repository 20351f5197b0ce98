from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import Message, ReadCache


def test_record_and_freshness() -> None:
    cache = ReadCache()
    m = Message.text_message("tool", "contents of a.py")
    cache.record("a.py", 10.0, m)
    assert cache.is_fresh("a.py", 10.0)
    assert not cache.is_fresh("a.py", 11.0)  # file changed since
    assert not cache.is_fresh("b.py", 10.0)
    cache.record("a.py", 11.0, m)
    assert cache.is_fresh("a.py", 11.0) and len(cache) == 1


def test_invalidate_by_identity_not_equality() -> None:
    cache = ReadCache()
    m1 = Message.text_message("tool", "same")
    m2 = Message.text_message("tool", "same")
    cache.record("a.py", 1.0, m1)
    cache.record("b.py", 1.0, m2)
    assert cache.invalidate([m1]) == ["a.py"]
    assert cache.paths() == ["b.py"]
    assert not cache.is_fresh("a.py", 1.0) and cache.is_fresh("b.py", 1.0)


def test_index_records_range_and_shift() -> None:
    cache = ReadCache()
    cache.record("a", 1.0, 2)
    cache.record("b", 1.0, 7)
    assert cache.invalidate_range(0, 5) == ["a"]
    cache.shift(5)
    got = cache.get("b")
    assert got is not None and got.index == 2
    cache.clear()
    assert len(cache) == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 19)), max_size=30), st.sets(st.integers(0, 19)))
def test_invalidated_messages_never_fresh(reads: list[tuple[int, int]], compacted: set[int]) -> None:
    msgs = [Message.text_message("tool", f"m{i}") for i in range(20)]
    cache = ReadCache()
    last: dict[str, int] = {}
    for f, mi in reads:
        cache.record(f"f{f}", 0.0, msgs[mi])
        last[f"f{f}"] = mi
    cache.invalidate([msgs[i] for i in compacted])
    for path, mi in last.items():
        assert cache.is_fresh(path, 0.0) == (mi not in compacted)
