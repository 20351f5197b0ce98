"""Thinking blocks: the latest assistant turn is never modified; signed thinking leaves whole or stays whole."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    Context,
    ContextConfig,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    render,
)
from contextfold.strategies import TieredCompaction
from conversation_gen import conversations

C = BytesCounter()


def thinking_turn(i: int) -> list[Message]:
    return [
        Message(
            role="assistant",
            content=(
                ThinkingBlock(thinking=f"plan {i} " + "t" * 300, signature=f"sig{i}"),
                ToolCallBlock(id=f"c{i}", name="bash", arguments='{"command": "ls"}'),
            ),
        ),
        Message(role="tool", content=(ToolResultBlock(call_id=f"c{i}", content=(TextBlock(text="r" * 900),)),)),
    ]


def thinking_blocks(messages: tuple[Message, ...] | list[Message]) -> list[ThinkingBlock]:
    return [b for m in messages for b in m.content if isinstance(b, ThinkingBlock)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(convo=conversations(max_turns=8), window=st.sampled_from([500, 1500, 4000]), tiered=st.booleans())
async def test_thinking_is_never_edited_and_latest_turn_is_kept(
    convo: list[Message], window: int, tiered: bool
) -> None:
    from contextfold import BudgetError

    ctx = Context(ContextConfig(window=window), counter=C, hints=False, strategy=TieredCompaction() if tiered else None)
    ctx.extend(convo)
    try:
        prepared = await ctx.prepare()
    except BudgetError:
        return
    originals = thinking_blocks(convo)
    for block in thinking_blocks(prepared.messages):
        assert any(block == o and block.signature == o.signature for o in originals)  # never edited
    # a kept message with thinking is byte-identical to an original
    for m in prepared.messages:
        if any(isinstance(b, ThinkingBlock) for b in m.content):
            assert m in convo
    last_assistant = next((m for m in reversed(convo) if m.role == "assistant"), None)
    if last_assistant is not None and any(isinstance(b, ThinkingBlock) for b in last_assistant.content):
        assert prepared.messages.count(last_assistant) >= 1 or prepared.compaction is not None


async def test_hint_never_lands_between_thinking_and_its_tool_use() -> None:
    ctx = Context(ContextConfig(window=5000), counter=C, system="sys")
    ctx.append(Message.text_message("user", "go"))
    for i in range(6):
        ctx.extend(thinking_turn(i))
    pending = thinking_turn(99)[0]
    ctx.append(pending)  # calls running: no hint may follow it
    prepared = await ctx.prepare()
    assert prepared.hint is None and prepared.messages[-1] == pending
    body = render(prepared.messages, "anthropic", ())
    last = body["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["thinking", "tool_use"]
    ctx.append(thinking_turn(99)[1])
    after = await ctx.prepare()
    assert after.hint is not None and after.messages[-3] == pending
    rendered = render(after.messages, "anthropic", ())["messages"]
    assert [b["type"] for b in rendered[-2]["content"]] == ["thinking", "tool_use"]
    assert rendered[-1]["content"][0]["type"] == "tool_result"  # results first, the hint after them


async def test_compacted_thinking_turns_leave_whole() -> None:
    ctx = Context(ContextConfig(window=3000), counter=C, system="sys", hints=False, strategy=TieredCompaction())
    ctx.append(Message.text_message("user", "go"))
    turns = [thinking_turn(i) for i in range(12)]
    for t in turns:
        ctx.extend(t)
    prepared = await ctx.prepare()
    assert prepared.compaction is not None
    kept = thinking_blocks(prepared.messages)
    assert kept and all(b in thinking_blocks([t[0] for t in turns]) for b in kept)
    assert "plan 0 " not in prepared.messages[1].text  # the digest drops thinking, it never quotes it
    assert prepared.messages[-2] == turns[-1][0]  # the latest assistant turn is untouched
