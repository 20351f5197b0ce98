"""Tool-call arguments nested a thousand levels deep (issue 14, item 8): no `RecursionError` anywhere.

A model only has to emit a 2 KB argument string like ``{"a":[[[[...]]]]}``; Python's JSON decoder recurses once per
level. Every entry point that reads arguments is exercised: `ToolCallBlock.parsed_arguments`, the digest and tiered
compactions through `Context.compact`, ``contextfold compact``, `Agent.run`, and rendering for Anthropic.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import BytesCounter, Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._agent._loop import Agent
from contextfold._cli import main
from contextfold._config import ContextConfig
from contextfold._context import Context
from contextfold._formats import render
from contextfold._formats._transcript import load_transcripts
from contextfold._formats._validate import validate
from contextfold._messages import MAX_ARGUMENT_DEPTH, ToolSpec, _nested_deeper
from contextfold.compaction import extract_facts
from contextfold.compaction._tiered import TieredCompaction
from contextfold.models import ModelResponse, Usage

C = BytesCounter()


def deep(levels: int, inner: str = "") -> str:
    return '{"command": "ls /srv/app/x.py", "a": ' + "[" * levels + inner + "]" * levels + "}"


def history(arguments: str, rounds: int = 24) -> list[Message]:
    out = [Message.text_message("system", "You are an agent.")]
    for i in range(rounds):
        out.append(Message.text_message("user", f"step {i}: look at /srv/app/mod_{i}.py " + "x" * 300))
        out.append(Message(role="assistant", content=(ToolCallBlock(id=f"c{i}", name="bash", arguments=arguments),)))
        result = ToolResultBlock(call_id=f"c{i}", content=(TextBlock(text="ok " + "y" * 300 + "\nexit code 0"),))
        out.append(Message(role="tool", content=(result,)))
    return out


@pytest.mark.parametrize("levels", [MAX_ARGUMENT_DEPTH + 1, 1_000, 100_000])
def test_parsed_arguments_refuse_deep_nesting_with_a_value_error(levels: int) -> None:
    call = ToolCallBlock(id="c", name="bash", arguments=deep(levels))
    with pytest.raises(ValueError, match="nested deeper than"):
        call.parsed_arguments()


def test_parsed_arguments_decode_up_to_the_cap_and_brackets_in_strings() -> None:
    assert ToolCallBlock(id="c", name="f", arguments=deep(MAX_ARGUMENT_DEPTH - 1)).parsed_arguments()["a"]
    many = json.dumps({"pattern": "[" * 5_000 + '"\\' + "{" * 5_000, "list": [[1]] * 300})
    assert ToolCallBlock(id="c", name="f", arguments=many).parsed_arguments()["pattern"].startswith("[[[")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.text(alphabet='[]{}"\\ab', max_size=6), lambda c: st.lists(c, max_size=3)))
def test_nesting_check_equals_the_decoded_depth(value: Any) -> None:
    def depth(v: Any) -> int:
        return 1 + max((depth(x) for x in v), default=0) if isinstance(v, list) else 0

    text = json.dumps(value)
    for limit in range(0, 6):
        assert _nested_deeper(text, limit) == (depth(value) > limit)


def test_the_ledger_reads_deep_arguments_as_text() -> None:
    msgs = history(deep(1_000), rounds=1)
    facts = extract_facts(msgs)  # no RecursionError; the raw arguments are scanned as text
    assert "/srv/app/x.py" in facts.values("file")


@pytest.mark.parametrize("strategy", ["digest", "tiered"])
async def test_context_compact_with_deep_arguments(strategy: str) -> None:
    def run() -> tuple[str, list[Message]]:
        chosen = TieredCompaction() if strategy == "tiered" else None
        ctx = Context(ContextConfig(window=2_000), counter=C, hints=False, **({"strategy": chosen} if chosen else {}))
        ctx.extend(history(deep(1_000)))
        report = asyncio.run(ctx.compact())
        assert report is not None and ctx.tokens <= ctx.config.budget
        return report.strategy, list(ctx.messages)

    # Twice in fresh contexts, once under a deep stack (the decoder's limit depends on it): the same output.
    first = await asyncio.to_thread(run)
    second = await asyncio.to_thread(_under_deep_stack, run)
    assert first == second
    for provider in ("openai", "anthropic"):
        assert not [p for p in validate(first[1], provider) if p.blocking]


def _under_deep_stack(fn: Any, depth: int = 600) -> Any:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, depth + 1_000))
    try:

        def down(n: int) -> Any:
            return fn() if n == 0 else down(n - 1)

        return down(depth)
    finally:
        sys.setrecursionlimit(limit)


def test_cli_compact_with_deep_arguments(tmp_path: Path) -> None:
    doc = [
        {"role": "system", "content": "You are an agent."},
    ]
    for i in range(24):
        doc.append({"role": "user", "content": f"step {i} " + "x" * 300})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": deep(1_000)}}
        doc.append({"role": "assistant", "content": None, "tool_calls": [call]})
        doc.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok " + "y" * 300})
    src = tmp_path / "deep.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out.json"
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["compact", str(src), "--window", "2000", "-o", str(out), "--workspace", str(tmp_path / "ws"), "--force"]
    code = main(argv, stdout=stdout, stderr=stderr, env={"COLUMNS": "120"})
    assert code == 0, stderr.getvalue()
    [compacted] = load_transcripts(out)
    assert len(compacted.messages) < len(doc)
    assert "Traceback" not in stderr.getvalue()


class _DeepModel:
    """Calls a tool with deeply nested arguments, then answers; records what it was sent."""

    def __init__(self) -> None:
        self.requests: list[list[Message]] = []

    async def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (), stream: Any = None
    ) -> ModelResponse:
        self.requests.append(list(messages))
        n = len(self.requests)
        if n <= 12:
            call = ToolCallBlock(id=f"deep_{n}", name="echo", arguments=deep(1_000))
            message = Message(role="assistant", content=(TextBlock(text="calling " + "z" * 200), call))
        else:
            message = Message.text_message("assistant", "done")
        return ModelResponse(
            message=message,
            usage=Usage(prompt_tokens=0, completion_tokens=1),
            stop_reason="tool_use" if message.tool_calls else "end_turn",
        )


def echo(a: list[Any]) -> str:
    """Echo the nesting back."""
    return "echoed " + "w" * 400


async def test_agent_run_with_deep_arguments_compacts_and_answers() -> None:
    model = _DeepModel()
    ctx = Context(window=2_500, counter=C, hints=False)
    result = await Agent(model, tools=[echo], context=ctx).run("Go. " + "v" * 300)
    assert result.output == "done"
    assert ctx.compactions >= 1  # the digest read the deep arguments while compacting
    errors = [m for m in result.messages if m.role == "tool" and m.tool_results[0].is_error]
    assert errors and "nested deeper than" in errors[0].tool_results[0].text  # the model is told, not crashed


def test_anthropic_render_sends_deep_arguments_as_raw_text() -> None:
    call = ToolCallBlock(id="c", name="bash", arguments=deep(1_000))
    msgs = [
        Message.text_message("user", "go"),
        Message(role="assistant", content=(call,)),
        Message(role="tool", content=(ToolResultBlock(call_id="c", content=(TextBlock(text="ok"),)),)),
    ]
    body = render(msgs, "anthropic")
    [use] = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert use["input"] == {"raw_arguments": call.arguments}
