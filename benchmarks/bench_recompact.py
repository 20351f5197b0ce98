"""Compacting a compacted transcript: what survives a second `contextfold compact`, this tree against another revision.

A transcript compacted once goes out in a provider format (a file, or a client resending it to the proxy) and comes
back without contextfold's meta; compacting it again must still treat the summary as a summary. For every
conversation of ``../shared/corpus/dev``:

- ``once``: the original, compacted at the smaller window;
- ``twice (FORMAT)``: compacted at the larger window, written as a FORMAT transcript file and read back, then
  compacted at the smaller window.

Each compaction is what ``contextfold compact`` does (append, compact once when over the trigger; default digest
strategy and counter). Measured: the distinct file paths and commands of the original conversation still verbatim in
the result (items as in bench_quality.py), and the length of the read-back summary's line in a Truncated-tier digest
(``digest_lines``; the summary's own fidelity is 1,600 characters, a user line's 400).

    .venv/bin/python benchmarks/bench_recompact.py --against 6e4f49d --md benchmarks/results/recompaction.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CANDIDATES = (ROOT.parent / "shared", ROOT.parent.parent / "shared")
SHARED = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
PAIRS = ((32_000, 16_000), (16_000, 8000), (64_000, 16_000))
FORMATS = ("openai", "anthropic")

_MEASURE = r"""
import asyncio, json, os, sys, tempfile
from contextfold import ContextConfig, LocalWorkspace, Transcript, dump_transcripts, load_transcript, to_canonical
from contextfold._cli._compact import compact_transcript
from contextfold._errors import BudgetError
from contextfold._messages import iter_text
from contextfold._tokens._factory import make_counter
from contextfold.compaction._boundaries import last_user_index
from contextfold.compaction._digest import Tier, digest_lines
from benchmarks.bench_quality import enum_tools, items, load

pairs, formats = json.loads(sys.argv[1]), json.loads(sys.argv[2])
counter = make_counter()
tmp = tempfile.mkdtemp(prefix="cf-recompact-")
def compact(t, window):
    ws = LocalWorkspace(tempfile.mkdtemp(dir=tmp))
    return asyncio.run(compact_transcript(t, config=ContextConfig(window=window), counter=counter, workspace=ws))
def through_file(t, fmt):
    path = os.path.join(tmp, "t.json")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(dump_transcripts([Transcript(messages=t.messages, tools=t.tools, format=fmt, shape="object")]))
    return load_transcript(path)
out = {}
for first, second in pairs:
    row = {"conversations": 0, "items": 0, "once": 0, "fit once": 0, **{f"twice {f}": 0 for f in formats},
           **{f"fit twice {f}": 0 for f in formats}, **{f"turn lost {f}": 0 for f in formats}, "with turn": 0,
           "summary line": [], "skipped": 0}
    for c in load([sys.argv[3]]):
        t0 = Transcript(messages=tuple(to_canonical(c["messages"], "openai")), format="openai", shape="object")
        skip = enum_tools(c.get("tools"))
        base = {i for m in t0.messages for i in items(m, skip) if i[0] in ("path", "cmd")}
        def kept(t):
            text = "\n".join(x for m in t.messages for x in iter_text(m))
            return sum(1 for i in base if i[1] in text)
        limit = ContextConfig(window=second).trigger_tokens
        try:
            once = compact(t0, second)
            earlier = compact(t0, first)
            twice = {f: compact(through_file(earlier.transcript, f), second) for f in formats}
        except BudgetError:
            row["skipped"] += 1
            continue
        row["conversations"] += 1
        row["items"] += len(base)
        row["once"] += kept(once.transcript)
        row["fit once"] += once.tokens_after <= limit
        latest = last_user_index(earlier.transcript.messages)  # meta intact here: the latest real user turn
        row["with turn"] += latest is not None
        for f, r in twice.items():
            row[f"twice {f}"] += kept(r.transcript)
            row[f"fit twice {f}"] += r.tokens_after <= limit
            if latest is not None:
                turn = earlier.transcript.messages[latest].text
                row[f"turn lost {f}"] += not any(turn in m.text for m in r.transcript.messages)
        if earlier.compaction is not None:
            back = through_file(earlier.transcript, "openai").messages[1]
            row["summary line"].append(len(digest_lines(back, Tier.TRUNCATED, {})[0]))
    out[f"{first}->{second}"] = row
