"""The facts ledger: the verbatim facts a later turn needs, carried from summary to summary.

Summaries lose exactly what an agent needs later: file paths, the commands it
ran and how they ended, ids, error lines and the rules the user set. The
ledger pulls those out of the messages being compacted with fixed rules (no
model), and is attached verbatim after whatever summary is produced. It is
written in a line format that `parse_ledger` reads back, so the next
compaction merges the previous ledger into the new one: facts survive any
number of compactions until the token cap forces some out.

When not every fact fits, priorities decide (`PRIORITIES`, `Fact.priority`,
newest first within one): the user's rules; identifiers the user or the agent
named and job-style ids; paths a call edited and commands that failed; the
other commands, named paths and URLs of output; last, paths seen only in tool
output and error lines. Where a fact was found (`Fact.origin`: named, edited,
output) shows in its line, so priorities survive the text (a file round trip,
a restarted process). The ledger is written densely: paths packed several to
a line (``- files:``, ``- edited:``, ``- seen:``), commands listed under one
head per exit status (``- cmd [exit 1]:``, then one indented command per
line), and a path already named inside another fact shown gets no line.

Heuristics (documented because they decide what survives):

* paths: absolute paths with at least two components, and relative paths
  with a slash and a file extension (``src/app.py``); URLs are not paths;
  edited: the path argument of a write (an editor's ``create``/``str_replace``,
  a tool named like write/edit/patch), a ``>``/``>>`` or ``tee`` target and the
  paths of a ``sed -i``/``perl -i`` step;
* commands: the ``command``/``cmd`` string argument of a tool call (first
  line), unless the tool is an editor whose ``command`` is a sub-command
  (``view``, ``str_replace``, ...); the exit status comes from the result:
  ``<returncode>N</returncode>`` (mini-swe-agent), ``exit code N``,
  ``Exit code: N``, ``exited with code N``;
* identifiers: issue/PR numbers (``#123``), URLs, commit hashes (7-40 hex
  digits mixing letters and digits, in text written by the user or the
  assistant, in commands and after ``commit``), task/job/run ids
  (``job 42``, ``task_id=abc``) and the values of ``*_id``/``id`` arguments;
* errors: lines of tool results that look like an error (``FooError: ...``,
  ``error: ...``, ``FAILED ...``, ``fatal: ...``, ``Traceback``);
* constraints: sentences of real user messages containing "do not", "don't",
  "never", "always", "must", "make sure" or "only".

Every regular expression is compiled once and linear (no nested
quantifiers), and each text is scanned at most once per rule.

Cost: extraction runs on every compaction, over every message it compacts,
so it is kept cheap three ways. A text longer than ``MAX_SCAN_CHARS`` is
scanned on its head and tail only (a 200 KB tool output yields more facts
than any cap keeps, and its first and last lines say the most), and the two
rules of tool output that start from common words (job ids, error lines) read
only its first and last few thousand characters (``RESULT_WORDS_CHARS``); a rule runs
only when a plain substring test says it can match (no ``/``: no path, no
``://``: no URL), and commit hashes are tried only where a run of seven hex
digits starts; and the facts of a message are cached by identity
(messages are immutable), so a message is scanned once however many
compactions and tiers look at it. Three rules are searched for their
keywords first (with ``str.find``, several times faster than a regex
alternation) and run only there (job ids: where ``task``, ``job``, ... start;
error lines: lines holding ``Error``, ``FAIL``, ...; exit statuses: texts
holding ``exit`` or ``<returncode>`` in any case), with the same results as running them
everywhere (property-tested). A ledger line's token cost is cached, and a
ledger rendered by this process is not parsed again when it is read back;
its facts' costs are remembered with it, so the next compaction sizes and
merges only what is new since that summary instead of the whole ledger again
(both property-tested against the plain rules).

Commands are kept verbatim (only their surrounding whitespace is stripped):
``sed -i 's/    x/y/'`` with its spaces is the command, and collapsing them
lost a tenth of the commands on the dev corpus. Facts that the cap leaves
out can be carried to the next compaction (`ledger_with_overflow`,
`OVERFLOW_META_KEY`).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeAlias, assert_never

from contextfold._lazy import Once, lazy_pattern
from contextfold._markers import LEDGER_OVERFLOW_KEY, is_summary
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens._counting import TokenCounter
from contextfold.compaction._boundaries import is_real_user

__all__ = [
    "LEDGER_HEADER",
    "OVERFLOW_META_KEY",
    "Fact",
    "FactKind",
    "Ledger",
    "extract_facts",
    "ledger_for",
    "ledger_size",
    "ledger_with_overflow",
    "line_cost",
    "output_fact_lines",
    "parse_ledger",
    "without_ledger",
]

FactKind: TypeAlias = Literal["rule", "file", "cmd", "id", "error"]
KINDS: tuple[FactKind, ...] = ("rule", "file", "cmd", "id", "error")
LEDGER_HEADER = "Facts ledger (verbatim from the archived messages, newest first):"
"""First line of a rendered ledger; `parse_ledger` looks for it."""

OVERFLOW_META_KEY = LEDGER_OVERFLOW_KEY
"""``meta`` key of a summary message: the rendered lines of the facts its ledger's cap left out (never sent).

A compaction with little room (a large latest turn) must cut the ledger; the facts it cut are carried here, so
the next compaction, with more room, can bring them back instead of losing them for good."""
MAX_OVERFLOW_FACTS = 1024
"""At most this many left-out facts are carried (newest first), so the carry stays bounded."""

MAX_VALUE_CHARS = 240
"""A fact longer than this is cut (an error line can be very long)."""
MAX_COMMAND_CHARS = 160
"""A command's first line is cut here: its start says what ran, and a long ``sed -i`` should not crowd out others."""
MAX_ERRORS_PER_RESULT = 3
MAX_RULES_PER_MESSAGE = 8
MAX_SCAN_CHARS = 16_000
"""A longer text is scanned on its first ``SCAN_HEAD_CHARS`` and last ``MAX_SCAN_CHARS - SCAN_HEAD_CHARS``."""
SCAN_HEAD_CHARS = 12_000
RESULT_WORDS_CHARS = 4_000
"""Job ids and error lines of a tool result are looked for in its first ``RESULT_WORDS_HEAD_CHARS`` and the rest of
this many from its end: they are found by common words (run, process, session, error), which a long output holds
thousands of times, and a job is named where it starts or ends and a traceback ends the output. The literal rules
(paths, URLs, issue numbers) read the whole ``MAX_SCAN_CHARS``."""
RESULT_WORDS_HEAD_CHARS = 1_500
FACT_CACHE_SIZE = 8_192
"""Messages whose facts are remembered (by identity; least recently used forgotten first)."""

