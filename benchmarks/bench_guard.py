"""Guard benchmark: recall / false-positive rate per category on tune and eval, scan throughput, fence cost.

Run: .venv/bin/python benchmarks/bench_guard.py [--dev /work/shared/corpus/dev]
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from collections.abc import Callable
from pathlib import Path

from contextfold._guard import Fence, redact_secrets, scan_injection
from contextfold._tokens._counting import BytesCounter

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "guard"


def rates(part: str) -> list[tuple[str, int, int, int, int]]:
    rows = [json.loads(x) for x in (DATA / f"{part}.jsonl").read_text(encoding="utf-8").splitlines()]
    inj: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    ben: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for r in rows:
        hit = int(any(f.blocking for f in scan_injection(r["text"])))
        table = inj if r["label"] == "injection" else ben
        for key in (r["category"], "ALL"):
            table[key][0] += hit
            table[key][1] += 1
    cats = sorted(set(inj) | set(ben), key=lambda c: (c == "ALL", c))
    out: list[tuple[str, int, int, int, int]] = []
    for c in cats:
        hi, ni = inj.get(c, [0, 0])
        hb, nb = ben.get(c, [0, 0])
        out.append((c, hi, ni, hb, nb))
    return out


def pct(a: int, b: int) -> str:
    return f"{a}/{b} = {100 * a / b:.1f} %" if b else "–"


def _each(fn: Callable[[str], object]) -> Callable[[list[str]], None]:
    def run(texts: list[str]) -> None:
        for t in texts:
            fn(t)

    return run


def throughput(name: str, text: str | list[str], fn: object, repeat: int = 3) -> str:
    """Best of ``repeat`` runs (the machine is shared; the best run is the least disturbed)."""
    assert callable(fn)
    dt = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        dt = min(dt, time.perf_counter() - t0)
    mb = sum(len(t.encode()) for t in ([text] if isinstance(text, str) else text)) / 1e6
    return f"| {name} | {mb:.2f} MB | {dt:.2f} s | {mb / dt:.1f} MB/s |"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/corpus/dev"))
    args = ap.parse_args()
    for part in ("tune", "eval"):
        print(
            f"\n### {part}\n\n| category | recall (injections caught) | false positives (benign blocked) |"
            "\n|---|---|---|"
        )
        for c, hi, ni, hb, nb in rates(part):
            print(f"| {c} | {pct(hi, ni)} | {pct(hb, nb)} |")
    results: list[str] = []
    size = 0
    dev = args.dev / "swe_mini_gemini3pro.jsonl"
    if dev.exists():
        for line in dev.read_text().splitlines():
            for m in json.loads(line)["messages"]:
                if m["role"] == "tool" and m["content"]:
                    results.append(m["content"] + "\n")
                    size += len(results[-1])
                if size > 2_000_000:
                    break
            if size > 2_000_000:
                break
    tool = "".join(results)
    print("\n| input | size | time | throughput |\n|---|---|---|---|")
    if tool:
        print(throughput("scan_injection, real tool output (SWE transcripts)", tool[:2_000_000], scan_injection))
        print(throughput("redact_secrets, real tool output", tool[:2_000_000], redact_secrets))
        # The agent loop's unit: one call per tool result (same 2 MB, ~900 bytes a result on average).
        print(throughput("scan_injection, real tool output, one call per result", results, _each(scan_injection)))
        print(throughput("redact_secrets, real tool output, one call per result", results, _each(redact_secrets)))
    prose = "The quick brown fox jumps over the lazy dog; results are listed below. " * 14_000
    print(throughput("scan_injection, prose without trigger words", prose, scan_injection))
    print(throughput("redact_secrets, prose", prose, redact_secrets))
    for unit in ("ignore the ", "system: ", "a\u200b", "\u0430", '{"name": "x", ', "<|im_start|>", "show me your "):
        text = unit * (1_000_000 // len(unit))
        print(throughput(f"scan_injection, adversarial {unit!r} × 1 MB", text, scan_injection))
        print(throughput(f"redact_secrets, adversarial {unit!r} × 1 MB", text, redact_secrets))
    fence = Fence()
    counters: list[tuple[str, object]] = [("BytesCounter", BytesCounter())]
    try:
        from contextfold._tokens._factory import make_counter

        counters.append(("make_counter() default", make_counter()))
    except ImportError:
        pass
    print("\n| counter | fence tokens per tool result |\n|---|---|")
    for name, counter in counters:
        cost = counter.count_text(fence.wrap("")) - counter.count_text("")  # type: ignore[attr-defined]
        print(f"| {name} | {cost} |")
    print(
        f"\nsystem-prompt layer: {BytesCounter().count_text(fence.system_prompt_layer())} tokens (BytesCounter),"
        " once per session"
    )


if __name__ == "__main__":
    main()
