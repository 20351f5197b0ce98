"""Check issue 4's "done when" on the corpus: valid, within budget, and nothing lost.

For every transcript of the corpus, at every window, through the library path
of ``contextfold compact`` (`compact_transcript`: offload oversized tool
results, then compact once), with a real `LocalWorkspace`:

1. the output is accepted by both providers: it renders, and the validator
   finds no blocking problem the input did not already have (tau-bench's
   GPT-4o transcripts reuse call ids, which Anthropic rejects; those are
   reported as inherited);
2. it fits: within the budget (window × trigger / safety margin) after a
   compaction, under the trigger when none was needed;
3. nothing is lost: the summary's archive read back with ``read_messages``
   and the offloaded tool-result files put back into their truncated results
   re-form the input message list exactly (compared as canonical JSONL,
   i.e. byte for byte).

Modes: ``trigger`` compacts only when over the trigger (the CLI default);
``forced`` always compacts (``--force``), so the archive round trip is also
checked on conversations that already fit. Exit status 1 on any failure.

Run from the repository root::

    .venv/bin/python benchmarks/check_corpus.py [--corpus DIR] [--windows 16000,32000,128000]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextfold._cli._compact import compact_transcript
from contextfold._config import ContextConfig
from contextfold._context import CompactionReport
from contextfold._formats import render
from contextfold._formats._transcript import Transcript, load_transcripts
from contextfold._formats._validate import validate
from contextfold._markers import REATTACHED_MARKER, SUMMARY_MARKER, is_placeholder_text, is_summary, marker
from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock
from contextfold._tokens._counting import count_messages, count_tools
from contextfold._tokens._factory import make_counter
from contextfold._workspace._codec import messages_to_jsonl
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef

CORPUS = "/work/shared/corpus/dev"
PROVIDERS = ("openai", "anthropic")
MODES = ("trigger", "forced")


@dataclass
class Outcome:
    """The checks of one conversation at one window and mode."""

    compacted: bool = False
    offloaded: int = 0
    tokens_after: int = 0
    limit: int = 0
    messages_checked: int = 0
    new_problems: int = 0
    inherited_problems: int = 0
    failures: list[str] = field(default_factory=list)


def same(a: Sequence[Message], b: Sequence[Message]) -> bool:
    """Byte-for-byte equality of two message lists in the canonical (archive) JSONL encoding."""
    return messages_to_jsonl(a) == messages_to_jsonl(b)


def made_by_us(message: Message) -> bool:
    """A message contextfold wrote (summary, re-attached notes): not part of the input."""
    return marker(message.meta) in (SUMMARY_MARKER, REATTACHED_MARKER)


def rewritten(message: Message) -> bool:
    """A kept message rewritten in place (a result cleared or deduplicated to a placeholder)."""
    for block in message.content:
        inner = block.content if isinstance(block, ToolResultBlock) else (block,)
        if any(is_placeholder_text(b) for b in inner):
            return True
    return False


_MEDIA_PATH = re.compile(r"\bmedia/[\w.-]+[\w]")


def _flat(block: ToolResultBlock, text: str, data: Sequence[DataBlock]) -> ToolResultBlock:
    first = next((b for b in block.content if isinstance(b, TextBlock)), None)
    content = (TextBlock(text=text, meta=first.meta if first is not None else {}), *data)
    return ToolResultBlock(
        call_id=block.call_id, content=content, is_error=block.is_error, name=block.name, meta=block.meta
    )


def flatten(message: Message, call_ids: AbstractSet[str]) -> Message:
    """Results of ``call_ids`` as one text block (their joined text) followed by their media, in order.

    The offloaded rest is stored as one text file plus one file per media
    block, so where media sat between text blocks is not recorded: truncated
    results are compared in this form (text exact, media exact, in order).
    """
    if message.role != "tool":
        return message
    content = tuple(
        _flat(b, b.text, [d for d in b.content if isinstance(d, DataBlock)])
        if isinstance(b, ToolResultBlock) and b.call_id in call_ids
        else b
        for b in message.content
    )
    return message.replace(content=content)


def untruncate(message: Message, refs: dict[str, OffloadRef], ws: LocalWorkspace) -> Message:
    """Put the offloaded rest of each truncated result back, in the `flatten` form (notice dropped).

    The workspace file holds the whole original text (``_split``; ``ref`` is
    a media item when only media were cut off, and the kept text is whole);
    media after the cut are read back from the files the notice names.
    """
    if message.role != "tool":
        return message
    blocks: list[Any] = []
    for block in message.content:
        ref = refs.get(block.call_id) if isinstance(block, ToolResultBlock) else None
        if not isinstance(block, ToolResultBlock) or ref is None:
            blocks.append(block)
            continue
        notice = block.content[-1]
        kept = block.content[:-1]
        kept_text = "\n".join(b.text for b in kept if isinstance(b, TextBlock))
        media = [b for b in kept if isinstance(b, DataBlock)]
        if isinstance(notice, TextBlock):
            media += [ws.read_data_block(p) for p in _MEDIA_PATH.findall(notice.text)]
        text = ws.read_text(ref) if ref.kind == "tool_result" else kept_text
        blocks.append(_flat(block, text, media))
    return message.replace(content=tuple(blocks))


def rejoin(head: Message, tail: Message) -> list[Message]:
    """Both ways a split message may be put back together (block cut, or text block cut inside)."""
    whole = [head.replace(content=head.content + tail.content)]
    first, second = (head.content or (None,))[-1], (tail.content or (None,))[0]
    if isinstance(first, TextBlock) and isinstance(second, TextBlock):
        merged = TextBlock(text=first.text + second.text, meta=first.meta)
        whole.append(head.replace(content=(*head.content[:-1], merged, *tail.content[1:])))
    return whole


def rebuild(
    original: Sequence[Message],
    output: Sequence[Message],
    ws: LocalWorkspace,
    refs: dict[str, OffloadRef],
    report: CompactionReport | None,
) -> tuple[list[Message] | None, str]:
    """The input as re-formed from the output, the archive and the offloaded files (None and why, if it cannot be).

    The archive holds the compacted messages, then the originals of the kept
    messages rewritten in place (`CompactionPlan.archived`); the summary and
    re-attached notes are ours and are dropped; truncated results get their
    offloaded rest back.
    """
    archived: list[Message] = []
    for ref in ws.items():
        if ref.kind == "context":
            archived += ws.read_messages(ref)
    k = report.messages_compacted if report is not None else 0
    compacted, originals = archived[:k], archived[k:]
    head: list[Message] = []
    tail: list[Message] = []
    seen_summary = False
    for message in output:
        if made_by_us(message):
            seen_summary = seen_summary or is_summary(message)
            continue
        if rewritten(message):
            if not originals:
                return None, "a rewritten message has no original left in the archive"
            message = originals.pop(0)
        (tail if seen_summary else head).append(message)
    if originals:
        return None, f"{len(originals)} archived original(s) matched no rewritten message"
    if compacted and not seen_summary:
        return None, "messages were compacted but the output has no summary"
    original = [flatten(m, refs.keys()) for m in original]
    restore = [untruncate(m, refs, ws) for m in (*head, *compacted, *tail)]
    if same(restore, original):
        return restore, ""
    if compacted and tail:  # one message split between the archive and the kept part
        body = [untruncate(m, refs, ws) for m in (*head, *compacted[:-1])]
        rest = [untruncate(m, refs, ws) for m in tail[1:]]
        for whole in rejoin(untruncate(compacted[-1], refs, ws), untruncate(tail[0], refs, ws)):
            if same([*body, whole, *rest], original):
                return [*body, whole, *rest], ""
    kept = len(head) + len(tail)
    return None, f"archive ({len(compacted)} compacted) + output ({kept} kept) do not re-form the input"


async def check_one(t: Transcript, *, window: int, counter_spec: str, mode: str, ws: LocalWorkspace) -> Outcome:
    counter = make_counter(counter_spec)
    config = ContextConfig(window=window)
    result = await compact_transcript(t, config=config, counter=counter, workspace=ws, force=mode == "forced")
    out = result.transcript.messages
    o = Outcome(compacted=result.compaction is not None, offloaded=len(result.offloaded))
    o.tokens_after = count_messages(counter, out) + count_tools(counter, result.transcript.tools)
    if o.tokens_after != result.tokens_after:
        o.failures.append(f"reported {result.tokens_after} tokens after, recount gives {o.tokens_after}")
    o.limit = config.budget if o.compacted else config.trigger_tokens
    if o.tokens_after > o.limit:
        what = "budget" if o.compacted else "trigger"
        o.failures.append(f"{o.tokens_after} tokens > {what} {o.limit}")
    inherited = {(p, x.code) for p in PROVIDERS for x in validate(t.messages, p) if x.blocking}
    for provider in PROVIDERS:
        try:
            render(out, provider, result.transcript.tools)
        except Exception as exc:
            o.failures.append(f"{provider} render failed: {exc}")
        for problem in validate(out, provider):
            if not problem.blocking:
                continue
            if (provider, problem.code) in inherited:
                o.inherited_problems += 1
            else:
                o.new_problems += 1
                o.failures.append(f"{provider}: {problem}")
    refs = {r.call_id: r for r in result.offloaded if r.call_id is not None}
    rebuilt, why = rebuild(t.messages, out, ws, refs, result.compaction)
    if rebuilt is None:
        o.failures.append(why)
    else:
        o.messages_checked = len(rebuilt)
    return o


@dataclass
class Row:
    """One line of the table: a corpus file at one window, counter and mode."""

    conversations: int = 0
    compacted: int = 0
    offloaded: int = 0
    fits: int = 0
    valid: int = 0
    inherited: int = 0
    read_back: int = 0
    messages: int = 0
    worst_share: float = 0.0
    failures: list[str] = field(default_factory=list)

    def add(self, o: Outcome, label: str) -> None:
        self.conversations += 1
        self.compacted += o.compacted
        self.offloaded += o.offloaded
        self.fits += o.tokens_after <= o.limit
        self.valid += o.new_problems == 0
        self.inherited += o.inherited_problems
        self.read_back += o.messages_checked > 0
        self.messages += o.messages_checked
        self.worst_share = max(self.worst_share, o.tokens_after / o.limit)
        self.failures += [f"{label}: {f}" for f in o.failures]


async def main_async(args: argparse.Namespace) -> int:
    files = sorted(Path(args.corpus).glob("*.jsonl"))
    if not files:
        print(f"no *.jsonl transcripts under {args.corpus}", file=sys.stderr)
        return 2
    header = [
        "file",
        "window",
        "counter",
        "mode",
        "convs",
        "compacted",
        "results offloaded",
        "fit",
        "max tokens / limit",
        "valid (both providers)",
        "inherited problems",
        "read back",
        "messages re-formed",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" for _ in header) + "|")
    failures: list[str] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cf-corpus-") as root:
        for path in files:
            transcripts = load_transcripts(path)
            for window in args.windows:
                for spec in args.counters:
                    for mode in args.modes:
                        row = Row()
                        for i, t in enumerate(transcripts):
                            ws = LocalWorkspace(root, f"{path.stem}-{window}-{spec}-{mode}-{i}")
                            label = f"{path.name}#{i} ({t.id}) {window} {spec} {mode}"
                            try:
                                row.add(await check_one(t, window=window, counter_spec=spec, mode=mode, ws=ws), label)
                            except Exception as exc:
                                row.conversations += 1
                                row.failures.append(f"{label}: raised {type(exc).__name__}: {exc}")
                        n = row.conversations
                        cells = [
                            path.stem,
                            f"{window // 1000}k",
                            spec,
                            mode,
                            n,
                            row.compacted,
                            row.offloaded,
                            f"{row.fits}/{n}",
                            f"{row.worst_share:.2f}",
                            f"{row.valid}/{n}",
                            row.inherited,
                            f"{row.read_back}/{n}",
                            row.messages,
                        ]
                        print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)
                        failures += row.failures
    print(f"\n{len(failures)} failure(s) in {time.perf_counter() - started:.1f}s")
    for f in failures[: args.show]:
        print(f"  FAIL {f}")
    if len(failures) > args.show:
        print(f"  ... and {len(failures) - args.show} more")
    return 1 if failures else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--corpus", default=CORPUS)
    p.add_argument("--windows", type=lambda s: [int(x) for x in s.split(",") if x], default=[16_000, 32_000, 128_000])
    p.add_argument("--counters", type=lambda s: s.split(","), default=["calibrated", "bytes"])
    p.add_argument("--modes", type=lambda s: s.split(","), default=list(MODES))
    p.add_argument("--show", type=int, default=30, help="failures to print")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
