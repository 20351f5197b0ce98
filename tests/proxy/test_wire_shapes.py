"""Request shapes real clients send, driven through the engine over long sessions at a small window.

Each history mixes the item kinds of one wire format (server tools, thinking between tool calls, provider items,
results holding images, documents or search results, ...) and is checked after every request by validators written
here, independent of the library's: every call answered once, after its call; the blocks and items the provider
owns byte-identical to what the client sent; the client's own messages in the client's order; top-level fields
untouched.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import random
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import BytesCounter, ToolResultBlock, validate
from contextfold._formats._responses import parse_item, responses_to_messages
from contextfold._stores._sqlite import SQLiteStore
from contextfold.proxy import ProxyConfig
from contextfold.proxy._engine import Engine, Outcome
from contextfold.proxy._wire import FORMATS
from provider_server import ProviderServer, Reply

TENANT = "t" * 32
BIG = "\n".join(f"line {i} value {i * 7} path /src/f{i}.py" for i in range(1500))


def _engine(path: Path, window: int = 6000) -> Engine:
    return Engine(ProxyConfig(window=window, state_dir=path), SQLiteStore(path / "state.sqlite3"), BytesCounter())


def _out(n: int, words: int = 300) -> str:
    return f"out{n} " + "data " * words


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def _sent(outcome: Outcome, body: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(outcome.body) if outcome.body is not None else body


def _assert_client_order(forwarded: list[Any], sent: list[Any]) -> None:
    """The client's own messages among the forwarded ones are a subsequence of what it sent (nothing reordered)."""
    client = [_dumps(m) for m in sent]
    mine = set(client)
    at = 0
    for m in forwarded:
        raw = _dumps(m)
        if raw in mine:
            assert raw in client[at:], "a message of the client's forwarded out of its order"
            at = client.index(raw, at) + 1


# -- Anthropic ---------------------------------------------------------------------------------------------------

_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
_DOCUMENT = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}}


def _search_result(text: str) -> dict[str, Any]:
    return {
        "type": "search_result",
        "source": "https://example.test/a",
        "title": "a",
        "content": [{"type": "text", "text": text}],
        "citations": {"enabled": True},
    }


