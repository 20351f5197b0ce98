from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from contextfold import LocalWorkspace, Message, PathRefusedError, WorkspaceError
from contextfold._workspace._codec import messages_to_jsonl
from contextfold._workspace._local import INDEX_NAME, TEMP_PREFIX

SRC = str(Path(__file__).resolve().parents[1] / "src")


def visible_files(ws: LocalWorkspace) -> list[str]:
    return sorted(str(p.relative_to(ws.session_dir)) for p in ws.session_dir.rglob("*") if p.is_file())


def run_py(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
async def test_failure_before_rename_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    first = await ws.offload_tool_result("kept", call_id="c0", tool_name=None)
    before = visible_files(ws)

    def boom(src: object, dst: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(WorkspaceError) as info:
        await ws.offload_tool_result("lost", call_id="c1", tool_name=None)
    assert isinstance(info.value.__cause__, OSError) and info.value.__cause__.errno == code
    assert os.strerror(code) in str(info.value)
    monkeypatch.undo()
    assert visible_files(ws) == before  # temp file removed, no new item
    assert ws.items() == [first]


async def test_read_only_at_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root, where chmod does not stop writes: simulate EROFS at the first open.
    ws = LocalWorkspace(tmp_path, "s1")
    real_open = os.open

    def ro_open(path: object, flags: int, *a: object, **k: object) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", ro_open)
    with pytest.raises(WorkspaceError, match="Read-only"):
        await ws.offload_context([Message.text_message("user", "x")])
    monkeypatch.undo()
    assert ws.items() == [] and visible_files(ws) == []


async def test_index_append_failure_removes_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    import contextfold._workspace._local as mod

    def full(path: Path, line: bytes, durable: bool) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(mod, "_append_line", full)
    with pytest.raises(WorkspaceError, match="No space"):
        await ws.offload_tool_result("x", call_id="c", tool_name=None)
    assert visible_files(ws) == []


async def test_interrupt_between_write_and_rename_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = LocalWorkspace(tmp_path, "s1")

    def interrupted(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ws.offload_tool_result_sync("x", call_id="c", tool_name=None)
    monkeypatch.undo()
    assert visible_files(ws) == [] and ws.items() == []


def test_killed_between_write_and_rename(tmp_path: Path) -> None:
    """A process killed after the temp write: the temp stays on disk but is never an item."""
    ws = LocalWorkspace(tmp_path, "s1")
    first = ws.offload_tool_result_sync("before", call_id="c0", tool_name=None)
    proc = run_py(
        """
        import os, sys
        from contextfold._workspace._local import LocalWorkspace
        os.replace = lambda src, dst: os._exit(9)
        LocalWorkspace(sys.argv[1], "s1").offload_tool_result_sync("half", call_id="c1", tool_name=None)
        """,
        str(tmp_path),
    )
    assert proc.returncode == 9, proc.stderr
    temps = [p for p in ws.session_dir.rglob(f"{TEMP_PREFIX}*")]
    assert len(temps) == 1 and temps[0].read_bytes() == b"half"
    assert ws.items() == [first]
    with pytest.raises(PathRefusedError, match="temporary"):
        ws.read_bytes(str(temps[0].relative_to(ws.session_dir)))
    second = ws.offload_tool_result_sync("after", call_id="c2", tool_name=None)
    assert ws.items() == [first, second]


def test_torn_index_line_is_ignored_and_next_write_is_clean(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s1")
    first = ws.offload_tool_result_sync("a", call_id="c0", tool_name=None)
    with (ws.session_dir / INDEX_NAME).open("ab") as f:
        f.write(b'{"path":"tool_results/x.txt","kind":"tool_re')  # crash mid-append
    assert ws.items() == [first]
    second = ws.offload_tool_result_sync("b", call_id="c1", tool_name=None)
    assert ws.items() == [first, second]
    assert ws.read_text(second) == "b"


WRITER = """
import sys
from contextfold._workspace._local import LocalWorkspace
root, session, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ws = LocalWorkspace(root, session)
for i in range(n):
    ws.offload_tool_result_sync(f"{tag}-{i}\\n" * 100, call_id=f"{tag}-{i}", tool_name=tag)
"""


@pytest.mark.parametrize("same_session", [False, True])
def test_two_processes_same_root(tmp_path: Path, same_session: bool) -> None:
    env = dict(os.environ, PYTHONPATH=SRC)
    n = 30
    sessions = ("shared", "shared") if same_session else ("a", "b")
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), sessions[i], f"p{i}", str(n)], env=env)
        for i in range(2)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    refs = [r for sid in set(sessions) for r in LocalWorkspace(tmp_path, sid).items()]
    assert len(refs) == 2 * n
    assert len({r.call_id for r in refs}) == 2 * n
    for sid in set(sessions):
        ws = LocalWorkspace(tmp_path, sid)
        for r in ws.items():
            assert ws.read_text(r) == f"{r.call_id}\n" * 100
        assert not list(ws.session_dir.rglob(f"{TEMP_PREFIX}*"))


def test_short_writes_are_resumed_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A file system may accept fewer bytes than asked (signals, quotas): the rest is written, in order.
    real_writev = os.writev

    def short_writev(fd: int, buffers: Sequence[bytes]) -> int:
        first = bytes(buffers[0])
        return real_writev(fd, [first[: max(1, len(first) // 3)]])

    monkeypatch.setattr(os, "writev", short_writev)
    ws = LocalWorkspace(tmp_path, "s")
    msgs = [Message.text_message("user", "é" * 1000 + str(i)) for i in range(50)]
    ref = ws.offload_context_sync(msgs)
    assert ws.read_messages(ref) == msgs
    assert (tmp_path / "s" / ref.path).stat().st_size == ref.size == len(messages_to_jsonl(msgs).encode())


@pytest.mark.parametrize("durable", [True, False])
async def test_durable_fsyncs_each_write_and_not_durable_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, durable: bool
) -> None:
    """``durable=False`` (the proxy's choice) skips every fsync and stores the same bytes under the same names."""
    synced: list[int] = []
    real_fsync = os.fsync

    def counting(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting)
    ws = LocalWorkspace(tmp_path / str(durable), "s1", durable=durable)
    ref = await ws.offload_tool_result("line\n" * 50, call_id="c", tool_name="shell")
    monkeypatch.undo()
    assert len(synced) == (3 if durable else 0)  # content file, its directory, the index line
    other = LocalWorkspace(tmp_path / str(not durable), "s1", durable=not durable)
    again = await other.offload_tool_result("line\n" * 50, call_id="c", tool_name="shell")
    assert ref.path == again.path
    assert ws.read_text(ref.path) == other.read_text(again.path) == "line\n" * 50
