"""Offloading benchmark: split + write a large tool result, read a 200-line window back.

Run: .venv/bin/python benchmarks/bench_offload.py [--sizes 1,10,40]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import tracemalloc

from contextfold._messages import TextBlock, ToolResultBlock
from contextfold._tokens._counting import BytesCounter
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._readback import read_offloaded
from contextfold._workspace._split import offload_oversized_result, split_tool_result

MB = 1024 * 1024
LINE = "2025-01-31T12:00:00Z INFO worker-07 processed request id=0123456789 status=200 bytes=4096\n"


def make_text(size: int) -> str:
    return (LINE * (size // len(LINE) + 1))[:size]


def best(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


async def offload_once(text: str, root: str, *, trace: bool) -> tuple[float, float, int, int]:
    """Time (without tracemalloc) or measure peak memory (with it) of one offload and one read."""
    block = ToolResultBlock(call_id="c1", content=(TextBlock(text=text),), name="logs")
    ws = LocalWorkspace(root, f"bench-{len(text)}-{int(trace)}")
    counter = BytesCounter()
    if trace:
        tracemalloc.start()
    t0 = time.perf_counter()
    _kept, ref = await offload_oversized_result(block, limit=50_000, counter=counter, offloader=ws)
    t1 = time.perf_counter()
    peak_offload = tracemalloc.get_traced_memory()[1] if trace else 0
    del _kept
    if trace:
        tracemalloc.stop()
        tracemalloc.start()
    assert ref is not None
    t2 = time.perf_counter()
    window = read_offloaded(ws, ref.path, offset=len(text) // len(LINE) // 2, limit=200)
    t3 = time.perf_counter()
    peak_read = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    assert window.count("\n") == 200
    return t1 - t0, t3 - t2, peak_offload, peak_read


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,10,40")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    counter = BytesCounter()
    print(
        "| size | split only (best of 3) | split per MB | offload (split + write, fsync) "
        "| read 200 lines | peak mem offload | peak mem read |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as root:
        for mb in sizes:
            text = make_text(mb * MB)
            block = ToolResultBlock(call_id="c1", content=(TextBlock(text=text),))
            split_s = best(lambda b=block: split_tool_result(b, limit=50_000, counter=counter))
            off_s, read_s, _, _ = asyncio.run(offload_once(text, root, trace=False))
            _, _, peak_off, peak_read = asyncio.run(offload_once(text, root, trace=True))
            print(
                f"| {mb} MB | {split_s * 1000:.1f} ms | {split_s * 1000 / mb:.2f} ms | {off_s * 1000:.1f} ms "
                f"| {read_s * 1000:.1f} ms | {peak_off / MB:.1f} MiB | {peak_read / MB:.2f} MiB |"
            )


if __name__ == "__main__":
    main()
