"""The guard corpus parts (tests/data/guard/*.jsonl): well-formed, disjoint, eval8 / eval9 as built."""

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


def _built(builder: str, part: str, round_: str) -> list[dict[str, str]]:
    # The builder's rows, in order, minus any text another part already holds (write_frozen_split's rule).
    spec = importlib.util.spec_from_file_location(builder, DATA / f"{builder}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    others = {r["text"] for p in DATA.glob("*.jsonl") if p.stem != part for r in _rows(p.stem)}
    return [{**r, "round": round_} for r in module.injections() + module.benign() if r["text"] not in others]


def test_eval8_is_what_build_round11_writes() -> None:
    assert _built("build_round11", "eval8", "11") == _rows("eval8")


def test_eval9_rows_are_well_formed() -> None:
    # Round 15's blind part: ~100 injections, ~150 benign, >= 25 % of injections not in English, a page per row.
    rows = _rows("eval9")
    assert all(set(r) == FIELDS and r["round"] == "15" and r["text"].strip() for r in rows)
    injections = [r for r in rows if r["label"] == "injection"]
    benign = [r for r in rows if r["label"] == "benign"]
    assert len(injections) >= 100 and len(benign) >= 150 and len(rows) == len(injections) + len(benign)
    assert sum(r["language"] != "en" for r in injections) >= len(injections) / 4
    assert len({r["language"] for r in rows}) >= 10
    shaped = "written here for round 15 (MIT, this repository); shape after http"
    assert all(r["source"].startswith(shaped) for r in rows)


def test_eval9_is_what_build_round15_writes() -> None:
    assert _built("build_round15", "eval9", "15") == _rows("eval9")
