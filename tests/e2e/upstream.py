"""Scripted upstream servers for the end-to-end tests: a fake Anthropic Messages API and OpenAI Responses API.

One real HTTP server on 127.0.0.1 (a random port, a thread of the test process) speaks both:

- ``POST /v1/messages`` (Claude Code sends ``?beta=true``): SSE exactly as the real API emits it
  (``message_start``, ``ping``, ``content_block_start`` / ``content_block_delta`` (``thinking_delta``,
  ``signature_delta``, ``text_delta``, ``input_json_delta``) / ``content_block_stop``, ``message_delta`` with
  ``usage`` and ``stop_reason``, ``message_stop``), chunked over a keep-alive connection, or one JSON message;
- ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``;
- ``POST /v1/responses``: SSE (``response.created``, ``response.in_progress``, ``response.output_item.added``,
  ``response.reasoning_summary_*``, ``response.function_call_arguments.delta``/``.done``,
  ``response.content_part.*``, ``response.output_text.*``, ``response.output_item.done``,
  ``response.completed`` with ``usage``), or one JSON response; an input ending in a ``compaction_trigger``
  item (Codex's remote compaction v2) gets exactly one ``compaction`` item;
- ``POST /v1/responses/compact``: a ``compaction`` output item;
- ``GET /v1/models`` (both flavours), anything else: 404, recorded.

Every request is recorded byte for byte (`Recorded`: method, path with query, headers in the order and case
received, body bytes), also the ones answered with an error, so retries are visible.

What to answer is decided by a `ShellScript`: the *main* conversation (the request that offers the client's
shell tool and carries the script's task marker) is asked, turn after turn, to run the script's commands
through the client's own shell tool (Claude Code ``Bash``, Codex ``exec_command`` or ``shell``), one per turn
or two in parallel, with now and then a Codex ``apply_patch`` (a ``custom_tool_call``), then gets a final
text. The script advances when the results of the outstanding calls come back, so a retried or resent request
gets the same calls again. Everything else (title or summary side requests, the client's own
compaction requests, sub-agents) gets a short text answer, or a summary for a compaction request, so the client
proceeds. ``usage`` reports an estimate of the request's real size, so clients decide their own compaction as
they would against the real API. ``ShellScript.errors`` serves scripted failures once per turn: any HTTP status,
`RESET` (the connection closes unanswered) or `TOO_LONG` (the provider's context-overflow 400).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "CLAUDE_SHELL_TOOLS",
    "CODEX_SHELL_TOOLS",
    "RESET",
    "TOO_LONG",
    "Call",
    "Recorded",
    "ShellScript",
    "Upstream",
    "large_output_commands",
]

Kind = Literal[
    "messages",
    "count_tokens",
    "responses",
    "responses_compact",
    "models",
    "other",
]
Role = Literal["main", "side", "compact", "none"]

# A scripted "status" that closes the connection without an answer (a connection reset as the client sees it).
RESET = 0
# A scripted "status" answered as the provider's context-overflow error (HTTP 400: Anthropic "prompt is too long",
# OpenAI ``context_length_exceeded``).
TOO_LONG = 1

CLAUDE_SHELL_TOOLS = ("Bash",)
CODEX_SHELL_TOOLS = ("exec_command", "shell", "local_shell", "shell_command")

# What the clients' own compaction requests say (Claude Code's /compact and auto-compact prompt; Codex's local
# summarization prompt); matched on the newest user text. Lower-case fragments.
_COMPACTION_MARKERS = (
    "create a detailed summary of the conversation",
    "your task is to create a detailed summary",
    "summarize the conversation",
    "context checkpoint compaction",
    "handoff summary",
)


def large_output_commands(count: int, lines: int = 1500) -> list[str]:
    """``count`` shell commands with large, distinct, checkable outputs (about 6 KiB each at 1,500 lines).

    Mixed kinds, as an agent would run them: ``seq``, ``python3 -c`` printing records, ``printf`` tables.
    Command ``i`` prints a last line that contains ``END-<i>`` so a check can see the client really ran it.
    """
    commands: list[str] = []
    for i in range(count):
        match i % 3:
            case 0:
                commands.append(f"seq {i * 10} {i * 10 + lines - 1}; echo END-{i}")
            case 1:
                commands.append(
                    f"python3 -c \"for n in range({lines // 2}): print(f'row {{n}} item-{i} value={{n * {i + 7}}}')\"; "
                    f"echo END-{i}"
                )
            case _:
                commands.append(
                    f"for n in $(seq 1 {lines // 3}); do printf 'line %05d of job {i}\\n' $n; done; echo END-{i}"
                )
    return commands


@dataclass(frozen=True)
class Recorded:
    """One request the upstream received, exactly as it arrived."""

    index: int
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    kind: Kind
    role: Role = "none"
    status: int = 200
    step: int | None = None
    received_at: float = 0.0

    @property
    def route(self) -> str:
        """The path without its query string."""
        return self.path.split("?", 1)[0]

    @property
    def query(self) -> str:
        return self.path.split("?", 1)[1] if "?" in self.path else ""

    def header(self, name: str) -> str | None:
        """A header's value, matched case-insensitively (the first if repeated)."""
        low = name.lower()
        for key, value in self.headers:
            if key.lower() == low:
                return value
        return None

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass(frozen=True)
class Call:
    """One tool call of a scripted turn: a shell command (``command`` indexes the script's) or a patch."""

    call_id: str
    kind: Literal["shell", "patch", "agent"]
    command: int
    text: str


