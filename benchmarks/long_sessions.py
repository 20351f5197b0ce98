"""Generated long coding-agent sessions: a stress set for one-shot compaction, beside the real corpus.

The dev corpus holds one agent kind per source and at most 292 messages; held-out transcripts are longer, name more
distinct paths than any fixed ledger budget holds, and come from agents whose tools and outputs look different.
This module writes sessions in the corpus line format (OpenAI chat messages, ``tools``, ``id``) for three tool
shapes, from a seed, deterministically (same seed, same bytes):

- ``bash``: one ``bash`` tool, results ``<returncode>N</returncode><output>...`` (mini-swe-agent style);
- ``editor``: ``execute_bash`` plus a ``str_replace_editor`` whose ``command`` is an enum (view, create,
  str_replace), results ending ``[The command completed with exit code N.]`` (OpenHands style);
- ``split``: ``Bash`` (``command``, ``description``), ``Read``/``Edit``/``Write`` (``file_path``), ``Grep`` and
  ``Glob``; numbered file views, ``Exit code N`` on failures only (Claude-Code-like tools).

A session is a fake repository (100 to 2,000 files, several roots) worked through in rounds: explore (``find``,
``grep -rn``, ``git status``), read files, edit them, run the tests (failures with tracebacks through library
paths), install packages (download URLs), start and stop a background job, commit; users add follow-up tasks that
name paths, issue numbers, URLs and constraints. Tool outputs are sized like real ones (tens to thousands of
lines), some far over any window.

    .venv/bin/python benchmarks/long_sessions.py --count 24 -o /tmp/long.jsonl
    .venv/bin/python benchmarks/bench_quality.py --one-shot-only --corpus /tmp/long.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

SHAPES = ("bash", "editor", "split")

_WORDS = (  # noqa: SIM905
    "config cache client server parser lexer token stream buffer engine worker queue task job batch model view "
    "router handler request response session store index schema field record table column query plan filter "
    "mapper reducer loader writer reader format codec encoder decoder signal event hook plugin registry util "
    "core base common compat backend frontend api cli main app io net http auth user admin report metrics "
    "trace log"
).split()
_LIB_ROOTS = ("/usr/lib/python3.11", "/usr/local/lib/python3.11/site-packages", "/opt/conda/lib/python3.10")
_LIBS = ("_pytest", "pluggy", "numpy", "requests", "urllib3", "django", "sqlalchemy", "attr", "click", "yaml")
_EXTS = (".py", ".py", ".py", ".py", ".pyi", ".toml", ".cfg", ".rst", ".md", ".json", ".yaml", ".txt", ".c", ".h")


class _Repo:
    """A fake repository: a root, files under a few top folders, tests beside them."""

    def __init__(self, rng: random.Random, size: int) -> None:
        name = f"{rng.choice(_WORDS)}{rng.choice(_WORDS)}"
        self.root = rng.choice(("/testbed", f"/workspace/{name}", f"/home/dev/src/{name}", f"/srv/{name}"))
        self.pkg = name
        files: list[str] = []
        tops = [f"src/{name}", "tests", "docs", "scripts", f"src/{name}/{rng.choice(_WORDS)}"]
        seen: set[str] = set()
        while len(files) < size:
            top = rng.choice(tops)
            depth = rng.randint(0, 2)
            parts = [top, *[rng.choice(_WORDS) for _ in range(depth)]]
            ext = ".py" if top in ("tests",) else rng.choice(_EXTS)
            stem = ("test_" if top == "tests" else "") + rng.choice(_WORDS) + rng.choice(("", "_", "s", "2"))
            path = "/".join(parts) + "/" + stem + ext
            if path not in seen:
                seen.add(path)
                files.append(path)
        self.files = files
        tests = [f for f in files if f.startswith("tests/")] or files[:3]
        code = [f for f in files if f.endswith(".py") and not f.startswith("tests/")] or files[:3]
        # The working set: agents come back to a few files; listings and tracebacks name many more.
        self.tests = rng.sample(tests, min(len(tests), rng.randint(3, 12)))
        self.code = rng.sample(code, min(len(code), rng.randint(6, 40)))
        self.libs = [f"{rng.choice(_LIB_ROOTS)}/{rng.choice(_LIBS)}/{rng.choice(_WORDS)}.py" for _ in range(30)]

    def abs(self, rel: str) -> str:
        return f"{self.root}/{rel}"


def _code_lines(rng: random.Random, repo: _Repo, n: int) -> list[str]:
    out: list[str] = []
    for i in range(n):
        r = rng.random()
        a, b = rng.choice(_WORDS), rng.choice(_WORDS)
        if r < 0.06:
            out.append(f"from {repo.pkg}.{a} import {b.title()}{rng.choice(_WORDS).title()}")
        elif r < 0.10:
            out.append(f"def {a}_{b}(self, {rng.choice(_WORDS)}=None):")
        elif r < 0.13:
            out.append(f"class {a.title()}{b.title()}({rng.choice(_WORDS).title()}):")
        elif r < 0.135:
            out.append(f'    DEFAULT_PATH = "{repo.abs(rng.choice(repo.files))}"')
        elif r < 0.2:
            out.append("")
        else:
            out.append(f"    {a} = self.{b}.{rng.choice(_WORDS)}({rng.choice(_WORDS)}, {i})")
    return out


def _numbered(lines: list[str], start: int = 1, sep: str = "\t") -> str:
    return "\n".join(f"{i:6d}{sep}{line}" for i, line in enumerate(lines, start))


def _traceback(rng: random.Random, repo: _Repo) -> list[str]:
    out = ["Traceback (most recent call last):"]
    for _ in range(rng.randint(3, 9)):
        lib = rng.choice(repo.libs) if rng.random() < 0.5 else repo.abs(rng.choice(repo.code))
        out.append(f'  File "{lib}", line {rng.randint(10, 2000)}, in {rng.choice(_WORDS)}')
        out.append(f"    {rng.choice(_WORDS)} = {rng.choice(_WORDS)}({rng.choice(_WORDS)})")
    kind = rng.choice(("AttributeError", "TypeError", "KeyError", "ValueError", "AssertionError"))
    out.append(f"{kind}: '{rng.choice(_WORDS)}' object has no attribute '{rng.choice(_WORDS)}'")
    return out


class _Session:
    def __init__(self, seed: int, shape: str, rounds: int, files: int) -> None:
        self.rng = random.Random(seed)
        self.shape = shape
        self.repo = _Repo(self.rng, files)
        self.rounds = rounds
        self.messages: list[dict[str, Any]] = []
        self.calls = 0
        self.seed = seed
        self.jobs = 0

    # -- tools ---------------------------------------------------------------------------------

    def tools(self) -> list[dict[str, Any]]:
        def fn(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
            params = {"type": "object", "properties": props, "required": required}
            return {"type": "function", "function": {"name": name, "description": f"{name} tool", "parameters": params}}

        s = {"type": "string"}
        if self.shape == "bash":
            return [fn("bash", {"command": s}, ["command"])]
        if self.shape == "editor":
            enum = {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]}
            editor = {"command": enum, "path": s, "old_str": s, "new_str": s, "file_text": s}
            return [fn("execute_bash", {"command": s}, ["command"]), fn("str_replace_editor", editor, ["command"])]
        return [
            fn("Bash", {"command": s, "description": s}, ["command"]),
            fn("Read", {"file_path": s, "offset": {"type": "integer"}}, ["file_path"]),
            fn("Edit", {"file_path": s, "old_string": s, "new_string": s}, ["file_path"]),
            fn("Write", {"file_path": s, "content": s}, ["file_path"]),
            fn("Grep", {"pattern": s, "path": s, "output_mode": s}, ["pattern"]),
            fn("Glob", {"pattern": s}, ["pattern"]),
        ]

    def call(self, name: str, args: dict[str, Any], output: str, rc: int, thought: str) -> None:
        self.calls += 1
        cid = f"call_{self.seed}_{self.calls:04d}"
        arguments = json.dumps(args, ensure_ascii=False)
        self.messages.append(
            {
                "role": "assistant",
                "content": thought,
                "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}],
            }
        )
        if self.shape == "bash":
            body = f"<returncode>{rc}</returncode>\n<output>\n{output}\n</output>"
        elif self.shape == "editor":
            body = output + (f"\n[The command completed with exit code {rc}.]" if name == "execute_bash" else "")
        else:
            body = (f"Exit code {rc}\n" if rc else "") + output
        self.messages.append({"role": "tool", "tool_call_id": cid, "content": body})

    def shell(self, command: str, output: str, rc: int = 0, thought: str = "") -> None:
        name = {"bash": "bash", "editor": "execute_bash", "split": "Bash"}[self.shape]
        args: dict[str, Any] = {"command": command}
        if self.shape == "split":
            args["description"] = thought[:60] or "run"
        self.call(name, args, output, rc, thought)

    # -- actions -------------------------------------------------------------------------------

    def explore(self) -> None:
        rng, repo = self.rng, self.repo
        sub = rng.choice(["src", "tests", "docs", f"src/{repo.pkg}"])
        listed = [f for f in repo.files if f.startswith(sub)]
        listed = listed[: rng.choice((10, 30, 80, 200))]
        if self.shape == "split" and rng.random() < 0.5:
            out = "\n".join(repo.abs(f) for f in listed)
            self.call("Glob", {"pattern": f"{sub}/**/*.py"}, out, 0, "Let me look at the layout.")
        else:
            out = "\n".join(f"./{f}" for f in listed)
            self.shell(f"cd {repo.root} && find {sub} -type f | head -{len(listed)}", out, 0, "Look at the layout.")

    def grep(self) -> None:
        rng, repo = self.rng, self.repo
        word = rng.choice(_WORDS)
        hits = []
        for _ in range(rng.choice((3, 10, 30, 80))):
            f = rng.choice(repo.files if rng.random() < 0.2 else repo.code)
            hits.append(f"{f}:{rng.randint(1, 900)}:    {word} = {rng.choice(_WORDS)}({rng.choice(_WORDS)})")
        if self.shape == "split" and rng.random() < 0.5:
            self.call("Grep", {"pattern": word, "path": repo.root, "output_mode": "content"}, "\n".join(hits), 0, "")
        else:
            self.shell(f'grep -rn "{word}" --include="*.py" src tests | head -200', "\n".join(hits), 0, "Search.")

    def read(self) -> str:
        rng, repo = self.rng, self.repo
        rel = rng.choice(repo.code if rng.random() < 0.8 else repo.files)
        lines = _code_lines(rng, repo, rng.choice((40, 120, 300)))
        if self.shape == "bash":
            start = rng.randint(1, 200)
            cmd = rng.choice((f"cat {rel}", f"sed -n '{start},{start + 80}p' {rel}", f"nl -ba {rel} | head -300"))
            self.shell(f"cd {repo.root} && {cmd}", "\n".join(lines), 0, "Read the code.")
        elif self.shape == "editor":
            out = f"Here's the result of running `cat -n` on {repo.abs(rel)}:\n" + _numbered(lines)
            self.call("str_replace_editor", {"command": "view", "path": repo.abs(rel)}, out, 0, "Read the code.")
        else:
            self.call("Read", {"file_path": repo.abs(rel)}, _numbered(lines, sep="→"), 0, "Read the code.")
        return rel

    def edit(self, rel: str) -> None:
        rng, repo = self.rng, self.repo
        old, new = f"{rng.choice(_WORDS)}.{rng.choice(_WORDS)}", f"{rng.choice(_WORDS)}.{rng.choice(_WORDS)}"
        if self.shape == "bash":
            if rng.random() < 0.6:
                self.shell(f"cd {repo.root} && sed -i 's/{old}/{new}/g' {rel}", "", 0, "Fix it.")
            else:
                body = "\n".join(_code_lines(rng, repo, 12))
                self.shell(f"cat <<'EOF' > {repo.root}/{rel}\n{body}\nEOF", "", 0, "Rewrite the file.")
        elif self.shape == "editor":
            path = repo.abs(rel)
            args = {"command": "str_replace", "path": path, "old_str": old, "new_str": new}
            snippet = _numbered(_code_lines(rng, repo, 9), rng.randint(1, 300))
            out = f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet:\n{snippet}"
            self.call("str_replace_editor", args, out, 0, "Fix it.")
        else:
            path = repo.abs(rel)
            self.call("Edit", {"file_path": path, "old_string": old, "new_string": new}, f"Updated {path}", 0, "Fix.")

    def test(self) -> None:
        rng, repo = self.rng, self.repo
        picked = rng.sample(repo.tests, min(len(repo.tests), rng.randint(1, 4)))
        failed = rng.random() < 0.55
        out = [
            "============================= test session starts ==============================",
            f"rootdir: {repo.root}",
        ]
        for t in picked:
            out.append(f"{t} {'.' * rng.randint(2, 30)}{'F' if failed else ''}")
        if failed:
            t = picked[0]
            out += ["", "=================================== FAILURES ===================================", ""]
            out += _traceback(rng, repo)
            out += [
                f"{t}:{rng.randint(5, 400)}: AssertionError",
                f"FAILED {t}::test_{rng.choice(_WORDS)} - AssertionError",
            ]
        out.append(
            f"=============== {'1 failed, ' if failed else ''}{rng.randint(3, 90)} passed in 1.2s ==============="
        )
        self.shell(f"cd {repo.root} && python -m pytest {' '.join(picked)} -q", "\n".join(out), int(failed), "Test.")

    def install(self) -> None:
        rng = self.rng
        lines = []
        for _ in range(rng.randint(3, 12)):
            pkg = rng.choice(_LIBS).lstrip("_")
            h = "".join(rng.choice("0123456789abcdef") for _ in range(2))
            lines.append(f"Collecting {pkg}")
            wheel = f"{pkg}-{rng.randint(1, 9)}.0-py3-none-any.whl"
            lines.append(f"  Downloading https://files.pythonhosted.org/packages/{h}/{h}/{wheel}")
        lines.append("Successfully installed " + " ".join(sorted({line.split()[-1] for line in lines[::2]})))
        self.shell(f"cd {self.repo.root} && pip install -e .[test]", "\n".join(lines), 0, "Install.")

    def job(self) -> None:
        self.jobs += 1
        pid = self.rng.randint(2000, 60000)
        self.shell(
            f"cd {self.repo.root} && nohup python -m {self.repo.pkg}.server --port 80{self.jobs:02d}"
            f" > /tmp/server{self.jobs}.log 2>&1 &",
            f"[{self.jobs}] {pid}",
            0,
            "Start the server in the background.",
        )
        self.shell(f"curl -s localhost:80{self.jobs:02d}/health", '{"status": "ok"}', 0, "Check it.")
        if self.rng.random() < 0.5:
            self.shell(f"kill {pid}", "", 0, "Stop it.")

    def git(self) -> None:
        rng, repo = self.rng, self.repo
        changed = rng.sample(repo.files, min(len(repo.files), rng.randint(1, 8)))
        if rng.random() < 0.5:
            out = "On branch main\nChanges not staged for commit:\n" + "\n".join(f"\tmodified:   {f}" for f in changed)
            self.shell(f"cd {repo.root} && git status", out, 0, "Check the state.")
        else:
            diff = []
            for f in changed:
                diff += [f"diff --git a/{f} b/{f}", f"--- a/{f}", f"+++ b/{f}", "@@ -1,4 +1,4 @@"]
                diff += [f"-{line}" for line in _code_lines(rng, repo, 2)] + [
                    f"+{line}" for line in _code_lines(rng, repo, 2)
                ]
            self.shell(f"cd {repo.root} && git diff", "\n".join(diff), 0, "Review the diff.")

    def user(self, first: bool) -> None:
        rng, repo = self.rng, self.repo
        f1, f2 = rng.choice(repo.code), rng.choice(repo.tests)
        issue = rng.randint(100, 9999)
        text = (
            f"{'Please fix' if first else 'Next: also fix'} issue #{issue} "
            f"(https://github.com/example/{repo.pkg}/issues/{issue}): `{rng.choice(_WORDS)}` breaks in {f1} "
            f"when {rng.choice(_WORDS)} is empty; {f2} reproduces it."
        )
        if rng.random() < 0.5:
            text += f" Do not modify {rng.choice(repo.tests)}."
        self.messages.append({"role": "user", "content": text})

    def run(self) -> dict[str, Any]:
        rng = self.rng
        self.messages.append(
            {"role": "system", "content": "You are a coding agent. Use the tools to work on the repository."}
        )
        self.user(True)
        for r in range(self.rounds):
            if r and rng.random() < 0.15:
                self.user(False)
            for _ in range(rng.randint(1, 2) if r < 3 else int(rng.random() < 0.1)):
                self.explore()
            for _ in range(rng.randint(0, 1)):
                self.grep()
            read = [self.read() for _ in range(rng.randint(1, 3))]
            for rel in read:
                if rng.random() < 0.5:
                    self.edit(rel)
            self.test()
            if rng.random() < 0.1:
                self.install()
            if rng.random() < 0.1:
                self.job()
            if rng.random() < 0.3:
                self.git()
        self.messages.append({"role": "assistant", "content": "Done: the fix is in place and the tests pass."})
        return {
            "id": f"generated/{self.shape}/{self.seed}",
            "source": "benchmarks/long_sessions.py",
            "agent": f"generated ({self.shape} tools)",
            "tools": self.tools(),
            "messages": self.messages,
        }


def session(seed: int, shape: str | None = None, rounds: int | None = None, files: int | None = None) -> dict[str, Any]:
    """One generated session (a corpus line as a dict); the seed picks whatever is not given."""
    rng = random.Random(seed * 7919 + 1)
    shape = shape or SHAPES[seed % len(SHAPES)]
    rounds = rounds if rounds is not None else rng.choice((15, 30, 50, 80))
    files = files if files is not None else rng.choice((80, 200, 500, 1200))
    return _Session(seed, shape, rounds, files).run()


def sessions(count: int, first_seed: int = 0) -> list[dict[str, Any]]:
    """``count`` sessions, seeds ``first_seed`` on; the shapes rotate."""
    return [session(seed) for seed in range(first_seed, first_seed + count)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    with open(args.output, "w", encoding="utf-8") as fh:
        for conv in sessions(args.count, args.seed):
            fh.write(json.dumps(conv, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
