"""Hostile and endless inputs and outputs at the CLI (issue 14 items 6, 7 and 8): one line and exit 2, nothing left.

Real FIFOs, symlinks to ``/dev/zero``, device nodes and gzip bombs in ``tmp_path``; every bomb is capped with
``--max-input-bytes`` so the tests never allocate more than a few MiB.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import sys
import zlib
from pathlib import Path

import pytest

from contextfold._cli import main

ENV = {"COLUMNS": "120", "NO_COLOR": "1"}
GOOD = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
ZERO_DEVICE = Path("/dev/zero")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, env=ENV)
    return code, out.getvalue(), err.getvalue()


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def reading(command: str, path: Path, tmp_path: Path) -> list[str]:
    """argv for ``command`` reading ``path`` as its input file."""
    return {
        "count": ["count", str(path)],
        "validate": ["validate", str(path)],
        "inspect": ["inspect", str(path)],
        "compact": ["compact", str(path), "--window", "1000", "-o", str(tmp_path / "o.json"), "--workspace",
                    str(tmp_path / "ws")],
        "demo": ["demo", "--transcript", str(path), "--workspace", str(tmp_path / "ws")],
        "guard": ["guard", str(path)],
        "prompt": ["prompt", str(tmp_path), "--base-file", str(path)],
    }[command]  # fmt: skip


ALL_READERS = ["count", "validate", "inspect", "compact", "demo", "guard", "prompt"]
TRANSCRIPT_READERS = ["count", "validate", "inspect", "compact", "demo"]


def zeros_gzip(size: int) -> bytes:
    """A gzip bomb: ``size`` zero bytes compressed (about 1,000x smaller), built in 1 MiB steps."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * min(size, 1 << 20)
    parts = [deflate.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, deflate.flush()])


# --- item 6: only regular files, bounded -------------------------------------------------------


