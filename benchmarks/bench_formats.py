"""Time provider-format conversion and transcript loading (see benchmarks/results/formats.md).

    .venv/bin/python benchmarks/bench_formats.py [--corpus ../shared/corpus/dev] [--repeat 5]

Converts the shared harness's deterministic 2,000-message session (13 MB) OpenAI -> canonical ->
OpenAI and -> Anthropic, and loads + writes back every transcript file of the corpus when present.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contextfold._formats import messages_to_anthropic, messages_to_openai, openai_to_messages
from contextfold._formats._transcript import dump_transcripts, load_transcripts

HARNESS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "agentscope_bench.py"


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1000


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    if HARNESS.exists():
        spec = importlib.util.spec_from_file_location("agentscope_bench", HARNESS)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules["agentscope_bench"] = mod
        spec.loader.exec_module(mod)
        session = mod.make_session(2000)
        size = len(json.dumps(session, ensure_ascii=False).encode())
        canonical = openai_to_messages(session)
        assert messages_to_openai(canonical) == session
        print(f"session: {len(session)} messages, {size / 1e6:.1f} MB")
        print(f"  openai -> canonical      {best(lambda: openai_to_messages(session), args.repeat):8.1f} ms")
        print(f"  canonical -> openai      {best(lambda: messages_to_openai(canonical), args.repeat):8.1f} ms")
        print(f"  canonical -> anthropic   {best(lambda: messages_to_anthropic(canonical), args.repeat):8.1f} ms")
        print(f"  json dumps+loads (ref.)  {best(lambda: json.loads(json.dumps(session)), args.repeat):8.1f} ms")
    for path in sorted(args.corpus.glob("*.jsonl")) if args.corpus.exists() else []:
        text = path.read_text()
        transcripts = load_transcripts(path)
        same = dump_transcripts(transcripts) == text
        n = sum(len(t.messages) for t in transcripts)
        print(
            f"{path.name}: {len(transcripts)} conversations, {n} messages, {len(text) / 1e6:.1f} MB, "
            f"load {best(lambda p=path: load_transcripts(p), args.repeat):.1f} ms, "
            f"dump {best(lambda t=transcripts: dump_transcripts(t), args.repeat):.1f} ms, byte-identical: {same}"
        )


if __name__ == "__main__":
    main()
