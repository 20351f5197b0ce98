"""Compressed request bodies (``content-encoding``: Codex CLI sends zstd to a first-party provider).

The proxy reads the JSON under gzip, deflate or zstd, forwards a rewrite decoded (without the header) and the
client's own bytes with their coding; a body it cannot decode is forwarded unchanged (fail open), never refused.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st
from proxy_harness import ProxyProcess

from contextfold.proxy._relay import decode_request_body
from provider_server import ErrorReply, ProviderServer, Reply

MakeProxy = Callable[..., ProxyProcess]
KEY = "sk-proj-test-openai-encoding-0000"


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(data)


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda data: gzip.compress(data, mtime=0),
    "deflate": zlib.compress,
    "zstd": _zstd,
}


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=4096), coding=st.sampled_from(sorted(ENCODERS)), upper=st.booleans())
def test_decoding_round_trips_every_coding(data: bytes, coding: str, upper: bool) -> None:
    name = coding.upper() if upper else coding
    assert decode_request_body(ENCODERS[coding](data), name, 1 << 20) == data


def test_multi_member_gzip_raw_deflate_and_zstd_frames_are_read_whole() -> None:
    assert decode_request_body(gzip.compress(b"ab") + gzip.compress(b"cd"), "gzip", 100) == b"abcd"
    raw = zlib.compressobj(wbits=-15)
    assert decode_request_body(raw.compress(b"raw deflate") + raw.flush(), "deflate", 100) == b"raw deflate"
    assert decode_request_body(_zstd(b"one ") + _zstd(b"two"), "zstd", 100) == b"one two"


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_a_bomb_stops_at_the_cap(coding: str) -> None:
    bomb = ENCODERS[coding](b"\0" * 5_000_000)
    with pytest.raises(ValueError, match=f"{coding} body decodes to over 65536 bytes"):
        decode_request_body(bomb, coding, 65536)


@pytest.mark.parametrize(
    ("raw", "coding", "message"),
    [
        (b"not gzip at all", "gzip", "gzip body does not decode"),
        (gzip.compress(b'{"a": 1}')[:-6], "gzip", "gzip body is truncated"),
        (b"\x28\xb5\x2f\xfd garbage", "zstd", "zstd body does not decode"),
        (b"x", "br", "content-encoding 'br' is not one the proxy decodes"),
    ],
    ids=["not-gzip", "truncated-gzip", "corrupt-zstd", "brotli"],
)
def test_undecodable_bodies_name_the_problem(raw: bytes, coding: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_request_body(raw, coding, 1 << 20)


# -- through the proxy ---------------------------------------------------------------------------------------------


def _responses_body(turns: int, size: int) -> dict[str, Any]:
    """A Responses history of shell calls with long outputs (over a small window when ``turns * size`` is large)."""
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": "Investigate the failing build."}]
    for n in range(turns):
        items.append(
            {"type": "function_call", "call_id": f"call_{n}", "name": "shell", "arguments": f'{{"cmd": "make t{n}"}}'}
        )
        output = "\n".join(f"step {n} line {i}: building src/mod_{n}_{i}.c ok" for i in range(size))
        items.append({"type": "function_call_output", "call_id": f"call_{n}", "output": output})
    return {"model": "gpt-5", "input": items, "tools": [{"type": "function", "name": "shell", "parameters": {}}]}


def _post(proxy: ProxyProcess, body: bytes, coding: str) -> httpx2.Response:
    headers = {"authorization": f"Bearer {KEY}", "content-type": "application/json", "content-encoding": coding}
    return httpx2.post(proxy.url + "/v1/responses", content=body, headers=headers, timeout=60)


@pytest.mark.parametrize("coding", ["zstd", "gzip"])
def test_a_compressed_request_over_the_window_is_rewritten_and_forwarded_decoded(
    upstream: ProviderServer, make_proxy: MakeProxy, coding: str
) -> None:
    proxy = make_proxy(window=8000)
    upstream.queue(Reply(text="done"))
    plain = json.dumps(_responses_body(turns=12, size=80)).encode()
    response = _post(proxy, ENCODERS[coding](plain), coding)
    assert response.status_code == 200, response.text
    received = upstream.requests[-1]
    assert "content-encoding" not in received.headers  # a rewrite goes out as plain JSON
    assert json.loads(received.raw) == received.body  # plain JSON on the wire
    assert len(received.raw) < len(plain)  # the proxy cut it: it read the JSON under the coding
    assert int(response.headers["x-contextfold-tokens-after"]) < int(response.headers["x-contextfold-tokens-before"])
    assert received.headers["authorization"] == f"Bearer {KEY}"
    assert not any("forwarded unchanged" in line for line in proxy.lines)


def test_a_compressed_request_with_nothing_to_do_keeps_its_bytes_and_coding(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    proxy = make_proxy()
    upstream.queue(Reply(text="small"))
    sent = _zstd(json.dumps(_responses_body(turns=1, size=3)).encode())
    assert _post(proxy, sent, "zstd").status_code == 200
    received = upstream.requests[-1]
    assert received.raw == sent and received.headers["content-encoding"] == "zstd"


@pytest.mark.parametrize(
    ("coding", "make"),
    [
        ("zstd", lambda plain: b"\x28\xb5\x2f\xfd" + plain[:40]),  # corrupt
        ("br", lambda plain: plain),  # a coding the proxy does not decode
        ("gzip", lambda plain: gzip.compress(b" " * 3_000_000 + plain)),  # decodes past max_body_bytes
    ],
    ids=["corrupt-zstd", "brotli", "gzip-past-the-cap"],
)
def test_an_undecodable_body_is_forwarded_unchanged(
    upstream: ProviderServer, make_proxy: MakeProxy, coding: str, make: Callable[[bytes], bytes]
) -> None:
    proxy = make_proxy(window=8000, max_body_bytes=1_000_000)
    upstream.queue(Reply(text="upstream decides"))
    sent = make(json.dumps(_responses_body(turns=12, size=80)).encode())
    _post(proxy, sent, coding)
    received = upstream.requests[-1]
    assert received.raw == sent and received.headers["content-encoding"] == coding
    assert any("forwarded unchanged: encoded body" in line for line in proxy.lines)


def test_a_refused_rewrite_is_retried_with_the_clients_compressed_bytes(
    upstream: ProviderServer, make_proxy: MakeProxy
) -> None:
    proxy = make_proxy(window=8000)
    marker = "step 0 line 40: building"  # inside the first output: a rewrite cuts it

    def picky(body: dict[str, Any]) -> Reply | ErrorReply:
        return Reply(text="fine") if marker in json.dumps(body) else ErrorReply(400, "no rewrites here", headers={})

    upstream.respond_with(picky)
    sent = _zstd(json.dumps(_responses_body(turns=12, size=80)).encode())
    response = _post(proxy, sent, "zstd")
    assert response.status_code == 200, response.text
    first, second = upstream.requests[-2:]
    assert "content-encoding" not in first.headers and marker not in first.raw.decode()
    assert second.raw == sent and second.headers["content-encoding"] == "zstd"
    assert any("sent the original instead" in line for line in proxy.lines)