def _anthropic_turn(kind: int, n: int) -> list[dict[str, Any]]:
    """The model's part of turn ``n`` (and the client's tool results), of one of eight shapes."""
    t = f"toolu_{n}"
    srv = f"srvtoolu_{n}"
    if kind == 0:  # thinking and redacted thinking between parallel tool calls; an error result as a list
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm " * 20, "signature": f"SIG{n}"},
                    {"type": "tool_use", "id": t, "name": "bash", "input": {"cmd": "ls"}},
                    {"type": "redacted_thinking", "data": f"RED{n}"},
                    {"type": "tool_use", "id": t + "b", "name": "bash", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": t, "content": _out(n)},
                    {
                        "type": "tool_result",
                        "tool_use_id": t + "b",
                        "is_error": True,
                        "content": [{"type": "text", "text": "boom"}],
                    },
                ],
            },
        ]
    if kind == 1:  # server web search with encrypted results, cited text
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "server_tool_use", "id": srv, "name": "web_search", "input": {"query": "q"}},
                    {
                        "type": "web_search_tool_result",
                        "tool_use_id": srv,
                        "content": [
                            {
                                "type": "web_search_result",
                                "url": "https://a",
                                "title": "t",
                                "encrypted_content": "E" * 60,
                            }
                        ],
                    },
                    {
                        "type": "text",
                        "text": f"found{n} " + "x " * 200,
                        "citations": [
                            {
                                "type": "web_search_result_location",
                                "url": "https://a",
                                "title": "t",
                                "encrypted_index": "EI",
                                "cited_text": "c",
                            }
                        ],
                    },
                ],
            }
        ]
    if kind == 2:  # MCP connector
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "mcp_tool_use", "id": f"mcptoolu_{n}", "name": "x", "server_name": "s", "input": {}},
                    {
                        "type": "mcp_tool_result",
                        "tool_use_id": f"mcptoolu_{n}",
                        "is_error": False,
                        "content": [{"type": "text", "text": _out(n)}],
                    },
                    {"type": "text", "text": "ok"},
                ],
            }
        ]
    if kind == 3:  # code execution (bash flavour)
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "server_tool_use", "id": srv, "name": "bash_code_execution", "input": {"command": "ls"}},
                    {
                        "type": "bash_code_execution_tool_result",
                        "tool_use_id": srv,
                        "content": {
                            "type": "bash_code_execution_result",
                            "stdout": _out(n),
                            "stderr": "",
                            "return_code": 0,
                            "content": [],
                        },
                    },
                    {"type": "text", "text": "done"},
                ],
            }
        ]
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": t, "name": "see", "input": {}}]}
    if kind == 4:  # a result with text, image and document, with a breakpoint on the result
        result = {
            "type": "tool_result",
            "tool_use_id": t,
            "content": [{"type": "text", "text": _out(n)}, _IMAGE, _DOCUMENT],
            "cache_control": {"type": "ephemeral"},
        }
        return [call, {"role": "user", "content": [result]}]
    if kind == 5:  # search results inside a tool result
        result = {"type": "tool_result", "tool_use_id": t, "content": [_search_result(_out(n))]}
        return [call, {"role": "user", "content": [result]}]
    if kind == 6:  # an empty result list next to a container upload
        return [
            call,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": t, "content": []},
                    {"type": "container_upload", "file_id": f"file_{n}"},
                ],
            },
        ]
    # kind 7: an oversized result (cut at first sight) with a search result beside it
    result = {"type": "tool_result", "tool_use_id": t, "content": _out(n, 3000)}
    return [call, {"role": "user", "content": [result, _search_result("beside")]}]


_ANTHROPIC_OWNED = frozenset(
    {
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "bash_code_execution_tool_result",
        "search_result",
        "container_upload",
        "image",
        "document",
    }
)


def _blocks(messages: list[Any]) -> list[Any]:
    """Every block of the messages, and every block inside their tool results."""
    out: list[Any] = []
    for m in messages:
        if isinstance(m.get("content"), list):
            for b in m["content"]:
                out.append(b)
                if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                    out.extend(b["content"])
    return out


def _check_anthropic(forwarded: list[Any], sent: list[Any]) -> None:
    """Alternating roles; each tool_use answered by the next message, each tool_result by the one before."""
    for a, b in itertools.pairwise(forwarded):
        assert a["role"] != b["role"], "two messages of one role in a row"

    def ids(m: Any, kind: str, key: str) -> list[str]:
        content = m.get("content") if m is not None else None
        return sorted(b[key] for b in content if b.get("type") == kind) if isinstance(content, list) else []

    for i, m in enumerate(forwarded):
        calls = ids(m, "tool_use", "id")
        if calls and i + 1 < len(forwarded):
            assert ids(forwarded[i + 1], "tool_result", "tool_use_id") == calls
        results = ids(m, "tool_result", "tool_use_id")
        if results:
            assert i > 0 and ids(forwarded[i - 1], "tool_use", "id") == results
    client = {_dumps(b) for b in _blocks(sent)}
    for block in _blocks(forwarded):
        if block.get("type") in _ANTHROPIC_OWNED:
            assert _dumps(block) in client, f"a {block['type']} block was altered"
    # The client's newest message goes out as sent; the client's own messages keep their order.
    assert forwarded[-1] == sent[-1]
    _assert_client_order(forwarded, sent)


