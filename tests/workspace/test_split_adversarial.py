"""The split under adversarial counters (issue 14 item 2): never over the limit, never an error while the notice
fits, no superseded files; counters here are not monotone in the length of a text and charge hex digits at will."""

from __future__ import annotations

import itertools
import random
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_split import cost, tool_results

from contextfold._messages import DataBlock, Message, TextBlock, ToolResultBlock, iter_text
from contextfold._tokens._counting import MEDIA_TOKENS, media_blocks
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import OffloadRef
from contextfold._workspace._split import (
    ResultLimitError,
    minimum_limit,
    offload_oversized_result,
    split_tool_result,
)

HEX = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class AdversarialCounter:
    """A deterministic counter built to break assumptions.

    * ``jitter``: a pseudo-random extra per text (a prefix can cost more than the longer text);
    * ``hex_extra``: extra tokens per hex digit (so a content hash in a path costs at random);
    * ``every``/``spike``: a spike when the length is a multiple of ``every`` (not monotone in length either);
    * ``chars``: characters per token for the rest.
    """

    chars: int
    hex_extra: int
    jitter: int
    every: int
    spike: int
    seed: int

    @property
    def key(self) -> str:
        return f"adv-{self.chars}-{self.hex_extra}-{self.jitter}-{self.every}-{self.spike}-{self.seed}"

    def count_text(self, text: str) -> int:
        raw = text.encode("utf-8", "surrogatepass")
        n = (len(text) + self.chars - 1) // self.chars
        n += self.hex_extra * sum(c in HEX for c in text)
        n += zlib.crc32(raw, self.seed) % (self.jitter + 1)
        n += self.spike if len(text) % self.every == 0 else 0
        return n

    def count_message(self, message: Message) -> int:
        return 3 + sum(self.count_text(t) for t in iter_text(message)) + MEDIA_TOKENS * media_blocks(message)


counters = st.builds(
    AdversarialCounter,
    chars=st.sampled_from([1, 2, 4]),
    hex_extra=st.integers(0, 9),
    jitter=st.integers(0, 80),
    every=st.integers(2, 7),
    spike=st.integers(0, 40),
    seed=st.integers(0, 2**32 - 1),
)


def files_of(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name != "index.jsonl")


@settings(max_examples=400, deadline=None)
@given(block=tool_results, counter=counters, slack=st.integers(-200, 1500))
def test_pure_split_fits_or_names_the_notice(block: ToolResultBlock, counter: AdversarialCounter, slack: int) -> None:
    floor = minimum_limit(counter, block)
    limit = max(1, floor + slack)
    if cost(counter, block) <= limit:
        assert split_tool_result(block, limit=limit, counter=counter) is None
        return
    if limit < floor:
        with pytest.raises(ResultLimitError) as info:
            split_tool_result(block, limit=limit, counter=counter)
        assert info.value.needed == floor and info.value.limit == limit
        return
    plan = split_tool_result(block, limit=limit, counter=counter)
    assert plan is not None
    assert cost(counter, plan.kept_block()) == plan.kept_tokens <= limit
    assert plan.kept_text + plan.rest_text == block.text


@settings(max_examples=150, deadline=None)
@given(block=tool_results, counter=counters, slack=st.integers(-100, 1500))
async def test_offload_fits_writes_once_and_never_fails_while_the_notice_fits(
    block: ToolResultBlock, counter: AdversarialCounter, slack: int
) -> None:
    floor = minimum_limit(counter, block)
    limit = max(1, floor + slack)
    with tempfile.TemporaryDirectory() as tmp:
        ws = LocalWorkspace(tmp, "s")
        if limit < floor and cost(counter, block) > limit:
            with pytest.raises(ResultLimitError):
                await offload_oversized_result(block, limit=limit, counter=counter, offloader=ws)
            assert files_of(Path(tmp)) == []  # nothing written for a split that cannot happen
            return
        kept, ref = await offload_oversized_result(block, limit=limit, counter=counter, offloader=ws)
        if ref is None and kept is block:
            assert cost(counter, block) <= limit and ws.items() == []
            return
        assert cost(counter, kept) <= limit
        notice = kept.content[-1].text
        items = ws.items()
        assert files_of(ws.session_dir) == sorted({r.path for r in items})
        assert all(r.path in notice for r in items)  # every file is named: none superseded
        assert len(items) == len({r.path for r in items}) or _repeated_media(block)


def _repeated_media(block: ToolResultBlock) -> bool:
    media = [b for b in block.content if isinstance(b, DataBlock)]
    return len(media) != len({(b.media, b.media_type, b.data, b.url, b.path) for b in media})


class RandomNames:
    """An offloader that names items at random (not by content): the split must still fit, with its real names."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.stored: dict[str, str | DataBlock] = {}
        self.ids = itertools.count()

    def _name(self, kind: str) -> str:
        length = self.rnd.randrange(4, 40)
        return f"{kind}/{next(self.ids)}-" + "".join(self.rnd.choice("0123456789abcdef") for _ in range(length))

    def _ref(self, path: str, kind: str, size: int) -> OffloadRef:
        return OffloadRef(path=path, kind=kind, size=size, created="2025-01-01T00:00:00+00:00")  # type: ignore[arg-type]

    async def offload_data(self, block: DataBlock) -> OffloadRef:
        path = self._name("media")
        self.stored[path] = block
        return self._ref(path, "media", 1)

    async def offload_context(
        self, messages: Sequence[Message], *, message_range: tuple[int, int] | None = None
    ) -> OffloadRef:
        raise NotImplementedError

    async def offload_tool_result(self, text: str, *, call_id: str, tool_name: str | None) -> OffloadRef:
        path = self._name("text")
        self.stored[path] = text
        return self._ref(path, "tool_result", len(text))


@settings(max_examples=150, deadline=None)
@given(block=tool_results, counter=counters, slack=st.integers(0, 1500), seed=st.integers(0, 1000))
async def test_an_offloader_with_other_names_still_fits(
    block: ToolResultBlock, counter: AdversarialCounter, slack: int, seed: int
) -> None:
    offloader = RandomNames(seed)
    limit = minimum_limit(counter, block) + slack
    try:
        kept, ref = await offload_oversized_result(block, limit=limit, counter=counter, offloader=offloader)
    except ResultLimitError:
        return  # its names cost more than the content-addressed ones the limit was sized for
    if kept is block:
        return
    assert cost(counter, kept) <= limit
    notice = kept.content[-1].text
    texts = [p for p in offloader.stored if p.startswith("text/")]
    assert len(texts) <= 1 and all(p in notice for p in texts)  # the text is written at most once
    if ref is not None and ref.kind == "tool_result":
        assert offloader.stored[ref.path] == block.text


async def test_no_quadratic_work_under_a_jittery_counter(tmp_path: Path) -> None:
    counter = AdversarialCounter(chars=4, hex_extra=3, jitter=50, every=3, spike=30, seed=7)
    block = ToolResultBlock(call_id="c", content=(TextBlock(text="word " * 400_000),))
    kept, ref = await offload_oversized_result(
        block, limit=3_000, counter=counter, offloader=LocalWorkspace(tmp_path, "s")
    )
    assert ref is not None and cost(counter, kept) <= 3_000
