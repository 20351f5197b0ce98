"""Transcript files: read any accepted document into canonical messages, write it back in kind.

Accepted documents: a JSON list of messages; a JSON object with ``messages``
(and optional ``tools``, ``system``, other keys kept in ``extra``); JSONL with
one message per line; JSONL with one conversation object per line. The
provider format is detected per document. Every failure is an `InputError`
whose one-line message names the file and where (line and column, byte
offset, message index), because users meet these errors on the command line.
Writing gives back the same kind of document, atomically.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from contextfold._errors import InputError, UnknownFormatError
from contextfold._formats import ProviderName, detect_format, render, to_canonical, tools_from
from contextfold._formats._common import type_name
from contextfold._formats._files import (
    DEFAULT_MAX_INPUT_BYTES,
    STDIN,
    decode_utf8,
    escape_surrogates,
    read_input,
    write_bytes_atomic,
)
from contextfold._messages import Message, ToolSpec

__all__ = [
    "Shape",
    "Transcript",
    "dump_transcripts",
    "load_transcript",
    "load_transcripts",
    "parse_transcripts",
    "read_transcript_bytes",
    "transcripts_from_bytes",
    "write_text_atomic",
]

Shape: TypeAlias = Literal["list", "object", "jsonl", "jsonl-conversations"]
_JSONL_SUFFIXES = (".jsonl", ".ndjson")


@dataclass(frozen=True, kw_only=True)
class Transcript:
    """One conversation read from a file, with what is needed to write it back faithfully."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    format: ProviderName
    """The provider format the document was written in."""
    shape: Shape
    """The kind of document it came from; `dump_transcripts` writes the same kind."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Other top-level keys of an object document (id, source, license, ...), in order."""
    source: str | None = None
    """The file name, for error messages and reports."""
    index: int | None = None
    """0-based conversation index within a multi-conversation file."""
    tools_present: bool = False
    """Whether the document had a ``tools`` key (null included)."""
    tools_null: bool = False
    """Whether that ``tools`` key was null (written back as null while there are no tools)."""
    indent: int | None = None
    """Indentation of a pretty-printed JSON document (None: one line)."""
    keys: tuple[str, ...] = ()
    """Top-level key order of an object document, so writing back keeps it."""

    @property
    def id(self) -> str | None:
        """The conversation's ``id`` key, when the document has one."""
        value = self.extra.get("id")
        return value if isinstance(value, str) else None

    def replace(self, **changes: Any) -> Transcript:
        """A copy with some fields changed (e.g. compacted ``messages``)."""
        return dataclasses.replace(self, **changes)


# ---------------------------------------------------------------------------------------------- reading