@pytest.mark.skipif(not ZERO_DEVICE.exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("command", ALL_READERS)
def test_a_symlink_to_dev_zero_is_refused_not_read_forever(command: str, tmp_path: Path) -> None:
    link = tmp_path / "endless.json"
    link.symlink_to(ZERO_DEVICE)
    code, _, err = run(*reading(command, link, tmp_path))
    assert code == 2
    line = one_line(err)
    assert str(link) in line and "character device" in line and "regular file" in line
    assert not (tmp_path / "ws").exists() and not (tmp_path / "o.json").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("command", ALL_READERS)
def test_a_fifo_is_refused_without_blocking(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # no writer: opening it for reading would block forever
    code, _, err = run(*reading(command, fifo, tmp_path))
    assert code == 2
    line = one_line(err)
    assert str(fifo) in line and "FIFO" in line and "- to read standard input" in line


@pytest.mark.parametrize("command", ALL_READERS)
def test_a_file_over_the_limit_is_refused_naming_the_flag(command: str, tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(GOOD * 100), encoding="utf-8")
    code, _, err = run(*reading(command, path, tmp_path), "--max-input-bytes", "1K")
    assert code == 2
    line = one_line(err)
    assert str(path) in line and "more than the input limit of 1,024 bytes" in line and "--max-input-bytes" in line
    code, _, err = run(*reading(command, path, tmp_path), "--max-input-bytes", "1M")
    assert "--max-input-bytes" not in err


def test_the_limit_flag_takes_sizes_and_refuses_nonsense(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    for good in ("100", "1K", "2MiB", "1g", "1_000"):
        assert run("count", str(path), "--max-input-bytes", good)[0] == 0
    for bad in ("0", "-5", "lots", "1.5M"):
        code, _, err = run("count", str(path), "--max-input-bytes", bad)
        assert code == 2 and "--max-input-bytes" in one_line(err)
    from contextfold._formats._files import DEFAULT_MAX_INPUT_BYTES

    assert DEFAULT_MAX_INPUT_BYTES == 512 * 1024**2


@pytest.mark.parametrize("command", TRANSCRIPT_READERS)
def test_a_gzip_bomb_stops_at_the_limit(command: str, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(zeros_gzip(64 << 20))  # 64 MiB of zeros in about 64 KB
    assert bomb.stat().st_size < (1 << 20)
    code, _, err = run(*reading(command, bomb, tmp_path), "--max-input-bytes", "1M")
    assert code == 2
    line = one_line(err)
    assert "decompresses to more than the input limit of 1,048,576 bytes" in line and "--max-input-bytes" in line
    assert not (tmp_path / "ws").exists()


@pytest.mark.parametrize("command", TRANSCRIPT_READERS)
def test_every_transcript_command_reads_gzip(command: str, tmp_path: Path) -> None:
    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(json.dumps(GOOD).encode()))
    code, _, err = run(*reading(command, path, tmp_path))
    assert code == 0, err
    assert not err or "Traceback" not in err


@pytest.mark.parametrize("command", ["guard", "prompt"])
def test_commands_reading_text_say_they_do_not_decompress(command: str, tmp_path: Path) -> None:
    path = tmp_path / "t.txt.gz"
    path.write_bytes(gzip.compress(b"plain text"))
    code, _, err = run(*reading(command, path, tmp_path))
    assert code == 2
    assert "gzip-compressed" in one_line(err) and "decompress it first" in err


@pytest.mark.parametrize(
    ("damage", "needle"),
    [("corrupt", "corrupt gzip data"), ("truncated", "truncated gzip data"), ("trailing", "trailing bytes")],
)
@pytest.mark.parametrize("command", TRANSCRIPT_READERS)
def test_damaged_gzip_is_one_line(command: str, damage: str, needle: str, tmp_path: Path) -> None:
    data = bytearray(gzip.compress(json.dumps(GOOD * 50).encode()))
    if damage == "corrupt":
        data[12:16] = b"\xff\xff\xff\xff"  # the deflate stream right after the 10-byte header
    elif damage == "truncated":
        del data[len(data) // 2 :]
    else:
        data += b"not gzip"
    path = tmp_path / "t.json.gz"
    path.write_bytes(bytes(data))
    code, _, err = run(*reading(command, path, tmp_path))
    assert code == 2
    line = one_line(err)
    assert str(path) in line and needle in line  # demo raised zlib.error here


@pytest.mark.parametrize("command", ["count", "validate", "inspect", "guard"])
def test_standard_input_is_read_and_bounded(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.dumps(GOOD).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, _, err = run(command, "-")
    assert code == 0, err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    code, _, err = run(command, "-", "--max-input-bytes", "10")
    assert code == 2
    assert "<stdin>: standard input holds more than the input limit of 10 bytes" in one_line(err)


def test_compact_from_standard_input_needs_an_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(GOOD).encode())))
    code, _, err = run("compact", "-", "--window", "1000", "--workspace", str(tmp_path / "ws"))
    assert code == 2 and "-o" in one_line(err)
    out = tmp_path / "out.json"
    code, _, err = run("compact", "-", "--window", "1000", "-o", str(out), "--workspace", str(tmp_path / "ws"))
    assert code == 0, err
    assert json.loads(out.read_text()) == GOOD


# --- item 7: outputs ---------------------------------------------------------------------------


def compact_to(out: Path, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    src = tmp_path / "in.json"
    src.write_text(json.dumps(GOOD), encoding="utf-8")
    return run("compact", str(src), "--window", "1000", "--force", "-o", str(out), "--workspace", str(tmp_path / "ws"),
               *extra)  # fmt: skip


def nothing_left(tmp_path: Path) -> None:
    assert not (tmp_path / "ws").exists()  # no archive for a run that could not write its output
    assert not [p for p in tmp_path.rglob("*.tmp")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_compact_refuses_to_replace_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    code, _, err = compact_to(fifo, tmp_path)
    assert code == 2 and "FIFO" in one_line(err) and "refusing to replace it" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    nothing_left(tmp_path)


def test_compact_refuses_to_replace_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("keep me")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    code, _, err = compact_to(link, tmp_path)
    assert code == 2 and "symbolic link" in one_line(err)
    assert link.is_symlink() and target.read_text() == "keep me"
    nothing_left(tmp_path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a device node needs root")
def test_compact_refuses_to_replace_a_device_node(tmp_path: Path) -> None:
    node = tmp_path / "full"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # what /dev/full is
    code, _, err = compact_to(node, tmp_path)
    assert code == 2 and "character device" in one_line(err)
    assert stat.S_ISCHR(os.lstat(node).st_mode)  # it was replaced by a regular file
    nothing_left(tmp_path)


def test_compact_into_an_unwritable_directory_leaves_nothing(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # root writes anywhere permission bits say no; /proc takes no new files even from root
        if not Path("/proc/self").exists():
            pytest.skip("needs a directory root cannot write to")
        out = Path("/proc/contextfold-out.json")
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        out = locked / "out.json"
    code, _, err = compact_to(out, tmp_path)
    assert code == 2 and "cannot write to the output directory" in one_line(err)
    nothing_left(tmp_path)  # it left 12 workspace files


def test_compact_replaces_a_regular_file_atomically_and_keeps_it_on_failure(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o600)
    code, _, err = compact_to(out, tmp_path, "--conversation", "7")  # fails after the output was reserved
    assert code == 2 and "conversation" in one_line(err)
    assert out.read_text() == "old"
    nothing_left(tmp_path)
    code, _, err = compact_to(out, tmp_path)
    assert code == 0, err
    assert json.loads(out.read_text()) == GOOD and stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "ws") == ["in.json", "out.json"]


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_inspect_plot_refuses_what_is_not_a_file_before_any_work(kind: str, tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps(GOOD), encoding="utf-8")
    plot = tmp_path / "plot.svg"
    if kind == "symlink":
        plot.symlink_to(tmp_path / "elsewhere.svg")
    elif kind == "fifo":
        os.mkfifo(plot)
    else:
        plot.mkdir()
    code, out, err = run("inspect", str(src), "--plot", str(plot))
    assert code == 2 and out == ""
    assert str(plot) in one_line(err) and "--plot file" in err
    assert not (tmp_path / "elsewhere.svg").exists()


def test_inspect_plot_is_written_atomically(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    src = tmp_path / "in.json"
    src.write_text(json.dumps(GOOD), encoding="utf-8")
    plot = tmp_path / "plot.svg"
    plot.write_text("old")
    code, _, err = run("inspect", str(src), "--plot", str(plot), "--conversation", "3")
    assert code == 2 and plot.read_text() == "old"
    code, _, err = run("inspect", str(src), "--plot", str(plot))
    assert code == 0, err
    assert plot.read_text().lstrip().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json", "plot.svg"]


# --- item 8: lone surrogates and bad bytes ------------------------------------------------------

SURROGATE_DOC = (
    '[{"role": "user", "content": "look at \\ud800 here"}, '
    '{"role": "assistant", "content": "", "tool_calls": [{"id": "call_\\udc80", "type": "function", '
    '"function": {"name": "read", "arguments": "{\\"p\\": \\"\\\\ud800\\"}"}}]}, '
    '{"role": "tool", "tool_call_id": "call_\\udc80", "content": "' + "result \\udfff " * 400 + '"}, '
    '{"role": "assistant", "content": "done \\ud800"}, {"role": "user", "content": "next"}]'
)


@pytest.mark.parametrize("command", ["count", "validate", "inspect"])
@pytest.mark.parametrize("as_json", [False, True])
def test_a_lone_surrogate_is_shown_escaped(command: str, as_json: bool, tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(SURROGATE_DOC, encoding="ascii")
    code, out, err = run(command, str(path), *(["--json"] if as_json else []))
    assert code in (0, 1) and "Traceback" not in err and not err, err
    out.encode("utf-8")  # what the terminal gets is UTF-8: it crashed on the way out
    if as_json:
        parsed = json.loads(out)
        if command == "inspect":
            assert any("\ud800" in row["label"] for row in parsed["largest"])  # the same code point, escaped
    elif command == "inspect":
        assert "\\ud800" in out


def test_compact_keeps_lone_surrogates_escaped_through_a_compaction(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(SURROGATE_DOC, encoding="ascii")
    out = tmp_path / "out.json"
    code, report, err = run(
        "compact", str(path), "--window", "2000", "--force", "-o", str(out), "--workspace", str(tmp_path / "ws")
    )
    assert code == 0, err
    report.encode("utf-8")
    written = out.read_text(encoding="utf-8")  # UTF-8 on disk: the surrogates are escapes in the JSON
    messages = json.loads(written)
    assert messages[-1] == {"role": "user", "content": "next"}
    assert "\\ud800" in written or "\\udfff" in written


def test_prompt_extra_with_bytes_that_are_not_utf8_is_one_line(tmp_path: Path) -> None:
    # argv holds bytes that are not UTF-8 as lone surrogates (surrogateescape): b"\xff" arrives as "\udcff"
    code, out, err = run("prompt", str(tmp_path), "--extra", "ok", "--extra", "bad \udcff byte")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "--extra is not UTF-8 text: invalid byte 0xff" in line
    code, _, err = run("prompt", str(tmp_path), "--base", "\udcfe")
    assert code == 2 and "--base is not UTF-8 text: invalid byte 0xfe" in one_line(err)
