"""The documentation stays true: every Python example of README.md and docs/ runs, and the reference is complete.

Examples run in a temporary directory holding a copy of ``examples/`` (the transcript they read), each in a fresh
namespace; a failure names the page and line (see `readme_examples`). The API pages must list every public name
once, and the source may cite only documentation pages that exist.
"""

from __future__ import annotations

import importlib
import re
import shutil
from pathlib import Path

import pytest

import contextfold
import contextfold.compaction
import contextfold.models
import contextfold.testing
from readme_examples import (
    DOCS,
    ROOT,
    SKIP_WORDING,
    Example,
    misspelled_python_fences,
    parse_blocks,
    python_examples,
    run_example,
    section_examples,
)

EXAMPLES = python_examples()


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_runs(example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if example.skip_reason is not None:
        pytest.skip(example.skip_reason)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    run_example(example)


def test_examples_are_found_on_the_readme_and_the_docs_pages() -> None:
    pages = {e.page for e in EXAMPLES}
    assert "README.md" in pages
    assert {"docs/context.md", "docs/compaction.md", "docs/steering.md", "docs/guard.md"} <= pages


def test_skipped_examples_say_so_where_readers_see_it() -> None:
    skipped = [e for e in EXAMPLES if e.skip_reason is not None]
    for example in skipped:
        assert SKIP_WORDING in example.skip_reason, f"{example.id}: the '# Needs ...' line must say {SKIP_WORDING!r}"
    # Rare: most examples must run. A page that needs a key for every example should run against a local server.
    assert len(skipped) * 5 <= len(EXAMPLES), [e.id for e in skipped]


def test_no_python_hides_behind_another_fence_name() -> None:
    assert [e.id for e in misspelled_python_fences()] == [], "fence Python examples as ```python so they run"


def test_the_collector_reads_fences_as_markdown_does() -> None:
    text = (
        "# Page\n\n"
        "```python\nx = 1\n```\n\n"
        "## Part\n\n"
        "```sh\nmake test\n```\n\n"
        '!!! note\n    ```python title="indented, in an admonition"\n    y = 2\n    ```\n\n'
        "````python\nprint('```')\n````\n\n"
        "### Deeper\n\n"
        "```python\n# Needs a key: not run by the test suite.\nz = 3\n```\n"
        "## Other\n\n"
        "```py\nw = 4\n```\n"
    )
    blocks = parse_blocks(text, "page.md")
    assert [(b.line, b.language) for b in blocks] == [
        (3, "python"),
        (9, "sh"),
        (14, "python"),
        (18, "python"),
        (24, "python"),
        (30, "py"),
    ]
    assert blocks[2].code == "y = 2\n" and blocks[3].code == "print('```')\n"
    assert blocks[4].headings == ((1, "Page"), (2, "Part"), (3, "Deeper"))
    assert blocks[4].skip_reason == "# Needs a key: not run by the test suite."
    assert blocks[5].headings == ((1, "Page"), (2, "Other"))


def test_a_broken_example_fails_with_its_page_and_line() -> None:
    [block] = parse_blocks("# Page\n\n```python\nx = 1\nraise ValueError('stale example')\n```\n", "docs/x.md")
    with pytest.raises(ValueError, match="stale example") as info:
        run_example(block)
    tb = info.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert (tb.tb_frame.f_code.co_filename, tb.tb_lineno) == ("docs/x.md", 5)


def test_sections_are_found_by_heading_on_any_page() -> None:
    assert [e.page for e in section_examples("Steering a running agent")] == ["docs/steering.md"]
    readme = section_examples("The library")
    assert readme and {e.page for e in readme} == {"README.md"}


def _public_names() -> dict[str, object]:
    names: dict[str, object] = {}
    for module in (contextfold, contextfold.compaction, contextfold.models, contextfold.testing):
        for name in module.__all__:
            if not name.startswith("__"):
                names[f"{module.__name__}.{name}"] = getattr(module, name)
    return names


def _resolve(identifier: str) -> object:
    parts = identifier.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(identifier)


def _api_entries() -> list[tuple[str, str]]:
    entries = []
    for page in sorted((DOCS / "api").glob("*.md")):
        for match in re.finditer(r"^::: (\S+)", page.read_text(encoding="utf-8"), flags=re.M):
            entries.append((page.relative_to(ROOT).as_posix(), match[1]))
    return entries


def test_every_public_name_has_one_entry_on_an_api_page() -> None:
    entries = _api_entries()
    for page, identifier in entries:
        assert identifier.startswith("contextfold.") and "._" not in identifier, f"{page}: {identifier} is private"
    documented = [_resolve(identifier) for _, identifier in entries]
    missing = [name for name, obj in _public_names().items() if not any(obj is d for d in documented)]
    assert missing == [], f"add a '::: NAME' line for each to the matching page of docs/api/: {missing}"
    twice = [entries[i] for i, obj in enumerate(documented) if any(obj is d for d in documented[:i])]
    assert twice == [], f"documented twice: {twice}"


def test_source_cites_only_pages_that_exist() -> None:
    cited = set()
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "DESIGN.md" not in text, f"{path}: cite docs/design-notes.md (DESIGN.md is not in the repository)"
        cited |= {(path.name, page) for page in re.findall(r"\bdocs/[\w/.-]+\.md", text)}
    assert cited, "the source cites no docs page: is the pattern still right?"
    assert sorted(c for c in cited if not (ROOT / c[1]).is_file()) == []
