"""One racer of the multi-process compare-and-set test: open the store, wait for the start signal, try to write.

``python cas_racer.py URL FOLDER N``: opens the store at URL, touches FOLDER/ready-N, waits for FOLDER/go,
then for each round r (1, 2, 3) reads the lineage, waits until every racer has read (FOLDER/write-r), and
tries to store covered=N at the version it read;
prints one line per round, ``won`` or ``lost``. Exactly one racer per round may win.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from contextfold.proxy import LineageRecord, open_store

ROUNDS = 3


async def main(url: str, folder: Path, n: int) -> None:
    store = open_store(url, retention=None)
    await store.ping()
    (folder / f"ready-{n}").touch()
    deadline = time.monotonic() + 120
    while not (folder / "go").exists():
        if time.monotonic() > deadline:
            raise SystemExit("no start signal")
        await asyncio.sleep(0.001)
    for r in range(1, ROUNDS + 1):
        while not (folder / f"round-{r}").exists():
            await asyncio.sleep(0.001)
        current = await store.get_lineage("t", "s", "l")
        version = current.version if current is not None else 0
        (folder / f"read-{r}-{n}").touch()
        while not (folder / f"write-{r}").exists():  # every racer has read the same version: now all write at once
            await asyncio.sleep(0.001)
        record = LineageRecord(
            tenant="t", session="s", lineage="l", covered=n, covered_hash=f"h{n}", replacement=f"[{n}]".encode()
        )
        won = await store.put_lineage(record, expected_version=version) is not None
        print(f"{r} {'won' if won else 'lost'} {version}", flush=True)
        (folder / f"done-{r}-{n}").touch()
    await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])))
