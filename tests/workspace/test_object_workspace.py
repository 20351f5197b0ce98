"""`ObjectWorkspace` on a local folder (``file://``), in memory and on a real S3 API (moto's server)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import servers
from contextfold import (
    BytesCounter,
    ConfigError,
    DataBlock,
    LocalWorkspace,
    Message,
    Offloader,
    PathRefusedError,
    TextBlock,
    ToolResultBlock,
    WorkspaceError,
    bind_readback_tools,
    offload_oversized_result,
)
from contextfold._workspace._naming import payload_for_context, payload_for_media, payload_for_tool_result
from contextfold._workspace._object import ObjectRoot, ObjectWorkspace, is_object_url

pytestmark = pytest.mark.servers  # the s3 cases reach moto through getfixturevalue: never skipped in CI

OWNER = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"


@pytest.fixture(params=["file", "memory", "s3"])
def root_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "file":
        return f"file://{tmp_path}/objects"
    if request.param == "memory":
        return "memory:///"
    s3: servers.Server = request.getfixturevalue("s3_server")
    for name, value in s3.env.items():
        monkeypatch.setenv(name, value)
    return f"s3://{servers.make_bucket(s3)}/prefix/here"


@pytest.fixture
def root(root_url: str) -> ObjectRoot:
    return ObjectRoot(root_url)


@pytest.fixture
def ws(root: ObjectRoot) -> ObjectWorkspace:
    return root.workspace(OWNER)


def test_it_is_an_offloader(ws: ObjectWorkspace) -> None:
    assert isinstance(ws, Offloader)


async def test_tool_result_is_stored_under_the_one_naming_rule(ws: ObjectWorkspace) -> None:
    text = "line one\nzwei \u00e9\n" + "x" * 5000 + "\ud800 lone surrogate"
    ref = await ws.offload_tool_result(text, call_id="call_1", tool_name="bash")
    assert ref.path == payload_for_tool_result(text).path  # the LocalWorkspace name, from _naming
    assert ref.path.startswith("tool_results/") and ref.kind == "tool_result"
    assert await ws.aread_text(ref.path) == text == ws.read_text(ref.path)
    assert ws.read_bytes(ref.path) == text.encode("utf-8", "surrogatepass")
    found = ws.find(ref.path)
    assert found is not None and (found.call_id, found.tool_name, found.size) == ("call_1", "bash", ref.size)
    assert [(i.path, i.kind, i.size) for i in ws.items()] == [(ref.path, "tool_result", ref.size)]


async def test_two_replicas_offloading_the_same_content_write_one_object(root_url: str) -> None:
    if root_url.startswith("memory"):  # a memory store lives in its root object: two roots share nothing
        first = await ObjectRoot(root_url).workspace(OWNER).offload_tool_result("x", call_id="c", tool_name=None)
        assert first.path and ObjectRoot(root_url).workspace(OWNER).items() == []
        return
    a, b = ObjectRoot(root_url).workspace(OWNER), ObjectRoot(root_url).workspace(OWNER)
    text = "the same output on both replicas\n" * 200
    refs = await asyncio.gather(*(w.offload_tool_result(text, call_id="c", tool_name=None) for w in (a, b, a, b)))
    assert len({r.path for r in refs}) == 1
    assert [i.path for i in a.items()] == [refs[0].path] == [i.path for i in b.items()]
    assert b.read_text(refs[0].path) == text


async def test_archived_messages_and_media_round_trip(ws: ObjectWorkspace) -> None:
    messages = [
        Message(role="user", content=(TextBlock(text="hello"),)),
        Message(role="assistant", content=(TextBlock(text="w\u00f6rld", meta={"k": 1}),)),
    ]
    ref = await ws.offload_context(messages, message_range=(0, 2))
    assert ref.path == payload_for_context(messages).path
    assert ws.read_messages(ref.path) == messages
    png = DataBlock(media="image", media_type="image/png", data=base64.b64encode(b"\x89PNG fake").decode())
    media = await ws.offload_data(png)
    assert media.path == payload_for_media(png).path and media.path.endswith(".png")
    assert ws.read_data_block(media.path) == png
    odd = DataBlock(media="document", media_type="application/pdf", url="https://example.invalid/x.pdf")
    block = await ws.offload_data(odd)
    assert block.path.endswith(".block.json") and ws.read_data_block(block.path) == odd
    assert {i.kind for i in ws.items()} == {"context", "media"}


async def test_a_taken_name_with_other_bytes_goes_under_the_full_digest(ws: ObjectWorkspace) -> None:
    import obstore

    text = "what the model will read back"
    payload = payload_for_tool_result(text)
    await obstore.put_async(ws.root.store, f"{OWNER}/{payload.path}", b"someone else's bytes")
    ref = await ws.offload_tool_result(text, call_id="c", tool_name=None)
    assert ref.path == payload.full_path != payload.path
    assert ws.read_text(ref.path) == text
    again = await ws.offload_tool_result(text, call_id="c2", tool_name=None)
    assert again.path == payload.full_path  # stable: the same content keeps going to the same place


async def test_owners_cannot_reach_each_other(root: ObjectRoot) -> None:
    mine, theirs = root.workspace(OWNER), root.workspace(OTHER)
    ref = await theirs.offload_tool_result("their secret output", call_id="c", tool_name=None)
    with pytest.raises(WorkspaceError, match="no item"):
        mine.read_bytes(ref.path)
    for sneaky in (f"../{OTHER}/{ref.path}", f"/{OTHER}/{ref.path}", "tool_results\\..\\x", "", "a/\x00b"):
        with pytest.raises(PathRefusedError):
            mine.read_bytes(sneaky)
    assert mine.items() == []
    found = search_tool(mine, "secret")
    assert ref.path not in found and "their secret output" not in found


def search_tool(ws: ObjectWorkspace, pattern: str) -> str:
    return bind_readback_tools(ws).search_offloaded(pattern)


async def test_read_back_tools_work_over_an_object_store(ws: ObjectWorkspace) -> None:
    text = "\n".join(f"row {i}: value {i * 7}" for i in range(500))
    ref = await ws.offload_tool_result(text, call_id="c", tool_name="seq")
    tools = bind_readback_tools(ws)
    page = tools.read_offloaded(ref.path, 100, 3)
    assert "row 100: value 700" in page and "row 102" in page and "row 103" not in page
    hits = tools.search_offloaded("value 3493")
    assert ref.path in hits and "row 499" in hits


async def test_a_split_result_reads_the_same_as_in_a_local_workspace(ws: ObjectWorkspace, tmp_path: Path) -> None:
    text = "\n".join(f"line {i}: " + "y" * 50 for i in range(2000))
    block = ToolResultBlock(call_id="c1", name="bash", content=(TextBlock(text=text),))
    local = LocalWorkspace(tmp_path / "local", "s1")
    kept_obj, ref_obj = await offload_oversized_result(block, limit=2_000, counter=BytesCounter(), offloader=ws)
    kept_loc, ref_loc = await offload_oversized_result(block, limit=2_000, counter=BytesCounter(), offloader=local)
    assert kept_obj == kept_loc  # same cut, same notice: the notice names the same content-addressed path
    assert ref_obj is not None and ref_loc is not None and ref_obj.path == ref_loc.path
    assert ref_obj.path in "".join(b.text for b in kept_obj.content if isinstance(b, TextBlock))
    assert ws.read_text(ref_obj.path) == text == local.read_text(ref_loc.path)  # the whole text, as a local split
    with pytest.raises(ConfigError, match="tool_result payload"):
        await ws.offload_tool_result_payload(payload_for_context([]), call_id="c", tool_name=None)


def test_location_names_the_object(ws: ObjectWorkspace, root_url: str) -> None:
    where = ws.location("tool_results/abc.txt")
    if root_url.startswith("file://"):
        assert where == f"{root_url[len('file://') :]}/{OWNER}/tool_results/abc.txt"
    else:
        assert where == f"{root_url.rstrip('/')}/{OWNER}/tool_results/abc.txt"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=2000))
def test_any_text_reads_back_exactly_under_its_content_name(tmp_path: Path, text: str) -> None:
    ws = ObjectRoot(f"file://{tmp_path}/prop").workspace(OWNER)

    async def run() -> None:
        ref = await ws.offload_tool_result(text, call_id="c", tool_name=None)
        assert ref.path == payload_for_tool_result(text).path
        assert await ws.aread_text(ref) == text

    asyncio.run(run())


def test_bad_urls_and_owners() -> None:
    assert is_object_url("s3://b/p") and is_object_url("file:///x") and not is_object_url("/tmp/x")
    with pytest.raises(ConfigError, match="s3://BUCKET/PREFIX"):
        ObjectRoot("ftp://host/x")
    with pytest.raises(ConfigError, match="three slashes"):
        ObjectRoot("file://relative/dir")
    with pytest.raises(ConfigError, match="owner"):
        ObjectRoot("memory:///").workspace("../x")


@pytest.fixture
def dead_s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{servers.free_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    yield "s3://nobody-home/prefix"


async def test_an_unreachable_store_is_a_workspace_error(dead_s3: str) -> None:
    root = ObjectRoot(dead_s3)
    ws = root.workspace(OWNER)
    with pytest.raises(WorkspaceError, match="cannot write"):
        await ws.offload_tool_result("x", call_id="c", tool_name=None)
    with pytest.raises(WorkspaceError):
        await ws.aread_bytes("tool_results/0000000000000000.txt")
    with pytest.raises(WorkspaceError, match="cannot list"):
        ws.items()
    with pytest.raises(WorkspaceError, match="nobody-home"):
        await root.check()
