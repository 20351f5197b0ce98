"""What the framework-adapter tests share: a long tool session's outputs and the checks on what was sent.

Each adapter test drives its real framework through a scripted model that calls ``run`` (a shell-like
tool whose outputs are a few hundred tokens, every seventh one several thousand) ``STEPS`` times, then
answers. The checks read what the framework actually sent to the model, converted with the adapter's own
mapping, with contextfold's validator and counter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import contextfold
from contextfold import Message, TokenCounter

STEPS = 24
BIG_EVERY = 7
NOTICE_PATH = re.compile(r"workspace file (\S+?)(?:[\s,;)\]]|$)")


def command(step: int) -> str:
    return f"cat /srv/app/module_{step}.py"


def tool_output(cmd: str) -> str:
    """The output of ``run(cmd)``: deterministic, large for every ``BIG_EVERY``-th module."""
    step = int(re.sub(r"\D", "", cmd.rsplit("_", 1)[-1]) or 0)
    lines = 160 if step % BIG_EVERY == BIG_EVERY - 1 else 6
    return "\n".join(
        f"{cmd}: line {i} of module {step}: value={i * step} path=/srv/app/pkg_{step}/f{i}.py" for i in range(lines)
    )


def assert_valid_and_fits(requests: Sequence[Sequence[Message]], counter: TokenCounter, limit: int) -> int:
    """Every request is pairing-valid and at most ``limit`` tokens; returns the largest request's tokens."""
    assert requests, "the model was never called"
    largest = 0
    for index, messages in enumerate(requests):
        errors = [p for p in contextfold.validate(list(messages), "openai") if p.severity == "error"]
        assert not errors, f"request {index}: {errors}"
        tokens = contextfold.count_messages(counter, messages)
        assert tokens <= limit, f"request {index}: {tokens} tokens > {limit}"
        largest = max(largest, tokens)
    return largest


def offload_path(text: str) -> str | None:
    """The workspace path a truncation notice names, if ``text`` holds one."""
    match = NOTICE_PATH.search(text)
    return match.group(1) if match else None


def numbered_to_text(output: str) -> str:
    """The text of ``read_offloaded`` output: its ``cat -n`` rows without the numbers, footer dropped."""
    rows = [line for line in output.split("\n") if re.match(r"^\s*\d+\t", line)]
    return "\n".join(line.split("\t", 1)[1] for line in rows)


MORE = re.compile(r"more follow: read_offloaded\(path='[^']+', offset=(\d+)\)\]$")


def next_read(text: str) -> int | None:
    """The offset to read next when a ``read_offloaded`` output says more lines follow."""
    match = MORE.search(text.rstrip())
    return int(match.group(1)) if match else None


def read_back_pages(requests: Sequence[Sequence[Message]], prefix: str = "rb-") -> str:
    """The text the model read back, page after page (tool results of calls whose id starts with ``prefix``)."""
    pages: dict[str, str] = {}
    for messages in requests:
        for message in messages:
            for block in message.tool_results:
                if block.call_id.startswith(prefix):
                    pages[block.call_id] = block.text
    ordered = [pages[k] for k in sorted(pages, key=lambda k: int(k[len(prefix) :]))]
    return "\n".join(numbered_to_text(p) for p in ordered)
