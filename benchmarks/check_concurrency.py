"""Count messages lost, orphaned or archived twice when tasks share a `Context` (issue 14 item 1's trials).

Three trials, each against a real `LocalWorkspace` in a temporary directory:

* ``double-cancel``: ``prepare()`` compacts, is cancelled twice while it archives, and the agent appends a tool
  call, its result and a follow-up at once; lost = appended messages in neither the context nor an archive;
* ``follow-ups``: one task appends 600 follow-ups (yielding between them) while another calls ``prepare()``;
* ``two-prepares``: ``gather(prepare(), prepare())`` on a context over the trigger; twice = messages archived twice.

It imports whatever ``contextfold`` is first on the path, so the same script measures another revision:

    .venv/bin/python benchmarks/check_concurrency.py
    mkdir /tmp/main && git archive main src | tar -x -C /tmp/main
    PYTHONPATH=/tmp/main/src .venv/bin/python benchmarks/check_concurrency.py
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile

from contextfold import BytesCounter, Context, LocalWorkspace, Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold._config import ContextConfig
from contextfold.compaction._groups import orphan_results


def _context(root: str) -> tuple[Context, LocalWorkspace]:
    workspace = LocalWorkspace(root, "s")
    ctx = Context(ContextConfig(window=2000), counter=BytesCounter(), workspace=workspace, hints=False)
    for i in range(40):
        ctx.append(Message.text_message("user" if i % 2 == 0 else "assistant", f"msg {i} " + "x" * 400))
    return ctx, workspace


def _everything(ctx: Context, workspace: LocalWorkspace) -> list[str]:
    archived = [m.text for ref in workspace.items() if ref.kind == "context" for m in workspace.read_messages(ref)]
    results = [r.text for m in ctx.messages for r in m.tool_results]
    return archived + [m.text for m in ctx.messages] + results


async def double_cancel(trials: int) -> tuple[int, int, int]:
    lost = orphaned = 0
    for trial in range(trials):
        with tempfile.TemporaryDirectory() as root:
            ctx, workspace = _context(root)
            task = asyncio.ensure_future(ctx.prepare())
            for _ in range(1 + trial % 3):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            tag = f"t{trial}"
            call = ToolCallBlock(id=f"c_{tag}", name="read", arguments="{}")
            ctx.append(Message(role="assistant", content=(TextBlock(text=f"{tag} call"), call)))
            result = ToolResultBlock(call_id=call.id, content=(TextBlock(text=f"{tag} result"),))
            ctx.append(Message(role="tool", content=(result,)))
            ctx.append(Message.text_message("user", f"{tag} follow-up"))
            await asyncio.sleep(0.3)  # the archive write (a thread) finishes
            with contextlib.suppress(Exception):
                await ctx.prepare()
            texts = _everything(ctx, workspace)
            lost += sum(1 for want in (f"{tag} call", f"{tag} result", f"{tag} follow-up") if want not in texts)
            orphaned += bool(orphan_results(list(ctx.messages)))
    return trials, lost, orphaned


async def follow_ups(count: int) -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as root:
        ctx, workspace = _context(root)
        done = False

        async def ui() -> None:
            nonlocal done
            for i in range(count):
                ctx.append(Message.text_message("user", f"follow-up {i} " + "y" * 200))
                await asyncio.sleep(0)
            done = True

        async def agent() -> None:
            while not done:
                await ctx.prepare()
                await asyncio.sleep(0)

        await asyncio.gather(ui(), agent())
        await ctx.prepare()
        texts = _everything(ctx, workspace)
        return count, sum(1 for i in range(count) if not any(t.startswith(f"follow-up {i} ") for t in texts))


async def two_prepares(trials: int) -> tuple[int, int]:
    twice = 0
    for _ in range(trials):
        with tempfile.TemporaryDirectory() as root:
            ctx, workspace = _context(root)
            await asyncio.gather(ctx.prepare(), ctx.prepare())
            archived = [
                m.text for ref in workspace.items() if ref.kind == "context" for m in workspace.read_messages(ref)
            ]
            twice += len(archived) != len(set(archived))
    return trials, twice


async def main() -> None:
    import contextfold

    print(f"contextfold from {contextfold.__file__}")
    trials, lost, orphaned = await double_cancel(100)
    print(f"double-cancel: {lost} of {3 * trials} messages appended after the cancels lost, "
          f"{orphaned} of {trials} trials left an orphaned tool result")  # fmt: skip
    count, missing = await follow_ups(600)
    print(f"follow-ups: {missing} of {count} lost")
    trials, twice = await two_prepares(50)
    print(f"two-prepares: {twice} of {trials} trials archived a message twice")


if __name__ == "__main__":
    asyncio.run(main())
