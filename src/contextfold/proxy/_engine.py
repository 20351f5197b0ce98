"""The request rewrite: identify the lineage, splice the stored replacement, offload, compact at the trigger.

Per request (a parsed body of one `WireFormat`):

1. the message list is split into head (never compacted) and body; every
   body message is hashed (`message_hash`), and prefix hashes are chained,
   so "the stored prefix is a prefix of this history" is one comparison;
   the messages the lineage's previous request sent byte for byte reuse
   its hashes, chains and counts (one ``memcmp`` each), so a request costs
   O(new messages) in hashing and counting;
2. the lineage record (tenant, session, lineage) is read; when its covered
   prefix matches, the covered messages are replaced by the stored bytes,
   and stored rewrites (oversized tool results cut and offloaded) replace
   their messages; everything else is the client's own JSON;
3. a new oversized tool result is cut by the library's splitter, the rest
   offloaded to the tenant's workspace, and the rewrite stored (in the
   background, by compare-and-set: the lineage's next request waits for
   it; the rewrite is content-addressed, so a lost write costs only the
   work of making the same bytes again);
4. once the forwarded request passes the policy's pre-trigger, the next
   replacement is computed in the background (one task per lineage, in a
   worker thread: the library's digest strategy, cutting only between the
   client's wire messages, never splitting one; the originals archived) and
   stored by compare-and-set under the lineage's ``+next`` key, so replicas
   and a restarted proxy find the same bytes;
5. the first request past the trigger promotes that replacement (compare-and-set
   on the lineage: a concurrent promotion or compaction loses and adopts the
   winner's record). A request blocks on a compaction only when it would not
   fit otherwise (above the midpoint between trigger and window): it waits for
   the running task, or compacts on the spot.

Nothing here touches the network; every failure raises, and the app forwards
the original bytes (fail open). A request costs one serialization of its
messages and one byte comparison each against the lineage's previous
request; hashing and counting cost O(new messages).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import functools
import hashlib
import math
import os
import re
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson

from contextfold._config import ContextConfig
from contextfold._errors import ContextOverflowError
from contextfold._markers import render_hint
from contextfold._messages import Message, TextBlock, ToolResultBlock
from contextfold._stores import LineageRecord, SessionStore
from contextfold._tokens._counting import TokenCounter, count_messages
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._object import ObjectRoot, ObjectWorkspace
from contextfold._workspace._split import offload_oversized_result, split_tool_result
from contextfold.compaction._boundaries import DEFAULT_RULES
from contextfold.compaction._digest_strategy import DigestStrategy
from contextfold.compaction._ledger import output_fact_lines
from contextfold.compaction._plan import CompactionPlan
from contextfold.proxy._config import MIN_OFFLOAD_TOKENS, PRECOMPUTE_MODES, CompactionPolicy, ProxyConfig
from contextfold.proxy._wire import (
    EPHEMERAL,
    WireFormat,
    chain_hash,
    count_breakpoints,
    message_hash,
    strip_breakpoints,
    transfer_breakpoints,
)

__all__ = [
    "MIN_OFFLOAD_TOKENS",
    "PRECOMPUTE_MODES",
    "CompactionPolicy",
    "Engine",
    "Outcome",
    "lineage_of",
    "model_family",
    "session_of",
]

SESSION_HEADERS = ("x-contextfold-session", "x-claude-code-session-id", "session-id", "session_id")
"""Headers naming the client's session, in order of preference (then ``prompt_cache_key``, then the first message)."""
SUBAGENT_HEADER = "x-openai-subagent"
MAX_BREAKPOINTS = 4
_DATE_SUFFIX = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@.*)$")
_CACHE_LIMIT = 200_000
_LINEAGE_LIMIT = 10_000
_STORE_DELAY = 1.0
"""Seconds a background store write waits for its release (`Outcome.after`) before it starts anyway."""
_SEEN_BYTES = 256 * 1024 * 1024
_REWRITE_LIMIT = 4096
"""Stored rewrites kept parsed with their bytes (`Engine._parsed_rewrite`); all forgotten at once past this many."""
"""Message bytes of the lineages' last requests kept for the prefix comparison (the longest idle forgotten first)."""
_FALLBACK_TARGETS = (0.45, 0.6, 0.83)
"""Depths tried in turn when the policy's own cannot hold the newest turn (0.83: about the library's own budget)."""
_WARM_STEP = 0.2
"""The early warm-up starts this much of the trigger before ``CompactionPolicy.precompute_ratio``."""
_NOTICE_MARGIN = 1000
"""Tokens a result must exceed ``CompactionPolicy.offload_tokens`` by to be cut (notice, path and tail cost ~300)."""
_TAIL_CHARS = 600
"""The notice of a cut ends with about this many characters of the output's end (its last lines)."""
_FACT_LINE_CHARS = 240
"""A fact line longer than this is shown as this much around its fact."""
_FACT_SCAN_CHARS = 100_000
"""Fact lines are looked for in this much of the omitted part after the head (a bound on a huge output's cost)."""
NEXT_SUFFIX = "+next"
"""Store key suffix of a lineage's precomputed next replacement (``lineage + NEXT_SUFFIX``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What to forward for one request, and what happened (for headers, stats, metrics and the log)."""

    body: bytes | None
    """The rewritten body, or None: forward the client's original bytes."""
    session: str
    tokens_before: int = 0
    tokens_after: int = 0
    compacted: bool = False
    offloads: int = 0
    cache_reuse: int = 0
    action: str = "pass"
    """``pass`` (nothing to do), ``spliced`` (stored replacement used), ``compacted``, or why it passed through."""
    seconds: float = 0.0
    """Time the proxy spent on this request's rewrite (parse excluded), for per-request cost measurements."""
    after: Callable[[], None] | None = None
    """Call once the response is sent: starts this request's background store write (it starts by itself anyway,
    at the lineage's next request or after a second)."""


def model_family(model: Any) -> str:
    """A model name without its date or ``-latest`` suffix: ``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``."""
    name = model.lower() if isinstance(model, str) else ""
    return _DATE_SUFFIX.sub("", name)


def session_of(headers: Mapping[str, str], body: Mapping[str, Any], first: Any) -> str:
    """The session id: an explicit header, the client's own id, ``prompt_cache_key``, else the first message's hash."""
    for name in SESSION_HEADERS:
        value = headers.get(name)
        if value:
            return value.strip()[:200]
    key = body.get("prompt_cache_key")
    if isinstance(key, str) and key:
        return key[:200]
    return "h-" + (message_hash(first)[:20] if first is not None else "empty")


def lineage_of(fmt: WireFormat, body: Mapping[str, Any], head: Sequence[Any], headers: Mapping[str, str]) -> str:
    """Hash of system prompt, tools and model family (plus a sub-agent marker): one lineage per agent."""
    identity = [
        fmt.name,
        model_family(body.get("model")),
        strip_breakpoints(fmt.system_identity(body, head)),
        strip_breakpoints(body.get("tools")),
        headers.get(SUBAGENT_HEADER, ""),
    ]
    return hashlib.blake2b(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS), digest_size=16).hexdigest()


