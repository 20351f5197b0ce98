"""`RedisStore`: a session store shared by several proxy replicas, on Redis (``redis://HOST:PORT/DB``).

Keys (every key of a tenant carries the tenant in a ``{hash tag}``, so one
tenant's keys live on one cluster slot and the scripts touch one slot)::

    contextfold:schema                         key layout version ("1"), set once
    contextfold:{T}:lin:<lineage>:<session>    hash: v (version), d (packed record, `_codec`)
    contextfold:{T}:ses:<session>              hash: the session's counters
    contextfold:{T}:sessions                   sorted set: session -> last seen
    contextfold:tenants                        sorted set: tenant -> last seen

The compare-and-set is one Lua script (`_CAS`): it reads ``v`` and writes
``v`` and ``d`` only when ``v`` is still the expected version, atomically on
the server, so two replicas that compact the same lineage at the same moment
store one compaction and the other adopts it. Retention is Redis's own TTL:
every write sets it, and reading a lineage renews it (a session in use never
expires; one idle for the retention period is forgotten, and its next request
is compacted afresh from the client's full history). Counters are one script
too (`_STATS`: increments, first/last seen, the session index).

Connections: the ``redis`` package's asyncio client with a small pool,
short timeouts and a single retry (a stale pooled connection after a server
restart), so an unreachable server raises `StoreError` within about a second
and the proxy forwards unchanged. URL query options of redis-py work
(``?socket_timeout=2``); ``?prefix=NAME:`` changes the key prefix.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from contextfold._errors import ConfigError
from contextfold._stores._base import LineageRecord, SessionStats, StoreError
from contextfold._stores._codec import pack_record, unpack_record
from contextfold._stores._ops import display_url

__all__ = ["KEY_LAYOUT", "RedisStore"]

KEY_LAYOUT = 1
"""Version of the key layout above; a server holding a newer one is refused (upgrade contextfold)."""
DEFAULT_PREFIX = "contextfold:"
_T = TypeVar("_T")

_CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if cur == false then cur = '0' end
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
local ttl = tonumber(ARGV[4])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) else redis.call('PERSIST', KEYS[1]) end
return 1
"""

_STATS = """
local ses, index = KEYS[1], KEYS[2]
redis.call('HINCRBY', ses, 'requests', 1)
redis.call('HINCRBY', ses, 'tokens_in', ARGV[1])
redis.call('HINCRBY', ses, 'tokens_out', ARGV[2])
redis.call('HINCRBY', ses, 'compactions', ARGV[3])
redis.call('HINCRBY', ses, 'offloads', ARGV[4])
redis.call('HINCRBY', ses, 'cache_reuse', ARGV[5])
redis.call('HSETNX', ses, 'first_seen', ARGV[6])
local last = redis.call('HGET', ses, 'last_seen')
if last == false or tonumber(last) < tonumber(ARGV[6]) then
  redis.call('HSET', ses, 'last_seen', ARGV[6])
  redis.call('ZADD', index, ARGV[6], ARGV[8])
end
local ttl = tonumber(ARGV[7])
if ttl > 0 then
  redis.call('EXPIRE', ses, ttl)
  redis.call('EXPIRE', index, ttl)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. (tonumber(ARGV[6]) - ttl))
end
return 1
"""

_STAT_FIELDS = ("requests", "tokens_in", "tokens_out", "compactions", "offloads", "cache_reuse")


