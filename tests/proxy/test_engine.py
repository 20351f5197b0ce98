"""The rewrite engine without HTTP: lineage matching, prefix stability, concurrency, provider items kept intact."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import BytesCounter, validate
from contextfold._formats._responses import responses_to_messages
from contextfold._stores._sqlite import SQLiteStore
from contextfold.proxy import ProxyConfig
from contextfold.proxy._engine import Engine, Outcome
from contextfold.proxy._wire import FORMATS, message_hash

TENANT = "t" * 32


def _engine(path: Path, window: int = 3000, **config_fields: Any) -> Engine:
    config = ProxyConfig(window=window, state_dir=path, **config_fields)
    return Engine(config, SQLiteStore(path / "state.sqlite3"), BytesCounter())


def _body(messages: list[Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "be useful", "messages": messages}


def _forwarded(outcome: Outcome, original: dict[str, Any]) -> bytes:
    return outcome.body if outcome.body is not None else orjson.dumps(original)


def _claude_code_style(messages: list[Any], flips: set[int]) -> list[Any]:
    """What a client like Claude Code sends: a breakpoint on its newest message, some texts in block form."""
    out = []
    for i, m in enumerate(messages):
        m = copy.deepcopy(m)
        if i in flips and isinstance(m["content"], str):
            m["content"] = [{"type": "text", "text": m["content"]}]
        out.append(m)
    last = out[-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return out


turns = st.lists(st.tuples(st.integers(100, 400), st.integers(100, 400)), min_size=15, max_size=40)


@settings(max_examples=12, deadline=None)
@given(turns, st.sets(st.integers(0, 80), max_size=10), st.booleans())
def test_between_compactions_the_forwarded_prefix_never_changes(
    tmp_path_factory: Any, sizes: list[tuple[int, int]], flips: set[int], claude_code: bool
) -> None:
    path = tmp_path_factory.mktemp("engine")

    async def run() -> None:
        engine = _engine(path)
        history: list[Any] = []
        previous: bytes | None = None
        compactions = 0
        for n, (user, assistant) in enumerate(sizes):
            history.append({"role": "user", "content": f"u{n} " + "word " * user})
            sent = _claude_code_style(history, flips) if claude_code else copy.deepcopy(history)
            body = _body(sent)
            outcome = await engine.rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT)
            data = _forwarded(outcome, body)
            forwarded = orjson.loads(data)["messages"]
            if outcome.compacted:
                compactions += 1
            elif previous is not None and outcome.body is not None:
                before = orjson.loads(previous)["messages"]
                # the replacement goes out byte for byte, and the client's own messages as the client sent them
                k = len(forwarded) - (len(sent) - _covered(forwarded, sent))
                assert orjson.dumps(forwarded[:k]) == orjson.dumps(before[:k])
                if not claude_code:
                    assert data.startswith(previous[: previous.index(b"]}", len(previous) - 40)])
            tail = forwarded[len(forwarded) - (len(sent) - _covered(forwarded, sent)) :]
            assert tail == sent[len(sent) - len(tail) :]
            assert outcome.tokens_after <= 3000 or not outcome.compacted
            previous = data if outcome.body is not None else None
            history.append({"role": "assistant", "content": f"a{n} " + "reply " * assistant})
        assert compactions >= 1

    asyncio.run(run())


def _covered(forwarded: list[Any], sent: list[Any]) -> int:
    """How many of the client's messages the forwarded list replaced (the longest common suffix rule)."""
    k = 0
    while k < len(sent) and k < len(forwarded) and forwarded[-1 - k] == sent[-1 - k]:
        k += 1
    return len(sent) - k


def test_a_client_that_resends_an_unchanged_history_gets_identical_bytes(tmp_path: Path) -> None:
    async def run() -> None:
        engine = _engine(tmp_path)
        history = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i} " + "text " * 300} for i in range(13)
        ]
        first = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        again = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        fresh = await _engine(tmp_path).rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert first.compacted and not again.compacted and not fresh.compacted
        assert first.body == again.body == fresh.body

    asyncio.run(run())


