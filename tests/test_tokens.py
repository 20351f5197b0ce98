from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._calibrated import FEATURES, CalibratedCounter, estimate_tokens, text_features
from contextfold._counters import make_counter
from contextfold._errors import ConfigError
from contextfold._exact_tokens import HFCounter, TiktokenCounter, load_tiktoken_encoding
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    iter_text,
)
from contextfold._tokens import MEDIA_TOKENS, BytesCounter, TokenTally, count_messages, count_tools, media_blocks

DATA = Path(__file__).parent / "data" / "tokens"

texts = st.text(st.characters(codec="utf-8"), max_size=300) | st.text(alphabet="ab Z9{}\n\t  你", max_size=3000)


@st.composite
def messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["user", "assistant", "tool", "system"]))
    if role == "tool":
        inner = draw(
            st.lists(st.builds(TextBlock, text=texts) | st.just(DataBlock(media="image", url="x")), max_size=3)
        )
        return Message(role="tool", content=(ToolResultBlock(call_id="c1", content=tuple(inner)),))
    blocks = draw(
        st.lists(
            st.builds(TextBlock, text=texts)
            | st.builds(ThinkingBlock, thinking=texts)
            | st.builds(ToolCallBlock, id=st.just("c1"), name=st.text(max_size=10), arguments=texts)
            | st.builds(HintBlock, text=texts)
            | st.just(DataBlock(media="image", data="aGVsbG8="))
            | st.just(RedactedThinkingBlock(data="secret")),
            max_size=4,
        )
    )
    return Message(role=role, content=tuple(blocks))


counters = st.sampled_from([BytesCounter(), CalibratedCounter()])


@settings(max_examples=60, deadline=None)
@given(
    counters,
    st.lists(messages(), max_size=12),
    st.lists(st.tuples(st.sampled_from(["append", "reset"]), st.integers(0, 11))),
)
def test_incremental_equals_from_scratch(counter, pool, ops):
    tally = TokenTally(counter)
    current: list[Message] = []
    for op, i in ops:
        if not pool:
            break
        if op == "append":
            m = pool[i % len(pool)]
            tally.append(m)
            current.append(m)
        else:
            current = current[i % (len(current) + 1) :]
            tally.reset(current)
        fresh = [m.replace() for m in current]  # uncached copies
        assert tally.total == count_messages(counter, fresh) == sum(tally.counts)


def test_cache_is_keyed_by_counter():
    m = Message.text_message("user", "{" * 400)
    b, c = BytesCounter(), CalibratedCounter()
    nb = count_messages(b, [m])
    nc = count_messages(c, [m])
    assert nb != nc
    assert m._tokens == {b.key: nb, c.key: nc}
    assert count_messages(b, [m]) == nb and count_messages(c, [m]) == nc


def test_exact_counter_keys_name_the_encoding():
    o, cl = TiktokenCounter("o200k_base"), TiktokenCounter("cl100k_base")
    assert o.key != cl.key and "o200k" in o.key and "cl100k" in cl.key
    m = Message.text_message("user", "Tokenization differs between encodings: 你好世界 " * 20)
    assert count_messages(o, [m]) != count_messages(cl, [m])
    assert set(m._tokens) == {o.key, cl.key}


@settings(max_examples=100, deadline=None)
@given(messages())
def test_bytes_counter_matches_the_rule(m):
    nbytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in iter_text(m))
    assert BytesCounter().count_message(m) == round(nbytes / 4) + MEDIA_TOKENS * media_blocks(m)


def test_bytes_counter_examples():
    c = BytesCounter()
    assert c.count_text("abcdef") == round(6 / 4)
    assert c.count_text("你好") == round(6 / 4)
    m = Message(
        role="assistant",
        content=(TextBlock(text="a" * 10), ToolCallBlock(id="1", name="Read", arguments='{"p":1}')),
    )
    assert c.count_message(m) == round((10 + 4 + 7) / 4)
    tool = Message(role="tool", content=(ToolResultBlock(call_id="1", content=(DataBlock(media="image", url="u"),)),))
    assert c.count_message(tool) == MEDIA_TOKENS
    spec = ToolSpec(name="Read", description="read a file")
    assert count_tools(c, [spec]) == round(len(spec.schema_json().encode()) / 4)


@settings(max_examples=100, deadline=None)
@given(messages())
def test_calibrated_message_is_overhead_plus_text_plus_media(m):
    c = CalibratedCounter()
    framed = len(m.tool_calls) + len(m.tool_results)
    expected = 4 + 3 * framed + sum(estimate_tokens(t) for t in iter_text(m)) + MEDIA_TOKENS * media_blocks(m)
    assert c.count_message(m) == expected


@settings(max_examples=150, deadline=None)
@given(texts)
def test_calibrated_text_properties(text):
    n = estimate_tokens(text)
    assert (n == 0) == (text == "")
    assert n >= math.ceil(len(text) / 6) if text else True
    feats = text_features(text)
    assert len(feats) == len(FEATURES) and all(f >= 0 for f in feats)
    assert estimate_tokens(text) == CalibratedCounter().count_text(text)


