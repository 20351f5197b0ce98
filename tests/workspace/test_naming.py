"""The naming rule: a workspace path is a function of the item's kind and content (issue 14 item 3)."""

from __future__ import annotations

import hashlib
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _offload_strategies import any_text, data_blocks, messages
from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import block_to_dict, messages_to_jsonl
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._naming import (
    NAME_HEX_DIGITS,
    payload_for_context,
    payload_for_media,
    payload_for_tool_result,
)


def stored_files(ws: LocalWorkspace) -> list[str]:
    return sorted(
        p.relative_to(ws.session_dir).as_posix()
        for p in ws.session_dir.rglob("*")
        if p.is_file() and p.name != "index.jsonl"
    )


def test_the_rule_is_pinned() -> None:
    """Another backend (an object store) must find the same names: pin the rule byte for byte."""
    text = "hello\n"
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert payload_for_tool_result(text).path == f"tool_results/{digest[:16]}.txt"
    msgs = [Message.text_message("user", "hi")]
    assert payload_for_context(msgs).path == (
        "context/" + hashlib.sha256(messages_to_jsonl(msgs).encode()).hexdigest()[:16] + ".jsonl"
    )
    png = DataBlock(media="image", media_type="image/png", data="AAAA")
    identity = b"image\0image/png\0" + b"\0\0\0"
    assert payload_for_media(png).path == f"media/{hashlib.sha256(identity).hexdigest()[:16]}.png"
    url = DataBlock(media="image", url="https://example.com/a.png")
    assert payload_for_media(url).path.endswith(".block.json")
    assert NAME_HEX_DIGITS == 16


@settings(max_examples=200, deadline=None)
@given(a=any_text, b=any_text)
def test_tool_result_names_follow_the_content(a: str, b: str) -> None:
    pa, pb = payload_for_tool_result(a), payload_for_tool_result(b)
    assert pa.path == payload_for_tool_result(a).path  # a pure function: no clock, no randomness
    assert (pa.path == pb.path) == (a.encode("utf-8", "surrogatepass") == b.encode("utf-8", "surrogatepass"))


@settings(max_examples=100, deadline=None)
@given(a=data_blocks, b=data_blocks)
def test_media_names_follow_the_block(a: DataBlock, b: DataBlock) -> None:
    same = payload_for_media(a).path == payload_for_media(b).path
    assert same == (payload_for_media(a).digest == payload_for_media(b).digest)
    if block_to_dict(a) == block_to_dict(b):  # the same block, meta included
        assert same
    if a.media != b.media or a.media_type != b.media_type:
        assert not same  # one name never stands for two different blocks


def test_media_type_is_part_of_a_media_name() -> None:
    png = DataBlock(media="image", media_type="image/png", data="AAAA")
    doc = DataBlock(media="document", media_type="image/png", data="AAAA")
    jpeg = DataBlock(media="image", media_type="image/jpeg", data="AAAA")
    assert len({payload_for_media(b).path for b in (png, doc, jpeg)}) == 3


@settings(max_examples=40, deadline=None)
@given(text=any_text, msgs=st.lists(messages, max_size=3), block=data_blocks)
def test_offloading_twice_stores_once_and_indexes_both(text: str, msgs: list[Message], block: DataBlock) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        first = LocalWorkspace(tmp, "a", clock=lambda: datetime(2025, 1, 1, tzinfo=UTC))
        later = LocalWorkspace(tmp, "a", clock=lambda: datetime(2026, 6, 1, tzinfo=UTC))
        refs = [
            first.offload_tool_result_sync(text, call_id="c1", tool_name="t"),
            later.offload_tool_result_sync(text, call_id="c2", tool_name="t"),
            first.offload_context_sync(msgs, message_range=(0, len(msgs))),
            later.offload_context_sync(msgs, message_range=(5, 5 + len(msgs))),
            first.offload_data_sync(block),
            later.offload_data_sync(block),
        ]
        for one, two in zip(refs[::2], refs[1::2], strict=True):
            assert one.path == two.path and one.created != two.created  # the time is in the index only
        assert stored_files(first) == sorted({r.path for r in refs})  # three items, three files
        assert first.items() == refs  # one record per offload, each with its own call, range and time
        assert first.read_text(refs[0]) == text
        assert first.read_messages(refs[2]) == msgs
        assert first.read_data_block(refs[4]) == block
        assert refs[0].path == payload_for_tool_result(text).path


def test_different_sessions_and_roots_give_the_same_names(tmp_path: Path) -> None:
    a = LocalWorkspace(tmp_path / "x", "one").offload_tool_result_sync("same", call_id="c", tool_name=None)
    b = LocalWorkspace(tmp_path / "y", "two").offload_tool_result_sync("same", call_id="d", tool_name="t")
    assert a.path == b.path


def test_a_taken_name_with_other_bytes_moves_to_the_full_digest(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s")
    payload = payload_for_tool_result("the real content\n")
    squatter = ws.session_dir / payload.path
    squatter.parent.mkdir(parents=True)
    squatter.write_bytes(b"other bytes under the same short name\n")  # a collision, or an edited file
    ref = ws.offload_tool_result_sync("the real content\n", call_id="c", tool_name=None)
    assert ref.path == payload.full_path and len(ref.path) == len("tool_results/") + 64 + len(".txt")
    assert ws.read_text(ref) == "the real content\n"
    assert squatter.read_bytes() == b"other bytes under the same short name\n"  # nothing overwritten
    again = ws.offload_tool_result_sync("the real content\n", call_id="d", tool_name=None)
    assert again.path == ref.path


@pytest.mark.parametrize(
    ("media_type", "suffix"),
    [("image/png", ".png"), ("image/jpeg", ".jpg"), ("IMAGE/PNG; q=1", ".png"), ("x/unknown", ".bin"), (None, ".bin")],
)
def test_extensions_come_from_a_fixed_table(media_type: str | None, suffix: str) -> None:
    block = DataBlock(media="image", media_type=media_type, data="AAAA")
    assert payload_for_media(block).path.endswith(suffix)