def test_concurrent_requests_produce_one_compaction(tmp_path: Path) -> None:
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i} " + "text " * 300} for i in range(15)]

    async def run() -> list[Outcome]:
        # Two engines on one store file stand for two proxy processes: only the store's compare-and-set orders them.
        engines = [_engine(tmp_path), _engine(tmp_path)]
        jobs = [
            engines[n % 2].rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT) for n in range(6)
        ]
        return list(await asyncio.gather(*jobs))

    outcomes = asyncio.run(run())
    bodies = {o.body for o in outcomes}
    assert len(bodies) == 1  # every request forwarded the same compaction

    async def stored() -> int:
        store = SQLiteStore(tmp_path / "state.sqlite3")
        session = outcomes[0].session
        from contextfold.proxy._engine import lineage_of

        lineage = lineage_of(FORMATS["anthropic"], _body(history), [], {})
        record = await store.get_lineage(TENANT, session, lineage)
        await store.aclose()
        assert record is not None
        return record.compactions

    assert asyncio.run(stored()) == 1


def test_a_client_that_compacted_itself_is_forwarded_as_sent(tmp_path: Path) -> None:
    async def run() -> None:
        engine = _engine(tmp_path)
        history = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"m{i} " + "text " * 300} for i in range(13)
        ]
        headers = {"x-claude-code-session-id": "s1"}
        first = await engine.rewrite(FORMATS["anthropic"], _body(history), headers, TENANT)
        assert first.compacted
        own = [{"role": "user", "content": "Summary written by the client itself."}]
        after = await engine.rewrite(FORMATS["anthropic"], _body(own), headers, TENANT)
        assert after.body is None and after.action == "pass"

    asyncio.run(run())


def test_responses_items_the_provider_owns_are_never_altered(tmp_path: Path) -> None:
    items: list[Any] = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        {"type": "compaction", "encrypted_content": "PROVIDER-SUMMARY"},
    ]
    for n in range(12):
        items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"task {n}"}]})
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_{n}",
                "summary": [{"type": "summary_text", "text": "think"}],
                "encrypted_content": f"ENC{n}" * 20,
            }
        )
        items.append({"type": "function_call", "call_id": f"c{n}", "name": "shell", "arguments": '{"cmd":"ls"}'})
        items.append({"type": "function_call_output", "call_id": f"c{n}", "output": f"file{n} " * 300})
    body = {"model": "gpt-5-codex", "instructions": "You are Codex.", "input": items, "prompt_cache_key": "conv-1"}

    async def run() -> Outcome:
        return await _engine(tmp_path, window=6000).rewrite(FORMATS["responses"], copy.deepcopy(body), {}, TENANT)

    outcome = asyncio.run(run())
    assert outcome.compacted and outcome.body is not None
    sent = orjson.loads(outcome.body)
    out = sent["input"]
    assert sent["instructions"] == "You are Codex." and out[0] == items[0]  # head untouched
    assert out[1] == {"type": "compaction", "encrypted_content": "PROVIDER-SUMMARY"}  # carried, verbatim
    assert out[2]["role"] == "user" and "Summary of earlier conversation" in out[2]["content"][0]["text"]
    kept = out[3:]
    assert kept == items[len(items) - len(kept) :]  # the client's own items, untouched
    assert kept[0]["type"] != "function_call_output"
    assert not [p for p in validate(responses_to_messages(out, "x"), "responses") if p.blocking]
    for i, item in enumerate(kept[:-1]):
        if item["type"] == "reasoning":
            assert kept[i + 1]["type"] == "function_call"  # never cut right after a reasoning item


def test_previous_response_id_passes_through(tmp_path: Path) -> None:
    body = {"model": "gpt-5", "previous_response_id": "resp_1", "input": [{"role": "user", "content": "x " * 9000}]}
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["responses"], body, {}, TENANT))
    assert outcome.body is None and "previous_response_id" in outcome.action