async def _anthropic_session(path: Path, kinds: list[int]) -> list[Outcome]:
    engine = _engine(path)
    history: list[Any] = [{"role": "user", "content": "start"}]
    outcomes = []
    for n, kind in enumerate(kinds):
        history.extend(_anthropic_turn(kind, n))
        if history[-1]["role"] == "user":
            history.append({"role": "assistant", "content": f"a{n} " + "r " * 100})
        history.append({"role": "user", "content": f"u{n} " + "w " * 150})
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "bash", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
            "context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]},
            "messages": copy.deepcopy(history),
        }
        outcome = await engine.rewrite(
            FORMATS["anthropic"], copy.deepcopy(body), {"x-claude-code-session-id": "s"}, TENANT
        )
        await engine.settle()
        sent = _sent(outcome, body)
        assert {k: v for k, v in sent.items() if k != "messages"} == {k: v for k, v in body.items() if k != "messages"}
        _check_anthropic(sent["messages"], history)
        outcomes.append(outcome)
    return outcomes


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 7), min_size=18, max_size=30))
def test_anthropic_shapes_stay_paired_and_provider_blocks_intact(tmp_path_factory: Any, kinds: list[int]) -> None:
    outcomes = asyncio.run(_anthropic_session(tmp_path_factory.mktemp("shapes"), kinds))
    assert any(o.compacted for o in outcomes)


@pytest.mark.parametrize(
    "beside",
    [
        _search_result("beside"),
        {"type": "container_upload", "file_id": "file_1"},
        {
            "type": "text",
            "text": "see the cited part",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "x",
                    "document_index": 0,
                    "start_char_index": 0,
                    "end_char_index": 1,
                }
            ],
        },
    ],
    ids=["search_result", "container_upload", "cited_text"],
)
def test_the_blocks_beside_a_cut_result_go_out_as_the_client_sent_them(tmp_path: Path, beside: dict[str, Any]) -> None:
    """Regression: the first-sight cut re-rendered the whole user message, so a block the canonical model does not
    know became a ``[search_result] {...}`` text and a text lost its citations in the forwarded request."""
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": BIG}, beside]},
    ]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages}
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.offloads == 1 and outcome.body is not None
    last = orjson.loads(outcome.body)["messages"][-1]
    assert len(_dumps(last["content"][0])) < len(BIG) // 2  # the result was cut
    assert _dumps(last["content"][1]) == _dumps(beside)


def test_an_oversized_result_holding_search_results_goes_out_as_sent(tmp_path: Path) -> None:
    """Regression: a ``search_result`` inside a tool result made the engine raise on every request of the session
    (forwarded unchanged by fail-open, so the session was never compacted); cutting it would rewrite the client's
    search results as text."""
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [_search_result(BIG)]}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {}}]},
        {"role": "user", "content": [result]},
    ]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages}
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.action == "pass" and outcome.body is None and outcome.tokens_before > 1000


def test_a_session_of_search_results_compacts(tmp_path: Path) -> None:
    outcomes = asyncio.run(_anthropic_session(tmp_path, [5] * 20))
    assert any(o.compacted for o in outcomes)


# -- Responses ---------------------------------------------------------------------------------------------------