@dataclass
class _Pending:
    turn: int
    calls: list[Call]
    issued: int = 1


def _patch(turn: int) -> str:
    return f"*** Begin Patch\n*** Add File: e2e-notes-{turn}.txt\n+notes of turn {turn}\n+E2E-PATCH\n*** End Patch\n"


@dataclass
class ShellScript:
    """The conversation the upstream plays: run ``commands`` through the client's shell tool, then finish.

    One model turn asks for one command, or for two in parallel every ``parallel_every``-th turn; every
    ``patch_every``-th turn asks for a patch instead where the client offers Codex's freeform ``apply_patch`` tool
    (a ``custom_tool_call``), every ``subagent_every``-th turn for a sub-agent where it offers Claude Code's
    ``Agent`` tool (the sub-agent's own requests are side requests here). ``marker`` must appear in the task
    prompt: it tells the main conversation from side requests (titles, sub-agents); after a client-side
    compaction, the call ids the script handed out do.
    ``thinking_every``: every n-th turn also carries a thinking block (Anthropic, with a signature) or a
    reasoning item with ``encrypted_content`` (Responses), which the client must send back untouched.
    ``errors``: turn -> HTTP status (or `RESET`, `TOO_LONG`) served once, the first time that turn is asked.
    """

    commands: Sequence[str]
    final_text: str = "All commands ran. E2E-DONE."
    marker: str = "E2E-TASK"
    thinking_every: int = 0
    parallel_every: int = 0
    patch_every: int = 0
    subagent_every: int = 0
    errors: Mapping[int, int] = field(default_factory=dict)
    observed: dict[int, str] = field(default_factory=dict)
    patches: dict[int, str] = field(default_factory=dict)
    subagents: dict[int, str] = field(default_factory=dict)
    finished: bool = False
    turns: int = 0
    _next_command: int = 0
    _pending: _Pending | None = None
    _errors_served: set[int] = field(default_factory=set)
    _issued: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def issued_ids(self) -> set[str]:
        """Every call id the script has handed out (to recognize the main conversation after a compaction)."""
        with self._lock:
            return set(self._issued)

    @property
    def steps_done(self) -> int:
        """How many commands came back with a result."""
        return len(self.observed)

    def observe(self, results: Mapping[str, str]) -> None:
        """Take the pending turn's results from ``results`` (call id -> result text) when all of them are there.

        Called for every request that carries tool results, the client's own compaction requests included (a
        client may run a call and compact before it sends the result on).
        """
        with self._lock:
            pending = self._pending
            if pending is None or not all(c.call_id in results for c in pending.calls):
                return
            for call in pending.calls:
                if call.kind == "shell":
                    self.observed[call.command] = results[call.call_id]
                elif call.kind == "patch":
                    self.patches[pending.turn] = results[call.call_id]
                else:
                    self.subagents[pending.turn] = results[call.call_id]
            self._pending = None
            self.turns += 1

    def next_turn(
        self,
        results: Mapping[str, str],
        history_ids: set[str],
        *,
        can_patch: bool = False,
        can_delegate: bool = False,
    ) -> tuple[Literal["calls", "final", "error"], int, list[Call]]:
        """Decide the next main-conversation turn from the tool calls and results present in the request.

        ``results``: call id -> result text of every tool result in the request; ``history_ids``: the call ids
        of the calls present in it. Returns (``"calls"``, turn, calls), (``"final"``, turn, []) or
        (``"error"``, status, []).
        """
        self.observe(results)
        with self._lock:
            pending = self._pending
            if pending is None:
                turn = self.turns
                if self._next_command >= len(self.commands):
                    self.finished = True
                    return "final", turn, []
                status = self.errors.get(turn)
                if status is not None and turn not in self._errors_served:
                    self._errors_served.add(turn)
                    return "error", status, []
                pending = self._pending = _Pending(turn, self._plan(turn, can_patch, can_delegate))
            elif all(c.call_id in history_ids for c in pending.calls):
                pass  # a retry, or a client resending its history: the same calls again
            else:
                # The calls vanished from the history (a client-side compaction dropped them): ask again, new ids.
                pending.issued += 1
                pending.calls = [
                    Call(_call_id(pending.turn, i, pending.issued - 1), c.kind, c.command, c.text)
                    for i, c in enumerate(pending.calls)
                ]
            self._issued.update(c.call_id for c in pending.calls)
            return "calls", pending.turn, list(pending.calls)

    def _plan(self, turn: int, can_patch: bool, can_delegate: bool) -> list[Call]:
        if can_patch and self.patch_every and turn % self.patch_every == self.patch_every - 1:
            return [Call(_call_id(turn, 0, 0), "patch", -1, _patch(turn))]
        if can_delegate and self.subagent_every and turn % self.subagent_every == self.subagent_every - 1:
            return [Call(_call_id(turn, 0, 0), "agent", -1, f"E2E-SUB {turn}: answer in one line.")]
        width = 2 if self.parallel_every and turn % self.parallel_every == self.parallel_every - 1 else 1
        calls: list[Call] = []
        for i in range(min(width, len(self.commands) - self._next_command)):
            calls.append(Call(_call_id(turn, i, 0), "shell", self._next_command, self.commands[self._next_command]))
            self._next_command += 1
        return calls


