from __future__ import annotations

from hypothesis import given, settings

from contextfold import Message, TextBlock, ToolCallBlock, ToolResultBlock
from contextfold.compaction._groups import call_names, orphan_results, pending_tail, tool_groups, unanswered_calls
from conversation_gen import conversations


def call(cid: str, name: str = "bash") -> ToolCallBlock:
    return ToolCallBlock(id=cid, name=name, arguments="{}")


def result(cid: str, text: str = "ok") -> ToolResultBlock:
    return ToolResultBlock(call_id=cid, content=(TextBlock(text=text),))


def test_parallel_calls_over_several_tool_messages_with_interleaved_user() -> None:
    messages = [
        Message.text_message("user", "go"),
        Message(role="assistant", content=(call("a"), call("b", "grep"))),
        Message(role="tool", content=(result("a"),)),
        Message.text_message("user", "also check tests"),
        Message(role="tool", content=(result("b"),)),
        Message.text_message("assistant", "done"),
    ]
    (group,) = tool_groups(messages)
    assert (group.start, group.end, group.call_ids, group.pending) == (1, 4, ("a", "b"), ())
    assert [group.crosses(c) for c in range(7)] == [False, False, True, True, True, False, False]
    assert orphan_results(messages) == []
    assert unanswered_calls(messages) == []
    assert pending_tail(messages) is None
    assert call_names(messages) == {"a": "bash", "b": "grep"}


def test_orphans_and_unanswered_are_reported_with_indices() -> None:
    messages = [
        Message(role="tool", content=(result("ghost"),)),
        Message(role="assistant", content=(call("a"),)),
        Message.text_message("user", "never mind"),
        Message(role="assistant", content=(call("b"), call("c"))),
        Message(role="tool", content=(result("b"),)),
    ]
    assert orphan_results(messages) == [(0, "ghost")]
    assert unanswered_calls(messages) == [(1, "a"), (3, "c")]
    # The trailing assistant's call "c" is still running: that is the live tail, not an error.
    assert pending_tail(messages) == 3
    assert pending_tail(messages[:4]) == 3
    assert pending_tail(messages[:2]) == 1
    # A later assistant message means "a" is not running any more: it is a real unanswered call.
    assert pending_tail([*messages[:3], Message.text_message("assistant", "ok")]) is None


def test_result_before_its_call_is_an_orphan() -> None:
    messages = [Message(role="tool", content=(result("a"),)), Message(role="assistant", content=(call("a"),))]
    assert orphan_results(messages) == [(0, "a")]
    assert tool_groups(messages)[0].pending == ("a",)


@settings(max_examples=100, deadline=None)
@given(conversations())
def test_generated_conversations_pair_except_the_running_tail(messages: list[Message]) -> None:
    assert orphan_results(messages) == []
    tail = pending_tail(messages)
    assert all(index == tail for index, _ in unanswered_calls(messages))
    for group in tool_groups(messages):
        assert messages[group.start].role == "assistant"
        assert group.start <= group.end
        assert all(messages[i].role in ("tool", "user") for i in range(group.start + 1, group.end + 1))


def test_running_calls_stay_the_live_tail_when_the_user_interjects() -> None:
    messages = [
        Message.text_message("user", "go"),
        Message(role="assistant", content=(call("a"), call("b"))),
        Message(role="tool", content=(result("a"),)),
        Message.text_message("user", "hurry up"),
    ]
    assert pending_tail(messages) == 1
    assert pending_tail([*messages, Message.text_message("assistant", "ok")]) is None
