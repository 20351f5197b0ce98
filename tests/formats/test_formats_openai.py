import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from contextfold import (
    DataBlock,
    HintBlock,
    InputError,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    messages_to_openai,
    openai_to_messages,
    tools_from_openai,
    tools_to_openai,
)
from message_gen import openai_messages

DATA = Path(__file__).parents[1] / "data"


def _corpus_docs() -> list[dict[str, Any]]:
    docs = []
    for name in ("tau_airline_gpt4o_sample.jsonl", "openhands_multiswe_llama4_sample.jsonl"):
        docs += [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    docs.append(json.loads((DATA / "openai_parallel.json").read_text()))
    return docs


@settings(max_examples=150, deadline=None)
@given(openai_messages())
def test_round_trip_is_identity(messages: list[dict[str, Any]]) -> None:
    back = messages_to_openai(openai_to_messages(messages))
    assert back == messages
    assert [list(m) for m in back] == [list(m) for m in messages]  # key order too


@pytest.mark.parametrize("doc", _corpus_docs(), ids=lambda d: d["id"])
def test_real_transcripts_round_trip_exactly(doc: dict[str, Any]) -> None:
    canonical = openai_to_messages(doc["messages"])
    assert len(canonical) == len(doc["messages"])
    back = messages_to_openai(canonical)
    assert back == doc["messages"]
    assert [list(m) for m in back] == [list(m) for m in doc["messages"]]
    if doc["tools"] is not None:
        assert tools_to_openai(tools_from_openai(doc["tools"])) == doc["tools"]


def test_parallel_calls_and_result_names() -> None:
    doc = json.loads((DATA / "openai_parallel.json").read_text())
    msgs = openai_to_messages(doc["messages"])
    assert msgs[0].role == "system" and msgs[0].meta["openai.role"] == "developer"
    assert msgs[1].name == "ana"
    assert [b.kind for b in msgs[1].content] == ["text", "data", "data"]
    image, pdf = msgs[1].content[1], msgs[1].content[2]
    assert isinstance(image, DataBlock) and image.url == "https://example.com/itinerary.png"
    assert isinstance(pdf, DataBlock) and (pdf.media, pdf.media_type, pdf.data) == (
        "document",
        "application/pdf",
        "JVBERi0xLjQKJcfsj6IK",
    )
    calls = msgs[2].tool_calls
    assert [c.id for c in calls] == ["call_w1", "call_w2", "call_t1"]
    assert calls[1].parsed_arguments() == {"city": "Oslo"}
    results = [m.tool_results[0] for m in msgs[3:6]]
    assert [r.name for r in results] == ["get_weather", "get_weather", "get_time"]
    assert results[1].text == "-3 C, snow"
    # the name was filled for digests but is not written back
    assert all("name" not in m for m in messages_to_openai(msgs)[3:6])
    audio = msgs[7].content[0]
    assert isinstance(audio, DataBlock) and (audio.media, audio.media_type) == ("audio", "audio/wav")
    assert msgs[10].text == "I can't help with that."
    tools = tools_from_openai(doc["tools"])
    assert [t.name for t in tools] == ["get_weather", "get_time"]
    assert tools[0].parameters["required"] == ["city"]


def test_tool_message_name_is_kept_when_written() -> None:
    doc = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "a", "name": "f", "content": "ok"},
    ]
    msgs = openai_to_messages(doc)
    assert msgs[1].tool_results[0].name == "f"
    assert messages_to_openai(msgs) == doc


def test_data_url_image_becomes_inline_data() -> None:
    doc = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "high"}}],
        }
    ]
    (block,) = openai_to_messages(doc)[0].content
    assert isinstance(block, DataBlock) and (block.data, block.media_type, block.url) == ("AAAA", "image/png", None)
    assert messages_to_openai(openai_to_messages(doc)) == doc


