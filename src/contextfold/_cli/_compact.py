"""``contextfold compact``: compact a transcript file into one that fits a window.

Oversized tool results are offloaded first (their limit capped to a share of
the budget, see `ContextConfig.result_limit`), then the history is compacted
once if it is over the trigger (``--force``: always). The output is the same
kind of document as the input, the archive goes into the workspace, and the
input file is never overwritten.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contextfold._cli import EXIT_OK, CLIContext
from contextfold._cli._common import (
    TRANSCRIPT_HELP,
    add_counter_argument,
    add_input_limit_argument,
    counter_from_args,
    load_transcript_file,
    select_conversations,
    write_json,
)
from contextfold._config import ContextConfig
from contextfold._context import CompactionReport, Context
from contextfold._errors import ConfigError, InputError
from contextfold._formats._files import OutputFile
from contextfold._formats._transcript import Transcript, dump_transcripts
from contextfold._tokens._counting import TokenCounter, count_messages, count_tools
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._split import ResultLimitError, min_window_for_result_limit

__all__ = ["register"]

DEFAULT_WORKSPACE = ".contextfold/workspace"


def register(subparsers: Any) -> None:
    """Add the ``compact`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "compact",
        help="compact a transcript so it fits a window (archive in a workspace)",
        description="Offload oversized tool results, then compact the history if it is over the trigger.",
    )
    p.add_argument("file", metavar="FILE", help=TRANSCRIPT_HELP)
    p.add_argument("--window", type=int, required=True, metavar="N", help="the model's context length in tokens")
    p.add_argument(
        "--strategy",
        choices=("tiered", "digest", "structured"),
        default=None,
        help="digest (the default: no model, facts ledger), tiered (dedupe reads, clear old tool output, digest; "
        "with --model, then the model), structured (model summary)",
    )
    p.add_argument("--model", metavar="PROVIDER:NAME", help="summary model for --strategy structured or tiered")
    p.add_argument("--base-url", metavar="URL", help="base URL of an OpenAI/Anthropic-compatible server")
    p.add_argument(
        "--workspace", metavar="DIR", default=DEFAULT_WORKSPACE, help=f"workspace root (default {DEFAULT_WORKSPACE})"
    )
    p.add_argument(
        "-o", "--output", metavar="OUT", help="output file (default: FILE with .compacted before the suffix)"
    )
    p.add_argument("--conversation", metavar="N|ID", help="only this conversation of a multi-conversation file")
    p.add_argument("--force", action="store_true", help="compact even when under the trigger")
    p.add_argument("--trigger", type=float, default=0.8, metavar="RATIO", help="trigger ratio (default 0.8)")
    p.add_argument("--reserve", type=float, default=0.1, metavar="RATIO", help="reserve ratio (default 0.1)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_counter_argument(p)
    add_input_limit_argument(p)
    p.set_defaults(handler=run_compact)


@dataclass
class _Result:
    transcript: Transcript
    tokens_before: int
    tokens_after: int
    compaction: CompactionReport | None
    offloaded: list[OffloadRef]


def window_too_small(exc: ResultLimitError, config: ContextConfig) -> ConfigError:
    """The error for a window whose share per tool result cannot hold a truncation notice, naming ``--window``."""
    reserved = max(0, config.result_limit - exc.limit)
    window = min_window_for_result_limit(config, exc.needed + reserved)
    return ConfigError(
        f"--window {config.window} is too small: a tool result that does not fit is cut and ends with a "
        f"truncation notice of {exc.needed} tokens, but this window leaves {exc.limit} tokens per tool result; "
        f"use --window {window} or more"
    )


def _output_path(args: argparse.Namespace) -> Path:
    if args.file == "-" and not args.output:
        raise InputError("reading standard input: give the output file with -o", source="<stdin>")
    src = Path(args.file)
    out = Path(args.output) if args.output else src.with_name(f"{src.stem}.compacted{src.suffix or '.json'}")
    if args.file != "-" and out.exists() and src.exists() and os.path.samefile(out, src):
        raise InputError("refusing to overwrite the input file; choose another -o", source=str(out))
    return out


def _strategy(args: argparse.Namespace, counter: TokenCounter, window: int) -> Any:
    from contextfold.compaction._tiered import TieredCompaction

    if args.strategy in (None, "digest"):
        if args.model:
            raise ConfigError("--model is only used with --strategy structured or tiered")
        from contextfold.compaction._digest_strategy import DigestStrategy

        return DigestStrategy()
    if args.strategy == "tiered" and not args.model:
        return TieredCompaction()
    if not args.model:
        raise ConfigError("--strategy structured needs --model openai:NAME or anthropic:NAME")
    from contextfold.compaction._structured_strategy import StructuredStrategy
    from contextfold.compaction._summary import StructuredSummarizer
    from contextfold.models import model_from_spec

    model = model_from_spec(args.model, base_url=args.base_url)
    summarizer = StructuredSummarizer(model, counter=counter, window=window)
    if args.strategy == "tiered":
        return TieredCompaction(summarizer=summarizer)
    return StructuredStrategy(summarizer)


async def compact_transcript(
    transcript: Transcript,
    *,
    config: ContextConfig,
    counter: TokenCounter,
    workspace: LocalWorkspace,
    strategy: Any = None,
    force: bool = False,
) -> _Result:
    """Offload oversized results and compact one conversation; the library core of the command."""
    ctx = Context(config, counter=counter, workspace=workspace, strategy=strategy, hints=False, tools=transcript.tools)
    offloaded: list[OffloadRef] = []
    for message in transcript.messages:
        if message.role == "tool":
            offloaded.extend(await ctx.append_tool_result(message))
        else:
            ctx.append(message)
    before = count_messages(counter, transcript.messages) + count_tools(counter, transcript.tools)
    report = None
    if force or ctx.tokens > config.trigger_tokens:
        report = await ctx.compact(reason="forced" if force else "trigger")
    return _Result(
        transcript=transcript.replace(messages=ctx.messages),
        tokens_before=before,
        tokens_after=ctx.tokens,
        compaction=report,
        offloaded=offloaded,
    )


def run_compact(ctx: CLIContext) -> int:
    """Handler of ``contextfold compact``."""
    args = ctx.args
    if args.window is None or args.window <= 0:
        raise ConfigError(f"--window must be a positive number of tokens (got {args.window})")
    config = ContextConfig(window=args.window, trigger_ratio=args.trigger, reserve_ratio=args.reserve)
    counter = counter_from_args(args)
    strategy = _strategy(args, counter, args.window)
    out = _output_path(args)
    # The output is checked, and its temporary file made, before anything is read or archived: a bad -o (not a
    # regular file, an unwritable directory) fails with nothing left behind, and a failure later removes it.
    with OutputFile(out) as output:
        transcripts = select_conversations(load_transcript_file(ctx, args.file), args.conversation, args.file)
        if not transcripts:
            raise InputError("the file holds no conversation", source=args.file)
        workspace = LocalWorkspace(args.workspace)
        try:
            results = asyncio.run(_compact_all(transcripts, config, counter, workspace, strategy, args.force))
        except ResultLimitError as exc:
            raise window_too_small(exc, config) from None
        output.commit(dump_transcripts([r.transcript for r in results]).encode("utf-8"))
    report = _report(results, config, out, workspace)
    if args.json:
        write_json(ctx, report)
    else:
        _print_report(ctx, report)
    return EXIT_OK


async def _compact_all(
    transcripts: list[Transcript],
    config: ContextConfig,
    counter: TokenCounter,
    workspace: LocalWorkspace,
    strategy: Any,
    force: bool,
) -> list[_Result]:
    return [
        await compact_transcript(t, config=config, counter=counter, workspace=workspace, strategy=strategy, force=force)
        for t in transcripts
    ]


def _report(results: list[_Result], config: ContextConfig, out: Path, workspace: LocalWorkspace) -> dict[str, Any]:
    conversations = []
    for r in results:
        c = r.compaction
        conversations.append(
            {
                "id": r.transcript.id,
                "index": r.transcript.index,
                "tokens_before": r.tokens_before,
                "tokens_after": r.tokens_after,
                "compacted": c is not None,
                "strategy": c.strategy if c else None,
                "fallback": c.fallback if c else None,
                "messages_compacted": c.messages_compacted if c else 0,
                "messages_rewritten": c.messages_rewritten if c else 0,
                "tier_runs": [dict(run) for run in c.tier_runs] if c else [],
                "messages_kept": c.messages_kept if c else len(r.transcript.messages),
                "archive": c.archive.path if c and c.archive else None,
                "offloaded_results": [ref.path for ref in r.offloaded],
            }
        )
    return {
        "output": str(out),
        "workspace": str(workspace.session_dir),
        "window": config.window,
        "trigger": config.trigger_tokens,
        "budget": config.budget,
        "conversations": conversations,
    }


def _print_report(ctx: CLIContext, report: dict[str, Any]) -> None:
    from rich.table import Table

    console = ctx.console()
    table = Table(title=f"compacted for a {report['window']}-token window (budget {report['budget']})")
    for col in ("conversation", "before", "after", "compacted", "kept", "offloaded", "archive"):
        table.add_column(
            col, justify="right" if col in ("before", "after", "compacted", "kept", "offloaded") else "left"
        )
    for i, c in enumerate(report["conversations"]):
        name = c["id"] or str(c["index"] if c["index"] is not None else i)
        table.add_row(
            name,
            str(c["tokens_before"]),
            str(c["tokens_after"]),
            str(c["messages_compacted"]),
            str(c["messages_kept"]),
            str(len(c["offloaded_results"])),
            c["archive"] or ("-" if not c["compacted"] else "(no workspace)"),
        )
    console.print(table)
    console.print(f"output: {report['output']}")
    console.print(f"workspace: {report['workspace']}")
