"""The guard corpus parts (tests/data/guard/*.jsonl): well-formed, disjoint, and eval8 as its builder writes it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "guard"
FIELDS = {"text", "label", "category", "source", "technique", "language", "round"}


def _rows(part: str) -> list[dict[str, str]]:
    return [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").split("\n") if x]


def test_parts_are_pairwise_disjoint() -> None:
    seen: dict[str, str] = {}
    for path in sorted(DATA.glob("*.jsonl")):
        for r in _rows(path.stem):
            assert seen.setdefault(r["text"], path.stem) == path.stem, (path.stem, seen[r["text"]], r["text"][:80])


def test_eval8_rows_are_well_formed() -> None:
    rows = _rows("eval8")
    assert len(rows) >= 250
    assert all(set(r) == FIELDS and r["round"] == "11" and r["text"].strip() for r in rows)
    assert {r["label"] for r in rows} == {"injection", "benign"}
    benign = sum(r["label"] == "benign" for r in rows)
    assert 0.55 <= benign / len(rows) <= 0.7  # benign look-alikes weigh more (issue 14's false-positive target)
    assert all(r["source"].startswith("written here for round 11") for r in rows)
    assert len({r["language"] for r in rows}) >= 10


def test_eval8_is_what_build_round11_writes() -> None:
    # The builder's rows, in order, minus any text another part already holds (write_frozen_split's rule).
    spec = importlib.util.spec_from_file_location("build_round11", DATA / "build_round11.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    others = {r["text"] for p in DATA.glob("*.jsonl") if p.stem != "eval8" for r in _rows(p.stem)}
    built = [{**r, "round": "11"} for r in module.injections() + module.benign() if r["text"] not in others]
    assert built == _rows("eval8")
