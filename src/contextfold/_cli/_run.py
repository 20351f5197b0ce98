"""``contextfold run "TASK" --model PROVIDER:NAME``: a small real agent with safe built-in tools.

For people with an API key or a local OpenAI-compatible server (vLLM, Ollama,
llama.cpp) who want to see the loop work on their own project: the model's
text streams to stdout, tool calls and context events go to stderr as one line
each, so ``> answer.txt`` keeps just the answer. The tools read, list and
search under ``--root`` (default: the current directory); a shell only with
``--allow-shell``.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import IO, Any

from contextfold._agent._builtin_tools import builtin_tools
from contextfold._agent._loop import Agent, AgentEvent, AgentResult, ModelCallInfo
from contextfold._cli import EXIT_FOUND, EXIT_OK, CLIContext
from contextfold._cli._common import write_json
from contextfold._context import CompactionReport
from contextfold._errors import ConfigError
from contextfold._messages import ToolCallBlock, ToolResultBlock
from contextfold._runtime._layers import SystemPromptBuilder, discover
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._split import ResultLimitError

__all__ = ["BASE_PROMPT", "register"]

DEFAULT_WINDOW = 128_000
DEFAULT_WORKSPACE = ".contextfold/workspace"
DEFAULT_MAX_STEPS = 30
BASE_PROMPT = (
    "You are a careful software agent working in the directory {root}. Paths you give the tools are relative "
    "to it. Look at the files before you answer, keep tool calls focused, and when you are done reply with a "
    "short answer or summary of what you found or changed.{shell}"
)


def register(subparsers: Any) -> None:
    """Add the ``run`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "run",
        help="run a small real agent on a task (needs a model: API key or local server)",
        description="Run an agent with read/list/search tools (and a shell with --allow-shell) on TASK.",
    )
    p.add_argument("task", metavar="TASK", help="what the agent should do")
    p.add_argument("--model", required=True, metavar="PROVIDER:NAME", help="openai:NAME or anthropic:NAME")
    p.add_argument("--base-url", metavar="URL", help="base URL of an OpenAI- or Anthropic-compatible server")
    p.add_argument(
        "--window", type=int, default=DEFAULT_WINDOW, metavar="N", help=f"window in tokens (default {DEFAULT_WINDOW})"
    )
    p.add_argument(
        "--workspace", metavar="DIR", default=DEFAULT_WORKSPACE, help=f"workspace root (default {DEFAULT_WORKSPACE})"
    )
    p.add_argument("--root", metavar="DIR", default=".", help="directory the tools may see (default: current)")
    p.add_argument("--allow-shell", action="store_true", help="offer a run_command tool (runs in --root)")
    p.add_argument(
        "--max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"most model calls (default {DEFAULT_MAX_STEPS})",
    )
    p.add_argument("--json", action="store_true", help="print a JSON report instead of streaming the answer")
    p.set_defaults(handler=run_run)


def _system_prompt(root: Path, allow_shell: bool) -> str:
    shell = " You may run shell commands with run_command; prefer read-only ones." if allow_shell else ""
    base = BASE_PROMPT.format(root=root, shell=shell)
    return SystemPromptBuilder.from_discovered(base, discover(root)).build()


def _short(text: str, limit: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


class _Printer:
    """Streams the answer to stdout and one line per tool call or context event to stderr."""

    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self.out = out
        self.err = err
        self.mid_line = False

    def delta(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        self.mid_line = not text.endswith("\n")

    def _line(self, text: str) -> None:
        if self.mid_line:
            self.out.write("\n")
            self.out.flush()
            self.mid_line = False
        print(text, file=self.err, flush=True)

    def event(self, event: AgentEvent) -> None:
        data = event.data
        if event.kind == "tool_call" and isinstance(data, ToolCallBlock):
            self._line(f"[tool] {data.name} {_short(data.arguments)}")
        elif event.kind == "tool_result" and isinstance(data, ToolResultBlock) and data.is_error:
            self._line(f"[tool] {data.name}: {_short(data.text)}")
        elif event.kind == "compaction" and isinstance(data, CompactionReport):
            self._line(
                f"[context] compacted ({data.reason}): {data.tokens_before:,} -> {data.tokens_after:,} tokens, "
                f"{data.messages_compacted} messages archived"
            )
        elif event.kind == "offload" and isinstance(data, list):
            for ref in data:
                if isinstance(ref, OffloadRef):
                    self._line(f"[context] offloaded a {ref.size:,}-byte result to {ref.path}")
        elif event.kind == "guard":
            self._line("[guard] redacted or defanged part of a tool result")
        elif event.kind == "retry":
            self._line("[context] the provider said the prompt is too long: emergency compaction and retry")
        elif event.kind == "model_call" and isinstance(data, ModelCallInfo) and self.mid_line:
            self.out.write("\n")
            self.out.flush()
            self.mid_line = False


def _report(result: AgentResult, workspace: LocalWorkspace) -> dict[str, Any]:
    return {
        "output": result.output,
        "stop_reason": result.stop_reason,
        "steps": len(result.steps),
        "tokens_sent": result.tokens_sent,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "compactions": len(result.compactions),
        "offloaded": [ref.path for ref in result.offloaded],
        "workspace": str(workspace.session_dir),
    }


async def _run(agent: Agent, task: str) -> AgentResult:
    try:
        return await agent.run(task)
    finally:
        close = getattr(agent.model, "aclose", None)
        if close is not None:
            await close()


def run_run(ctx: CLIContext) -> int:
    """Handler of ``contextfold run``."""
    args = ctx.args
    if args.window <= 0:
        raise ConfigError(f"--window must be a positive number of tokens (got {args.window})")
    if args.max_steps < 1:
        raise ConfigError(f"--max-steps must be at least 1 (got {args.max_steps})")
    if not args.task.strip():
        raise ConfigError("TASK is empty: say what the agent should do")
    root = Path(args.root).resolve()
    tools = builtin_tools(root, allow_shell=args.allow_shell)
    from contextfold.models import model_from_spec

    model = model_from_spec(args.model, base_url=args.base_url, env=ctx.env)
    workspace = LocalWorkspace(args.workspace)
    printer = _Printer(ctx.stdout, ctx.stderr)
    agent = Agent(
        model,
        tools=tools,
        window=args.window,
        system=_system_prompt(root, args.allow_shell),
        workspace=workspace,
        max_steps=args.max_steps,
        on_event=None if args.json else printer.event,
        stream=None if args.json else printer.delta,
    )
    try:
        result = asyncio.run(_run(agent, args.task))
    except ResultLimitError as exc:
        from contextfold._cli._compact import window_too_small

        raise window_too_small(exc, agent.context.config) from None
    if args.json:
        write_json(ctx, _report(result, workspace))
    else:
        if printer.mid_line:
            ctx.stdout.write("\n")
        summary = (
            f"[done] {result.stop_reason} after {len(result.steps)} model call(s), "
            f"{result.tokens_sent:,} tokens sent, {len(result.compactions)} compaction(s)"
        )
        print(summary, file=ctx.stderr)
    if result.stop_reason == "max_steps":
        print(f"contextfold: stopped after --max-steps {args.max_steps} model calls", file=ctx.stderr)
        return EXIT_FOUND
    return EXIT_OK