def test_message_hash_ignores_breakpoints_and_lone_text_form() -> None:
    plain = {"role": "user", "content": "hello"}
    block = {"role": "user", "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}]}
    other = {"role": "user", "content": "hello!"}
    assert message_hash(plain) == message_hash(block) != message_hash(other)
    two = {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert message_hash(two) != message_hash({"role": "user", "content": "ab"})


def test_oversized_tool_result_is_cut_once_and_the_same_rewrite_goes_out_again(tmp_path: Path) -> None:
    output = "\n".join(f"row {i}: " + "x" * 60 for i in range(3000))
    history: list[Any] = [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"c": "cat"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]},
    ]

    async def run() -> tuple[Outcome, Outcome]:
        engine = _engine(tmp_path, window=200_000)
        first = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        history.append({"role": "assistant", "content": "ok"})
        history.append({"role": "user", "content": "next"})
        second = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        return first, second

    first, second = asyncio.run(run())
    assert first.offloads == 1 and second.offloads == 0 and not first.compacted
    a = orjson.loads(first.body or b"")["messages"]
    b = orjson.loads(second.body or b"")["messages"]
    assert a[2] == b[2]
    content = a[2]["content"][0]["content"]
    text = content if isinstance(content, str) else "\n".join(b["text"] for b in content)
    assert "<<<TRUNCATED>>>" in text and "read_offloaded" in text and "Without those tools: the file is" in text
    assert "row 2999" in text  # the tail excerpt
    path = text.split("the file is ")[1].split(";")[0]
    assert Path(path).read_text().endswith("row 2999: " + "x" * 60)


def test_claude_code_shaped_session_keeps_its_system_messages_and_thinking(tmp_path: Path) -> None:
    """Facts from /work/coord/clients.md: `role: system` messages inside `messages`, signed thinking, one breakpoint."""
    env = {"role": "system", "content": "# Environment\ncwd: /repo\nDeferred tools: ToolSearch"}
    messages: list[Any] = [{"role": "user", "content": [{"type": "text", "text": "fix the build"}]}, env]
    body = {
        "model": "claude-opus-5-5",
        "messages": messages,
        "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": "Bash", "input_schema": {"type": "object"}, "defer_loading": False}],
        "max_tokens": 128000,
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
    }
    headers = {"x-claude-code-session-id": "2b1c"}

    async def run() -> list[Outcome]:
        engine = _engine(tmp_path, window=20_000)
        outs = []
        for n in range(24):
            for m in messages:
                if isinstance(m["content"], list):
                    for b in m["content"]:
                        b.pop("cache_control", None)
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "", "signature": f"SIG{n}"},
                        {"type": "server_tool_use", "id": f"srv_{n}", "name": "web_search", "input": {}},
                        {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"seq {n}"}},
                    ],
                }
            )
            output = f"turn {n}\n" + "\n".join(str(i) for i in range(1500))  # distinct per turn (no pointer)
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": f"toolu_{n}",
                            "type": "tool_result",
                            "content": output,
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                }
            )
            outs.append(await engine.rewrite(FORMATS["anthropic"], copy.deepcopy(body), headers, TENANT))
        return outs

    outs = asyncio.run(run())
    assert sum(o.compacted for o in outs) >= 2
    assert all(o.session == "2b1c" for o in outs)
    last = orjson.loads(outs[-1].body or b"")
    forwarded = last["messages"]
    assert env in forwarded  # carried verbatim, never summarized away
    assert last["system"] == body["system"] and last["context_management"] == body["context_management"]
    client_tail = [m for m in forwarded if m in messages]
    assert client_tail[-1] == messages[-1]  # the newest breakpoint as the client placed it
    for m in forwarded:
        if m["role"] == "assistant" and isinstance(m["content"], list) and m["content"][0]["type"] == "thinking":
            assert m in messages  # signed thinking only ever goes out as the client sent it
    assert sum(json_count(m) for m in forwarded) + 1 <= 4  # breakpoints within Anthropic's limit


def json_count(value: Any) -> int:
    return orjson.dumps(value).count(b'"cache_control"')


