"""The scripted upstream, driven by the official SDKs as a client would (no agent CLI needed: default run)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import anthropic
import openai
import pytest
import wire_checks
from upstream import RESET, Recorded, ShellScript, Upstream, large_output_commands

BASH = {
    "name": "Bash",
    "description": "Run a shell command.",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}
EXEC = {
    "type": "function",
    "name": "exec_command",
    "description": "Run a shell command.",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
    "strict": False,
}


def fake_run(command: str) -> str:
    """What the client would print for ``command`` (enough for the script: the END marker)."""
    return "output...\n" + command.rsplit("echo ", 1)[-1]


def test_large_output_commands_print_their_end_marker() -> None:
    commands = large_output_commands(64)
    assert len(set(commands)) == 64 and all(c.endswith(f"echo END-{i}") for i, c in enumerate(commands))


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_sdk_runs_the_script_to_its_final_answer(stream: bool) -> None:
    script = ShellScript(large_output_commands(3), thinking_every=2)
    with Upstream(script) as upstream:
        client = anthropic.Anthropic(base_url=upstream.url, api_key="sk-ant-test", max_retries=0)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "E2E-TASK: go"}]
        for _ in range(10):
            kwargs: dict[str, Any] = {"model": "claude-x", "max_tokens": 1000, "messages": messages, "tools": [BASH]}
            if stream:
                with client.messages.stream(**kwargs) as events:
                    reply = events.get_final_message()
            else:
                reply = client.messages.create(**kwargs)
            assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
            content = [block.model_dump(exclude_none=True) for block in reply.content]
            messages.append({"role": "assistant", "content": content})
            calls = [b for b in reply.content if b.type == "tool_use"]
            if not calls:
                assert reply.stop_reason == "end_turn" and reply.content[-1].type == "text"
                assert reply.content[-1].text == script.final_text
                break
            assert reply.stop_reason == "tool_use"
            command = calls[0].input["command"]  # type: ignore[index]
            results = [{"type": "tool_result", "tool_use_id": calls[0].id, "content": fake_run(command)}]
            messages.append({"role": "user", "content": results})
        else:
            pytest.fail("the script never finished")
    assert script.finished and sorted(script.observed) == [0, 1, 2]
    assert [r.step for r in upstream.recorded()] == [0, 1, 2, None]
    thinking = [b for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "thinking"]
    assert len(thinking) == 2 and all(b["signature"].startswith("sig-e2e-") for b in thinking)
    first = upstream.recorded()[0]
    assert first.path == "/v1/messages" and first.role == "main"
    assert wire_checks.key_report(upstream.recorded(), "sk-ant-test").ok  # the SDK sends it as a Bearer token


def test_responses_sdk_runs_the_script_with_reasoning_items() -> None:
    script = ShellScript(large_output_commands(2), thinking_every=1)
    with Upstream(script) as upstream:
        client = openai.OpenAI(base_url=upstream.url + "/v1", api_key="sk-test", max_retries=0)
        items: list[Any] = [{"type": "message", "role": "user", "content": "E2E-TASK: go"}]
        final = None
        for _ in range(10):
            events = list(client.responses.create(model="gpt-x", input=items, tools=[EXEC], stream=True, store=False))  # type: ignore[arg-type]
            kinds = [e.type for e in events]
            assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
            done = events[-1].response  # type: ignore[union-attr]
            assert done.usage is not None and done.usage.input_tokens > 0
            output = [item.model_dump(exclude_none=True) for item in done.output]
            items.extend(output)
            calls = [o for o in output if o["type"] == "function_call"]
            if not calls:
                final = output[-1]["content"][0]["text"]
                break
            assert "response.function_call_arguments.delta" in kinds
            assert output[0]["type"] == "reasoning" and output[0]["encrypted_content"].startswith("gAAAAE2E")
            command = json.loads(calls[0]["arguments"])["cmd"]
            items.append({"type": "function_call_output", "call_id": calls[0]["call_id"], "output": fake_run(command)})
    assert final == script.final_text and script.finished
    assert [r.header("authorization") for r in upstream.recorded()] == ["Bearer sk-test"] * 3


def test_errors_and_resets_are_served_once_and_the_sdk_retries() -> None:
    script = ShellScript(large_output_commands(2), errors={0: 429, 1: RESET})
    with Upstream(script) as upstream:
        client = anthropic.Anthropic(base_url=upstream.url, api_key="k", max_retries=3)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "E2E-TASK: go"}]
        for _ in range(3):
            reply = client.messages.create(model="m", max_tokens=10, messages=messages, tools=[BASH])  # type: ignore[arg-type]
            messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
            calls = [b for b in reply.content if b.type == "tool_use"]
            if not calls:
                break
            messages.append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": calls[0].id, "content": "x"}]}
            )
    assert [r.status for r in upstream.recorded()] == [429, 200, RESET, 200, 200]
    assert script.finished


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def test_side_requests_compaction_and_count_tokens_get_sensible_answers() -> None:
    script = ShellScript(large_output_commands(2))
    with Upstream(script) as upstream:
        side = _post(
            upstream.url + "/v1/messages",
            {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "title?"}]},
        )
        assert side["content"][0]["type"] == "text" and side["stop_reason"] == "end_turn"
        prompt = "Your task is to create a detailed summary of the conversation so far"
        summary = _post(
            upstream.url + "/v1/messages",
            {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": prompt}]},
        )
        assert "<summary>" in summary["content"][0]["text"]
        count = _post(
            upstream.url + "/v1/messages/count_tokens",
            {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]},
        )
        assert count["input_tokens"] > 90
        trigger = [{"type": "message", "role": "user", "content": "E2E-TASK"}, {"type": "compaction_trigger"}]
        remote = _post(upstream.url + "/v1/responses", {"model": "g", "input": trigger, "tools": [EXEC]})
        assert [o["type"] for o in remote["output"]] == ["compaction"]
        with urllib.request.urlopen(upstream.url + "/v1/models", timeout=30) as answer:
            assert json.loads(answer.read())["data"][0]["id"] == "e2e-model"
    roles = [(r.kind, r.role) for r in upstream.recorded()]
    assert roles == [
        ("messages", "side"),
        ("messages", "compact"),
        ("count_tokens", "none"),
        ("responses", "compact"),
        ("models", "none"),
    ]
    assert not script.observed


def test_a_call_lost_in_a_client_compaction_is_asked_again_under_a_new_id() -> None:
    script = ShellScript(["a", "b", "c"], parallel_every=2)
    first = script.next_turn({}, set())
    assert first[0] == "calls" and [(c.call_id, c.text) for c in first[2]] == [("e2e000a", "a")]
    assert script.next_turn({}, {"e2e000a"})[2] == first[2]  # a resend of the same history
    again = script.next_turn({}, set())[2]  # the call vanished: asked again under a new id
    assert [(c.call_id, c.text) for c in again] == [("e2e000ar1", "a")]
    script.observe({"e2e000ar1": "done a"})
    parallel = script.next_turn({}, set())[2]  # every second turn asks for two commands at once
    assert [(c.call_id, c.text) for c in parallel] == [("e2e001a", "b"), ("e2e001b", "c")]
    assert script.next_turn({"e2e001a": "done b"}, {"e2e001a", "e2e001b"})[2] == parallel  # one result is not all
    assert script.next_turn({"e2e001a": "done b", "e2e001b": "done c"}, set()) == ("final", 2, [])
    assert script.observed == {0: "done a", 1: "done b", 2: "done c"} and script.finished
    assert script.issued_ids() == {"e2e000a", "e2e000ar1", "e2e001a", "e2e001b"}


def test_patches_replace_a_turn_only_where_the_client_offers_apply_patch() -> None:
    script = ShellScript(["a", "b"], patch_every=2)
    assert [c.kind for c in script.next_turn({}, set(), can_patch=True)[2]] == ["shell"]
    patch = script.next_turn({"e2e000a": "ok"}, set(), can_patch=True)[2]
    assert [c.kind for c in patch] == ["patch"] and patch[0].text.startswith("*** Begin Patch\n*** Add File: ")
    assert [c.text for c in script.next_turn({"e2e001a": "patched"}, set(), can_patch=True)[2]] == ["b"]
    assert script.patches == {1: "patched"}
    without = ShellScript(["a", "b"], patch_every=2)
    without.next_turn({}, set())
    assert [c.text for c in without.next_turn({"e2e000a": "ok"}, set())[2]] == ["b"]


def test_recorded_headers_keep_their_case_and_order() -> None:
    recorded = Recorded(
        0, "POST", "/v1/messages?beta=true", (("X-Api-Key", "a"), ("x-api-key", "b")), b"{}", "messages"
    )
    assert recorded.header("x-api-key") == "a" and recorded.route == "/v1/messages" and recorded.query == "beta=true"


def test_a_sub_agent_turn_only_where_the_client_offers_agent() -> None:
    script = ShellScript(["a"], subagent_every=1)
    agent = script.next_turn({}, set(), can_delegate=True)[2]
    assert [c.kind for c in agent] == ["agent"] and agent[0].text.startswith("E2E-SUB 0")
    assert [c.text for c in script.next_turn({"e2e000a": "report"}, set(), can_delegate=False)[2]] == ["a"]
    assert script.subagents == {0: "report"}
