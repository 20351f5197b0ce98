"""High-entropy texts of the kinds agents meet in tool output, generated deterministically, plus real ones.

The calibrated estimate is fitted on natural text and real tool output, where
words and common pieces merge into long tokens. Hashes, UUIDs, base36/base62
ids, generated identifiers, minified JSON/JS and shuffled CJK do not merge,
so they cost far more tokens per character. Each generator here makes one such
kind from a seeded `random.Random`, so every run sees the same texts;
`real_high_entropy` picks the lines of the dev corpus's tool output that hold
ids or hashes.

    from entropy_texts import KINDS, generate
    texts = generate("hex_sha256", count=12, seed=0)
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import string
import uuid
from collections.abc import Callable
from pathlib import Path

B36 = string.ascii_lowercase + string.digits
B62 = string.ascii_letters + string.digits


def _lines(r: random.Random, line: Callable[[random.Random], str], n: int = 60) -> str:
    return "\n".join(line(r) for _ in range(n))


def _word(r: random.Random) -> str:
    return "".join(r.choice(string.ascii_lowercase) for _ in range(r.randint(3, 10)))


def _ident(r: random.Random) -> str:
    return "_".join(_word(r) for _ in range(r.randint(1, 3)))


def _camel(r: random.Random) -> str:
    first = _word(r)
    return first + "".join(_word(r).capitalize() for _ in range(r.randint(0, 2)))


def _rid(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def _min_js(r: random.Random, source: str) -> str:
    start = r.randrange(0, max(1, len(source) - 8000))
    text = re.sub(r"//[^\n]*", "", source[start : start + 8000])
    text = re.sub(r"\s+", " ", text)
    return re.sub(r" ?([;,=(){}:+\-*/<>]) ?", r"\1", text)[:5000]


def _min_json(r: random.Random, lines: list[str]) -> str:
    start = r.randrange(0, max(1, len(lines) - 20))
    items = [json.loads(line) for line in lines[start : start + 20]]
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)[:6000]


def _json_records(r: random.Random) -> str:
    rows = [
        {
            "id": _rid(r, B62, 16),
            "sha": hashlib.md5(r.randbytes(8)).hexdigest(),
            "uuid": str(uuid.UUID(bytes=r.randbytes(16))),
            "n": r.randint(0, 10**6),
        }
        for _ in range(30)
    ]
    return json.dumps(rows, separators=(",", ":"))


def _git_log(r: random.Random) -> str:
    verbs = ["fix", "add", "update", "remove", "refactor", "bump", "merge"]
    return _lines(
        r,
        lambda r: (
            f"{hashlib.sha1(r.randbytes(8)).hexdigest()[: r.choice([7, 10, 40])]} "
            f"{r.choice(verbs)} {_ident(r)} in {_word(r)}/{_camel(r)}.py"
        ),
    )


def kinds(corpus_text: Path) -> dict[str, Callable[[random.Random], str]]:
    """Generator per kind; the minified-code and CJK kinds rework the corpus's code, JSON and Chinese files."""
    js = (corpus_text / "code_js.js").read_text(encoding="utf-8")
    jsonl = (corpus_text / "json_compact.jsonl").read_text(encoding="utf-8").splitlines()
    zh = (corpus_text / "zh_prose.md").read_text(encoding="utf-8")
    wide = [ch for ch in zh if "\u3000" <= ch <= "\u9fff"]
    return {
        "hex_sha256": lambda r: _lines(r, lambda r: hashlib.sha256(r.randbytes(8)).hexdigest()),
        "hex_git_log": _git_log,
        "uuid": lambda r: _lines(r, lambda r: str(uuid.UUID(bytes=r.randbytes(16)))),
        "base36_id": lambda r: _lines(r, lambda r: _rid(r, B36, r.choice([12, 16, 24, 32]))),
        "base62_id": lambda r: _lines(r, lambda r: _rid(r, B62, r.choice([16, 22, 27]))),
        "base64": lambda r: base64.b64encode(r.randbytes(3000)).decode(),
        "random_words": lambda r: _lines(r, lambda r: " ".join(_word(r) for _ in range(8))),
        "random_identifiers": lambda r: _lines(r, lambda r: " ".join(_ident(r) for _ in range(5))),
        "random_camel": lambda r: _lines(r, lambda r: " ".join(_camel(r) for _ in range(5))),
        "json_ids": _json_records,
        "minified_js": lambda r: _min_js(r, js),
        "minified_json": lambda r: _min_json(r, jsonl),
        "cjk_shuffled": lambda r: "".join(r.sample(wide, 1500)),
        "cjk_random": lambda r: "".join(chr(r.randint(0x4E00, 0x9FFF)) for _ in range(1000)),
    }


def generate(kind: str, corpus_text: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` texts of one kind (the same every run for the same seed)."""
    make = kinds(corpus_text)[kind]
    r = random.Random(f"{kind}:{seed}")
    return [make(r) for _ in range(count)]


_ID = re.compile(
    r"\b(?:[0-9a-f]{7,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{20,})\b"
)


def real_high_entropy(dev: Path, chunk: int = 2000) -> list[tuple[str, str]]:
    """(split, text): the lines of the dev corpus's tool outputs that hold a hash, a UUID or a long id.

    Lines are grouped into ~``chunk``-character samples; every third sample goes to the check split.
    """
    lines: list[str] = []
    for path in sorted(dev.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            for m in json.loads(raw)["messages"]:
                content = m.get("content")
                if m["role"] != "tool" or not isinstance(content, str):
                    continue
                for line in content.splitlines():
                    if len(line) < 400 and any(sum(c.isdigit() for c in t) >= 2 for t in _ID.findall(line)):
                        lines.append(line)
    out: list[tuple[str, str]] = []
    cur: list[str] = []
    for line in dict.fromkeys(lines):  # each distinct line once, in corpus order
        cur.append(line)
        if sum(len(x) + 1 for x in cur) >= chunk:
            out.append(("check" if len(out) % 3 == 2 else "fit", "\n".join(cur)))
            cur = []
    return out
