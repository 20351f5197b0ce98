"""Offloading benchmark: split + write a large tool result, read a 200-line window back.

Run: .venv/bin/python benchmarks/bench_offload.py [--sizes 1,10,40]
     .venv/bin/python benchmarks/bench_offload.py --durability [--items 40]

``--durability``: the proxy's first-sight cut (an 80 KB tool result cut to 2,000 tokens with the default
counter), one distinct result per item, ``LocalWorkspace(durable=True)`` (three fsyncs) against
``durable=False`` (the proxy's), alternating, in one run: wall and CPU ms per item, medians.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import tracemalloc

from contextfold import make_counter
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


async def durability(items: int) -> None:
    counter = make_counter()
    times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as root:
        for i in range(items):
            for durable in (True, False):
                text = f"item {i} durable={durable}\n" + make_text(80 * 1024)
                block = ToolResultBlock(call_id=f"c{i}", content=(TextBlock(text=text),), name="logs")
                ws = LocalWorkspace(root, f"d{int(durable)}", durable=durable)
                wall, cpu = time.perf_counter(), time.process_time()
                _kept, ref = await offload_oversized_result(block, limit=2000, counter=counter, offloader=ws)
                times[durable].append((time.perf_counter() - wall, time.process_time() - cpu))
                assert ref is not None
    print(f"{items} items of 80 KB, cut to 2,000 tokens (default counter), median ms per item:")
    print("| workspace | wall | CPU |")
    print("|---|---:|---:|")
    for durable in (True, False):
        wall = statistics.median(t[0] for t in times[durable]) * 1000
        cpu = statistics.median(t[1] for t in times[durable]) * 1000
        print(f"| durable={durable} | {wall:.2f} | {cpu:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,10,40")
    parser.add_argument("--durability", action="store_true", help="durable against non-durable writes, per item")
    parser.add_argument("--items", type=int, default=40)
    args = parser.parse_args()
    if args.durability:
        asyncio.run(durability(args.items))
        return
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
