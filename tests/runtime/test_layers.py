from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    BytesCounter,
    DiscoveredLayers,
    InputError,
    PromptFile,
    SkippedFile,
    SystemPromptBuilder,
    discover,
)
from contextfold._cli import main
from contextfold._runtime._layers import MAX_PROMPT_FILE_BYTES, decode_prompt_bytes
from readme_examples import run_section

# --- builder ------------------------------------------------------------------------------------------------------


def test_build_fixed_order_and_separators() -> None:
    prompt = SystemPromptBuilder(
        "You are a coding agent.",
        instructions="Run the tests.",
        agent="You review pull requests.",
        extras=["Repository: example", "Branch: main"],
    ).build()
    assert prompt == (
        "You are a coding agent.\n\n"
        "<project-instructions>\nRun the tests.\n</project-instructions>\n\n"
        "<agent-description>\nYou review pull requests.\n</agent-description>\n\n"
        "<extra-context>\nRepository: example\n</extra-context>\n\n"
        "<extra-context>\nBranch: main\n</extra-context>"
    )


def test_build_is_byte_identical_and_counted() -> None:
    def make() -> str:
        return SystemPromptBuilder("base", instructions="i", agent="a", extras=("x",)).build()

    assert make().encode() == make().encode()
    assert BytesCounter().count_text(make()) == round(len(make().encode()) / 4)


def test_empty_layers_are_left_out_and_line_endings_normalised() -> None:
    prompt = SystemPromptBuilder("base\r\n\r\n", instructions="  \n", agent=None, extras=["", "\n\nx\r\ny\n\n"]).build()
    assert prompt == "base\n\n<extra-context>\nx\ny\n</extra-context>"


def test_prompt_file_layers_name_their_source() -> None:
    layers = DiscoveredLayers(
        instructions=PromptFile(relative="CLAUDE.md", text="Use ruff.", size=9),
        agent=PromptFile(relative=".contextfold/agents.md", text="Reviewer.", size=9),
    )
    builder = SystemPromptBuilder.from_discovered("base", layers, extras=["e"])
    assert [name for name, _ in builder.sections()] == ["base", "instructions", "agent", "extra"]
    prompt = builder.build()
    assert '<project-instructions source="CLAUDE.md">\nUse ruff.\n</project-instructions>' in prompt
    assert '<agent-description source=".contextfold/agents.md">\nReviewer.\n</agent-description>' in prompt


@settings(max_examples=100, deadline=None)
@given(
    base=st.text(),
    instructions=st.none() | st.text(),
    agent=st.none() | st.text(),
    extras=st.lists(st.text(), max_size=3),
)
def test_build_is_deterministic_and_keeps_layer_order(
    base: str, instructions: str | None, agent: str | None, extras: list[str]
) -> None:
    one = SystemPromptBuilder(base, instructions=instructions, agent=agent, extras=extras)
    two = SystemPromptBuilder(base, instructions=instructions, agent=agent, extras=tuple(extras))
    assert one.build() == two.build()
    names = [name for name, _ in one.sections()]
    order = {"base": 0, "instructions": 1, "agent": 2, "extra": 3}
    assert names == sorted(names, key=order.__getitem__)
    assert one.build() == "\n\n".join(text for _, text in one.sections())


# --- decoding -----------------------------------------------------------------------------------------------------


def test_decode_small_file_unchanged() -> None:
    prompt = decode_prompt_bytes("héllo\n".encode(), size=7, relative="CLAUDE.md")
    assert prompt.text == "héllo\n"
    assert not prompt.truncated
    assert not prompt.replaced_invalid_utf8


def test_decode_truncates_at_character_boundary_with_note() -> None:
    data = "a" + "€" * 10  # 1 + 30 bytes; a limit of 6 falls inside the second euro sign
    prompt = decode_prompt_bytes(data.encode(), size=31, relative="AGENTS.md", limit=6)
    assert prompt.truncated
    assert prompt.text.startswith("a€\n\n")
    assert "[contextfold: AGENTS.md truncated: showing the first 4 of 31 bytes]" in prompt.text
    assert "\ufffd" not in prompt.text


def test_decode_replaces_invalid_utf8_with_note() -> None:
    prompt = decode_prompt_bytes(b"caf\xe9 au lait", size=12, relative="CLAUDE.md")
    assert prompt.replaced_invalid_utf8
    assert prompt.text.startswith("caf\ufffd au lait")
    assert "not valid UTF-8" in prompt.text