def _call_id(turn: int, index: int, reissue: int) -> str:
    suffix = f"r{reissue}" if reissue else ""
    return f"e2e{turn:03d}{'abcdefgh'[index]}{suffix}"


# --------------------------------------------------------------------------------------------------------------
# The server


class Upstream:
    """The scripted upstream; a context manager serving on a random 127.0.0.1 port until exit."""

    def __init__(self, script: ShellScript, *, tokens: Callable[[bytes], int] | None = None) -> None:
        self.script = script
        self.requests: list[Recorded] = []
        self._tokens = tokens or (lambda body: max(1, len(body) // 4))
        self._lock = threading.Lock()
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Upstream:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="e2e-upstream", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._httpd = None

    def __enter__(self) -> Upstream:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the upstream is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def recorded(self, kind: Kind | None = None, role: Role | None = None) -> list[Recorded]:
        """Requests received so far, oldest first, optionally of one kind and role."""
        with self._lock:
            items = list(self.requests)
        return [r for r in items if (kind is None or r.kind == kind) and (role is None or r.role == role)]

    # -- used by the handler ----------------------------------------------------------------------------------

    def _record(self, request: Recorded) -> Recorded:
        with self._lock:
            request = _replace(request, index=len(self.requests))
            self.requests.append(request)
            return request

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            self._counter += 1
            return f"{prefix}{self._counter:04d}"


def _replace(request: Recorded, **changes: Any) -> Recorded:
    fields = {name: getattr(request, name) for name in Recorded.__dataclass_fields__}
    fields.update(changes)
    return Recorded(**fields)


def _decode_body(raw: bytes, encoding: str | None) -> bytes:
    if not encoding or encoding == "identity":
        return raw
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    raise ValueError(f"unsupported content-encoding {encoding!r}")


def _make_handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 120
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def _read_body(self) -> bytes:
            if (self.headers.get("transfer-encoding") or "").lower() == "chunked":
                parts: list[bytes] = []
                while True:
                    size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                return b"".join(parts)
            return self.rfile.read(int(self.headers.get("content-length") or 0))

        def _base(self, body: bytes, kind: Kind) -> Recorded:
            return Recorded(
                index=-1,
                method=self.command,
                path=self.path,
                headers=tuple(self.headers.items()),
                body=body,
                kind=kind,
                received_at=time.time(),
            )

        def do_GET(self) -> None:
            route = self.path.split("?", 1)[0]
            if route.rstrip("/").endswith("/models"):
                upstream._record(self._base(b"", "models"))
                self._send_json(200, _models_payload())
                return
            # Codex's built-in OpenAI provider first tries a WebSocket upgrade of GET /v1/responses; a 404 makes it
            # fall back to HTTP POST (after its retries).
            upstream._record(_replace(self._base(b"", "other"), status=404))
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": route}})

        def do_HEAD(self) -> None:
            upstream._record(self._base(b"", "other"))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            raw = self._read_body()
            route = self.path.split("?", 1)[0]
            kind: Kind
            if route.endswith("/messages/count_tokens"):
                kind = "count_tokens"
            elif route.endswith("/messages"):
                kind = "messages"
            elif route.endswith("/responses/compact"):
                kind = "responses_compact"
            elif route.endswith("/responses"):
                kind = "responses"
            else:
                kind = "other"
            try:
                body_bytes = _decode_body(raw, self.headers.get("content-encoding"))
                body = json.loads(body_bytes)
            except ValueError as exc:
                upstream._record(_replace(self._base(raw, kind), status=400))
                self._send_json(400, _error_payload(kind, 400, f"invalid request body: {exc}"))
                return
            base = self._base(body_bytes, kind)
            if kind == "other" or not isinstance(body, dict):
                upstream._record(_replace(base, status=404))
                self._send_json(404, _error_payload(kind, 404, f"no route for {route}"))
                return
            if kind == "count_tokens":
                upstream._record(base)
                self._send_json(200, {"input_tokens": upstream._tokens(body_bytes)})
                return
            if kind == "responses_compact":
                upstream._record(_replace(base, role="compact"))
                self._send_json(200, _responses_compact_payload(upstream, body))
                return
            if kind == "messages":
                turn = _anthropic_turn(upstream, body, body_bytes)
            else:
                turn = _responses_turn(upstream, body, body_bytes)
            status = 400 if turn.status == TOO_LONG else turn.status
            upstream._record(_replace(base, role=turn.role, status=status, step=turn.step))
            if turn.status == RESET:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if turn.status == TOO_LONG:
                self._send_json(400, _too_long_payload(kind, upstream._tokens(body_bytes)))
                return
            if turn.status != 200:
                self._send_json(turn.status, _error_payload(kind, turn.status, "scripted error"), _RETRY_FAST)
                return
            if body.get("stream"):
                self._send_sse(turn.events())
            else:
                self._send_json(200, turn.json())

        def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", upstream._next_id("req_"))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_sse(self, events: Iterator[tuple[str, dict[str, Any]]]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.send_header("request-id", upstream._next_id("req_"))
            self.end_headers()
            for name, data in events:
                frame = f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
                self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


_RETRY_FAST = {"retry-after-ms": "10", "retry-after": "0"}


def _error_payload(kind: Kind, status: int, message: str) -> dict[str, Any]:
    if kind in ("messages", "count_tokens"):
        types = {400: "invalid_request_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}
        return {"type": "error", "error": {"type": types.get(status, "api_error"), "message": message}}
    code = {429: "rate_limit_exceeded", 500: "server_error"}.get(status)
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error" if status < 500 else "server_error",
            "param": None,
            "code": code,
        }
    }


def _too_long_payload(kind: Kind, tokens: int) -> dict[str, Any]:
    if kind == "messages":
        message = f"prompt is too long: {tokens} tokens > 200000 maximum"
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    message = (
        f"Your input exceeds the context window of this model. ({tokens} tokens requested; please reduce the length "
        "of the input.)"
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    }


def _models_payload() -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {
                "id": "e2e-model",
                "object": "model",
                "created": 1_700_000_000,
                "owned_by": "e2e",
                "type": "model",
                "display_name": "E2E model",
                "created_at": "2025-01-01T00:00:00Z",
            }
        ],
        "has_more": False,
        "first_id": "e2e-model",
        "last_id": "e2e-model",
    }


