"""Install the pinned Claude Code and Codex CLI into the e2e cache (``make e2e`` runs this first).

Usage: ``python tests/e2e/install_clients.py [--cache DIR]``. A no-op when both clients are there at the pinned
versions; otherwise ``npm install --prefix DIR`` from the npm registry. Exits 1 with the reason when the
clients cannot be installed or do not run (no npm, no registry, a wrong version), so CI fails instead of
skipping the end-to-end tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import agent_clients as agents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help="npm prefix (default: %(default)s)")
    args = parser.parse_args(argv)
    cache = args.cache or agents.cache_dir()
    start = time.monotonic()
    try:
        agents.install(cache)
    except RuntimeError as exc:
        print(f"make e2e: cannot install the end-to-end clients into {cache}: {exc}", file=sys.stderr)
        return 1
    versions = ", ".join(f"{c.package}@{c.version}" for c in agents.CLIENTS)
    print(f"e2e clients ready in {cache} ({versions}; {time.monotonic() - start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
