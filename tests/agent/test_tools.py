"""Tools from plain functions: schemas from hints and docstrings, validation, errors as results."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from contextfold import (
    ConfigError,
    DataBlock,
    TextBlock,
    Tool,
    Toolbox,
    ToolCallBlock,
    ToolError,
    ToolResultBlock,
    ToolSpec,
    tool,
)
from contextfold._agent._tools import ToolChain, ToolExecutor, to_result_content


def call(name: str, arguments: object = None, call_id: str = "c1") -> ToolCallBlock:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return ToolCallBlock(id=call_id, name=name, arguments=text)


def read_file(path: str, offset: int = 0, mode: Literal["text", "bytes"] = "text") -> str:
    """Read a file from the project.

    Only text files are supported.

    Args:
        path: file to read, relative to the root.
        offset: lines to skip
            before reading.
        mode: how to decode.

    Returns:
        The file's lines.
    """
    return f"{path}:{offset}:{mode}"


def test_schema_from_hints_and_google_docstring() -> None:
    t = Tool.from_function(read_file)
    assert t.name == "read_file"
    assert t.spec.description == "Read a file from the project."
    params = t.spec.parameters
    assert params["type"] == "object"
    assert params["required"] == ["path"]
    props = params["properties"]
    assert props["path"] == {"type": "string", "description": "file to read, relative to the root."}
    assert props["offset"] == {"type": "integer", "default": 0, "description": "lines to skip before reading."}
    assert props["mode"]["enum"] == ["text", "bytes"]
    assert "title" not in json.dumps(params)


def test_sphinx_docstring_and_annotated_constraints() -> None:
    def search(pattern: str, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> list[str]:
        """Search for a pattern.

        :param pattern: what to look for
        :param limit: most hits
        """
        return [pattern] * limit

    t = Tool.from_function(search)
    props = t.spec.parameters["properties"]
    assert props["pattern"]["description"] == "what to look for"
    assert props["limit"]["maximum"] == 50 and props["limit"]["description"] == "most hits"


class Point(BaseModel):
    x: int
    y: int


def test_nested_model_argument_and_property_named_title() -> None:
    def move(title: str, to: Point) -> str:
        """Move a labelled point."""
        return f"{title}->{to.x},{to.y}"

    t = Tool.from_function(move)
    assert set(t.spec.parameters["properties"]) == {"title", "to"}
    result = asyncio.run(t.execute(call("move", {"title": "a", "to": {"x": 1, "y": 2}})))
    assert result.text == "a->1,2" and not result.is_error


async def test_sync_and_async_functions_run() -> None:
    async def double(n: int) -> int:
        return n * 2

    assert (await Tool.from_function(double).execute(call("double", {"n": 21}))).text == "42"
    assert (await Tool.from_function(read_file).execute(call("read_file", {"path": "a"}))).text == "a:0:text"


async def test_sync_tools_run_in_threads_concurrently() -> None:
    barrier = threading.Barrier(2, timeout=5)

    def wait_for_other(name: str) -> str:
        barrier.wait()  # deadlocks unless both calls run at the same time
        return name

    t = Tool.from_function(wait_for_other)
    a, b = await asyncio.gather(
        t.execute(call("wait_for_other", {"name": "a"}, "1")), t.execute(call("wait_for_other", {"name": "b"}, "2"))
    )
    assert (a.text, b.text) == ("a", "b")


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"offset": 1}, "path: Field required"),
        ({"path": "a", "offset": "many"}, "offset: Input should be a valid integer"),
        ({"path": "a", "color": "red"}, "color: Extra inputs are not permitted"),
    ],
)
async def test_bad_arguments_become_error_results(arguments: object, needle: str) -> None:
    result = await Tool.from_function(read_file).execute(call("read_file", arguments, "call_9"))
    assert result.is_error and result.call_id == "call_9" and result.name == "read_file"
    assert needle in result.text


async def test_exceptions_become_error_results() -> None:
    def boom() -> str:
        raise RuntimeError("disk on fire")

    def refuse() -> str:
        raise ToolError("Not allowed here; try another path.")

    crashed = await Tool.from_function(boom).execute(call("boom"))
    assert crashed.is_error and crashed.text == "Error: boom failed: RuntimeError: disk on fire"
    refused = await Tool.from_function(refuse).execute(call("refuse"))
    assert refused.is_error and refused.text == "Not allowed here; try another path."


def test_result_conversions() -> None:
    image = DataBlock(media="image", url="https://example.com/a.png")
    assert to_result_content("hi") == ((TextBlock(text="hi"),), False)
    assert to_result_content(None) == ((), False)
    assert to_result_content({"a": [1, 2]}) == ((TextBlock(text='{"a": [1, 2]}'),), False)
    assert to_result_content([TextBlock(text="x"), image]) == ((TextBlock(text="x"), image), False)
    assert to_result_content(ToolResultBlock(call_id="z", content=(TextBlock(text="bad"),), is_error=True)) == (
        (TextBlock(text="bad"),),
        True,
    )
    assert to_result_content({1, 2})[0][0].text in ('"{1, 2}"', "[1, 2]")  # not JSON: default=str


def test_decorator_forms_and_positional_only() -> None:
    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    @tool(name="add-numbers", description="Add two numbers.")
    def add(a: int, b: int, /) -> int:
        return a + b

    assert isinstance(ping, Tool) and ping.spec.description == "Answer pong."
    assert add.name == "add-numbers" and add.spec.description == "Add two numbers."
    assert asyncio.run(add.execute(call("add-numbers", {"a": 2, "b": 3}))).text == "5"


def test_configuration_mistakes_raise() -> None:
    def star(*args: int) -> None: ...

    def kw(**kwargs: int) -> None: ...

    with pytest.raises(ConfigError, match=r"\*args"):
        Tool.from_function(star)
    with pytest.raises(ConfigError, match=r"\*args"):
        Tool.from_function(kw)
    with pytest.raises(ConfigError, match="must match"):
        Tool.from_function(read_file, name="read file")
    with pytest.raises(ConfigError, match="two tools"):
        Toolbox([read_file, read_file])


async def test_toolbox_unknown_tool_lists_known_ones() -> None:
    box = Toolbox([read_file])
    assert isinstance(box, ToolExecutor)
    assert [s.name for s in box.specs] == ["read_file"] and "read_file" in box and len(box) == 1
    result = await box.execute(call("write_file", {"path": "x"}))
    assert result.is_error and "no tool named 'write_file'" in result.text and "read_file" in result.text


async def test_tool_chain_dispatches_by_name_first_wins() -> None:
    def same() -> str:
        return "first"

    def other() -> str:
        return "second"

    first = Toolbox([Tool.from_function(same)])
    second = Toolbox([Tool.from_function(other, name="same"), Tool.from_function(other)])
    chain = ToolChain([first, second])
    assert [s.name for s in chain.specs] == ["same", "other"]
    assert (await chain.execute(call("same"))).text == "first"
    assert (await chain.execute(call("other"))).text == "second"
    assert (await chain.execute(call("nope"))).is_error  # the last executor answers unknown names


def test_explicit_spec_keeps_definition() -> None:
    spec = ToolSpec(name="reader", description="custom", parameters={"type": "object", "properties": {}})
    t = Tool.from_function(read_file, spec=spec)
    assert t.spec is spec and t.name == "reader"


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.one_of(
        st.text(max_size=40),
        st.recursive(
            st.none() | st.integers() | st.text(max_size=5),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
            max_leaves=6,
        ).map(json.dumps),
    )
)
def test_any_arguments_give_a_result_never_an_exception(arguments: str) -> None:
    started = time.perf_counter()
    result = asyncio.run(
        Tool.from_function(read_file).execute(ToolCallBlock(id="c", name="read_file", arguments=arguments))
    )
    assert result.call_id == "c" and result.name == "read_file"
    assert result.content and all(isinstance(b, TextBlock) for b in result.content)
    assert time.perf_counter() - started < 5
