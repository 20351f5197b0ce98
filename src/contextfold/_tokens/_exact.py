"""Exact token counters: tiktoken encodings and Hugging Face ``tokenizers`` files.

Exact counting is slower than the calibrated estimate but right to the token,
for users who know their model's tokenizer. Nothing here ever downloads:
``tiktoken.get_encoding`` fetches its file from the network on first use and
fails offline, so encodings are built from files on disk instead. The
``o200k_base`` and ``cl100k_base`` files ship inside the ``bpe-openai`` wheel
(gzipped, byte-identical to OpenAI's); any other ``.tiktoken`` file or a
``tokenizer.json`` is given by path. SDK imports stay inside the functions so
``import contextfold`` never loads them; a missing package raises
`MissingExtraError` naming the ``pip install``.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from typing import Any

from contextfold._errors import ConfigError, MissingExtraError
from contextfold._messages import Message, iter_text
from contextfold._tokens._counting import media_tokens

__all__ = [
    "SHIPPED_ENCODINGS",
    "HFCounter",
    "TiktokenCounter",
    "load_tiktoken_encoding",
]

# Split patterns, as published in tiktoken (MIT, tiktoken_ext/openai_public.py).
_R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_PATTERNS = {
    "o200k_base": _O200K_PAT,
    "cl100k_base": _CL100K_PAT,
    "p50k_base": _R50K_PAT,
    "r50k_base": _R50K_PAT,
    "gpt2": _R50K_PAT,
}

SHIPPED_ENCODINGS = ("o200k_base", "cl100k_base")
"""Encodings available by name without a file: the ``bpe-openai`` wheel ships them."""


def _require(module: str, feature: str, extra: str, package: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(feature, extra, package) from exc


def _parse_ranks(raw: bytes, source: str) -> dict[bytes, int]:
    """Parse tiktoken's ``base64-token rank`` lines."""
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError as exc:
            raise ConfigError(f"{source}:{lineno}: not a tiktoken encoding file (expected 'base64 rank')") from exc
    if not ranks:
        raise ConfigError(f"{source}: empty tiktoken encoding file")
    return ranks


def _shipped_file(name: str) -> bytes:
    """The encoding file inside the bpe-openai wheel, read without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError(f"the {name} encoding", "tiktoken", "bpe-openai")
    import gzip
    from pathlib import Path

    path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"
    try:
        return gzip.decompress(path.read_bytes())
    except FileNotFoundError as exc:
        raise ConfigError(f"the installed bpe-openai does not ship {name}") from exc


@lru_cache(maxsize=8)
def load_tiktoken_encoding(name_or_path: str) -> Any:
    """A ``tiktoken.Encoding`` from a shipped encoding name or a ``.tiktoken[.gz]`` file, offline.

    For a file, the split pattern is taken from the encoding its name starts
    with (``cl100k_base…``, ``r50k_base…``); anything else uses o200k's.
    """
    tiktoken = _require("tiktoken", "exact tiktoken counting", "tiktoken", "tiktoken")
    import gzip  # these, here: only exact counting needs them
    import hashlib
    from pathlib import Path

    if name_or_path in SHIPPED_ENCODINGS:
        name = name_or_path
        ranks = _parse_ranks(_shipped_file(name), name)
        pattern = _PATTERNS[name]
    else:
        path = Path(name_or_path)
        if not path.is_file():
            shipped = ", ".join(SHIPPED_ENCODINGS)
            raise ConfigError(f"tiktoken: {name_or_path!r} is neither a shipped encoding ({shipped}) nor a file")
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        ranks = _parse_ranks(raw, str(path))
        stem = path.name.split(".")[0]
        pattern = next((p for n, p in _PATTERNS.items() if stem.startswith(n)), _O200K_PAT)
        digest = hashlib.sha256(raw).hexdigest()[:12]
        name = f"{stem}-{digest}"
    return tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


class TiktokenCounter:
    """Exact counts with a tiktoken encoding; special-token text is counted as plain text.

    The key names the encoding (and, for a file, a hash of its content), so
    caches of different encodings never mix.
    """

    def __init__(self, encoding: str = "o200k_base") -> None:
        self._encoding = load_tiktoken_encoding(encoding)
        self._key = f"tiktoken:{self._encoding.name}"

    @property
    def key(self) -> str:
        return self._key

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        return len(self._encoding.encode_ordinary(text))

    def count_message(self, message: Message) -> int:
        return sum(self.count_text(t) for t in iter_text(message)) + media_tokens(message, self)


class HFCounter:
    """Exact counts with a Hugging Face ``tokenizers`` tokenizer.json (no special tokens added)."""

    def __init__(self, path: str) -> None:
        tokenizers = _require("tokenizers", "exact Hugging Face counting", "hf", "tokenizers")
        import hashlib  # these, here: only exact counting needs them
        from pathlib import Path

        file = Path(path)
        if not file.is_file():
            raise ConfigError(f"hf: {path!r} is not a file (give the path of a tokenizer.json)")
        raw = file.read_bytes()
        try:
            self._tokenizer = tokenizers.Tokenizer.from_str(raw.decode("utf-8"))
        except Exception as exc:  # the Rust side raises plain Exception subclasses
            raise ConfigError(f"hf: {path}: not a tokenizers tokenizer.json ({exc})") from exc
        self._key = f"hf:{hashlib.sha256(raw).hexdigest()[:16]}"

    @property
    def key(self) -> str:
        return self._key

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count_message(self, message: Message) -> int:
        return sum(self.count_text(t) for t in iter_text(message)) + media_tokens(message, self)
