"""Assemble BENCHMARKS.md from the per-topic results that each benchmark script writes.

Each script under ``benchmarks/`` writes its tables, with the command and the
machine, to ``benchmarks/results/<topic>.md``; this joins them in a fixed order
under one table of contents, so the figures live in one place and are never
copied by hand.

    .venv/bin/python benchmarks/build_report.py
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

SECTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("tokens", "Token counting", "#2", "accuracy per category and tokenizer; speed vs agentscope and langchain-core"),
    ("formats", "Provider formats", "#2", "conversion speed, OpenAI and Anthropic, both directions"),
    ("cli", "CLI", "#2", "`count`, `inspect`, `validate` on the largest corpus file"),
    ("cli-limits", "CLI limits", "#14", "`validate`/`inspect` at 100,000 tool calls, a gzip bomb, `/dev/zero`"),
    ("offload", "Offloading", "#3", "split and write a 10 MB tool result, read a window back; memory peak"),
    ("workspace-hardening", "Workspace hardening", "#14", "split failures, superseded files, hung searches"),
    ("compaction-perf", "Compaction engine", "#4", "`Context` replay, agentscope harness, trim_messages, invariants"),
    ("hints", "Runtime hints", "#5", "per-call cost of hint decisions and prompt layers"),
    ("guard", "Guard", "#6, #14", "recall, false positives (4 splits, learned on and off), throughput"),
    ("models", "Model adapters", "#7", "per-call overhead over the bare official SDKs"),
    ("demo", "Demo", "#7", "per-turn overhead of the context layer, tokens sent vs a naive loop"),
    ("compaction-quality", "Compaction quality", "#8", "retention, prompt cache, tier use, peers side by side"),
    ("recompaction", "Compacting a compacted transcript", "#13", "a summary read back from a file is still a summary"),
    ("import", "Import time", "#13", "`import contextfold` in a fresh process against its dependencies"),
    (
        "proxy",
        "Proxy",
        "#15",
        "direct, pass-through, contextfold and Headroom side by side: added latency, TTFB, tokens, cache-weighted "
        "cost, retention; the compaction policy sweep; real vs virtual usage over 500 turns; where a request's time "
        "goes, phase by phase",
    ),
    (
        "adapters",
        "Framework adapters",
        "#17",
        "pydantic-ai, LangChain, Agents SDK adapters vs their own compaction",
    ),
    ("scale", "Scale-out", "#16", "shared stores side by side: added latency, replicas' throughput, identical bytes"),
)

HEADER = """# Benchmarks

Every figure below was measured on this project's machine kind (2 cores, AMD EPYC, 24 GiB, Python 3.11.7) with the
command written next to it. The machines are shared and noisy, so peers always run side by side in the same
process or session and are compared as ratios; absolute times move by tens of percent between runs. Peer libraries
come from the `bench` extra (`pip install -e '.[dev,bench]'`), except AgentScope 2.0.6, which pins `mcp<2` and
so has a venv of its own (`make bench` makes `.venv-agentscope` with `.[bench,bench-agentscope,tiktoken]`);
benchmarks that replay the corpus read
`../shared/corpus` (present on the project's machines, not in a user's clone).

This file is assembled by `.venv/bin/python benchmarks/build_report.py` from `benchmarks/results/*.md`, which the
benchmark scripts write.

"""


def _section(topic: str, title: str) -> str:
    text = (RESULTS / f"{topic}.md").read_text(encoding="utf-8").strip()
    lines = text.splitlines()
    top = min((len(m.group(1)) for line in lines if (m := re.match(r"^(#+) ", line))), default=2)
    shift = 2 - top
    out: list[str] = []
    fenced = False
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        heading = re.match(r"^(#+) (.*)$", line)
        if heading and not fenced:
            if index == 0:
                out.append(f"## {title}")
                original = heading.group(2).strip()
                if original.lower() != title.lower():
                    out.append("")
                    out.append(f"*{original}*")
                continue
            out.append("#" * max(3, len(heading.group(1)) + shift) + " " + heading.group(2))
        else:
            out.append(line)
    if not lines or not re.match(r"^#+ ", lines[0]):
        out.insert(0, f"## {title}\n")
    return "\n".join(out)


def build() -> str:
    """The whole BENCHMARKS.md text."""
    toc = ["| section | issue | what |", "|---|---|---|"]
    for _topic, title, issue, what in SECTIONS:
        anchor = re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
        toc.append(f"| [{title}](#{anchor}) | {issue} | {what} |")
    body = [_section(topic, title) for topic, title, _issue, _what in SECTIONS]
    return HEADER + "\n".join(toc) + "\n\n" + "\n\n".join(body) + "\n"


def main() -> None:
    (ROOT / "BENCHMARKS.md").write_text(build(), encoding="utf-8")


if __name__ == "__main__":
    main()
