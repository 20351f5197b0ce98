"""The guard on the kinds issue 14 names for its held-out set, one by one (a checklist, not a measure).

``benchmarks/guard_kinds.json`` holds three small sets written here for those kinds (injections in six languages,
persona reassignment, fake role headers, lasting changes, orders addressed to an AI, encoded forms; benign docs
about chat-template tokens and tool-call tags, password UI text, developer-mode settings, code on prompt
variables). Rules were fitted to the first two, so their figures say what the named kinds do, not how the guard
generalizes; the third was written and committed before round 8 changed any rule, and is read once before and once
after that round.

Run: .venv/bin/python benchmarks/guard_kinds.py [--misses]
(another revision: ``git worktree add /tmp/rev REV`` and ``PYTHONPATH=/tmp/rev/src`` before the command).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contextfold import scan_injection

SETS = json.loads((Path(__file__).parent / "guard_kinds.json").read_text(encoding="utf-8"))


def blocked(text: str) -> bool:
    return any(f.blocking for f in scan_injection(text))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--misses", action="store_true", help="print the strings the guard gets wrong")
    ap.add_argument("--sets", default="first,second,third", help="which sets (comma-separated)")
    args = ap.parse_args()
    for name in args.sets.split(","):
        part = SETS[name]
        missed = [r for r in part["injection"] if not blocked(r["text"])]
        flagged = [t for t in part["benign"] if blocked(t)]
        n_inj, n_ben = len(part["injection"]), len(part["benign"])
        print(f"{name}: recall {n_inj - len(missed)}/{n_inj}, false positives {len(flagged)}/{n_ben}")
        if args.misses:
            for r in missed:
                print(f"  missed [{r['kind']}] {r['text'][:90]!r}")
            for t in flagged:
                print(f"  flagged {t[:90]!r}")


if __name__ == "__main__":
    main()
