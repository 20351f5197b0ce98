"""`contextfold._formats._files`: bounded reading, bounded gunzip, surrogate escaping, checked atomic writes."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import stat
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import InputError, load_transcripts
from contextfold._formats._files import decode_utf8, gunzip_bounded, read_input, write_bytes_atomic
from contextfold.files import OutputFile, escape_surrogates


@settings(max_examples=80, deadline=None)
@given(
    parts=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
    level=st.sampled_from([0, 1, 9]),
    padding=st.integers(0, 8),
)
def test_gunzip_bounded_equals_gzip_for_any_members(parts: list[bytes], level: int, padding: int) -> None:
    data = b"".join(gzip.compress(p, compresslevel=level) for p in parts) + b"\0" * padding
    expected = b"".join(parts)
    assert gunzip_bounded(data, max_bytes=max(len(expected), 1)) == expected == gzip.decompress(data)
    if expected:
        with pytest.raises(InputError, match="decompresses to more than the input limit"):
            gunzip_bounded(data, max_bytes=len(expected) - 1) if len(expected) > 1 else gunzip_bounded(
                data, max_bytes=0
            )


def test_gunzip_bounded_holds_at_most_a_step_over_the_limit() -> None:
    """A 64 MiB bomb with a 1 MiB limit: the output buffer never grows far past the limit."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = b"".join([deflate.compress(b"\0" * (1 << 20)) for _ in range(64)] + [deflate.flush()])
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="raise it with --max-input-bytes"):
            gunzip_bounded(bomb, max_bytes=1 << 20, limit_name="--max-input-bytes")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # gzip.decompress would hold 64 MiB


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (gzip.compress(b"x" * 1000, mtime=0)[:-12], "truncated gzip data"),
        (gzip.compress(b"abc", mtime=0) + b"garbage", "trailing bytes after the last gzip member"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff", "corrupt gzip data"),
        (b"\x1f\x8b", "truncated gzip data"),
    ],
)
def test_damaged_gzip_is_an_input_error(data: bytes, needle: str) -> None:
    with pytest.raises(InputError, match=needle) as info:
        gunzip_bounded(data, max_bytes=1 << 20, source="t.gz")
    assert str(info.value).startswith("t.gz: ")


def test_read_input_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="cannot read a FIFO"):
        read_input(fifo)  # returns at once: the open does not wait for a writer
    with pytest.raises(InputError, match="cannot read a directory"):
        read_input(tmp_path)
    with pytest.raises(InputError, match="cannot read the file: No such file"):
        read_input(tmp_path / "missing")
    if Path("/dev/zero").exists():
        link = tmp_path / "zero"
        link.symlink_to("/dev/zero")
        with pytest.raises(InputError, match="cannot read a character device"):
            read_input(link)


def test_read_input_limits_files_and_stdin(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_input(path, max_bytes=100) == b"x" * 100
    with pytest.raises(InputError, match=r"the file is 100 bytes, more than the input limit of 99 bytes; raise it"):
        read_input(path, max_bytes=99)
    assert read_input("-", stdin=io.BytesIO(b"abc"), max_bytes=3) == b"abc"
    with pytest.raises(InputError, match="<stdin>: standard input holds more than the input limit of 2 bytes"):
        read_input("-", stdin=io.BytesIO(b"abc"), max_bytes=2, limit_name="--max-input-bytes")


def test_read_input_decompresses_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "named-without-suffix"
    path.write_bytes(gzip.compress(b"hello"))
    assert read_input(path, decompress=True) == b"hello"  # found by its magic bytes, not by the name
    with pytest.raises(InputError, match="gzip-compressed, and this reads plain UTF-8 text"):
        read_input(path)


def test_load_transcripts_reads_gzip_and_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(json.dumps([{"role": "user", "content": "hi"}]).encode()))
    assert load_transcripts(path)[0].messages[0].text == "hi"
    with pytest.raises(InputError, match="raise it with max_bytes"):
        load_transcripts(path, max_bytes=5)


def test_decode_utf8_names_the_byte_and_position() -> None:
    with pytest.raises(InputError) as info:
        decode_utf8(b"ok\nab\xff", source="f.txt", what="--base-file")
    assert (info.value.line, info.value.column) == (2, 3)
    assert "--base-file is not UTF-8 text: invalid byte 0xff at byte offset 5" in str(info.value)


_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_ANY = st.one_of(st.characters(), _SURROGATES)


def _no_pair(text: str) -> bool:
    """A high surrogate right before a low one reads back as one astral code point (JSON escapes do that too)."""
    return not any(0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF for a, b in itertools.pairwise(text))


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(st.text(_ANY).filter(_no_pair), lambda kids: st.lists(kids, max_size=3), max_leaves=6))
def test_escaped_json_is_utf8_and_reads_back_the_same(value: object) -> None:
    text = escape_surrogates(json.dumps(value, ensure_ascii=False))
    text.encode("utf-8")  # never raises
    assert json.loads(text) == value
    plain = json.dumps(value, ensure_ascii=False)
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in plain):
        assert text == plain  # untouched when UTF-8 can carry it


def test_output_file_refuses_what_is_not_a_file_and_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="is a symbolic link, not a regular file; refusing to replace it"):
        OutputFile(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        OutputFile(fifo)
    with pytest.raises(InputError, match="is a directory"):
        OutputFile(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        OutputFile(tmp_path / "no" / "t")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "t"]


def test_output_file_writes_on_commit_only(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with pytest.raises(RuntimeError, match="boom"), OutputFile(target):
        assert len(list(tmp_path.iterdir())) == 2  # the temporary file exists from the start
        raise RuntimeError("boom")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["out"]
    with OutputFile(target) as out:
        out.commit(b"new")
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    write_bytes_atomic(tmp_path / "fresh", b"x")
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "out"]


def test_read_text_is_bounded_names_the_limit_and_refuses_gzip(tmp_path: Path) -> None:
    from contextfold.files import read_text

    path = tmp_path / "notes.txt"
    path.write_bytes("héllo\n".encode())
    assert read_text(path) == "héllo\n"
    assert read_text("-", stdin=io.BytesIO(b"from stdin")) == "from stdin"
    with pytest.raises(InputError, match="raise it with --max-notes"):
        read_text(path, max_bytes=3, limit_name="--max-notes")
    path.write_bytes(b"ok\n\xff")
    with pytest.raises(InputError, match=r"notes.txt:2:1: --base-file is not UTF-8 text: invalid byte 0xff"):
        read_text(path, what="--base-file")
    path.write_bytes(gzip.compress(b"hi"))
    with pytest.raises(InputError, match="gzip-compressed"):
        read_text(path)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputError, match="FIFO"):
        read_text(tmp_path / "fifo")


def test_load_transcripts_names_the_limit_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"role": "user", "content": "x" * 100}]))
    with pytest.raises(InputError, match="raise it with --max-input-bytes"):
        load_transcripts(path, max_bytes=50, limit_name="--max-input-bytes")