_URL = lazy_pattern(r"https?://[^\s<>\"'`)\]}]+")
_ABS_PATH = lazy_pattern(
    r"~(?<![\w.:/~-]~)(?:/[\w.@+-]+){2,}/?"
    r"|\.(?<![\w.:/~-]\.)\.?(?:/[\w.@+-]+){2,}/?"
    r"|/(?<![\w.:/~-]/)[\w.@+-]+(?:/[\w.@+-]+)+/?"
)
r"""An absolute, home or dot-relative path: ``(?<![\w.:/~-])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?`` (the same matches),
written as three branches that each open with their literal first character, so the regex engine skips straight to
a ``~``, ``.`` or ``/`` instead of trying the look-behind at every position (twice as fast on tool output); each
branch's look-behind, two characters wide, checks the character before that first one."""
_REL_PATH = lazy_pattern(r"(?<![\w./:~-])(?=[\w.@+-]+/)[\w.@+-]+(?:/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}\b")
"""A relative path with an extension; the look-ahead (a ``/`` after the first run, which every match has) rejects a
plain word before the backtracking search for the rest starts (the same matches, a quarter faster)."""
_REL_PATH_ASCII = Once(lambda: _re2_compile(r"(?:^|[^\w./:~-])([\w.@+-]+(?:/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}\b)"))
"""Where `_REL_PATH` first matches in ASCII text, in RE2: linear, without Python's per-position loop (a tenth of
the time on tool output, and most tool output holds no relative path). RE2 has no look-behind, so the character
before a match is consumed instead (or the match starts the text) and the path is group 1. The same first match: a
match ends in a letter or digit, which the look-behind excludes, so the character before the next match is never
part of the previous one. ASCII text only: RE2's ``\\w`` and ``\\b`` are ASCII, Python's Unicode. The look-ahead
is dropped: every match has a ``/`` after its first run (it only sped Python's search up). Python's search then
starts at that match (its look-behind still reads the character before)."""
_ISSUE = lazy_pattern(r"(?<![\w&/#])#(\d{1,7})\b")
_HASH = lazy_pattern(r"(?<![\w/.-])[0-9a-f]{7,40}(?![\w/-])")
_HEX_RUN = lazy_pattern(r"[0-9a-f][0-9a-f]{6,}")
"""Runs of 7 or more hex digits: where `_HASH` can match (see `_hashes`)."""
_COMMIT = lazy_pattern(r"\bcommit\s+([0-9a-f]{7,40})\b")
_JOB = lazy_pattern(
    r"\b(?:task|job|run|process|pid|session|build|ticket|request|reservation|order|booking)"
    r"(?:[ _-]?id)?\s*(?:[:=#]\s*|\s)([A-Za-z0-9][\w-]{1,63})\b",
    re.IGNORECASE,
)
_JOB_LOWER = lazy_pattern(_JOB.pattern)
"""`_JOB` without IGNORECASE, for lower-cased ASCII text."""
_ASCII_DIGIT = lazy_pattern("[0-9]")
_JOB_WORDS = (
    "task", "job", "run", "process", "pid", "session", "build", "ticket", "request", "reservation", "order", "booking"
)  # fmt: skip
"""Where a `_JOB` match can start, lower-cased (see `_job_matches`)."""
_JOB_WORD = Once(lambda: _re2_compile("|".join(_JOB_WORDS)))
"""Any of `_JOB_WORDS`, in RE2 (see `_word_starts`)."""
_FOLD_ODD = lazy_pattern("[\u0130\u0131\u017f]")
"""The characters IGNORECASE matches to an ASCII letter that ``str.lower`` does not lower to it (İ, ı, ſ)."""
_EXIT = lazy_pattern(
    r"<returncode>\s*(-?\d+)\s*</returncode>|\bexit(?:ed with)?(?: status| code)?[:= ]\s*(-?\d+)\b",
    re.IGNORECASE,
)
_ERROR_LINE = lazy_pattern(
    r"^\s*(?:E\s+)?(?:[A-Za-z_][\w.]*(?:Error|Exception|Failure)\b.*"
    r"|(?:error|fatal|FAILED|FAIL|ERROR)\b[:\s].*|Traceback \(most recent call last\).*)$"
)
_ERROR_WORDS = ("Error", "Exception", "Failure", "error", "fatal", "FAIL", "ERROR", "Traceback")
"""Every line `_ERROR_LINE` accepts holds one of these (see `_error_lines`)."""
_ERROR_WORDS_LOWER = ("error", "exception", "fail", "fatal", "traceback")
"""`_ERROR_WORDS` lower-cased and merged: where they start in a text, its lower-cased copy holds one of these."""
_ERROR_WORD_LOWER = Once(lambda: _re2_compile("|".join(_ERROR_WORDS_LOWER)))
"""Any of `_ERROR_WORDS_LOWER`, in RE2 (see `_word_starts`)."""
_LINE_BREAK = lazy_pattern("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Every line break of `str.splitlines`."""
_ODD_BREAK = lazy_pattern("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Line breaks of `str.splitlines` other than the newline."""
_RULE_WORDS = lazy_pattern(r"\b(?:do not|don't|never|always|must|make sure|only)\b", re.IGNORECASE)
_SENTENCE_END = lazy_pattern(r"(?<=[.!?])\s+|\n+")
_LINE = lazy_pattern(r"^- (rule|file|cmd|id|error|edited|files|seen)(?: \[exit (-?\d+)\])?:(?: (.*))?$")
_EDITOR_SUBCOMMANDS = frozenset({"view", "create", "str_replace", "insert", "undo_edit", "write", "edit", "read"})
_ID_KEY = lazy_pattern(r"(?:^|_)id$", re.IGNORECASE)
_JOB_STOP = frozenset({"the", "a", "an", "is", "was", "of", "to", "in", "for", "and", "it", "id", "with", "on"})


Origin: TypeAlias = Literal["named", "edited", "output"]
"""Where a fact was found: ``named`` by the user or the agent (text, tool-call arguments), a path ``edited`` by a
tool call (an editor's write, ``sed -i``, a ``>`` redirect), or only in tool ``output`` (a listing, a traceback)."""

PRIORITIES: tuple[str, ...] = (
    "rules the user set",
    "identifiers named by the user or the agent, job-style ids (job 42, pid 4242) anywhere, and short identifiers"
    " (#123, commit hashes) of tool output",
    "paths edited by a tool call, and commands that failed (non-zero exit status)",
    "the other commands, paths named by the user or the agent (in text or tool-call arguments), and URLs of tool"
    " output",
    "paths seen only in tool output, and error lines",
)
"""What a ledger keeps first when not every fact fits (`Fact.priority` is the index), newest first within each."""


_GROUP_HEADS = {"edited": "- edited:", "files": "- files:", "seen": "- seen:"}
"""Heads of the packed lines: paths edited by a call, other paths named, paths and identifiers seen in output."""
_GROUP_ORDER = ("edited", "files", "seen")
PACK_CHARS = 200
"""A packed line holds values up to about this many characters (a value longer than that gets a line alone)."""
_BLOCK_INDENT = "  "
"""Commands of one exit status are listed under one head (``- cmd [exit 0]:``), one per line, indented so."""


@dataclass(frozen=True)
class Fact:
    """One fact: its kind, its verbatim value and, for a command, its exit status when known.

    ``origin`` says where it was found; it sets `priority` and shows in the line of a path or an identifier
    (``- edited: x`` for an edited path, ``- seen: x`` for a path or an identifier only seen in tool output), so
    that the next compaction reads it back; it is not part of the identity.
    """

    kind: FactKind
    value: str
    exit: int | None = None
    origin: Origin = field(default="named", compare=False)

    # Not slotted, so that `key` and `line` can be cached on the instance (they are not dataclass fields): the same
    # facts are sized, deduplicated and rendered again at every compaction.
    @cached_property
    def key(self) -> tuple[str, str]:
        """Identity for deduplication (the exit status of a command is an attribute, not identity)."""
        return (self.kind, self.value)

    @cached_property
    def line(self) -> str:
        """The fact's own ledger line (`render`); listed with others of its group when a ledger is rendered."""
        group = self.group
        if group in _GROUP_HEADS:
            return f"- file: {self.value}" if group == "files" else f"{_GROUP_HEADS[group]} {self.value}"
        status = f" [exit {self.exit}]" if self.exit is not None else ""
        return f"- {self.kind}{status}: {self.value}"

    @cached_property
    def group(self) -> str | None:
        """The shared line or block the fact is listed in when a ledger is rendered; ``None``: a line of its own.

        Paths and identifiers of output are packed on lines of their group (``edited``, ``files``, ``seen``),
        separated by spaces; commands are listed under the head of their exit status (the group is that head).
        Only what reads back as the same fact is grouped: a value without whitespace (a packed line is split on
        whitespace), a ``seen`` value that is a path exactly when it holds a slash and no ``://``, a command
        without surrounding whitespace.
        """
        kind = self.kind
        value = self.value
        if kind == "cmd":
            if not value or value != value.strip() or _LINE_BREAK.search(value) is not None:
                return None
            return f"- cmd [exit {self.exit}]:" if self.exit is not None else "- cmd:"
        if kind not in ("file", "id") or self.exit is not None:
            return None
        if not value or len(value.split(maxsplit=1)) != 1 or value.split(maxsplit=1)[0] != value:
            return None
        origin = self.origin
        if kind == "file":
            if origin == "edited":
                return "edited"
            if origin == "named":
                return "files"
            return "seen" if "/" in value and "://" not in value else None
        if origin == "output" and ("/" not in value or "://" in value):
            return "seen"
        return None

    @cached_property
    def carried(self) -> Fact:
        """The fact as its line reads back (an origin a line cannot show is read back as ``named``)."""
        if self.origin == "named" or self.group in ("edited", "seen"):
            return self
        return Fact(self.kind, self.value, self.exit)

    @cached_property
    def priority(self) -> int:
        """Which facts a tight ledger keeps first (0 first; see `PRIORITIES`)."""
        kind = self.kind
        if kind == "rule":
            return 0
        if kind == "cmd":
            return 2 if self.exit else 3
        if kind == "error":
            return 4
        origin = self.origin
        if kind == "id":
            return 3 if origin == "output" and "://" in self.value else 1
        return 2 if origin == "edited" else 4 if origin == "output" else 3

    def render(self) -> str:
        """One ledger line."""
        return self.line


@dataclass(frozen=True, slots=True)
class Ledger:
    """Facts, newest first, deduplicated."""

    facts: tuple[Fact, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.facts)

    def values(self, kind: FactKind) -> list[str]:
        """The values of one kind, newest first."""
        return [f.value for f in self.facts if f.kind == kind]

    def merge(self, older: Ledger) -> Ledger:
        """The facts of this (newer) ledger, then those of the facts of ``older`` it does not already hold."""
        return Ledger(_dedupe([*self.facts, *older.facts]))

    def ordered(self) -> list[Fact]:
        """Rules, then identifiers, then everything else newest first: the order in which facts are rendered.

        Which facts survive a tight cap is decided by `Fact.priority` (`by_priority`); the ones kept are shown
        in this order.
        """
        rules: list[Fact] = []
        ids: list[Fact] = []
        rest: list[Fact] = []
        for fact in self.facts:  # one pass, each kind's facts kept in order
            kind = fact.kind
            if kind == "rule":
                rules.append(fact)
            elif kind == "id":
                ids.append(fact)
            else:
                rest.append(fact)
        return rules + ids + rest

    def by_priority(self) -> list[Fact]:
        """`ordered`, stably sorted by `Fact.priority`: the order in which facts survive the cap."""
        return sorted(self.ordered(), key=_priority)

    def render(self, counter: TokenCounter | None = None, max_tokens: int | None = None) -> str:
        """The ledger text within ``max_tokens``, keeping facts by `Fact.priority`; empty when none fit."""
        return self.render_with_rest(counter, max_tokens)[0]

    def render_with_rest(
        self, counter: TokenCounter | None = None, max_tokens: int | None = None
    ) -> tuple[str, tuple[Fact, ...]]:
        """`render`, plus the facts the cap left out (by priority), for `OVERFLOW_META_KEY`.

        Facts are taken by priority, newest first within one (`by_priority`), each when it fits what is left
        (a shorter, lower one may still fit after a long one did not). A path already named verbatim inside
        another fact taken (a command, an error line, a longer path) needs no line of its own: it is skipped, and
        after the first pass the paths that later facts came to name are dropped and their room refilled once.
        The facts taken are shown in `ordered` order, paths and identifiers of output packed several to a line
        (`Fact.group`) after the other lines.
        """
        facts = self.ordered()
        if not facts:
            return "", ()
        if counter is None or max_tokens is None:
            return _assemble(facts), ()
        used = line_cost(counter, LEDGER_HEADER)
        if used > max_tokens:
            return "", tuple(sorted(facts, key=_priority))
        order = sorted(range(len(facts)), key=lambda i: _priority(facts[i]))
        cost_of = _piece_costs(counter, facts)
        taken = [False] * len(facts)
        named = [False] * len(facts)  # a file named inside another fact taken
        files = [fact.kind == "file" for fact in facts]
        shown = _Names({fact.value for fact, file in zip(facts, files, strict=True) if file})
        layout = _Layout(counter)

        def take(i: int) -> None:
            nonlocal used
            fact = facts[i]
            if files[i] and shown.count(fact.value, 1):
                named[i] = True
                return
            cost = cost_of[i] + layout.head_cost(fact)
            if used + cost > max_tokens:
                return
            layout.add(fact)
            taken[i] = True
            used += cost
            shown.add(fact.value)

        for i in order:
            take(i)
        # Files taken early may be named by facts taken after them: they go, and the room refills once.
        retaken = _drop_named_files(counter, facts, order, taken, named, files, cost_of, shown)
        if retaken is not None:
            shown, layout, used = retaken
            for i in order:
                if not taken[i] and not named[i]:
                    take(i)
        text, trimmed = _trim_to_fit(counter, facts, order, taken, max_tokens)
        if trimmed:  # a path named only by a fact taken back is left out, not lost
            shown = shown.of([facts[i].value for i in order if taken[i]])
            for i in order:
                if named[i] and not shown.count(facts[i].value, 1):
                    named[i] = False
        rest = [facts[i] for i in order if not taken[i] and not named[i]]
        if not text:
            return "", tuple(rest)
        _remember_shown(counter, text, [facts[i] for i in range(len(facts)) if taken[i]])
        return text, tuple(rest)


def _drop_named_files(
    counter: TokenCounter,
    facts: Sequence[Fact],
    order: Sequence[int],
    taken: list[bool],
    named: list[bool],
    files: Sequence[bool],
    cost_of: Sequence[int],
    shown: _Names,
) -> tuple[_Names, _Layout, int] | None:
    """Take back the files taken that facts taken after them name (they become ``named``); None when there are none.

    Returns the names, the layout and the tokens used by the facts still taken, to refill the room from.
    """
    dropped = [i for i in order if taken[i] and files[i] and shown.count(facts[i].value, 2)]
    if not dropped:
        return None
    for i in dropped:
        taken[i] = False
        named[i] = True
    shown = shown.of([facts[i].value for i in order if taken[i]])
    layout = _Layout(counter)
    used = line_cost(counter, LEDGER_HEADER)
    for i in order:
        if taken[i]:
            used += cost_of[i] + layout.head_cost(facts[i])
            layout.add(facts[i])
    return shown, layout, used


def _piece_costs(counter: TokenCounter, facts: Sequence[Fact]) -> list[int]:
    """Tokens of each fact's `_piece`: its own line, or its piece of a group's line or block."""
    costs = _line_costs(counter)
    cost_of: list[int] = []
    for fact in facts:
        piece = _piece(fact)
        cost = costs.get(piece)  # `_piece_cost`, with the cache read inline: this runs for every fact
        cost_of.append(cost if cost is not None else _piece_cost(counter, piece))
    return cost_of


def _trim_to_fit(
    counter: TokenCounter, facts: Sequence[Fact], order: Sequence[int], taken: list[bool], max_tokens: int
) -> tuple[str, bool]:
    """The text of the facts ``taken`` (empty when none is), after taking back the last-taken ones until it fits.

    The estimate lays lines out in the order facts were taken, the text in `ordered` order, and a counter need
    not be additive: rarely does a fact have to go. Returns the text and whether any did (``taken`` is updated).
    """
    taken_order = [i for i in order if taken[i]]
    trimmed = False
    while True:
        text = _assemble([facts[i] for i in range(len(facts)) if taken[i]])
        if not taken_order or sum(line_cost(counter, line) for line in text.split("\n")) <= max_tokens:
            break
        taken[taken_order.pop()] = False
        trimmed = True
    return (text if taken_order else ""), trimmed


def _remember_shown(counter: TokenCounter, text: str, shown: Sequence[Fact]) -> None:
    """Remember the facts ``text`` shows, as it reads back, with the cost of each one's own line.

    That is what `ledger_size` needs when this summary is compacted again (grouped, the text costs less, so the
    sum is an upper bound).
    """
    shown_facts = _read_order(shown)
    shown_costs: dict[tuple[str, str], int] = {}
    for fact in shown_facts:
        if fact.key not in shown_costs:
            shown_costs[fact.key] = line_cost(counter, fact.line)
    _remember_rendered(text, _dedupe(shown_facts), (counter.key, (sum(shown_costs.values()), shown_costs)))


def _piece(fact: Fact) -> str:
    """What a fact adds to the text: its own line, its value on a packed line (`` value``) or in a block."""
    group = fact.group
    if group is None:
        return fact.line
    if group in _GROUP_HEADS:
        return " " + fact.value
    return _BLOCK_INDENT + fact.value


def _piece_cost(counter: TokenCounter, piece: str) -> int:
    """Tokens of a `_piece` (a line or a block's line: plus its newline; a packed value: its space), cached."""
    costs = _line_costs(counter)
    cost = costs.get(piece)
    if cost is None:
        if len(costs) >= LINE_COST_CACHE_SIZE:
            costs.clear()
        cost = costs[piece] = counter.count_text(piece) + (0 if piece[:1] == " " and piece[1:2] != " " else 1)
    return cost


class _Layout:
    """Which heads the grouped facts taken so far need: one per block, one per packed line (`PACK_CHARS` wide)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.widths: dict[str, int] = {}

    def head_cost(self, fact: Fact) -> int:
        """Tokens of the head ``fact`` opens (0 when it joins an open line or block)."""
        group = fact.group
        if group is None:
            return 0
        width = self.widths.get(group)
        if group in _GROUP_HEADS:
            if width is not None and width + 1 + len(fact.value) <= PACK_CHARS:
                return 0
            return line_cost(self.counter, _GROUP_HEADS[group])
        return 0 if width is not None else line_cost(self.counter, group)

    def add(self, fact: Fact) -> None:
        group = fact.group
        if group is None:
            return
        width = self.widths.get(group)
        if group not in _GROUP_HEADS:
            self.widths[group] = 0
        elif width is not None and width + 1 + len(fact.value) <= PACK_CHARS:
            self.widths[group] = width + 1 + len(fact.value)
        else:
            self.widths[group] = len(fact.value)


def _grouped(facts: Iterable[Fact]) -> tuple[list[Fact], list[tuple[str, list[Fact]]]]:
    """The facts with a line of their own (in order), then the blocks (by first fact) and the packed lines."""
    alone: list[Fact] = []
    blocks: dict[str, list[Fact]] = {}
    lines: dict[str, list[list[Fact]]] = {group: [] for group in _GROUP_ORDER}
    widths = dict.fromkeys(_GROUP_ORDER, PACK_CHARS)
    for fact in facts:
        group = fact.group
        if group is None:
            alone.append(fact)
        elif group not in _GROUP_HEADS:
            blocks.setdefault(group, []).append(fact)
        else:
            width = widths[group] + 1 + len(fact.value)
            if width > PACK_CHARS:
                lines[group].append([fact])
                width = len(fact.value)
            else:
                lines[group][-1].append(fact)
            widths[group] = width
    out = list(blocks.items())
    out += [(group, line) for group in _GROUP_ORDER for line in lines[group]]
    return alone, out


def _assemble(facts: Sequence[Fact]) -> str:
    """The ledger text of ``facts`` (in `ordered` order): the header, lines of their own, blocks, packed lines."""
    alone, groups = _grouped(facts)
    out = [LEDGER_HEADER, *(fact.line for fact in alone)]
    for group, members in groups:
        if len(members) == 1:
            out.append(members[0].line)
        elif group in _GROUP_HEADS:
            out.append(_GROUP_HEADS[group] + "".join(" " + fact.value for fact in members))
        else:
            out.append(group)
            out.extend(_BLOCK_INDENT + fact.value for fact in members)
    return "\n".join(out)


def _read_order(facts: Sequence[Fact]) -> list[Fact]:
    """``facts`` in the order the text `_assemble` writes for them reads back, as they read back."""
    alone, groups = _grouped(facts)
    out = [fact.carried for fact in alone]
    for _, members in groups:
        out.extend([fact.carried for fact in members])
    return out


def _priority(fact: Fact) -> int:
    return fact.priority


def _path_char(char: str) -> bool:
    return char.isalnum() or char in "_.@+-"


_PATH_RUN = lazy_pattern(r"[\w.@+\-/]+")
"""Runs of path characters and slashes: a path named inside a value is a slash-aligned piece of one (`_Names`)."""


class _Names:
    """How often each of some paths (``wanted``) is named, as a whole path, inside the values added so far.

    A path (path characters and slashes only) is named at a boundary where it is a piece of a run of such
    characters that starts at the run's start or after a slash and ends at the run's end or before a slash
    (`_named`). The index counts the pieces that end where the run ends (the run itself, ``src/a.py`` in
    ``/repo/src/a.py``: a path inside a command or a longer path): a few per value, so a lookup is a dictionary
    read instead of a scan of everything shown. A path named only as a directory (``src`` in ``src/a.py``) is not
    counted, so it keeps a line of its own: the index can miss a name, never invent one. A wanted value with other
    characters (never extracted; a ledger built by hand) is looked for in the joined text.
    """

    def __init__(self, wanted: set[str]) -> None:
        self.plain = {value for value in wanted if _PATH_RUN.fullmatch(value) is not None}
        self.counts: dict[str, int] = {}
        self.values: list[str] = []

    def of(self, values: Iterable[str]) -> _Names:
        """A fresh index, for the same paths, of ``values``."""
        names = _Names.__new__(_Names)
        names.plain, names.counts, names.values = self.plain, {}, []
        for value in values:
            names.add(value)
        return names

    def add(self, value: str) -> None:
        self.values.append(value)
        if "/" not in value and value not in self.plain:
            return  # no wanted path with a slash fits in it (one without is only matched whole)
        plain, counts = self.plain, self.counts
        for run in _PATH_RUN.findall(value):
            if run in plain:
                counts[run] = counts.get(run, 0) + 1
            at = run.find("/")
            while at >= 0:
                tail = run[at + 1 :]
                if tail in plain:
                    counts[tail] = counts.get(tail, 0) + 1
                at = run.find("/", at + 1)

    def count(self, value: str, times: int) -> bool:
        """Whether ``value`` is named at least ``times`` times (a plain path: as the end of a run)."""
        if value in self.plain:
            return self.counts.get(value, 0) >= times
        return _named("".join("\n" + v for v in self.values), value, times)


def _named(text: str, value: str, times: int) -> bool:
    """Whether ``value`` occurs ``times`` times in ``text`` as a whole path (not inside a longer name).

    An occurrence counts when the characters around it are not path characters (a ``/`` is not one: ``src/a.py``
    is named by ``/repo/src/a.py``, ``/a.py`` is not named by ``/x/a.pyc`` or ``/x/a.py``'s sibling ``/xa.py``).
    """
    if not value:
        return False
    found = 0
    start = text.find(value)
    size = len(value)
    while start >= 0:
        end = start + size
        if (start == 0 or not _path_char(text[start - 1])) and (end == len(text) or not _path_char(text[end])):
            found += 1
            if found >= times:
                return True
        start = text.find(value, start + 1)
    return False


_Costs: TypeAlias = tuple[int, dict[tuple[str, str], int]]
"""Summed line cost of distinct facts, and the cost per fact key (for one counter)."""

_LINE_COSTS: dict[str, dict[str, int]] = {}
"""Cost of a ledger line, by counter key, then line (keyed by the line alone, no key tuple is built per lookup)."""
LINE_COST_CACHE_SIZE = 65_536
"""Ledger lines whose token cost is remembered per counter key; that counter's cache is dropped when full."""


def _line_costs(counter: TokenCounter) -> dict[str, int]:
    """The line costs cached for ``counter`` (read directly where every fact of a ledger is sized)."""
    costs = _LINE_COSTS.get(counter.key)
    if costs is None:
        costs = _LINE_COSTS[counter.key] = {}
    return costs


def line_cost(counter: TokenCounter, line: str) -> int:
    """Tokens of one ledger line plus its newline, cached: the same facts are rendered at every compaction."""
    costs = _line_costs(counter)
    cost = costs.get(line)
    if cost is None:
        if len(costs) >= LINE_COST_CACHE_SIZE:
            costs.clear()
        cost = costs[line] = counter.count_text(line) + 1
    return cost


def ledger_size(messages: Sequence[Message], counter: TokenCounter, max_tokens: int) -> int:
    """About the tokens of ``ledger_for(messages, counter, max_tokens)``, without building it (at most ``max_tokens``).

    Sums the cached line costs of the distinct facts, newest message first, and stops at the cap, so a large
    history is not deduplicated and rendered only to learn that the ledger will be full. Used to set room aside
    before the cut is chosen; exit statuses are not counted (a few tokens per command).
    """
    if max_tokens <= 0:
        return 0
    used = line_cost(counter, LEDGER_HEADER)
    if used > max_tokens:
        return 0
    seen: set[tuple[str, str]] = set()
    costs = _line_costs(counter)
    for back, message in enumerate(reversed(messages), 1):
        entry = _scan(message)
        if entry.summary and back == len(messages) and entry.facts:
            # The oldest message is the previous summary, carrying the whole ledger so far: its distinct facts'
            # cost is summed once per summary, and only the facts newer messages repeat are taken off, so each
            # compaction sizes what is new instead of the whole ledger again.
            total, per_key = _summary_costs(entry, counter)
            used += total - sum(per_key.get(key, 0) for key in seen)
            return min(used, max_tokens)
        for fact in entry.facts:
            key = fact.key
            if key in seen:
                continue
            seen.add(key)
            cost = costs.get(fact.line)
            used += cost if cost is not None else line_cost(counter, fact.line)
            if used >= max_tokens:
                return max_tokens
    return used if seen else 0


def _summary_costs(entry: _Scan, counter: TokenCounter) -> _Costs:
    """Summed line cost of a summary's carried facts (distinct by key) and the cost per key, cached per counter."""
    cached = entry.costs.get(counter.key)
    if cached is None:
        per_key: dict[tuple[str, str], int] = {}
        for fact in entry.facts:
            if fact.key not in per_key:
                per_key[fact.key] = line_cost(counter, fact.line)
        cached = entry.costs[counter.key] = (sum(per_key.values()), per_key)
    return cached


_ORIGIN_RANK: dict[str, int] = {"edited": 0, "named": 1, "output": 2}


def _joined(kept: Fact, other: Fact) -> Fact:
    """``kept`` (the newer copy of one fact) with the status ``other`` knows and the stronger of their origins."""
    exit_ = kept.exit if kept.exit is not None else other.exit
    origin = kept.origin if _ORIGIN_RANK[kept.origin] <= _ORIGIN_RANK[other.origin] else other.origin
    if exit_ is kept.exit and origin == kept.origin:
        return kept
    return Fact(kept.kind, kept.value, exit_, origin)


def _dedupe(facts: Iterable[Fact]) -> tuple[Fact, ...]:
    """One fact per key, where it first occurs (the newest), with a known status and the strongest origin."""
    seen: dict[tuple[str, str], int] = {}
    out: list[Fact] = []
    for fact in facts:
        index = seen.get(fact.key)
        if index is None:
            seen[fact.key] = len(out)
            out.append(fact)
        else:
            kept = out[index]
            if (kept.exit is None and fact.exit is not None) or (
                kept.origin != fact.origin and _ORIGIN_RANK[fact.origin] < _ORIGIN_RANK[kept.origin]
            ):
                out[index] = _joined(kept, fact)
    return tuple(out)


def _single_line(value: str) -> str:
    """``value`` as one ledger line: whitespace collapsed only when it holds a line break (rare in an id)."""
    return value if _LINE_BREAK.search(value) is None else " ".join(value.split())


def _clip(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= MAX_VALUE_CHARS else value[: MAX_VALUE_CHARS - 1] + "…"


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """``(key, string)`` leaves of parsed JSON arguments."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            yield key, item
        elif isinstance(item, dict):
            stack.extend((str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((key, v) for v in reversed(item))
        elif isinstance(item, int | float) and not isinstance(item, bool) and _ID_KEY.search(key):
            yield key, str(item)


def _scanned(text: str, limit: int = MAX_SCAN_CHARS, head_chars: int = SCAN_HEAD_CHARS) -> str:
    """``text``, or its first ``head_chars`` and its tail when it is longer than ``limit`` (cut at line ends)."""
    if len(text) <= limit:
        return text
    head_end = text.rfind("\n", 0, head_chars)
    tail_start = text.find("\n", len(text) - (limit - head_chars))
    head = text[: head_end if head_end > 0 else head_chars]
    tail = text[tail_start + 1 :] if tail_start >= 0 else ""
    return head + "\n" + tail


def _slash_lines(text: str) -> str:
    """The lines of ``text`` (cut at newlines) that hold a ``/``, joined with newlines; empty when there is none.

    No path or URL pattern matches across a newline (they exclude whitespace), and a line starts and ends at a
    newline or an end of the text either way, so the patterns find the same matches, in the same order, in these
    lines as in the whole text: the regexes, which try every position, only read the lines that matter.
    """
    i = text.find("/")
    if i < 0:
        return ""
    if text.find("\n") < 0:
        return text
    if text.count("/") * _DENSE_SLASH_CHARS >= len(text):
        # Slashes on most lines (a listing, a traceback): one split and filter costs less than a search per line.
        return "\n".join([line for line in text.split("\n") if "/" in line])
    parts: list[str] = []
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        if end < 0:
            parts.append(text[start:])
            break
        parts.append(text[start:end])
        i = text.find("/", end)
    return "\n".join(parts)


_DENSE_SLASH_CHARS = 200
"""`_slash_lines` splits the whole text when it holds a ``/`` every this many characters or more often."""


def _re2_compile(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (imported here: ``import contextfold`` does not load it)."""
    import re2

    return re2.compile(pattern)


def _paths(text: str) -> list[str]:
    text = _slash_lines(text)
    if not text:
        return []
    no_urls = _URL.sub(" ", text) if "://" in text else text
    found = [m.group(0).rstrip("/.,:;") for m in _ABS_PATH.finditer(no_urls)]
    # Where the first relative path is, found by RE2 (see `_REL_PATH_ASCII`); the matches from there by `_REL_PATH`
    # (the RE2 binding's per-match cost is Python's tenfold).
    if not no_urls.isascii():
        found += [m.group(0) for m in _REL_PATH.finditer(no_urls)]
    elif (first := _REL_PATH_ASCII.get().search(no_urls)) is not None:
        found += [m.group(0) for m in _REL_PATH.finditer(no_urls, first.start(1))]
    return [p for p in found if p.count("/") >= 1 and len(p) > 3]


def _ids(text: str, *, hashes: bool, lowered: str | None = None) -> list[str]:
    """Identifiers in ``text``; ``lowered`` is ``text.lower()`` when the caller has it already.

    ASCII text with no digit, no ``://`` and no ``commit`` holds none: every other rule needs an ASCII digit
    (issue numbers, hashes, job ids), which a plain search rules out before any keyword is looked for.
    """
    if text.isascii() and "://" not in text and "commit" not in text and _ASCII_DIGIT.search(text) is None:
        return []
    return _literal_ids(text, hashes=hashes) + _job_ids(text, lowered)


def _literal_ids(text: str, *, hashes: bool) -> list[str]:
    """URLs, issue numbers and commit hashes: each rule runs only when its literal (``://``, ``#``, ...) occurs."""
    out = [u.rstrip(".,:;") for u in _URL.findall(text)] if "://" in text else []
    if "#" in text:
        out += [f"#{n}" for n in _ISSUE.findall(text)]
    if "commit" in text:
        out += _COMMIT.findall(text)
    if hashes:
        out += [h for h in _hashes(text) if any(c.isdigit() for c in h) and any(c.isalpha() for c in h)]
    return out


def _hashes(text: str) -> list[str]:
    """``_HASH.findall(text)``, tried only where a run of 7 or more hex digits starts.

    `_HASH` opens with a look-behind, which the regex engine tries at every position. A match starts after no hex
    digit (the look-behind excludes word characters) and spans 7 to 40 of them, so it starts where such a run starts,
    and it covers only that run: matching at the run starts finds the same hashes.
    """
    out: list[str] = []
    for run in _HEX_RUN.finditer(text):
        match = _HASH.match(text, run.start())
        if match is not None:
            out.append(match.group())
    return out


def _job_ids(text: str, lowered: str | None = None) -> list[str]:
    """Job-style ids (``job 42``, ``task_id=abc1``); ``lowered`` is ``text.lower()`` when the caller has it."""
    out: list[str] = []
    # The keyword search runs case-sensitively on a lower-cased copy (four times faster than IGNORECASE);
    # the value is read from the original text at the same span when lower-casing kept every offset.
    if lowered is None:
        lowered = text.lower()
    if len(lowered) == len(text) and text.isascii():
        for match in _job_matches(lowered):
            start, end = match.span(1)
            if _ASCII_DIGIT.search(lowered, start, end) is not None:  # no stop word holds a digit
                out.append(f"{lowered[match.start() : match.end()].split()[0].rstrip(':=#')} {text[start:end]}")
        return out
    # Other text: the IGNORECASE pattern on the text itself, tried only where the lower-cased copy holds a keyword.
    # That copy is a map of the text when lower-casing kept every offset and no character IGNORECASE folds to a
    # keyword letter is left unlowered (İ, ı, ſ); otherwise the pattern runs everywhere.
    if len(lowered) == len(text) and _FOLD_ODD.search(text) is None:
        matches: Iterable[re.Match[str]] = _job_matches(lowered, text, _JOB)
    else:
        matches = _JOB.finditer(text)
    for match in matches:
        value = text[match.start(1) : match.end(1)]
        if value.lower() not in _JOB_STOP and any(c.isdigit() for c in value):
            out.append(f"{text[match.start() : match.end()].split()[0].rstrip(':=#').lower()} {value}")
    return out


def _word_starts(text: str, words: tuple[str, ...], first: Any = None) -> list[int]:
    """Every offset where one of ``words`` starts in ``text``, sorted (``str.find``: far faster than a regex).

    ``first``: ``words`` as one RE2 alternation (`_JOB_WORD`, `_ERROR_WORD_LOWER`), which finds where the first of
    them starts in one linear pass over ASCII text, or that none does: the searches start there (no word starts
    before the leftmost match), or do not run at all. Most tool output holds none of the words.
    """
    start = 0
    if first is not None and text.isascii():
        hit = first.get().search(text)
        if hit is None:
            return []
        start = hit.start()
    starts: list[int] = []
    for word in words:
        i = text.find(word, start)
        while i >= 0:
            starts.append(i)
            i = text.find(word, i + 1)
    starts.sort()
    return starts


def _job_matches(
    lowered: str, subject: str | None = None, pattern: re.Pattern[str] = _JOB_LOWER
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(subject)`` (``subject``: ``lowered`` by default), tried only where ``lowered`` has a keyword.

    Same matches, in the same order, as long as every match of ``pattern`` in ``subject`` starts where ``lowered``
    holds a keyword (the caller makes sure of that). The pattern opens with a word boundary and an alternation,
    which the regex engine tries at every position; the keywords are found with ``str.find`` instead. A keyword
    found inside a longer word cannot start a match (no word boundary before it): the match fails there.
    """
    text = lowered if subject is None else subject
    end = 0
    for start in _word_starts(lowered, _JOB_WORDS, _JOB_WORD):
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            end = match.end()
            yield match


def _error_lines(text: str, lowered: str | None = None) -> list[str]:
    """The lines of ``text`` that may be error lines, in order: those holding an error keyword.

    Filtered by `_ERROR_LINE`, the same lines as ``text.splitlines()`` would give, without a regex call per line.
    Lines are cut at newlines; a keyword line holding another line break (carriage return, form feed, ...) sends the
    whole text down the plain path. Lines without a keyword cannot match, so breaks inside them do not matter.
    With ``lowered`` (``text.lower()``, used when it kept every offset) five lower-case words are looked for instead
    of eight: they find every keyword, and a few more lines, which the caller's `_ERROR_LINE` filter drops.
    """
    out: list[str] = []
    line_end = -1
    if lowered is not None and len(lowered) == len(text):
        hits = _word_starts(lowered, _ERROR_WORDS_LOWER, _ERROR_WORD_LOWER)
    else:
        hits = _word_starts(text, _ERROR_WORDS)
    for hit in hits:
        if hit < line_end:
            continue  # same line as the previous hit
        start = text.rfind("\n", 0, hit) + 1
        line_end = text.find("\n", hit)
        if line_end < 0:
            line_end = len(text)
        line = text[start:line_end]
        if _ODD_BREAK.search(line) is not None:
            return text.splitlines()
        out.append(line)
    return out


def _errors(text: str, lowered: str | None = None) -> list[str]:
    out: list[str] = []
    for line in _error_lines(text, lowered):
        if len(line) < 400 and _ERROR_LINE.match(line):
            out.append(_clip(line))
    # The last error lines of a traceback say the most: keep the last few.
    return out[-MAX_ERRORS_PER_RESULT:]


def _rules(text: str) -> list[str]:
    # A sentence is the text's own characters between separators that are not word characters (whitespace, and
    # " -*•" stripped from its ends), so a rule word matched in a sentence matches in the text: none there, none at all.
    if _RULE_WORDS.search(text) is None:
        return []
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip(" -*•\t")
        if 8 <= len(sentence) <= 400 and _RULE_WORDS.search(sentence):
            out.append(_clip(sentence))
            if len(out) >= MAX_RULES_PER_MESSAGE:
                break
    return out


_COMMAND_KEYS = ("command", "cmd", "script")


def _command(args: Any) -> str | None:
    """The command a tool call ran, from its parsed arguments (``None``: not a command tool, or an editor)."""
    if not isinstance(args, dict):
        return None
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            first = value.strip().split("\n", 1)[0].strip()
            if first in _EDITOR_SUBCOMMANDS:
                return None
            first = _single_line(first)  # a line break other than \n would break the ledger's line format
            return first if len(first) <= MAX_COMMAND_CHARS else first[: MAX_COMMAND_CHARS - 1] + "…"
    return None


@dataclass(frozen=True, slots=True)
class _Scan:
    """What one message yields, before exit statuses are matched to commands (cached per message)."""

    message: Message  # held so that the id used as the cache key cannot be reused while cached
    facts: tuple[Fact, ...]
    calls: tuple[tuple[int, str], ...]  # (index in facts of a command, its call id)
    exits: tuple[tuple[str, int], ...]  # (call id, exit status) of the results this message carries
    summary: bool = False  # a compaction summary: ``facts`` is the ledger it carries (distinct by key)
    costs: dict[str, _Costs] = field(default_factory=dict)  # `_summary_costs`, by counter key
    _by_key: dict[tuple[str, str], Fact] = field(default_factory=dict)

    def by_key(self) -> dict[tuple[str, str], Fact]:
        """The facts by key (built once; a summary's facts are distinct by key)."""
        if not self._by_key and self.facts:
            self._by_key.update({fact.key: fact for fact in self.facts})
        return self._by_key


_CACHE: OrderedDict[int, _Scan] = OrderedDict()


def _scan(message: Message) -> _Scan:
    entry = _CACHE.get(id(message))
    if entry is not None and entry.message is message:
        _CACHE.move_to_end(id(message))
        return entry
    if is_summary(message):
        carried, known = _read_ledger(message.text)
        costs: dict[str, _Costs] = {}
        overflow = message.meta.get(OVERFLOW_META_KEY)
        if isinstance(overflow, list | tuple) and overflow:
            extra = parse_ledger(LEDGER_HEADER + "\n" + "\n".join(str(line) for line in overflow)).facts
            carried = _dedupe([*carried, *extra])
        elif known is not None:
            costs[known[0]] = known[1]
        entry = _Scan(message, carried, (), (), summary=True, costs=costs)
    else:
        facts, calls = _scan_message(message)
        entry = _Scan(message, tuple(facts), tuple(calls.items()), _result_exits(message))
    _CACHE[id(message)] = entry
    if len(_CACHE) > FACT_CACHE_SIZE:
        _CACHE.popitem(last=False)
    return entry


def _filled(entry: _Scan, exits: dict[str, int]) -> Sequence[Fact]:
    """The facts of a scanned message with the exit statuses of its commands filled in (as they are: no command)."""
    if not entry.calls:
        return entry.facts
    facts = list(entry.facts)
    for index, call_id in entry.calls:
        status = exits.get(call_id)
        if status is not None:
            facts[index] = Fact("cmd", facts[index].value, status)
    return facts


def _add(facts: list[Fact], kind: FactKind, values: Iterable[str], origin: Origin = "named") -> None:
    for value in values:  # a loop: no generator is built for each (often empty) list of values
        facts.append(Fact(kind, value, origin=origin))


def _scan_message(message: Message) -> tuple[list[Fact], dict[int, str]]:
    """Facts of one message without exit statuses, and which of them are commands of which call."""
    facts: list[Fact] = []
    calls: dict[int, str] = {}
    rules = is_real_user(message)
    for block in message.content:
        match block:
            case TextBlock():
                text = _scanned(block.text)
                if rules:
                    _add(facts, "rule", _rules(text))
                _add(facts, "file", _paths(text))
                _add(facts, "id", _ids(text, hashes=message.role in ("user", "assistant")))
            case ToolCallBlock():
                try:
                    parsed = block.parsed_arguments()
                except ValueError:
                    parsed = block.arguments
                command = _command(parsed)
                if command is not None:
                    calls[len(facts)] = block.id
                    facts.append(Fact("cmd", command))
                writes = _writes(block.name, parsed)
                for key, value in _strings(parsed):
                    value = _scanned(value)
                    paths = _paths(value)
                    if paths:
                        edited = _edited(key, value, writes)
                        for path in paths:
                            facts.append(Fact("file", path, origin="edited" if path in edited else "named"))
                    if _ID_KEY.search(key) and 0 < len(value) <= 80 and "\n" not in value:
                        facts.append(Fact("id", _single_line(f"{key}={value}")))
                    else:
                        _add(facts, "id", _ids(value, hashes=True))
            case ToolResultBlock():
                text = _scanned(block.text)
                _add(facts, "file", _paths(text), "output")
                ids = _literal_ids(text, hashes=False)
                # Job ids and error lines are found by common words (run, process, error, ...), which a long
                # output holds thousands of times: they are read in its head and tail only (see RESULT_WORDS_CHARS).
                text = _scanned(text, RESULT_WORDS_CHARS, RESULT_WORDS_HEAD_CHARS)
                lowered = text.lower()
                _add(facts, "id", ids, "output")
                _add(facts, "id", _job_ids(text, lowered))  # a job, process or session: still running, maybe
                _add(facts, "error", _errors(text, lowered))
            case HintBlock() | ThinkingBlock() | RedactedThinkingBlock() | DataBlock():
                pass
            case _:
                assert_never(block)
    return facts, calls


_WRITE_SUBCOMMANDS = frozenset({"create", "str_replace", "insert", "write", "edit", "undo_edit"})
_WRITE_TOOL = lazy_pattern(r"write|edit|create|patch|replace|insert|append|save|delete|remove|rename|move", re.I)
_READ_TOOL = lazy_pattern(r"read|view|get|list|search|find|grep|glob|cat|show|open", re.I)
_PATH_KEYS = frozenset({"path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path", "dest"})
_REDIRECT = lazy_pattern(r"(?<![<>&\d])>>?\|?\s*([^\s;&|<>()\"'`]+)")
_TEE = lazy_pattern(r"\btee\s+(?:-a\s+)?([^\s;&|<>()\"'`]+)")
_IN_PLACE = lazy_pattern(r"\b(?:sed|perl)\b[^\n;&|]*?\s-[a-zA-Z]*i")
_SEGMENT = lazy_pattern(r"&&|\|\||[;|\n]")


def _writes(name: str, args: Any) -> bool:
    """Whether a tool call writes the file its path argument names (an editor's create/replace, a write tool)."""
    if isinstance(args, dict):
        sub = args.get("command")
        if isinstance(sub, str) and sub.strip() in _EDITOR_SUBCOMMANDS:
            return sub.strip() in _WRITE_SUBCOMMANDS
    return _WRITE_TOOL.search(name) is not None and _READ_TOOL.search(name) is None


def _edited(key: str, value: str, writes: bool) -> set[str]:
    """The paths of one argument string that the call writes.

    A write tool's path argument (``path``, ``file_path``, ...); in a shell command, the target of a ``>``/``>>``
    redirect or of ``tee``, and the paths of a ``sed -i``/``perl -i`` step (``/dev/...`` is never an edit).
    """
    if writes and key.lower() in _PATH_KEYS:
        return set(_paths(value))
    if key not in _COMMAND_KEYS:
        return set()
    out: set[str] = set()
    if ">" in value:
        for match in _REDIRECT.finditer(value):
            out.update(_paths(match.group(1)))
    if "tee" in value:
        for match in _TEE.finditer(value):
            out.update(_paths(match.group(1)))
    if " -" in value and ("sed" in value or "perl" in value):
        for segment in _SEGMENT.split(value):
            if _IN_PLACE.search(segment) is not None:
                out.update(_paths(segment))
    return {path for path in out if not path.startswith("/dev/")}


def _result_exits(message: Message) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    for result in message.tool_results:
        texts = [b.text for b in result.content if isinstance(b, TextBlock)]
        if not texts:
            continue
        match = _exit_search(texts[0][:2000])
        if match is None and (len(texts) > 1 or len(texts[0]) > 2000):  # else the tail is the text just searched
            match = _exit_search(texts[-1][-2000:])
        if match is not None:
            out.append((result.call_id, int(match.group(1) or match.group(2))))
    return tuple(out)


def _exit_search(text: str) -> re.Match[str] | None:
    """``_EXIT.search(text)``, skipped when the text holds neither keyword (both branches need one).

    IGNORECASE matches a letter of ``exit`` or ``<returncode>`` only to itself in either case, and ``i`` also to İ and
    ı (checked over every character by a test), so a match leaves ``<returncode>`` or ``ex`` + ``i``, ``i̇`` (the
    lower case of İ) or ``ı`` + ``t`` in the lower-cased text.
    """
    lowered = text.lower()
    if "exit" in lowered or "<returncode>" in lowered:
        return _EXIT.search(text)
    if text.isascii() or ("ex\u0131t" not in lowered and "exi\u0307t" not in lowered):
        return None
    return _EXIT.search(text)


def _exits_of(entries: Iterable[_Scan]) -> dict[str, int]:
    """Exit status by call id, from the results the scanned messages carry."""
    exits: dict[str, int] = {}
    for entry in entries:
        exits.update(entry.exits)
    return exits


def output_fact_lines(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, str, FactKind]]:
    """The lines of a tool output that carry a fact the ledger takes from tool output, by the ledger's own rules.

    Returns ``(offset, value, kind)`` for each distinct fact of ``text[start:end]`` (error lines, ids, paths), at
    the offset where its first occurrence in that span is: the line holding it is what a caller that cuts the
    output keeps, so the fact stays verbatim in the context. Unlike a message scan, the whole span is read (no
    head and tail bound): a cut knows exactly which part it leaves out, and this runs once per cut. The rules
    run once each over the span (linear), and each value is located by a forward search.
    """
    span = text[start:end]
    found: list[tuple[int, str, FactKind]] = []
    seen: set[str] = set()

    def locate(values: Iterable[str], kind: FactKind) -> None:
        cursor = 0
        for value in values:
            if not value or value in seen:
                continue
            at = span.find(value, cursor)
            if at < 0:
                at = span.find(value)  # a rule's matches are in order; a value cleaned of a suffix may precede
            else:
                cursor = at
            if at >= 0:
                seen.add(value)
                found.append((start + at, value, kind))

    lowered = span.lower()
    locate(
        (line.strip() for line in _error_lines(span, lowered) if len(line) < 400 and _ERROR_LINE.match(line)), "error"
    )
    locate(_literal_ids(span, hashes=False), "id")
    locate((job.split(" ", 1)[1] for job in _job_ids(span, lowered)), "id")
    locate(_paths(span), "file")
    return found


def extract_facts(messages: Sequence[Message]) -> Ledger:
    """The ledger of ``messages``: facts of the newest message first; earlier ledgers merged in."""
    entries = [_scan(message) for message in messages]
    exits = _exits_of(entries)
    carried: _Scan | None = None
    if entries and entries[0].summary:
        carried = entries[0]  # the usual compaction: the previous summary, then the messages since
        entries = entries[1:]
    ordered: list[Fact] = []
    for entry in reversed(entries):
        ordered.extend(_filled(entry, exits))
    if carried is None:
        return Ledger(_dedupe(ordered))
    return Ledger(_merge_carried(_dedupe(ordered), carried))


def _merge_carried(newer: tuple[Fact, ...], carried: _Scan) -> tuple[Fact, ...]:
    """``_dedupe([*newer, *carried.facts])`` for a deduplicated ``newer`` and a summary's (distinct) facts.

    Only the few newer facts are looked up among the carried ones: a long ledger is copied, not deduplicated again.
    """
    if not newer:
        return carried.facts
    by_key = carried.by_key()
    out = list(newer)
    repeated = False
    for index, fact in enumerate(out):
        old = by_key.get(fact.key)
        if old is not None:
            repeated = True
            if (fact.exit is None and old.exit is not None) or (
                fact.origin != old.origin and _ORIGIN_RANK[old.origin] < _ORIGIN_RANK[fact.origin]
            ):
                out[index] = _joined(fact, old)
    if not repeated:  # no carried fact is left out: copied whole
        return (*out, *carried.facts)
    keys = {fact.key for fact in newer}
    out.extend([fact for fact in carried.facts if fact.key not in keys])
    return tuple(out)


_RENDERED: OrderedDict[str, tuple[tuple[Fact, ...], tuple[str, _Costs]]] = OrderedDict()
RENDERED_CACHE_SIZE = 16
"""Ledgers recently rendered by `Ledger.render_with_rest`, by text: their facts, and (counter key, costs) of the facts
shown; the next compaction reads one of them back."""


def _remember_rendered(text: str, facts: tuple[Fact, ...], costs: tuple[str, _Costs]) -> None:
    _RENDERED[text] = (facts, costs)
    _RENDERED.move_to_end(text)
    if len(_RENDERED) > RENDERED_CACHE_SIZE:
        _RENDERED.popitem(last=False)


def without_ledger(text: str) -> str:
    """A summary's text without its facts ledger: what a digest of that summary quotes (the next ledger merges it)."""
    start = text.find(LEDGER_HEADER)
    return text if start < 0 else text[:start].rstrip()


def parse_ledger(text: str) -> Ledger:
    """Read a rendered ledger back out of a summary text (no ledger: an empty one).

    A ledger this process rendered and that ends the text is not parsed again: its facts are remembered by
    text (a rendered ledger reads back to exactly the facts it shows; a test checks the round trip).
    """
    return Ledger(_read_ledger(text)[0])


def _read_ledger(text: str) -> tuple[tuple[Fact, ...], tuple[str, _Costs] | None]:
    """The facts of the ledger in ``text``, and (counter key, costs) when this process rendered it."""
    start = text.rfind(LEDGER_HEADER)  # the summary's own ledger ends it (an older one may be quoted before)
    if start < 0:
        return (), None
    remembered = _RENDERED.get(text[start:])
    if remembered is None:
        # Text may follow the ledger after a blank line (the proxy's read-back note): a rendered ledger holds no
        # blank line, and parsing stops at the first one after the facts, so the ledger is what precedes it.
        end = text.find("\n\n", start)
        if end > 0:
            remembered = _RENDERED.get(text[start:end])
    if remembered is not None:
        return remembered
    return _parse_ledger_lines(text, start).facts, None


def _parse_ledger_lines(text: str, start: int) -> Ledger:
    facts: list[Fact] = []
    in_block = False  # under the head of a command block, whose exit status is `block`
    block: int | None = None
    for line in text[start + len(LEDGER_HEADER) :].splitlines():
        if in_block and line.startswith(_BLOCK_INDENT) and line[len(_BLOCK_INDENT) :].strip():
            facts.append(Fact("cmd", line[len(_BLOCK_INDENT) :], block))
            continue
        in_block = False
        if not line.strip():
            if facts:
                break
            continue
        match = _LINE.match(line)
        if match is None:
            break
        kind = match.group(1)
        value = match.group(3)
        exit_ = int(match.group(2)) if match.group(2) is not None else None
        if value is None:  # a head: only a command block has one
            if kind != "cmd":
                break
            in_block, block = True, exit_
        elif kind == "edited" or kind == "files":
            origin: Origin = "edited" if kind == "edited" else "named"
            facts.extend([Fact("file", piece, origin=origin) for piece in value.split()])
        elif kind == "seen":
            # A path holds a slash and never "://"; an identifier of tool output is a URL, #N or a commit hash.
            for piece in value.split():
                seen_kind: FactKind = "file" if "/" in piece and "://" not in piece else "id"
                facts.append(Fact(seen_kind, piece, origin="output"))
        else:
            facts.append(Fact(kind, value, exit_))  # type: ignore[arg-type]
    return Ledger(_dedupe(facts))


def ledger_for(messages: Sequence[Message], counter: TokenCounter, max_tokens: int) -> str:
    """The rendered ledger of ``messages`` within ``max_tokens`` (empty when nothing fits)."""
    if max_tokens <= 0:
        return ""
    return extract_facts(messages).render(counter, max_tokens)


def ledger_with_overflow(
    messages: Sequence[Message], counter: TokenCounter, max_tokens: int
) -> tuple[str, tuple[str, ...]]:
    """`ledger_for`, plus the rendered lines of the facts the cap left out (at most `MAX_OVERFLOW_FACTS`)."""
    ledger = extract_facts(messages)
    if max_tokens <= 0:
        text, rest = "", tuple(ledger.ordered())
    else:
        text, rest = ledger.render_with_rest(counter, max_tokens)
    return text, tuple(f.render() for f in rest[:MAX_OVERFLOW_FACTS])
