"""Run the proxy app on uvicorn in a background thread on a free loopback port (for SDK tests)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from contextfold.proxy import ProxyConfig, create_app

__all__ = ["ProxyProcess", "free_port", "running_proxy"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ProxyProcess:
    """A proxy served by uvicorn in a thread; ``lines`` collects its log lines."""

    def __init__(self, config: ProxyConfig) -> None:
        self.lines: list[str] = []
        self.app = create_app(config, log=self.lines.append)
        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        )
        self.thread = threading.Thread(target=self.server.run, name="proxy", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ProxyProcess:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("proxy did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@contextmanager
def running_proxy(**settings: Any) -> Iterator[ProxyProcess]:
    proc = ProxyProcess(ProxyConfig(**settings)).start()
    try:
        yield proc
    finally:
        proc.stop()
