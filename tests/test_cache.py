"""Prompt-cache preservation: between compactions the rendered request is append-only, byte for byte."""

import json

from contextfold import (
    BytesCounter,
    Context,
    ContextConfig,
    ContextEvent,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    render,
)

C = BytesCounter()
TOOLS = (ToolSpec(name="bash", description="run"),)


def step(i: int) -> list[Message]:
    return [
        Message.text_message("user", f"task {i}"),
        Message(
            role="assistant", content=(ToolCallBlock(id=f"c{i}", name="bash", arguments=f'{{"command": "ls {i}"}}'),)
        ),
        Message(role="tool", content=(ToolResultBlock(call_id=f"c{i}", content=(TextBlock(text="out " * 50),)),)),
        Message.text_message("assistant", f"done {i}"),
    ]


def dumps(items: list[object]) -> list[bytes]:
    return [json.dumps(x, sort_keys=True, ensure_ascii=False).encode() for x in items]


async def test_rendered_prefix_is_byte_identical_between_compactions() -> None:
    events: list[ContextEvent] = []
    ctx = Context(ContextConfig(window=2500), counter=C, system="sys", tools=TOOLS, on_event=events.append)
    previous: dict[str, list[bytes]] = {}
    previous_tools: dict[str, object] = {}
    compactions = 0
    for i in range(80):
        ctx.extend(step(i))
        prepared = await ctx.prepare()
        for provider in ("openai", "anthropic"):
            body = render(prepared.messages, provider, prepared.tools)  # type: ignore[arg-type]
            now = dumps(body["messages"])
            if provider in previous and prepared.compaction is None:
                old = previous[provider]
                # every message sent last time is sent again unchanged, except a trailing user turn the
                # Anthropic renderer merges with what follows
                shared = len(old) - (1 if provider == "anthropic" else 0)
                assert now[:shared] == old[:shared]
                assert json.dumps(body.get("tools")) == json.dumps(previous_tools[provider])
            previous[provider] = now
            previous_tools[provider] = body.get("tools")
        if prepared.compaction is None and i:
            assert prepared.cache.share == 1.0 and prepared.cache.unchanged_messages > 0
        compactions += prepared.compaction is not None
    assert compactions >= 2
    assert not [e for e in events if e.kind == "cache_warning"]


async def test_non_compaction_change_to_the_prefix_warns() -> None:
    events: list[ContextEvent] = []
    ctx = Context(
        ContextConfig(window=100_000), counter=C, system="sys", tools=TOOLS, on_event=events.append, hints=False
    )
    ctx.extend(step(0))
    await ctx.prepare()
    ctx.set_tools((ToolSpec(name="bash", description="run a shell command"),))  # tools are part of the prefix
    ctx.extend(step(1))
    prepared = await ctx.prepare()
    assert prepared.compaction is None and prepared.cache.share < 1.0
    assert [e.kind for e in events] == ["cache_warning"]


async def test_compaction_does_not_warn_and_reports_the_kept_prefix() -> None:
    events: list[ContextEvent] = []
    ctx = Context(ContextConfig(window=3000), counter=C, system="sys", on_event=events.append, hints=False)
    for i in range(3):
        ctx.extend(step(i))
    await ctx.prepare()
    for i in range(3, 60):
        ctx.extend(step(i))
    prepared = await ctx.prepare()
    assert prepared.compaction is not None and prepared.cache.compacted
    assert prepared.cache.unchanged_messages == 1  # only the system prompt survives a digest
    assert "cache_warning" not in [e.kind for e in events]