def longest_prefix_within(text: str, limit: int) -> str:
    out = ""
    for ch in text:
        if len((out + ch).encode()) > limit:
            break
        out += ch
    return out


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",))), limit=st.integers(1, 64))
def test_decode_never_splits_a_character(text: str, limit: int) -> None:
    data = text.encode()
    prompt = decode_prompt_bytes(data[: limit + 1], size=len(data), relative="f", limit=limit)
    assert prompt.truncated is (len(data) > limit)
    assert not prompt.replaced_invalid_utf8
    if not prompt.truncated:
        assert prompt.text == text
        return
    kept = longest_prefix_within(text, limit)
    assert len(kept.encode()) > limit - 4  # at most one partial character (< 4 bytes) dropped
    note = f"[contextfold: f truncated: showing the first {len(kept.encode()):,} of {len(data):,} bytes]"
    assert prompt.text == kept.rstrip() + "\n\n" + note


# --- discovery ----------------------------------------------------------------------------------------------------


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_discover_nothing(tmp_path: Path) -> None:
    assert discover(tmp_path) == DiscoveredLayers()


def test_discover_priority_first_hit_wins(tmp_path: Path) -> None:
    write(tmp_path / ".claude/instructions.md", "third")
    write(tmp_path / ".contextfold/instructions.md", "second")
    layers = discover(tmp_path)
    assert layers.instructions is not None
    assert layers.instructions.relative == ".contextfold/instructions.md"
    assert layers.instructions.text == "second"
    write(tmp_path / "CLAUDE.md", "first")
    layers = discover(tmp_path)
    assert layers.instructions is not None
    assert layers.instructions.text == "first"


def test_discover_agent_priority(tmp_path: Path) -> None:
    write(tmp_path / "agents.md", "lower")
    write(tmp_path / ".contextfold/agents.md", "higher")
    layers = discover(tmp_path)
    assert layers.agent is not None
    assert (layers.agent.relative, layers.agent.text) == (".contextfold/agents.md", "higher")
    assert layers.instructions is None


