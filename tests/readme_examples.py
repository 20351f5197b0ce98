"""Find and run the Python examples of the documentation: README.md and every ``docs/**/*.md`` page.

Every ```` ```python ```` block is an example that must run as written, offline and fast, in a fresh namespace.
A block whose first line starts with ``# Needs `` (an API key, a live server) is skipped with that line as the
reason; the line must say "not run by the test suite", so readers see it too. Fences spelled ``py``,
``python3`` or ``pycon`` are refused by the tests: they would look like examples and escape them silently.

`tests/test_docs_examples.py` runs every example; a feature's own tests may also run the examples of its page
with `run_section` (by heading, wherever the heading is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SKIP_MARK = "# Needs "
SKIP_WORDING = "not run by the test suite"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$")
_NOT_RUN_PYTHON = re.compile(r"^(py|py3|python3|pycon|ipython|python-repl)$", re.IGNORECASE)


@dataclass(frozen=True)
class Example:
    """One fenced code block of a page."""

    page: str
    """Path relative to the repository root, e.g. ``docs/steering.md``."""
    line: int
    """1-based line of the opening fence."""
    language: str
    """First word of the fence's info string (``python``, ``sh``, ...; empty when none)."""
    code: str
    """The block's text, dedented by the fence's indentation."""
    headings: tuple[tuple[int, str], ...]
    """The headings the block sits under, outermost first, as (level, title)."""

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        first = self.code.split("\n", 1)[0]
        return first if first.startswith(SKIP_MARK) else None


def doc_pages() -> list[Path]:
    """README.md, then every Markdown page under docs/, in a stable order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def parse_blocks(text: str, page: str) -> list[Example]:
    """Every fenced code block of a Markdown text, with the headings it sits under."""
    blocks: list[Example] = []
    headings: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        heading = _HEADING.match(lines[i])
        if heading:
            level = len(heading["hashes"])
            headings = [h for h in headings if h[0] < level] + [(level, heading["title"])]
            i += 1
            continue
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, marker, info = fence["indent"], fence["fence"], fence["info"].strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            closing = lines[j].strip()
            if closing.startswith(marker[0] * len(marker)) and set(closing) == {marker[0]}:
                break
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        language = info.split()[0].lstrip(".{").rstrip("}") if info else ""
        code = "\n".join(body) + "\n"
        blocks.append(Example(page, i + 1, language, code, tuple(headings)))
        i = j + 1
    return blocks


def page_blocks(path: Path) -> list[Example]:
    """Every fenced code block of one page."""
    return parse_blocks(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


def python_examples() -> list[Example]:
    """Every ```` ```python ```` block of README.md and docs/, in page order."""
    return [b for page in doc_pages() for b in page_blocks(page) if b.language == "python"]


def misspelled_python_fences() -> list[Example]:
    """Blocks fenced as ``py``, ``python3``, ``pycon``, ...: Python the tests would not run."""
    return [b for page in doc_pages() for b in page_blocks(page) if _NOT_RUN_PYTHON.match(b.language)]


def run_example(example: Example) -> None:
    """Execute one example in a fresh namespace; tracebacks name the page and its line numbers."""
    padded = "\n" * example.line + example.code  # line numbers in tracebacks are the page's
    exec(compile(padded, example.page, "exec"), {"__name__": "__docs_example__"})


def section_examples(heading: str) -> list[Example]:
    """The Python examples under the first heading (any level, README first) whose title starts with ``heading``."""
    for page in doc_pages():
        blocks = page_blocks(page)
        for block in blocks:
            for found in block.headings:
                if found[1].startswith(heading):
                    return [b for b in blocks if b.language == "python" and found in b.headings]
    raise AssertionError(f"no page of README.md or docs/ has a code block under a heading starting with {heading!r}")


def run_section(heading: str) -> None:
    """Execute every Python example under a heading of README.md or docs/ (see `section_examples`)."""
    examples = section_examples(heading)
    assert examples, f"the section {heading!r} has no Python example"
    for example in examples:
        if example.skip_reason is None:
            run_example(example)
