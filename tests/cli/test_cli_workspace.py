from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from contextfold import DataBlock, LocalWorkspace, Message
from contextfold._cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env={"COLUMNS": "200", "NO_COLOR": "1"})
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def session(tmp_path: Path) -> LocalWorkspace:
    ws = LocalWorkspace(tmp_path, "sess1")
    ws.offload_tool_result_sync("hello\nworld\n", call_id="call_1", tool_name="grep")
    ws.offload_context_sync(
        [Message.text_message("user", "archived question"), Message.text_message("assistant", "answer")],
        message_range=(2, 4),
    )
    ws.offload_data_sync(DataBlock(media="image", media_type="image/png", data="iVBORw=="))
    return ws


def test_ls_table(session: LocalWorkspace) -> None:
    code, out, err = run("workspace", "ls", str(session.session_dir))
    assert code == 0 and err == ""
    assert "3 items" in out and "tool_result" in out and "grep call call_1" in out
    assert "messages 2-3" in out and "image image/png" in out
    for ref in session.items():
        assert ref.path in out


def test_ls_json_and_root(session: LocalWorkspace) -> None:
    code, out, _ = run("workspace", "ls", str(session.session_dir), "--json")
    assert code == 0
    data = json.loads(out)
    assert [d["kind"] for d in data] == ["tool_result", "context", "media"]
    assert data[1]["message_range"] == [2, 4]
    code, out, _ = run("workspace", "ls", str(session.root), "--json")
    assert code == 0 and all(d["path"].startswith("sess1/") for d in json.loads(out))


def test_show_items(session: LocalWorkspace) -> None:
    tool, ctx, _media = session.items()
    code, out, _ = run("workspace", "show", str(session.session_dir), tool.path)
    assert code == 0 and "hello\nworld" in out and "grep" in out
    code, out, _ = run("workspace", "show", str(session.session_dir), "2")
    assert code == 0 and "[0] user" in out and "archived question" in out and "[1] assistant" in out
    code, out, _ = run("workspace", "show", str(session.session_dir), "3")
    assert code == 0 and "binary media" in out
    code, out, _ = run("workspace", "show", str(session.root), "sess1/" + ctx.path, "--raw")
    assert code == 0 and out == session.read_bytes(ctx).decode()


@pytest.mark.parametrize(
    ("argv_tail", "expect"),
    [
        (("ls", "{missing}"), "not a directory"),
        (("ls", "{empty}"), "no workspace here"),
        (("show", "{session}", "nope.txt"), "no item 'nope.txt'"),
        (("show", "{session}", "99"), "no item '99'"),
        ((), "choose an action"),
    ],
)
def test_user_mistakes_are_one_line(
    session: LocalWorkspace, tmp_path: Path, argv_tail: tuple[str, ...], expect: str
) -> None:
    (tmp_path / "empty").mkdir()
    values = {
        "missing": str(tmp_path / "missing"),
        "empty": str(tmp_path / "empty"),
        "session": str(session.session_dir),
    }
    argv = [a.format(**values) for a in argv_tail]
    code, out, err = run("workspace", *argv)
    assert code == 2 and out == ""
    assert expect in err and err.count("\n") == 1 and "Traceback" not in err
