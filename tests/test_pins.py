"""Pins, open tasks and project instructions are re-attached after the summary, never before it."""

import pytest

from contextfold import (
    BytesCounter,
    Context,
    ContextConfig,
    InputError,
    Message,
    SystemPromptBuilder,
    Task,
    ToolCallBlock,
)
from contextfold.compaction._groups import orphan_results

C = BytesCounter()


def fill(ctx: Context, n: int = 30) -> None:
    for i in range(n):
        ctx.append(Message.text_message("user", f"request {i} " + "r" * 200))
        ctx.append(Message.text_message("assistant", f"answer {i} " + "a" * 300))


async def test_pins_tasks_and_instructions_follow_the_summary() -> None:
    builder = SystemPromptBuilder("base", instructions="Run ruff before committing.")
    ctx = Context(ContextConfig(window=4000), counter=C, system=builder.build(), instructions=builder, hints=False)
    ctx.append(Message.text_message("user", "begin"))
    fact = ctx.pin("Never push to main.")
    early = Message.text_message("user", "The API key lives in vault path secret/app.")
    ctx.append(early)
    ctx.pin(early)
    ctx.append(Message.text_message("assistant", "noted"))
    fill(ctx)
    prepared = await ctx.prepare(
        open_tasks=[Task(subject="write the migration", id="t7"), Task(subject="x", status="completed")]
    )
    assert prepared.compaction is not None
    msgs = prepared.messages
    assert msgs[1].text.startswith("Summary of earlier conversation")
    attached = msgs[2].text
    assert attached.startswith("Re-attached after the summary")
    assert "Run ruff before committing." in attached and "Never push to main." in attached
    assert "secret/app" in attached and "write the migration (id t7)" in attached and "] x" not in attached
    assert ctx.pinned == (fact, early)
    assert prepared.tokens <= ctx.config.trigger_tokens
    assert not orphan_results(list(msgs))
    # unpinned facts are not re-attached at the next compaction
    assert ctx.unpin("Never push to main.") and not ctx.unpin("Never push to main.")
    fill(ctx)
    again = await ctx.prepare()
    assert again.compaction is not None and "Never push to main." not in again.messages[2].text


async def test_pin_a_fact_refused_while_calls_are_pending() -> None:
    ctx = Context(window=10_000, counter=C, hints=False)
    ctx.append(Message(role="assistant", content=(ToolCallBlock(id="c", name="bash", arguments="{}"),)))
    with pytest.raises(InputError):
        ctx.pin("rule")
    with pytest.raises(InputError):
        ctx.pin("   ")


async def test_no_reattachment_without_pins() -> None:
    ctx = Context(ContextConfig(window=4000), counter=C, system="sys", hints=False)
    fill(ctx)
    prepared = await ctx.prepare()
    assert prepared.compaction is not None and not prepared.messages[2].text.startswith("Re-attached")
