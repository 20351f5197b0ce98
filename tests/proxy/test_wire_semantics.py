"""Wire-format semantics the proxy must keep: provider compaction blocks, the client's breakpoints inside tool
results, and lineages that survive a system prompt switching between string and block form."""

from __future__ import annotations

import asyncio
import copy
import itertools
from pathlib import Path
from typing import Any

import anthropic
import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold import BytesCounter
from contextfold._stores._sqlite import SQLiteStore
from contextfold.proxy import ProxyConfig
from contextfold.proxy._engine import Engine, Outcome
from contextfold.proxy._wire import FORMATS, count_breakpoints
from provider_server import ProviderServer, Reply

TENANT = "t" * 32
EPHEMERAL = {"type": "ephemeral"}
BIG = "\n".join(f"line {i} value {i * 7} path /src/f{i}.py" for i in range(1500))


def _engine(path: Path, window: int = 6000) -> Engine:
    return Engine(ProxyConfig(window=window, state_dir=path), SQLiteStore(path / "state.sqlite3"), BytesCounter())


def _sent(outcome: Outcome, body: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(outcome.body) if outcome.body is not None else body


def _body(messages: list[Any], system: Any = "be useful") -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": system, "messages": messages}


def _turn(n: int, words: int = 150) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": f"a{n} " + "reply " * words},
        {"role": "user", "content": f"u{n} " + "word " * words},
    ]


# -- 1. Anthropic's server-side compaction block ------------------------------------------------------------------


def _compaction(n: int, *, call: bool = False) -> dict[str, Any]:
    """An assistant turn that opens with the server's compaction block (``compact_20260112``), as the API returns it
    (``call``: the turn goes on with a tool call)."""
    content: list[Any] = [
        {
            "type": "compaction",
            "content": f"Summary {n}: the user asked for a build fix; " + "detail " * 60,
            "encrypted_content": f"ENC{n}" + "x" * 40,
            "signature": f"SIG{n}",
        },
        {"type": "text", "text": f"continuing after compaction {n}"},
    ]
    if call:
        content.append({"type": "tool_use", "id": f"toolu_c{n}", "name": "bash", "input": {"cmd": "ls"}})
    return {"role": "assistant", "content": content}


def _after_compaction(n: int, *, call: bool) -> dict[str, Any]:
    if not call:
        return {"role": "user", "content": f"u{n} " + "word " * 150}
    result = {"type": "tool_result", "tool_use_id": f"toolu_c{n}", "content": f"out{n} " + "data " * 150}
    return {"role": "user", "content": [result]}


def _latest_compaction(messages: list[Any]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content")
        if isinstance(content, list) and any(b.get("type") == "compaction" for b in content):
            return i
    return -1


async def _session_with_compactions(
    path: Path, at: list[int], turns: int, *, call: bool = False
) -> tuple[list[Outcome], list[Any]]:
    engine = _engine(path)
    history: list[Any] = [{"role": "user", "content": "start " + "word " * 150}]
    outcomes = []
    for n in range(turns):
        if n in at:
            history.append(_compaction(n, call=call))
            history.append(_after_compaction(n, call=call))
        else:
            history.extend(_turn(n))
        body = _body(copy.deepcopy(history))
        outcome = await engine.rewrite(
            FORMATS["anthropic"], copy.deepcopy(body), {"x-claude-code-session-id": "s"}, TENANT
        )
        await engine.settle()
        sent = _sent(outcome, body)["messages"]
        latest = _latest_compaction(history)
        end = 0
        if latest >= 0:
            # Everything up to the latest compaction block goes out as the client sent it (the API drops what
            # precedes the block, and the block itself is the provider's own, signed memory), and so does the
            # answer to its tool call.
            end = latest + 1 + (call and latest + 1 < len(history))
            assert orjson.dumps(sent[:end]) == orjson.dumps(history[:end])
        for a, b in itertools.pairwise(sent):
            # roles alternate (the API would merge a summary into the tool results before it: allowed)
            assert a["role"] != b["role"] or (call and a is sent[end - 1] and b["role"] == "user")
        assert sent[-1] == history[-1]
        outcomes.append(outcome)
    await engine.aclose()
    await engine.store.aclose()
    return outcomes, history


def test_a_compaction_block_and_what_precedes_it_go_out_as_sent(tmp_path: Path) -> None:
    """Regression: the message holding a ``compaction`` block was read leniently and summarized with the rest, so
    the provider's compaction (its summary, encrypted content and signature) was lost from the forwarded request."""
    outcomes, _ = asyncio.run(_session_with_compactions(tmp_path, at=[3], turns=40))
    assert any(o.compacted for o in outcomes[5:])  # the proxy still compacts what follows the block


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 34), min_size=1, max_size=3, unique=True), st.booleans())
def test_compaction_blocks_anywhere_are_kept_and_never_compacted_across(
    tmp_path_factory: Any, at: list[int], call: bool
) -> None:
    asyncio.run(_session_with_compactions(tmp_path_factory.mktemp("cmp"), at=at, turns=36, call=call))


