"""contextfold adapter for the side-by-side harness ``/work/shared/bench/agentscope_bench.py``.

Run from the repository root (the harness puts the working directory on
``sys.path``, so ``benchmarks.contextfold_adapter`` imports as a namespace
package)::

    .venv/bin/python /work/shared/bench/agentscope_bench.py --adapter benchmarks.contextfold_adapter:Adapter

Variants (one class each, because the harness instantiates ``Adapter()`` without arguments):

- ``Adapter``: digest strategy, `BytesCounter` (the reference design's bytes/4 estimate, as agentscope uses).
- ``CalibratedAdapter``: digest strategy, the default calibrated counter.
- ``StructuredAdapter``: the five-field LLM summary with a fake model returning the harness's
  ``FIXED_SUMMARY`` (what agentscope's compression does), bytes counter.
- ``NoLedgerAdapter``: like ``Adapter`` but without the facts ledger (``DigestStrategy(ledger_share=0)``): the
  compaction of the engine issue (digest + archive), which is what agentscope's compression does; the ledger
  (issue 8) reads every compacted message once, and this variant shows what that costs. Issue 4's "5× faster when
  compaction fires" is measured on this variant; ``Adapter`` (the library default) is reported next to it.
- ``DiskAdapter``: like ``Adapter`` but offloading to a `LocalWorkspace` in a temp dir (fsync per write)
  instead of the in-memory offloader that mirrors the harness's ``_MemoryOffloader``.

Everything goes through the public session API: ``Context.append`` for user and
assistant messages, ``Context.append_tool_result`` for tool results (the
truncation/offload path), ``Context.prepare()`` before each reasoning step
(compaction check, runtime hints) and ``Context.compact()`` for one compression.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import contextfold
from contextfold._config import ContextConfig
from contextfold._context import Context, Prepared
from contextfold._formats import tools_from
from contextfold._messages import DataBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec
from contextfold._runtime._hints import HintConfig
from contextfold._tokens._counting import TokenCounter
from contextfold._tokens._factory import make_counter
from contextfold._workspace._codec import messages_to_jsonl_chunks
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import Offloader, OffloadRef

__all__ = [
    "Adapter",
    "CalibratedAdapter",
    "CountingCounter",
    "DiskAdapter",
    "FakeSummaryModel",
    "MemoryOffloader",
    "NoLedgerAdapter",
    "StructuredAdapter",
    "orphan_results",
    "to_message",
]

FIXED_SUMMARY_FALLBACK: dict[str, str] = {
    "task_overview": "Refactor the billing module and keep the public API.",
    "current_state": "Edited src/billing/invoice.py; tests pass except test_rounding.",
    "important_discoveries": "Rounding must use Decimal with ROUND_HALF_UP.",
    "next_steps": "1) Fix test_rounding 2) Update CHANGELOG 3) Open PR.",
    "context_to_preserve": "User prefers small commits.",
}


def _fixed_summary() -> dict[str, str]:
    """The harness's summary when it is importable (so both sides get the same answer), else a copy of it."""
    for name in ("agentscope_bench", "__main__"):
        fixed = getattr(sys.modules.get(name), "FIXED_SUMMARY", None)
        if isinstance(fixed, dict):
            return dict(fixed)
    return dict(FIXED_SUMMARY_FALLBACK)


# --- conversion ---------------------------------------------------------------------------------------------------


def to_message(m: Mapping[str, Any]) -> Message:
    """One neutral harness message as a canonical `Message` (what an agent integration builds directly)."""
    role = m["role"]
    if role == "user":
        return Message(role="user", content=(TextBlock(text=m["content"]),))
    if role == "assistant":
        blocks: list[TextBlock | ToolCallBlock] = []
        if m["content"]:
            blocks.append(TextBlock(text=m["content"]))
        for c in m.get("tool_calls") or ():
            blocks.append(ToolCallBlock(id=c["id"], name=c["name"], arguments=c["arguments"]))
        return Message(role="assistant", content=tuple(blocks))
    if role == "tool":
        result = ToolResultBlock(call_id=m["tool_call_id"], name=m.get("name"), content=(TextBlock(text=m["content"]),))
        return Message(role="tool", content=(result,))
    if role == "system":
        return Message(role="system", content=(TextBlock(text=m["content"]),))
    raise ValueError(f"unknown role {role!r}")


def orphan_results(messages: Sequence[Message]) -> int:
    """Tool results whose call is not before them (the harness's own orphan check, on canonical messages)."""
    calls: set[str] = set()
    orphans = 0
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                calls.add(block.id)
            elif isinstance(block, ToolResultBlock) and block.call_id not in calls:
                orphans += 1
    return orphans


# --- test doubles for the benchmark -------------------------------------------------------------------------------


