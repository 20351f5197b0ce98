"""Provider-side compaction state in the library's formats: Anthropic ``compaction`` blocks, Responses items.

Anthropic's server-side compaction (beta ``compact-2026-01-12``) answers with an assistant message holding a
``compaction`` block (``content``: its summary; ``encrypted_content``, ``signature``, ``tool_changes``: opaque, sent
back verbatim) and drops every message block before the latest one on later requests. A Responses ``compaction``
item (``encrypted_content``) is the output of ``/responses/compact`` or of ``context_management``. Both must come
back byte for byte; the library never compacts across an Anthropic boundary and never summarizes a Responses item.
"""

from __future__ import annotations

import asyncio
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from anthropic.types.beta import BetaMessageParam
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.responses import ResponseCompactionItemParam, ResponseInputItemParam
from pydantic import TypeAdapter

from contextfold import BytesCounter, Context, ContextConfig, render, to_canonical, validate
from contextfold._cli import main
from contextfold.testing import FixedClock

CLOCK = FixedClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))

BOUNDARY = {
    "type": "compaction",
    "content": "Summary: the user asked to fix the parser; tests pass; next: docs.",
    "encrypted_content": "EiQKIgog" + "A" * 40,
    "signature": "c2lnbmF0dXJl" * 4,
    "tool_changes": [],
}
NOOP = {"type": "compaction", "content": None}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def big_turns(start: int, count: int, size: int = 600) -> list[dict[str, Any]]:
    """``count`` tool-using turns (user, assistant tool_use, user tool_result, assistant text)."""
    out: list[dict[str, Any]] = []
    for i in range(start, start + count):
        out += [
            user(f"task {i}: read src/m{i}.py"),
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"i": i}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x" * size}]},
            {"role": "assistant", "content": f"done {i}"},
        ]
    return out


