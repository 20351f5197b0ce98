"""The facts ledger: the verbatim facts a later turn needs, carried from summary to summary.

Summaries lose exactly what an agent needs later: file paths, the commands it
ran and how they ended, ids, error lines and the rules the user set. The
ledger pulls those out of the messages being compacted with fixed rules (no
model), and is attached verbatim after whatever summary is produced. It is
written in a line format that `parse_ledger` reads back, so the next
compaction merges the previous ledger into the new one: facts survive any
number of compactions until the token cap forces the oldest out (user rules
are kept before anything else).

Heuristics (documented because they decide what survives):

* paths: absolute paths with at least two components, and relative paths
  with a slash and a file extension (``src/app.py``); URLs are not paths;
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
    "parse_ledger",
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

_URL = re.compile(r"https?://[^\s<>\"'`)\]}]+")
_ABS_PATH = re.compile(r"(?<![\w.:/~-])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?")
_REL_PATH = re.compile(r"(?<![\w./:~-])[\w.@+-]+(?:/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}\b")
_ISSUE = re.compile(r"(?<![\w&/#])#(\d{1,7})\b")
_HASH = re.compile(r"(?<![\w/.-])[0-9a-f]{7,40}(?![\w/-])")
_HEX_RUN = re.compile(r"[0-9a-f][0-9a-f]{6,}")
"""Runs of 7 or more hex digits: where `_HASH` can match (see `_hashes`)."""
_COMMIT = re.compile(r"\bcommit\s+([0-9a-f]{7,40})\b")
_JOB = re.compile(
    r"\b(?:task|job|run|process|pid|session|build|ticket|request|reservation|order|booking)"
    r"(?:[ _-]?id)?\s*(?:[:=#]\s*|\s)([A-Za-z0-9][\w-]{1,63})\b",
    re.IGNORECASE,
)
_JOB_LOWER = re.compile(_JOB.pattern)
"""`_JOB` without IGNORECASE, for lower-cased ASCII text."""
_ASCII_DIGIT = re.compile("[0-9]")
_JOB_WORDS = (
    "task", "job", "run", "process", "pid", "session", "build", "ticket", "request", "reservation", "order", "booking"
)  # fmt: skip
"""Where a `_JOB` match can start, lower-cased (see `_job_matches`)."""
_FOLD_ODD = re.compile("[\u0130\u0131\u017f]")
"""The characters IGNORECASE matches to an ASCII letter that ``str.lower`` does not lower to it (İ, ı, ſ)."""
_EXIT = re.compile(
    r"<returncode>\s*(-?\d+)\s*</returncode>|\bexit(?:ed with)?(?: status| code)?[:= ]\s*(-?\d+)\b",
    re.IGNORECASE,
)
_ERROR_LINE = re.compile(
    r"^\s*(?:E\s+)?(?:[A-Za-z_][\w.]*(?:Error|Exception|Failure)\b.*"
    r"|(?:error|fatal|FAILED|FAIL|ERROR)\b[:\s].*|Traceback \(most recent call last\).*)$"
)
_ERROR_WORDS = ("Error", "Exception", "Failure", "error", "fatal", "FAIL", "ERROR", "Traceback")
"""Every line `_ERROR_LINE` accepts holds one of these (see `_error_lines`)."""
_ERROR_WORDS_LOWER = ("error", "exception", "fail", "fatal", "traceback")
"""`_ERROR_WORDS` lower-cased and merged: where they start in a text, its lower-cased copy holds one of these."""
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Every line break of `str.splitlines`."""
_ODD_BREAK = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Line breaks of `str.splitlines` other than the newline."""
_RULE_WORDS = re.compile(r"\b(?:do not|don't|never|always|must|make sure|only)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LINE = re.compile(r"^- (rule|file|cmd|id|error)(?: \[exit (-?\d+)\])?: (.*)$")
_EDITOR_SUBCOMMANDS = frozenset({"view", "create", "str_replace", "insert", "undo_edit", "write", "edit", "read"})
_ID_KEY = re.compile(r"(?:^|_)id$", re.IGNORECASE)
_JOB_STOP = frozenset({"the", "a", "an", "is", "was", "of", "to", "in", "for", "and", "it", "id", "with", "on"})


@dataclass(frozen=True)
class Fact:
    """One fact: its kind, its verbatim value and, for a command, its exit status when known."""

    kind: FactKind
    value: str
    exit: int | None = None

    # Not slotted, so that `key` and `line` can be cached on the instance (they are not dataclass fields): the same
    # facts are sized, deduplicated and rendered again at every compaction.
    @cached_property
    def key(self) -> tuple[str, str]:
        """Identity for deduplication (the exit status of a command is an attribute, not identity)."""
        return (self.kind, self.value)

    @cached_property
    def line(self) -> str:
        """The rendered ledger line (`render`)."""
        status = f" [exit {self.exit}]" if self.exit is not None else ""
        return f"- {self.kind}{status}: {self.value}"

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
        """Rules, then identifiers, then everything else newest first: the order in which facts survive the cap.

        Identifiers (issue numbers, URLs, hashes, ids) come before paths and
        commands because they are few, short and cannot be found again: a
        path can be listed again and a command re-run, but the URL of a report
        the user linked in the first message exists only there.
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

    def render(self, counter: TokenCounter | None = None, max_tokens: int | None = None) -> str:
        """The ledger text, cut to ``max_tokens`` by dropping the oldest facts (rules last); empty when none fit."""
        return self.render_with_rest(counter, max_tokens)[0]

    def render_with_rest(
        self, counter: TokenCounter | None = None, max_tokens: int | None = None
    ) -> tuple[str, tuple[Fact, ...]]:
        """`render`, plus the facts the cap left out (in ledger order), for `OVERFLOW_META_KEY`."""
        facts = self.ordered()
        if not facts:
            return "", ()
        lines = [LEDGER_HEADER]
        if counter is None or max_tokens is None:
            lines.extend(f.render() for f in facts)
            return "\n".join(lines), ()
        used = line_cost(counter, LEDGER_HEADER)
        if used > max_tokens:
            return "", tuple(facts)
        rest: list[Fact] = []
        shown_facts: list[Fact] = []
        shown_costs: dict[tuple[str, str], int] = {}
        shown = ""  # a file already named verbatim by a kept command or error needs no line of its own
        costs = _line_costs(counter)
        for fact in facts:
            kind = fact.kind
            if kind == "file" and fact.value in shown:
                continue
            line = fact.line
            cost = costs.get(line)  # `line_cost`, with the cache read inline: this runs for every fact
            if cost is None:
                cost = line_cost(counter, line)
            if used + cost > max_tokens:
                rest.append(fact)
                continue  # a shorter, older fact may still fit
            lines.append(line)
            shown_facts.append(fact)
            shown_costs.setdefault(fact.key, cost)
            used += cost
            if kind != "file":
                shown += "\n" + fact.value
        if len(lines) == 1:
            return "", tuple(rest)
        text = "\n".join(lines)
        # The cost of each distinct fact shown is what `ledger_size` needs when this summary is compacted again.
        # Facts of distinct keys (one cost each: the usual, deduplicated ledger) are what `_dedupe` would return.
        distinct = tuple(shown_facts) if len(shown_costs) == len(shown_facts) else _dedupe(shown_facts)
        _remember_rendered(text, distinct, (counter.key, (sum(shown_costs.values()), shown_costs)))
        return text, tuple(rest)


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