class CountingCounter:
    """Wraps a counter and counts the (uncached) message counts it makes and the tokens they scanned.

    Same ``key`` as the wrapped counter, so the per-message cache is shared and
    only real counting work shows up in ``calls``.
    """

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.key = inner.key
        self.calls = 0
        self.tokens = 0

    def count_text(self, text: str) -> int:
        n = self.inner.count_text(text)
        self.calls += 1
        self.tokens += n
        return n

    def count_message(self, message: Message) -> int:
        n = self.inner.count_message(message)
        self.calls += 1
        self.tokens += n
        return n


class MemoryOffloader:
    """An in-memory `Offloader`: serializes archives like `LocalWorkspace` (canonical JSONL), no file I/O.

    Mirrors the harness's ``_MemoryOffloader`` so both sides pay serialization
    but not the disk: like it, the payload is measured and dropped (``keep=True``
    keeps it in ``items``); ``DiskAdapter`` measures the real workspace.
    """

    def __init__(self, *, keep: bool = False) -> None:
        self.keep = keep
        self.items: dict[str, str | bytes] = {}
        self.stored = 0
        self.context_messages = 0
        self.context_bytes = 0
        self.results = 0

    def _ref(self, kind: str, text: str | bytes, *, size: int | None = None, **extra: Any) -> OffloadRef:
        path = f"{kind}/{self.stored:06d}"
        self.stored += 1
        if self.keep:
            self.items[path] = text
        return OffloadRef(
            path=path,
            kind=kind,  # type: ignore[arg-type]
            size=len(text) if size is None else size,
            created=datetime.now(UTC).isoformat(),
            **extra,
        )

    async def offload_data(self, block: DataBlock) -> OffloadRef:
        return self._ref("media", repr(block), media=block.media, media_type=block.media_type)

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        chunks = messages_to_jsonl_chunks(messages)  # what `LocalWorkspace` writes (with ``writev``)
        size = sum(len(chunk) for chunk in chunks)
        self.context_messages += len(messages)
        self.context_bytes += size
        payload = b"".join(chunks) if self.keep else b""
        return self._ref("context", payload, size=size, message_range=message_range, media_type="application/jsonl")

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        self.results += 1
        return self._ref("tool_result", text, call_id=call_id, tool_name=tool_name)


class FakeSummaryModel:
    """The harness's fake summariser: returns ``FIXED_SUMMARY``; optional latency; optional overflow error."""

    def __init__(self, counter: TokenCounter, *, context_size: int, latency: float, fail_on_overflow: bool) -> None:
        self.counter = counter
        self.context_size = context_size
        self.latency = latency
        self.fail_on_overflow = fail_on_overflow
        self.seconds = 0.0
        self.calls = 0
        self.summary = _fixed_summary()

    async def __call__(self, messages: Sequence[Message], schema: Mapping[str, Any]) -> dict[str, str]:
        t0 = time.perf_counter()
        self.calls += 1
        try:
            if self.fail_on_overflow:
                est = sum(self.counter.count_message(m) for m in messages)
                if est > self.context_size:
                    raise RuntimeError("context_length_exceeded")
            if self.latency:
                await asyncio.sleep(self.latency)
            return dict(self.summary)
        finally:
            self.seconds += time.perf_counter() - t0


# --- the adapter --------------------------------------------------------------------------------------------------


