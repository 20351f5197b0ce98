"""Regression tests for issue 14 items 2, 3, 4, 8 (read-back) and 9, through interfaces that existed before the fix.

Each test here failed on the code before the fix (checked by running this file against it): random split
failures with the default counter, superseded files, names that changed from run to run, searches that never
returned, ``TypeError`` from the read-back tools, and planted FIFOs and hard links that hung or leaked.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import string
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import Context, ContextConfig, LocalWorkspace, bind_readback_tools, search_offloaded
from contextfold._errors import ConfigError, PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock, iter_text
from contextfold._tokens._counting import MEDIA_TOKENS, media_blocks
from contextfold._workspace._split import TRUNCATION_MARKER, offload_oversized_result

HUNG = 60.0
"""Seconds after which a call counts as hung (generous: the test machine is shared)."""


def finishes(fn: Callable[[], Any], timeout: float = HUNG) -> Any:
    """Run ``fn`` in a daemon thread; its result, or a failure if it does not return within ``timeout``."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"did not return within {timeout:g} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def files_of(ws: LocalWorkspace) -> list[str]:
    return sorted(
        p.relative_to(ws.session_dir).as_posix()
        for p in ws.session_dir.rglob("*")
        if p.is_file() and p.name != "index.jsonl"
    )


def cost(counter: Any, block: ToolResultBlock) -> int:
    return int(counter.count_message(Message(role="tool", content=(block,))))


class HexHeavyCounter:
    """Charges ``extra`` tokens per letter a-f and adds a jitter per text: names with random hex cost at random."""

    def __init__(self, extra: int = 12, jitter: int = 7) -> None:
        self.key = f"hexheavy-{extra}-{jitter}"
        self.extra = extra
        self.jitter = jitter

    def count_text(self, text: str) -> int:
        letters = sum(text.count(c) for c in "abcdef")
        return (len(text) + 3) // 4 + self.extra * letters + zlib.crc32(text.encode("utf-8", "replace")) % self.jitter

    def count_message(self, message: Message) -> int:
        return 4 + sum(self.count_text(t) for t in iter_text(message)) + MEDIA_TOKENS * media_blocks(message)


def tool_turn(context: Context, call_id: str, name: str = "api") -> None:
    context.append(Message.text_message("user", f"run {call_id}"))
    context.append(Message(role="assistant", content=(ToolCallBlock(id=call_id, name=name, arguments="{}"),)))


# -- item 2: the split succeeds for any counter -------------------------------------------------------------------


def test_append_tool_result_never_fails_with_the_default_counter(tmp_path: Path) -> None:
    """The issue's reproduction: 8 KB JSON results at limit 500 failed in 58 of 100 tries."""

    async def run() -> None:
        for i in range(100):
            rnd = random.Random(i)
            rows = [{"id": rnd.randrange(10**9), "name": f"item{j}", "tags": ["a", "b"]} for j in range(150)]
            data = json.dumps(rows)[:8192]
            ws = LocalWorkspace(tmp_path, f"s{i}")
            ctx = Context(ContextConfig(window=100_000, tool_result_limit=500), workspace=ws, hints=False)
            tool_turn(ctx, f"c{i}")
            block = ToolResultBlock(call_id=f"c{i}", name="api", content=(TextBlock(text=data),))
            refs = await ctx.append_tool_result(Message(role="tool", content=(block,)))
            [kept] = ctx.messages[-1].tool_results
            assert refs and ctx.counter.count_message(ctx.messages[-1]) <= 500
            assert kept.content[-1].text.startswith(TRUNCATION_MARKER)
            assert files_of(ws) == [refs[0].path]  # written once: no superseded file

    asyncio.run(run())


@pytest.mark.parametrize("seed", range(12))
async def test_split_fits_and_leaves_no_superseded_file_with_hex_heavy_counter(tmp_path: Path, seed: int) -> None:
    counter = HexHeavyCounter()
    rnd = random.Random(seed)
    text = "".join(rnd.choice(string.ascii_lowercase + " \n") for _ in range(20_000))
    block = ToolResultBlock(call_id="c", name="cat", content=(TextBlock(text=text),))
    ws = LocalWorkspace(tmp_path, "s")
    limit = 1_500
    kept, ref = await offload_oversized_result(block, limit=limit, counter=counter, offloader=ws)
    assert ref is not None and cost(counter, kept) <= limit
    assert ref.path in kept.content[-1].text
    assert files_of(ws) == [ref.path]


