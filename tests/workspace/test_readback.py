from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold._errors import PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message
from contextfold._tokens._counting import BytesCounter
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._readback import (
    READ_OFFLOADED_SPEC,
    SEARCH_OFFLOADED_SPEC,
    bind_readback_tools,
    read_offloaded,
    search_offloaded,
)


@pytest.fixture
def ws(tmp_path: Path) -> LocalWorkspace:
    w = LocalWorkspace(tmp_path, "s1")
    w.offload_tool_result_sync("".join(f"row {i}\n" for i in range(1, 1001)), call_id="c1", tool_name="seq")
    w.offload_context_sync([Message.text_message("user", "find the needle please")], message_range=(0, 1))
    w.offload_data_sync(DataBlock(media="image", media_type="image/png", data="AAAA"))
    return w


def test_window_is_line_numbered(ws: LocalWorkspace) -> None:
    path = ws.items()[0].path
    out = read_offloaded(ws, path, offset=10, limit=3)
    lines = out.splitlines()
    assert lines[:3] == ["    11\trow 11", "    12\trow 12", "    13\trow 13"]
    assert f"read_offloaded(path={path!r}, offset=13)" in lines[3]
    end = read_offloaded(ws, path, offset=998, limit=10)
    assert end.splitlines()[-1] == f"[end of {path}: 1000 lines]"
    past = read_offloaded(ws, path, offset=5000)
    assert "past the end" in past


def test_binary_media_not_shown(ws: LocalWorkspace) -> None:
    media = next(r for r in ws.items() if r.kind == "media")
    assert "binary media (image/png" in read_offloaded(ws, media.path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(max_tokens=st.integers(60, 3000), offset=st.integers(0, 1100), limit=st.integers(1, 400))
def test_output_never_exceeds_limit(ws: LocalWorkspace, max_tokens: int, offset: int, limit: int) -> None:
    counter = BytesCounter()
    out = read_offloaded(ws, ws.items()[0].path, offset, limit, max_tokens=max_tokens, counter=counter)
    assert counter.count_text(out) <= max_tokens
    rows = [r for r in out.splitlines() if "\t" in r]
    assert all(r == f"{offset + i + 1:>6}\trow {offset + i + 1}" for i, r in enumerate(rows))
    if rows and len(rows) < min(limit, 1000 - offset):
        assert "more follow" in out  # cut by the token limit: says how to continue


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(max_tokens=st.integers(60, 2000))
def test_search_output_never_exceeds_limit(ws: LocalWorkspace, max_tokens: int) -> None:
    out = search_offloaded(ws, "row", max_results=1000, max_tokens=max_tokens)
    assert BytesCounter().count_text(out) <= max_tokens


def test_search_substring_and_regex(ws: LocalWorkspace) -> None:
    out = search_offloaded(ws, "needle")
    ctx = next(r for r in ws.items() if r.kind == "context")
    assert f"{ctx.path}:1:" in out and "needle" in out
    assert out.splitlines()[-1].startswith("[1 match for 'needle' in 2 offloaded items")
    out = search_offloaded(ws, r"row 99\d$", regex=True)
    assert out.count("\n") == 10  # 990..999 plus footer
    assert "tool_results/" in out and ":990: row 990" in out
    assert "stopped at max_results=3" in search_offloaded(ws, "row", max_results=3)
    assert ":5: row 5" in search_offloaded(ws, "ROW 5", ignore_case=True)
    assert search_offloaded(ws, "(x").startswith("[0 matches")  # substring: no regex meaning


@pytest.mark.parametrize(
    "pattern", [r"(a+)+$", r"(a*)*b", r"(a|aa)+c", r"((ab)*)+", r".*a.*b.*c", r"(x{2,})*", "a" * 400]
)
def test_once_refused_patterns_now_run(ws: LocalWorkspace, pattern: str) -> None:
    # RE2 matches in linear time: the shapes the old checker refused are ordinary searches now.
    assert search_offloaded(ws, pattern, regex=True).splitlines()[-1].startswith("[")


@pytest.mark.parametrize(
    "pattern", [r"a.*b", r"(?:ab)+", r"\(a+\)+", r"[(a+)]+", r"(ab){2}", r"error: \d+", r"row 5\Z"]
)
def test_reasonable_patterns_allowed(ws: LocalWorkspace, pattern: str) -> None:
    assert search_offloaded(ws, pattern, regex=True).splitlines()[-1].startswith("[")


def test_regex_on_long_lines_is_bounded(tmp_path: Path) -> None:
    w = LocalWorkspace(tmp_path, "s")
    w.offload_tool_result_sync(("ab" * 2_000_000 + "\n") * 3, call_id="c", tool_name=None)
    ticks = iter(range(100))
    out = search_offloaded(w, r"a.*c", regex=True, deadline_seconds=1.5, clock=lambda: float(next(ticks)))
    assert "stopped after 1.5 s" in out  # the deadline is checked between lines


def test_path_refusals_through_tools(ws: LocalWorkspace, tmp_path: Path) -> None:
    for bad in ("../x", "/etc/passwd", "a\x00", "x/" * 600):
        with pytest.raises(PathRefusedError):
            read_offloaded(ws, bad)
    os.symlink("/etc", ws.session_dir / "etc")
    with pytest.raises(PathRefusedError, match="outside"):
        read_offloaded(ws, "etc/hostname")
    with pytest.raises(WorkspaceError, match="no item"):
        read_offloaded(ws, "tool_results/missing.txt")
    tools = bind_readback_tools(ws)
    assert tools.read_offloaded("../../etc/passwd").startswith("Error: path '../../etc/passwd' refused")
    assert tools.search_offloaded("(unclosed", regex=True).startswith("Error: invalid regular expression")
    assert tools.by_name()["read_offloaded"](ws.items()[0].path, 0, 1).startswith("     1\trow 1")


def test_schemas() -> None:
    tools = bind_readback_tools(LocalWorkspace("/nonexistent", "s"))
    openai = tools.openai()
    assert [t["function"]["name"] for t in openai] == ["read_offloaded", "search_offloaded"]
    assert openai[0]["type"] == "function" and openai[0]["function"]["parameters"]["required"] == ["path"]
    anthropic = tools.anthropic()
    assert anthropic[1]["name"] == "search_offloaded" and anthropic[1]["input_schema"]["required"] == ["pattern"]
    assert set(READ_OFFLOADED_SPEC.parameters["properties"]) == {"path", "offset", "limit", "column"}
    assert SEARCH_OFFLOADED_SPEC.schema_json().startswith("{")
    # the bound callables accept exactly the schema's properties
    import inspect

    assert list(inspect.signature(tools.read_offloaded).parameters) == ["path", "offset", "limit", "column"]
    assert list(inspect.signature(tools.search_offloaded).parameters) == list(
        SEARCH_OFFLOADED_SPEC.parameters["properties"]
    )