def test_what_precedes_a_compaction_block_is_not_counted(tmp_path: Path) -> None:
    """The API drops everything before the block: a history far over the window before it is not compacted."""
    history: list[Any] = [{"role": "user", "content": "start"}]
    for n in range(40):
        history.extend(_turn(n, words=300))
    history.append(_compaction(99))
    history.append({"role": "user", "content": "next"})
    body = _body(copy.deepcopy(history))
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.body is None and not outcome.compacted
    assert 0 < outcome.tokens_before < 1000  # the system prompt, the block's summary and text, the last turn


# -- 2. a client breakpoint inside a tool result ------------------------------------------------------------------


def test_a_breakpoint_inside_a_cut_tool_result_is_kept(tmp_path: Path) -> None:
    """Regression: a first-sight cut dropped a ``cache_control`` the client put on a text block inside the
    ``tool_result`` (only breakpoints on the message's own blocks were put back)."""
    result = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": BIG, "cache_control": EPHEMERAL}],
    }
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
        {"role": "user", "content": [result]},
    ]
    body = _body(messages)
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.offloads == 1 and outcome.body is not None
    last = orjson.loads(outcome.body)["messages"][-1]
    assert len(orjson.dumps(last)) < len(BIG) // 2  # the result was cut
    assert count_breakpoints(last) == 1
    inner = last["content"][0]["content"]
    assert isinstance(inner, list) and inner[-1].get("cache_control") == EPHEMERAL


def test_a_breakpoint_inside_a_compacted_tool_result_gets_one_after_the_replacement(tmp_path: Path) -> None:
    """The client's breakpoint on a text block inside a ``tool_result`` that the compaction covers is replaced by
    one on the replacement's last block (never more than four in all)."""

    async def run() -> None:
        engine = _engine(tmp_path, window=4000)
        history: list[Any] = [{"role": "user", "content": "go"}]
        history.append({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "sh", "input": {}}]})
        inner = {"type": "text", "text": "result " * 200, "cache_control": EPHEMERAL}
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [inner]}]})
        seen_compaction = False
        for n in range(30):
            history.extend(_turn(n, words=120))
            body = _body(copy.deepcopy(history))
            outcome = await engine.rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT)
            await engine.settle()
            sent = _sent(outcome, body)
            assert count_breakpoints(sent) <= 4
            if outcome.body is not None and _covers(sent["messages"], history) > 3:
                seen_compaction = True
                # the client's breakpoint was compacted away: one marks the end of the replacement instead
                assert count_breakpoints(sent["messages"]) == 1
        assert seen_compaction
        await engine.aclose()
        await engine.store.aclose()

    asyncio.run(run())


def _covers(forwarded: list[Any], sent: list[Any]) -> int:
    """How many of the client's messages the forwarded list replaced (the longest common suffix rule)."""
    k = 0
    while k < len(sent) and k < len(forwarded) and forwarded[-1 - k] == sent[-1 - k]:
        k += 1
    return len(sent) - k


# -- 3. a system prompt that switches between string and block form -----------------------------------------------


