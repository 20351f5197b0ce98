"""The scripted upstream of ``bench_proxy.py``: constant work per request, whatever its size.

``python benchmarks/proxy_upstream.py --ports direct=P1,contextfold=P2,...`` listens on one loopback port per
benchmark arm (so what each arm forwarded is told apart without trusting a proxy to relay a marker header). A
``POST`` is read whole but not parsed (a parse would cost the upstream time in proportion to the body and so credit a
proxy that forwards less); the answer is a short fixed reply in the request's wire format, streamed as server-sent
events when the body says ``"stream":true`` (Anthropic messages, Chat Completions or Responses, chosen by the path),
with usage. Bodies are kept in memory per port; ``GET /bench/take`` returns and forgets them (each as an 8-byte
big-endian length and the bytes). ``GET /healthz`` answers 200.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> list[bytes]:
    out = []
    for name, data in events:
        frame = (f"event: {name}\n" if name else "") + "data: " + json.dumps(data) + "\n\n"
        out.append(frame.encode())
    return out


def _anthropic(stream: bool) -> tuple[str, list[bytes] | bytes]:
    usage = {"input_tokens": 1000, "output_tokens": 2, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    if not stream:
        done = {**message, "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"}
        return "application/json", json.dumps(done).encode()
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _chat(stream: bool) -> tuple[str, list[bytes] | bytes]:
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 2,
        "total_tokens": 1002,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    base = {"id": "chatcmpl-bench", "created": 1700000000, "model": "gpt-4.1"}
    if not stream:
        choice = {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        return "application/json", json.dumps(
            {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
        ).encode()
    chunk = {**base, "object": "chat.completion.chunk"}
    frames = _sse(
        [
            (
                None,
                {
                    **chunk,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                },
            ),
            (None, {**chunk, "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": None}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            (None, {**chunk, "choices": [], "usage": usage}),
        ]
    )
    return "text/event-stream", [*frames, b"data: [DONE]\n\n"]


def _responses(stream: bool) -> tuple[str, list[bytes] | bytes]:
    usage = {
        "input_tokens": 1000,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 2,
        "total_tokens": 1002,
    }
    item = {
        "type": "message",
        "id": "msg_bench",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}],
    }
    response = {
        "id": "resp_bench",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-5",
        "output": [],
        "status": "in_progress",
        "usage": None,
    }
    done = {**response, "status": "completed", "output": [item], "usage": usage}
    if not stream:
        return "application/json", json.dumps(done).encode()
    return "text/event-stream", _sse(
        [
            ("response.created", {"type": "response.created", "sequence_number": 0, "response": response}),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "sequence_number": 1,
                    "output_index": 0,
                    "item": {**item, "status": "in_progress", "content": []},
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "sequence_number": 2,
                    "item_id": "msg_bench",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": "ok",
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item},
            ),
            ("response.completed", {"type": "response.completed", "sequence_number": 4, "response": done}),
        ]
    )


class _Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bodies: list[bytes] = []

    def take(self) -> bytes:
        with self.lock:
            bodies, self.bodies = self.bodies, []
        return b"".join(len(b).to_bytes(8, "big") + b for b in bodies)


def make_handler(recorder: _Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True
        timeout = 600

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, content_type: str, payload: list[bytes] | bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            if isinstance(payload, bytes):
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for frame in payload:
                self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                self._send(200, "application/json", b'{"status":"ok"}')
            elif path == "/bench/take":
                self._send(200, "application/octet-stream", recorder.take())
            elif path.endswith("/models"):
                self._send(200, "application/json", b'{"object":"list","data":[]}')
            else:
                self._send(404, "application/json", b'{"error":{"type":"not_found_error","message":"no route"}}')

        def do_POST(self) -> None:
            if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
                parts = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                raw = b"".join(parts)
            else:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?", 1)[0]
            stream = b'"stream":true' in raw or b'"stream": true' in raw
            if path.endswith("/messages"):
                content_type, payload = _anthropic(stream)
            elif path.endswith("/chat/completions"):
                content_type, payload = _chat(stream)
            elif path.endswith("/responses"):
                content_type, payload = _responses(stream)
            else:
                self._send(404, "application/json", b'{"error":{"type":"not_found_error","message":"no route"}}')
                return
            if path.endswith(("/messages", "/chat/completions", "/responses")):
                with recorder.lock:
                    recorder.bodies.append(raw)
            self._send(200, content_type, payload)

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ports", required=True, help="NAME=PORT,... (one listener each)")
    args = parser.parse_args(argv)
    servers = []
    for spec in args.ports.split(","):
        _, _, port = spec.partition("=")
        server = ThreadingHTTPServer(("127.0.0.1", int(port)), make_handler(_Recorder()))
        server.daemon_threads = True
        servers.append(server)
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True) for s in servers]
    for t in threads:
        t.start()
    try:
        for t in threads:
            t.join()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