def test_discover_skips_empty_file_and_records_it(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", " \n\n")
    write(tmp_path / ".claude/instructions.md", "real")
    layers = discover(tmp_path)
    assert layers.instructions is not None
    assert layers.instructions.relative == ".claude/instructions.md"
    assert SkippedFile("CLAUDE.md", "empty") in layers.skipped


def test_discover_caps_size_with_visible_note(tmp_path: Path) -> None:
    body = ("line of instructions ü\n" * 4000).encode()
    assert len(body) > MAX_PROMPT_FILE_BYTES
    write(tmp_path / "CLAUDE.md", body)
    layers = discover(tmp_path)
    assert layers.instructions is not None
    assert layers.instructions.truncated
    assert layers.instructions.size == len(body)
    assert f"of {len(body):,} bytes]" in layers.instructions.text
    kept = layers.instructions.text.split("\n\n[contextfold:")[0]
    assert len(kept.encode()) <= MAX_PROMPT_FILE_BYTES
    assert body.decode().startswith(kept)


def test_discover_custom_limit(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "0123456789")
    layers = discover(tmp_path, limit=4)
    assert layers.agent is not None
    assert layers.agent.text.startswith("0123\n\n[contextfold: AGENTS.md truncated: showing the first 4 of 10 bytes]")


def test_discover_non_utf8_noted(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", b"Gr\xfc\xdfe")
    layers = discover(tmp_path)
    assert layers.agent is not None
    assert layers.agent.replaced_invalid_utf8
    assert "not valid UTF-8" in layers.agent.text


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_discover_refuses_symlink_escape(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    secret = write(tmp_path / "secret.md", "outside")
    (project / "CLAUDE.md").symlink_to(secret)
    write(project / ".claude/instructions.md", "inside")
    layers = discover(project)
    assert layers.instructions is not None
    assert layers.instructions.text == "inside"
    [skip] = layers.skipped
    assert skip.relative == "CLAUDE.md"
    assert "outside the directory" in skip.reason


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_discover_refuses_escape_through_symlinked_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write(tmp_path / "elsewhere/agents.md", "outside")
    (project / ".contextfold").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    layers = discover(project)
    assert layers.agent is None
    assert [s.relative for s in layers.skipped] == [".contextfold/agents.md"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_discover_follows_symlink_inside_directory(tmp_path: Path) -> None:
    write(tmp_path / "docs/instructions.md", "shared")
    (tmp_path / "CLAUDE.md").symlink_to(tmp_path / "docs/instructions.md")
    layers = discover(tmp_path)
    assert layers.instructions is not None
    assert layers.instructions.text == "shared"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_discover_dangling_symlink_skipped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "missing.md")
    layers = discover(tmp_path)
    assert layers.agent is None
    assert layers.skipped[0].relative == "AGENTS.md"
    assert "cannot resolve" in layers.skipped[0].reason


def test_discover_refuses_directory(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").mkdir()
    layers = discover(tmp_path)
    assert layers.instructions is None
    assert layers.skipped == (SkippedFile("CLAUDE.md", "not a regular file"),)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_discover_refuses_fifo_without_hanging(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    write(tmp_path / "agents.md", "fallback")
    layers = discover(tmp_path)
    assert layers.skipped[0] == SkippedFile("AGENTS.md", "not a regular file")
    assert layers.agent is not None
    assert layers.agent.text == "fallback"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_discover_unreadable_file_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "CLAUDE.md", "private")
    path.chmod(0)
    try:
        layers = discover(tmp_path)
    finally:
        path.chmod(0o644)
    assert layers.instructions is None
    assert "cannot open" in layers.skipped[0].reason


def test_discover_requires_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a directory"):
        discover(tmp_path / "nope")


def test_discovered_prompt_is_stable_across_runs(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "Use uv.\r\n")
    write(tmp_path / "AGENTS.md", "Be brief.")
    one = SystemPromptBuilder.from_discovered("base", discover(tmp_path)).build()
    two = SystemPromptBuilder.from_discovered("base", discover(tmp_path)).build()
    assert one == two
    assert one == (
        'base\n\n<project-instructions source="CLAUDE.md">\nUse uv.\n</project-instructions>\n\n'
        '<agent-description source="AGENTS.md">\nBe brief.\n</agent-description>'
    )


# --- README example -----------------------------------------------------------------------------------------------


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_section("Layered system prompt")
    assert capsys.readouterr().out.endswith(" tokens\n")


# --- CLI ----------------------------------------------------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env={"COLUMNS": "100"})
    return code, out.getvalue(), err.getvalue()


def test_cli_prompt_json(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "Use uv.")
    (tmp_path / "AGENTS.md").mkdir()
    write(tmp_path / "agents.md", "Be brief.")
    code, out, err = cli("prompt", str(tmp_path), "--base", "base", "--extra", "e1", "--counter", "bytes", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    expected = SystemPromptBuilder.from_discovered("base", discover(tmp_path), extras=["e1"]).build()
    assert report["prompt"] == expected
    assert report["tokens"] == BytesCounter().count_text(expected)
    assert report["bytes"] == len(expected.encode())
    assert report["sha256"] == hashlib.sha256(expected.encode()).hexdigest()
    assert report["counter"] == "bytes"
    assert [(row["name"], row["source"]) for row in report["layers"]] == [
        ("base", None),
        ("instructions", "CLAUDE.md"),
        ("agent", "agents.md"),
        ("extra", None),
    ]
    assert report["skipped"] == [{"path": "AGENTS.md", "reason": "not a regular file"}]


def test_cli_prompt_print_and_table(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "x" * 100)
    base_file = write(tmp_path / "base.txt", "You are an agent.\n")
    code, out, _ = cli("prompt", str(tmp_path), "--base-file", str(base_file), "--print")
    assert code == 0
    assert out == SystemPromptBuilder.from_discovered("You are an agent.", discover(tmp_path)).build() + "\n"
    code, out, _ = cli("prompt", str(tmp_path), "--counter", "bytes")
    assert code == 0
    assert "instructions" in out
    assert "CLAUDE.md" in out
    assert "total:" in out


def test_cli_prompt_user_mistakes_are_one_line_exit_2(tmp_path: Path) -> None:
    code, out, err = cli("prompt", str(tmp_path / "missing"))
    assert out == ""
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "not a directory" in err
    code, _, err = cli("prompt", str(tmp_path), "--base-file", str(tmp_path / "nope.txt"))
    assert code == 2
    assert "nope.txt" in err
    assert err.strip().count("\n") == 0
    code, _, err = cli("prompt", str(tmp_path), "--counter", "bogus")
    assert code == 2
    assert err.strip().count("\n") == 0