class RedisStore:
    """A `SessionStore` on a Redis server, for several proxy replicas (see the module docstring)."""

    def __init__(
        self,
        url: str,
        *,
        retention: float | None = None,
        timeout: float = 1.0,
        max_connections: int = 64,
    ) -> None:
        try:
            import redis.asyncio as aioredis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            from contextfold._errors import MissingExtraError

            raise MissingExtraError("the Redis session store", "redis", exc.name or "redis") from exc
        self._errors: tuple[type[BaseException], ...] = (aioredis.RedisError, OSError)
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        self.prefix = query.pop("prefix", DEFAULT_PREFIX)
        self.url = display_url(url)
        self.retention = retention
        self._ttl = 0 if retention is None else max(1, round(retention))
        clean = urlunsplit(parts._replace(query=urlencode(query)))
        options: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "retry": Retry(NoBackoff(), 1),
            "max_connections": max_connections,
            "health_check_interval": 30,
        }
        try:
            self._redis = aioredis.Redis.from_url(clean, **{k: v for k, v in options.items() if k not in query})
        except ValueError as exc:
            raise ConfigError(f"store URL {self.url!r}: {exc}") from exc
        self._cas = self._redis.register_script(_CAS)
        self._stats = self._redis.register_script(_STATS)
        self._layout_checked = False

    # -- keys ------------------------------------------------------------------------------------

    def _lineage_key(self, tenant: str, session: str, lineage: str) -> str:
        return f"{self.prefix}{{{tenant}}}:lin:{lineage}:{session}"

    def _session_key(self, tenant: str, session: str) -> str:
        return f"{self.prefix}{{{tenant}}}:ses:{session}"

    def _index_key(self, tenant: str) -> str:
        return f"{self.prefix}{{{tenant}}}:sessions"

    @property
    def _tenants_key(self) -> str:
        return f"{self.prefix}tenants"

    @property
    def _layout_key(self) -> str:
        return f"{self.prefix}schema"

    # -- plumbing --------------------------------------------------------------------------------

    async def _call(self, fn: Callable[[], Awaitable[_T]]) -> _T:
        try:
            if not self._layout_checked:
                await self._ensure_layout()
            return await fn()
        except StoreError:
            raise
        except self._errors as exc:
            raise StoreError(f"session store {self.url}: {type(exc).__name__}: {exc}") from exc

    async def _ensure_layout(self) -> None:
        """Record our key layout on first use; refuse a server that holds a different one."""
        await self._redis.set(self._layout_key, str(KEY_LAYOUT), nx=True)
        found = await self._redis.get(self._layout_key)
        if found is not None and int(found) != KEY_LAYOUT:
            raise StoreError(
                f"session store {self.url}: key layout {int(found)} under prefix {self.prefix!r} is not this "
                f"contextfold's ({KEY_LAYOUT}): upgrade contextfold, or use another prefix (?prefix=NAME:)"
            )
        self._layout_checked = True

    # -- SessionStore ----------------------------------------------------------------------------

    async def get_lineage(self, tenant: str, session: str, lineage: str) -> LineageRecord | None:
        key = self._lineage_key(tenant, session, lineage)

        async def read() -> list[Any]:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hmget(key, ["v", "d"])
                if self._ttl:
                    pipe.expire(key, self._ttl)  # a lineage in use stays
                return await pipe.execute()

        found = (await self._call(read))[0]
        version, data = found[0], found[1]
        if version is None or data is None:
            return None
        return unpack_record(data, tenant=tenant, session=session, lineage=lineage, version=int(version))

    async def put_lineage(self, record: LineageRecord, *, expected_version: int) -> LineageRecord | None:
        from dataclasses import replace

        stored = replace(record, version=expected_version + 1, updated=record.updated or time.time())
        key = self._lineage_key(record.tenant, record.session, record.lineage)
        args: list[Any] = [str(expected_version), str(stored.version), pack_record(stored), str(self._ttl)]

        async def write() -> bool:
            won = await self._cas(keys=[key], args=args)
            if won:
                await self._redis.zadd(self._tenants_key, {record.tenant: stored.updated})
            return bool(won)

        return stored if await self._call(write) else None

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
        keys = [self._session_key(tenant, session), self._index_key(tenant)]
        args: list[Any] = [tokens_in, tokens_out, int(compacted), offloads, cache_reuse, repr(float(now)), self._ttl]
        args.append(session)

        async def write() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                await self._stats(keys=keys, args=args, client=pipe)
                pipe.zadd(self._tenants_key, {tenant: now})
                if self._ttl:
                    pipe.zremrangebyscore(self._tenants_key, "-inf", f"({now - self._ttl}")
                await pipe.execute()

        await self._call(write)

    async def session_stats(self, tenant: str) -> list[SessionStats]:
        async def read() -> list[SessionStats]:
            names = [_text(n) for n in await self._redis.zrange(self._index_key(tenant), 0, -1)]
            if not names:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.hgetall(self._session_key(tenant, name))
                rows = await pipe.execute()
            out = [_stats(tenant, name, row) for name, row in zip(names, rows, strict=True) if row]
            out.sort(key=lambda s: (-s.last_seen, s.session))
            return out

        return await self._call(read)

    async def tenants(self) -> list[str]:
        async def read() -> list[str]:
            found = await self._redis.zrange(self._tenants_key, 0, -1)
            return sorted(_text(t) for t in found)

        return await self._call(read)

    async def ping(self) -> None:
        async def ping() -> None:
            await self._redis.ping()

        await self._call(ping)

    async def aclose(self) -> None:
        try:
            await self._redis.aclose()
        except self._errors as exc:  # pragma: no cover - closing a broken pool
            raise StoreError(f"session store {self.url}: {exc}") from exc

    # -- operations ------------------------------------------------------------------------------

    async def check(self) -> str:
        """PING, the server's version and our key layout (recorded on first use)."""

        async def info() -> str:
            server = await self._redis.info("server")
            found = await self._redis.get(self._layout_key)
            layout = f"key layout {int(found)}" if found is not None else "key layout not written yet"
            keep = f"retention {self._ttl} s" if self._ttl else "no expiry"
            return f"redis {server.get('redis_version', '?')} at {self.url} answers; {layout}; {keep}"

        return await self._call(info)

    async def purge(self, now: float) -> int:
        """Nothing to do: Redis expires keys itself (the TTL set on every write)."""
        return 0


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _stats(tenant: str, session: str, row: dict[bytes, bytes]) -> SessionStats:
    def num(name: str) -> int:
        return int(row.get(name.encode(), b"0"))

    return SessionStats(
        tenant=tenant,
        session=session,
        **{name: num(name) for name in _STAT_FIELDS},
        first_seen=float(row.get(b"first_seen", b"0")),
        last_seen=float(row.get(b"last_seen", b"0")),
    )
