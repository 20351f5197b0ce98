"""`ObjectWorkspace`: an `Offloader` on an object store (S3, GCS, Azure, a local folder), shared by proxy replicas.

``--workspace-url`` names the store and a prefix: ``s3://bucket/prefix``,
``gs://bucket/prefix``, ``az://account/container/prefix``, ``file:///abs/dir``
or ``memory:///``, through `obstore` (extra ``s3``; credentials and endpoints
come from the usual environment variables, e.g. ``AWS_ACCESS_KEY_ID``,
``AWS_ENDPOINT_URL``). Layout under the prefix, one folder per owner (a proxy
tenant)::

    OWNER/tool_results/<h>.txt      the same names as a `LocalWorkspace` (`_naming`: one rule)
    OWNER/context/<h>.jsonl
    OWNER/media/<h>.<ext>
    OWNER/index/<item path>.json    the item's `OffloadRef` record (who, when, which call), written after it

Names are content-addressed, so replicas that offload the same content write
the same object: the write is a conditional create (``If-None-Match: *``); when
the object exists its bytes are compared, identical bytes are reused, and a
real digest collision goes under the full 64-digit name. An object store
writes an object whole or not at all, so there are no temporary files; the
index record is written only after its item, so a record always points at
complete content. Objects are immutable: retention is the bucket's lifecycle
rule on the prefix, not ours.

Offloading and the ``a*`` readers are async (the proxy); ``items``,
``open_item``, ``read_*`` and ``resolve`` are blocking (the read-back tools
and the MCP server call them). Every failure of the store becomes
`WorkspaceError`; paths are checked like a local workspace's, and the owner
folder is always prepended, so no path can name another owner's objects.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from contextfold._errors import ConfigError, PathRefusedError, WorkspaceError
from contextfold._messages import DataBlock, Message
from contextfold._workspace._codec import dumps_canonical, messages_from_jsonl
from contextfold._workspace._local import _check_relative, data_block_of
from contextfold._workspace._naming import (
    SUBDIRS,
    Payload,
    payload_for_context,
    payload_for_media,
    payload_for_tool_result,
)
from contextfold._workspace._offload import OffloadKind, OffloadRef

__all__ = ["INDEX_DIR", "OBJECT_SCHEMES", "ObjectRoot", "ObjectWorkspace", "is_object_url"]

INDEX_DIR = "index"
INDEX_VERSION = 1
OBJECT_SCHEMES = ("s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "file", "memory")
"""URL schemes an object workspace accepts (`obstore`'s ``from_url``)."""
TOOL_RESULT_MEDIA_TYPE = "text/plain; charset=utf-8"
CONTEXT_MEDIA_TYPE = "application/jsonl"
_OWNER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def is_object_url(text: str) -> bool:
    """Whether ``text`` is a URL an `ObjectRoot` can open (rather than a local directory)."""
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.lower() in OBJECT_SCHEMES


class ObjectRoot:
    """One object store and prefix (one client, one connection pool) holding every owner's workspace."""

    def __init__(self, url: str, *, options: dict[str, Any] | None = None) -> None:
        if not is_object_url(url):
            raise ConfigError(
                f"workspace URL {url!r}: use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, az://ACCOUNT/CONTAINER/PREFIX, "
                "file:///ABSOLUTE/DIR or memory:///"
            )
        try:
            import obstore
            from obstore.store import from_url
        except ImportError as exc:  # pragma: no cover - exercised without the extra
            from contextfold._errors import MissingExtraError

            raise MissingExtraError("an object-store workspace", "s3", exc.name or "obstore") from exc
        self.url = url.rstrip("/")
        self._obs = obstore
        parts = urlsplit(url)
        settings: dict[str, Any] = dict(options or {})
        scheme = parts.scheme.lower()
        self.attributes = scheme != "file"
        """Whether objects carry attributes (a Content-Type); a local folder has none."""
        if scheme == "file":
            if parts.netloc or not parts.path.startswith("/"):
                raise ConfigError(f"workspace URL {url!r}: use file:///ABSOLUTE/DIR (three slashes)")
            Path(parts.path).mkdir(parents=True, exist_ok=True)
            settings.setdefault("mkdir", True)
        elif scheme != "memory":
            # Bounded waits: an unreachable store is a WorkspaceError within seconds (the proxy then fails open),
            # not obstore's default of retrying for three minutes.
            client: dict[str, Any] = {"connect_timeout": timedelta(seconds=5), "timeout": timedelta(seconds=60)}
            endpoint = os.environ.get("AWS_ENDPOINT_URL") or os.environ.get("AWS_ENDPOINT") or ""
            if scheme in ("s3", "s3a") and endpoint.startswith("http://"):
                client["allow_http"] = True  # a local S3-compatible server (MinIO, moto)
            settings["client_options"] = {**client, **settings.get("client_options", {})}
            settings.setdefault("retry_config", {"max_retries": 2, "retry_timeout": timedelta(seconds=10)})
        try:
            self.store: Any = from_url(url, **settings)
        except Exception as exc:  # obstore raises its own errors for bad URLs and settings
            raise ConfigError(f"workspace URL {url!r}: {_reason(exc)}") from exc

    def workspace(self, owner: str) -> ObjectWorkspace:
        """The workspace of one owner (a proxy tenant): the folder ``OWNER/`` under the prefix."""
        return ObjectWorkspace(self, owner)

    async def check(self) -> str:
        """List the prefix once: connectivity and credentials; a one-line description."""
        try:
            await self._obs.list(self.store, prefix=None, chunk_size=1).__anext__()
        except StopAsyncIteration:
            pass
        except Exception as exc:
            raise WorkspaceError(f"workspace {self.url}: {_reason(exc)}") from exc
        return f"workspace {self.url} answers"


class ObjectWorkspace:
    """One owner's workspace in an `ObjectRoot`; implements `Offloader` (see the module docstring)."""

    def __init__(self, root: ObjectRoot, owner: str, *, clock: Callable[[], datetime] | None = None) -> None:
        if not owner or len(owner) > 128 or not set(owner) <= _OWNER_CHARS or owner[0] in "._-":
            raise ConfigError(f"workspace owner {owner!r} must be 1-128 letters, digits, '.', '_' or '-'")
        self.root = root
        self.owner = owner
        self._obs = root._obs
        self._store = root.store
        self._clock = clock or (lambda: datetime.now(UTC))
        self._cache: Path | None = None

    def _key(self, rel: str) -> str:
        return f"{self.owner}/{rel}"

    def location(self, path: str | OffloadRef) -> str:
        """Where the item is for someone who reads the store directly: its URL (a plain path for ``file://``)."""
        url = f"{self.root.url}/{self._key(_checked(path))}"
        return urlsplit(url).path if url.lower().startswith("file://") else url

    # -- writing (Offloader) -------------------------------------------------------------------

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """Store a tool result's text (the split stores the whole text and points into it)."""
        payload = payload_for_tool_result(text)
        return await self.offload_tool_result_payload(payload, call_id=call_id, tool_name=tool_name)

    async def offload_tool_result_payload(self, payload: Payload, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """`offload_tool_result` for a text the split already encoded and named (no second encode and hash)."""
        if payload.kind != "tool_result":
            raise ConfigError(f"offload_tool_result_payload takes a tool_result payload, got {payload.kind!r}")
        return await self._offload(payload, TOOL_RESULT_MEDIA_TYPE, call_id=call_id, tool_name=tool_name)

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        """Archive messages as canonical JSONL (exact round trip, ``meta`` included)."""
        if message_range is not None and not (0 <= message_range[0] <= message_range[1]):
            raise ConfigError(f"message_range {message_range} must be (start, stop) with 0 <= start <= stop")
        return await self._offload(payload_for_context(messages), CONTEXT_MEDIA_TYPE, message_range=message_range)

    async def offload_data(self, block: DataBlock) -> OffloadRef:
        """Store a media block: inline base64 as decoded bytes, anything else as the block's JSON."""
        return await self._offload(payload_for_media(block), block.media_type, media=block.media)

    async def _offload(
        self,
        payload: Payload,
        media_type: str | None,
        *,
        message_range: tuple[int, int] | None = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        media: str | None = None,
    ) -> OffloadRef:
        data = payload.data()
        rel = payload.path
        try:
            if not await self._create(rel, data, media_type):
                rel = payload.full_path  # a different item holds the short name: a digest collision
                if not await self._create(rel, data, media_type):
                    raise WorkspaceError(f"cannot store {payload.path}: both its names hold other content")
            ref = OffloadRef(
                path=rel,
                kind=payload.kind,
                size=len(data),
                created=self._clock().astimezone(UTC).isoformat(),
                message_range=message_range,
                tool_name=tool_name,
                call_id=call_id,
                media_type=media_type,
                media=media,
            )
            record = (dumps_canonical(dict(ref.to_dict(), v=INDEX_VERSION)) + "\n").encode("utf-8")
            await self._obs.put_async(self._store, self._key(f"{INDEX_DIR}/{rel}.json"), record)
        except WorkspaceError:
            raise
        except Exception as exc:
            raise WorkspaceError(
                f"cannot write {rel} to workspace {self.root.url}/{self.owner}: {_reason(exc)}"
            ) from exc
        return ref

    async def _create(self, rel: str, data: bytes, media_type: str | None) -> bool:
        """Write ``data`` under ``rel`` unless it exists; True when ``rel`` now holds exactly ``data``."""
        from obstore.exceptions import AlreadyExistsError, NotSupportedError, PreconditionError

        key = self._key(rel)
        attributes = {"Content-Type": media_type} if media_type and self.root.attributes else None
        try:
            await self._obs.put_async(self._store, key, data, mode="create", attributes=attributes)
            return True
        except (AlreadyExistsError, PreconditionError):
            pass
        except NotSupportedError:  # a store without conditional writes: look first, then write
            existing = await self._get_or_none(key)
            if existing is None:
                await self._obs.put_async(self._store, key, data, attributes=attributes)
                return True
            return existing == data
        existing = await self._get_or_none(key)
        return existing == data

    async def _get_or_none(self, key: str) -> bytes | None:
        try:
            result = await self._obs.get_async(self._store, key)
            return bytes(await result.bytes_async())
        except FileNotFoundError:
            return None

    # -- reading, async (the proxy) ------------------------------------------------------------

    async def aread_bytes(self, path: str | OffloadRef) -> bytes:
        """The exact stored bytes of an item."""
        rel = _checked(path)
        try:
            result = await self._obs.get_async(self._store, self._key(rel))
            return bytes(await result.bytes_async())
        except Exception as exc:
            raise _read_error(rel, exc) from exc

    async def aread_text(self, path: str | OffloadRef) -> str:
        """An item as text (UTF-8 with ``surrogatepass``: what `offload_tool_result` was given)."""
        return _decode(await self.aread_bytes(path), _checked(path))

    # -- reading, blocking (read-back tools, MCP) ----------------------------------------------

    def items(self) -> list[OffloadRef]:
        """Every item of the owner, oldest first (from a listing: path, kind, size and time of each)."""
        prefix = f"{self.owner}/"
        refs: list[OffloadRef] = []
        kinds = {folder: kind for kind, folder in SUBDIRS.items()}
        try:
            for batch in self._obs.list(self._store, prefix=prefix):
                for meta in batch:
                    rel = str(meta["path"])[len(prefix) :]
                    kind: OffloadKind | None = kinds.get(rel.split("/", 1)[0])
                    if kind is None:
                        continue
                    try:
                        _check_relative(rel)
                    except PathRefusedError:
                        continue
                    refs.append(
                        OffloadRef(
                            path=rel,
                            kind=kind,
                            size=int(meta["size"]),
                            created=meta["last_modified"].astimezone(UTC).isoformat(),
                        )
                    )
        except Exception as exc:
            raise WorkspaceError(f"cannot list workspace {self.root.url}/{self.owner}: {_reason(exc)}") from exc
        refs.sort(key=lambda r: (r.created, r.path))
        return refs

    def find(self, path: str) -> OffloadRef | None:
        """The index record of an item (with its call, tool, media type), or None."""
        rel = _checked(path)
        try:
            result = self._obs.get(self._store, self._key(f"{INDEX_DIR}/{rel}.json"))
            record = json.loads(bytes(result.bytes()))
            return OffloadRef.from_dict(record)
        except FileNotFoundError:
            return None
        except ValueError:
            return None
        except Exception as exc:
            raise WorkspaceError(f"cannot read the index of {rel}: {_reason(exc)}") from exc

    def read_bytes(self, path: str | OffloadRef) -> bytes:
        """The exact stored bytes of an item."""
        rel = _checked(path)
        try:
            return bytes(self._obs.get(self._store, self._key(rel)).bytes())
        except Exception as exc:
            raise _read_error(rel, exc) from exc

    def open_item(self, path: str | OffloadRef) -> BinaryIO:
        """The item as a binary file object (read whole: items are cut-off tool output and archives)."""
        return io.BytesIO(self.read_bytes(path))

    def read_text(self, path: str | OffloadRef) -> str:
        """An item as text (UTF-8 with ``surrogatepass``)."""
        return _decode(self.read_bytes(path), _checked(path))

    def read_messages(self, path: str | OffloadRef) -> list[Message]:
        """The messages of an archived context item, exactly as they were offloaded."""
        return messages_from_jsonl(self.read_text(path), source=_checked(path))

    def read_data_block(self, path: str | OffloadRef) -> DataBlock:
        """Rebuild the data block an item was offloaded from (its index record gives the media kind and type)."""
        return data_block_of(self, path, _checked(path))

    def resolve(self, path: str | OffloadRef) -> Path:
        """A local copy of the item (objects are immutable: copied once per process into a private folder)."""
        rel = _checked(path)
        if self._cache is None:
            self._cache = Path(tempfile.mkdtemp(prefix="contextfold-objects-"))
        digest = hashlib.sha256(self._key(rel).encode("utf-8")).hexdigest()[:32]
        target = self._cache / digest / rel.rsplit("/", 1)[-1]
        if not target.exists():
            data = self.read_bytes(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(".tmp-" + target.name)
            tmp.write_bytes(data)
            os.replace(tmp, target)
        return target


def _checked(path: str | OffloadRef) -> str:
    rel = path.path if isinstance(path, OffloadRef) else path
    _check_relative(rel)
    return "/".join(p for p in rel.split("/") if p not in ("", "."))


def _decode(data: bytes, rel: str) -> str:
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise WorkspaceError(f"{rel} is not text (binary content)") from exc


def _read_error(rel: str, exc: BaseException) -> WorkspaceError:
    if isinstance(exc, FileNotFoundError):
        return WorkspaceError(f"no item {rel!r} in this workspace")
    return WorkspaceError(f"cannot read {rel!r}: {_reason(exc)}")


def _reason(exc: BaseException) -> str:
    """The first line of a store error (obstore's messages carry a long debug trailer)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:300]}" if first else type(exc).__name__