def test_a_large_newest_tool_group_is_kept_while_the_rest_is_compacted(tmp_path: Path) -> None:
    """The digest may prefer to compact everything when the newest group alone passes its recent cap; the client's
    newest message must stay, so the cut falls before that group instead (else the request went out uncompacted)."""
    body: dict[str, Any] = {
        "model": "claude-x",
        "max_tokens": 10,
        "system": "be careful",
        "tools": [{"name": "Write", "input_schema": {"type": "object"}, "description": "d " * 16000}],
        "messages": [{"role": "user", "content": "go"}],
    }
    msgs = body["messages"]
    for n in range(8):
        msgs.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{n}", "name": "Write", "input": {"c": "w " * 1000}}],
            }
        )
        msgs.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "word " * 1600}]}
        )
    msgs.append(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "big", "name": "Write", "input": {"c": "w " * 8000}}],
        }
    )
    msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "big", "content": "word " * 4800}]})
    from contextfold.proxy import CompactionPolicy

    # At a 0.8 trigger the newest group fits whole under the trigger (at a lower one its result alone passes a
    # quarter of the budget and is cut, which is another test's business).
    engine = _engine(tmp_path, window=40_000, trigger_ratio=0.8)
    engine.policy = CompactionPolicy(offload_tokens=0, dedupe_tokens=0)  # results whole: the cut must fall before them
    outcome = asyncio.run(engine.rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.compacted and outcome.tokens_after <= 32_000
    forwarded = orjson.loads(outcome.body or b"")["messages"]
    assert forwarded[-2:] == msgs[-2:]


def _session_sizes(engine: Engine, turns: int = 40) -> tuple[int, list[int]]:
    """Compactions and forwarded tokens over a plain growing session (one 300-word user turn per step)."""

    async def run() -> tuple[int, list[int]]:
        history: list[Any] = []
        compactions = 0
        after: list[int] = []
        for n in range(turns):
            history.append({"role": "user", "content": f"u{n} " + "word " * 300})
            outcome = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
            compactions += outcome.compacted
            if outcome.compacted:
                after.append(outcome.tokens_after)
            history.append({"role": "assistant", "content": f"a{n} " + "ok " * 50})
        return compactions, after

    return asyncio.run(run())


def test_a_deeper_policy_cuts_deeper_and_so_compacts_less_often(tmp_path: Path) -> None:
    from contextfold.proxy import CompactionPolicy

    deep = _engine(tmp_path / "deep", window=8000)
    shallow = _engine(tmp_path / "shallow", window=8000)
    shallow.policy = CompactionPolicy(target_ratio=0.83, summary_ratio=0.4, reserve_ratio=0.1, min_recent_messages=6)
    n_deep, deep_after = _session_sizes(deep, 80)
    n_shallow, shallow_after = _session_sizes(shallow, 80)
    assert n_deep >= 2 and n_shallow >= 2
    assert n_deep < n_shallow
    assert max(deep_after) < min(shallow_after)
    trigger = int(8000 * ProxyConfig().trigger_ratio)
    assert all(t <= trigger for t in deep_after + shallow_after)


def test_the_default_policy_plans_into_its_share_of_the_room(tmp_path: Path) -> None:
    from contextfold.proxy import CompactionPolicy

    policy = CompactionPolicy()
    room = int(8000 * ProxyConfig().trigger_ratio)  # no tools: the whole trigger is room
    turn = len(orjson.dumps({"role": "user", "content": "u00 " + "word " * 300})) // 4 + 60  # one turn, BytesCounter
    # On the request path (no precomputation) the plan (summary plus the newest messages kept verbatim) aims at
    # target_ratio of the room.
    inline = _engine(tmp_path / "inline", window=8000)
    inline.policy = CompactionPolicy(precompute="off")
    _, after = _session_sizes(inline)
    assert after
    assert all(t <= room * policy.target_ratio * 1.1 for t in after), after
    # Precomputed from the history's prefix at the pre-trigger: plus what the session added until the trigger.
    ahead = _engine(tmp_path / "background", window=8000)
    ahead.policy = CompactionPolicy(precompute="replacement")
    _, after = _session_sizes(ahead)
    assert after
    slack = room * (1 - policy.precompute_ratio) + turn
    assert all(t <= room * policy.target_ratio * 1.1 + slack for t in after), after


def _policy_engine(path: Path, precompute: str) -> Engine:
    from contextfold.proxy import CompactionPolicy

    engine = _engine(path, window=8000)
    engine.policy = CompactionPolicy(precompute=precompute)
    return engine


async def _drive(
    path: Path, turns: int, *, settle: bool, restart: bool = False, precompute: str = "replacement"
) -> list[Outcome]:
    """A plain growing session at window 8000; ``settle``: the model thinks (background work ends) between
    requests; ``restart``: a new engine (empty memory) on the same store for every request."""
    engine = _policy_engine(path, precompute)
    history: list[Any] = []
    outs: list[Outcome] = []
    for n in range(turns):
        history.append({"role": "user", "content": f"u{n} " + "word " * 300})
        outs.append(await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT))
        if settle:
            await engine.settle()
        if restart:
            await engine.aclose()
            await engine.store.aclose()
            engine = _policy_engine(path, precompute)
        history.append({"role": "assistant", "content": f"a{n} " + "ok " * 50})
    await engine.aclose()
    await engine.store.aclose()
    return outs


