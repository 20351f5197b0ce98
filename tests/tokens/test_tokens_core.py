from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    DataBlock,
    Message,
    TextBlock,
    TokenTally,
    ToolCallBlock,
    ToolResultBlock,
    count_messages,
)
from conversation_gen import conversations


def test_bytes_counter_follows_the_reference_rule() -> None:
    c = BytesCounter()
    assert c.count_text("abcd" * 10) == 10
    assert c.count_text("é") == round(2 / 4)
    m = Message(
        role="tool",
        content=(ToolResultBlock(call_id="1", content=(TextBlock(text="x" * 40), DataBlock(media="image", url="u"))),),
    )
    assert c.count_message(m) == 10 + 2000
    call = Message(role="assistant", content=(ToolCallBlock(id="1", name="bash", arguments='{"c":1}'),))
    assert c.count_message(call) == round((4 + 7) / 4)


def test_tally_caches_and_sums() -> None:
    c = BytesCounter()
    msgs = [Message.text_message("user", "y" * (4 * i)) for i in range(10)]
    tally = TokenTally(c, msgs[:5])
    tally.extend(msgs[5:])
    assert tally.total == count_messages(c, msgs) == sum(range(10))
    assert all(m._tokens["bytes"] == i for i, m in enumerate(msgs))
    tally.reset(msgs[3:])
    assert tally.total == sum(range(3, 10))


def test_replace_last_keeps_the_total_exact() -> None:
    c = BytesCounter()
    msgs = [Message.text_message("user", "z" * 40), Message.text_message("user", "w" * 80)]
    tally = TokenTally(c, msgs)
    bigger = Message.text_message("user", "w" * 400)
    tally.replace_last(bigger)
    assert tally.total == count_messages(c, [msgs[0], bigger]) and tally.counts[-1] == 100
    empty = TokenTally(c)
    try:
        empty.replace_last(bigger)
    except IndexError:
        pass
    else:
        raise AssertionError("replace_last on an empty tally must fail")


def test_prefix_total_matches_a_plain_sum() -> None:
    c = BytesCounter()
    msgs = [Message.text_message("user", "q" * (4 * i)) for i in range(12)]
    tally = TokenTally(c, msgs)
    for k in range(13):
        assert tally.prefix_total(k) == sum(tally.counts[:k])


@dataclass(frozen=True, slots=True, kw_only=True)
class _NoteBlock(TextBlock):
    """A user's subclass of a block class."""


def _reference_bytes(message: Message) -> int:
    """`BytesCounter.count_message` written plainly: every text piece's UTF-8 bytes / 4, plus media."""
    from contextfold import MEDIA_TOKENS
    from contextfold._messages import iter_text
    from contextfold._tokens._counting import media_blocks

    nbytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in iter_text(message))
    return round(nbytes / 4) + MEDIA_TOKENS * media_blocks(message)


@settings(max_examples=200, deadline=None)
@given(conversations(), st.text(max_size=50))
def test_bytes_counter_shortcuts_equal_the_plain_rule(messages: list[Message], extra: str) -> None:
    # One text block, or one result holding one text block, is counted without the generic walk: same count.
    odd = [
        Message(role="user", content=(TextBlock(text=extra),)),
        Message(role="tool", content=(ToolResultBlock(call_id="c", name="n", content=(TextBlock(text=extra),)),)),
        Message(role="user", content=(TextBlock(text="a\udc80" + extra),)),
        # A subclass of a block class counts as that class (as `iter_text` reads it).
        Message(
            role="assistant", content=(TextBlock(text="x"), _NoteBlock(text=extra), ToolCallBlock(id="c", name="n"))
        ),
    ]
    for message in [*messages, *odd]:
        assert BytesCounter().count_message(message) == _reference_bytes(message)
