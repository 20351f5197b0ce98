"""The framework adapters in the side-by-side fidelity harness, next to each framework's own compaction.

Imports ``/work/shared/bench/fidelity_bench.py`` (the harness, unchanged) as a library, registers three
strategies that drive the adapters through the frameworks' own hook signatures, and runs the harness with
them and the peers it already knows:

- ``cf_pydantic_ai``: `ContextfoldCapability.before_model_request`, called as the harness calls
  pydantic-ai-harness's capabilities (its ``_PHBase``: the hook writes the compaction back into the run's
  history); peers ``ph_sliding``, ``ph_clear``, ``ph_tiered``;
- ``cf_langchain``: `ContextfoldMiddleware.awrap_model_call` on a LangChain ``ModelRequest`` built from the
  agent state (messages whole, the system prompt outside the state as ``create_agent`` keeps it; the saved
  ``contextfold`` state carried to the next turn as the graph would); peers ``lc_trim``, ``lc_summary``;
- ``cf_openai_agents``: `ContextfoldInputFilter` called with the SDK's ``CallModelData`` on Responses-API input
  items; peer ``oa_trimmer``: the SDK's own ``call_model_input_filter``, ``agents.extensions.ToolOutputTrimmer``
  (defaults). The SDK's compaction session (``OpenAIResponsesCompactionSession``) compacts through the
  Responses API's ``/responses/compact`` endpoint with an OpenAI model, so it does not run offline.

Every contextfold strategy uses `BytesCounter` (the harness's bytes/4 rule: "all strategies see the same
counter"), a `LocalWorkspace` in a temp dir, and no runtime hints (the harness measures compaction; a hint
would count as a change every turn). A fake model stands in wherever a peer would call an LLM.

    .venv/bin/python benchmarks/bench_adapters.py --windows 16000 32000 --every 5 --write
    .venv/bin/python benchmarks/bench_adapters.py --limit 2 --windows 16000      # smoke test, seconds
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# shared/ sits beside the repository (a clone, CI) or beside the worktrees folder (/work/wt/NAME).
SHARED = next(
    (p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared"
)
HARNESS = Path(os.environ.get("FIDELITY_BENCH", SHARED / "bench" / "fidelity_bench.py"))
CORPUS = SHARED / "corpus" / "dev"
OUT = ROOT / "benchmarks" / "results" / "adapters.md"
PEERS = ("naive", "lc_trim", "lc_summary", "ph_sliding", "ph_clear", "ph_tiered", "oa_trimmer")
OURS = ("cf_pydantic_ai", "cf_langchain", "cf_openai_agents")


def load_harness(path: Path = HARNESS) -> Any:
    spec = importlib.util.spec_from_file_location("fidelity_bench", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the harness from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fidelity_bench"] = module
    spec.loader.exec_module(module)
    return module


fb = load_harness() if HARNESS.is_file() else None


def _workspace() -> Any:
    from contextfold import LocalWorkspace

    return LocalWorkspace(tempfile.mkdtemp(prefix="bench_adapters_"))


# --- pydantic-ai ---------------------------------------------------------------------------------------------------

if fb is not None:

    class CFPydanticAI(fb._PHBase):  # type: ignore[misc,name-defined]
        name = "cf_pydantic_ai"

        def make(self, window: int) -> Any:
            from contextfold import BytesCounter
            from contextfold.adapters.pydantic_ai import ContextfoldCapability

            return ContextfoldCapability(window=window, counter=BytesCounter(), workspace=_workspace(), hints=False)

        def versions(self) -> dict[str, str]:
            return fb._pkg_versions("pydantic-ai-slim", "contextfold")

    # --- LangChain -------------------------------------------------------------------------------------------------

    class CFLangChain(fb._LCBase):  # type: ignore[misc,name-defined]
        name = "cf_langchain"

        def begin(self, conv: dict[str, Any], window: int) -> None:
            super().begin(conv, window)
            from langchain_core.language_models.fake_chat_models import FakeListChatModel

            from contextfold import BytesCounter
            from contextfold.adapters.langchain import ContextfoldMiddleware

            self.mw = ContextfoldMiddleware(window=window, counter=BytesCounter(), workspace=_workspace(), hints=False)
            self.model = FakeListChatModel(responses=["ok"])
            self.system: Any = None
            self.state: list[Any] = []
            self.saved: dict[str, Any] | None = None
            self.out: list[Any] = []
            if not hasattr(self, "loop"):
                self.loop = asyncio.new_event_loop()

        def prepare(self, new: list[dict[str, Any]]) -> None:
            for lm in self._convert(new):
                if lm.type == "system" and self.system is None and not self.state:
                    self.system = lm
                else:
                    self.state.append(lm)

        def step(self) -> None:
            from langchain.agents.middleware import ModelRequest, ModelResponse
            from langchain_core.messages import AIMessage

            captured: dict[str, Any] = {}

            async def handler(request: Any) -> Any:
                captured["messages"] = request.messages
                return ModelResponse(result=[AIMessage(content="")])

            state: dict[str, Any] = {"messages": self.state}
            if self.saved is not None:
                state["contextfold"] = self.saved
            request = ModelRequest(model=self.model, messages=self.state, system_message=self.system, state=state)
            result = self.loop.run_until_complete(self.mw.awrap_model_call(request, handler))
            self.saved = result.command.update["contextfold"]
            self.out = captured["messages"]

        def sent(self) -> list[dict[str, Any]]:
            pre = [self.system] if self.system is not None else []
            return [fb._lc_to_openai(m, self.raw_args) for m in pre + list(self.out)]

        def versions(self) -> dict[str, str]:
            return fb._pkg_versions("langchain", "langchain-core", "langgraph", "contextfold")

    # --- OpenAI Agents SDK -----------------------------------------------------------------------------------------

    def _to_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """OpenAI chat messages as Responses-API input items (what the Agents SDK keeps)."""
        items: list[dict[str, Any]] = []
        for m in messages:
            role = m.get("role")
            text = fb._text(m)
            if role == "assistant":
                if text:
                    content = [{"type": "output_text", "text": text, "annotations": []}]
                    items.append({"type": "message", "role": "assistant", "content": content, "status": "completed"})
                for tc in m.get("tool_calls") or []:
                    f = tc.get("function") or {}
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": tc.get("id"),
                            "name": f.get("name") or "",
                            "arguments": f.get("arguments") or "",
                        }
                    )
            elif role == "tool":
                items.append({"type": "function_call_output", "call_id": m.get("tool_call_id"), "output": text})
            else:
                items.append({"role": role if role in ("user", "system", "developer") else "user", "content": text})
        return items

    def _to_chat(items: list[Any], tool_names: dict[str, str]) -> list[dict[str, Any]]:
        """Responses-API items back as OpenAI chat messages (calls of one turn in one assistant message)."""
        out: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None
        for item in items:
            kind = item.get("type")
            if kind == "function_call":
                if current is None:
                    current = {"role": "assistant", "content": None}
                    out.append(current)
                current.setdefault("tool_calls", []).append(
                    {
                        "id": item["call_id"],
                        "type": "function",
                        "function": {"name": item["name"], "arguments": item["arguments"]},
                    }
                )
                continue
            if kind == "message" and item.get("role") == "assistant":
                text = "".join(p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict))
                current = {"role": "assistant", "content": text}
                out.append(current)
                continue
            current = None
            if kind == "function_call_output":
                output = item.get("output")
                text = output if isinstance(output, str) else json.dumps(output)
                out.append({"role": "tool", "tool_call_id": item["call_id"], "content": text})
            elif kind == "reasoning":
                continue
            else:
                content = item.get("content")
                text = content if isinstance(content, str) else fb._text({"content": content})
                out.append({"role": item.get("role", "user"), "content": text})
        return out

    class _OABase(fb.Adapter):  # type: ignore[misc,name-defined]
        def begin(self, conv: dict[str, Any], window: int) -> None:
            super().begin(conv, window)
            from agents import Agent

            self.agent = Agent(name="bench")
            self.system: str | None = None
            self.items: list[dict[str, Any]] = []
            self.out: list[Any] = []
            self.filter = self.make(window)
            if not hasattr(self, "loop"):
                self.loop = asyncio.new_event_loop()

        def make(self, window: int) -> Any:
            raise NotImplementedError

        def prepare(self, new: list[dict[str, Any]]) -> None:
            for m in new:
                if m.get("role") == "system" and self.system is None and not self.items:
                    self.system = fb._text(m)  # the SDK keeps the instructions outside the input
                else:
                    self.items.extend(_to_items([m]))

        def step(self) -> None:
            from agents.run_config import CallModelData, ModelInputData

            data = CallModelData(
                model_data=ModelInputData(input=list(self.items), instructions=self.system),
                agent=self.agent,
                context=None,
            )
            result = self.filter(data)
            if asyncio.iscoroutine(result):
                result = self.loop.run_until_complete(result)
            self.out = list(result.input)

        def sent(self) -> list[dict[str, Any]]:
            pre = [{"role": "system", "content": self.system}] if self.system is not None else []
            return pre + _to_chat(self.out, self.tool_names)

        def versions(self) -> dict[str, str]:
            return fb._pkg_versions("openai-agents", "contextfold")

    class CFOpenAIAgents(_OABase):
        name = "cf_openai_agents"

        def make(self, window: int) -> Any:
            from contextfold import BytesCounter
            from contextfold.adapters.openai_agents import ContextfoldInputFilter

            return ContextfoldInputFilter(window=window, counter=BytesCounter(), workspace=_workspace(), hints=False)

    class OATrimmer(_OABase):
        name = "oa_trimmer"

        def make(self, window: int) -> Any:
            from agents.extensions import ToolOutputTrimmer

            return ToolOutputTrimmer()

    for _cls in (CFPydanticAI, CFLangChain, CFOpenAIAgents, OATrimmer):
        fb.STRATEGIES[_cls.name] = _cls


# --- the run -------------------------------------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"`nproc` = {os.cpu_count()}, CPU `{cpu}`, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--windows", nargs="+", type=int, default=[16000, 32000])
    ap.add_argument("--strategies", default=",".join((*PEERS, *OURS)))
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    if fb is None:
        print(f"the harness is not at {HARNESS} (set FIDELITY_BENCH)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="bench_adapters_out_"))
    md, js = tmp / "tables.md", tmp / "results.json"
    harness_args = [
        "--corpus",
        args.corpus,
        "--windows",
        *map(str, args.windows),
        "--strategies",
        args.strategies,
        "--every",
        str(args.every),
        "--md",
        str(md),
        "--json",
        str(js),
    ]
    if args.limit:
        harness_args += ["--limit", str(args.limit)]
    started = time.time()
    code = fb.main(harness_args)
    wall = time.time() - started
    if code != 0:
        return int(code)
    doc = json.loads(js.read_text(encoding="utf-8"))
    text = render(doc, md.read_text(encoding="utf-8"), args, wall)
    shutil.rmtree(tmp, ignore_errors=True)
    if args.write:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    else:
        print(text)
    return 0


PAIRS = (
    ("pydantic-ai", "cf_pydantic_ai", ("ph_sliding", "ph_clear", "ph_tiered")),
    ("LangChain", "cf_langchain", ("lc_trim", "lc_summary")),
    ("OpenAI Agents SDK", "cf_openai_agents", ("oa_trimmer",)),
)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def render(doc: dict[str, Any], tables: str, args: argparse.Namespace, wall: float) -> str:
    results = doc["results"]
    versions = ", ".join(f"{k} {v}" for k, v in sorted(doc["versions"].items()))
    windows = " ".join(map(str, args.windows))
    lines = [
        "# Framework adapters (issue 17)",
        "",
        f"Machine: {machine()}. No model anywhere (no network); {doc['conversations']} conversations of the dev",
        f"corpus; in-process strategies at every {args.every}th turn. Wall time {wall:.0f} s.",
        "",
        f"    .venv/bin/python benchmarks/bench_adapters.py --windows {windows} --every {args.every}"
        + (f" --limit {args.limit}" if args.limit else "")
        + " --write",
        "",
        "The harness is `/work/shared/bench/fidelity_bench.py`, unchanged, imported as a library; the script registers",
        "the adapters as strategies that call each framework's own hook (see the module docstring). Every strategy",
        "sees the harness's bytes/4 counter; contextfold's strategies run without runtime hints and with a",
        "`LocalWorkspace` in a temp dir. The OpenAI Agents SDK's `OpenAIResponsesCompactionSession` compacts through",
        "the Responses API's `/responses/compact` endpoint with an OpenAI model and cannot run offline; its",
        "built-in `call_model_input_filter`, `ToolOutputTrimmer`, is the SDK's peer here.",
        "",
        f"Versions: {versions}.",
        "",
        "## Each adapter next to its framework's own compaction",
        "",
        "Paths / commands kept % on the turns whose full history is over the fit budget (0.85 W), fit %, valid %,",
        "cache prefix % (all turns), overhead per turn (mean ms); ratios are contextfold over the framework's best.",
        "",
    ]
    for w in args.windows:
        lines.append(f"**W = {w}**")
        lines.append("")
        lines.append("| framework | strategy | paths kept % | commands kept % | fit % | valid % | cache % | ms/turn |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for framework, ours, peers in PAIRS:
            best_paths = 0.0
            for name in (ours, *peers):
                s = results.get(name, {}).get(str(w))
                if not s:
                    continue
                o = s["overall"]
                if name != ours and o["paths_over"] is not None:
                    best_paths = max(best_paths, o["paths_over"])
                lines.append(
                    f"| {framework} | {name} | {_pct(o['paths_over'])} | {_pct(o['cmds_over'])} | {_pct(o['fit'])} | "
                    f"{_pct(o['valid'])} | {_pct(o['cache'])} | {o['ms_mean']:.3f} |"
                )
            mine = results.get(ours, {}).get(str(w))
            if mine and best_paths and mine["overall"]["paths_over"] is not None:
                ratio = mine["overall"]["paths_over"] / best_paths
                lines.append(f"| {framework} | ratio, paths kept | {ratio:.2f}× the best peer | | | | | |")
        lines.append("")
    lines += ["## The harness's full tables", "", tables.strip(), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
