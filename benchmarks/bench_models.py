"""Per-call overhead of the model adapters over the bare SDK, against the local fake provider.

Each call sends the same context; "adapter" is `complete()` (render canonical
messages, call the SDK, parse the reply), "bare SDK" is the SDK call with the
request dicts rendered once beforehand. The difference is what contextfold adds.

Usage: .venv/bin/python benchmarks/bench_models.py [--messages N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from contextfold._messages import Message, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec
from contextfold.models import AnthropicChatModel, OpenAIChatModel
from provider_server import ProviderServer, Reply, ToolCall

TOOLS = [ToolSpec(name="read_file", parameters={"type": "object", "properties": {"path": {"type": "string"}}})]


def context(n: int) -> list[Message]:
    out = [Message.text_message("system", "You are an agent."), Message.text_message("user", "start")]
    for i in range(n // 2):
        call = ToolCallBlock(id=f"c{i}", name="read_file", arguments='{"path": "/tmp/x"}')
        out.append(Message(role="assistant", content=(call,)))
        result = ToolResultBlock(call_id=f"c{i}", name="read_file", content=(TextBlock(text="x" * 400),))
        out.append(Message(role="tool", content=(result,)))
    return out


async def timed(fn: Callable[[], Awaitable[object]], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.99) - 1)]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    messages = context(args.messages)
    reply = Reply(text="ok", tool_calls=[ToolCall("read_file", {"path": "/tmp/y"})])
    rows: list[tuple[str, float, float]] = []
    with ProviderServer() as server:
        server.respond_with(lambda body: reply)
        oa = OpenAIChatModel("m", base_url=server.openai_base_url, api_key="k", max_retries=0)
        an = AnthropicChatModel("m", base_url=server.anthropic_base_url, api_key="k", max_retries=0)
        oa_request = oa.build_request(messages, TOOLS)
        an_request = an.build_request(messages, TOOLS)
        oa_sdk: Any = oa.client.chat.completions
        an_sdk: Any = an.client.messages
        cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("openai: bare SDK", lambda: oa_sdk.create(**oa_request)),
            ("openai: adapter complete()", lambda: oa.complete(messages, tools=TOOLS)),
            ("openai: adapter, streaming", lambda: oa.complete(messages, tools=TOOLS, stream=lambda _: None)),
            ("anthropic: bare SDK", lambda: an_sdk.create(**an_request)),
            ("anthropic: adapter complete()", lambda: an.complete(messages, tools=TOOLS)),
            ("anthropic: adapter, streaming", lambda: an.complete(messages, tools=TOOLS, stream=lambda _: None)),
        ]
        for name, fn in cases:
            await timed(fn, 5)  # warm up connections and caches
            median, p99 = await timed(fn, args.repeat)
            rows.append((name, median, p99))

        async def render_openai() -> object:
            return oa.build_request(messages, TOOLS)

        async def render_anthropic() -> object:
            return an.build_request(messages, TOOLS)

        rows.append(("openai: build_request only", *await timed(render_openai, args.repeat)))
        rows.append(("anthropic: build_request only", *await timed(render_anthropic, args.repeat)))
        await oa.aclose()
        await an.aclose()
    print(f"| case ({args.messages} messages) | median ms | p99 ms |")
    print("|---|---:|---:|")
    for name, median, p99 in rows:
        print(f"| {name} | {median:.2f} | {p99:.2f} |")


if __name__ == "__main__":
    asyncio.run(main())