def test_the_next_replacement_is_precomputed_and_the_same_bytes_however_it_is_reached(tmp_path: Path) -> None:
    """Precomputed in the background, made on the spot (no time to finish), or found in the store after a restart:
    every request forwards the same bytes, and the promoted replacement is the one stored ahead of the trigger."""
    import shutil

    def fresh(kind: str, **kw: Any) -> list[Outcome]:  # one folder for every run: the notices name it
        folder = tmp_path / "state"
        shutil.rmtree(folder, ignore_errors=True)
        outs = asyncio.run(_drive(folder, 40, **kw))
        shutil.copytree(folder, tmp_path / kind)
        return outs

    hurried = fresh("b", settle=False)
    restarted = fresh("c", settle=True, restart=True)
    cold = fresh("d", settle=False, restart=True)  # every task cancelled before it finished
    thinking = fresh("a", settle=True)
    assert sum(o.compacted for o in thinking) >= 2
    want = [o.body for o in thinking]
    assert want == [o.body for o in hurried] == [o.body for o in restarted] == [o.body for o in cold]
    assert [o.compacted for o in thinking] == [o.compacted for o in cold]

    async def stored() -> tuple[Any, Any]:
        from contextfold.proxy._engine import NEXT_SUFFIX, lineage_of

        store = SQLiteStore(tmp_path / "a" / "state.sqlite3")
        lineage = lineage_of(FORMATS["anthropic"], _body([]), [], {})
        main = await store.get_lineage(TENANT, thinking[0].session, lineage)
        ahead = await store.get_lineage(TENANT, thinking[0].session, lineage + NEXT_SUFFIX)
        await store.aclose()
        return main, ahead

    main, ahead = asyncio.run(stored())
    assert main is not None and ahead is not None
    assert ahead.compactions >= main.compactions  # computed ahead of the trigger, then promoted
    if ahead.compactions == main.compactions:
        assert ahead.replacement == main.replacement


@pytest.mark.parametrize("precompute", ["warm", "replacement"])
def test_a_request_between_pre_trigger_and_trigger_goes_out_unchanged_and_starts_one_task(
    tmp_path: Path, precompute: str
) -> None:
    async def run() -> None:
        engine = _policy_engine(tmp_path, precompute)
        history: list[Any] = []
        for n in range(40):
            history.append({"role": "user", "content": f"u{n} " + "word " * 300})
            out = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
            if out.tokens_before > int(8000 * engine.config.trigger_ratio * engine.policy.precompute_ratio):
                assert not out.compacted and out.body is None  # below the trigger: the client's own bytes
                assert len(engine._next) == 1  # one task for the lineage
                again = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
                assert again.body is None and len(engine._next) == 1
                await engine.aclose()
                assert not engine._next
                await engine.store.aclose()
                return
            history.append({"role": "assistant", "content": f"a{n} " + "ok " * 50})
        raise AssertionError("the session never reached the pre-trigger")

    asyncio.run(run())