# --------------------------------------------------------------------------------------------------------------
# One scripted turn, rendered per wire format


@dataclass
class _Turn:
    role: Role
    status: int = 200
    step: int | None = None
    events: Callable[[], Iterator[tuple[str, dict[str, Any]]]] = lambda: iter(())
    json: Callable[[], dict[str, Any]] = dict


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                out.append(block["text"])
    return out


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_texts(content))
    return json.dumps(content)


# The first user turn after Claude Code compacted its history.
_CONTINUED = "This session is being continued from a previous conversation"


def _anthropic_results(messages: Sequence[Any]) -> tuple[dict[str, str], set[str]]:
    """Call id (without ``toolu_``) -> result text of every tool result, and the ids of every tool use."""
    results: dict[str, str] = {}
    ids: set[str] = set()
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                results[str(block.get("tool_use_id")).removeprefix("toolu_")] = _result_text(block.get("content"))
            elif block.get("type") == "tool_use":
                ids.add(str(block.get("id")).removeprefix("toolu_"))
    return results, ids


def _is_compaction_prompt(text: str) -> bool:
    low = text.lower()
    return any(marker in low for marker in _COMPACTION_MARKERS)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _signature(text: str) -> str:
    return "sig-e2e-" + hashlib.sha256(text.encode()).hexdigest()[:48]