def history(before: int, after: int) -> list[dict[str, Any]]:
    """``before`` turns, an assistant turn opening with a compaction block (and a tool call), ``after`` turns."""
    return [
        *big_turns(0, before),
        user("go on"),
        {
            "role": "assistant",
            "content": [
                dict(BOUNDARY),
                {"type": "text", "text": "Continuing."},
                {"type": "tool_use", "id": "tb", "name": "read", "input": {"i": -1}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tb", "content": "ok"}]},
        *big_turns(100, after),
        user("and now?"),
    ]


def compaction_blocks(messages: list[dict[str, Any]]) -> list[Any]:
    return [
        b
        for m in messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "compaction"
    ]


def context(window: int) -> Context:
    return Context(ContextConfig(window=window), system="You are careful.", counter=BytesCounter(), clock=CLOCK)


# ---------------------------------------------------------------------------------------------- the format


@pytest.mark.parametrize("block", [BOUNDARY, NOOP, {**BOUNDARY, "cache_control": {"type": "ephemeral"}}])
def test_an_assistant_compaction_block_round_trips_byte_for_byte(block: dict[str, Any]) -> None:
    messages = [
        user("hi"),
        {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}], "id": "msg_1"},
        user("next"),
        {"role": "assistant", "content": [block]},
    ]
    canonical = to_canonical(messages, "anthropic")
    body = render(canonical, "anthropic")
    assert json.dumps(body["messages"]) == json.dumps(messages)


def test_the_block_counts_as_its_summary_and_renders_elsewhere_as_that_text() -> None:
    [msg] = to_canonical([{"role": "assistant", "content": [dict(BOUNDARY)]}], "anthropic")
    assert msg.text == BOUNDARY["content"]
    assert render([msg], "openai")["messages"] == [{"role": "assistant", "content": BOUNDARY["content"]}]


def test_a_compaction_block_with_a_content_that_is_not_text_is_refused() -> None:
    with pytest.raises(Exception, match="compaction block's 'content'"):
        to_canonical([{"role": "assistant", "content": [{"type": "compaction", "content": 3}]}], "anthropic")


def test_the_anthropic_sdk_types_accept_what_we_render() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(BetaMessageParam)
    body = render(to_canonical(history(1, 1), "anthropic"), "anthropic")
    for message in body["messages"]:
        checked = adapter.validate_python(message)  # raises on a block or field the SDK does not know
        assert materialized(checked) == message
    [block] = compaction_blocks(body["messages"])
    assert block == BOUNDARY


def materialized(value: Any) -> Any:
    """A validated TypedDict with its lazily validated iterables turned into lists."""
    if isinstance(value, dict):
        return {k: materialized(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return [materialized(v) for v in value]


# ---------------------------------------------------------------------------------------------- Context


def test_what_precedes_the_boundary_is_not_counted() -> None:
    ctx = context(200_000)
    ctx.extend(history(40, 0), provider="anthropic")
    dropped = context(200_000)
    dropped.extend(history(0, 0), provider="anthropic")
    # 40 turns of 600-byte results before the block: the API drops them, so they cost nothing.
    assert abs(ctx.tokens - dropped.tokens) < 200
    assert ctx.tokens < 2_000


def test_context_compacts_only_after_the_boundary_and_keeps_it_verbatim() -> None:
    messages = history(20, 20)
    ctx = context(3_000)
    ctx.extend(messages, provider="anthropic")
    prepared = asyncio.run(ctx.prepare())
    assert prepared.compaction is not None and prepared.compaction.messages_compacted > 0
    out = render(list(prepared.messages), "anthropic")["messages"]
    # Everything up to the boundary turn goes out exactly as it came in, and the answer to its tool call first.
    head = messages.index(next(m for m in messages if compaction_blocks([m]))) + 1
    assert out[:head] == messages[:head]
    assert out[head]["content"][0] == messages[head]["content"][0]
    assert compaction_blocks(out) == [BOUNDARY]
    assert not [p for p in validate(list(prepared.messages), "anthropic") if p.blocking]
    assert ctx.tokens <= ctx.config.trigger_tokens


_TURN = st.sampled_from(["text", "tool", "boundary", "noop"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=st.lists(_TURN, min_size=4, max_size=30), size=st.integers(50, 900), window=st.integers(3_000, 9_000))
def test_random_histories_keep_their_compaction_blocks_verbatim_and_in_order(
    turns: list[str], size: int, window: int
) -> None:
    messages: list[dict[str, Any]] = []
    for i, kind in enumerate(turns):
        messages.append(user(f"step {i} " + "y" * size))
        if kind == "tool":
            messages += big_turns(1000 + i, 1, size)[1:]
        else:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": f"reply {i} " + "z" * size}]
            if kind in ("boundary", "noop"):
                blocks.insert(0, {**(BOUNDARY if kind == "boundary" else NOOP), "signature": f"s{i}"})
            messages.append({"role": "assistant", "content": blocks})
    messages.append(user("last"))
    ctx = context(window)
    ctx.extend(messages, provider="anthropic")
    try:
        prepared = asyncio.run(ctx.compact())
    except Exception as exc:  # the floor (what no compaction may remove) can exceed a small window
        assert type(exc).__name__ == "ContextOverflowError"
        return
    out = render(list(ctx.messages), "anthropic")["messages"]
    before = [b for b in compaction_blocks(messages) if b.get("content") is not None]
    after = compaction_blocks(out)
    # Every boundary block survives verbatim and in order; a no-op block leaves only with its whole turn.
    assert [b for b in after if b.get("content") is not None] == before
    noops = [b for b in compaction_blocks(messages) if b.get("content") is None]
    assert all(b in noops for b in after if b.get("content") is None)
    if before:  # nothing at or before the latest boundary (and its turn) changed
        last = max(i for i, m in enumerate(messages) if [b for b in compaction_blocks([m]) if b["content"]])
        assert out[: last + 1] == messages[: last + 1]
    assert not [p for p in validate(list(ctx.messages), "anthropic") if p.blocking]
    if prepared is not None:
        assert out != messages


# ---------------------------------------------------------------------------------------------- the CLI


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env={"COLUMNS": "120"})
    return code, out.getvalue(), err.getvalue()


def test_cli_compacts_an_anthropic_transcript_holding_a_compaction_block(tmp_path: Path) -> None:
    messages = history(10, 20)
    src = tmp_path / "t.json"
    src.write_text(json.dumps({"system": "You are careful.", "messages": messages}))
    out = tmp_path / "out.json"
    code, stdout, err = run(
        "compact", str(src), "--window", "8000", "-o", str(out), "--workspace", str(tmp_path / "ws"), "--json"
    )
    assert code == 0, err
    assert json.loads(stdout)["conversations"][0]["compacted"]
    written = json.loads(out.read_text())["messages"]
    assert compaction_blocks(written) == [BOUNDARY]
    # Up to the boundary turn as it came; the answer to its tool call comes first in the next user turn (the
    # summary, a user message, renders into that turn after it).
    head = 10 * 4 + 2
    assert written[:head] == messages[:head]
    assert written[head]["content"][0] == messages[head]["content"][0]


# ---------------------------------------------------------------------------------------------- Responses


ITEM = {"type": "compaction", "id": "cmp_001", "encrypted_content": "gAAAAB" + "Q" * 60}


def responses_history() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "start"}]},
        dict(ITEM),
    ]
    for i in range(20):
        items += [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"task {i}"}]},
            {"type": "function_call", "call_id": f"c{i}", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"c{i}", "output": "x" * 600},
        ]
    items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "now?"}]})
    return items


def test_a_responses_compaction_item_is_carried_forward_verbatim_by_a_compaction() -> None:
    ctx = context(3_000)
    ctx.extend(responses_history(), provider="responses")
    prepared = asyncio.run(ctx.prepare())
    assert prepared.compaction is not None and prepared.compaction.messages_compacted > 2
    _, items = to_canonical_items(list(prepared.messages))
    assert [i for i in items if i.get("type") == "compaction"] == [ITEM]
    # Carried in front of the summary, so it still precedes what it does not cover.
    kinds = [i.get("type") for i in items]
    assert kinds.index("compaction") < 2
    assert not [p for p in validate(list(prepared.messages), "responses") if p.blocking]


def to_canonical_items(messages: list[Any]) -> tuple[Any, list[dict[str, Any]]]:
    body = render(messages, "responses")
    return body.get("instructions"), body["input"]


def test_the_openai_sdk_types_accept_the_compaction_item_we_render() -> None:
    _, items = to_canonical_items(to_canonical(responses_history(), "responses"))
    [item] = [i for i in items if i.get("type") == "compaction"]
    assert ResponseCompactionItemParam.model_validate(item).encrypted_content == ITEM["encrypted_content"]
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
    assert adapter.validate_python(item) == item