def test_calibrated_explicit_weights_match_default_path():
    from contextfold._calibrated import WEIGHTS

    for p in sorted(DATA.iterdir()):
        text = p.read_text(encoding="utf-8")
        assert estimate_tokens(text, WEIGHTS) == estimate_tokens(text)
        long = text * 20  # sampled path
        assert estimate_tokens(long, WEIGHTS) == estimate_tokens(long)


def test_features_on_a_known_string():
    f = dict(zip(FEATURES, text_features("Hello wOrld  12 ab\n"), strict=True))
    assert f == {
        "lower": 10, "upper": 2, "digit": 2, "space": 4, "newline": 1, "punct": 0,
        "double_space": 1, "changes": 8, "case_flips": 3, "cjk": 0, "other": 0,
    }  # fmt: skip
    g = dict(zip(FEATURES, text_features("你好 world é"), strict=True))
    assert g["cjk"] == 2 and g["other"] == 1


def test_calibrated_within_tolerance_of_o200k():
    enc = load_tiktoken_encoding("o200k_base")
    est = exact = 0
    for p in sorted(DATA.iterdir()):
        text = p.read_text(encoding="utf-8")
        e, x = estimate_tokens(text), len(enc.encode_ordinary(text))
        assert 0.85 <= e / x <= 1.25, (p.name, e / x)
        est += e
        exact += x
    assert 0.95 <= est / exact <= 1.12


def test_calibrated_beats_bytes_on_dense_text():
    enc = load_tiktoken_encoding("o200k_base")
    text = (DATA / "base64.txt").read_text(encoding="utf-8")
    exact = len(enc.encode_ordinary(text))
    assert abs(estimate_tokens(text) - exact) < abs(BytesCounter().count_text(text) - exact) / 4


def test_long_text_sampling_scales():
    text = (DATA / "logs.log").read_text(encoding="utf-8")
    one = estimate_tokens(text)
    assert 0.8 * 10 * one <= estimate_tokens(text * 10) <= 1.25 * 10 * one  # sampled: windows, not every byte


def test_make_counter_kinds(tmp_path):
    assert isinstance(make_counter("calibrated"), CalibratedCounter)
    assert isinstance(make_counter(), CalibratedCounter)
    assert isinstance(make_counter(" bytes "), BytesCounter)
    t = make_counter("tiktoken:cl100k_base")
    assert isinstance(t, TiktokenCounter) and t.count_text("hello world") == 2


@pytest.mark.parametrize("spec", ["", "exact", "tiktoken", "tiktoken:", "hf:", "bytes:4", "Calibrated", "gpt-4o"])
def test_make_counter_rejects_bad_specs(spec):
    with pytest.raises(ConfigError, match="calibrated \\| bytes \\| tiktoken:ENCODING_OR_FILE \\| hf:PATH"):
        make_counter(spec)


def test_make_counter_missing_files(tmp_path):
    with pytest.raises(ConfigError, match="neither a shipped encoding"):
        make_counter("tiktoken:nope_base")
    with pytest.raises(ConfigError, match="not a file"):
        make_counter(f"hf:{tmp_path / 'missing.json'}")
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("not base64 at all!\n")
    with pytest.raises(ConfigError, match=r"bad\.tiktoken:1"):
        make_counter(f"tiktoken:{bad}")
    notjson = tmp_path / "tokenizer.json"
    notjson.write_text("{}")
    with pytest.raises(ConfigError, match=r"not a tokenizers tokenizer\.json"):
        make_counter(f"hf:{notjson}")


def test_tiktoken_from_file_matches_shipped(tmp_path):
    import base64

    enc = load_tiktoken_encoding("cl100k_base")
    ranks = enc._mergeable_ranks
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(k) + b" " + str(v).encode() + b"\n" for k, v in ranks.items()))
    from_file = make_counter(f"tiktoken:{path}")
    text = "Counting offline from a file:\n    def f(x): return x ** 2  # 你好"
    assert from_file.count_text(text) == make_counter("tiktoken:cl100k_base").count_text(text)
    assert from_file.key != "tiktoken:cl100k_base"


def test_hf_counter_counts_with_the_given_tokenizer(tmp_path):
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tok = Tokenizer(WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    c = make_counter(f"hf:{path}")
    assert isinstance(c, HFCounter) and c.key.startswith("hf:")
    assert c.count_text("hello world foo") == 3
    m = Message(role="user", content=(TextBlock(text="hello world"), DataBlock(media="image", url="u")))
    assert c.count_message(m) == 2 + MEDIA_TOKENS


def test_exact_counter_counts_messages_like_iter_text():
    c = TiktokenCounter("o200k_base")
    m = Message(
        role="assistant",
        content=(TextBlock(text="Let me look."), ToolCallBlock(id="1", name="bash", arguments='{"command": "ls -la"}')),
    )
    enc = load_tiktoken_encoding("o200k_base")
    assert c.count_message(m) == sum(len(enc.encode_ordinary(t)) for t in iter_text(m))
    assert c.count_text("<|endoftext|>") > 1  # special tokens are plain text here
