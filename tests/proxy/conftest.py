from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from proxy_harness import ProxyProcess

from contextfold.proxy import ProxyConfig
from provider_server import ProviderServer


@pytest.fixture
def upstream() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        yield server


@pytest.fixture
def make_proxy(upstream: ProviderServer, tmp_path: Path) -> Iterator[object]:
    started: list[ProxyProcess] = []

    def make(**settings: object) -> ProxyProcess:
        settings.setdefault("anthropic_upstream", upstream.anthropic_base_url)
        settings.setdefault("openai_upstream", upstream.openai_base_url)
        settings.setdefault("state_dir", tmp_path / "state")
        proc = ProxyProcess(ProxyConfig(**settings)).start()  # type: ignore[arg-type]
        started.append(proc)
        return proc

    yield make
    for proc in started:
        proc.stop()
