"""benchmarks/bench_adapters.py: each adapter strategy runs in the fidelity harness, valid and within the window."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_adapters", ROOT / "benchmarks" / "bench_adapters.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_adapters"] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()
pytestmark = pytest.mark.skipif(bench.fb is None, reason=f"the shared harness is not at {bench.HARNESS}")


def _conversation(steps: int = 40) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the bug in /srv/app/main.py"},
    ]
    for i in range(steps):
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": f"cat /srv/app/mod_{i}.py"})},
        }
        messages.append({"role": "assistant", "content": f"step {i}", "tool_calls": [call]})
        messages.append(
            {"role": "tool", "tool_call_id": f"c{i}", "content": f"/srv/app/mod_{i}.py\n" + "x = 1\n" * 200}
        )
    messages.append({"role": "assistant", "content": "done"})
    return {"id": "synthetic", "messages": messages, "tools": []}


@pytest.mark.parametrize("name", (*bench.OURS, "oa_trimmer"))
def test_each_strategy_replays_valid_and_fits(name: str) -> None:
    fb = bench.fb
    cd = fb.ConvData(_conversation())
    window = 4000
    adapter = fb.STRATEGIES[name]()
    try:
        rows = fb.replay(cd, adapter, window, 1)["rows"]
    finally:
        loop = getattr(adapter, "loop", None)
        if loop is not None:
            loop.close()
    assert rows and all(r["valid"] for r in rows)
    if name != "oa_trimmer":  # the SDK's trimmer only shortens old outputs; it does not keep the window
        assert all(r["fit"] for r in rows), [r["tokens"] for r in rows]
        assert any(r["changed"] for r in rows)  # it compacted