@pytest.mark.parametrize("hex_heavy", [False, True])
def test_agent_run_splits_once_without_failing(tmp_path: Path, hex_heavy: bool) -> None:
    """The issue's reproduction: `Agent.run` at window=3000 failed in 29 of 40 runs (and left superseded files)."""
    from contextfold._agent._loop import Agent
    from contextfold.models import ModelResponse, Usage

    class Model:
        def __init__(self) -> None:
            self.calls = 0

        async def complete(self, messages: Any, *, tools: Any = (), stream: Any = None) -> ModelResponse:
            self.calls += 1
            if self.calls == 1:
                call = ToolCallBlock(id="call_1", name="dump", arguments="{}")
                turn = Message(role="assistant", content=(call,))
                return ModelResponse(message=turn, usage=Usage(completion_tokens=1), stop_reason="tool_use")
            done = Message.text_message("assistant", "done")
            return ModelResponse(message=done, usage=Usage(completion_tokens=1), stop_reason="end_turn")

    async def run_once(seed: int) -> None:
        rnd = random.Random(seed)
        payload = json.dumps([{"k": rnd.randrange(10**12), "v": f"value {j}"} for j in range(200)])

        def dump() -> str:
            """Dump the records."""
            return payload

        ws = LocalWorkspace(tmp_path, f"a{seed}")
        counter = HexHeavyCounter() if hex_heavy else None
        agent = Agent(Model(), tools=[dump], window=20_000 if hex_heavy else 3000, counter=counter, workspace=ws)
        result = await agent.run("dump the records")
        assert result.offloaded
        assert files_of(ws) == sorted({ref.path for ref in result.offloaded})  # written once
        assert len([r for r in ws.items() if r.kind == "tool_result"]) == 1  # split once, fence counted in the plan

    async def run() -> None:
        for seed in range(20):
            await run_once(seed)

    asyncio.run(run())


def test_too_small_limit_names_the_window(tmp_path: Path) -> None:
    async def run() -> None:
        ctx = Context(ContextConfig(window=500), workspace=LocalWorkspace(tmp_path, "s"), hints=False)
        tool_turn(ctx, "c1")
        block = ToolResultBlock(call_id="c1", name="api", content=(TextBlock(text="x" * 5000),))
        await ctx.append_tool_result(Message(role="tool", content=(block,)))

    with pytest.raises(ConfigError, match="window") as info:
        asyncio.run(run())
    assert "result_limit" in str(info.value) and "use a window of at least" in str(info.value)


# -- item 3: identical input, identical output --------------------------------------------------------------------