def test_a_failing_background_compaction_is_logged_and_the_trigger_still_compacts(tmp_path: Path) -> None:
    lines: list[str] = []

    async def run() -> list[Outcome]:
        from contextfold.proxy import CompactionPolicy

        config = ProxyConfig(window=8000, state_dir=tmp_path)
        store = SQLiteStore(tmp_path / "state.sqlite3")
        engine = Engine(config, store, BytesCounter(), CompactionPolicy(precompute="replacement"), log=lines.append)
        history: list[Any] = []
        outs: list[Outcome] = []
        broke = False
        for n in range(40):
            history.append({"role": "user", "content": f"u{n} " + "word " * 300})
            outs.append(await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT))
            if engine._next and not broke:
                # the workspace's folder becomes a file: the archive write of the background compaction fails
                (tmp_path / "workspace").write_text("not a folder")
                await engine.settle()
                (tmp_path / "workspace").unlink()
                broke = True
            history.append({"role": "assistant", "content": f"a{n} " + "ok " * 50})
        await engine.aclose()
        await store.aclose()
        return outs

    outs = asyncio.run(run())
    assert any("background compaction failed" in line for line in lines), lines
    assert sum(o.compacted for o in outs) >= 1


def test_warming_the_caches_forwards_the_same_bytes_as_compacting_cold(tmp_path: Path) -> None:
    """The default precomputation only warms caches: the request at the trigger compacts its own history, byte for
    byte what an engine without any background work forwards (the digest of that history, nothing earlier)."""
    import shutil

    def fresh(kind: str, **kw: Any) -> list[Outcome]:
        folder = tmp_path / "state"
        shutil.rmtree(folder, ignore_errors=True)
        return asyncio.run(_drive(folder, 40, **kw))

    cold = fresh("off", settle=True, precompute="off")
    warm = fresh("warm", settle=True, precompute="warm")
    hurried = fresh("warm-hurried", settle=False, precompute="warm")
    assert sum(o.compacted for o in cold) >= 2
    assert [o.body for o in warm] == [o.body for o in cold] == [o.body for o in hurried]


def test_a_new_result_above_the_policy_threshold_is_cut_at_first_sight_and_spliced_the_same_later(
    tmp_path: Path,
) -> None:
    """Far below the window, a result above ``offload_tokens`` (by more than its notice) is cut when it arrives;
    one just above the threshold is left whole (its cut would cost more than it saves)."""

    async def run() -> None:
        engine = _engine(tmp_path, window=200_000)
        limit = engine.policy.offload_tokens
        assert limit > 0
        big = "line of output\n" * (limit * 4 // 15 * 3)  # about 3x the threshold (BytesCounter: 4 bytes a token)
        small = "x" * ((limit + 300) * 4)  # above the threshold by less than a notice
        history: list[Any] = [{"role": "user", "content": "go"}]
        for n, text in enumerate((big, small)):
            history.append(
                {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "sh", "input": {}}]}
            )
            history.append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}]}
            )
        first = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history[:3])), {}, TENANT)
        assert first.offloads == 1 and first.body is not None and first.tokens_after < first.tokens_before
        second = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert second.offloads == 0 and second.body is not None
        sent = orjson.loads(second.body)["messages"]
        assert sent[:3] == orjson.loads(first.body)["messages"]  # the same cut spliced again
        assert sent[3:] == history[3:]  # the one just above the threshold went out whole
        await engine.aclose()
        await engine.store.aclose()

    asyncio.run(run())


def _offload_history(n: int) -> list[Any]:
    """A history whose newest message is a tool result far above the first-sight threshold."""
    out: list[Any] = [{"role": "user", "content": "go"}]
    out.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "sh", "input": {}}]})
    rows = "\n".join(f"row {i} of run {n}: " + "y" * 50 for i in range(600))
    out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": rows}]})
    return out


