"""Hypothesis strategies shared by the workspace/offload tests."""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

from contextfold import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)

# Any code point, lone surrogates included (a Python str may hold them).
any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=40)

json_scalar = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=10)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
meta = st.dictionaries(st.text(max_size=8), json_value, max_size=3)


def _data_block(draw: Any) -> DataBlock:
    which = draw(st.sampled_from(["url", "data", "path", "b64"]))
    media = draw(st.sampled_from(["image", "audio", "document"]))
    media_type = draw(st.none() | st.sampled_from(["image/png", "audio/wav", "application/pdf", "x/unknown"]))
    if which == "b64":
        value = base64.b64encode(draw(st.binary(max_size=64))).decode()
        return DataBlock(media=media, media_type=media_type, data=value, meta=draw(meta))
    return DataBlock(media=media, media_type=media_type, meta=draw(meta), **{which: draw(any_text)})


data_blocks = st.composite(lambda draw: _data_block(draw))()
text_blocks = st.builds(TextBlock, text=any_text, meta=meta)
result_blocks = st.builds(
    ToolResultBlock,
    call_id=any_text,
    content=st.lists(text_blocks | data_blocks, max_size=4).map(tuple),
    is_error=st.booleans(),
    name=st.none() | any_text,
    meta=meta,
)
blocks = st.one_of(
    text_blocks,
    st.builds(HintBlock, text=any_text, meta=meta),
    st.builds(ToolCallBlock, id=any_text, name=any_text, arguments=any_text, meta=meta),
    result_blocks,
    data_blocks,
    st.builds(ThinkingBlock, thinking=any_text, signature=st.none() | any_text, meta=meta),
    st.builds(RedactedThinkingBlock, data=any_text, meta=meta),
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=st.lists(blocks, max_size=4).map(tuple),
    name=st.none() | any_text,
    meta=meta,
)