def _summary_text(body_bytes: bytes) -> str:
    return (
        "<summary>\nThe user asked to run a series of shell commands with large outputs (task E2E). "
        f"Commands so far ran and printed numbered lines. Request digest {hashlib.sha256(body_bytes).hexdigest()[:12]}."
        "\n</summary>"
    )


def _anthropic_turn(upstream: Upstream, body: dict[str, Any], body_bytes: bytes) -> _Turn:
    script = upstream.script
    messages = body.get("messages") or []
    tools = {t.get("name") for t in body.get("tools") or () if isinstance(t, dict)}
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    last_texts = _texts(last_user.get("content")) if last_user else []
    first_user_texts = [t for m in messages if m.get("role") == "user" for t in _texts(m.get("content"))]
    has_marker = any(script.marker in t for t in first_user_texts)
    continued = any(_CONTINUED in t for t in first_user_texts)
    model = str(body.get("model") or "e2e-model")
    input_tokens = upstream._tokens(body_bytes)
    blocks: list[dict[str, Any]]
    results, ids = _anthropic_results(messages)
    if any(_is_compaction_prompt(t) for t in last_texts):
        role: Role = "compact"
        script.observe(results)
        blocks = [{"type": "text", "text": _summary_text(body_bytes)}]
        stop = "end_turn"
        step = None
    elif (has_marker or ids & script.issued_ids() or continued) and tools & set(CLAUDE_SHELL_TOOLS):
        role = "main"
        action, turn_or_status, calls = script.next_turn(results, ids, can_delegate="Agent" in tools)
        if action == "error":
            return _Turn("main", status=turn_or_status)
        blocks = []
        step = turn_or_status if action == "calls" else None
        if action == "final":
            blocks.append({"type": "text", "text": script.final_text})
            stop = "end_turn"
        else:
            if script.thinking_every and step % script.thinking_every == 0:
                thought = f"Turn {step}: run the next command of the task."
                blocks.append({"type": "thinking", "thinking": thought, "signature": _signature(thought)})
            numbers = " and ".join(str(c.command + 1) for c in calls if c.kind == "shell") or "none"
            blocks.append({"type": "text", "text": f"Running command {numbers} of {len(script.commands)}."})
            shell = next(name for name in CLAUDE_SHELL_TOOLS if name in tools)
            for call in calls:
                if call.kind == "agent":  # Claude Code runs a sub-agent: its requests reach us as side requests
                    arguments: dict[str, Any] = {
                        "description": "E2E sub-agent",
                        "prompt": call.text,
                        "subagent_type": "general-purpose",
                        "run_in_background": False,
                    }
                    blocks.append(
                        {"type": "tool_use", "id": f"toolu_{call.call_id}", "name": "Agent", "input": arguments}
                    )
                    continue
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{call.call_id}",
                        "name": shell,
                        "input": {"command": call.text, "description": f"E2E command {call.command}"},
                    }
                )
            stop = "tool_use"
    else:
        role = "side"
        step = None
        blocks = [{"type": "text", "text": _side_text(body)}]
        stop = "end_turn"
    msg_id = upstream._next_id("msg_e2e_")
    output_tokens = max(1, len(json.dumps(blocks)) // 4)
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    }

    def as_json() -> dict[str, Any]:
        return {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def events() -> Iterator[tuple[str, dict[str, Any]]]:
        start = {**as_json(), "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        yield "message_start", {"type": "message_start", "message": start}
        yield "ping", {"type": "ping"}
        for index, block in enumerate(blocks):
            kind = block["type"]
            if kind == "thinking":
                head = {"type": "thinking", "thinking": "", "signature": ""}
                yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": head}
                for piece in _chunks(block["thinking"], 24):
                    delta = {"type": "thinking_delta", "thinking": piece}
                    yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
                delta = {"type": "signature_delta", "signature": block["signature"]}
                yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            elif kind == "text":
                head = {"type": "text", "text": ""}
                yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": head}
                for piece in _chunks(block["text"], 24):
                    delta = {"type": "text_delta", "text": piece}
                    yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            else:
                empty: dict[str, Any] = {**block, "input": {}}
                yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
                raw = json.dumps(block["input"], separators=(",", ":"))
                for piece in ["", *_chunks(raw, 40)]:
                    delta = {"type": "input_json_delta", "partial_json": piece}
                    yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
        delta_usage = {**usage}
        yield (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": delta_usage},
        )
        yield "message_stop", {"type": "message_stop"}

    return _Turn(role, step=step, events=events, json=as_json)


def _side_text(body: dict[str, Any]) -> str:
    """A side request's answer: JSON when the request asks for JSON (title generators do), else a short text."""
    blob = json.dumps(body.get("system") or body.get("instructions") or "") + json.dumps(
        body.get("output_format") or ""
    )
    if '"json_schema"' in blob or ("json" in blob.lower() and "title" in blob.lower()):
        return json.dumps({"title": "E2E shell session", "isNewTopic": True})
    return "E2E side answer."


def _responses_turn(upstream: Upstream, body: dict[str, Any], body_bytes: bytes) -> _Turn:
    script = upstream.script
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": items}]}]
    tools: set[str] = set()
    for tool in body.get("tools") or ():
        if isinstance(tool, dict):
            tools.add(str(tool.get("name") or tool.get("type")))
    user_texts = [
        t for it in items if isinstance(it, dict) and it.get("role") == "user" for t in _texts(it.get("content"))
    ]
    # Codex's local compaction request ends in a user message with its compaction prompt (only there).
    tail = items[-1] if items and isinstance(items[-1], dict) else {}
    last_user = " ".join(_texts(tail.get("content"))) if tail.get("role") == "user" else ""
    has_marker = any(script.marker in t for t in user_texts)
    model = str(body.get("model") or "e2e-model")
    input_tokens = upstream._tokens(body_bytes)
    output: list[dict[str, Any]] = []
    step: int | None = None
    last_item = items[-1] if items and isinstance(items[-1], dict) else {}
    if last_item.get("type") == "compaction_trigger":
        # Codex's remote compaction v2 (built-in OpenAI provider): the answer must hold exactly one compaction item.
        role: Role = "compact"
        script.observe(_responses_results(items)[0])
        output.append(_compaction_item(upstream, body_bytes))
    elif _is_compaction_prompt(last_user):
        role = "compact"
        script.observe(_responses_results(items)[0])
        output.append(_message_item(upstream, _summary_text(body_bytes)))
    elif (has_marker or _responses_results(items)[1] & script.issued_ids()) and tools & set(CODEX_SHELL_TOOLS):
        role = "main"
        results, ids = _responses_results(items)
        can_patch = any(t.get("type") == "custom" and t.get("name") == "apply_patch" for t in _tool_list(body))
        action, turn_or_status, calls = script.next_turn(results, ids, can_patch=can_patch)
        if action == "error":
            return _Turn("main", status=turn_or_status)
        step = turn_or_status if action == "calls" else None
        if action == "final":
            output.append(_message_item(upstream, script.final_text))
        else:
            if script.thinking_every and step % script.thinking_every == 0:
                thought = f"Turn {step}: run the next command of the task."
                output.append(
                    {
                        "id": upstream._next_id("rs_e2e_"),
                        "type": "reasoning",
                        "summary": [{"type": "summary_text", "text": thought}],
                        "encrypted_content": "gAAAAE2E" + hashlib.sha256(thought.encode()).hexdigest() * 4,
                    }
                )
            shell = next(name for name in CODEX_SHELL_TOOLS if name in tools)
            for call in calls:
                if call.kind == "patch":
                    output.append(
                        {
                            "id": upstream._next_id("ctc_e2e_"),
                            "type": "custom_tool_call",
                            "status": "completed",
                            "call_id": f"call_{call.call_id}",
                            "name": "apply_patch",
                            "input": call.text,
                        }
                    )
                    continue
                if shell == "exec_command":
                    arguments: dict[str, Any] = {"cmd": call.text, "yield_time_ms": 30000, "max_output_tokens": 20000}
                elif shell == "shell":
                    arguments = {"command": ["bash", "-lc", call.text], "timeout_ms": 60000}
                else:
                    arguments = {"command": call.text}
                output.append(
                    {
                        "id": upstream._next_id("fc_e2e_"),
                        "type": "function_call",
                        "status": "completed",
                        "arguments": json.dumps(arguments, separators=(",", ":")),
                        "call_id": f"call_{call.call_id}",
                        "name": shell,
                    }
                )
    else:
        role = "side"
        output.append(_message_item(upstream, _side_text(body)))
    resp_id = upstream._next_id("resp_e2e_")
    output_tokens = max(1, len(json.dumps(output)) // 4)
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    created = int(time.time())

    def response(status: str, out: list[dict[str, Any]], with_usage: bool) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": resp_id,
            "object": "response",
            "created_at": created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "model": model,
            "output": out,
            "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
            "previous_response_id": body.get("previous_response_id"),
            "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
            "store": bool(body.get("store", True)),
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": [],
            "usage": usage if with_usage else None,
        }
        return doc

    def as_json() -> dict[str, Any]:
        return response("completed", output, True)

    def events() -> Iterator[tuple[str, dict[str, Any]]]:
        seq = iter(range(1_000_000))

        def ev(name: str, **data: Any) -> tuple[str, dict[str, Any]]:
            return name, {"type": name, "sequence_number": next(seq), **data}

        yield ev("response.created", response=response("in_progress", [], False))
        yield ev("response.in_progress", response=response("in_progress", [], False))
        for index, item in enumerate(output):
            kind = item["type"]
            if kind == "reasoning":
                yield ev("response.output_item.added", output_index=index, item={**item, "summary": []})
                for s_index, part in enumerate(item["summary"]):
                    empty = {"type": "summary_text", "text": ""}
                    yield ev(
                        "response.reasoning_summary_part.added",
                        item_id=item["id"],
                        output_index=index,
                        summary_index=s_index,
                        part=empty,
                    )
                    yield ev(
                        "response.reasoning_summary_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        summary_index=s_index,
                        delta=part["text"],
                    )
                    yield ev(
                        "response.reasoning_summary_text.done",
                        item_id=item["id"],
                        output_index=index,
                        summary_index=s_index,
                        text=part["text"],
                    )
                    yield ev(
                        "response.reasoning_summary_part.done",
                        item_id=item["id"],
                        output_index=index,
                        summary_index=s_index,
                        part=part,
                    )
                yield ev("response.output_item.done", output_index=index, item=item)
            elif kind == "function_call":
                head = {**item, "status": "in_progress", "arguments": ""}
                yield ev("response.output_item.added", output_index=index, item=head)
                for piece in _chunks(item["arguments"], 40):
                    yield ev(
                        "response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=piece
                    )
                yield ev(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=index,
                    arguments=item["arguments"],
                )
                yield ev("response.output_item.done", output_index=index, item=item)
            elif kind == "custom_tool_call":
                head = {**item, "status": "in_progress", "input": ""}
                yield ev("response.output_item.added", output_index=index, item=head)
                for piece in _chunks(item["input"], 40):
                    yield ev(
                        "response.custom_tool_call_input.delta", item_id=item["id"], output_index=index, delta=piece
                    )
                yield ev(
                    "response.custom_tool_call_input.done", item_id=item["id"], output_index=index, input=item["input"]
                )
                yield ev("response.output_item.done", output_index=index, item=item)
            elif kind == "compaction":
                yield ev("response.output_item.added", output_index=index, item=item)
                yield ev("response.output_item.done", output_index=index, item=item)
            else:
                text = item["content"][0]["text"]
                head = {**item, "status": "in_progress", "content": []}
                yield ev("response.output_item.added", output_index=index, item=head)
                part = {"type": "output_text", "text": "", "annotations": []}
                yield ev(
                    "response.content_part.added", item_id=item["id"], output_index=index, content_index=0, part=part
                )
                for piece in _chunks(text, 24):
                    yield ev(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                yield ev(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
                yield ev(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=item["content"][0],
                )
                yield ev("response.output_item.done", output_index=index, item=item)
        yield ev("response.completed", response=as_json())

    return _Turn(role, step=step, events=events, json=as_json)


def _message_item(upstream: Upstream, text: str) -> dict[str, Any]:
    return {
        "id": upstream._next_id("msg_e2e_"),
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def _responses_compact_payload(upstream: Upstream, body: dict[str, Any]) -> dict[str, Any]:
    """The answer to Codex's remote compaction: the kept user messages plus one opaque ``compaction`` item."""
    digest = hashlib.sha256(json.dumps(body.get("input"), sort_keys=True).encode()).hexdigest()
    return {
        "id": upstream._next_id("resp_e2e_compact_"),
        "object": "response.compaction",
        "created_at": int(time.time()),
        "output": [
            _compaction_item(upstream, digest.encode()),
        ],
        "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
    }


def _compaction_item(upstream: Upstream, seed: bytes) -> dict[str, Any]:
    digest = hashlib.sha256(seed).hexdigest()
    return {"id": upstream._next_id("cmp_e2e_"), "type": "compaction", "encrypted_content": "gAAAAE2ECMP" + digest * 2}


def _responses_results(items: Sequence[Any]) -> tuple[dict[str, str], set[str]]:
    """Call id (without ``call_``) -> output text of every tool output item, and the call ids of every call item."""
    results: dict[str, str] = {}
    ids: set[str] = set()
    for it in items:
        if not isinstance(it, dict):
            continue
        if it.get("type") in ("function_call_output", "custom_tool_call_output"):
            out = it.get("output")
            results[str(it.get("call_id")).removeprefix("call_")] = out if isinstance(out, str) else _result_text(out)
        elif it.get("type") in ("function_call", "custom_tool_call", "local_shell_call"):
            ids.add(str(it.get("call_id")).removeprefix("call_"))
    return results, ids


def _tool_list(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [t for t in body.get("tools") or () if isinstance(t, dict)]