def _responses_turn(kind: int, n: int) -> list[dict[str, Any]]:
    c = f"call_{n}"
    shapes: list[list[dict[str, Any]]] = [
        [
            {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"ENC{n}" * 10},
            {"type": "function_call", "call_id": c, "name": "shell", "arguments": "{}", "id": f"fc_{n}"},
            {"type": "function_call_output", "call_id": c, "output": _out(n)},
        ],
        [
            {
                "type": "local_shell_call",
                "call_id": c,
                "id": f"lsh_{n}",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"], "env": {}},
            },
            {"type": "local_shell_call_output", "id": c, "output": _out(n)},
        ],
        [
            {
                "type": "shell_call",
                "call_id": c,
                "id": f"sh_{n}",
                "status": "completed",
                "action": {"commands": ["ls"]},
            },
            {
                "type": "shell_call_output",
                "call_id": c,
                "output": [{"stdout": _out(n), "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
            },
        ],
        [
            {
                "type": "apply_patch_call",
                "call_id": c,
                "id": f"apc_{n}",
                "status": "completed",
                "operation": {"type": "update_file", "path": "a.py", "diff": "-a\n+b"},
            },
            {"type": "apply_patch_call_output", "call_id": c, "status": "completed", "output": _out(n, 50)},
        ],
        [
            {
                "type": "computer_call",
                "call_id": c,
                "id": f"cu_{n}",
                "status": "completed",
                "action": {"type": "click", "x": 1, "y": 2, "button": "left"},
                "pending_safety_checks": [],
            },
            {
                "type": "computer_call_output",
                "call_id": c,
                "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"},
            },
        ],
        [
            {
                "type": "mcp_list_tools",
                "id": f"mcpl_{n}",
                "server_label": "s",
                "tools": [{"name": "x", "input_schema": {}}],
            },
            {
                "type": "mcp_call",
                "id": f"mcp_{n}",
                "server_label": "s",
                "name": "x",
                "arguments": "{}",
                "output": _out(n, 100),
            },
        ],
        [
            {"type": "mcp_approval_request", "id": f"mcpr_{n}", "server_label": "s", "name": "x", "arguments": "{}"},
            {"type": "mcp_approval_response", "approval_request_id": f"mcpr_{n}", "approve": True},
        ],
        [
            {
                "type": "web_search_call",
                "id": f"ws_{n}",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": f"found{n} " + "x " * 100,
                        "annotations": [
                            {"type": "url_citation", "url": "https://a", "title": "t", "start_index": 0, "end_index": 3}
                        ],
                    }
                ],
            },
        ],
        [{"type": "image_generation_call", "id": f"ig_{n}", "status": "completed", "result": "BASE64IMG" * 20}],
        [
            {
                "type": "code_interpreter_call",
                "id": f"ci_{n}",
                "status": "completed",
                "code": "print(1)",
                "container_id": "cntr",
                "outputs": [{"type": "logs", "logs": _out(n, 50)}],
            }
        ],
        [
            {
                "type": "custom_tool_call",
                "call_id": c,
                "name": "apply_patch",
                "input": "*** Begin Patch",
                "id": f"ctc_{n}",
            },
            {"type": "custom_tool_call_output", "call_id": c, "output": [{"type": "input_text", "text": _out(n)}]},
        ],
        [{"type": "compaction", "id": f"cmp_{n}", "encrypted_content": f"COMPACT{n}" * 10}],
        [{"type": "item_reference", "id": f"msg_{n}"}],
        [
            {"type": "function_call", "call_id": c, "name": "see", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": c,
                "output": [
                    {"type": "input_text", "text": _out(n, 3000)},
                    {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"},
                ],
            },
        ],
    ]
    return shapes[kind]


_RESPONSES_OWNED = frozenset(
    {
        "reasoning",
        "compaction",
        "item_reference",
        "web_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "computer_call",
        "computer_call_output",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "custom_tool_call",
        "function_call",
    }
)


def _check_responses(forwarded: list[Any], sent: list[Any]) -> None:
    """Every output after its call and answered once; owned items byte-identical; the client's order kept."""
    calls: set[str] = set()
    answered: set[str] = set()
    for item in forwarded:
        kind = item.get("type", "message")
        if kind.endswith("_call") and "call_id" in item:
            calls.add(item["call_id"])
        if kind.endswith("_call_output"):
            call = item.get("call_id", item.get("id"))
            assert call in calls, f"{kind} {call} without its call before it"
            assert call not in answered, f"{call} answered twice"
            answered.add(call)
        if kind == "mcp_approval_response":
            assert any(i.get("id") == item["approval_request_id"] for i in forwarded), "an orphaned approval"
    client = {_dumps(i) for i in sent}
    for item in forwarded:
        if item.get("type") in _RESPONSES_OWNED:
            assert _dumps(item) in client, f"a {item['type']} item was altered"
    assert forwarded[-1] == sent[-1]
    _assert_client_order(forwarded, sent)