def _dedupe(facts: Iterable[Fact]) -> tuple[Fact, ...]:
    seen: dict[tuple[str, str], int] = {}
    out: list[Fact] = []
    for fact in facts:
        index = seen.get(fact.key)
        if index is None:
            seen[fact.key] = len(out)
            out.append(fact)
        elif out[index].exit is None and fact.exit is not None:
            out[index] = Fact(fact.kind, fact.value, fact.exit)  # the newer copy had no status: keep the known one
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


def _paths(text: str) -> list[str]:
    text = _slash_lines(text)
    if not text:
        return []
    no_urls = _URL.sub(" ", text) if "://" in text else text
    found = [m.group(0).rstrip("/.,:;") for m in _ABS_PATH.finditer(no_urls)]
    found += [m.group(0) for m in _REL_PATH.finditer(no_urls)]
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


def _word_starts(text: str, words: tuple[str, ...]) -> list[int]:
    """Every offset where one of ``words`` starts in ``text``, sorted (``str.find``: far faster than a regex)."""
    starts: list[int] = []
    for word in words:
        i = text.find(word)
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
    for start in _word_starts(lowered, _JOB_WORDS):
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
        hits = _word_starts(lowered, _ERROR_WORDS_LOWER)
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


def _command(args: Any) -> str | None:
    """The command a tool call ran, from its parsed arguments (``None``: not a command tool, or an editor)."""
    if not isinstance(args, dict):
        return None
    for key in ("command", "cmd", "script"):
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