print(json.dumps(out))
"""


def _measure(tree: Path, corpus: Path) -> dict[str, dict[str, object]]:
    code = f"import sys; sys.path[:0] = {[str(tree / 'src'), str(tree)]!r}\n" + _MEASURE
    args = [json.dumps(PAIRS), json.dumps(FORMATS), str(corpus)]
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_recompact: the measure failed in {tree}:\n{done.stderr.strip()}")
    result: dict[str, dict[str, object]] = json.loads(done.stdout)
    return result


def _export(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src", "benchmarks"], capture_output=True, check=True
    ).stdout
    (into / "tree.tar").write_bytes(archive)
    with tarfile.open(into / "tree.tar") as tar:
        tar.extractall(into, filter="data")
    # The measure imports this tree's bench_quality helpers (items, load), whatever the other revision had.
    (into / "benchmarks" / "bench_quality.py").write_text((ROOT / "benchmarks" / "bench_quality.py").read_text())
    return into


def _table(label: str, results: dict[str, dict[str, object]]) -> list[str]:
    lines = [
        f"**{label}**",
        "",
        "| windows | conversations | items | once | twice (openai file) | twice (anthropic file) | fit (once / twice) "
        "| latest user turn compacted (openai / anthropic) | read-back summary line |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for pair, row in results.items():
        items = int(row["items"])  # type: ignore[call-overload]
        n = int(row["conversations"])  # type: ignore[call-overload]

        def share(key: str, row: dict[str, object] = row, items: int = items) -> str:
            value = int(row[key])  # type: ignore[call-overload]
            return f"{value} ({value / items:.1%})"

        fits = f"{row['fit once']}/{n} / " + ", ".join(f"{row[f'fit twice {f}']}/{n}" for f in FORMATS)
        line = row["summary line"]
        assert isinstance(line, list)
        mean = f"{sum(line) / len(line):,.0f} chars" if line else "-"
        turns = f"{row['turn lost openai']} / {row['turn lost anthropic']} of {row['with turn']}"
        lines.append(
            f"| {pair} | {n} | {items} | {share('once')} | {share('twice openai')} | {share('twice anthropic')} "
            f"| {fits} | {turns} | {mean} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="another git revision, measured side by side (e.g. main)")
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpus" / "dev")
    parser.add_argument("--md", type=Path, help="write the results section here")
    args = parser.parse_args()
    mine = _measure(ROOT, args.corpus)
    sections = [_table("this tree", mine)]
    if args.against:
        with tempfile.TemporaryDirectory(prefix="cf-recompact-") as tmp:
            theirs = _measure(_export(args.against, Path(tmp)), args.corpus)
        sections.append(_table(f"revision {args.against}", theirs))
    cpu = next(
        (ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if "model name" in ln),
        platform.processor(),
    )
    against = f" --against {args.against}" if args.against else ""
    command = f"    .venv/bin/python benchmarks/bench_recompact.py{against}"
    text = "\n".join(
        [
            "## Compacting a compacted transcript",
            "",
            f"Machine: Python {platform.python_version()}, {cpu}, nproc = {os.cpu_count()} (shared). "
            f"Corpus: `{args.corpus.name}/` of the shared corpus. Command:",
            "",
            command,
            "",
            "Items: distinct file paths and commands of the original conversation still verbatim after compaction. "
            "*once*: compacted at the smaller window; *twice*: compacted at the larger window, written as a "
            "transcript file in that format and read back (contextfold's meta is lost), then compacted at the "
            "smaller window. *fit*: results at or under the trigger. *latest user turn compacted*: conversations "
            "whose latest real user turn (after the first compaction) is no longer verbatim after the second; the "
            "design keeps it unless it and what follows exceed the budget, the same for both formats. *read-back "
            "summary line*: mean length of the read-back summary's line in a Truncated-tier digest (a summary keeps "
            "1,600 characters there, a user line 400).",
            "",
            *(line for section in sections for line in [*section, ""]),
            "Reading: before the summary fix (issue 13 item 4), a summary read back from a file lost its meta and "
            "was a user turn to the boundary finder and the digest (its digest line cut to 400 characters). An "
            "Anthropic file also merges the summary with the user turn after it into one message; read back, that "
            "message was the latest user turn, compacted with the summary, which freed room and kept more items "
            "but broke the rule that the latest user turn stays verbatim. With the fix, both formats read back "
            "to the same messages and compact the same way.",
            "",
        ]
    )
    print(text)
    if args.md:
        args.md.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
