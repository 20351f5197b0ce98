"""What a data block costs: one rule (`data_tokens`) for every counter, the CLI's breakdown and the proxy."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    MEDIA_TOKENS,
    BytesCounter,
    CalibratedCounter,
    DataBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    anthropic_to_messages,
    data_tokens,
)
from contextfold._tokens._counting import PAYLOAD_BYTES_PER_TOKEN, media_tokens

COUNTERS = (BytesCounter(), CalibratedCounter())
REPORT = "\n".join(f"{i}: the build of module m{i} failed in src/m{i}.py line {i * 3}" for i in range(4000))


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def test_a_text_document_costs_its_text() -> None:
    """Regression: a 250 KB text document (Anthropic's ``text`` source) was counted as a flat 2,000 tokens, so a
    request holding it looked far smaller than it is."""
    [message] = anthropic_to_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": REPORT}}
                ],
            }
        ]
    )
    for counter in COUNTERS:
        assert counter.count_message(message) >= counter.count_text(REPORT) > 20 * MEDIA_TOKENS


def test_an_inline_pdf_costs_its_size_and_images_stay_flat() -> None:
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 6000  # 1.5 MB
    doc = DataBlock(media="document", media_type="application/pdf", data=_b64(pdf))
    image = DataBlock(media="image", media_type="image/png", data=_b64(bytes(1_500_000)))
    linked = DataBlock(media="document", url="https://example.test/a.pdf")
    for counter in COUNTERS:
        assert data_tokens(doc, counter) == -(-len(pdf) // PAYLOAD_BYTES_PER_TOKEN)
        assert data_tokens(image, counter) == data_tokens(linked, counter) == MEDIA_TOKENS
        result = Message(role="tool", content=(ToolResultBlock(call_id="c", content=(doc,)),))
        assert counter.count_message(result) >= data_tokens(doc, counter) > 40 * MEDIA_TOKENS


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["image", "audio", "document"]),
    st.sampled_from([None, "application/pdf", "text/plain", "text/markdown", "application/json", "x/unknown"]),
    st.one_of(st.binary(max_size=5000).map(_b64), st.text(max_size=300).map(lambda t: _b64(t.encode())), st.text()),
)
def test_every_counter_counts_a_data_block_by_the_one_rule(media: str, media_type: str | None, data: str) -> None:
    block = DataBlock(media=media, media_type=media_type, data=data)  # type: ignore[arg-type]
    message = Message(role="user", content=(TextBlock(text="see the attachment"), block))
    for counter in COUNTERS:
        alone = Message(role="user", content=(TextBlock(text="see the attachment"),))
        assert counter.count_message(message) == counter.count_message(alone) + media_tokens(message, counter)
        n = data_tokens(block, counter)
        if media != "document" or not (media_type or "").startswith(("text/", "application/json")):
            assert n >= MEDIA_TOKENS  # never below the flat cost but for text, which costs what it says
        bigger = DataBlock(media=media, media_type=media_type, data=data + _b64(bytes(3000)))  # type: ignore[arg-type]
        if media_type not in ("text/plain", "text/markdown", "application/json"):
            assert data_tokens(bigger, counter) >= n  # more payload never costs less