class Adapter:
    """contextfold's `Context` driven through the harness protocol (digest strategy, bytes/4 counter)."""

    name = "contextfold"
    version = contextfold.__version__
    counter_spec = "bytes"
    structured = False
    disk = False
    ledger = True

    async def setup(self, cfg: dict[str, Any]) -> None:
        self.cfg = cfg
        self.config = ContextConfig(
            window=int(cfg["context_size"]),
            trigger_ratio=cfg["trigger_ratio"],
            reserve_ratio=cfg["reserve_ratio"],
            tool_result_limit=cfg["tool_result_limit"],
        )
        self.counter = CountingCounter(make_counter(self.counter_spec))
        self.tools: tuple[ToolSpec, ...] = tuple(tools_from(cfg["tool_schemas"], "openai"))
        self.workspace: Offloader | None = None
        if cfg["offload"]:
            if self.disk:
                # The harness never closes adapters: remove the directory when this one is collected.
                root = tempfile.mkdtemp(prefix="cf-bench-")
                weakref.finalize(self, shutil.rmtree, root, ignore_errors=True)
                self.workspace = LocalWorkspace(root, "bench")
            else:
                self.workspace = MemoryOffloader()
        self.model: FakeSummaryModel | None = None
        self.strategy: Any = None
        if self.structured:
            from contextfold.compaction._structured_strategy import StructuredStrategy
            from contextfold.compaction._summary import StructuredSummarizer

            self.model = FakeSummaryModel(
                self.counter.inner,
                context_size=int(cfg["context_size"]),
                latency=cfg.get("fake_latency", 0.0),
                fail_on_overflow=cfg.get("fail_on_overflow", False),
            )
            summarizer = StructuredSummarizer(
                self.model,
                counter=self.counter.inner,
                window=int(cfg["context_size"]),
                trigger_ratio=cfg["trigger_ratio"],
            )
            self.strategy = StructuredStrategy(summarizer)
        elif not self.ledger:
            from contextfold.compaction._digest_strategy import DigestStrategy

            self.strategy = DigestStrategy(ledger_share=0)
        self.compressions = 0
        self.unseen: list[str] = []  # results appended since the last reasoning step (the model has not seen them)
        self.unseen_compressed = 0
        self.results_truncated = 0
        self.orphans_after_compress = 0
        self.hints = 0
        self.ctx = self._new_context()

    def _new_context(self) -> Context:
        return Context(
            self.config,
            counter=self.counter,
            system=self.cfg["system_prompt"],
            tools=self.tools,
            strategy=self.strategy,
            workspace=self.workspace,
            hints=HintConfig() if self.cfg["inject"] else False,
        )

    async def load(self, messages: list[dict[str, Any]]) -> None:
        """Replace the whole context (no truncation or offload of results)."""
        self.ctx = self._new_context()
        self.ctx.extend(to_message(m) for m in messages)

    async def count_tokens(self) -> int:
        """The full model-input estimate: incremental, so O(1) once the messages are counted."""
        return self.ctx.tokens

    def _result(self, fired: bool, calls0: int, tokens0: int) -> dict[str, Any]:
        orphans = 0
        if fired:
            self.compressions += 1
            orphans = orphan_results(self.ctx.messages)
            self.orphans_after_compress += orphans
            if self.unseen:
                alive = {b.call_id for m in self.ctx.messages for b in m.content if isinstance(b, ToolResultBlock)}
                self.unseen_compressed += sum(1 for i in self.unseen if i not in alive)
        seconds = 0.0
        if self.model is not None:
            seconds, self.model.seconds = self.model.seconds, 0.0
        return {
            "fired": fired,
            "model_seconds": seconds,
            "count_calls": self.counter.calls - calls0,
            "tokens_scanned": self.counter.tokens - tokens0,
            "orphan_results": orphans,
        }

    async def compress(self) -> dict[str, Any]:
        """One compression attempt: compacts when over the trigger, like agentscope's ``compress_context``."""
        calls0, tokens0 = self.counter.calls, self.counter.tokens
        fired = False
        if self.ctx.tokens > self.config.trigger_tokens:
            fired = await self.ctx.compact(reason="trigger") is not None
        return self._result(fired, calls0, tokens0)

    async def append(self, message: dict[str, Any]) -> None:
        m = to_message(message)
        if m.role == "tool":
            refs = await self.ctx.append_tool_result(m)
            self.results_truncated += bool(refs)
            self.unseen.append(message["tool_call_id"])
        else:
            self.ctx.append(m)
            if m.role == "assistant":
                self.unseen = []

    async def before_reasoning(self, turn_start: bool) -> dict[str, Any]:
        """The per-step hook: ``prepare()`` (compaction check, then runtime hints)."""
        calls0, tokens0 = self.counter.calls, self.counter.tokens
        prepared: Prepared = await self.ctx.prepare(first_call_of_reply=turn_start)
        self.hints += prepared.hint is not None
        return self._result(prepared.compaction is not None, calls0, tokens0)

    def context_messages(self) -> int:
        return len(self.ctx.messages)

    def stats(self) -> dict[str, Any]:
        return {
            "compressions": self.compressions,
            "unseen_tool_results_compressed": self.unseen_compressed,
            "tool_results_truncated": self.results_truncated,
            "context_msgs_end": len(self.ctx.messages),
            "count_calls": self.counter.calls,
            "tokens_scanned": self.counter.tokens,
            "orphan_results_after_compress": self.orphans_after_compress,
            "hints": self.hints,
            "archived_messages": getattr(self.workspace, "context_messages", None),
        }


class CalibratedAdapter(Adapter):
    """Digest strategy with the default, content-aware calibrated counter."""

    name = "contextfold-calibrated"
    counter_spec = "calibrated"


class StructuredAdapter(Adapter):
    """Structured (five-field) summary from a fake model, like agentscope's compression; bytes counter."""

    name = "contextfold-structured"
    structured = True


class NoLedgerAdapter(Adapter):
    """Digest strategy without the facts ledger, bytes counter: the cost of the ledger, by difference."""

    name = "contextfold-noledger"
    ledger = False


class DiskAdapter(Adapter):
    """Digest strategy, bytes counter, offloading to a real `LocalWorkspace` (fsynced files) in a temp dir."""

    name = "contextfold-disk"
    disk = True