def test_a_first_sight_rewrite_is_stored_after_the_request_and_read_by_the_next_one(tmp_path: Path) -> None:
    """The store write of a new rewrite leaves the request path; the lineage's next request (on this engine, on a
    replica or after a restart) finds it and forwards the same bytes."""

    async def run() -> None:
        engine = _engine(tmp_path, window=200_000)
        history = _offload_history(0)
        first = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert first.offloads == 1 and first.body is not None
        history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
        second = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert second.offloads == 0  # read its own write: the rewrite was stored before the next request read
        await engine.settle()
        assert not engine._puts
        replica = _engine(tmp_path, window=200_000)  # a second process on the same store and state directory
        third = await replica.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert third.offloads == 0 and third.body == second.body
        sent = orjson.loads(third.body or b"")["messages"]
        assert sent[:3] == orjson.loads(first.body)["messages"]
        for e in (engine, replica):
            await e.aclose()
            await e.store.aclose()

    asyncio.run(run())


def test_a_rewrite_the_store_refuses_is_logged_and_made_again_with_the_same_bytes(tmp_path: Path) -> None:
    """Fail open, late: the request went out with its cut; the store write fails (another process holds the
    database's write lock); the error is logged and the next request cuts the same result to the same bytes."""
    import sqlite3

    lines: list[str] = []

    async def run() -> None:
        config = ProxyConfig(window=200_000, state_dir=tmp_path)
        store = SQLiteStore(tmp_path / "state.sqlite3", timeout=0.2)
        engine = Engine(config, store, BytesCounter(), log=lines.append)
        await engine.rewrite(FORMATS["anthropic"], _body([{"role": "user", "content": "hi"}]), {}, TENANT)
        blocker = sqlite3.connect(tmp_path / "state.sqlite3", isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        history = _offload_history(1)
        first = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert first.offloads == 1 and first.body is not None  # forwarded with the cut, the write still pending
        await engine.settle()
        blocker.execute("ROLLBACK")
        blocker.close()
        assert any("rewrite not stored" in line for line in lines), lines
        history += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]
        second = await engine.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(history)), {}, TENANT)
        assert second.offloads == 1  # made again: nothing was stored
        assert orjson.loads(second.body or b"")["messages"][:3] == orjson.loads(first.body)["messages"]
        await engine.aclose()
        await store.aclose()

    asyncio.run(run())


edits = st.lists(
    st.tuples(st.sampled_from(["append", "edit", "truncate", "breakpoint"]), st.integers(0, 30)), max_size=12
)


@settings(max_examples=25, deadline=None)
@given(edits)
def test_the_prefix_memo_gives_what_hashing_every_message_gives(steps: list[tuple[str, int]]) -> None:
    """Whatever the client does to its history between requests (appends, edits an old message, drops the tail,
    moves a breakpoint), the hashes, prefix identities and counts are those of a fresh computation."""
    from contextfold.proxy._wire import chain_hash

    fmt = FORMATS["anthropic"]
    engine = Engine(ProxyConfig(window=200_000), SQLiteStore(":memory:"), BytesCounter())
    key = ("t", "s", "l")
    history: list[Any] = [{"role": "user", "content": "start"}]
    for kind, at in steps:
        if kind == "append":
            role = "assistant" if history[-1]["role"] == "user" else "user"
            history.append({"role": role, "content": f"m{len(history)} {at} " + "w " * at})
        elif kind == "edit":
            i = at % len(history)
            history[i] = {**history[i], "content": str(history[i]["content"]) + " edited"}
        elif kind == "truncate" and len(history) > 1:
            history = history[: 1 + at % len(history)]
        else:
            i = at % len(history)
            text = history[i]["content"]
            history[i] = {**history[i], "content": [{"type": "text", "text": str(text), "cache_control": {"a": 1}}]}
        client = copy.deepcopy(history)
        seen = engine._prefix_of(fmt, key, client, [orjson.dumps(m) for m in client])
        hashes = [message_hash(m) for m in client]
        chains = [""]
        for h in hashes:
            chains.append(chain_hash(chains[-1], h))
        counts = [0]
        for h, m in zip(hashes, client, strict=True):
            counts.append(counts[-1] + engine._count(fmt, h, m))
        assert (seen.hashes, seen.chains, seen.counts) == (hashes, chains, counts)


