"""The official SDKs through the proxy to a scripted upstream on 127.0.0.1: what each side sees."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from proxy_harness import ProxyProcess
from wire_bytes import value_span

from contextfold import anthropic_to_messages, count_messages, make_counter, validate
from provider_server import ErrorReply, ProviderServer, Reply, ToolCall

MakeProxy = Callable[..., ProxyProcess]
KEY_A = "sk-ant-api03-tenant-a-0000000000000000"
KEY_B = "sk-ant-api03-tenant-b-1111111111111111"


def _credential(headers: Any) -> str:
    return str(headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer "))


_CLIENTS: list[anthropic.Anthropic | openai.OpenAI] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Each test's SDK clients are closed when it ends (not left to the garbage collector, mid-way through another)."""
    yield
    while _CLIENTS:
        _CLIENTS.pop().close()


def _anthropic(proxy: ProxyProcess | str, key: str = KEY_A, **kw: Any) -> anthropic.Anthropic:
    url = proxy if isinstance(proxy, str) else proxy.url
    _CLIENTS.append(client := anthropic.Anthropic(base_url=url, api_key=key, max_retries=0, **kw))
    return client


def _openai(proxy: ProxyProcess, key: str = "sk-proj-test-openai-0000") -> openai.OpenAI:
    _CLIENTS.append(client := openai.OpenAI(base_url=proxy.url + "/v1", api_key=key, max_retries=0))
    return client


# -- pass-through ---------------------------------------------------------------------------------


def test_nothing_to_do_forwards_the_clients_bytes_and_credentials(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    proxy = make_proxy()
    upstream.queue(Reply(text="direct"), Reply(text="proxied"))
    kwargs: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "héllo"}],
        "extra_query": {"beta": "true"},
    }
    _anthropic(upstream.anthropic_base_url).messages.create(**kwargs)
    raw = _anthropic(proxy).messages.with_raw_response.create(**kwargs)
    assert raw.parse().content[0].text == "proxied"  # type: ignore[union-attr]
    direct, proxied = upstream.requests
    assert proxied.raw == direct.raw
    assert _credential(proxied.headers) == _credential(direct.headers) == KEY_A
    assert proxied.headers.get("authorization") == direct.headers.get("authorization")
    assert proxied.headers.get("x-api-key") == direct.headers.get("x-api-key")
    assert proxied.headers["anthropic-version"] == direct.headers["anthropic-version"]
    assert raw.headers["x-contextfold-compacted"] == "false"
    assert int(raw.headers["x-contextfold-tokens-before"]) > 0
    assert float(raw.headers["x-contextfold-proxy-ms"]) >= 0
    assert all(KEY_A not in line for line in proxy.lines)


def test_stream_is_relayed_as_it_arrives(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    # The upstream holds after 4 events; the SDK reads one event ahead, so 3 events reach the test only if the
    # proxy passed the first 4 on as they came.
    upstream.queue(Reply(text="first part and then the rest", hold_after=4))
    with _anthropic(proxy).messages.stream(
        model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "go"}]
    ) as stream:
        events = iter(stream)
        seen = [next(events).type for _ in range(3)]  # would block forever if the proxy buffered the response
        upstream.release.set()
        rest = [e.type for e in events]
        text = stream.get_final_text()
    assert seen[0] == "message_start" and rest[-1] == "message_stop"
    assert text == "first part and then the rest"
    assert upstream.hold_timeouts == 0  # the events came before the release, not after the upstream gave up waiting