async def _responses_session(path: Path, kinds: list[int]) -> list[Outcome]:
    engine = _engine(path)
    history: list[Any] = [{"type": "message", "role": "developer", "content": "dev"}]
    outcomes = []
    for n, kind in enumerate(kinds):
        history.append(
            {
                "type": "message",
                "role": "user",
                "id": f"msg_{n}",
                "content": [{"type": "input_text", "text": f"u{n} " + "w " * 150}],
            }
        )
        history.extend(_responses_turn(kind, n))
        history.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"a{n} " + "r " * 100}],
            }
        )
        body = {"model": "gpt-5", "instructions": "be good", "input": copy.deepcopy(history), "store": True}
        outcome = await engine.rewrite(FORMATS["responses"], copy.deepcopy(body), {"session-id": "s"}, TENANT)
        await engine.settle()
        sent = _sent(outcome, body)
        assert {k: v for k, v in sent.items() if k != "input"} == {k: v for k, v in body.items() if k != "input"}
        _check_responses(sent["input"], history)
        outcomes.append(outcome)
    return outcomes


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 13), min_size=20, max_size=32))
def test_responses_shapes_stay_paired_and_provider_items_intact(tmp_path_factory: Any, kinds: list[int]) -> None:
    outcomes = asyncio.run(_responses_session(tmp_path_factory.mktemp("shapes"), kinds))
    assert any(o.compacted for o in outcomes)


def test_large_server_tool_results_are_counted_and_compacted(tmp_path: Path) -> None:
    """Regression: a block the canonical model does not know was counted as a 2,000-character excerpt, so a session
    of large code-execution outputs (or web search results) looked small and went out far over the window."""
    history: list[Any] = [{"role": "user", "content": "start"}]
    for n in range(8):
        turn = _anthropic_turn(3, n)
        turn[0]["content"][1]["content"]["stdout"] = f"run {n}\n" + "output line\n" * 2000
        history.extend(turn)
        history.append({"role": "user", "content": f"u{n}"})
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": history}
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.tokens_before >= len(_dumps(history)) // 5
    assert outcome.compacted and outcome.tokens_after <= 6000
    _check_anthropic(_sent(outcome, body)["messages"], history)


# -- OpenAI Chat Completions -------------------------------------------------------------------------------------


