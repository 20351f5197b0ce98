from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_split import CharCounter, cost, tool_results

from contextfold._errors import WorkspaceError
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import BytesCounter
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._readback import read_offloaded
from contextfold._workspace._split import TRUNCATION_MARKER, minimum_limit, offload_oversized_result


def kept_text_without_notice(kept: ToolResultBlock) -> str:
    body = kept.content[:-1]
    return "\n".join(b.text for b in body if isinstance(b, TextBlock))


@settings(max_examples=60, deadline=None)
@given(block=tool_results, extra=st.integers(0, 2000), chars=st.booleans())
async def test_offload_invariants_with_local_workspace(block: ToolResultBlock, extra: int, chars: bool) -> None:
    counter = CharCounter() if chars else BytesCounter()
    limit = minimum_limit(counter, block) + extra
    with tempfile.TemporaryDirectory() as tmp:
        ws = LocalWorkspace(tmp, "prop")
        kept, ref = await offload_oversized_result(block, limit=limit, counter=counter, offloader=ws)
        if ref is None:
            assert kept is block and cost(counter, block) <= limit
            assert ws.items() == []
            return
        assert cost(counter, kept) <= limit  # kept part plus reminder fits
        notice = kept.content[-1].text
        assert notice.startswith(TRUNCATION_MARKER + "\n<system-reminder>\n")
        assert notice.endswith("</system-reminder>") and ref.path in notice
        assert "limited context" in notice
        items = ws.items()
        files = [p for p in Path(tmp, "prop").rglob("*") if p.is_file() and p.name != "index.jsonl"]
        assert len(files) == len({r.path for r in items})  # every file written is listed: none superseded
        for r in items:
            assert r.path in notice  # and named in the reminder
        # the text file holds the whole text; the reminder says where the kept part ends (or that it is complete)
        assert [r for r in items if r.kind == "tool_result"] == [ref]
        assert ws.read_text(ref) == block.text
        assert ref.call_id == block.call_id and ref.tool_name == block.name
        head = kept_text_without_notice(kept)
        if "the text above is complete" in notice:
            assert block.text.startswith(head) and block.text[len(head) :] in ("", "\n")  # but a block separator
        else:
            assert "read_offloaded" in notice and block.text.startswith(head) and len(head) < len(block.text)
        # media cut off are in the workspace too, named in the reminder
        kept_media = [b for b in kept.content if isinstance(b, DataBlock)]
        media_items = [r for r in items if r.kind == "media"]
        assert len(kept_media) + len(media_items) == sum(isinstance(b, DataBlock) for b in block.content)


class FailingOffloader:
    async def offload_data(self, block: DataBlock) -> OffloadRef:
        raise WorkspaceError("disk full")

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        raise WorkspaceError("disk full")

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        raise WorkspaceError("disk full")


async def test_failing_offloader_raises_and_keeps_input() -> None:
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="x" * 100_000),))
    with pytest.raises(WorkspaceError):
        await offload_oversized_result(block, limit=1000, counter=BytesCounter(), offloader=FailingOffloader())
    assert block.content[0].text == "x" * 100_000  # frozen input, nothing dropped


async def test_without_offloader_truncates_and_says_so() -> None:
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="line\n" * 50_000),), name="cat")
    kept, ref = await offload_oversized_result(block, limit=1000, counter=BytesCounter(), offloader=None)
    assert ref is None
    assert cost(BytesCounter(), kept) <= 1000
    assert "not saved" in kept.content[-1].text and TRUNCATION_MARKER in kept.content[-1].text
    small = ToolResultBlock(call_id="c", content=(TextBlock(text="ok"),))
    assert await offload_oversized_result(small, limit=1000, counter=BytesCounter(), offloader=None) == (small, None)


async def test_50_mb_result(tmp_path: Path) -> None:
    text = ("0123456789abcdef" * 4 + "\n") * (50 * 1024 * 1024 // 65)
    block = ToolResultBlock(call_id="big", content=(TextBlock(text=text),), name="dump")
    ws = LocalWorkspace(tmp_path, "s")
    kept, ref = await offload_oversized_result(block, limit=50_000, counter=BytesCounter(), offloader=ws)
    assert ref is not None and cost(BytesCounter(), kept) <= 50_000
    head = kept_text_without_notice(kept)
    assert head.endswith("\n")  # cut at a line boundary
    assert ws.read_bytes(ref) == text.encode()  # the whole output, under its content-addressed name
    line = head.count("\n")
    assert f"read_offloaded(path={ref.path!r}, offset={line})" in kept.content[-1].text
    window = read_offloaded(ws, ref.path, offset=line, limit=200)
    assert window.splitlines()[0] == f"{line + 1:>6}\t" + "0123456789abcdef" * 4


async def test_single_5_mb_line(tmp_path: Path) -> None:
    text = "".join(chr(0x41 + i % 26) for i in range(5 * 1024 * 1024))
    block = ToolResultBlock(call_id="line", content=(TextBlock(text=text),))
    ws = LocalWorkspace(tmp_path, "s")
    kept, ref = await offload_oversized_result(block, limit=10_000, counter=BytesCounter(), offloader=ws)
    assert ref is not None and cost(BytesCounter(), kept) <= 10_000
    head = kept_text_without_notice(kept)
    assert 39_000 < len(head) < 40_000  # no newline near: cut by token ratio inside the line
    assert ws.read_text(ref) == text
    notice = kept.content[-1].text
    assert f"read_offloaded(path={ref.path!r}, offset=0, limit=1, column={len(head)})" in notice
    first = read_offloaded(ws, ref.path, limit=1, column=len(head), max_line_chars=1000)
    assert f"column={len(head) + 1000}" in first and text[len(head) : len(head) + 1000] in first
    nxt = read_offloaded(ws, ref.path, limit=1, column=len(head) + 1000, max_line_chars=1000)
    assert text[len(head) + 1000 : len(head) + 2000] in nxt


async def test_binary_and_invalid_utf8_content(tmp_path: Path) -> None:
    raw = bytes(range(256)) * 2000
    text = raw.decode("utf-8", "surrogateescape")  # how a tool may hand over undecodable bytes
    block = ToolResultBlock(call_id="bin", content=(TextBlock(text=text),))
    ws = LocalWorkspace(tmp_path, "s")
    _, ref = await offload_oversized_result(block, limit=2_000, counter=BytesCounter(), offloader=ws)
    assert ref is not None
    assert ws.read_text(ref) == text
    assert ws.read_text(ref).encode("utf-8", "surrogateescape") == raw
    shown = read_offloaded(ws, ref.path, limit=5)  # display never fails on undecodable bytes
    assert shown.splitlines()[-1].startswith("[")