def _add(facts: list[Fact], kind: FactKind, values: Iterable[str]) -> None:
    for value in values:  # a loop: no generator is built for each (often empty) list of values
        facts.append(Fact(kind, value))


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
                for key, value in _strings(parsed):
                    value = _scanned(value)
                    _add(facts, "file", _paths(value))
                    if _ID_KEY.search(key) and 0 < len(value) <= 80 and "\n" not in value:
                        facts.append(Fact("id", _single_line(f"{key}={value}")))
                    else:
                        _add(facts, "id", _ids(value, hashes=True))
            case ToolResultBlock():
                text = _scanned(block.text)
                _add(facts, "file", _paths(text))
                ids = _literal_ids(text, hashes=False)
                # Job ids and error lines are found by common words (run, process, error, ...), which a long
                # output holds thousands of times: they are read in its head and tail only (see RESULT_WORDS_CHARS).
                text = _scanned(text, RESULT_WORDS_CHARS, RESULT_WORDS_HEAD_CHARS)
                lowered = text.lower()
                _add(facts, "id", ids + _job_ids(text, lowered))
                _add(facts, "error", _errors(text, lowered))
            case HintBlock() | ThinkingBlock() | RedactedThinkingBlock() | DataBlock():
                pass
            case _:
                assert_never(block)
    return facts, calls


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
            if fact.exit is None and old.exit is not None:
                out[index] = Fact(fact.kind, fact.value, old.exit)
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


def parse_ledger(text: str) -> Ledger:
    """Read a rendered ledger back out of a summary text (no ledger: an empty one).

    A ledger this process rendered and that ends the text is not parsed again: its facts are remembered by
    text (a rendered ledger reads back to exactly the facts it shows; a test checks the round trip).
    """
    return Ledger(_read_ledger(text)[0])


def _read_ledger(text: str) -> tuple[tuple[Fact, ...], tuple[str, _Costs] | None]:
    """The facts of the ledger in ``text``, and (counter key, costs) when this process rendered it."""
    start = text.find(LEDGER_HEADER)
    if start < 0:
        return (), None
    remembered = _RENDERED.get(text[start:])
    if remembered is not None:
        return remembered
    return _parse_ledger_lines(text, start).facts, None


def _parse_ledger_lines(text: str, start: int) -> Ledger:
    facts: list[Fact] = []
    for line in text[start + len(LEDGER_HEADER) :].splitlines():
        if not line.strip():
            if facts:
                break
            continue
        match = _LINE.match(line)
        if match is None:
            break
        kind: FactKind = match.group(1)  # type: ignore[assignment]
        exit_ = int(match.group(2)) if match.group(2) is not None else None
        facts.append(Fact(kind, match.group(3), exit_))
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