def _chat_turn(kind: int, n: int) -> list[dict[str, Any]]:
    c = f"call_{n}"

    def call(*ids: str) -> dict[str, Any]:
        calls = [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids]
        return {"role": "assistant", "content": None, "tool_calls": calls}

    shapes: list[list[dict[str, Any]]] = [
        [  # parallel calls; one result as a string, one as text parts
            call(c, c + "b"),
            {"role": "tool", "tool_call_id": c, "content": _out(n)},
            {"role": "tool", "tool_call_id": c + "b", "content": [{"type": "text", "text": "ok"}]},
        ],
        [  # the legacy functions API
            {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
            {"role": "function", "name": "f", "content": _out(n)},
        ],
        [  # a custom tool call
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": c, "type": "custom", "custom": {"name": "g", "input": "raw"}}],
            },
            {"role": "tool", "tool_call_id": c, "content": _out(n)},
        ],
        [  # a named user with image, audio and file parts; a refusal
            {
                "role": "user",
                "name": "bob",
                "content": [
                    {"type": "text", "text": f"look {n}"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
                    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                    {"type": "file", "file": {"file_id": f"file-{n}"}},
                ],
            },
            {"role": "assistant", "content": [{"type": "refusal", "refusal": f"no {n}"}], "refusal": f"no {n}"},
        ],
        [  # a named assistant with text beside its call; an oversized result (cut at first sight)
            {"role": "assistant", "content": f"calling {n}", "name": "helper", "tool_calls": call(c)["tool_calls"]},
            {"role": "tool", "tool_call_id": c, "content": _out(n, 3000)},
        ],
        [{"role": "developer", "content": f"a developer note mid-session {n}"}],
    ]
    return shapes[kind]


def _check_chat(forwarded: list[Any], sent: list[Any], head: int) -> None:
    """Tool results after their calls and answered once, function results right after their function_call."""
    calls: set[str] = set()
    answered: set[str] = set()
    for i, m in enumerate(forwarded):
        calls.update(tc["id"] for tc in m.get("tool_calls") or [])
        if m["role"] == "tool":
            assert m["tool_call_id"] in calls and m["tool_call_id"] not in answered
            answered.add(m["tool_call_id"])
        if m["role"] == "function":
            assert forwarded[i - 1]["role"] == "assistant" and forwarded[i - 1].get("function_call")
        if m.get("function_call"):
            assert i + 1 == len(forwarded) or forwarded[i + 1]["role"] == "function"
    assert forwarded[:head] == sent[:head]
    assert forwarded[-1] == sent[-1]
    _assert_client_order(forwarded, sent)


async def _chat_session(path: Path, kinds: list[int]) -> list[Outcome]:
    engine = _engine(path)
    history: list[Any] = [{"role": "developer", "content": "dev"}, {"role": "system", "content": "sys"}]
    outcomes = []
    for n, kind in enumerate(kinds):
        history.append({"role": "user", "content": f"u{n} " + "w " * 150})
        history.extend(_chat_turn(kind, n))
        if history[-1]["role"] != "assistant":
            history.append({"role": "assistant", "content": f"a{n} " + "r " * 100})
        history.append({"role": "user", "content": f"go on {n}"})
        body = {
            "model": "gpt-4o",
            "messages": copy.deepcopy(history),
            "functions": [{"name": "f", "parameters": {"type": "object"}}],
            "tools": [{"type": "custom", "custom": {"name": "g"}}],
            "n": 2,
            "parallel_tool_calls": True,
        }
        outcome = await engine.rewrite(FORMATS["openai"], copy.deepcopy(body), {"session-id": "s"}, TENANT)
        await engine.settle()
        sent = _sent(outcome, body)
        assert {k: v for k, v in sent.items() if k != "messages"} == {k: v for k, v in body.items() if k != "messages"}
        _check_chat(sent["messages"], history, 2)
        outcomes.append(outcome)
        history.pop()
    return outcomes


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 5), min_size=20, max_size=30))
def test_chat_shapes_stay_paired(tmp_path_factory: Any, kinds: list[int]) -> None:
    outcomes = asyncio.run(_chat_session(tmp_path_factory.mktemp("shapes"), kinds))
    assert any(o.compacted for o in outcomes) or not any(k in (0, 1, 2, 4) for k in kinds)


def test_a_legacy_functions_session_compacts_and_keeps_each_function_call_with_its_result(tmp_path: Path) -> None:
    """Regression: a ``role: function`` message made every request of the session raise (forwarded unchanged by
    fail-open, so a client of the legacy functions API was never compacted)."""
    outcomes = asyncio.run(_chat_session(tmp_path, [1] * 24))
    assert any(o.compacted for o in outcomes)


