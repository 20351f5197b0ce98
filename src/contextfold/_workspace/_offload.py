"""The `Offloader` protocol and the `OffloadRef` it returns.

Offloading moves content out of the context into the workspace and leaves a
pointer the model can act on. The protocol is what compaction and tool-result
splitting code against; `LocalWorkspace` is the default implementation. The
reference is plain data so it can live in an index, in a summary and in a
reminder text without dragging the workspace along.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, cast, runtime_checkable

from contextfold._messages import DataBlock, Message

__all__ = ["OFFLOAD_KINDS", "OffloadKind", "OffloadRef", "Offloader"]

OffloadKind: TypeAlias = Literal["media", "context", "tool_result"]
OFFLOAD_KINDS: tuple[OffloadKind, ...] = ("media", "context", "tool_result")


@dataclass(frozen=True, slots=True, kw_only=True)
class OffloadRef:
    """Where one offloaded item lives in the workspace and what it holds."""

    path: str
    """Workspace-relative POSIX path of the stored file (what read-back tools take); content-addressed (`_naming`)."""
    kind: OffloadKind
    """``media`` (a data block), ``context`` (archived messages, JSONL) or ``tool_result`` (a split result's text)."""
    size: int
    """Size of the stored file in bytes."""
    created: str
    """When it was offloaded, ISO 8601 UTC (``2025-01-31T12:00:00.123456+00:00``); the time is never in the path."""
    message_range: tuple[int, int] | None = None
    """For archived context: the half-open range of message indices it held in the session."""
    tool_name: str | None = None
    """For a tool result: the tool that produced it."""
    call_id: str | None = None
    """For a tool result: the id of the call it answers."""
    media_type: str | None = None
    """MIME type of stored media (``application/jsonl`` for archives, ``text/plain`` for tool results)."""
    media: str | None = None
    """For media: ``image``, ``audio`` or ``document`` (needed to rebuild the data block)."""

    def describe(self) -> str:
        """One line the model can act on: what the item is and the path to read it from."""
        match self.kind:
            case "tool_result":
                who = f"tool {self.tool_name!r}" if self.tool_name else "a tool"
                call = f" (call {self.call_id})" if self.call_id else ""
                what = f"Output of {who}{call}"
            case "context":
                if self.message_range is not None:
                    what = f"Archived messages {self.message_range[0]}-{self.message_range[1] - 1}"
                else:
                    what = "Archived messages"
            case "media":
                what = f"{(self.media or 'media').capitalize()} ({self.media_type or 'unknown type'})"
        return f"{what}, {self.size} bytes, saved to workspace file {self.path}"

    def to_dict(self) -> dict[str, Any]:
        """The index record of this reference (JSON values only)."""
        return {
            "path": self.path,
            "kind": self.kind,
            "size": self.size,
            "created": self.created,
            "message_range": list(self.message_range) if self.message_range is not None else None,
            "tool_name": self.tool_name,
            "call_id": self.call_id,
            "media_type": self.media_type,
            "media": self.media,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> OffloadRef:
        """Rebuild a reference from an index record; raises ``ValueError`` when it does not validate."""
        path, kind, size, created = d.get("path"), d.get("kind"), d.get("size"), d.get("created")
        if not isinstance(path, str) or not path:
            raise ValueError("index record without a path")
        if kind not in OFFLOAD_KINDS:
            raise ValueError(f"index record with unknown kind {kind!r}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError("index record with a bad size")
        if not isinstance(created, str):
            raise ValueError("index record without a created time")
        rng = d.get("message_range")
        message_range: tuple[int, int] | None = None
        if rng is not None:
            if not (isinstance(rng, list) and len(rng) == 2 and all(isinstance(x, int) for x in rng)):
                raise ValueError("index record with a bad message_range")
            message_range = (rng[0], rng[1])
        optional: dict[str, str | None] = {}
        for key in ("tool_name", "call_id", "media_type", "media"):
            value = d.get(key)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"index record with a bad {key}")
            optional[key] = value
        return cls(
            path=path,
            kind=cast(OffloadKind, kind),
            size=size,
            created=created,
            message_range=message_range,
            **optional,
        )


@runtime_checkable
class Offloader(Protocol):
    """Stores content outside the context and returns a reference to it.

    Every method either returns a reference to content that is completely
    written, or raises `WorkspaceError` and stores nothing visible: callers
    drop content from the context only after the reference came back.
    Paths should follow the naming rule of `contextfold._workspace._naming`
    (content-addressed), so that the same input gives the same prompt; the
    tool-result split plans its notice with those names before writing.
    """

    async def offload_data(self, block: DataBlock) -> OffloadRef:
        """Store a media block; the block can be rebuilt exactly from the reference."""
        ...

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        """Archive a stretch of messages (being compacted) as canonical JSONL."""
        ...

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        """Store a tool result's text (the split stores the whole text; the notice says where the cut fell)."""
        ...
