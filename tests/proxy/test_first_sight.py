"""The proxy's first-sight reductions: a cut keeps the omitted part's fact lines; a repeated result is a pointer.

Both are decided from the history alone (the same bytes after a restart, on another engine over the same state),
stored once and spliced the same on every later request, and nothing they leave out is lost: the whole text is in
the workspace.
"""

from __future__ import annotations

import asyncio
import copy
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import BytesCounter, ConfigError
from contextfold._stores._sqlite import SQLiteStore
from contextfold.proxy import CompactionPolicy, ProxyConfig
from contextfold.proxy._engine import Engine, Outcome
from contextfold.proxy._wire import FORMATS

TENANT = "t" * 32


def _engine(path: Path, policy: CompactionPolicy | None = None) -> Engine:
    config = ProxyConfig(window=200_000, state_dir=path, compaction=policy or CompactionPolicy())
    return Engine(config, SQLiteStore(path / "state.sqlite3"), BytesCounter())


def _body(messages: list[Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "be useful", "messages": messages}


def _call(n: int, text: str) -> list[Any]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "sh", "input": {"c": n}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}]},
    ]


def _result_text(message: dict[str, Any]) -> str:
    content = message["content"][0]["content"]
    return content if isinstance(content, str) else "\n".join(b["text"] for b in content)


async def _send(engine: Engine, history: list[Any]) -> Outcome:
    return await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)


async def _close(engine: Engine) -> None:
    await engine.aclose()
    await engine.store.aclose()