def test_a_local_shell_output_names_its_call_by_id() -> None:
    call = {"type": "local_shell_call", "call_id": "c1", "id": "lsh_1", "action": {"type": "exec", "command": ["ls"]}}
    output = {"type": "local_shell_call_output", "id": "c1", "output": "ok"}
    [result] = parse_item(1, output).content
    assert isinstance(result, ToolResultBlock) and result.call_id == "c1"
    assert (
        validate(
            responses_to_messages([{"type": "message", "role": "user", "content": "go"}, call, output]), "responses"
        )
        == []
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_a_compaction_never_leaves_a_local_shell_output_without_its_call(tmp_path: Path, seed: int) -> None:
    """Regression: ``local_shell_call_output`` names its call by ``id`` (it has no ``call_id``), so the format saw
    an unanswered call and an unrelated item, and a compaction could cut between them (seed 0: the output went out
    right after the summary, its call compacted away)."""
    rnd = random.Random(seed)

    async def run() -> int:
        engine = _engine(tmp_path)
        history: list[Any] = []
        compactions = 0
        for n in range(40):
            history.append({"type": "message", "role": "user", "content": f"u{n} " + "w " * rnd.randint(10, 300)})
            for j in range(rnd.randint(1, 3)):
                c = f"c{n}_{j}"
                action = {"type": "exec", "command": ["ls"], "env": {}}
                history.append(
                    {"type": "local_shell_call", "call_id": c, "id": f"ls_{c}", "status": "completed", "action": action}
                )
                history.append({"type": "local_shell_call_output", "id": c, "output": "o " * rnd.randint(10, 400)})
            text = f"a{n} " + "r " * rnd.randint(10, 200)
            history.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
            body = {"model": "gpt-5", "input": copy.deepcopy(history)}
            outcome = await engine.rewrite(FORMATS["responses"], copy.deepcopy(body), {"session-id": "s"}, TENANT)
            await engine.settle()
            compactions += outcome.compacted
            _check_responses(_sent(outcome, body)["input"], history)
        return compactions

    assert asyncio.run(run()) >= 1


def test_an_mcp_approval_is_paired_with_its_request() -> None:
    request = {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "s", "name": "x", "arguments": "{}"}
    answer = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True}
    items = [{"type": "message", "role": "user", "content": "go"}, request, answer]
    assert validate(responses_to_messages(items), "responses") == []
    orphan = validate(responses_to_messages([items[0], answer]), "responses")
    assert [p.code for p in orphan if p.blocking] != []


@pytest.mark.parametrize("seed", [0, 1])
def test_a_compaction_never_leaves_an_mcp_approval_without_its_request(tmp_path: Path, seed: int) -> None:
    """Regression: an ``mcp_approval_response`` names its request by ``approval_request_id``; the format saw two
    unrelated items, and a compaction cut between them (seed 0 and 1: the answer went out, its request compacted
    away; without the request the provider cannot resolve the approval)."""
    rnd = random.Random(seed)

    async def run() -> int:
        engine = _engine(tmp_path)
        history: list[Any] = []
        compactions = 0
        for n in range(40):
            history.append({"type": "message", "role": "user", "content": f"u{n} " + "w " * rnd.randint(10, 300)})
            history.append(
                {"type": "mcp_approval_request", "id": f"mcpr_{n}", "server_label": "s", "name": "x", "arguments": "{}"}
            )
            if rnd.random() < 0.5:
                text = "a " * rnd.randint(10, 300)
                history.append(
                    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
                )
            history.append({"type": "message", "role": "user", "content": "yes " * rnd.randint(1, 100)})
            history.append({"type": "mcp_approval_response", "approval_request_id": f"mcpr_{n}", "approve": True})
            output = "o " * rnd.randint(10, 400)
            history.append(
                {
                    "type": "mcp_call",
                    "id": f"mcp_{n}",
                    "server_label": "s",
                    "name": "x",
                    "arguments": "{}",
                    "output": output,
                }
            )
            text = f"a{n} " + "r " * rnd.randint(10, 200)
            history.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
            body = {"model": "gpt-5", "input": copy.deepcopy(history)}
            outcome = await engine.rewrite(FORMATS["responses"], copy.deepcopy(body), {"session-id": "s"}, TENANT)
            await engine.settle()
            compactions += outcome.compacted
            _check_responses(_sent(outcome, body)["input"], history)
        return compactions

    assert asyncio.run(run()) >= 1


# -- through the HTTP app, with the official SDKs ----------------------------------------------------------------


