"""The byte-exact record packing shared by the Redis and Postgres stores, and the operator helpers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import ConfigError
from contextfold._stores._codec import pack_record, pack_rewrites, unpack_record, unpack_rewrites
from contextfold.proxy import LineageRecord, StoreError, display_url, parse_duration

records = st.builds(
    LineageRecord,
    tenant=st.just("t"),
    session=st.just("s"),
    lineage=st.just("l"),
    version=st.just(3),
    covered=st.integers(0, 2**31),
    covered_hash=st.text(max_size=64),
    replacement=st.binary(max_size=200),
    marked=st.none() | st.binary(max_size=200),
    tokens=st.integers(0, 2**31),
    compactions=st.integers(0, 10**6),
    rewrites=st.dictionaries(st.text(max_size=20), st.binary(max_size=50), max_size=5),
    updated=st.floats(0, 2e9, allow_nan=False),
)


@given(records)
def test_any_record_packs_and_unpacks_exactly(record: LineageRecord) -> None:
    data = pack_record(record)
    back = unpack_record(data, tenant="t", session="s", lineage="l", version=3)
    assert back == record
    assert dict(unpack_rewrites(pack_rewrites(record.rewrites))) == dict(record.rewrites)


@given(records, st.data())
def test_a_damaged_record_is_refused_never_misread(record: LineageRecord, data: st.DataObject) -> None:
    packed = pack_record(record)
    cut = data.draw(st.integers(0, len(packed) - 1))
    damaged = packed[:cut]
    try:
        back = unpack_record(damaged, tenant="t", session="s", lineage="l", version=3)
    except StoreError:
        return
    # a shorter value can only parse when what was cut off was nothing at all
    assert back == record and cut == len(packed)  # pragma: no cover - never reached: every cut is refused


def test_garbage_is_a_store_error() -> None:
    for bad in (b"", b"no header", b"[1,2]\nxx", b'{"c":1}\n'):
        with pytest.raises(StoreError):
            unpack_record(bad, tenant="t", session="s", lineage="l", version=1)
    with pytest.raises(StoreError):
        unpack_rewrites(b'[["a",5]]\nabc')


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 30.0),
        ("90s", 90.0),
        ("15m", 900.0),
        ("12h", 43200.0),
        ("7d", 604800.0),
        ("2w", 1209600.0),
        ("1.5h", 5400.0),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["0", "none", "forever", "NEVER"])
def test_keep_forever(text: str) -> None:
    assert parse_duration(text) is None


@pytest.mark.parametrize("text", ["", "7 days", "-1", "1y", "0.2s", "abc"])
def test_bad_durations_say_what_to_write(text: str) -> None:
    with pytest.raises(ConfigError, match="--retention"):
        parse_duration(text)


def test_display_url_drops_passwords_and_query() -> None:
    assert display_url("redis://:pw@127.0.0.1:6379/0") == "redis://:***@127.0.0.1:6379/0"
    assert display_url("postgresql://u:pw@db:5432/x?password=pw") == "postgresql://u:***@db:5432/x"
    assert display_url("postgresql://u@db/x") == "postgresql://u@db/x"
    assert display_url("redis://h:1/0?prefix=a:") == "redis://h:1/0"
