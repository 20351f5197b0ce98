"""``contextfold run`` and its built-in tools: confinement, the shell gate, and a real SDK round trip."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contextfold._agent._builtin_tools import builtin_tools
from contextfold._agent._tools import Tool
from contextfold._cli import main
from contextfold._errors import InputError
from contextfold._messages import ToolCallBlock, ToolResultBlock
from provider_server import ProviderServer, Reply, ToolCall


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    return 'hello'\n# TODO: tests\n")
    (root / "README.md").write_text("# Demo\nRun it.\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("TODO hidden\n")
    (tmp_path / "secret.txt").write_text("TODO outside\n")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    return root


def tools_of(root: Path, **kwargs: Any) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(root, **kwargs)}


def run_tool(t: Tool, **arguments: Any) -> ToolResultBlock:
    return asyncio.run(t.execute(ToolCallBlock(id="c", name=t.name, arguments=json.dumps(arguments))))


def test_read_list_search_inside_the_root(project: Path) -> None:
    tools = tools_of(project)
    assert set(tools) == {"read_file", "list_directory", "search_text"}
    assert run_tool(tools["read_file"], path="src/app.py", offset=1, limit=1).text.splitlines() == [
        "     2\t    return 'hello'",
        "... (more lines: continue with offset=2)",
    ]
    listing = run_tool(tools["list_directory"]).text.splitlines()
    assert listing[:2] == [".git/", "src/"] and "README.md  15" in listing
    hits = run_tool(tools["search_text"], pattern="TODO").text
    assert hits == "src/app.py:3: # TODO: tests"  # .git skipped, the symlink out of the root skipped
    assert run_tool(tools["search_text"], pattern=r"def \w+", regex=True).text.startswith("src/app.py:1:")


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "link", "src/../../secret.txt"])
def test_paths_outside_the_root_are_refused(project: Path, path: str) -> None:
    result = run_tool(tools_of(project)["read_file"], path=path)
    assert result.is_error and "outside the allowed root" in result.text


def test_tool_errors_are_plain_lines(project: Path) -> None:
    tools = tools_of(project)
    assert "is not a file" in run_tool(tools["read_file"], path="src").text
    assert "is not a directory" in run_tool(tools["list_directory"], path="README.md").text
    refused = run_tool(tools["search_text"], pattern="(?<=a)b", regex=True)
    assert refused.is_error and "lookbehind (?<=...) is not supported" in refused.text
    (project / "blob.bin").write_bytes(b"\0\1\2")
    assert "binary" in run_tool(tools["read_file"], path="blob.bin").text
    with pytest.raises(InputError):
        builtin_tools(project / "missing")


def test_shell_only_when_allowed(project: Path) -> None:
    assert "run_command" not in tools_of(project)
    shell = tools_of(project, allow_shell=True)["run_command"]
    out = run_tool(shell, command="pwd && echo hi && exit 3")
    assert out.text.splitlines() == ["exit code 3", str(project.resolve()), "hi"]
    slow = run_tool(shell, command="sleep 5", timeout=0.2)
    assert slow.is_error and "did not finish" in slow.text


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as s:
        yield s


def cli(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err, env={"COLUMNS": "100", "NO_COLOR": "1", **env})
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_run_against_the_local_server(provider: str, server: ProviderServer, project: Path, tmp_path: Path) -> None:
    server.queue(
        Reply(text="Let me look.", tool_calls=[ToolCall("read_file", {"path": "src/app.py"})]),
        Reply(text="main() returns 'hello'."),
    )
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    key = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider]
    argv = ["run", "What does main return?", "--model", f"{provider}:test-model", "--base-url", base]
    argv += ["--root", str(project), "--workspace", str(tmp_path / "ws"), "--window", "32000"]
    code, out, err = cli(argv, {key: "dummy-key"})
    assert code == 0, err
    assert out == "Let me look.\nmain() returns 'hello'.\n"
    assert '[tool] read_file {"path":"src/app.py"}' in err and "[done] end_turn after 2 model call(s)" in err
    bodies = server.bodies(provider)
    assert len(bodies) == 2 and bodies[0]["stream"] is True
    tool_names = {t.get("name") or t["function"]["name"] for t in bodies[0]["tools"]}
    assert tool_names == {"read_file", "list_directory", "search_text", "read_offloaded", "search_offloaded"}
    assert "return 'hello'" in json.dumps(bodies[1]["messages"])
    headers = [r.headers for r in server.requests]
    assert all("dummy-key" in (h.get("authorization", "") + h.get("x-api-key", "")) for h in headers)


def test_run_json_report(server: ProviderServer, project: Path, tmp_path: Path) -> None:
    server.queue(Reply(text="Nothing to do."))
    argv = ["run", "hi", "--model", "openai:m", "--base-url", server.openai_base_url, "--root", str(project)]
    code, out, err = cli([*argv, "--json", "--workspace", str(tmp_path)], {"OPENAI_API_KEY": "k"})
    assert code == 0, err
    report = json.loads(out)
    assert report["output"] == "Nothing to do." and report["stop_reason"] == "end_turn" and report["steps"] == 1


def test_run_stops_at_max_steps_with_exit_1(server: ProviderServer, project: Path, tmp_path: Path) -> None:
    server.respond_with(lambda body: Reply(tool_calls=[ToolCall("list_directory", {})]))
    argv = ["run", "loop", "--model", "openai:m", "--base-url", server.openai_base_url, "--root", str(project)]
    code, _, err = cli([*argv, "--max-steps", "2", "--workspace", str(tmp_path)], {"OPENAI_API_KEY": "k"})
    assert code == 1 and "stopped after --max-steps 2" in err


def test_missing_key_is_one_line(project: Path) -> None:
    code, out, err = cli(["run", "hi", "--model", "openai:gpt-x", "--root", str(project)], {})
    assert code == 2 and out == "" and err.count("\n") == 1 and "OPENAI_API_KEY" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "hi", "--model", "gpt"], "must be PROVIDER:MODEL"),
        (["run", "hi", "--model", "mistral:x"], "unknown model provider"),
        (["run", "  ", "--model", "openai:x"], "TASK is empty"),
        (["run", "hi", "--model", "openai:x", "--max-steps", "0"], "--max-steps must be at least 1"),
        (["run", "hi", "--model", "openai:x", "--root", "/nonexistent/dir"], "not a directory"),
        (["run", "hi"], "--model"),
    ],
)
def test_user_mistakes(argv: list[str], needle: str) -> None:
    code, _, err = cli(argv, {"OPENAI_API_KEY": "k"})
    assert code == 2 and needle in err and err.count("\n") == 1


def test_missing_sdk_names_the_extra(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic -> ImportError
    code, _, err = cli(["run", "hi", "--model", "anthropic:claude", "--root", str(project)], {"ANTHROPIC_API_KEY": "k"})
    assert code == 2 and err.count("\n") == 1
    assert "pip install" in err and "anthropic" in err