def test_anthropic_sdk_session_of_server_tools_and_search_results(upstream: ProviderServer, make_proxy: Any) -> None:
    """Server tool outputs and search results, sent by the Anthropic SDK through the proxy: compacted, paired, and
    every block the provider owns reaches the upstream as the client sent it."""
    proxy = make_proxy(window=8000)
    client = anthropic.Anthropic(base_url=proxy.url, api_key="sk-ant-api03-shapes-000000", max_retries=0)
    history: list[Any] = [{"role": "user", "content": "start"}]
    compacted = []
    sent: list[list[Any]] = []
    try:
        for n in range(14):
            history.extend(_anthropic_turn((1, 3, 5, 7)[n % 4], n))
            if history[-1]["role"] == "user":
                history.append({"role": "assistant", "content": f"a{n} " + "r " * 100})
            history.append({"role": "user", "content": f"u{n} " + "w " * 150})
            upstream.queue(Reply(text=f"reply {n}"))
            raw = client.messages.with_raw_response.create(
                model="claude-sonnet-4-5", max_tokens=64, system="sys", messages=history
            )
            assert raw.parse().content[0].text == f"reply {n}"  # type: ignore[union-attr]
            compacted.append(raw.headers["x-contextfold-compacted"] == "true")
            sent.append(copy.deepcopy(history))
    finally:
        client.close()
    assert any(compacted)
    bodies = upstream.bodies("anthropic")
    assert len(bodies) == len(sent)
    for body, client_sent in zip(bodies, sent, strict=True):
        _check_anthropic(body["messages"], client_sent)


def test_responses_sdk_session_of_local_shell_calls_and_mcp_approvals(
    upstream: ProviderServer, make_proxy: Any
) -> None:
    proxy = make_proxy(window=8000)
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-proj-shapes-0000", max_retries=0)
    history: list[Any] = []
    compacted = []
    sent: list[list[Any]] = []
    try:
        for n in range(24):
            history.append({"type": "message", "role": "user", "content": f"u{n} " + "w " * 150})
            history.extend(_responses_turn((1, 6, 5, 0)[n % 4], n))
            history.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"a{n} " + "r " * 100}],
                }
            )
            upstream.queue(Reply(text=f"reply {n}"))
            raw = client.responses.with_raw_response.create(model="gpt-5", instructions="be good", input=history)
            assert raw.parse().output_text == f"reply {n}"
            compacted.append(raw.headers["x-contextfold-compacted"] == "true")
            sent.append(copy.deepcopy(history))
    finally:
        client.close()
    assert any(compacted)
    bodies = upstream.bodies("responses")
    assert len(bodies) == len(sent)
    for body, client_sent in zip(bodies, sent, strict=True):
        _check_responses(body["input"], client_sent)


@pytest.mark.parametrize(
    ("path", "body", "logged"),
    [
        (  # an item the format does not read is opaque: kept as sent, nothing else to compact
            "/v1/responses",
            {
                "model": "gpt-5",
                "input": [
                    {"type": "message", "role": "user", "content": 42},
                    {"type": "message", "role": "user", "content": "w " * 5000},
                ],
            },
            " pass ",
        ),
        (  # a message the format refuses: the engine raises, the app forwards the client's bytes
            "/v1/chat/completions",
            {
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": {"odd": True}}, {"role": "user", "content": "w " * 5000}],
            },
            "forwarded unchanged: internal error",
        ),
    ],
    ids=["responses", "chat"],
)
def test_a_shape_the_formats_refuse_reaches_the_upstream_unchanged(
    upstream: ProviderServer, make_proxy: Any, path: str, body: dict[str, Any], logged: str
) -> None:
    proxy = make_proxy(window=2000)
    upstream.queue(Reply(text="fine"))
    data = orjson.dumps(body)
    headers = {"authorization": "Bearer sk-proj-shapes-0000", "content-type": "application/json"}
    response = httpx2.post(proxy.url + path, content=data, headers=headers, timeout=60)
    assert response.status_code == 200
    assert upstream.requests[-1].raw == data  # over the window, but unreadable: the client's bytes, as sent
    assert any(logged in line for line in proxy.lines)