class _AlignRule:
    """Cut only between the client's wire messages, never inside one, never after a message glued to the next."""

    name = "wire_alignment"

    def __init__(self, lo: int, safe: list[bool]) -> None:
        self._lo = lo
        self._safe = safe

    def safe_cuts(self, messages: Sequence[Message]) -> list[bool]:
        return [False] * self._lo + self._safe

    def may_split(self, message: Message) -> bool:
        return False


class Engine:
    """The proxy's rewrite logic over one store and one state directory (see the module docstring)."""

    def __init__(
        self,
        config: ProxyConfig,
        store: SessionStore,
        counter: TokenCounter,
        policy: CompactionPolicy | None = None,
        *,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.log = log if log is not None else (lambda line: print(line, file=sys.stderr, flush=True))
        self.store = store
        self.counter = counter
        self.workspace_root = Path(config.state_dir) / "workspace"
        self._objects = ObjectRoot(config.workspace_url) if config.workspace_url else None
        self._counts: dict[str, int] = {}
        self._contexts: dict[int, ContextConfig] = {}
        self._canon: dict[str, list[Message]] = {}
        self._hashes: dict[bytes, str] = {}
        self._result_keys: dict[str, tuple[tuple[str, str, int], ...]] = {}
        self._parsed_rewrites: dict[bytes, Any] = {}
        self._rewrite_raws: dict[int, bytes] = {}
        self._seen: OrderedDict[tuple[str, str, str], _Seen] = OrderedDict()
        self._seen_bytes = 0
        self._locks: dict[tuple[str, str, str], asyncio.Lock] = {}
        self._last_sent: dict[tuple[str, str, str], int] = {}
        self.policy = policy if policy is not None else config.compaction
        self._next: dict[tuple[str, str, str], _Next] = {}
        self._workspaces: dict[str, LocalWorkspace | ObjectWorkspace] = {}
        self._real_dirs: dict[str, str] = {}
        self._puts: dict[tuple[str, str, str], tuple[asyncio.Event, asyncio.Task[LineageRecord | None]]] = {}
        self._pool: ThreadPoolExecutor | None = None

    # -- background work -------------------------------------------------------------------------

    def _executor(self) -> ThreadPoolExecutor:
        """One worker thread for compactions: they leave the event loop, and never run two at once."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="contextfold-compact")
        return self._pool

    async def settle(self) -> None:
        """Wait for every background compaction and store write (benchmarks and tests: the model's thinking time)."""
        tasks: list[asyncio.Future[Any]] = [n.task for n in self._next.values() if not n.task.done()]
        for released, task in list(self._puts.values()):
            released.set()
            tasks.append(task)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def aclose(self) -> None:
        """Finish the background store writes, cancel and await the compactions, stop the worker (app shutdown)."""
        if self._puts:
            for released, _ in self._puts.values():
                released.set()
            await asyncio.gather(*(task for _, task in self._puts.values()), return_exceptions=True)
        tasks = [n.task for n in self._next.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._next.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _done(self, key: tuple[str, str, str], task: asyncio.Task[LineageRecord | None]) -> None:
        """A background compaction ended: log its error (never lost silently)."""
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.log(
                f"contextfold proxy: background compaction failed (session {key[1][:24]}): "
                f"{type(exc).__name__}: {str(exc)[:160]}"
            )

    def workspace(self, tenant: str) -> LocalWorkspace | ObjectWorkspace:
        """The tenant's workspace: every session of one credential shares it, no other credential sees it.

        Local under the state directory by default; in the object store of ``workspace_url`` when set (replicas
        that share it offload the same content to the same object and name it the same way).
        """
        cached = self._workspaces.get(tenant)
        if cached is not None:
            return cached
        if len(self._workspaces) > _LINEAGE_LIMIT:
            self._workspaces.clear()
            self._real_dirs.clear()
        made: LocalWorkspace | ObjectWorkspace
        if self._objects is not None:
            made = self._objects.workspace(tenant)
        else:
            # No fsync per item (a disk flush on the request path): the same promise as the SQLite store's WAL.
            made = LocalWorkspace(self.workspace_root, tenant, durable=False)
        self._workspaces[tenant] = made
        return made

    def _location(self, tenant: str, workspace: LocalWorkspace | ObjectWorkspace, rel: str) -> str:
        """Where an item just written is for a reader without the MCP server: a local path, or the object's URL.

        Locally, the real path of the tenant's directory (resolved once) joined with the item's own name.
        """
        if isinstance(workspace, ObjectWorkspace):
            return workspace.location(rel)
        base = self._real_dirs.get(tenant)
        if base is None:
            base = self._real_dirs[tenant] = os.path.realpath(workspace.session_dir)
        return os.path.join(base, *rel.split("/"))

    def _store_later(self, key: tuple[str, str, str], record: LineageRecord, expected: int) -> Callable[[], None]:
        """Store ``record`` by compare-and-set in the background, once released; returns the release.

        The write starts when the release is called (the app calls it after the response's last byte, so the write
        never competes with the request it belongs to), when the lineage's next request in this process arrives
        (it waits for the write: read your own writes), at `settle`, or after ``_STORE_DELAY`` seconds, whichever
        comes first. A replica that reads the store before the write lands makes the same rewrite (its bytes are a
        function of the message); a compaction that loses its compare-and-set to such a rewrite-only write retries
        on top of it (`_rewrites_only`). An error is logged, and the next request makes the same rewrite again.
        """
        released = asyncio.Event()
        task = asyncio.ensure_future(self._put_when(released, record, expected))
        task.add_done_callback(functools.partial(self._stored, key))
        self._puts[key] = (released, task)
        return released.set

    async def _put_when(self, released: asyncio.Event, record: LineageRecord, expected: int) -> LineageRecord | None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(released.wait(), _STORE_DELAY)
        return await self.store.put_lineage(record, expected_version=expected)

    def _stored(self, key: tuple[str, str, str], task: asyncio.Task[LineageRecord | None]) -> None:
        entry = self._puts.get(key)
        if entry is not None and entry[1] is task:
            del self._puts[key]
        if not task.cancelled() and (exc := task.exception()) is not None:
            self.log(
                f"contextfold proxy: rewrite not stored (session {key[1][:24]}): {type(exc).__name__}: {str(exc)[:160]}"
            )

    async def _settled(self, key: tuple[str, str, str]) -> None:
        """Wait for the lineage's background store write, if one is still running (read your own writes)."""
        entry = self._puts.get(key)
        if entry is not None:
            entry[0].set()
            await asyncio.wait([entry[1]])  # its error was logged; a cancelled request must not cancel the write

    # -- counting --------------------------------------------------------------------------------

    def _canonical(self, fmt: WireFormat, index: int, message: Any, key: str | None = None) -> list[Message]:
        """``fmt.canonical`` of a wire message, cached by its canonical hash.

        The same `Message` objects come back for the same message on every request, so what the library caches by
        identity (the facts ledger's per-message scan, above all) is computed once per message, not once per
        compaction.
        """
        name = f"{fmt.name}:{key if key is not None else message_hash(message)}"
        cached = self._canon.get(name)
        if cached is None:
            cached = fmt.canonical(index, message)
            if len(self._canon) > _CACHE_LIMIT:
                self._canon.clear()
            self._canon[name] = cached
        return cached

    def _hash(self, message: Any, raw: bytes) -> str:
        """``message_hash`` of a wire message, cached by a digest of its serialized bytes.

        The canonical walk (breakpoints dropped, lone texts unified) runs once per distinct message; a message the
        client sends again costs one SHA-256 of its bytes and a lookup.
        """
        key = hashlib.sha256(raw).digest()
        cached = self._hashes.get(key)
        if cached is None:
            cached = message_hash(message)
            if len(self._hashes) > _CACHE_LIMIT:
                self._hashes.clear()
            self._hashes[key] = cached
        return cached

    def _prefix_of(self, fmt: WireFormat, key: tuple[str, str, str], client: list[Any], raws: list[bytes]) -> _Seen:
        """Hashes, prefix chains and cumulative counts of this request's messages; remembered for the next request.

        The messages the lineage's previous request (in this process) sent byte for byte are not hashed or counted
        again: one comparison of their serialized bytes each, so a request costs O(new messages) in hashing. The
        result is the same as hashing every message (the memo only skips work whose answer is known).
        """
        seen = self._seen.pop(key, None)
        same = 0
        if seen is not None and seen.fmt == fmt.name:
            old = seen.raws
            top = min(len(old), len(raws))
            while same < top and raws[same] == old[same]:
                same += 1
        hashes = seen.hashes[:same] if seen is not None else []
        chains = seen.chains[: same + 1] if seen is not None else [""]
        counts = seen.counts[: same + 1] if seen is not None else [0]
        for i in range(same, len(client)):
            h = self._hash(client[i], raws[i])
            hashes.append(h)
            chains.append(chain_hash(chains[-1], h))
            counts.append(counts[-1] + self._count(fmt, h, client[i]))
        out = _Seen(fmt=fmt.name, raws=raws, hashes=hashes, chains=chains, counts=counts)
        self._seen[key] = out
        self._seen_bytes += sum(map(len, raws)) - (sum(map(len, seen.raws)) if seen is not None else 0)
        while self._seen_bytes > _SEEN_BYTES and self._seen:  # forget the lineages idle longest
            _, dropped = self._seen.popitem(last=False)
            self._seen_bytes -= sum(map(len, dropped.raws))
        return out

    def _count(self, fmt: WireFormat, key: str, message: Any) -> int:
        cached = self._counts.get(key)
        if cached is None:
            msgs = self._canonical(fmt, 0, message, None if ":" in key else key)
            cached = count_messages(self.counter, msgs) + sum(_opaque_tokens(m) for m in msgs)
            if len(self._counts) > _CACHE_LIMIT:
                self._counts.clear()
            self._counts[key] = cached
        return cached

    def _fixed_tokens(self, fmt: WireFormat, body: Mapping[str, Any], head: Sequence[Any], lineage: str) -> int:
        key = "sys:" + lineage
        cached = self._counts.get(key)
        if cached is None:
            system = fmt.system_messages(body, head)
            cached = count_messages(self.counter, system) + _tools_tokens(self.counter, body)
            self._counts[key] = cached
        return cached

    # -- the request -----------------------------------------------------------------------------

    async def rewrite(self, fmt: WireFormat, body: dict[str, Any], headers: Mapping[str, str], tenant: str) -> Outcome:
        """Decide what to forward for one parsed request body (raises on anything unexpected: fail open)."""
        started = time.perf_counter()
        messages = fmt.messages_of(body)
        if messages is None:
            return Outcome(body=None, session="-", action="no message list")
        split = fmt.split(body, messages)
        client = split.body
        session = session_of(headers, body, client[0] if client else None)
        if fmt.name == "responses" and body.get("previous_response_id"):
            return Outcome(body=None, session=session, action="previous_response_id: server-side state")
        if not client:
            return Outcome(body=None, session=session, action="no messages")
        lineage = lineage_of(fmt, body, split.head, headers)
        key = (tenant, session, lineage)
        if len(self._locks) > _LINEAGE_LIMIT:  # forget idle lineages (the store's compare-and-set still orders them)
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            self._last_sent.clear()
            self._seen.clear()
            self._seen_bytes = 0
            self._next = {k: v for k, v in self._next.items() if not v.task.done()}
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            outcome = await self._rewrite_locked(fmt, key, body, headers, split.head, client)
        self._last_sent[key] = outcome.tokens_after
        return replace(outcome, seconds=time.perf_counter() - started)

    async def _rewrite_locked(
        self,
        fmt: WireFormat,
        key: tuple[str, str, str],
        body: dict[str, Any],
        headers: Mapping[str, str],
        head: list[Any],
        client: list[Any],
    ) -> Outcome:
        tenant, session, lineage = key
        # The record's read is sent first and answered while the messages are hashed: with a network store
        # (Redis, PostgreSQL) its round trip overlaps the one CPU-heavy step instead of following it.
        await self._settled(key)
        reading = asyncio.ensure_future(self.store.get_lineage(tenant, session, lineage))
        await asyncio.sleep(0)  # let the read go out on the wire
        try:
            raws = [orjson.dumps(m) for m in client]  # each message serialized once: compared, then forwarded as is
            seen = self._prefix_of(fmt, key, client, raws)
            hashes, chains = seen.hashes, seen.chains
        except BaseException:
            reading.cancel()
            reading.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no "never retrieved"
            raise
        record = await reading
        base = record or LineageRecord(tenant=tenant, session=session, lineage=lineage)
        matched = bool(
            record is not None and 0 < record.covered < len(client) and chains[record.covered] == record.covered_hash
        )
        if record is not None and not matched and record.covered:
            # The client's history no longer starts with what we compacted (it compacted itself, or edited):
            # forward its own history; the next compaction replaces the stale record.
            base = replace(record, covered=0, covered_hash="", replacement=b"[]", marked=None, tokens=0)
        fixed = self._fixed_tokens(fmt, body, head, lineage)  # system prompt (with the head) and tools
        before = fixed + seen.counts[-1]
        window = self.config.window_for(body.get("model") if isinstance(body.get("model"), str) else None)
        ctx = self._contexts.get(window)
        if ctx is None:  # frozen: one per window (a model's), built once (pydantic validation costs ~20 us)
            ctx = self._contexts[window] = ContextConfig(window=window, trigger_ratio=self.config.trigger_ratio)
        offloads = 0
        rewrites = dict(base.rewrites)
        new_rewrites = False
        covered = base.covered
        limit = min(self.policy.offload_tokens or ctx.result_limit, ctx.result_limit)
        dedupe = self.policy.dedupe_tokens
        earlier: dict[str, str] = {}  # text key of each result forwarded before this message -> its call id
        for i in range(covered, len(client)):
            h = hashes[i]
            message = client[i]
            if not fmt.has_tool_result(message):
                continue
            results = self._results(fmt, h, message) if dedupe else ()
            same = {k: earlier[k] for k, _, t in results if t >= dedupe and k in earlier}
            for k, call, _ in results:
                earlier.setdefault(k, call)
            if h in rewrites:
                continue
            size = self._count(fmt, h, message)
            cut = not (size <= limit or (size <= ctx.result_limit and size <= limit + _NOTICE_MARGIN))
            if not cut and not same:
                continue  # below the policy's own threshold a cut must save more than its notice adds
            rewritten, n = await self._offload(fmt, i, message, tenant, limit if cut else 0, same)
            if n:
                rewrites[h] = rewritten
                offloads += n
                new_rewrites = True
        record_now = replace(base, rewrites=MappingProxyType(rewrites)) if new_rewrites else base
        counts = seen.counts
        forwarded, tokens = self._assemble(fmt, fixed, record_now, client, hashes, counts, body)
        compacted = False
        job = _Job(
            fmt=fmt,
            body=body,
            head=head,
            client=client,
            hashes=hashes,
            chains=chains,
            counts=counts,
            tenant=tenant,
            ctx=ctx,
        )
        record_now, forwarded, tokens, compacted = await self._maybe_compact(
            job, (tenant, session, lineage), record_now, forwarded, tokens, fixed, window
        )
        later = new_rewrites and not compacted
        # Only new rewrites (content-addressed: any replica or a restarted proxy makes the same bytes): stored after
        # this request is answered, off its path (`_store_later`); the lineage's next request waits for it.
        if compacted:
            stored = await self.store.put_lineage(record_now, expected_version=record.version if record else 0)
            winner = await self.store.get_lineage(tenant, session, lineage) if stored is None else None
            if winner is not None and _rewrites_only(winner, record):
                # What beat us only added rewrites (a replica's first-sight cut, stored after its response): our
                # compaction still holds; put it on top, with the rewrites of the messages it keeps.
                tail = set(hashes[record_now.covered :])
                merged = {h: v for h, v in winner.rewrites.items() if h in tail} | dict(record_now.rewrites)
                retry = replace(record_now, rewrites=MappingProxyType(merged))
                stored = await self.store.put_lineage(retry, expected_version=winner.version)
                if stored is not None:
                    record_now = retry
                else:
                    winner = await self.store.get_lineage(tenant, session, lineage)
            if (  # another request of this lineage stored first: adopt its record if it fits
                stored is None
                and winner is not None
                and 0 < winner.covered < len(client)
                and chains[winner.covered] == winner.covered_hash
            ):
                forwarded, tokens = self._assemble(fmt, fixed, winner, client, hashes, counts, body)
                record_now, compacted = winner, False
        spliced = record_now.covered > 0 or any(h in record_now.rewrites for h in hashes[record_now.covered :])
        previous = self._last_sent.get((tenant, session, lineage))
        reuse = 0 if compacted or previous is None else min(previous, tokens)
        if not spliced:
            return Outcome(
                body=None,
                session=session,
                tokens_before=before,
                tokens_after=before,
                action="pass",
                cache_reuse=reuse,
            )
        data = self._serialize(fmt, body, head, forwarded, {id(m): raw for m, raw in zip(client, raws, strict=True)})
        release = self._store_later(key, record_now, record.version if record else 0) if later else None
        return Outcome(
            body=data,
            after=release,
            session=session,
            tokens_before=before,
            tokens_after=tokens,
            compacted=compacted,
            offloads=offloads,
            cache_reuse=reuse,
            action="compacted" if compacted else "spliced",
        )

    async def _maybe_compact(
        self,
        job: _Job,
        key: tuple[str, str, str],
        record: LineageRecord,
        forwarded: list[Any],
        tokens: int,
        fixed: int,
        window: int,
    ) -> tuple[LineageRecord, list[Any], int, bool]:
        """Compaction for one request: (record, forwarded, tokens, compacted).

        Past the pre-trigger the next replacement is computed in the background from the history's shortest prefix
        past the pre-trigger (a function of the history alone: any replica, before or after a restart, computes the
        same bytes). The first request past the trigger promotes it (waiting only for what is left of its
        computation, or computing it when no task or store has it). A request past the midpoint between trigger and
        window (a history that jumped) compacts its own whole history on the spot, as does one whose promotion
        saves nothing.
        """
        ctx = job.ctx
        policy = self.policy
        pre = int(ctx.trigger_tokens * policy.precompute_ratio)
        hard = (ctx.trigger_tokens + window) // 2
        early = int(ctx.trigger_tokens * max(0.0, policy.precompute_ratio - _WARM_STEP))
        if policy.precompute == "warm" and early < tokens <= ctx.trigger_tokens:
            # Two warm-ups per compaction: one early (most messages, time to finish), one close to the trigger (the
            # messages since); a negative basis never matches a replacement's.
            basis = -1 - (2 * record.compactions + (tokens > pre))
            entry = self._next.get(key)
            if entry is None or (entry.basis != basis and entry.task.done()):
                loop = asyncio.get_running_loop()
                warming = loop.run_in_executor(self._executor(), self._prepare, job, record, forwarded)
                task = asyncio.ensure_future(_discard(warming))
                task.add_done_callback(functools.partial(self._done, key))
                self._next[key] = _Next(basis=basis, task=task)
            return record, forwarded, tokens, False
        if policy.precompute == "replacement" and pre < tokens <= ctx.trigger_tokens:
            if not self._started(key, record):
                prefix = self._prefix(job, record, forwarded, fixed, pre)
                if prefix is not None:
                    self._start(key, record, *prefix)
            return record, forwarded, tokens, False
        if tokens <= ctx.trigger_tokens:
            return record, forwarded, tokens, False
        if policy.precompute == "replacement" and tokens <= hard:
            made = await self._next_record(key, record, job, self._prefix(job, record, forwarded, fixed, pre))
            if (smaller := self._if_smaller(job, fixed, made, tokens)) is not None:
                return smaller
        made = await self._compact(job, record, forwarded)
        if (smaller := self._if_smaller(job, fixed, made, tokens)) is not None:
            return smaller
        return record, forwarded, tokens, False

    def _if_smaller(
        self, job: _Job, fixed: int, made: LineageRecord | None, tokens: int
    ) -> tuple[LineageRecord, list[Any], int, bool] | None:
        """``_maybe_compact``'s answer for the new record ``made``, when the request it gives is smaller; else None."""
        if made is None:
            return None
        forwarded, after = self._assemble(job.fmt, fixed, made, job.client, job.hashes, job.counts, job.body)
        return (made, forwarded, after, True) if after < tokens else None

    def _prefix(
        self, job: _Job, record: LineageRecord, forwarded: list[Any], fixed: int, pre: int
    ) -> tuple[_Job, list[Any]] | None:
        """The request cut to the shortest prefix of its history whose forwarded tokens pass ``pre``."""
        fmt, client, hashes = job.fmt, job.client, job.hashes
        total = fixed + (record.tokens if record.covered else 0)
        offset = 1 if record.covered else 0  # the replacement's place in ``forwarded``
        for i in range(record.covered, len(client)):
            h = hashes[i]
            element = forwarded[offset + i - record.covered]
            total += self._count(fmt, "rw:" + h, element) if h in record.rewrites else self._count(fmt, h, element)
            if total > pre:
                k = i + 1
                while k < len(client) and not self._ends_turn(fmt, client, hashes, k):
                    k += 1  # to the end of the turn: the whole prefix may be compacted, never a call without its result
                if k - record.covered < 2 or not self._ends_turn(fmt, client, hashes, k):
                    return None
                cut = replace(
                    job,
                    client=client[:k],
                    hashes=hashes[:k],
                    chains=job.chains[: k + 1],
                    counts=job.counts[: k + 1],
                    whole=True,
                )
                return cut, forwarded[: offset + k - record.covered]
        return None

    def _ends_turn(self, fmt: WireFormat, client: list[Any], hashes: list[str], k: int) -> bool:
        """Whether the client's turn ends after message ``k - 1``: a cut there separates nothing.

        Decided from the history alone, the same from any later request: message ``k - 1`` is not the model's
        nor glued to the next, and the next is the model's (or there is none yet: a request ends with the client's
        own turn, and the model's answer comes next).
        """
        last = client[k - 1]
        if fmt.glued_to_next(last) or self._canonical(fmt, k - 1, last, hashes[k - 1])[-1].role == "assistant":
            return False
        if k == len(client):
            return True
        following = self._canonical(fmt, k, client[k], hashes[k])
        return bool(following) and following[0].role == "assistant"

    # -- the precomputed next replacement --------------------------------------------------------

    def _fit(self, pending: LineageRecord, record: LineageRecord, job: _Job) -> LineageRecord | None:
        """``pending`` as the lineage's next record for this request, or None when it does not follow ``record``.

        It must be one compaction ahead of the current record and cover a prefix of this history; the current
        record's rewrites of the messages it leaves are carried over (a rewrite is content-addressed: same bytes).
        """
        if pending.compactions != record.compactions + 1:
            return None
        if not (0 < pending.covered < len(job.client) and job.chains[pending.covered] == pending.covered_hash):
            return None
        tail = set(job.hashes[pending.covered :])
        rewrites = {h: v for h, v in record.rewrites.items() if h in tail}
        rewrites.update(pending.rewrites)
        return replace(pending, lineage=record.lineage, version=record.version, rewrites=MappingProxyType(rewrites))

    async def _next_record(
        self, key: tuple[str, str, str], record: LineageRecord, job: _Job, prefix: tuple[_Job, list[Any]] | None
    ) -> LineageRecord | None:
        """The lineage's next record for a request past the trigger: precomputed, stored by a replica, or made now."""
        entry = self._next.get(key)
        if entry is not None and entry.basis == record.compactions:
            await asyncio.wait([entry.task])  # what is left of it; a cancelled request must not cancel the task
            if not entry.task.cancelled() and entry.task.exception() is None:
                result = entry.task.result()
                fitted = self._fit(result, record, job) if result is not None else None
                if fitted is not None:
                    return fitted
        stored = await self.store.get_lineage(job.tenant, record.session, record.lineage + NEXT_SUFFIX)
        fitted = self._fit(stored, record, job) if stored is not None else None
        if fitted is not None or prefix is None:
            return fitted
        made = await self._compact(prefix[0], record, prefix[1])  # the bytes the background task would have made
        return self._fit(made, record, job) if made is not None else None

    def _started(self, key: tuple[str, str, str], record: LineageRecord) -> bool:
        """Whether the lineage's next replacement is (being) computed, or a task of it still runs (one at a time)."""
        entry = self._next.get(key)
        return entry is not None and (entry.basis == record.compactions or not entry.task.done())

    def _start(self, key: tuple[str, str, str], record: LineageRecord, job: _Job, forwarded: list[Any]) -> None:
        """Compute the next replacement in the background, unless it is (being) computed: one task per lineage."""
        if self._started(key, record):
            return
        task = asyncio.ensure_future(self._precompute(record, job, forwarded))
        task.add_done_callback(functools.partial(self._done, key))
        self._next[key] = _Next(basis=record.compactions, task=task)

    async def _precompute(self, record: LineageRecord, job: _Job, forwarded: list[Any]) -> LineageRecord | None:
        """The next record, stored by compare-and-set under ``lineage + NEXT_SUFFIX`` (replicas find the same)."""
        name = record.lineage + NEXT_SUFFIX
        stored = await self.store.get_lineage(job.tenant, record.session, name)
        if stored is not None and self._fit(stored, record, job) is not None:
            return stored  # another replica (or this proxy before a restart) computed it already
        made = await self._compact(job, record, forwarded)
        if made is None:
            return None
        put = await self.store.put_lineage(
            replace(made, lineage=name), expected_version=stored.version if stored is not None else 0
        )
        if put is None:  # another replica stored its own first: that one is the lineage's next
            return await self.store.get_lineage(job.tenant, record.session, name)
        return put

    # -- assembling and serializing --------------------------------------------------------------

    def _assemble(
        self,
        fmt: WireFormat,
        fixed: int,
        record: LineageRecord,
        client: list[Any],
        hashes: list[str],
        counts: list[int],
        body: Mapping[str, Any],
    ) -> tuple[list[Any], int]:
        """Replacement elements plus the client's tail (rewrites applied) and their estimated tokens.

        ``counts``: the client messages' cumulative counts (`_Seen.counts`); the tail's tokens are their sum, less
        each rewritten message's count and plus its rewrite's (no lookup per message).
        """
        covered = record.covered
        tail = client[covered:]
        tokens = fixed + (record.tokens if covered else 0) + counts[len(client)] - counts[covered]
        rewrites = record.rewrites
        if rewrites:
            for j, h in enumerate(hashes[covered:]):
                stored = rewrites.get(h)
                if stored is not None:
                    i = covered + j
                    tail[j] = transfer_breakpoints(client[i], self._parsed_rewrite(stored))
                    tokens += self._count(fmt, "rw:" + h, tail[j]) - (counts[i + 1] - counts[i])
        if not record.covered:
            return tail, tokens
        replacement = record.replacement
        if record.marked is not None:
            outside = count_breakpoints(body.get("system")) + count_breakpoints(body.get("tools"))
            messages = body.get(fmt.key)
            if isinstance(messages, list) and len(messages) > len(client):  # the head's, as the client placed them
                outside += count_breakpoints(messages[: len(messages) - len(client)])
            if outside + count_breakpoints(tail) < MAX_BREAKPOINTS:
                replacement = record.marked
        return [_Raw(replacement), *tail], tokens

    def _parsed_rewrite(self, stored: bytes) -> Any:
        """A stored rewrite parsed once, shared read-only by every request that forwards it.

        Its serialized bytes are kept by the parsed object's ``id`` (`_serialize` reuses them when no breakpoint was
        moved onto it): a rewritten message costs no parse and no serialization on the lineage's later requests.
        The two maps are cleared together, and a request holds the objects it forwards, so an ``id`` found there
        is always the object's own.
        """
        parsed = self._parsed_rewrites.get(stored)
        if parsed is None:
            if len(self._parsed_rewrites) >= _REWRITE_LIMIT:
                self._parsed_rewrites.clear()
                self._rewrite_raws.clear()
            parsed = orjson.loads(stored)
            data = orjson.dumps(parsed)
            self._parsed_rewrites[stored] = parsed
            self._rewrite_raws[id(parsed)] = stored if data == stored else data
        return parsed

    def _serialize(
        self,
        fmt: WireFormat,
        body: dict[str, Any],
        head: list[Any],
        forwarded: list[Any],
        raws: Mapping[int, bytes],
    ) -> bytes:
        """The body with its message list replaced; the stored replacement goes out byte for byte.

        ``raws``: the client's messages already serialized (by ``id``), reused instead of serialized again, as are
        the stored rewrites forwarded as they are (`_parsed_rewrite`).
        """
        parts: list[bytes] = [orjson.dumps(m) for m in head]
        rewritten = self._rewrite_raws
        for item in forwarded:
            if isinstance(item, _Raw):
                inner = item.data[1:-1]
                if inner:
                    parts.append(inner)
            else:
                raw = raws.get(id(item))
                if raw is None:
                    raw = rewritten.get(id(item))
                parts.append(raw if raw is not None else orjson.dumps(item))
        array = b"[" + b",".join(parts) + b"]"
        out = dict(body)
        out[fmt.key] = orjson.Fragment(array)
        return orjson.dumps(out)

    # -- offloading an oversized tool result -----------------------------------------------------

    def _results(self, fmt: WireFormat, h: str, message: Any) -> tuple[tuple[str, str, int], ...]:
        """(text key, call id, tokens) of each text tool result of a wire message, cached by its hash.

        Tokens are estimated at four characters each (the threshold of a pointer needs no exact count).
        """
        name = "res:" + h
        cached = self._result_keys.get(name)
        if cached is None:
            found: list[tuple[str, str, int]] = []
            for cm in self._canonical(fmt, 0, message, h):
                for block in cm.content:
                    if (
                        isinstance(block, ToolResultBlock)
                        and block.text
                        and not block.is_error
                        and all(isinstance(b, TextBlock) for b in block.content)
                    ):
                        key = hashlib.sha256(block.text.encode("utf-8", "surrogatepass")).hexdigest()
                        found.append((key, block.call_id, len(block.text) // 4))  # tokens, about
            cached = tuple(found)
            if len(self._result_keys) > _CACHE_LIMIT:
                self._result_keys.clear()
            self._result_keys[name] = cached
        return cached

    async def _offload(
        self,
        fmt: WireFormat,
        index: int,
        message: Any,
        tenant: str,
        limit: int,
        same: Mapping[str, str] | None = None,
    ) -> tuple[bytes, int]:
        """Cut each oversized result of one wire message, offload the rest; the rewritten message and the count.

        ``limit`` 0: no cut. ``same``: text keys of results the history already holds, with the call id of the
        first: such a result becomes a pointer to it (`_pointer`).
        """
        workspace = self.workspace(tenant)
        canon = fmt.canonical(index, message)
        fixed = fmt.fixed_results(message)
        out: list[Message] = []
        n = 0
        for cm in canon:
            if cm.role != "tool":
                out.append(cm)
                continue
            blocks: list[Any] = []
            for block in cm.content:
                if not isinstance(block, ToolResultBlock) or block.call_id in fixed:
                    blocks.append(block)
                    continue
                key = hashlib.sha256(block.text.encode("utf-8", "surrogatepass")).hexdigest() if same else ""
                if same and key in same and block.call_id != same[key]:
                    ref = await workspace.offload_tool_result(block.text, call_id=block.call_id, tool_name=block.name)
                    blocks.append(_pointer(block, same[key], ref.path, self._location(tenant, workspace, ref.path)))
                    n += 1
                    continue
                if not limit:
                    blocks.append(block)
                    continue
                kept, ref = await self._cut(block, limit, workspace)
                if ref is not None:
                    n += 1
                    # The item holds exactly the result's text (its name is its content's): no read-back.
                    kept = _with_local_path(kept, self._location(tenant, workspace, ref.path), block.text)
                blocks.append(kept)
            out.append(cm.replace(content=tuple(blocks)))
        if not n:
            return b"", 0
        rendered = strip_breakpoints(fmt.merge_rewrite(message, fmt.render_one(out)))
        return orjson.dumps(rendered), n

    async def _cut(
        self, block: ToolResultBlock, limit: int, workspace: LocalWorkspace | ObjectWorkspace
    ) -> tuple[ToolResultBlock, Any]:
        """A result cut to ``limit`` tokens: its head, then the omitted part's fact lines (``fact_share`` of them).

        The lines that carry facts (the facts ledger's rules: error lines, ids, paths) between the kept head and
        the output's last lines are listed with their line numbers, most important first while they fit, in the
        order of the output; the head is cut shorter by what they may take. All of it a function of the result and
        the limit (the same bytes on any replica); the whole text is in the workspace file as before.
        """
        text = block.text
        tail_start = _tail_start(text)
        shown = text[tail_start:]
        most = int(limit * self.policy.fact_share)
        reserve = 0
        facts: list[tuple[int, str, str]] = []
        memo = _FitMemo()  # a fact's line and tokens, found and counted once for both fits
        if most:
            # The head at the shortest it may be: the facts after it are the most the excerpt can list; when they
            # take less than the share, the head gets the rest back.
            probe = split_tool_result(block, limit=limit - most, counter=self.counter)
            start = len(probe.kept_text) if probe is not None else tail_start
            end = min(tail_start, start + _FACT_SCAN_CHARS)
            found = output_fact_lines(text, start, end) if start < end else []
            # Those the tail shows are passed over as the fits reach them (`_FitMemo.hidden`): the fits stop at
            # the first line that does not fit, so most facts of a long output are never looked up in the tail.
            facts = sorted(found, key=_importance)
            memo.hidden = shown
            if facts:
                reserve = _fit_excerpt(self.counter, text, facts, most, memo)[1]
        kept, ref = await offload_oversized_result(
            block, limit=limit - reserve, counter=self.counter, offloader=workspace
        )
        if ref is None or not reserve:
            return kept, ref
        head = "\n".join(b.text for b in kept.content[:-1] if isinstance(b, TextBlock))
        excerpt = _fit_excerpt(self.counter, text, facts, reserve, memo, after=len(head))[0]
        if not excerpt:
            return kept, ref
        content = list(kept.content)
        last = content[-1]
        if isinstance(last, TextBlock):
            content[-1] = TextBlock(text=last.text + excerpt, meta=last.meta)
        return replace(kept, content=tuple(content)), ref

    # -- compaction ------------------------------------------------------------------------------

    def _plan(
        self,
        strategy: DigestStrategy,
        messages: list[Message],
        ctx: ContextConfig,
        fixed: int,
        ratio: float,
        *,
        recent: bool = True,
    ) -> CompactionPlan | None:
        """The digest plan into ``ratio`` of the room above ``fixed`` tokens, or None (nothing to compact there).

        ``recent=False``: no newest messages kept verbatim (a prefix whose successors are the recent part); a plan
        that keeps the prefix's newest user turn verbatim and so leaves the summary less than half its share is
        refused (None), so the caller's next, shallower depth is tried.
        """
        policy = self.policy
        budget = int((ctx.trigger_tokens - fixed) * ratio)
        if budget <= 1000:
            return None
        planning = ctx.model_copy(
            update={
                "window": math.ceil(budget * ctx.safety_margin / ctx.trigger_ratio),
                "summary_ratio": policy.summary_ratio,
                "reserve_ratio": min(policy.reserve_ratio, ctx.trigger_ratio / 2) if recent else 0.0,
                "min_recent_messages": policy.min_recent_messages if recent else 0,
            }
        )
        try:
            plan = strategy.plan(messages, counter=self.counter, config=planning)
        except ContextOverflowError:
            return None
        if plan is None or not plan.compacted or plan.boundary.split is not None:
            return None
        if not recent and plan.boundary.protected and budget - plan.boundary.kept_tokens < planning.summary_tokens // 2:
            # A prefix whose newest user turn is kept verbatim (protected) can leave the summary almost no room: the
            # messages after the prefix are the recent part already, so a shallower plan is tried instead.
            return None
        return plan

    async def _compact(self, job: _Job, record: LineageRecord, forwarded: list[Any]) -> LineageRecord | None:
        """A new record whose replacement compacts the forwarded history, or None when nothing can be compacted.

        The planning and rendering run in the engine's worker thread, the archive write on the event loop.
        """
        loop = asyncio.get_running_loop()
        pool = self._executor()
        prepared = await loop.run_in_executor(pool, self._prepare, job, record, forwarded)
        if prepared is None:
            return None
        plan, wire, cut_wire, rep_len = prepared
        workspace = self.workspace(job.tenant)
        ref = await workspace.offload_context(plan.archived)
        plan = plan.with_archive_ref(ref.path)
        summary = _with_readback_note(plan.summary, ref.path, self._location(job.tenant, workspace, ref.path))
        finish = functools.partial(self._finish, job, record, summary, wire, cut_wire, rep_len)
        return await loop.run_in_executor(pool, finish)

    def _prepare(
        self, job: _Job, record: LineageRecord, forwarded: list[Any]
    ) -> tuple[CompactionPlan, list[Any], int, int] | None:
        """The plan over the forwarded history: (plan, wire messages, cut in wire messages, replacement length)."""
        fmt, client, hashes = job.fmt, job.client, job.hashes
        wire: list[Any] = []
        for item in forwarded:
            if isinstance(item, _Raw):
                wire.extend(orjson.loads(item.data))
            else:
                wire.append(item)
        rep_len = len(wire) - (len(client) - record.covered)
        system = fmt.system_messages(job.body, job.head)
        canon: list[Message] = []
        safe: list[bool] = []
        owner: list[int] = []
        kept_tokens = 0
        for w, message in enumerate(wire):
            if fmt.must_keep(message):
                # Carried forward verbatim whatever the cut: a fixed cost, not input to the digest.
                kept_tokens += self._count(fmt, "keep:" + message_hash(message), message)
                continue
            known = hashes[record.covered + w - rep_len] if w >= rep_len else None
            if known is not None and known in record.rewrites:  # forwarded as rewritten: not the client's bytes
                known = None
            parts = self._canonical(fmt, w, message, known)
            for k, cm in enumerate(parts):
                canon.append(cm)
                owner.append(w)
                glued = w > 0 and fmt.glued_to_next(wire[w - 1])
                safe.append(k == 0 and not glued)
        # Never compact everything: the client's newest message always goes out as sent (a prefix's end is not it).
        safe.append(job.whole)
        lo = len(system)
        tools_tokens = _tools_tokens(self.counter, job.body) + kept_tokens
        strategy = DigestStrategy(rules=(*DEFAULT_RULES, _AlignRule(lo, safe)))
        messages = [*system, *canon]
        plan = None
        # The policy's depth first; when the newest turn does not fit it, step by step up to the shallowest cut.
        target = self.policy.target_ratio
        for ratio in dict.fromkeys((target, *(r for r in _FALLBACK_TARGETS if r > target))):
            plan = self._plan(strategy, messages, job.ctx, tools_tokens, ratio, recent=not job.whole)
            if plan is not None:
                break
        if plan is None:
            return None
        cut = plan.boundary.cut - lo
        cut_wire = owner[cut] if cut < len(owner) else len(wire)
        if cut_wire == 0:
            return None
        limit = len(client) + 1 if job.whole else len(client)
        if (record.covered + (cut_wire - rep_len) if cut_wire >= rep_len else record.covered) >= limit:
            return None
        return plan, wire, cut_wire, rep_len

    def _finish(
        self,
        job: _Job,
        record: LineageRecord,
        summary: Message,
        wire: list[Any],
        cut_wire: int,
        rep_len: int,
    ) -> LineageRecord | None:
        """The new record: the summary rendered in the wire format, kept items, carried messages, their count."""
        fmt, client, hashes = job.fmt, job.client, job.hashes
        compacted_wire = wire[:cut_wire]
        keep = [m for m in compacted_wire if fmt.must_keep(m)]
        next_message = wire[cut_wire] if cut_wire < len(wire) else None
        rendered = fmt.render_summary(summary, next_message)
        if cut_wire >= rep_len:
            new_covered = record.covered + (cut_wire - rep_len)
            carried: list[Any] = []
        else:
            new_covered = record.covered
            carried = wire[cut_wire:rep_len]
        if new_covered >= (len(client) + 1 if job.whole else len(client)):
            return None
        ordered = [*keep, *rendered] if fmt.keep_first else [*rendered, *keep]
        replacement = strip_breakpoints([*ordered, *carried])
        # Every breakpoint of the client's in the covered prefix falls inside the replacement (also those the last
        # replacement already stood for, inner blocks of tool results included): one marks its end instead.
        client_breakpoints = count_breakpoints(client[:new_covered])
        marked = None
        if fmt.name == "anthropic" and client_breakpoints:
            marked = orjson.dumps(_mark_last(replacement))
        tokens = sum(self._count(fmt, "rep:" + message_hash(m), m) for m in replacement)
        rewrites = {h: v for h, v in record.rewrites.items() if h in set(hashes[new_covered:])}
        return replace(
            record,
            covered=new_covered,
            covered_hash=job.chains[new_covered],
            replacement=orjson.dumps(replacement),
            marked=marked,
            tokens=tokens,
            compactions=record.compactions + 1,
            rewrites=MappingProxyType(rewrites),
            updated=time.time(),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Job:
    """One request's parsed parts a compaction reads (a background one keeps them after the request is answered)."""

    fmt: WireFormat
    body: Mapping[str, Any]
    head: list[Any]
    client: list[Any]
    hashes: list[str]
    chains: list[str]
    counts: list[int]
    """``counts[i]``: the tokens of the first ``i`` client messages (as `_Seen.counts`)."""
    tenant: str
    ctx: ContextConfig
    whole: bool = False
    """A precomputation over a prefix of the history: it may compact all of it (the messages after the prefix are
    the recent part the request at the trigger keeps), and keeps no recent messages of its own."""


@dataclass(frozen=True, slots=True)
class _Next:
    """A lineage's background compaction: the compactions count of the record it starts from, and its task."""

    basis: int
    task: asyncio.Task[LineageRecord | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Seen:
    """A lineage's last request in this process: its messages' bytes, hashes, prefix chains and cumulative counts."""

    fmt: str
    raws: list[bytes]
    hashes: list[str]
    chains: list[str]
    """``chains[i]``: the identity of the first ``i`` messages (``chains[0] == ""``)."""
    counts: list[int]
    """``counts[i]``: the tokens of the first ``i`` messages."""


@dataclass(frozen=True, slots=True)
class _Raw:
    """Stored replacement bytes (a JSON array) spliced into the forwarded list verbatim."""

    data: bytes


def _rewrites_only(winner: LineageRecord, read: LineageRecord | None) -> bool:
    """Whether ``winner`` differs from the record ``read`` (None: there was none) only by its rewrites."""
    if read is None:
        return winner.covered == 0 and winner.compactions == 0
    return (
        winner.covered == read.covered
        and winner.covered_hash == read.covered_hash
        and winner.compactions == read.compactions
        and winner.replacement == read.replacement
    )


async def _discard(work: Any) -> None:
    """Await ``work`` and drop its result (a cache warm-up)."""
    await work


def _tools_tokens(counter: TokenCounter, body: Mapping[str, Any]) -> int:
    """Tokens of the tool definitions as sent: their JSON text (server and namespace tools have no schema of ours)."""
    tools = body.get("tools")
    if not tools:
        return 0
    return counter.count_text(orjson.dumps(tools).decode())


def _opaque_tokens(message: Message) -> int:
    """An item kept verbatim (reasoning, provider compaction) costs about its JSON size / 4."""
    raw = message.meta.get("responses.raw")
    if raw is None:
        return 0
    return len(orjson.dumps(raw)) // 4


def _mark_last(replacement: list[Any]) -> list[Any]:
    """The replacement with a cache breakpoint on the last block of its last message."""
    out = list(replacement)
    last = dict(out[-1])
    content = last.get("content")
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        last["content"] = [*content[:-1], {**content[-1], "cache_control": dict(EPHEMERAL)}]
    out[-1] = last
    return out


def _with_readback_note(summary: Message, rel: str, path: str) -> Message:
    """The summary with a line saying how to read the archived originals (with or without the MCP server)."""
    note = (
        f"\n\nThe original messages are archived: read them with read_offloaded(path={rel!r}) or search them with "
        f"search_offloaded (the contextfold MCP server), or read the file {path} directly."
    )
    first = summary.content[0]
    if not isinstance(first, TextBlock):  # pragma: no cover - a summary is one text block
        return summary
    return summary.replace(content=(TextBlock(text=first.text + note, meta=first.meta), *summary.content[1:]))


def _tail_start(text: str) -> int:
    """Where the last lines a cut's notice shows start: about `_TAIL_CHARS` from the end, at a line start."""
    if len(text) <= _TAIL_CHARS:
        return 0
    start = len(text) - _TAIL_CHARS
    newline = text.find("\n", start)
    return newline + 1 if newline >= 0 else start


_FACT_ORDER = {"error": 0, "id": 1, "file": 2}
_FACT_HEADER = "\nLines after the cut that name errors, ids or paths (line number: text):\n"


def _fact_line(text: str, at: int, value: str, marks: list[tuple[int, int]] | None = None) -> tuple[int, str]:
    """The line holding the fact at offset ``at``: (0-based line number, its text, clipped around the fact).

    ``marks``: (offset, newlines before it) pairs already counted in ``text``, sorted; the line number is counted
    on from the nearest one before the line (the fits look lines up mostly in the output's order), and the line's
    own pair is added.
    """
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)].rstrip("\r")
    if len(line) > _FACT_LINE_CHARS:
        lo = max(0, min(at - start - _FACT_LINE_CHARS // 4, len(line) - _FACT_LINE_CHARS))
        hi = max(lo + _FACT_LINE_CHARS, at - start + len(value))
        line = ("…" if lo else "") + line[lo:hi] + ("…" if hi < len(line) else "")
    if marks is None:
        return text.count("\n", 0, start), line
    k = bisect.bisect_right(marks, (start, math.inf))
    since, before = marks[k - 1] if k else (0, 0)
    number = before + text.count("\n", since, start)
    if since != start:
        marks.insert(k, (start, number))
    return number, line


def _importance(fact: tuple[int, str, str]) -> tuple[int, int]:
    """The order a cut's excerpt chooses fact lines in: errors, then ids, then paths, earliest first in each."""
    return _FACT_ORDER.get(fact[2], 3), fact[0]


@dataclass(slots=True)
class _FitMemo:
    """What `_fit_excerpt` works out per fact and per line, kept for the cut's second fit (same text)."""

    lines: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict)
    """(offset, value) -> `_fact_line`."""
    costs: dict[str, int] = field(default_factory=dict)
    """An entry's text -> its tokens."""
    header: int | None = None
    """Tokens of `_FACT_HEADER`."""
    hidden: str = ""
    """The output's last lines, which the notice shows: a fact found there is passed over."""
    shown: dict[str, bool] = field(default_factory=dict)
    """A fact's value -> whether ``hidden`` holds it."""
    marks: list[tuple[int, int]] = field(default_factory=list)
    """Line starts already numbered: (offset, newlines before it), sorted (see `_fact_line`)."""


def _fit_excerpt(
    counter: TokenCounter,
    text: str,
    facts: Sequence[tuple[int, str, str]],
    budget: int,
    memo: _FitMemo,
    *,
    after: int = 0,
) -> tuple[str, int]:
    """The fact lines that fit ``budget`` tokens, and their tokens (``memo``: what was worked out, filled here).

    ``facts`` in the order they are chosen (`_importance`: errors first, then ids, then paths, earliest first in
    each), those before offset ``after`` or whose value ``memo.hidden`` holds passed over; the lines are listed in
    the output's order; the first line that does not fit ends the choice.
    """
    if not facts:
        return "", 0
    chosen: dict[int, str] = {}
    if memo.header is None:
        memo.header = counter.count_text(_FACT_HEADER)
    cost = memo.header
    lines, costs, hidden, shown, marks = memo.lines, memo.costs, memo.hidden, memo.shown, memo.marks
    for at, value, _ in facts:
        if at < after:
            continue
        if hidden:
            held = shown.get(value)
            if held is None:
                held = shown[value] = value in hidden
            if held:
                continue
        found = lines.get((at, value))
        if found is None:
            found = lines[at, value] = _fact_line(text, at, value, marks)
        number, line = found
        if number in chosen:
            continue
        entry = f"{number + 1}: {line}\n"
        more = costs.get(entry)
        if more is None:
            more = costs[entry] = counter.count_text(entry)
        if cost + more > budget:
            break
        chosen[number] = line
        cost += more
    if not chosen:
        return "", 0
    return _FACT_HEADER + "\n".join(f"{n + 1}: {line}" for n, line in sorted(chosen.items())), cost


def _pointer(block: ToolResultBlock, first: str, rel: str, path: str) -> ToolResultBlock:
    """A result whose text the history already holds: a pointer to the first one (and to the saved copy)."""
    lines = block.text.count("\n") + 1
    note = render_hint(
        f"This output is identical to the result of the earlier call {first} ({lines} line{'s' if lines != 1 else ''}"
        f"), shown above; not repeated here. It is saved in the workspace file {rel}: read_offloaded(path={rel!r}) "
        f"(the contextfold MCP server), or read the file {path} directly."
    )
    return replace(block, content=(TextBlock(text=note),))


def _with_local_path(block: ToolResultBlock, path: str, rest: str) -> ToolResultBlock:
    """A cut tool result whose notice also gives the file's local path and the output's last lines."""
    tail = rest[_tail_start(rest) :]
    note = f"\nWithout those tools: the file is {path}; it ends with:\n{tail}"
    content = list(block.content)
    last = content[-1] if content else None
    if isinstance(last, TextBlock):
        content[-1] = TextBlock(text=last.text + note, meta=last.meta)
    else:
        content.append(TextBlock(text=note))
    return replace(block, content=tuple(content))