def test_hint_text_is_parsed_and_rendered_back() -> None:
    doc = [{"role": "user", "content": "<system-reminder>\nIt is 10:00.\n</system-reminder>"}]
    msgs = openai_to_messages(doc)
    assert msgs[0].content == (HintBlock(text="It is 10:00."),)
    assert messages_to_openai(msgs) == doc


def test_programmatic_messages_render_in_the_usual_shape() -> None:
    msgs = [
        Message.text_message("system", "be brief"),
        Message(role="user", content=(TextBlock(text="hi"), HintBlock(text="t=1"))),
        Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking="hm", signature="s"),
                ToolCallBlock(id="c1", name="f", arguments='{"a":1}'),
            ),
        ),
        Message(
            role="tool",
            content=(
                ToolResultBlock(
                    call_id="c1", content=(TextBlock(text="r"), DataBlock(media="image", url="https://x/y.png"))
                ),
            ),
        ),
        Message(role="assistant", content=(ThinkingBlock(thinking="only thoughts"),)),
        Message.text_message("assistant", "done"),
    ]
    assert messages_to_openai(msgs) == [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "text", "text": "<system-reminder>\nt=1\n</system-reminder>"},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Media returned by tool call c1:"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            ],
        },
        {"role": "assistant", "content": "done"},
    ]


def test_object_arguments_are_accepted_and_given_back() -> None:
    doc = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": [1, "é"]}}}],
        }
    ]
    msgs = openai_to_messages(doc)
    assert msgs[0].tool_calls[0].arguments == '{"x":[1,"é"]}'
    assert messages_to_openai(msgs) == doc


@pytest.mark.parametrize(
    ("doc", "index", "needle"),
    [
        (
            [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}],
            1,
            "unknown role 'robot'; allowed: system, developer, user, assistant, tool",
        ),
        ([{"content": "a"}], 0, "unknown role no role"),
        (
            [{"role": "user", "content": [{"type": "video", "url": "x"}]}],
            0,
            "unknown content part type 'video' in a user message; allowed: text, image_url",
        ),
        ([{"role": "user", "content": 5}], 0, "'content' must be a string, a list of parts or null, found a number"),
        (["hello"], 0, "expected a message object, found a string"),
        ([{"role": "tool", "content": "x"}], 0, "a tool message needs a string 'tool_call_id', found null"),
        ([{"role": "user", "content": "x", "tool_calls": [{"id": "a"}]}], 0, "only assistant messages make tool calls"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "a", "type": "web", "web": {}}]}],
            0,
            "unknown tool call type 'web'; allowed: function, custom",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": 3}}],
                }
            ],
            0,
            "arguments must be a string",
        ),
    ],
)
def test_bad_messages_name_index_found_and_allowed(doc: list[Any], index: int, needle: str) -> None:
    with pytest.raises(InputError) as info:
        openai_to_messages(doc)
    assert info.value.message_index == index
    assert needle in str(info.value)
    assert str(info.value).startswith(f"message {index}: ")
    assert "\n" not in str(info.value)


def test_tools_round_trip_with_extras_and_hosted_tools() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "description": "d", "parameters": {"type": "object"}, "strict": True},
        },
        {"type": "function", "function": {"name": "g"}},
        {"type": "custom", "custom": {"name": "grammar", "description": "free text"}},
    ]
    specs = tools_from_openai(tools)
    assert [s.name for s in specs] == ["f", "g", "grammar"]
    assert tools_to_openai(specs) == tools
    assert tools_from_openai(None) == []
    with pytest.raises(InputError, match="tool 0 must be an object"):
        tools_from_openai([1])  # type: ignore[list-item]


def test_flat_tool_calls_are_accepted_and_given_back() -> None:
    doc = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "grep", "arguments": '{"q": "x"}'}]},
        {"role": "tool", "tool_call_id": "c1", "name": "grep", "content": "hit"},
    ]
    msgs = openai_to_messages(doc)
    assert msgs[0].tool_calls[0].name == "grep" and msgs[0].tool_calls[0].parsed_arguments() == {"q": "x"}
    assert messages_to_openai(msgs) == doc