def test_a_system_prompt_switching_form_keeps_its_lineage_and_replacement(tmp_path: Path) -> None:
    """Regression: the lineage hashed ``system`` as sent, so a lone text switching between ``"..."`` and
    ``[{"type": "text", "text": "..."}]`` started a new lineage: the stored replacement was not spliced and the
    next compaction rewrote the cache."""
    text = "You are a helpful agent."
    forms = [text, [{"type": "text", "text": text}], [{"type": "text", "text": text, "cache_control": EPHEMERAL}]]

    async def run() -> None:
        engine = _engine(tmp_path, window=4000)
        history: list[Any] = [{"role": "user", "content": "start"}]
        compacted_at = None
        checked = 0
        previous: list[Any] | None = None
        for n in range(30):
            history.extend(_turn(n, words=120))
            system = forms[n % 3]
            body = _body(copy.deepcopy(history), system=copy.deepcopy(system))
            outcome = await engine.rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT)
            await engine.settle()
            sent = _sent(outcome, body)
            assert sent["system"] == system  # the client's own form goes out
            if outcome.compacted:
                compacted_at = n
            elif compacted_at is not None and previous is not None:
                # the replacement and the client's messages after it: the previous request is a prefix of this one
                assert orjson.dumps(sent["messages"][: len(previous)]) == orjson.dumps(previous)
                checked += 1
            previous = sent["messages"] if compacted_at is not None else None
        assert compacted_at is not None and checked >= 10
        await engine.aclose()
        await engine.store.aclose()

    asyncio.run(run())


# -- 4. data blocks: the proxy counts them by the library's one rule -----------------------------------------------


def test_a_large_text_document_counts_its_text_and_is_compacted(tmp_path: Path) -> None:
    """Regression: a document block (read by the canonical model, unlike a block it does not know) counted a flat
    2,000 tokens, so a request holding a 60,000-token text document went out uncompacted at a 6,000-token window."""
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": BIG * 4}}
    history: list[Any] = [{"role": "user", "content": [{"type": "text", "text": "read this"}, document]}]
    for n in range(3):
        history.extend(_turn(n, words=50))
    body = _body(copy.deepcopy(history))
    outcome = asyncio.run(_engine(tmp_path).rewrite(FORMATS["anthropic"], copy.deepcopy(body), {}, TENANT))
    assert outcome.tokens_before > len(BIG)  # four times BIG's characters, at four a token
    assert outcome.compacted and outcome.tokens_after < 6000


# -- through the HTTP app, with the official SDK -----------------------------------------------------------------


def test_anthropic_sdk_compaction_blocks_reach_the_upstream_as_sent(upstream: ProviderServer, make_proxy: Any) -> None:
    """The beta client (``compact-2026-01-12``) round-trips the server's compaction block through the proxy at a small
    window: every request reaches the upstream with everything up to the latest block as the client sent it, and
    the proxy compacts what follows."""
    proxy = make_proxy(window=6000)
    client = anthropic.Anthropic(base_url=proxy.url, api_key="sk-ant-api03-compaction-00000", max_retries=0)
    history: list[Any] = [{"role": "user", "content": "start " + "word " * 150}]
    sent: list[list[Any]] = []
    compacted = []
    try:
        for n in range(24):
            if n == 2:
                history.append(_compaction(n))
                history.append({"role": "user", "content": f"u{n} " + "word " * 150})
            else:
                history.extend(_turn(n))
            upstream.queue(Reply(text=f"reply {n}"))
            raw = client.beta.messages.with_raw_response.create(
                model="claude-sonnet-4-6",
                max_tokens=64,
                system="sys",
                messages=history,
                betas=["compact-2026-01-12"],
                context_management={"edits": [{"type": "compact_20260112"}]},
            )
            compacted.append(raw.headers["x-contextfold-compacted"] == "true")
            sent.append(copy.deepcopy(history))
    finally:
        client.close()
    assert any(compacted)
    bodies = upstream.bodies("anthropic")
    assert len(bodies) == len(sent)
    for body, client_sent in zip(bodies, sent, strict=True):
        latest = _latest_compaction(client_sent)
        if latest >= 0:
            assert body["messages"][: latest + 1] == client_sent[: latest + 1]
        assert body["messages"][-1] == client_sent[-1]