def _output(rows: int = 900) -> str:
    """A long output whose facts sit in its middle: an error line, a job id and two paths among filler lines."""
    lines = [f"filler line {i} " + "." * 50 for i in range(rows)]
    lines[rows // 2] = "ValueError: the frobnicator broke at step 7"
    lines[rows // 2 + 10] = "see /repo/src/pkg/deep/module.py for the cause"
    lines[rows // 2 + 20] = "submitted job 4242 to the queue"
    lines[rows // 3] = "wrote build/out/report.json"
    return "\n".join(lines)


def test_a_cut_keeps_the_fact_lines_of_the_part_it_leaves_out(tmp_path: Path) -> None:
    output = _output()
    history: list[Any] = [{"role": "user", "content": "go"}, *_call(0, output)]

    async def run() -> tuple[str, str]:
        engine = _engine(tmp_path)
        outcome = await _send(engine, history)
        assert outcome.offloads == 1 and outcome.body is not None
        text = _result_text(orjson.loads(outcome.body)["messages"][2])
        await _close(engine)
        (tmp_path / "plain").mkdir()
        plain = _engine(tmp_path / "plain", CompactionPolicy(fact_share=0))
        base = await _send(plain, history)
        await _close(plain)
        return text, _result_text(orjson.loads(base.body or b"")["messages"][2])

    text, plain = asyncio.run(run())
    lines = output.split("\n")
    for needle in ("ValueError: the frobnicator", "/repo/src/pkg/deep/module.py", "job 4242", "build/out/report.json"):
        number = next(i for i, line in enumerate(lines) if needle in line)
        assert f"\n{number + 1}: {lines[number]}" in text  # the whole line, with its line number
        assert needle not in plain  # the head-only cut left it out
    limit = CompactionPolicy().offload_tokens
    kept = text.split("\nWithout those tools:")[0]
    assert BytesCounter().count_text(kept) <= limit + 50  # head, notice and fact lines share the limit
    head = text.split("<<<TRUNCATED>>>")[0]
    assert len(head) < len(plain.split("<<<TRUNCATED>>>")[0])  # the head gave room to the facts
    path = text.split("the file is ")[1].split(";")[0]
    assert Path(path).read_text() == output  # nothing is lost: the whole text is readable back


def test_the_cut_is_the_same_bytes_later_after_a_restart_and_on_another_engine(tmp_path: Path) -> None:
    history: list[Any] = [{"role": "user", "content": "go"}, *_call(0, _output())]

    async def run() -> list[bytes]:
        bodies = []
        engine = _engine(tmp_path)
        bodies.append((await _send(engine, history)).body or b"")
        later = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
        bodies.append((await _send(engine, later)).body or b"")
        await _close(engine)
        restarted = _engine(tmp_path)  # the same state: the stored rewrite is spliced
        bodies.append((await _send(restarted, later)).body or b"")
        await _close(restarted)
        (tmp_path / "other").mkdir()
        fresh = _engine(tmp_path / "other")  # nothing stored: the cut is computed again
        bodies.append((await _send(fresh, history)).body or b"")
        await _close(fresh)
        return bodies

    first, second, third, fresh = asyncio.run(run())
    one = orjson.loads(first)["messages"][2]
    assert orjson.loads(second)["messages"][2] == one and orjson.loads(third)["messages"][2] == one
    assert second == third
    fresh_text = _result_text(orjson.loads(fresh)["messages"][2])
    assert fresh_text.replace(str(tmp_path / "other"), str(tmp_path)) == _result_text(one)  # only the local path


def test_a_spliced_rewrite_goes_out_as_stored_and_takes_the_breakpoint_the_client_moves_onto_it(
    tmp_path: Path,
) -> None:
    """Later requests forward a stored rewrite from its parsed copy kept in memory: the bytes are those a restarted
    engine (which parses the stored record afresh) forwards, and a breakpoint the client puts on the result's message
    or block goes out on the rewrite without being left on the kept copy for the next request."""
    history: list[Any] = [{"role": "user", "content": "go"}, *_call(0, _output())]
    later = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
    marked = copy.deepcopy(later)
    marked[2]["content"][0]["cache_control"] = {"type": "ephemeral"}

    async def run() -> list[bytes]:
        engine = _engine(tmp_path)
        bodies = [(await _send(engine, history)).body or b""]
        for sent in (later, marked, later):
            await engine.settle()
            bodies.append((await _send(engine, sent)).body or b"")
        await _close(engine)
        restarted = _engine(tmp_path)
        for sent in (marked, later):
            bodies.append((await _send(restarted, sent)).body or b"")
        await _close(restarted)
        return bodies

    first, plain, with_mark, plain_again, restarted_mark, restarted_plain = asyncio.run(run())
    assert plain == plain_again == restarted_plain  # the mark of the request before is not carried over
    assert with_mark == restarted_mark
    rewritten = orjson.loads(plain)["messages"][2]
    assert rewritten == orjson.loads(first)["messages"][2]
    got = orjson.loads(with_mark)["messages"][2]
    assert got["content"][0].pop("cache_control") == {"type": "ephemeral"}
    assert got == rewritten


def test_rewrites_forgotten_from_memory_midway_still_go_out_as_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With room for one parsed rewrite, every request forgets and parses again: the bodies are a fresh engine's."""
    from contextfold.proxy import _engine as engine_module

    history: list[Any] = [{"role": "user", "content": "go"}]
    for n in range(4):
        history += _call(n, _output(300 + 40 * n))
    requests = [history[: 3 + 2 * n] for n in range(4)]

    async def run(path: Path) -> list[bytes]:
        engine = _engine(path)
        bodies = []
        for sent in requests:
            bodies.append((await _send(engine, sent)).body or b"")
            await engine.settle()
        await _close(engine)
        return bodies

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    roomy = asyncio.run(run(tmp_path / "a"))
    monkeypatch.setattr(engine_module, "_REWRITE_LIMIT", 1)
    tight = asyncio.run(run(tmp_path / "b"))
    assert [b.replace(str(tmp_path / "b").encode(), b"@") for b in tight] == [
        b.replace(str(tmp_path / "a").encode(), b"@") for b in roomy
    ]
    assert all(orjson.loads(b)["messages"][2] == orjson.loads(tight[0])["messages"][2] for b in tight)


def test_transfer_breakpoints_returns_the_rewrite_itself_only_when_there_is_nothing_to_move() -> None:
    from contextfold.proxy._wire import transfer_breakpoints

    ours = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "cut"}]}
    frozen = copy.deepcopy(ours)
    plain = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "whole"}]}
    assert transfer_breakpoints(plain, ours) is ours
    assert transfer_breakpoints("not a message", ours) is ours
    on_block = copy.deepcopy(plain)
    on_block["content"][0]["cache_control"] = {"type": "ephemeral"}
    on_message = {**plain, "cache_control": {"type": "ephemeral"}}
    moved = transfer_breakpoints(on_block, ours)
    assert moved is not ours and moved["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert transfer_breakpoints(on_message, ours) == {**ours, "cache_control": {"type": "ephemeral"}}
    assert ours == frozen  # never modified


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from(["error", "id", "file"]), st.sampled_from(["a", "bb", "x/y"])),
        max_size=25,
    ),
    st.integers(0, 400),
    st.integers(0, 80),
    st.integers(20, 120),
)
def test_the_second_fit_with_the_first_fits_memo_is_a_fresh_fit(
    picks: list[tuple[int, str, str]], after: int, budget: int, more: int
) -> None:
    """The cut's two fits share what they work out (lines, counts); the second is what a fit from scratch gives."""
    from contextfold.proxy._engine import _fit_excerpt, _FitMemo, _importance

    rows = [f"row {i} holds a and bb and x/y " + "z" * (i % 7) for i in range(31)]
    text = "\n".join(rows)
    starts = [sum(len(r) + 1 for r in rows[:line]) for line in range(len(rows))]
    facts = sorted({(text.index(v, starts[line]), v, k) for line, k, v in picks}, key=_importance)
    counter = BytesCounter()
    memo = _FitMemo()
    first = _fit_excerpt(counter, text, facts, budget + more, memo)
    assert first == _fit_excerpt(counter, text, facts, budget + more, _FitMemo())
    again = _fit_excerpt(counter, text, facts, budget, memo, after=after)
    assert again == _fit_excerpt(counter, text, [f for f in facts if f[0] >= after], budget, _FitMemo())
    assert again[1] <= budget