def test_openai_tool_loop_with_parallel_calls_stream_and_not(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    client = _openai(proxy)
    upstream.queue(
        Reply(tool_calls=[ToolCall("read", {"path": "a"}, id="c1"), ToolCall("read", {"path": "b"}, id="c2")]),
        Reply(text="done"),
    )
    messages: list[Any] = [{"role": "user", "content": "read a and b"}]
    first = client.chat.completions.create(model="gpt-4o", messages=messages)
    calls = first.choices[0].message.tool_calls or []
    assert [c.id for c in calls] == ["c1", "c2"]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages += [{"role": "tool", "tool_call_id": c.id, "content": f"content of {c.id}"} for c in calls]
    stream = client.chat.completions.create(model="gpt-4o", messages=messages, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "done"
    assert [m["role"] for m in upstream.bodies("openai")[1]["messages"]] == ["user", "assistant", "tool", "tool"]


def test_responses_api_function_calls_stream_and_not(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    client = _openai(proxy)
    upstream.queue(Reply(tool_calls=[ToolCall("shell", {"cmd": "ls"}, id="call_1")]), Reply(text="two files"))
    items: list[Any] = [{"role": "user", "content": "list"}]
    first = client.responses.create(model="gpt-5", input=items, instructions="be brief")
    call = next(o for o in first.output if o.type == "function_call")
    items += [o.model_dump(exclude_none=True) for o in first.output]
    items.append({"type": "function_call_output", "call_id": call.call_id, "output": "a b"})
    events = list(client.responses.create(model="gpt-5", input=items, instructions="be brief", stream=True))
    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == "two files"  # type: ignore[union-attr]
    assert upstream.bodies("responses")[1]["input"][-1]["call_id"] == "call_1"


# -- upstream errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "exc"),
    [
        (ErrorReply(400, "bad request here"), anthropic.BadRequestError),
        (ErrorReply.rate_limited(), anthropic.RateLimitError),
        (ErrorReply.server_error(), anthropic.InternalServerError),
    ],
)
def test_upstream_errors_are_relayed_verbatim(
    upstream: ProviderServer, make_proxy: MakeProxy, error: ErrorReply, exc: type[Exception]
) -> None:
    proxy = make_proxy()
    upstream.queue(error)
    with pytest.raises(exc) as info:
        _anthropic(proxy).messages.create(
            model="claude-sonnet-4-5", max_tokens=8, messages=[{"role": "user", "content": "x"}]
        )
    response = info.value.response  # type: ignore[attr-defined]
    assert response.status_code == error.status
    assert response.headers["retry-after-ms"] == "1"
    assert response.json()["error"]["message"] == error.message


def test_connection_reset_becomes_a_provider_shaped_502(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    upstream.queue(ErrorReply.connection_reset())
    with pytest.raises(openai.APIStatusError) as info:
        _openai(proxy).chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert info.value.status_code == 502
    assert "cannot reach the upstream" in info.value.message
    upstream.queue(Reply(text="back"))  # the proxy keeps serving
    reply = _openai(proxy).chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert reply.choices[0].message.content == "back"


# -- fail open ------------------------------------------------------------------------------------


def _post(proxy: ProxyProcess, path: str, data: bytes, key: str = KEY_A) -> httpx2.Response:
    headers = {"x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json"}
    return httpx2.post(proxy.url + path, content=data, headers=headers, timeout=60)


def test_malformed_json_reaches_the_upstream_unchanged(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy()
    data = b'{"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "x"'
    response = _post(proxy, "/v1/messages", data)
    assert response.status_code == 400  # the upstream's own answer
    assert upstream.requests[-1].raw == data
    assert any("forwarded unchanged: unparsable body" in line for line in proxy.lines)


def test_oversized_body_is_streamed_through_unchanged(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(max_body_bytes=4096, window=2000)
    upstream.queue(Reply(text="fine"))
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": [{"role": "user", "content": "y" * 50_000}]}
    data = json.dumps(body).encode()
    response = _post(proxy, "/v1/messages", data)
    assert response.status_code == 200 and response.json()["content"][0]["text"] == "fine"
    assert upstream.requests[-1].raw == data
    assert any("body over 4096 bytes" in line for line in proxy.lines)


def test_unreachable_store_fails_open(upstream: ProviderServer, make_proxy: MakeProxy, tmp_path: Any) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    proxy = make_proxy(state_dir=blocker / "state", window=2000)
    upstream.queue(Reply(text="fine"))
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": [{"role": "user", "content": "z " * 5000}]}
    data = json.dumps(body).encode()
    assert _post(proxy, "/v1/messages", data).status_code == 200
    assert upstream.requests[-1].raw == data  # over the trigger, but the store is down: forwarded as sent
    assert any("forwarded unchanged: session store" in line for line in proxy.lines)


def test_internal_error_fails_open(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(window=2000)
    upstream.queue(Reply(text="fine"))
    # A tool_result block whose content is a number: the canonical model refuses it, the upstream decides.
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8,
        "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 3}]},
        ],
    }
    data = json.dumps(body).encode()
    _post(proxy, "/v1/messages", data)
    assert upstream.requests[-1].raw == data
    assert any("forwarded unchanged: internal error" in line for line in proxy.lines)


# -- long sessions, restart, isolation ---------------------------------------------------------------


def _bash_session(
    client: anthropic.Anthropic,
    upstream: ProviderServer,
    turns: int,
    *,
    start: int = 0,
    history: list[Any] | None = None,
    session: str | None = None,
) -> tuple[list[Any], list[Any]]:
    """A tool loop: each turn the model runs a command with a long output. Returns (history, raw responses)."""
    messages = history if history is not None else [{"role": "user", "content": "Investigate the build failure."}]
    raws = []
    headers = {"x-contextfold-session": session} if session else None
    for n in range(start, start + turns):
        upstream.queue(
            Reply(text=f"step {n}", tool_calls=[ToolCall("bash", {"command": f"make step{n}"}, id=f"tu_{n}")])
        )
        raw = client.messages.with_raw_response.create(
            model="claude-sonnet-4-5",
            max_tokens=256,
            system="You are a careful engineer.",
            tools=[{"name": "bash", "description": "run", "input_schema": {"type": "object"}}],
            messages=messages,
            extra_headers=headers,
        )
        reply = raw.parse()
        raws.append(raw)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
        output = "\n".join(f"line {i} of step {n}: compiling module_{n}_{i}.c ok" for i in range(60))
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu_{n}", "content": output}]}
        )
    return messages, raws


def _prefix_ok(prev: bytes, nxt: bytes) -> bool:
    a, b = value_span(prev, "messages"), value_span(nxt, "messages")
    assert a is not None and b is not None
    same_fixed = value_span(prev, "system") == value_span(nxt, "system") and value_span(prev, "tools") == value_span(
        nxt, "tools"
    )
    return same_fixed and b.startswith(a[:-1])


def test_long_session_compacts_several_times_and_stays_cache_stable(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    window = 12_000
    proxy = make_proxy(window=window)
    _, raws = _bash_session(_anthropic(proxy), upstream, 30)
    compacted = [r.headers["x-contextfold-compacted"] == "true" for r in raws]
    assert sum(compacted) >= 2
    counter = make_counter()
    bodies = [r for r in upstream.requests if r.provider == "anthropic"]
    for req in bodies:
        msgs = anthropic_to_messages(req.body["messages"], req.body["system"])
        assert count_messages(counter, msgs) <= window
        assert not [p for p in validate(msgs, "anthropic") if p.blocking]
    stable = [_prefix_ok(bodies[i].raw, bodies[i + 1].raw) for i in range(len(bodies) - 1) if not compacted[i + 1]]
    assert stable and all(stable)
    archived = [line for line in bodies[-1].raw.decode().split("archived at ")[1:]]
    assert archived  # the summary names its archive


def test_restart_mid_session_sends_the_same_replacement(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    first = make_proxy(window=12_000)
    client = _anthropic(first)
    history, raws = _bash_session(client, upstream, 1)
    n = 1
    while raws[-1].headers["x-contextfold-compacted"] != "true":  # run until a compaction, then stop the proxy
        assert n < 40
        history, raws = _bash_session(client, upstream, 1, start=n, history=history)
        n += 1
    before = upstream.requests[-1].raw
    first.stop()
    second = make_proxy(window=12_000)  # same state directory, a new process-local everything
    _, raws2 = _bash_session(_anthropic(second), upstream, 1, start=n, history=history)
    after = upstream.requests[-1].raw
    assert raws2[0].headers["x-contextfold-compacted"] == "false"
    assert _prefix_ok(before, after)  # the stored replacement, byte for byte, after the restart


def test_two_credentials_at_once_are_isolated(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(window=12_000)
    errors: list[BaseException] = []

    def run(key: str, session: str) -> None:
        try:
            _bash_session(_anthropic(proxy, key), upstream, 12, session=session)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=a) for a in ((KEY_A, "alpha"), (KEY_B, "beta"), (KEY_A, "gamma"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    a = httpx2.get(proxy.url + "/stats", headers={"x-api-key": KEY_A}).json()["sessions"]
    b = httpx2.get(proxy.url + "/stats", headers={"authorization": f"Bearer {KEY_B}"}).json()["sessions"]
    nobody = httpx2.get(proxy.url + "/stats", headers={"x-api-key": "sk-someone-else"}).json()["sessions"]
    assert sorted(s["session"] for s in a) == ["alpha", "gamma"]
    assert [s["session"] for s in b] == ["beta"]
    assert nobody == []
    assert all(s["requests"] == 12 and s["compactions"] >= 1 for s in a + b)
    # Every request kept its own key upstream, and no request of one session carries another's history.
    for req in upstream.requests:
        text = req.raw.decode()
        assert _credential(req.headers) in (KEY_A, KEY_B)
        assert "Investigate" in text or "Summary of earlier conversation" in text


def test_clients_own_compaction_endpoints_pass_through(upstream: ProviderServer, make_proxy: MakeProxy) -> None:
    proxy = make_proxy(window=2000)
    data = json.dumps({"model": "gpt-5", "input": [{"role": "user", "content": "long " * 3000}]}).encode()
    response = httpx2.post(
        proxy.url + "/v1/responses/compact",
        content=data,
        headers={"authorization": "Bearer sk-codex", "content-type": "application/json"},
    )
    assert response.status_code == 200 and response.json()["output"][0]["type"] == "compaction"
    assert upstream.requests[-1].path == "/v1/responses/compact" and upstream.requests[-1].raw == data
    models = httpx2.get(proxy.url + "/v1/models", headers={"authorization": "Bearer sk-codex"})
    assert models.json()["data"][0]["id"] == "scripted-model" and upstream.requests[-1].path == "/v1/models"


def test_a_rewrite_the_upstream_refuses_is_retried_with_the_clients_bytes(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    proxy = make_proxy(window=4000)

    def picky(body: dict[str, Any]) -> Reply | ErrorReply:
        if "Summary of earlier conversation" in json.dumps(body):
            return ErrorReply(400, "this upstream does not like summaries", headers={})
        return Reply(text="fine")

    upstream.respond_with(picky)
    client = _openai(proxy)
    messages: list[Any] = []
    for n in range(16):
        messages.append({"role": "user", "content": f"q{n} " + "words and more words " * 120})
        raw = client.chat.completions.with_raw_response.create(model="gpt-4o", messages=messages)
        assert raw.parse().choices[0].message.content == "fine"
        messages.append({"role": "assistant", "content": "fine"})
    refused = [r for r in upstream.requests if "Summary of earlier conversation" in r.raw.decode()]
    assert refused  # the proxy did compact, the upstream refused it, and the client never saw a failure
    assert any("sent the original instead" in line for line in proxy.lines)
