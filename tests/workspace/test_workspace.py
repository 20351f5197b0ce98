from __future__ import annotations

import asyncio
import base64
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _offload_strategies import data_blocks, messages
from contextfold._errors import ConfigError, PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import message_to_dict
from contextfold._workspace._local import INDEX_NAME, LocalWorkspace
from contextfold._workspace._offload import Offloader, OffloadRef


def fixed_clock() -> datetime:
    return datetime(2025, 1, 31, 12, 0, 0, tzinfo=UTC)


def test_is_an_offloader(tmp_path: Path) -> None:
    assert isinstance(LocalWorkspace(tmp_path, "s1"), Offloader)


def test_nothing_created_until_first_write(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "root", "s1")
    assert ws.items() == []
    assert not (tmp_path / "root").exists()


def test_default_session_id_is_unique(tmp_path: Path) -> None:
    a, b = LocalWorkspace(tmp_path), LocalWorkspace(tmp_path)
    assert a.session_id != b.session_id


@pytest.mark.parametrize("bad", ["", "../x", ".hidden", "a/b", "x" * 200, "a\x00b"])
def test_bad_session_id_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError):
        LocalWorkspace(tmp_path, bad)


async def test_tool_result_round_trip_and_index(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1", clock=fixed_clock)
    ref = await ws.offload_tool_result("line 1\nline 2\n", call_id="call_7", tool_name="grep")
    assert ref.kind == "tool_result"
    assert ref.path.startswith("tool_results/") and ref.path.endswith(".txt")
    assert ref.created == "2025-01-31T12:00:00+00:00"
    assert ref.size == 14
    assert ws.read_text(ref) == "line 1\nline 2\n"
    assert ws.items() == [ref]
    assert "grep" in ref.describe() and ref.path in ref.describe() and "call_7" in ref.describe()
    assert (tmp_path / "s1" / INDEX_NAME).is_file()


async def test_context_archive_round_trip(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    msgs = [Message.text_message("user", "hi", meta={"x": 1}), Message.text_message("assistant", "yo")]
    ref = await ws.offload_context(msgs, message_range=(3, 5))
    assert ref.kind == "context" and ref.message_range == (3, 5) and ref.path.endswith(".jsonl")
    back = ws.read_messages(ref)
    assert back == msgs and [message_to_dict(m) for m in back] == [message_to_dict(m) for m in msgs]
    assert ws.read_messages(ref.path) == msgs
    assert "Archived messages 3-4" in ref.describe()


async def test_bad_message_range_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        await LocalWorkspace(tmp_path, "s").offload_context([], message_range=(5, 2))


async def test_binary_media_stored_as_bytes(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    raw = bytes(range(256)) * 4
    block = DataBlock(media="image", media_type="image/png", data=base64.b64encode(raw).decode())
    ref = await ws.offload_data(block)
    assert ref.path.endswith(".png") and ref.media_type == "image/png" and ref.media == "image"
    assert ws.read_bytes(ref) == raw and ref.size == len(raw)
    assert ws.read_data_block(ref) == block
    assert "Image (image/png)" in ref.describe()


async def test_url_and_odd_base64_media_round_trip(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    for block in (
        DataBlock(media="document", url="https://example.com/x.pdf"),
        DataBlock(media="image", media_type="image/png", data="aGVs\nbG8="),  # not canonical base64
        DataBlock(media="image", media_type="image/png", data="!!!"),  # not base64 at all
        DataBlock(media="audio", data=base64.b64encode(b"abc").decode(), meta={"detail": "low"}),
    ):
        ref = await ws.offload_data(block)
        back = ws.read_data_block(ref)
        assert back == block and dict(back.meta) == dict(block.meta)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(block=data_blocks)
def test_any_data_block_round_trips(tmp_path: Path, block: DataBlock) -> None:
    ws = LocalWorkspace(tmp_path, "prop")
    ref = ws.offload_data_sync(block)
    back = ws.read_data_block(ref)
    assert back == block and dict(back.meta) == dict(block.meta)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(msgs=st.lists(messages, max_size=4), text=st.text(max_size=200))
def test_any_content_reads_back_exactly(tmp_path: Path, msgs: list[Message], text: str) -> None:
    """Invariant 3: whatever is offloaded reads back exactly (lone surrogates included)."""
    ws = LocalWorkspace(tmp_path, "prop")
    ctx_ref = ws.offload_context_sync(msgs)
    back = ws.read_messages(ctx_ref)
    assert [message_to_dict(m) for m in back] == [message_to_dict(m) for m in msgs]
    tr = ws.offload_tool_result_sync(text, call_id="c", tool_name=None)
    assert ws.read_text(tr) == text
    assert tr.size == len(text.encode("utf-8", "surrogatepass"))


async def test_invalid_unicode_text(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    text = "ok \udcff \ud800 end"  # lone surrogates, e.g. from surrogateescape-decoded bytes
    ref = await ws.offload_tool_result(text, call_id="c", tool_name="cat")
    assert ws.read_text(ref) == text


async def test_many_asyncio_writers(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    refs = await asyncio.gather(
        *(ws.offload_tool_result(f"result {i}\n" * 50, call_id=f"c{i}", tool_name="t") for i in range(40))
    )
    assert len({r.path for r in refs}) == 40
    items = ws.items()
    assert sorted(r.path for r in items) == sorted(r.path for r in refs)
    for r in refs:
        assert ws.read_text(r) == f"result {r.call_id[1:]}\n" * 50


def test_open_and_sessions(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "abc")
    ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    LocalWorkspace(tmp_path, "other").offload_tool_result_sync("y", call_id="d", tool_name=None)
    assert LocalWorkspace.sessions(tmp_path) == ["abc", "other"]
    opened = LocalWorkspace.open(tmp_path / "abc")
    assert opened.session_id == "abc" and opened.items() == ws.items()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../other/index.jsonl", "'..'"),
        ("tool_results/../../x", "'..'"),
        ("/etc/passwd", "absolute"),
        ("~/x", "absolute"),
        ("C:/x", "absolute"),
        ("a\\..\\b", "backslash"),
        ("a\x00b", "NUL"),
        ("a/" * 600, "longer than"),
        ("x" * 300, "255 bytes"),
        ("", "empty"),
        (".", "workspace itself"),
        ("tool_results/.tmp-abc.txt", "temporary"),
        ("bad\ud800", "Unicode"),
    ],
)
def test_path_confinement(tmp_path: Path, path: str, why: str) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    with pytest.raises(PathRefusedError) as info:
        ws.read_bytes(path)
    assert why in str(info.value)


def test_symlink_outside_refused(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "root", "s1")
    ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.symlink(secret, ws.session_dir / "link.txt")
    os.symlink(tmp_path, ws.session_dir / "dirlink")
    for path in ("link.txt", "dirlink/secret.txt"):
        with pytest.raises(PathRefusedError, match="outside"):
            ws.read_bytes(path)
    inside = ws.items()[0].path
    os.symlink(ws.session_dir / inside, ws.session_dir / "inside-link")
    with pytest.raises(PathRefusedError, match="symbolic link"):  # the workspace never writes links: none is read
        ws.read_bytes("inside-link")


def test_missing_item_and_directory(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    with pytest.raises(WorkspaceError, match="no item"):
        ws.read_bytes("tool_results/nope.txt")
    with pytest.raises(WorkspaceError, match="directory"):
        ws.read_bytes("tool_results")


def test_tampered_index_path_is_ignored(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    ref = ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    bad = OffloadRef(path="../../etc/passwd", kind="tool_result", size=1, created="x")
    import json

    with (ws.session_dir / INDEX_NAME).open("a") as f:
        f.write(json.dumps(bad.to_dict()) + "\n")
        f.write('{"path": "a", "kind": "weird"}\n[1,2]\n')
    assert ws.items() == [ref]


def test_ref_from_dict_validation() -> None:
    good = OffloadRef(path="a", kind="context", size=1, created="t", message_range=(1, 2))
    assert OffloadRef.from_dict(good.to_dict()) == good
    for patch in (
        {"size": -1},
        {"size": True},
        {"message_range": [1]},
        {"tool_name": 3},
        {"created": None},
        {"path": ""},
    ):
        with pytest.raises(ValueError):
            OffloadRef.from_dict({**good.to_dict(), **patch})
