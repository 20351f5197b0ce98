"""The `SessionStore` protocol: what the proxy keeps between requests, and the records it keeps.

The proxy is stateless per request except for this store: given the same
store, any process forwards the same bytes. Three kinds of data:

* a `LineageRecord` per (tenant, session, lineage): how many of the client's
  leading messages the last compaction covered, a hash of them, and the exact
  bytes forwarded in their place (the *replacement*). Records change only by
  compare-and-set on ``version``, so two requests (or two replicas) that
  compact the same lineage at once store one compaction, and the loser adopts
  the winner's record;
* the *rewrites* of single messages (an oversized tool result cut and
  offloaded), keyed by the message hash, so the same rewrite goes out on
  every later request;
* per-session `SessionStats` (counters only, never content).

Every key starts with the tenant (a hash of the client's credential): a store
never answers a question about one tenant with another tenant's data. A
backend raises `StoreError` when it cannot be reached or read; the proxy then
fails open (forwards the client's request unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from contextfold._errors import StoreError

__all__ = ["LineageRecord", "SessionStats", "SessionStore", "StoreError"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LineageRecord:
    """The stored state of one lineage: what the last compaction replaced, and by what bytes."""

    tenant: str
    """Hash of the client credential; every lookup is scoped by it."""
    session: str
    """The session id (the client's, or derived from its first message)."""
    lineage: str
    """Hash of system prompt, tools and model family: sub-agents are separate lineages of one session."""
    version: int = 0
    """Compare-and-set token: 0 for a record not stored yet, then 1, 2, ... per successful write."""
    covered: int = 0
    """Number of the client's leading messages the replacement stands for."""
    covered_hash: str = ""
    """Chain hash of those messages' canonical hashes (a client history matches when its prefix hashes to it)."""
    replacement: bytes = b"[]"
    """The JSON array of wire messages forwarded in place of the covered ones, byte for byte."""
    marked: bytes | None = None
    """The same replacement with a cache breakpoint on its last block (Anthropic), used while the request has room."""
    tokens: int = 0
    """Estimated tokens of the replacement."""
    compactions: int = 0
    """Compactions applied to this lineage so far."""
    rewrites: Mapping[str, bytes] = field(default_factory=lambda: MappingProxyType({}))
    """Message hash -> wire bytes of a rewritten message (an oversized tool result cut and offloaded)."""
    updated: float = 0.0
    """Unix time of the last write."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStats:
    """Counters of one session of one tenant (no content)."""

    tenant: str
    session: str
    requests: int = 0
    tokens_in: int = 0
    """Estimated tokens of the requests as the client sent them."""
    tokens_out: int = 0
    """Estimated tokens of the requests as forwarded."""
    compactions: int = 0
    offloads: int = 0
    cache_reuse: int = 0
    """Estimated tokens forwarded unchanged from the previous request of the lineage (a prompt-cache read)."""
    first_seen: float = 0.0
    last_seen: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form served by ``GET /stats`` (the tenant hash is left out: the caller knows who it is)."""
        return {
            "session": self.session,
            "requests": self.requests,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "compactions": self.compactions,
            "offloads": self.offloads,
            "cache_reuse_tokens": self.cache_reuse,
            "first_seen": self.first_seen,
            "last_seen": self.last_seen,
        }


@runtime_checkable
class SessionStore(Protocol):
    """Where the proxy keeps lineages and stats; SQLite by default (Redis and Postgres can follow).

    All methods are coroutines and raise `StoreError` when the backend fails.
    """

    async def get_lineage(self, tenant: str, session: str, lineage: str) -> LineageRecord | None:
        """The stored record of a lineage, or None."""
        ...

    async def put_lineage(self, record: LineageRecord, *, expected_version: int) -> LineageRecord | None:
        """Store ``record`` if the stored version is still ``expected_version`` (0: none stored).

        Returns the record as stored (``version = expected_version + 1``), or
        None when another writer got there first (re-read and adopt theirs).
        """
        ...

    async def record_request(
        self,
        tenant: str,
        session: str,
        *,
        tokens_in: int,
        tokens_out: int,
        compacted: bool,
        offloads: int,
        cache_reuse: int,
        now: float,
    ) -> None:
        """Add one request to the session's counters."""
        ...

    async def session_stats(self, tenant: str) -> list[SessionStats]:
        """The counters of every session of ``tenant``, most recent first."""
        ...

    async def tenants(self) -> list[str]:
        """Every tenant with data (for the local ``contextfold proxy stats --all``; never served over HTTP)."""
        ...

    async def ping(self) -> None:
        """Raise `StoreError` unless the backend answers (for ``/healthz``)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