def test_a_repeated_result_is_a_pointer_to_the_first_and_stays_one(tmp_path: Path) -> None:
    listing = "\n".join(f"src/pkg/file_{i}.py: {i} lines" for i in range(200))
    history: list[Any] = [{"role": "user", "content": "go"}, *_call(0, listing), *_call(1, "other output")]
    history += _call(2, listing)

    async def run() -> tuple[Outcome, Outcome, Outcome]:
        engine = _engine(tmp_path)
        first = await _send(engine, history)
        later = [*history, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
        second = await _send(engine, later)
        await _close(engine)
        restarted = _engine(tmp_path)
        third = await _send(restarted, later)
        await _close(restarted)
        return first, second, third

    first, second, third = asyncio.run(run())
    assert first.offloads == 1 and first.tokens_after < first.tokens_before
    sent = orjson.loads(first.body or b"")["messages"]
    assert sent[:6] == history[:6]  # the first occurrence and everything else go out as sent
    pointer = _result_text(sent[6])
    assert "identical to the result of the earlier call t0" in pointer and "read_offloaded" in pointer
    assert len(pointer) < len(listing) // 4
    assert sent[6]["content"][0]["tool_use_id"] == "t2"  # still the answer to its own call
    path = pointer.split("read the file ")[1].split(" directly")[0]
    assert Path(path).read_text() == listing
    assert orjson.loads(second.body or b"")["messages"][6] == sent[6]  # spliced the same later
    assert second.body == third.body  # and after a restart


def test_a_repeated_result_below_the_threshold_or_with_dedupe_off_goes_out_whole(tmp_path: Path) -> None:
    short = "\n".join(f"row {i}" for i in range(40))  # ~70 tokens
    listing = "\n".join(f"src/pkg/file_{i}.py: {i} lines" for i in range(200))
    history: list[Any] = [{"role": "user", "content": "go"}, *_call(0, short), *_call(1, listing)]
    history += _call(2, short) + _call(3, listing)

    async def run(policy: CompactionPolicy, where: Path) -> Outcome:
        where.mkdir()
        engine = _engine(where, policy)
        out = await _send(engine, history)
        await _close(engine)
        return out

    default = asyncio.run(run(CompactionPolicy(), tmp_path / "a"))
    sent = orjson.loads(default.body or b"")["messages"]
    assert sent[6] == history[6]  # too short to be worth a pointer
    assert "identical to the result of the earlier call t1" in _result_text(sent[8])
    off = asyncio.run(run(CompactionPolicy(dedupe_tokens=0), tmp_path / "b"))
    assert off.body is None  # nothing to rewrite: forwarded as sent


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.just("ValueError: bad thing happened"),
            st.just("see /srv/app/handlers/user.py line 3"),
            st.just("job 77 queued"),
            st.text(alphabet="abc xyz\t", max_size=80),
        ),
        min_size=200,
        max_size=400,
    )
)
def test_the_cut_fits_its_limit_and_lists_only_real_lines(tmp_path_factory: Any, lines: list[str]) -> None:
    output = "\n".join(lines)
    counter = BytesCounter()
    if counter.count_text(output) < 3200:
        output = output + "\n" + "\n".join(f"pad {i}" for i in range(600))
    path = tmp_path_factory.mktemp("cut")
    limit = 1000

    async def run() -> str:
        engine = _engine(path, CompactionPolicy(offload_tokens=limit))
        from contextfold import TextBlock, ToolResultBlock

        block = ToolResultBlock(call_id="c", content=(TextBlock(text=output),))
        kept, ref = await engine._cut(block, limit, engine.workspace(TENANT))
        await _close(engine)
        assert ref is not None
        return kept.text

    text = asyncio.run(run())
    assert counter.count_text(text) <= limit + 5  # the fact lines are inside the limit (the tail comes later)
    source = output.split("\n")
    if "Lines after the cut" in text:
        listed = text.split("(line number: text):\n", 1)[1].split("\n")
        for entry in listed:
            number, _, line = entry.partition(": ")
            assert source[int(number) - 1] == line  # a real line of the output, at its real number


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"offload_tokens": 100}, "CompactionPolicy.offload_tokens: must be 0 (off) or at least 500"),
        ({"offload_tokens": -1}, "CompactionPolicy.offload_tokens: must be a whole number"),
        ({"dedupe_tokens": 1.5}, "CompactionPolicy.dedupe_tokens: must be a whole number"),
        ({"precompute": "later"}, "CompactionPolicy.precompute: must be one of warm, replacement, off"),
        ({"target_ratio": 0}, "CompactionPolicy.target_ratio: must be in (0, 1]"),
        ({"summary_ratio": 1.5}, "CompactionPolicy.summary_ratio"),
        ({"fact_share": 0.9}, "CompactionPolicy.fact_share: must be in [0, 0.8]"),
        ({"precompute_ratio": 0}, "CompactionPolicy.precompute_ratio"),
    ],
)
def test_a_bad_policy_field_is_named(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        CompactionPolicy(**fields)


def test_the_engine_uses_the_config_policy_unless_given_one(tmp_path: Path) -> None:
    policy = CompactionPolicy(offload_tokens=800, precompute="off")
    config = ProxyConfig(state_dir=tmp_path, compaction=policy)
    assert Engine(config, SQLiteStore(tmp_path / "a.sqlite3"), BytesCounter()).policy is policy
    other = CompactionPolicy(offload_tokens=0)
    assert Engine(config, SQLiteStore(tmp_path / "b.sqlite3"), BytesCounter(), other).policy is other
    with pytest.raises(ConfigError, match=r"ProxyConfig\.compaction: must be a CompactionPolicy"):
        ProxyConfig(state_dir=tmp_path, compaction={"offload_tokens": 800})  # type: ignore[arg-type]