async def test_same_content_gives_the_same_names_and_is_stored_once(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    block = ToolResultBlock(call_id="c", name="cat", content=(TextBlock(text=text),))
    a, b = LocalWorkspace(tmp_path / "one", "x"), LocalWorkspace(tmp_path / "two", "y")
    counter = HexHeavyCounter(extra=0, jitter=1)
    kept_a, ref_a = await offload_oversized_result(block, limit=800, counter=counter, offloader=a)
    kept_b, ref_b = await offload_oversized_result(block, limit=800, counter=counter, offloader=b)
    assert ref_a is not None and ref_b is not None
    assert kept_a == kept_b and ref_a.path == ref_b.path  # fresh workspaces, identical notices
    again = await a.offload_tool_result(text, call_id="c2", tool_name="cat")
    assert again.path == ref_a.path and files_of(a) == [ref_a.path]  # stored once...
    assert [r.call_id for r in a.items()] == ["c", "c2"]  # ...and each use is in the index
    archive_1 = await a.offload_context([Message.text_message("user", "hello")], message_range=(0, 1))
    archive_2 = await b.offload_context([Message.text_message("user", "hello")], message_range=(0, 1))
    assert archive_1.path == archive_2.path


# -- item 4: no pattern hangs a search ----------------------------------------------------------------------------

CATASTROPHIC = [
    r"(.*,){10}x",
    r"(a?){10}(a?){10}(a?){10}a{30}",
    r"((a{1,10}){1,10}){1,10}b",
    r"((,*){1,9}){1,9}x",
    r"(?:(?:.*,)|(?:,.*)){8}y",
]


@pytest.fixture
def commas(tmp_path: Path) -> LocalWorkspace:
    ws = LocalWorkspace(tmp_path, "s")
    ws.offload_tool_result_sync("," * 200 + "\n" + "a" * 30 + "\n", call_id="c", tool_name=None)
    return ws


SEARCH_CHILD = """
import asyncio, sys
from contextfold import LocalWorkspace, bind_readback_tools
from contextfold._agent._builtin_tools import builtin_tools
where, pattern, which = sys.argv[1], sys.argv[2], sys.argv[3]
if which == "readback":
    print(bind_readback_tools(LocalWorkspace.open(where)).search_offloaded(pattern, regex=True))
else:
    tool = {t.name: t for t in builtin_tools(where)}["search_text"]
    print(asyncio.run(tool.call({"pattern": pattern, "regex": True})))
"""


def search_in_child(where: Path, pattern: str, which: str) -> str:
    """Run a search in a child process: a regex engine that never yields the GIL cannot be timed out in a thread."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))  # the parent's contextfold
    try:
        proc = subprocess.run(
            [sys.executable, "-c", SEARCH_CHILD, str(where), pattern, which],
            env=env,
            capture_output=True,
            text=True,
            timeout=HUNG,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the search for {pattern!r} did not return within {HUNG:g} s")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_patterns_return(commas: LocalWorkspace, pattern: str) -> None:
    out = search_in_child(commas.session_dir, pattern, "readback")
    assert out.splitlines()[-1].startswith("[") and "offloaded items" in out
    assert "refused" not in out  # searched, not refused by a pattern checker


def test_verbose_mode_hiding_nested_repetition_is_a_clear_error(commas: LocalWorkspace) -> None:
    out = search_in_child(commas.session_dir, "(?x) (a+)+ # harmless, says the comment\n$", "readback")
    assert out.startswith("Error: invalid regular expression") and "verbose mode" in out


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_search_text_builtin_returns(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "data.csv").write_text("," * 200 + "\n" + "a" * 30 + "\n")
    out = search_in_child(tmp_path, pattern, "builtin")
    assert "no matches" in out or "data.csv" in out


# -- item 8 (read-back): wrongly typed arguments are an error text, never an exception -----------------------------

json_ish = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["0", "12", "-3", "1e9", "true", str(10**40)]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=5,
)


@pytest.fixture(scope="module")
def readback(tmp_path_factory: pytest.TempPathFactory) -> tuple[LocalWorkspace, Any]:
    ws = LocalWorkspace(tmp_path_factory.mktemp("rb"), "s")
    ws.offload_tool_result_sync("".join(f"row {i}\n" for i in range(50)), call_id="c", tool_name=None)
    return ws, bind_readback_tools(ws)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=json_ish, limit=json_ish, column=json_ish)
def test_read_tool_never_raises(readback: tuple[LocalWorkspace, Any], offset: Any, limit: Any, column: Any) -> None:
    ws, tools = readback
    out = tools.read_offloaded(ws.items()[0].path, offset=offset, limit=limit, column=column)
    assert isinstance(out, str) and out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=json_ish | st.text(max_size=20), regex=json_ish, ignore_case=json_ish, max_results=json_ish)
def test_search_tool_never_raises(
    readback: tuple[LocalWorkspace, Any], pattern: Any, regex: Any, ignore_case: Any, max_results: Any
) -> None:
    _, tools = readback
    out = tools.search_offloaded(pattern, regex=regex, ignore_case=ignore_case, max_results=max_results)
    assert isinstance(out, str) and out


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"offset": "ten"}, "offset must be an integer"),
        ({"offset": 1.5}, "offset must be an integer"),
        ({"offset": True}, "offset must be an integer, got a boolean"),
        ({"offset": 10**40}, "offset must be between 0 and"),
        ({"offset": -1}, "offset must be between 0 and"),
        ({"column": 2**64}, "column must be between 0 and"),
        ({"column": [1]}, "column must be an integer"),
    ],
)
def test_read_tool_error_texts(readback: tuple[LocalWorkspace, Any], kwargs: dict[str, Any], needle: str) -> None:
    ws, tools = readback
    out = tools.read_offloaded(ws.items()[0].path, **kwargs)
    assert out.startswith("Error: ") and needle in out


def test_model_style_numbers_are_accepted(readback: tuple[LocalWorkspace, Any]) -> None:
    ws, tools = readback
    assert tools.read_offloaded(ws.items()[0].path, offset="10", limit=2.0).startswith("    11\trow 10")
    assert "max_results must be" in tools.search_offloaded("row", max_results=10**30)
    assert "max_results must be" in tools.search_offloaded("row", max_results=0)


# -- item 9: planted FIFOs, hard links and symlinks ----------------------------------------------------------------


def plant_index_record(ws: LocalWorkspace, path: str) -> None:
    record = {"path": path, "kind": "tool_result", "size": 1, "created": "2025-01-01T00:00:00+00:00", "v": 1}
    with (ws.session_dir / "index.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


@pytest.fixture
def planted(tmp_path: Path) -> tuple[LocalWorkspace, Path]:
    ws = LocalWorkspace(tmp_path / "root", "s")
    ws.offload_tool_result_sync("needle in the real item\n", call_id="c", tool_name=None)
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("needle: TOP SECRET outside the workspace\n")
    return ws, secret


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_in_the_index_does_not_hang(planted: tuple[LocalWorkspace, Path]) -> None:
    ws, _ = planted
    os.mkfifo(ws.session_dir / "tool_results" / "fifo.txt")
    plant_index_record(ws, "tool_results/fifo.txt")
    out = finishes(lambda: search_offloaded(ws, "needle"))
    assert "needle in the real item" in out and "1 item skipped" in out
    with pytest.raises(PathRefusedError, match="FIFO"):
        finishes(lambda: ws.read_bytes("tool_results/fifo.txt"))
    tools = bind_readback_tools(ws)
    assert "FIFO" in finishes(lambda: tools.read_offloaded("tool_results/fifo.txt"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_as_the_index_does_not_hang(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, "s")
    ws.session_dir.mkdir(parents=True)
    os.mkfifo(ws.session_dir / "index.jsonl")
    with pytest.raises(WorkspaceError, match="FIFO"):
        finishes(ws.items)
    with pytest.raises(WorkspaceError):
        finishes(lambda: ws.offload_tool_result_sync("x", call_id="c", tool_name=None))


def test_hardlink_to_a_file_outside_is_refused(planted: tuple[LocalWorkspace, Path]) -> None:
    ws, secret = planted
    os.link(secret, ws.session_dir / "tool_results" / "linked.txt")
    plant_index_record(ws, "tool_results/linked.txt")
    with pytest.raises(PathRefusedError, match="hard links"):
        ws.read_bytes("tool_results/linked.txt")
    out = search_offloaded(ws, "needle")
    assert "TOP SECRET" not in out and "1 item skipped" in out
    assert "TOP SECRET" not in bind_readback_tools(ws).read_offloaded("tool_results/linked.txt")


def test_symlink_in_the_workspace_is_refused_even_inside(planted: tuple[LocalWorkspace, Path]) -> None:
    ws, secret = planted
    real = ws.items()[0].path
    (ws.session_dir / "tool_results" / "inside.txt").symlink_to(ws.session_dir / real)
    (ws.session_dir / "tool_results" / "outside.txt").symlink_to(secret)
    for name in ("inside.txt", "outside.txt"):
        plant_index_record(ws, f"tool_results/{name}")
        with pytest.raises(PathRefusedError, match="symbolic link"):
            ws.read_bytes(f"tool_results/{name}")
    out = search_offloaded(ws, "needle")
    assert "TOP SECRET" not in out and "2 items skipped" in out


def test_planted_link_at_an_items_name_is_replaced_not_written_through(planted: tuple[LocalWorkspace, Path]) -> None:
    ws, secret = planted
    first = ws.offload_tool_result_sync("same bytes\n", call_id="c1", tool_name=None)
    target = ws.session_dir / first.path
    target.unlink()
    os.link(secret, target)  # someone swaps the item for a hard link to a file outside
    again = ws.offload_tool_result_sync("same bytes\n", call_id="c2", tool_name=None)
    assert again.path == first.path and ws.read_text(again) == "same bytes\n"
    assert secret.read_text() == "needle: TOP SECRET outside the workspace\n"  # the outside file is untouched


@pytest.mark.parametrize("kind", ["fifo", "hardlink", "symlink"])
def test_workspace_show_refuses_planted_items(planted: tuple[LocalWorkspace, Path], kind: str) -> None:
    import io

    from contextfold._cli import main

    ws, secret = planted
    item = ws.session_dir / "tool_results" / "planted.txt"
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        os.mkfifo(item)
    elif kind == "hardlink":
        os.link(secret, item)
    else:
        item.symlink_to(secret)
    plant_index_record(ws, "tool_results/planted.txt")
    out, err = io.StringIO(), io.StringIO()
    code = finishes(
        lambda: main(["workspace", "show", str(ws.session_dir), "tool_results/planted.txt"], stdout=out, stderr=err)
    )
    assert code == 2 and "refused" in err.getvalue()
    assert "TOP SECRET" not in out.getvalue() + err.getvalue()


def test_media_of_a_result_is_named_by_content(tmp_path: Path) -> None:
    async def run(session: str) -> list[str]:
        ws = LocalWorkspace(tmp_path, session)
        img = DataBlock(media="image", media_type="image/png", data="iVBORw0KGgo=")
        block = ToolResultBlock(call_id="c", content=(TextBlock(text="x" * 3000), img))
        await offload_oversized_result(block, limit=300, counter=HexHeavyCounter(0, 1), offloader=ws)
        return [r.path for r in ws.items()]

    first = asyncio.run(run("one"))
    assert len(first) == 2 and first == asyncio.run(run("two"))  # the same result, fresh workspace: the same names


def test_a_symlinked_item_directory_is_not_written_through(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "root", "s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ws.session_dir.mkdir(parents=True)
    (ws.session_dir / "tool_results").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(WorkspaceError, match="not a plain directory"):
        ws.offload_tool_result_sync("secret output\n", call_id="c", tool_name=None)
    assert list(elsewhere.iterdir()) == [] and ws.items() == []