def test_a_compaction_that_loses_its_cas_to_a_replicas_rewrite_only_write_is_stored_on_top(tmp_path: Path) -> None:
    """Replica A cuts a new tool result and stores the rewrite after its response; replica B, which read the store
    before that write landed, compacts the next request: its compaction is stored, not dropped for A's record."""
    import threading

    config = ProxyConfig(window=3000, state_dir=tmp_path)
    output = "\n".join(f"row {i}: " + "z" * 40 for i in range(120))
    h1: list[Any] = [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "sh", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]},
    ]
    h2 = h1 + [
        {"role": "assistant" if i % 2 == 0 else "user", "content": f"turn {i} " + "word " * 250} for i in range(9)
    ]

    async def run() -> None:
        a = Engine(config, SQLiteStore(tmp_path / "state.sqlite3"), BytesCounter())
        b = Engine(config, SQLiteStore(tmp_path / "state.sqlite3"), BytesCounter())
        first = await a.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(h1)), {}, TENANT)
        assert first.offloads == 1 and first.after is not None  # A's write waits for its response to end
        gate = threading.Event()
        b._executor().submit(gate.wait)  # B's compaction will queue behind this, after B read the store
        compacting = asyncio.ensure_future(b.rewrite(FORMATS["anthropic"], _body(copy.deepcopy(h2)), {}, TENANT))
        await asyncio.sleep(0.2)
        first.after()  # A's response is over: its rewrite-only record lands now, before B's compaction is stored
        await a.settle()
        gate.set()
        second = await compacting
        assert second.compacted
        record = await a.store.get_lineage(TENANT, second.session, next(iter(b._seen))[2])
        assert record is not None and record.compactions == 1 and record.covered > 0
        assert set(record.rewrites) <= set(b._seen[next(iter(b._seen))].hashes[record.covered :])
        for e in (a, b):
            await e.aclose()
            await e.store.aclose()

    asyncio.run(run())


def _with_a_late_user_turn(at: int, turns: int = 50) -> list[list[Any]]:
    """Requests of a tool session whose user adds an instruction before turn ``at`` (its last real user turn)."""
    history: list[Any] = [{"role": "user", "content": "fix the failing tests in /repo/src"}]
    requests = []
    for n in range(turns):
        if n == at:
            history.append({"role": "user", "content": "also update /repo/docs/index.md when you are done"})
        history.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "sh", "input": {"c": n}}]}
        )
        output = f"/repo/src/mod_{n}.py: checked\n" + "row of output\n" * 40
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": output}
        history.append({"role": "user", "content": [result]})
        requests.append(copy.deepcopy(history))
    return requests


@pytest.mark.parametrize("at", [26, 28, 30, 32, 34])
def test_a_precomputed_replacement_leaves_its_summary_room_when_a_user_turn_is_late(tmp_path: Path, at: int) -> None:
    """The prefix plan keeps the prefix's newest user turn verbatim; when that turn would leave the summary almost
    nothing (swe_mini_gemini3pro#5 had 2 % retention so), a shallower plan is taken: the summary keeps its share."""

    async def run() -> list[tuple[Outcome, int]]:
        engine = _policy_engine(tmp_path, "replacement")
        outs = []
        for request in _with_a_late_user_turn(at):
            out = await engine.rewrite(FORMATS["anthropic"], _body(request), {}, TENANT)
            await engine.settle()
            outs.append((out, len(request)))
        await engine.aclose()
        await engine.store.aclose()
        return outs

    outs = asyncio.run(run())
    first = next(o for o, _ in outs if o.compacted)
    summary = orjson.dumps(orjson.loads(first.body or b"")["messages"][0]).decode()
    room = int(8000 * ProxyConfig().trigger_ratio * 0.25 * 0.4)  # the summary's share of the shallowest plan (tokens)
    assert len(summary) // 4 >= room // 2, summary[:300]
    assert "/repo/src/mod_1.py" in summary  # an early fact survived the compaction
