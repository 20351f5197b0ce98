"""Phase timings inside a running ``contextfold proxy``: where a request's time goes in the server itself.

Loaded by Python at start-up when this directory is on ``PYTHONPATH`` and ``CONTEXTFOLD_PHASES_OUT`` names a file;
otherwise it does nothing. It wraps the app (`create_app`) and a few functions of the request path, and appends one
JSON line per ``POST`` to that file: the body's size, then milliseconds from the request's start to the body read
(``body_done``), spent reading it (``read``), in the engine (``engine``: parse excluded, rewrite to serialized body),
in the upstream exchange up to the answer's headers (``forward``), to the answer's start and last byte
(``start_at``, ``total``), and in garbage collection (``gc``), with the ``src`` directory the proxy runs
(``tree``). Side by side with ``bench_proxy.py``: its ``contextfold`` arm inherits ``PYTHONPATH``, its ``base`` arm
gets ``--base-src`` as its ``PYTHONPATH``:

    PYTHONPATH=benchmarks/server_phases CONTEXTFOLD_PHASES_OUT=/tmp/phases.jsonl .venv/bin/python \\
        benchmarks/bench_proxy.py --limit -1 --synthetic 200000 200000 --arms direct contextfold base \\
        --base-src benchmarks/server_phases:/path/to/merge-base/src
    .venv/bin/python benchmarks/server_phases/summarize.py /tmp/phases.jsonl
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from typing import Any

_OUT = os.environ.get("CONTEXTFOLD_PHASES_OUT")
_current: dict[str, int] = {}


def _wrap(owner: Any, name: str, label: str) -> None:
    fn = getattr(owner, name)

    @functools.wraps(fn)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter_ns()
        try:
            return await fn(*args, **kwargs)
        finally:
            _current[label] = _current.get(label, 0) + time.perf_counter_ns() - started

    setattr(owner, name, timed)


def _install(out: str) -> None:
    from contextfold.proxy import _app, _engine

    _wrap(_app, "_read_capped", "read")
    _wrap(_app, "_forward", "forward")
    _wrap(_engine.Engine, "rewrite", "engine")
    gc_started = [0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter_ns()
        else:
            _current["gc"] = _current.get("gc", 0) + time.perf_counter_ns() - gc_started[0]

    gc.callbacks.append(on_gc)
    create = _app.create_app

    def create_app(*args: Any, **kwargs: Any) -> Any:
        app = create(*args, **kwargs)

        async def timed_app(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await app(scope, receive, send)
                return
            _current.clear()
            started = time.perf_counter_ns()
            size = 0

            async def timed_receive() -> Any:
                nonlocal size
                message = await receive()
                size += len(message.get("body", b""))
                if message["type"] == "http.request" and not message.get("more_body"):
                    _current["body_done"] = time.perf_counter_ns() - started
                return message

            async def timed_send(message: Any) -> None:
                if message["type"] == "http.response.start":
                    _current["start_at"] = time.perf_counter_ns() - started
                await send(message)
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    _current["total"] = time.perf_counter_ns() - started

            await app(scope, timed_receive, timed_send)
            row = {"tree": tree, "bytes": size, **{k: v / 1e6 for k, v in _current.items()}}
            with open(out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")

        return timed_app

    _app.create_app = create_app
    import contextfold

    tree = os.path.dirname(os.path.dirname(os.path.abspath(contextfold.__file__)))  # which src this proxy runs


if _OUT:
    _install(_OUT)
