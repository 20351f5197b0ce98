"""Proxy benchmark: added latency, time to first byte, tokens forwarded, cache-weighted cost and retention.

Arms, side by side in one run, on the same requests (issue 15, "Benchmark"):

- ``direct``: the client talks to the scripted upstream (``benchmarks/proxy_upstream.py``: reads the whole body,
  parses nothing, answers a fixed short stream, records what it received);
- ``passthrough``: ``tests/e2e/passthrough_proxy.py``, a stdlib relay that parses nothing: the floor any proxy pays;
- ``contextfold``: ``python -m contextfold proxy --window W`` (a fresh state directory per run);
- ``headroom``: Headroom's ``headroom proxy`` (``headroom-ai`` from PyPI in its own venv, ``--headroom-venv``;
  defaults, except telemetry and the rate limiter off); skipped with the reason when it cannot start.

Requests: every conversation of ``../shared/corpus/dev`` (OpenAI chat format) rendered in each wire format
(Anthropic messages with Claude Code's cache breakpoints, Chat Completions, Responses) and grown turn by turn as a
client sends them (a request before each assistant message, the whole history each time, always streaming), plus
synthetic tool-heavy sessions that grow to 200,000 tokens. Each request goes to every arm in turn (the order
rotates), one at a time.

Measured per request: wall clock through the stack (send to last byte) and to the first body byte; the added
latency of an arm is its time minus direct's for the same request; contextfold's own time from its
``x-contextfold-proxy-ms`` header. From what the upstream received: tokens forwarded (calibrated counter, the
proxy's own counting), a prompt-cache simulation (below) and retention (``bench_quality.py``'s items: paths,
commands and ids of the conversation not forwarded verbatim, share still present verbatim in what is forwarded).

Prompt-cache simulation (cost in units of one uncached input token; prefixes compared message by message, modulo
``cache_control`` and a lone text's string/block form; a turn every 30 s):

- Anthropic (published ratios): a cache write costs 1.25x, a cache read 0.1x, input after the last breakpoint
  1x; an entry is written at every breakpoint of a request and lives 5 minutes after its last use; a request
  reads the longest live entry that is a prefix of it and writes up to its last breakpoint.
- OpenAI: automatic caching of every prompt prefix of at least 1,024 tokens in 128-token steps, no write
  surcharge, 5 minutes; cached input at 0.25x for Chat Completions (priced as gpt-4.1, 75 % off) and 0.1x for
  Responses (gpt-5 family, 90 % off: the models Codex drives).

    .venv/bin/python benchmarks/bench_proxy.py --out benchmarks/results/proxy.md          # the full run
    .venv/bin/python benchmarks/bench_proxy.py --quick                                   # a smoke run
    .venv/bin/python benchmarks/bench_proxy.py --engine-only --sweep                     # tuning, no HTTP

``--engine-only`` drives the proxy's engine in process (the same rewrite the server does, no network) for
tokens, cost and retention; ``--sweep`` compares compaction policies (how deep a compaction cuts) that way.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import glob
import hashlib
import http.client
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_quality import enum_tools, items
from contextfold._formats import render, to_canonical
from contextfold._formats._responses import messages_to_responses, tools_to_responses
from contextfold._messages import Message, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec, iter_text
from contextfold._tokens._counting import count_messages
from contextfold._tokens._factory import make_counter
from contextfold.proxy._wire import FORMATS, chain_hash, message_hash

ROOT = Path(__file__).resolve().parent.parent
_SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT / "shared")
CORPUS = _SHARED / "corpus" / "dev"
RESULTS = ROOT / "benchmarks" / "results" / "proxy.md"
WINDOW = 64_000
TURN_SECONDS = 30.0
EPHEMERAL = {"type": "ephemeral"}
FORMAT_NAMES = ("anthropic", "openai", "responses")
MODELS = {
    "anthropic": ("claude-sonnet-4-5", 200_000),
    "openai": ("gpt-4.1", 1_047_576),
    "responses": ("gpt-5", 272_000),
}
"""The model each wire format is sent as, and its context window (direct requests above it would be refused)."""
PRICES = {
    "anthropic": {"read": 0.1, "write": 1.25, "ttl": 300.0, "auto": False},
    "openai": {"read": 0.25, "write": 1.0, "ttl": 300.0, "auto": True},
    "responses": {"read": 0.1, "write": 1.0, "ttl": 300.0, "auto": True},
}
ARMS = ("direct", "passthrough", "contextfold", "base", "headroom")
"""``base``: contextfold from another tree (``--base-src``, e.g. the merge base's ``src``), for an A/B in one run."""
SIZE_BUCKETS = (16_000, 32_000, 64_000, 128_000, 200_001)


# -- sessions -------------------------------------------------------------------------------------------------


@dataclass
class Session:
    """One conversation: canonical messages, tools, and the tool names whose ``command`` is an enum (bench_quality)."""

    name: str
    messages: list[Message]
    tools: list[ToolSpec]
    skip: set[str] = field(default_factory=set)

    def turns(self) -> list[int]:
        """Request points: the index of every assistant message (the request is everything before it)."""
        return [i for i, m in enumerate(self.messages) if m.role == "assistant" and i > 0]


def _tool_specs(conv: dict[str, Any]) -> list[ToolSpec]:
    out = []
    for t in conv.get("tools") or []:
        f = t.get("function") or {}
        out.append(
            ToolSpec(name=f.get("name", ""), description=f.get("description", ""), parameters=f.get("parameters") or {})
        )
    return out


def corpus_sessions(corpus: Path, limit: int = 0) -> list[Session]:
    out: list[Session] = []
    for path in sorted(glob.glob(str(corpus / "*.jsonl"))):
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                if not line.strip():
                    continue
                conv = json.loads(line)
                name = f"{Path(path).stem}#{n}"
                out.append(
                    Session(
                        name,
                        to_canonical(conv["messages"], "openai"),
                        _tool_specs(conv),
                        enum_tools(conv.get("tools") or []),
                    )
                )
    if limit:
        out = out[: max(limit, 0)]
    return out


_BASH = ToolSpec(
    name="bash",
    description="Run a shell command in the repository and return its output.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


def synthetic_session(target_tokens: int, seed: int) -> Session:
    """A tool-heavy session that grows to about ``target_tokens``: one command a turn, 1.5-5k-token outputs.

    Outputs name files and commands (so retention has something to measure) and differ from turn to turn.
    """
    counter = make_counter()
    system = Message(role="system", content=(TextBlock(text="You are a coding agent working in a repository. " * 40),))
    task = Message(
        role="user", content=(TextBlock(text=f"Task {seed}: make every test under tests/ pass; report the fix."),)
    )
    messages = [system, task]
    total = count_messages(counter, messages)
    n = 0
    while total < target_tokens:
        module = f"pkg_{seed}/mod_{n % 23}"
        command = f"pytest -q tests/{module}/test_case_{n}.py --maxfail=1"
        call = ToolCallBlock(id=f"call_{seed}_{n:04d}", name="bash", arguments=json.dumps({"command": command}))
        say = TextBlock(text=f"Step {n}: checking /repo/src/{module}/impl_{n}.py next.")
        rows = 60 + (n * 7919 + seed * 31) % 140
        lines = [
            f"/repo/src/{module}/file_{i}.py:{(i * 37 + n) % 900 + 1}: "
            f"{'ok' if (i + n) % 5 else 'FAILED'} case_{n}_{i} took {(i * n + seed) % 97} ms"
            for i in range(rows)
        ]
        result = ToolResultBlock(call_id=call.id, content=(TextBlock(text="\n".join(lines)),))
        step = [Message(role="assistant", content=(say, call)), Message(role="tool", content=(result,))]
        messages += step
        total += count_messages(counter, step)
        n += 1
    messages.append(Message(role="assistant", content=(TextBlock(text="All tests pass now."),)))
    return Session(f"synthetic-{target_tokens // 1000}k#{seed}", messages, [_BASH])


# -- requests as a client sends them -------------------------------------------------------------------------


def _mark_last(messages: list[dict[str, Any]]) -> None:
    """Claude Code's breakpoint: on the last block of the newest message (a lone text becomes a block)."""
    last = messages[-1]
    content = last["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    last["content"] = [*content[:-1], {**content[-1], "cache_control": dict(EPHEMERAL)}]


def request_body(fmt: str, session: Session, turn: int) -> dict[str, Any]:
    """The body a client of wire format ``fmt`` sends before assistant message ``turn`` (streaming)."""
    prefix = session.messages[:turn]
    model = MODELS[fmt][0]
    if fmt == "anthropic":
        rendered = render(prefix, "anthropic", session.tools)
        messages = rendered["messages"]
        _mark_last(messages)
        body: dict[str, Any] = {"model": model, "messages": messages}
        system = rendered.get("system")
        if system:
            text = system if isinstance(system, str) else "\n".join(b.get("text", "") for b in system)
            body["system"] = [{"type": "text", "text": text, "cache_control": dict(EPHEMERAL)}]
        body["tools"] = rendered.get("tools", [])
        body["max_tokens"] = 8192
        body["stream"] = True
        return body
    if fmt == "openai":
        rendered = render(prefix, "openai", session.tools)
        return {
            "model": model,
            "messages": rendered["messages"],
            "tools": rendered.get("tools", []),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    instructions, items_ = messages_to_responses(prefix)
    body = {"model": model}
    if instructions:
        body["instructions"] = instructions
    body.update(
        {
            "input": items_,
            "tools": tools_to_responses(session.tools),
            "stream": True,
            "store": False,
            "prompt_cache_key": _session_id(session, fmt),
        }
    )
    return body


def _session_id(session: Session, fmt: str) -> str:
    return hashlib.sha256(f"{fmt}:{session.name}".encode()).hexdigest()[:32]


def request_headers(fmt: str, session: Session) -> dict[str, str]:
    sid = _session_id(session, fmt)
    if fmt == "anthropic":
        return {
            "content-type": "application/json",
            "x-api-key": "sk-ant-bench-0000",
            "anthropic-version": "2023-06-01",
            "x-claude-code-session-id": sid,
        }
    headers = {"content-type": "application/json", "authorization": "Bearer sk-bench-0000"}
    if fmt == "responses":
        headers["session-id"] = sid
    return headers


def request_path(fmt: str) -> str:
    return {"anthropic": "/v1/messages", "openai": "/v1/chat/completions", "responses": "/v1/responses"}[fmt]


# -- what was forwarded: tokens, cache, retention ---------------------------------------------------------------


class Meter:
    """Tokens per wire message (the proxy's counting, cached by canonical hash) and retention items per message."""

    def __init__(self) -> None:
        self.counter = make_counter()
        self._tokens: dict[str, int] = {}
        self._items: dict[str, set[tuple[str, str]]] = {}
        self._text: dict[str, str] = {}

    def _canon(self, fmt: str, message: Any) -> list[Message]:
        return FORMATS[fmt].canonical(0, message)  # type: ignore[index]

    def tokens(self, fmt: str, key: str, message: Any) -> int:
        got = self._tokens.get(key)
        if got is None:
            got = self._tokens[key] = count_messages(self.counter, self._canon(fmt, message))
        return got

    def fixed(self, fmt: str, body: dict[str, Any], head: list[Any]) -> tuple[str, int]:
        """Hash and tokens of what precedes the messages: tools, system prompt, instructions, head messages."""
        ident = orjson.dumps(
            [body.get("tools"), _strip(body.get("system")), body.get("instructions"), [_strip(h) for h in head]]
        )
        key = "fixed:" + hashlib.sha256(ident).hexdigest()[:32]
        got = self._tokens.get(key)
        if got is None:
            wire = FORMATS[fmt]  # type: ignore[index]
            system = wire.system_messages(body, head)
            got = count_messages(self.counter, system)
            if body.get("tools"):
                got += self.counter.count_text(orjson.dumps(body["tools"]).decode())
            self._tokens[key] = got
        return key, got

    def items(self, fmt: str, key: str, message: Any, skip: set[str]) -> set[tuple[str, str]]:
        got = self._items.get(key)
        if got is None:
            got = set()
            for m in self._canon(fmt, message):
                got |= items(m, skip)
            self._items[key] = got
        return got

    def text(self, fmt: str, key: str, message: Any) -> str:
        got = self._text.get(key)
        if got is None:
            got = self._text[key] = "\n".join("\n".join(iter_text(m)) for m in self._canon(fmt, message))
        return got


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _has_breakpoint(value: Any) -> bool:
    if isinstance(value, dict):
        return "cache_control" in value or any(_has_breakpoint(v) for v in value.values() if isinstance(v, dict | list))
    if isinstance(value, list):
        return any(_has_breakpoint(v) for v in value)
    return False


@dataclass
class Forwarded:
    """One request as the upstream received it, measured."""

    tokens: int
    positions: list[tuple[str, int]]
    """(chain hash, tokens) at every message boundary, starting with the fixed part."""
    breakpoints: list[int]
    """Indexes into ``positions`` that carry an Anthropic breakpoint (the fixed part counts as index 0)."""
    hashes: set[str]
    blob: list[str]


def measure(meter: Meter, fmt: str, raw: bytes) -> Forwarded:
    body = orjson.loads(raw)
    wire = FORMATS[fmt]  # type: ignore[index]
    messages = wire.messages_of(body) or []
    split = wire.split(body, messages)
    fixed_key, fixed = meter.fixed(fmt, body, split.head)
    positions = [(fixed_key, fixed)]
    breakpoints = [0] if _has_breakpoint(body.get("system")) or _has_breakpoint(body.get("tools")) else []
    hashes: set[str] = set()
    blob: list[str] = []
    total = fixed
    chain = fixed_key
    for m in split.body:
        h = message_hash(m)
        hashes.add(h)
        total += meter.tokens(fmt, h, m)
        chain = chain_hash(chain, h)
        positions.append((chain, total))
        if _has_breakpoint(m):
            breakpoints.append(len(positions) - 1)
        blob.append(meter.text(fmt, h, m))
    return Forwarded(total, positions, breakpoints, hashes, blob)


class CacheSim:
    """One lineage's prompt cache (see the module docstring for the rules); returns a request's weighted cost."""

    def __init__(self, fmt: str) -> None:
        self.price = PRICES[fmt]
        self.entries: dict[str, float] = {}  # chain hash -> last use
        self.now = 0.0

    def cost(self, f: Forwarded) -> tuple[float, int, int]:
        """(weighted cost, tokens read from cache, tokens written) of one request."""
        self.now += TURN_SECONDS
        ttl = self.price["ttl"]
        self.entries = {k: t for k, t in self.entries.items() if self.now - t <= ttl}
        read = 0
        for key, tokens in reversed(f.positions):
            if key in self.entries:
                read = tokens
                self.entries[key] = self.now
                break
        total = f.tokens
        if self.price["auto"]:
            read = (read // 128) * 128 if read >= 1024 else 0
            for key, _ in f.positions:
                self.entries[key] = self.now
            return read * self.price["read"] + (total - read), read, 0
        last = max(f.breakpoints, default=-1)
        written_to = f.positions[last][1] if last >= 0 else 0
        write = max(written_to - read, 0)
        uncached = total - max(read, written_to)
        for index in f.breakpoints:
            self.entries[f.positions[index][0]] = self.now
        return read * self.price["read"] + write * self.price["write"] + uncached, read, write


@dataclass
class SessionResult:
    """Per arm and session: tokens forwarded, weighted cost, retention per turn, over-window requests."""

    tokens: int = 0
    client_tokens: int = 0
    cost: float = 0.0
    read: int = 0
    write: int = 0
    requests: int = 0
    over_model: int = 0
    max_forwarded: int = 0
    retention: list[float] = field(default_factory=list)
    retention_kind: dict[str, list[float]] = field(default_factory=dict)


class Analyzer:
    """Turns the bodies an upstream received for one session (in order) into a `SessionResult`."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def session(self, fmt: str, session: Session, client: list[bytes], forwarded: list[bytes]) -> SessionResult:
        res = SessionResult()
        sim = CacheSim(fmt)
        window = MODELS[fmt][1]
        for raw_client, raw in zip(client, forwarded, strict=True):
            c = measure(self.meter, fmt, raw_client)
            f = measure(self.meter, fmt, raw) if raw is not raw_client else c
            cost, read, write = sim.cost(f)
            res.requests += 1
            res.tokens += f.tokens
            res.client_tokens += c.tokens
            res.cost += cost
            res.read += read
            res.write += write
            res.max_forwarded = max(res.max_forwarded, f.tokens)
            res.over_model += f.tokens > window
            # Retention: items of client messages not forwarded verbatim, still verbatim in what was forwarded.
            body = orjson.loads(raw_client)
            wire = FORMATS[fmt]  # type: ignore[index]
            split = wire.split(body, wire.messages_of(body) or [])
            left: set[tuple[str, str]] = set()
            kept: set[tuple[str, str]] = set()
            for m in split.body:
                h = message_hash(m)
                got = self.meter.items(fmt, h, m, session.skip)
                (kept if h in f.hashes else left).update(got)
            left -= kept
            if left:
                text = "\n".join(f.blob)
                found = [v in text for _, v in left]
                res.retention.append(sum(found) / len(found))
                for kind in ("path", "cmd", "id"):
                    group = [v in text for k, v in left if k == kind]
                    if group:
                        res.retention_kind.setdefault(kind, []).append(sum(group) / len(group))
        return res


# -- the in-process engine arm (tuning, no HTTP) ---------------------------------------------------------------


async def engine_forwarded(
    fmt: str, sessions: Sequence[Session], window: int, policy: dict[str, Any] | None = None
) -> dict[str, tuple[list[bytes], list[bytes], list[float], list[bool]]]:
    """Per session: client bodies, forwarded bodies, proxy seconds, compacted flags (the proxy's engine in process)."""
    from contextfold._stores._sqlite import SQLiteStore
    from contextfold.proxy import ProxyConfig
    from contextfold.proxy._engine import Engine

    out: dict[str, tuple[list[bytes], list[bytes], list[float], list[bool]]] = {}
    policy = dict(policy or {})
    trigger = policy.pop("trigger_ratio", None)  # a `ProxyConfig` field, not a `CompactionPolicy` one
    with tempfile.TemporaryDirectory() as tmp:
        config = ProxyConfig(window=window, state_dir=Path(tmp))
        if trigger is not None:
            config = dataclasses.replace(config, trigger_ratio=trigger)
        engine = Engine(config, SQLiteStore(Path(tmp) / "state.sqlite3"), make_counter())
        if policy:
            engine.policy = dataclasses.replace(engine.policy, **policy)
        for session in sessions:
            headers = request_headers(fmt, session)
            clients: list[bytes] = []
            sent: list[bytes] = []
            secs: list[float] = []
            flags: list[bool] = []
            for turn in session.turns():
                raw = orjson.dumps(request_body(fmt, session, turn))
                started = time.perf_counter()
                outcome = await engine.rewrite(FORMATS[fmt], orjson.loads(raw), headers, "t" * 32)  # type: ignore[index]
                secs.append(time.perf_counter() - started)
                await engine.settle()  # the model's turn: a background compaction finishes meanwhile
                clients.append(raw)
                sent.append(outcome.body if outcome.body is not None else raw)
                flags.append(outcome.compacted)
            out[session.name] = (clients, sent, secs, flags)
        await engine.aclose()
        await engine.store.aclose()
    return out


# -- the HTTP arms ----------------------------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float = 180.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"not ready after {seconds:.0f} s")


@dataclass
class Stack:
    """The processes of one run: the upstream (one port per arm) and the proxies."""

    python: str
    headroom_venv: Path | None
    window: int
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ports: dict[str, int] = field(default_factory=dict)
    upstream_ports: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bench-proxy-")))
    base_src: Path | None = None
    proxy_args: Sequence[str] = ()
    lock: IO[str] | None = None  # held while the contextfold arms use the fixed state paths (`_state`)

    def _spawn(self, args: list[str], log: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        out = open(self.tmp / log, "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self, arms: Sequence[str]) -> None:
        self.upstream_ports = {arm: _free_port() for arm in arms}
        spec = ",".join(f"{arm}={port}" for arm, port in self.upstream_ports.items())
        up = self._spawn([self.python, str(ROOT / "benchmarks" / "proxy_upstream.py"), "--ports", spec], "upstream.log")
        for port in self.upstream_ports.values():
            _wait_ready(f"http://127.0.0.1:{port}/healthz", up, 30)
        for arm in arms:
            if arm == "direct":
                self.ports[arm] = self.upstream_ports[arm]
                continue
            port = _free_port()
            upstream = f"http://127.0.0.1:{self.upstream_ports[arm]}"
            try:
                if arm == "passthrough":
                    proc = self._spawn(
                        [
                            self.python,
                            str(ROOT / "tests" / "e2e" / "passthrough_proxy.py"),
                            "--port",
                            str(port),
                            "--anthropic-upstream",
                            upstream,
                            "--openai-upstream",
                            upstream + "/v1",
                        ],
                        "passthrough.log",
                    )
                    _wait_ready(f"http://127.0.0.1:{port}/healthz", proc)
                elif arm in ("contextfold", "base"):
                    env = None
                    if arm == "base":
                        if self.base_src is None:
                            self.skipped[arm] = "no --base-src given"
                            continue
                        env = {**os.environ, "PYTHONPATH": str(self.base_src)}
                    proc = self._spawn(
                        [
                            self.python,
                            "-m",
                            "contextfold",
                            "proxy",
                            "--port",
                            str(port),
                            "--quiet",
                            "--anthropic-upstream",
                            upstream,
                            "--openai-upstream",
                            upstream + "/v1",
                            "--window",
                            str(self.window),
                            "--state",
                            str(self._state(arm)),
                            *(self.proxy_args if arm == "contextfold" else ()),
                        ],
                        f"{arm}.log",
                        env,
                    )
                    _wait_ready(f"http://127.0.0.1:{port}/healthz", proc)
                elif arm == "headroom":
                    exe = (self.headroom_venv / "bin" / "headroom") if self.headroom_venv else None
                    if exe is None or not exe.exists():
                        self.skipped[arm] = f"no headroom executable at {exe} (pip install headroom-ai[proxy] there)"
                        continue
                    env = {
                        **os.environ,
                        "HOME": str(self.tmp / "hr-home"),
                        "HF_HUB_OFFLINE": "1",
                        "HEADROOM_TELEMETRY": "off",
                    }
                    proc = self._spawn(
                        [
                            str(exe),
                            "proxy",
                            "--port",
                            str(port),
                            "--anthropic-api-url",
                            upstream,
                            "--openai-api-url",
                            upstream + "/v1",
                            "--no-telemetry",
                            "--no-rate-limit",
                        ],
                        "headroom.log",
                        env,
                    )
                    _wait_ready(f"http://127.0.0.1:{port}/health", proc)
                self.ports[arm] = port
            except RuntimeError as exc:
                log = (self.tmp / f"{arm}.log").read_text(errors="replace")[-1500:]
                self.skipped[arm] = f"{exc}; log tail: {log}"

    def take(self, arm: str) -> list[bytes]:
        """The bodies the upstream received for ``arm`` since the last take."""
        port = self.upstream_ports[arm]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/bench/take", timeout=120) as answer:
            data = answer.read()
        out = []
        at = 0
        while at < len(data):
            n = int.from_bytes(data[at : at + 8], "big")
            out.append(data[at + 8 : at + 8 + n])
            at += 8 + n
        return out

    def _state(self, arm: str) -> Path:
        """The contextfold arm's ``--state``: one fixed path, so two runs forward the same bytes.

        The notices name an offloaded item by its path under the state directory; a random temporary name costs a
        different number of tokens each run, which can move a compaction by a request. A lock file keeps two
        runs from sharing it.
        """
        import fcntl

        root = Path(tempfile.gettempdir()) / "contextfold-bench-proxy"
        root.mkdir(exist_ok=True)
        if self.lock is None:
            self.lock = open(root / "lock", "w")  # noqa: SIM115 - held until the process ends
            try:
                fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise SystemExit(f"another bench_proxy.py run holds {root / 'lock'}; wait for it to finish") from None
        state = root / ("state" if arm == "contextfold" else f"state-{arm}")
        shutil.rmtree(state, ignore_errors=True)
        return state

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass
class Timing:
    total: float
    ttfb: float
    proxy_ms: float | None
    status: int


def send(conn: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str]) -> Timing:
    started = time.perf_counter()
    conn.request("POST", path, body=body, headers={**headers, "content-length": str(len(body))})
    answer = conn.getresponse()
    first = answer.read1(65536) if hasattr(answer, "read1") else answer.read(1)
    ttfb = time.perf_counter() - started
    while answer.read1(65536) if first else b"":
        pass
    answer.read()
    total = time.perf_counter() - started
    own = answer.getheader("x-contextfold-proxy-ms")
    return Timing(total, ttfb, float(own) if own else None, answer.status)


# -- the run ------------------------------------------------------------------------------------------------------


@dataclass
class RequestRow:
    fmt: str
    session: str
    client_tokens: int
    arm: str
    total: float
    ttfb: float
    proxy_ms: float | None
    status: int


def _tokens_of(meter: Meter, fmt: str, raw: bytes) -> int:
    return measure(meter, fmt, raw).tokens


def run_http(
    stack: Stack, formats: Sequence[str], sessions: Sequence[Session], meter: Meter, analyzer: Analyzer
) -> tuple[list[RequestRow], dict[tuple[str, str, str], SessionResult]]:
    rows: list[RequestRow] = []
    results: dict[tuple[str, str, str], SessionResult] = {}
    arms = [a for a in ARMS if a in stack.ports]
    conns = {arm: http.client.HTTPConnection("127.0.0.1", stack.ports[arm], timeout=600) for arm in arms}
    rotate = 0
    for fmt in formats:
        path = request_path(fmt)
        for session in sessions:
            headers = request_headers(fmt, session)
            clients: list[bytes] = []
            for turn in session.turns():
                raw = orjson.dumps(request_body(fmt, session, turn))
                clients.append(raw)
                tokens = _tokens_of(meter, fmt, raw)
                order = arms[rotate % len(arms) :] + arms[: rotate % len(arms)]
                rotate += 1
                for arm in order:
                    try:
                        t = send(conns[arm], path, raw, headers)
                    except (OSError, http.client.HTTPException):
                        conns[arm].close()
                        conns[arm] = http.client.HTTPConnection("127.0.0.1", stack.ports[arm], timeout=600)
                        t = send(conns[arm], path, raw, headers)
                    rows.append(RequestRow(fmt, session.name, tokens, arm, t.total, t.ttfb, t.proxy_ms, t.status))
            for arm in arms:
                got = stack.take(arm)
                if len(got) != len(clients):  # a proxy that sent more or fewer requests than the client did
                    got = (got + [b"{}"] * len(clients))[: len(clients)]
                results[(fmt, session.name, arm)] = analyzer.session(fmt, session, clients, got)
            print(f"{fmt} {session.name}: {len(clients)} requests", file=sys.stderr, flush=True)
    for conn in conns.values():
        conn.close()
    return rows, results


# -- report ----------------------------------------------------------------------------------------------------


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _bucket(tokens: int) -> str:
    lo = 0
    for hi in SIZE_BUCKETS:
        if tokens < hi:
            return f"{lo // 1000}-{hi // 1000}k"
        lo = hi
    return f">{lo // 1000}k"


def latency_tables(rows: list[RequestRow]) -> list[str]:
    direct = {(r.fmt, r.session, i): r for i, r in _indexed(rows, "direct")}
    lines = [
        "| arm | requests | added ms p50 | added ms p99 | TTFB ms p50 | TTFB ms p99 | added TTFB ms p50 / p99 | "
        "own ms p50 / p99 (header) | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    by_size: dict[tuple[str, str], list[float]] = {}
    by_size_ttfb: dict[tuple[str, str], list[float]] = {}
    for arm in ARMS:
        mine = list(_indexed(rows, arm))
        if not mine:
            continue
        added = []
        added_ttfb = []
        for i, r in mine:
            d = direct.get((r.fmt, r.session, i))
            if d is None:
                continue
            added.append((r.total - d.total) * 1000)
            added_ttfb.append((r.ttfb - d.ttfb) * 1000)
            by_size.setdefault((arm, _bucket(r.client_tokens)), []).append((r.total - d.total) * 1000)
            by_size_ttfb.setdefault((arm, _bucket(r.client_tokens)), []).append(r.ttfb * 1000)
        own = [r.proxy_ms for _, r in mine if r.proxy_ms is not None]
        ttfb = [r.ttfb * 1000 for _, r in mine]
        errors = sum(1 for _, r in mine if r.status != 200)
        own_cell = f"{_pct(own, 0.5):.2f} / {_pct(own, 0.99):.2f}" if own else "–"
        if arm == "direct":
            lines.append(
                f"| direct | {len(mine)} | 0 | 0 | {_pct(ttfb, 0.5):.2f} | {_pct(ttfb, 0.99):.2f} | – | – | {errors} |"
            )
            continue
        lines.append(
            f"| {arm} | {len(mine)} | {_pct(added, 0.5):.2f} | {_pct(added, 0.99):.2f} | {_pct(ttfb, 0.5):.2f} | "
            f"{_pct(ttfb, 0.99):.2f} | {_pct(added_ttfb, 0.5):.2f} / {_pct(added_ttfb, 0.99):.2f} | {own_cell} | "
            f"{errors} |"
        )
    buckets = sorted({b for _, b in by_size}, key=lambda b: int(b.split("-")[0].lstrip(">").rstrip("k")))
    lines += ["", "Added latency by history size (client request tokens), ms p50 / p99; TTFB ms p50 / p99:", ""]
    lines.append("| arm | " + " | ".join(buckets) + " |")
    lines.append("|---|" + "---|" * len(buckets))
    for arm in ARMS:
        if arm == "direct" or not any(a == arm for a, _ in by_size):
            continue
        cells = []
        for b in buckets:
            v = by_size.get((arm, b), [])
            t = by_size_ttfb.get((arm, b), [])
            cells.append(
                f"{_pct(v, 0.5):.1f} / {_pct(v, 0.99):.1f}; {_pct(t, 0.5):.1f} / {_pct(t, 0.99):.1f} ({len(v)})"
                if v
                else "–"
            )
        lines.append(f"| {arm} | " + " | ".join(cells) + " |")
    return lines


def _indexed(rows: list[RequestRow], arm: str) -> Iterator[tuple[int, RequestRow]]:
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        if r.arm != arm:
            continue
        key = (r.fmt, r.session)
        i = counts.get(key, 0)
        counts[key] = i + 1
        yield i, r


def cost_tables(results: dict[tuple[str, str, str], SessionResult], formats: Sequence[str], window: int) -> list[str]:
    lines = [
        "| format | arm | sessions | requests | tokens forwarded (vs direct) | weighted cost (vs direct) | "
        "cost vs direct, sessions over the window | worst session cost vs direct | cache read / write tokens | "
        "max request | over model window | retention % (paths / commands / ids) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt in formats:
        names = sorted({s for f, s, _ in results if f == fmt})
        direct = {s: results[(fmt, s, "direct")] for s in names if (fmt, s, "direct") in results}
        outgrow = [s for s in names if s in direct and direct[s].max_forwarded > window]
        for arm in ARMS:
            mine = {s: results[(fmt, s, arm)] for s in names if (fmt, s, arm) in results}
            if not mine or not direct:
                continue
            tokens = sum(r.tokens for r in mine.values())
            dtokens = sum(direct[s].tokens for s in mine)
            cost = sum(r.cost for r in mine.values())
            dcost = sum(direct[s].cost for s in mine)
            out_cost = sum(mine[s].cost for s in outgrow if s in mine)
            out_dcost = sum(direct[s].cost for s in outgrow if s in mine)
            worst = max((mine[s].cost / direct[s].cost for s in mine if direct[s].cost), default=float("nan"))
            ret = [x for r in mine.values() for x in r.retention]
            kinds = []
            for kind in ("path", "cmd", "id"):
                vals = [x for r in mine.values() for x in r.retention_kind.get(kind, [])]
                kinds.append(f"{100 * statistics.fmean(vals):.0f}" if vals else "–")
            ret_cell = f"{100 * statistics.fmean(ret):.1f} ({' / '.join(kinds)})" if ret else "100 (nothing left out)"
            lines.append(
                f"| {fmt} | {arm} | {len(mine)} | {sum(r.requests for r in mine.values())} | "
                f"{tokens:,} ({tokens / dtokens:.2f}x) | {cost:,.0f} ({cost / dcost:.2f}x) | "
                f"{(out_cost / out_dcost) if out_dcost else float('nan'):.2f}x ({len(outgrow)}) | {worst:.2f}x | "
                f"{sum(r.read for r in mine.values()):,} / {sum(r.write for r in mine.values()):,} | "
                f"{max(r.max_forwarded for r in mine.values()):,} | {sum(r.over_model for r in mine.values())} | "
                f"{ret_cell} |"
            )
    return lines


def per_session_table(results: dict[tuple[str, str, str], SessionResult], fmt: str, window: int) -> list[str]:
    present = {a for _, _, a in results}
    shown = [a for a in ARMS[1:] if a in present or a in ("passthrough", "contextfold", "headroom")]
    lines = [
        "| session | requests | direct max tokens | "
        + " | ".join(f"{a} tokens / cost vs direct" for a in shown)
        + " |",
        "|---|---|---|" + "---|" * len(shown),
    ]
    names = sorted({s for f, s, _ in results if f == fmt})
    for s in names:
        d = results.get((fmt, s, "direct"))
        if d is None or d.max_forwarded <= window:
            continue
        cells = []
        for arm in shown:
            r = results.get((fmt, s, arm))
            cells.append(f"{r.tokens / d.tokens:.2f}x / {r.cost / d.cost:.2f}x" if r else "–")
        lines.append(f"| {s} | {d.requests} | {d.max_forwarded:,} | " + " | ".join(cells) + " |")
    return lines


SWEEP_BEGIN = "<!-- bench_proxy.py --engine-only:begin -->"
SWEEP_END = "<!-- bench_proxy.py --engine-only:end -->"
MARK_BEGIN = "<!-- bench_proxy.py:begin -->"
MARK_END = "<!-- bench_proxy.py:end -->"


def write_section(path: Path, text: str, begin: str = MARK_BEGIN, end: str = MARK_END) -> None:
    """Replace the text between ``begin`` and ``end`` in ``path`` (appended when absent); the rest is kept."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{begin}\n{text.strip()}\n{end}"
    if begin in old and end in old:
        head, _, rest = old.partition(begin)
        _, _, tail = rest.partition(end)
        new = head + block + tail
    else:
        new = (old.rstrip() + "\n\n" if old.strip() else "") + block + "\n"
    path.write_text(new, encoding="utf-8")


# -- main ------------------------------------------------------------------------------------------------------


def build_sessions(args: argparse.Namespace) -> list[Session]:
    sessions = corpus_sessions(Path(args.corpus), args.limit)
    for n, size in enumerate(args.synthetic):
        sessions.append(synthetic_session(size, n))
    return sessions


async def engine_run(args: argparse.Namespace, sessions: list[Session], meter: Meter) -> list[str]:
    analyzer = Analyzer(meter)
    policies: list[tuple[str, dict[str, Any] | None]] = [("default", None)]
    if args.sweep:
        policies += [(json.dumps(p, separators=(",", ":")), p) for p in SWEEP]
    for text in args.policy or ():
        extra = json.loads(text)
        policies.append((json.dumps(extra, separators=(",", ":")), extra))
    lines = [
        "| format | policy | compactions | proxy ms p50 / p99 / max | compaction ms p50 / max | tokens vs direct | "
        "cost vs direct | cost vs direct, over the window | worst session | retention % (paths / commands / ids) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt in args.formats:
        direct: dict[str, SessionResult] = {}
        for name, policy in policies:
            got = await engine_forwarded(fmt, sessions, args.window, policy)
            results = {}
            secs = []
            comp = []
            for s in sessions:
                clients, sent, ss, flags = got[s.name]
                if not direct.get(s.name):
                    direct[s.name] = analyzer.session(fmt, s, clients, clients)
                results[s.name] = analyzer.session(fmt, s, clients, sent)
                secs += ss
                comp += [x for x, f in zip(ss, flags, strict=True) if f]
            d_all = sum(direct[s].cost for s in results)
            out = [s for s in results if direct[s].max_forwarded > args.window]
            c_out = sum(results[s].cost for s in out)
            d_out = sum(direct[s].cost for s in out)
            worst = max(results[s].cost / direct[s].cost for s in results)
            ret = [x for r in results.values() for x in r.retention]
            kinds = []
            for kind in ("path", "cmd", "id"):
                vals = [x for r in results.values() for x in r.retention_kind.get(kind, [])]
                kinds.append(f"{100 * statistics.fmean(vals):.0f}" if vals else "–")
            ms = [x * 1000 for x in secs]
            cms = [x * 1000 for x in comp]
            lines.append(
                f"| {fmt} | {name} | {len(comp)} | {_pct(ms, 0.5):.2f} / {_pct(ms, 0.99):.1f} / {max(ms):.0f} | "
                f"{(_pct(cms, 0.5) if cms else 0):.0f} / {(max(cms) if cms else 0):.0f} | "
                f"{sum(r.tokens for r in results.values()) / sum(direct[s].tokens for s in results):.2f}x | "
                f"{sum(r.cost for r in results.values()) / d_all:.3f}x | "
                f"{(c_out / d_out) if d_out else float('nan'):.3f}x ({len(out)}) | "
                f"{worst:.3f}x | {100 * statistics.fmean(ret) if ret else 100:.1f} ({' / '.join(kinds)}) |"
            )
            print(lines[-1], file=sys.stderr, flush=True)
    return lines


SWEEP: list[dict[str, Any]] = [
    {"offload_tokens": 2000, "fact_share": 0, "dedupe_tokens": 0},
    {"offload_tokens": 1000, "fact_share": 0, "dedupe_tokens": 0},
    {"offload_tokens": 2000},
    {"offload_tokens": 1500},
    {"fact_share": 0.7},
    {"offload_tokens": 800, "fact_share": 0.7},
    {"dedupe_tokens": 0},
    {"offload_tokens": 0},
    {"precompute": "off"},
    {"precompute": "replacement"},
    {"trigger_ratio": 0.8},
    {"trigger_ratio": 0.6},
]
"""Compaction policies (`CompactionPolicy` fields, and `ProxyConfig.trigger_ratio`) compared by ``--sweep``, each
against the default."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--limit", type=int, default=0, help="first N corpus conversations only (-1: none)")
    parser.add_argument("--synthetic", type=int, nargs="*", default=[200_000, 200_000, 120_000])
    parser.add_argument("--formats", nargs="+", default=list(FORMAT_NAMES), choices=FORMAT_NAMES)
    parser.add_argument("--window", type=int, default=WINDOW)
    parser.add_argument("--arms", nargs="+", default=None, choices=ARMS, help="default: all (base with --base-src)")
    parser.add_argument("--headroom-venv", type=Path, default=ROOT / ".venv-headroom")
    base_help = "the arm 'base': contextfold imported from this src directory (e.g. a merge base's), side by side"
    parser.add_argument("--base-src", type=Path, default=None, help=base_help)
    parser.add_argument("--proxy-args", default="", help="extra options of the contextfold arm (not base), one string")
    parser.add_argument("--engine-only", action="store_true")
    parser.add_argument("--sweep", action="store_true", help="also the policies of SWEEP (--engine-only)")
    policy_help = (
        'also this policy: CompactionPolicy fields (and trigger_ratio) as JSON, e.g. {"offload_tokens":1000} '
        "(--engine-only)"
    )
    parser.add_argument("--policy", action="append", metavar="JSON", help=policy_help + "; repeatable")
    parser.add_argument("--quick", action="store_true", help="3 conversations and one 100k synthetic session")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--rows", type=Path, default=None, help="also write every request's timings here (JSON lines)")
    args = parser.parse_args(argv)
    if args.arms is None:
        args.arms = [a for a in ARMS if a != "base" or args.base_src is not None]
    if args.quick:
        args.limit = args.limit or 3
        args.synthetic = [100_000]
    sessions = build_sessions(args)
    meter = Meter()
    command = "python benchmarks/bench_proxy.py " + " ".join(argv if argv is not None else sys.argv[1:])
    machine = f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores shared"
    if args.engine_only:
        lines = [
            "## Proxy: compaction policy, cost against retention (engine in process)",
            "",
            f"Command: `.venv/bin/{command.strip()}` ({machine}).",
            "",
            f"The proxy's engine driven in process (no HTTP) over {len(sessions)} sessions at window {args.window:,}; "
            "cost and retention as in the side-by-side run; `default` is `CompactionPolicy()`, the rows below it "
            "change the fields shown (the first default was target_ratio 0.83, summary_ratio 0.4, reserve_ratio "
            "0.1, min_recent_messages 6; the one before this was 0.3, 0.7, 0.05, 2). The first row below is the "
            "first-sight cut before this default: offload_tokens 2000, head and last lines only (fact_share 0), no "
            "pointers to repeated results (dedupe_tokens 0). `trigger_ratio` rows change `ProxyConfig.trigger_ratio` "
            "(default 0.7; 0.8 is the library's trigger): when a compaction happens, not how deep it cuts. Proxy ms "
            "are wall clock on a shared machine.",
            "",
            *asyncio.run(engine_run(args, sessions, meter)),
        ]
        text = "\n".join(lines)
        print(text)
        if args.out:
            write_section(args.out, text, SWEEP_BEGIN, SWEEP_END)
        return 0
    stack = Stack(
        python=sys.executable,
        headroom_venv=args.headroom_venv,
        window=args.window,
        base_src=args.base_src,
        proxy_args=args.proxy_args.split(),
    )
    try:
        stack.start(args.arms)
        rows, results = run_http(stack, args.formats, sessions, meter, Analyzer(meter))
    finally:
        stack.stop()
    if args.rows:
        args.rows.write_text("".join(json.dumps(dataclasses.asdict(r)) + "\n" for r in rows))
    text = "\n".join(report(args, command, machine, sessions, stack, rows, results))
    print(text)
    if args.out:
        write_section(args.out, text)
    return 0


def report(
    args: argparse.Namespace,
    command: str,
    machine: str,
    sessions: list[Session],
    stack: Stack,
    rows: list[RequestRow],
    results: dict[tuple[str, str, str], SessionResult],
) -> list[str]:
    lines = [
        "## Proxy: latency, tokens and cache-weighted cost, side by side",
        "",
        f"Command: `.venv/bin/{command.strip()}` ({machine}).",
        "",
        f"{len(sessions)} sessions ({sum(1 for s in sessions if s.name.startswith('synthetic'))} synthetic), "
        f"{len({(r.fmt, r.session, r.client_tokens, r.total) for r in rows if r.arm == 'direct'}):,} requests per arm, "
        f"formats {', '.join(args.formats)}; contextfold window {args.window:,}; models "
        + ", ".join(f"{f}: {MODELS[f][0]} ({MODELS[f][1]:,})" for f in args.formats)
        + ".",
        "",
    ]
    for arm, why in stack.skipped.items():
        lines += [f"**{arm} skipped**: {why}", ""]
    lines += latency_tables(rows)
    lines += ["", "Tokens, cost (prompt-cache simulation, see the script's docstring) and retention:", ""]
    lines += cost_tables(results, args.formats, args.window)
    for fmt in args.formats:
        lines += ["", f"Sessions whose history outgrows the window ({fmt}):", ""]
        lines += per_session_table(results, fmt, args.window)
    return lines


if __name__ == "__main__":
    sys.exit(main())
