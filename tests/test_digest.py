from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._digest import Tier, build_digest, cut_text, digest_lines, stretch_sentence, stretches
from contextfold._groups import call_names
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens import BytesCounter
from conversation_gen import conversations

COUNTER = BytesCounter()
IMAGE = DataBlock(media="image", media_type="image/png", data="AAAA")


def compact(message: Message, names: dict[str, str] | None = None) -> list[str]:
    return digest_lines(message, Tier.COMPACT, names or {})


def test_user_first_non_empty_line_cut_to_200_chars_with_media_note() -> None:
    text = "\n  \n" + "é" * 300 + "\nsecond line"
    message = Message(role="user", content=(TextBlock(text=text), IMAGE, HintBlock(text="time")))
    (line,) = compact(message)
    assert line == "User: " + "é" * 199 + "… [media omitted]"
    assert compact(Message(role="user", content=(IMAGE,))) == ["User: [media omitted]"]
    assert compact(Message(role="user", content=(HintBlock(text="hint only"),))) == []


def test_assistant_first_line_and_calls_without_arguments() -> None:
    message = Message(
        role="assistant",
        content=(
            ThinkingBlock(thinking="secret reasoning", signature="s"),
            TextBlock(text="I will look.\nDetails follow"),
            ToolCallBlock(id="1", name="read_file", arguments='{"path": "/etc/hosts"}'),
            ToolCallBlock(id="2", name="bash", arguments='{"cmd": "ls"}'),
        ),
    )
    assert compact(message) == ["Assistant: I will look.", "Called read_file", "Called bash"]
    truncated = digest_lines(message, Tier.TRUNCATED, {}, truncate_chars=400)
    assert truncated[0] == "Assistant: I will look. Details follow"
    assert truncated[1] == 'Called read_file({"path": "/etc/hosts"})'
    assert all("secret" not in line for line in truncated)


def test_tool_results_name_status_and_first_100_chars() -> None:
    long = ToolResultBlock(call_id="1", content=(TextBlock(text="x" * 500),), name="grep")
    failed = ToolResultBlock(call_id="2", content=(TextBlock(text="boom\ntrace"),), is_error=True)
    empty = ToolResultBlock(call_id="3", content=(IMAGE,), name="shot")
    message = Message(role="tool", content=(long, failed, empty))
    lines = compact(message, {"2": "bash"})
    assert lines[0] == "grep: ok - " + "x" * 99 + "…"
    assert lines[1] == "bash: error - boom"  # the name comes from the matching call
    assert lines[2] == "shot: ok [media omitted]"


def test_system_text_is_context() -> None:
    assert compact(Message.text_message("system", "Repo is at /srv/app\nmore")) == ["Context: Repo is at /srv/app"]


def test_full_and_summary_tiers_are_not_line_tiers() -> None:
    with pytest.raises(ValueError, match="Truncated and Compact"):
        digest_lines(Message.text_message("user", "x"), Tier.FULL, {})


def test_cut_text_never_exceeds_the_limit() -> None:
    assert cut_text("abc", 3) == "abc"
    assert cut_text("abcd", 3) == "ab…"
    assert cut_text("🙂🙂🙂🙂", 2) == "🙂…"


def test_stretches_start_at_user_messages_and_sentences_count_tools() -> None:
    messages = [
        Message.text_message("assistant", "warming up"),
        Message.text_message("user", "fix the bug in src/app.py"),
        Message(role="assistant", content=(ToolCallBlock(id="1", name="bash"), ToolCallBlock(id="2", name="bash"))),
        Message(role="tool", content=(ToolResultBlock(call_id="1", is_error=True), ToolResultBlock(call_id="2"))),
        Message.text_message("assistant", "Fixed."),
        Message.text_message("user", "thanks"),
    ]
    assert stretches(messages) == [(0, 1), (1, 5), (5, 6)]
    assert stretch_sentence(messages[1:5], {}) == (
        'User asked "fix the bug in src/app.py"; then 2 tool calls (bash ×2; 1 failed) and 1 reply.'
    )
    assert stretch_sentence(messages[5:], {}) == 'User asked "thanks".'
    assert stretch_sentence(messages[:1], {}) == "Earlier; then 1 reply."


def test_tiers_degrade_oldest_first() -> None:
    messages = [Message.text_message("user", f"request {i}: " + "detail " * 100) for i in range(10)]
    roomy = build_digest(messages, counter=COUNTER, target_tokens=100_000)
    assert roomy.tiers == (Tier.TRUNCATED,) * 10
    tight = build_digest(messages, counter=COUNTER, target_tokens=roomy_cost(roomy) * 3 // 4)
    assert list(tight.tiers) == sorted(tight.tiers, reverse=True)  # older messages are never more detailed
    assert Tier.COMPACT in tight.tiers and tight.tiers[-1] is Tier.TRUNCATED
    tiny = build_digest(messages, counter=COUNTER, target_tokens=30)
    assert tiny.omitted > 0 and "omitted here" in tiny.text
    assert build_digest(messages, counter=COUNTER, target_tokens=0).text == ""


def roomy_cost(digest: object) -> int:
    return COUNTER.count_text(digest.text)  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(messages=conversations(), target=st.integers(0, 3000))
def test_digest_fits_target_and_is_deterministic(messages: list[Message], target: int) -> None:
    digest = build_digest(messages, counter=COUNTER, target_tokens=target)
    assert COUNTER.count_text(digest.text) <= target
    assert build_digest(list(messages), counter=COUNTER, target_tokens=target) == digest
    assert digest.omitted + len(digest.tiers) == len(messages) or digest.text == ""
    assert list(digest.tiers) == sorted(digest.tiers, reverse=True)
    assert all(tier is not Tier.FULL for tier in digest.tiers)
    assert "<system-reminder>" not in digest.text


@settings(max_examples=150, deadline=None)
@given(messages=conversations(), target=st.integers(0, 3000))
def test_all_truncated_is_chosen_whenever_it_fits(messages: list[Message], target: int) -> None:
    """The fast path (one count of the all-Truncated text) picks the most detailed digest that fits."""
    digest = build_digest(messages, counter=COUNTER, target_tokens=target)
    names = call_names(messages)
    full = "\n".join(line for m in messages for line in digest_lines(m, Tier.TRUNCATED, names))
    if messages and COUNTER.count_text(full) <= target:
        assert digest.text == full and digest.tiers == (Tier.TRUNCATED,) * len(messages)
    else:
        assert digest.tiers != (Tier.TRUNCATED,) * len(messages) or digest.omitted


@settings(max_examples=500, deadline=None)
@given(
    st.text(st.sampled_from("ab cd\n\t\u3000é-"), max_size=3000) | st.text(max_size=600),
    st.integers(min_value=1, max_value=500),
)
def test_one_line_of_a_head_cuts_like_the_whole_text(text: str, limit: int) -> None:
    # `_one_line` reads only a head of a long text; cut to the limit, the line is the one of the whole text.
    from contextfold._digest import _one_line

    assert cut_text(_one_line(text, limit), limit) == cut_text(" ".join(text.split()), limit)