def load_transcripts(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> list[Transcript]:
    """Read every conversation in a transcript file (gzip-compressed too; ``-`` reads standard input).

    Raises `InputError` for bytes that are not UTF-8 (with byte offset and
    line), an empty file, malformed JSON or JSONL, or a document that is not a
    transcript, or a file that cannot be read (missing, no permission; the
    `OSError` is kept as ``__cause__``), is not a regular file (a FIFO, a
    device, a directory), or holds (or decompresses to) more than
    ``max_bytes``. See `contextfold._formats._files.read_input`.
    """
    return transcripts_from_bytes(read_transcript_bytes(path, max_bytes=max_bytes), source=_source(path))


def read_transcript_bytes(
    path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_INPUT_BYTES, limit_name: str = "max_bytes"
) -> bytes | bytearray:
    """The bytes of a transcript file, bounded, gzip decompressed: how every reader of transcripts reads one."""
    return read_input(path, max_bytes=max_bytes, decompress=True, limit_name=limit_name)


def transcripts_from_bytes(data: bytes | bytearray, *, source: str) -> list[Transcript]:
    """Parse the (decompressed) bytes of a transcript file; bytes that are not UTF-8 are an `InputError`."""
    return parse_transcripts(decode_utf8(data, source=source), source=source)


def _source(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path)
    return "<stdin>" if name == STDIN else name


def load_transcript(path: str | os.PathLike[str], *, conversation: int | str | None = None) -> Transcript:
    """Read one conversation: by 0-based index, by its ``id``, or the only one in the file."""
    transcripts = load_transcripts(path)
    return pick_conversation(transcripts, conversation, source=_source(path))


def pick_conversation(transcripts: Sequence[Transcript], conversation: int | str | None, *, source: str) -> Transcript:
    """Choose one conversation from a parsed file (see `load_transcript`)."""
    n = len(transcripts)
    if conversation is None:
        if n == 1:
            return transcripts[0]
        example = next((t.id for t in transcripts if t.id is not None), None)
        how = f"an index 0..{n - 1}" + (f" or an id such as {example!r}" if example else "")
        raise InputError(f"the file holds {n} conversations; choose one with {how}", source=source)
    if isinstance(conversation, str):
        for t in transcripts:
            if t.id == conversation:
                return t
        if not conversation.isdigit():
            raise InputError(f"no conversation with id {conversation!r} among {n}", source=source)
        conversation = int(conversation)
    if not 0 <= conversation < n:
        raise InputError(f"conversation {conversation} does not exist; the file holds {n} (0..{n - 1})", source=source)
    return transcripts[conversation]


def parse_transcripts(text: str, *, source: str = "<input>") -> list[Transcript]:
    """Parse the text of a transcript file (see the module docstring for the accepted documents)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise InputError("the file is empty; expected a JSON or JSONL transcript", source=source)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" or _first_line_parses(text):
            return _parse_jsonl(text, source)
        raise InputError(f"invalid JSON: {exc.msg}", source=source, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply to read", source=source) from None
    jsonl = source.endswith(_JSONL_SUFFIXES)
    if isinstance(doc, list):
        return [_build(doc, "list", source, None, _indent(text))]
    if isinstance(doc, Mapping) and jsonl:
        if "messages" in doc:
            return [_build(doc, "jsonl-conversations", source, 0, None, line=1)]
        if "role" in doc:
            return [_build([doc], "jsonl", source, None, None, lines=[1])]
    return [_build(doc, "object", source, None, _indent(text))]


def _first_line_parses(text: str) -> bool:
    first, sep, rest = text.lstrip().partition("\n")
    if not sep or not rest.strip():
        return False
    try:
        return isinstance(json.loads(first), Mapping)
    except (ValueError, RecursionError):
        return False


def _indent(text: str) -> int | None:
    body = text.strip()
    nl = body.find("\n")
    if nl < 0:
        return None
    line = body[nl + 1 :]
    return len(line) - len(line.lstrip(" ")) or None


def _parse_jsonl(text: str, source: str) -> list[Transcript]:
    records: list[tuple[int, Any]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            records.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON line: {exc.msg}", source=source, line=lineno, column=exc.colno) from None
        except RecursionError:
            raise InputError("invalid JSON line: nested too deeply to read", source=source, line=lineno) from None
    first_line, first = records[0]
    conversations = isinstance(first, Mapping) and "messages" in first
    if not conversations and not (isinstance(first, Mapping) and "role" in first):
        raise UnknownFormatError(
            f"not a transcript: a JSONL line must be a message (with 'role') or a conversation "
            f"(with 'messages'), found {_describe(first)}",
            source=source,
            line=first_line,
        )
    expected = "a conversation object with 'messages'" if conversations else "a message object with 'role'"
    for lineno, record in records:
        ok = isinstance(record, Mapping) and (("messages" in record) if conversations else ("role" in record))
        if not ok:
            raise UnknownFormatError(
                f"expected {expected} like line {first_line}, found {_describe(record)}", source=source, line=lineno
            )
    if conversations:
        return [
            _build(record, "jsonl-conversations", source, n, None, line=lineno)
            for n, (lineno, record) in enumerate(records)
        ]
    return [_build([r for _, r in records], "jsonl", source, None, None, lines=[n for n, _ in records])]


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k) for k in list(value)[:4])
        return f"an object with keys {keys}" if keys else "an empty object"
    return type_name(value)


def _build(
    doc: Any,
    shape: Shape,
    source: str,
    index: int | None,
    indent: int | None,
    *,
    line: int | None = None,
    lines: list[int] | None = None,
) -> Transcript:
    try:
        fmt = detect_format(doc)
        if isinstance(doc, list):
            return Transcript(
                messages=tuple(to_canonical(doc, fmt)),
                format=fmt,
                shape=shape,
                source=source,
                index=index,
                indent=indent,
            )
        system = doc.get("system") if fmt == "anthropic" else None
        skip = {"messages", "tools"} if system is None else {"messages", "tools", "system"}
        extra = {k: v for k, v in doc.items() if k not in skip}
        tools_raw = doc.get("tools")
        return Transcript(
            messages=tuple(to_canonical(doc["messages"], fmt, system)),
            tools=tuple(tools_from(tools_raw, fmt)),
            format=fmt,
            shape=shape,
            extra=extra,
            source=source,
            index=index,
            tools_present="tools" in doc,
            tools_null="tools" in doc and tools_raw is None,
            indent=indent,
            keys=tuple(doc),
        )
    except InputError as exc:
        where = line
        if lines is not None and exc.message_index is not None and exc.message_index < len(lines):
            where = lines[exc.message_index]
        err = type(exc)(
            exc.reason,
            source=source,
            line=where if where is not None else exc.line,
            column=None if where is not None else exc.column,
            message_index=exc.message_index,
        )
        raise err from exc


# ---------------------------------------------------------------------------------------------- writing


def transcript_document(transcript: Transcript) -> Any:
    """The JSON value (list or object) of one transcript, rendered in its provider format."""
    body = render(transcript.messages, transcript.format, transcript.tools)
    if transcript.shape in ("list", "jsonl") and "system" not in body:
        return body["messages"]
    doc: dict[str, Any] = dict(transcript.extra)
    if "system" in body:
        doc["system"] = body["system"]
    if transcript.tools_present or transcript.tools:
        doc["tools"] = None if transcript.tools_null and not transcript.tools else body.get("tools", [])
    doc["messages"] = body["messages"]
    if transcript.keys and tuple(doc) != transcript.keys:
        ordered = {k: doc[k] for k in transcript.keys if k in doc}
        ordered.update(doc)
        return ordered
    return doc


def dump_transcripts(transcripts: Sequence[Transcript]) -> str:
    """Serialize transcripts as the same kind of document they were read from.

    A list stays a list, an object an object (same indentation), JSONL one
    message per line stays that, and one conversation per line stays that.
    Several transcripts of another shape are written one conversation a line.
    An Anthropic transcript with a system prompt cannot be a bare list: it is
    written as an object.
    """
    if not transcripts:
        return ""
    if len(transcripts) > 1 or transcripts[0].shape == "jsonl-conversations":
        return "".join(_line(_as_object(transcript_document(t))) for t in transcripts)
    t = transcripts[0]
    doc = transcript_document(t)
    if t.shape == "jsonl" and isinstance(doc, list):
        return "".join(_line(m) for m in doc)
    return escape_surrogates(json.dumps(doc, ensure_ascii=False, indent=t.indent)) + "\n"


def _as_object(doc: Any) -> Any:
    return {"messages": doc} if isinstance(doc, list) else doc


def _line(value: Any) -> str:
    return escape_surrogates(json.dumps(value, ensure_ascii=False)) + "\n"


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) so that readers see the old file or the new one, never half of it.

    A temporary file in the same directory is written, fsynced and renamed over
    the target; an existing file keeps its permission bits, a new one gets
    0o644. A target that is not a regular file (a symlink, FIFO, device) is
    refused (`InputError`); see `contextfold._formats._files.OutputFile`.
    """
    write_bytes_atomic(path, text.encode("utf-8"))
