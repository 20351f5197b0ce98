"""A minimal pass-through proxy with ``contextfold proxy``'s command line: forwards every byte, changes nothing.

``python tests/e2e/passthrough_proxy.py --port P --anthropic-upstream URL --openai-upstream URL/v1
[--window N] [--state DIR]`` (``--window`` and ``--state`` are accepted and ignored). ``GET /healthz`` answers
200. Paths under ``/v1/messages`` go to the Anthropic upstream, everything else under ``/v1/`` to the OpenAI one;
request bodies are read whole, responses (SSE included) are relayed chunk by chunk as they arrive.

It exists to test the harness's through-proxy path without the real proxy: through it every check but the fit
must pass and the fit must fail, exactly as direct. It is also the floor any proxy pays, for comparisons.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
}


def _target(path: str, anthropic: str, openai: str) -> tuple[urllib.parse.SplitResult, str]:
    if path.startswith("/v1/messages"):
        base = urllib.parse.urlsplit(anthropic)
        return base, base.path.rstrip("/") + path
    base = urllib.parse.urlsplit(openai)
    rest = path[len("/v1") :] if path.startswith("/v1") else path
    return base, base.path.rstrip("/") + rest


def make_handler(anthropic: str, openai: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 600
        disable_nagle_algorithm = True  # headers and chunks go out in separate writes: avoid 40 ms delayed-ACK stalls

        def log_message(self, *args: Any) -> None:
            pass

        def _relay(self) -> None:
            if self.path == "/healthz":
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
                return
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            base, path = _target(self.path, anthropic, openai)
            connection = http.client.HTTPConnection(base.hostname or "127.0.0.1", base.port or 80, timeout=600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            headers["content-length"] = str(len(body))
            try:
                connection.request(
                    self.command, path, body=body if body or self.command == "POST" else None, headers=headers
                )
                answer = connection.getresponse()
            except OSError:
                self.close_connection = True  # the upstream dropped us: drop the client (it retries)
                return
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in _HOP_BY_HOP:
                    self.send_header(key, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                while chunk := answer.read1(65536):
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                self.close_connection = True
            finally:
                connection.close()

        do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _relay

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8787)
    parser.add_argument("--anthropic-upstream", default="https://api.anthropic.com")
    parser.add_argument("--openai-upstream", default="https://api.openai.com/v1")
    parser.add_argument("--window", type=int, default=None)
    parser.add_argument("--state", default=None)
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(args.anthropic_upstream, args.openai_upstream))
    server.daemon_threads = True
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
