"""The prompt-injection scan engine (imported on first use by `contextfold._guard._injection`).

Tool output is data, but a model reads it like any other text, so a web page
or a file can carry instructions ("ignore previous instructions", a fake
``System:`` turn, a tool call in JSON, a request for the system prompt). The
rules run on the folded text of `contextfold._guard._normalize` and report
spans in the original text. This is defence in depth, not a security
boundary: a paraphrase no rule anticipates passes.

The rule table lives in `contextfold._guard._rules`. Rules are regular
expressions with bounded repetition only, so a scan is
linear in the input. The scan is on the agent loop's hot path (every tool
result), so no rule runs over the whole text: each rule names literal anchors
that every match contains (mostly word starts) and optional gate words. The
distinct letter runs of the text are computed once (C-level translate/split/
set); an index from anchor to rules picks the rules that can match, gates are
set intersections, each needed anchor is located by one literal-first regex
(punctuation anchors by one regex per first character, only for the
characters and stems the text holds), and the rule runs only in a bounded
window around each anchor: a single ``match`` at the anchor when the match
starts there; a longer window is first checked against the rule's gate (in a
text of one part, a window without a backslash is not split: a gate word is
a whole run found by ``find``, or a run cut by the window's edge), and
for most rules, whose matches all start at a few words (``starts``/``heads``),
``match`` is tried only where those occur, instead of ``finditer`` trying
every position. Texts over 32 KB are handled in parts of about 16 KB cut at
newlines, each with its own letter runs, so in a large log a rule runs only
where its anchors and gate words meet; an anchor is located by one scan over
each run of consecutive parts that need it. A part the sieve
(`contextfold._guard._sieve`) clears, with a rule's reach either side, is
passed over like a part whose gates are closed: in real tool output most
are. Text packed with one anchor (an attacker's padding) costs C-level work
per anchor, not Python: its windows are merged by bisection, one group's
positions come from one scan, and matches are grouped as they are found,
without keeping match objects.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TypeAlias

from contextfold._guard._findings import Finding, Severity
from contextfold._guard._latin import RULE_ID as _LATIN_ID
from contextfold._guard._latin import latin_spans
from contextfold._guard._learned import first_trigger, load_model, score_windows, trigger_windows
from contextfold._guard._normalize import Normalized, fold_bytes
from contextfold._guard._rules import _INNER, _RULES, _START, _WORD, _Key, _Rule
from contextfold._guard._sieve import known_runs, may_match, may_match_in
from contextfold._guard._views import view_findings

__all__ = ["scan_injection"]


_EXCERPT = 80
_ALL_KEYS: frozenset[_Key] = frozenset(key for rule in _RULES for key in rule.keys)
# Which rules each anchor can start: presence of anchors is found for the whole text at once, then only the
# rules they index are considered (no per-rule loop when nothing matches).
_BY_KEY: dict[_Key, tuple[int, ...]] = {
    key: tuple(i for i, rule in enumerate(_RULES) if key in rule.keys) for key in sorted(_ALL_KEYS)
}
# Whole-word anchors: one set intersection with the text's distinct letter runs.
_WORD_LITS: frozenset[bytes] = frozenset(lit for lit, kind in _ALL_KEYS if kind == _WORD)
# Word-start anchors: one regex over the joined distinct letter runs, matching each run's longest anchor prefix
# (shorter anchor prefixes of the same run are then added from _SHORTER).
_START_LITS = sorted({lit for lit, kind in _ALL_KEYS if kind == _START}, key=lambda b: (-len(b), b))


def _trie(lits: list[bytes]) -> bytes:
    """A regex (no groups) matching the longest of ``lits`` at a position.

    A trie, so ``re`` branches on one byte per level instead of trying every literal in turn.
    """
    if not lits:
        return b""
    by_first: dict[int, list[bytes]] = {}
    ends = b"" in lits
    for lit in lits:
        if lit:
            by_first.setdefault(lit[0], []).append(lit[1:])
    alts = [re.escape(bytes([c])) + _trie(rest) for c, rest in sorted(by_first.items())]
    if not alts:  # only the empty literal: the end of a branch
        return b""
    body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
    return b"(?:" + body + b")?" if ends else body


# Inner letter anchors (also inside a word: glued "ignoreallprevious", "systemprompt"): substring probes on the
# joined letter runs. Other inner anchors start with a rare character and are found by one regex over the text.
_INNER_PROBES: tuple[bytes, ...] = tuple(
    sorted(lit for lit, kind in _ALL_KEYS if kind == _INNER and re.fullmatch(rb"[a-z]+", lit))
)
# Grouped by their first six bytes ("system", "prepro"): one substring test per group when the head is absent.
_INNER_BY_HEAD: tuple[tuple[bytes, tuple[bytes, ...]], ...] = tuple(
    (head, tuple(lit for lit in _INNER_PROBES if lit[:6] == head))
    for head in sorted({lit[:6] for lit in _INNER_PROBES})
)
_PUNCT_LITS = sorted(
    (lit for lit, kind in _ALL_KEYS if kind == _INNER and not re.fullmatch(rb"[a-z]+", lit)), key=lambda b: (-len(b), b)
)
# Punctuation anchors are found by one regex per first character (a literal first character lets ``re`` skip
# ahead at C speed; a regex for all of them would test every character against a set). The letters after an
# anchor's punctuation (its stem: "system" of "[(system") start a letter run wherever it occurs, so a group is
# scanned only when a run of the text starts with one of its stems, or when one of its anchors has none ("<|")
# and its first and last characters occur.
_PUNCT_RX: dict[bytes, re.Pattern[bytes]] = {
    first: re.compile(_trie([lit for lit in _PUNCT_LITS if lit[:1] == first]))
    for first in sorted({lit[:1] for lit in _PUNCT_LITS})
}
_STEM: dict[bytes, bytes] = {lit: (re.findall(rb"[a-z]+", lit) or [b""])[0] for lit in _PUNCT_LITS}
# Each group's literals, with " " + stem (a substring of the joined runs wherever the literal occurs).
_GROUP_LITS: dict[re.Pattern[bytes], tuple[tuple[bytes, bytes], ...]] = {
    rx: tuple((lit, b" " + _STEM[lit]) for lit in _PUNCT_LITS if lit[:1] == first) for first, rx in _PUNCT_RX.items()
}
# Anchors without a stem, each with its last and first character: their group is scanned only when both occur
# (two C-level ``find`` of one byte).
_STEMLESS: tuple[tuple[re.Pattern[bytes], bytes, bytes], ...] = tuple(
    (_PUNCT_RX[lit[:1]], lit[-1:], lit[:1]) for lit in _PUNCT_LITS if not _STEM[lit]
)
# One regex over the joined distinct letter runs matches each run's longest word-start anchor or stem; _SHORTER
# then gives every word-start anchor and every punctuation group (by a stem) that the run can start.
_RUN_STARTS = sorted(set(_START_LITS) | {stem for stem in _STEM.values() if stem}, key=lambda b: (-len(b), b))
_START_RX = re.compile(b" (" + _trie(_RUN_STARTS) + b")")
_SHORTER: dict[bytes, tuple[frozenset[_Key], frozenset[re.Pattern[bytes]]]] = {
    run: (
        frozenset((o, _START) for o in _START_LITS if run.startswith(o)),
        frozenset(_PUNCT_RX[lit[:1]] for lit in _PUNCT_LITS if _STEM[lit] and run.startswith(_STEM[lit])),
    )
    for run in _RUN_STARTS
}


def _locator(lit: bytes, kind: int) -> re.Pattern[bytes]:
    """A regex finding ``lit`` where an anchor of ``kind`` can be (literal first: ``re`` then scans at C speed)."""
    esc = re.escape(lit)
    if kind == _INNER:
        return re.compile(esc)
    tail = b"(?![a-z])" if kind == _WORD else b""
    # A word starts after a non-letter or after an escaped blank (``\n``, which the rules read as a separator).
    return re.compile(esc + b"(?:(?<![a-z]" + esc + b")|(?<=\\\\[nrt]" + esc + b"))" + tail)


_LOCATE: dict[_Key, re.Pattern[bytes]] = {key: _locator(*key) for key in _ALL_KEYS}
_LETTERS = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
# Mapped over ``finditer`` at C level: an anchor or a match can occur every few bytes.
_START_OF = re.Match.start
_SPAN = re.Match.span
_NEGATION = re.compile(r"\b(?:never|not|don't|dont|no|cannot|can't|won't|shouldn't|mustn't)\b[^.\n]{0,30}$")
_QUOTED_BEFORE = re.compile(
    r"(?:[\"'`“‘]|\b(?:such as|e\.g\.?|for example|for instance|phrases? like|attacks? like|patterns? like|"
    r"instructions? like|like|e\.g\.,))\s{0,3}$"
)
_STRUCTURAL = frozenset(
    {
        "secret.call",
        "secret.call_json",
        "tool.json_call",
        "tool.xml_call",
        "tool.yaml_call",
        "tool.shell",  # an install line (``curl ... | sh``) in a code fence is documentation
        "role.chatml",
        "role.inst",
    }
)


def _in_code_fence(folded: str, pos: int) -> bool:
    """True when ``pos`` lies inside a Markdown code fence (looks back a bounded distance)."""
    return folded.count("```", max(0, pos - 4000), pos) % 2 == 1


# A string literal opened on the same line by an assignment or a call (``x = "...``, ``f("...``): a test
# fixture or an example in code, not text addressed to the reader.
_CODE_STRING_OPEN = re.compile(
    r"[\x20\t]{0,40}(?:[\w.\[\]'\"-]{1,60}[\x20\t]{0,4}(?:=|\+=|:)[\x20\t]{0,4}|[\w.]{1,60}\()[rbfu]{0,2}([\"'])"
)


def _in_inline_code(folded: str, start: int) -> bool:
    """True when ``start`` lies in a Markdown code span of its line (an odd number of backticks before it)."""
    lo = folded.rfind("\n", max(0, start - 400), start) + 1
    return folded.count("`", lo, start) % 2 == 1


def _code_follows(folded: str, start: int) -> bool:
    """True when a code fence or an indented block opens within two lines after the line of ``start``."""
    return _FENCE_NEXT.match(folded, start) is not None


_FENCE_NEXT = re.compile(r"[^\n]{0,300}\n(?:[\x20\t]*\n){0,2}[\x20\t]{0,3}(?:```|~~~)")


def _in_code_string(folded: str, start: int) -> bool:
    """True when ``start`` lies in a string literal that an assignment or call on its line opened."""
    lo = folded.rfind("\n", max(0, start - 400), start) + 1
    m = _CODE_STRING_OPEN.match(folded, lo, start)
    return m is not None and folded.find(m.group(1), m.end(), start) < 0


def _in_short_literal(folded: str, start: int) -> bool:
    """True when a chat-template token at ``start`` lies in a short quoted literal on its line (template code)."""
    lo = max(folded.rfind("\n", max(0, start - 60), start) + 1, start - 60)
    hi = folded.find("\n", start, start + 80)
    line = folded[lo : hi if hi >= 0 else start + 80]
    pos = start - lo
    for q in "'\"":
        left = line.rfind(q, 0, pos)
        right = line.find(q, pos)
        # Quotes of a literal, not apostrophes ("it's ... don't"): no letter or digit outside them.
        if (
            left >= 0
            and right >= 0
            and line.count(q, 0, left) % 2 == 0
            and not line[left - 1 : left].isalnum()
            and not line[right + 1 : right + 2].isalnum()
        ):
            return True
    return False


# A chat-template token named in prose: after "tokens", "like", "uses", ... or before "and" / "or" another one.
_TOKEN_NAMED_BEFORE = re.compile(
    r"(?:\band|\bor|,|\btokens?|\btags?|\bmarkers?|\bdelimiters?|\blike|\bsuch as|\be\.g\.,?|\buses?|\bemits?"
    r"|\bwith|\bbetween|\bin"
    # a sentence about what a template or a model does with the token ("the template inserts <|...|>")
    r"|\b(?:contains?|inserts?|outputs?|appends?|prepends?|adds?|prints?|returns?|generates?|produces?|writes?"
    r"|sees?|reaches|before|after|until)"
    # the role name between two tokens of one header, on one line (``<|start_header_id|>assistant<|end_...``)
    r"|\|>[a-z]{2,12})"
    r"[\x20\t]{0,3}$"
)
_TOKEN_NAMED_AFTER = re.compile(
    r"[^\s]{0,24}[\x20\t]{1,3}(?:and|or|,)[\x20\t]{1,3}(?:</?\||\[/?inst|<<?/?sys|<(?:start|end)_)"
    r"|[^\s]{0,24}[\x20\t]{1,3}(?:special[\x20\t])?(?:tokens?|tags?|markers?|delimiters?)\b"
    # the part of a prompt the token opens ("inside the first [INST] block"), not an order to block something
    r"|[^\s]{0,24}[\x20\t]{1,3}(?:blocks?|sections?)\b(?![\x20\t]+(?:the|all|any|every|each|access|users?)\b)"
)
# A request that is a function call (``print(system_prompt)``, ``get_password(user)``): code, not an order.
_CALL_AT = re.compile(r"[a-z_][\w.]{0,40}\(")


# What a rule describes rather than orders: "how to override settings", "strategies that discard content", "a way
# for extensions to ignore rules" (documentation of a feature, not an order to the reader).
_DESCRIBES_BEFORE = re.compile(
    r"(?:\bhow to|\bused to|\bable to|\bways? to|\ballows? (?:[\w-]{1,20} )?to|\blets? (?:[\w-]{1,20} )?"
    r"|\bpriorities to|\bfor [\w-]{1,20} to|\bthat|\bwhich)[\x20\t]{1,3}$"
)
# A noun phrase, not an address: "the SYSTEM message for the model", "contains instructions for the LLM".
_NOUN_BEFORE = re.compile(
    r"\b(?:the|a|an|contains?|containing|includes?|including|provides?|providing|with|of|its|their|our|these|those"
    r"|some|any|no|system|user|assistant|example|sample|custom)[\x20\t]{1,3}$"
)
# A code comment ("# Ignore constraints with excluded fields.", "// ignore errors"): an order to a model there names
# what it overrides as all / previous / your ... instructions.
_COMMENT_LINE = re.compile(r"[\x20\t]{0,40}(?:#|//|/\*|\*|--)[\x20\t]{0,4}$")
_QUALIFIED = re.compile(
    r"\b(?:all|any|every|previous|prior|above|earlier|preceding|original|initial|your|my|everything|instructions?|prompts?)\b"
)
# A command described in a list of commands (man pages, tldr, READMEs): the line ends with ":" and the next
# non-blank line is code ("- List all environment variables:\n\n`set`").
_COMMAND_NEXT = re.compile(r"[^\n]{0,200}:[\x20\t]*\n(?:[\x20\t]*\n){0,2}(?:`|\x20{4}|\t|\$ )")
_LIST_ITEM = re.compile(r"[\x20\t]{0,8}[-*+][\x20\t]{1,4}")
# A table-of-contents link whose label is its anchor ("[SYSTEM](#system)"), not a fake "[system](#context)" turn.
_TOC_LINK = re.compile(r"\[([\w-]{1,30})\] ?\(#\1\)")
# A Markdown link whose text names a role ("[system prompt](https://...)", "[System](./system.md)"): a link to docs.
_MD_LINK = re.compile(r"\[[^\]\n]{1,60}\]\((?:https?://|\.{0,2}/)")


def _describes_command(folded: str, start: int) -> bool:
    """A list item describing a command: "- List all environment variables:" with the command on a next line."""
    lo = folded.rfind("\n", max(0, start - 400), start) + 1
    return _LIST_ITEM.match(folded, lo) is not None and _COMMAND_NEXT.match(folded, lo) is not None


# Writing a prompt of one's own ("write a system prompt", "provide a custom system prompt"): docs, not extraction.
_AUTHORING_AT = re.compile(
    r"(?:write|create|design|craft|draft|build|compose|make|add|set|define|provide|give|pass|use)[\x20\t]{1,3}"
    r"(?:an?|new|custom|good|better|short|your own|their own|my own)\b"
)
# A chat-template token followed by a template placeholder ("<|im_start|>{role}", "<|im_start|>{{ message.role }}"):
# the template's own text in docs.
_TOKEN_TEMPLATE_AT = re.compile(r"<\|[a-z_]{2,30}\|>\{\{?[\x20\t]{0,2}[\w.\[\]'\"]{1,40}")
# A code line assigning a literal (``SYSTEM_PROMPT = "You are ..."``, ``ignore_previous_instructions = False``).
_CODE_ASSIGN = re.compile(
    r"[\x20\t]{0,40}[a-z_][\w.\[\]'\"]{0,60}[\x20\t]{0,4}(?::[\x20\t]{0,4}[\w.\[\]]{1,30}[\x20\t]{0,4})?=[\x20\t]{0,4}"
    r"(?:[rbfu]{0,2}[\"']|true\b|false\b|none\b|null\b|-?\d)"
)
_CAMEL_CASE = re.compile(r"[A-Z][a-z]{2,20}(?:[A-Z][a-z]{1,20}){1,4}")
# Documentation of a model's tool-call format: "the model answers with <tool_call>...", "it emits {...}".
_DESCRIBES_TOOL = re.compile(
    r"\b(?:it|model|llm|assistant|which|that)[\x20\t](?:[\w-]{1,20}[\x20\t]){0,2}?(?:answers?|replies|responds"
    r"|returns|emits|outputs|generates|produces|sends|writes)[\x20\t](?:with[\x20\t]|an?[\x20\t]|like[\x20\t])?"
    r"(?:<[a-z_]{1,20}>\s{0,3})?$"  # the call's own tag may come first (``outputs <tool_call>\n{...}``)
)
_IDENTIFIER_AT = re.compile(r"[a-z]{2,20}_[a-z]")
_VERB_ON_IDENTIFIER_AT = re.compile(r"[a-z]{2,12}[\x20\t]{1,3}(?:self\.|this\.|cls\.)?[a-z]{1,20}_[a-z_]{1,30}\b")
_VERB_IDENTIFIER_AT = re.compile(r"(?:ignore|disregard|forget|skip|override|bypass|disable)_[a-z]")
_OVERRIDE_RULES = frozenset({"override.ignore", "override.override", "override.unrestricted"})
# The character before a match that glues it into an identifier or a decorator (round 9): ``_``, ``@``, or a ``.``
# after a letter or digit (``self.system_prompt``; a sentence's full stop is followed by a blank, not a letter).
_GLUED_BEFORE = re.compile(r"[_@]|(?<=[a-z0-9])\.")


def _downgraded(rule_id: str, folded: str, start: int) -> bool:
    """Quoted or exemplified attacks (docs, code literals) and code-fenced structure are reported, not blocked.

    So are features described rather than ordered ("how to override settings"), noun phrases that name a message
    for a model, unqualified orders in code comments, and commands described in a list of commands.
    """
    if rule_id in _STRUCTURAL:
        return _structure_downgraded(rule_id, folded, start)
    if (start and _GLUED_BEFORE.match(folded, start - 1)) or _IDENTIFIER_AT.match(folded, start):
        return True  # the match starts inside an identifier (``_system_prompt``, ``additional_instructions``): code
    if rule_id == "secret.read_sensitive" and _in_inline_code(folded, start):
        return True
    if rule_id == "role.tag" and (_TOC_LINK.match(folded, start) or _MD_LINK.match(folded, start)):
        return True
    if rule_id.startswith("secret.") and (
        _CALL_AT.match(folded, start)
        or _IDENTIFIER_AT.match(folded, start)  # a verb glued into an identifier ("print_streaming_chunk")
        or _VERB_ON_IDENTIFIER_AT.match(folded, start)  # a statement on a variable ("return system_prompt + ...")
        or (rule_id in ("secret.credentials", "secret.prompt") and _describes_command(folded, start))
    ):
        return True
    if rule_id in _OVERRIDE_RULES and _VERB_IDENTIFIER_AT.match(folded, start):
        return True  # the order's verb glued into an identifier (``ignore_previous_instructions = False``): code
    if rule_id.startswith("override.") and _describes_command(folded, start):
        return True
    if rule_id in _OVERRIDE_RULES and _override_described(folded, start):
        return True
    if rule_id == "inject.note_to_ai" and _NOUN_BEFORE.search(folded, max(0, start - 20), start):
        return True
    if rule_id == "secret.credentials" and re.match(r"(?:tell|give|share) us your\b", folded[start : start + 20]):
        return True
    if rule_id == "secret.prompt" and _AUTHORING_AT.match(folded, start):
        return True  # "how to write a system prompt for your assistant": authoring one, not asking for ours
    if _QUOTED_BEFORE.search(folded, max(0, start - 24), start):
        return True
    if _in_code_string(folded, start):
        return True
    if rule_id in ("secret.credentials", "secret.prompt", "override.ignore", "override.unrestricted"):
        return _NEGATION.search(folded, max(0, start - 40), start) is not None
    return False


def _structure_downgraded(rule_id: str, folded: str, start: int) -> bool:
    """`_downgraded` for a structural rule: a role token named or quoted, a tool call in code or described."""
    if rule_id in ("role.chatml", "role.inst") and (
        _TOKEN_TEMPLATE_AT.match(folded, start)
        or folded.endswith("}", 0, start)  # after a placeholder: ``{content}<|im_end|>``
        or _in_short_literal(folded, start)
        or _in_code_string(folded, start)
        or _TOKEN_NAMED_BEFORE.search(folded, max(0, start - 24), start)
        or _TOKEN_NAMED_AFTER.match(folded, start)
    ):
        return True
    if rule_id == "tool.shell" and (_in_inline_code(folded, start) or _code_follows(folded, start)):
        return True
    if rule_id.startswith("tool.") and (
        _in_inline_code(folded, start) or _DESCRIBES_TOOL.search(folded, max(0, start - 60), start)
    ):
        return True
    return _in_code_fence(folded, start)


def _override_described(folded: str, start: int) -> bool:
    """An override described ("how to override settings"), or unqualified in a code comment."""
    if _DESCRIBES_BEFORE.search(folded, max(0, start - 40), start):
        return True
    lo = folded.rfind("\n", max(0, start - 400), start) + 1
    return _COMMENT_LINE.fullmatch(folded, lo, start) is not None and not _QUALIFIED.search(folded, start, start + 80)


# The letter run after an escaped blank: splitting at escapes adds exactly these runs to the plain split.
_AFTER_ESCAPE = re.compile(rb"\\[nrt]([a-z]+)")


def _tokens(raw: bytes, letters: bytes, lo: int, hi: int) -> set[bytes]:
    """The distinct letter runs of ``raw[lo:hi]``, also split at escaped blanks (a backslash-n, a rule separator).

    ``letters`` is ``raw`` with every non-letter made a space.
    """
    toks = set((letters[lo:hi] if hi - lo < len(letters) else letters).split())
    if raw.find(b"\\", lo, hi) >= 0:
        toks.update(_AFTER_ESCAPE.findall(raw, lo, hi))
    return toks


_RunInfo: TypeAlias = tuple[frozenset[_Key], frozenset[re.Pattern[bytes]]]
_NO_ANCHOR: _RunInfo = (frozenset(), frozenset())
# What `_run_info` found per distinct letter run: the runs that start or hold no anchor (most of them) in a set, so
# a text's unseen or anchored runs are one C-level set difference away; the others by run. Bounded (a run is
# remembered only while there is room, and only when short), so a flood of random words costs the same as before.
_PLAIN_RUNS: set[bytes] = set()
_RUN_INFO: dict[bytes, _RunInfo] = {}
_MEMO_RUNS = 1 << 17
_MEMO_LEN = 40


def _run_info(run: bytes) -> _RunInfo:
    """The word-start and inner anchors one letter run holds, and the punctuation groups its start can open.

    What one regex over the joined runs (each run's longest word-start anchor or stem, then `_SHORTER`) and a
    substring probe per inner letter anchor give for this run alone; remembered (`_PLAIN_RUNS`, `_RUN_INFO`).
    """
    m = _START_RX.match(b" " + run)
    keys, rxs = _SHORTER[m.group(1)] if m is not None else _NO_ANCHOR
    inner = [(lit, _INNER) for head, lits in _INNER_BY_HEAD if head in run for lit in lits if lit in run]
    if inner:
        keys = keys.union(inner)
    info = (keys, rxs) if keys or rxs else _NO_ANCHOR
    if len(run) <= _MEMO_LEN and len(_PLAIN_RUNS) + len(_RUN_INFO) < _MEMO_RUNS:
        if info is _NO_ANCHOR:
            _PLAIN_RUNS.add(run)
        else:
            _RUN_INFO[run] = info
    return info


def _joined(toks: AbstractSet[bytes]) -> bytes:
    """The letter runs ``toks`` joined, each after a space."""
    return b" " + b" ".join(toks)


def _present(toks: set[bytes], raw: bytes, lo: int, hi: int) -> tuple[set[_Key], dict[_Key, list[int]]]:
    """The anchors that occur in ``raw[lo:hi]`` (letter runs ``toks``) and the punctuation anchors' positions.

    One set intersection for whole-word anchors; the word-start and inner anchors (and punctuation stems) each
    run holds come from `_run_info`, remembered per distinct run, so only runs never seen before cost more than
    a set difference; one literal-first regex per first character for the punctuation anchors that can occur.
    """
    words = _WORD_LITS.intersection(toks)
    present: set[_Key] = {(lit, _WORD) for lit in words} if words else set()
    scans = {rx for rx, last, first in _STEMLESS if raw.find(last, lo, hi) >= 0 and raw.find(first, lo, hi) >= 0}
    for run in toks.difference(_PLAIN_RUNS):  # most runs of tool output were seen before and start no anchor
        info = _RUN_INFO.get(run) or _run_info(run)
        if info is not _NO_ANCHOR:
            keys, rxs = info
            present |= keys
            if rxs:
                scans |= rxs
    punct: dict[_Key, list[int]] = {}
    if len(scans) == 1:
        # One group's matches neither overlap nor need sorting or a tuple each (text packed with "<|" has one
        # every few bytes); when only one of its literals occurs at all, every match is that one (a literal
        # with a stem can occur only where a letter run starts with it).
        (rx,) = scans
        at = list(map(_START_OF, rx.finditer(raw, lo, hi)))
        joined = _joined(toks) if len(at) > 64 else b""  # empty: no stem occurs, ``occur`` is empty
        occur = [lit for lit, stem in _GROUP_LITS[rx] if stem in joined and raw.find(lit, lo, hi) >= 0]
        if len(occur) == 1:
            punct[(occur[0], _INNER)] = at
        elif len(at) <= 64:  # a few: which literal each one is, without scanning the text again
            for i in at:
                m = rx.match(raw, i)
                if m is not None:
                    punct.setdefault((m.group(), _INNER), []).append(i)
        else:
            got = rx.findall(raw, lo, hi)
            for i, lit in zip(at, got, strict=True):
                punct.setdefault((lit, _INNER), []).append(i)
        present.update(punct)
        return present, punct
    found: list[tuple[int, bytes]] = []
    for rx in scans:
        found += [(m.start(), m.group()) for m in rx.finditer(raw, lo, hi)]
    if found:
        # What one scan for all of them finds: an occurrence overlapping an earlier one ("(system" inside
        # "[(system") is not one (no punctuation anchor is a prefix of another, so one starts at a position).
        found.sort()
        end = -1
        for i, lit in found:
            if i >= end:
                punct.setdefault((lit, _INNER), []).append(i)
                end = i + len(lit)
        present.update(punct)
    return present, punct


# Large texts are split into parts of at least _CHUNK bytes at newlines (no letter run, escape or anchor spans
# a newline), so a rule is considered only in the parts where its anchors occur and its gate is open: in a
# 2 MB log every anchor occurs somewhere, but rarely next to the gate words. A part's gate is read from its
# own letter runs and its two neighbours': more than _CHUNK bytes either side, beyond any match's reach from
# its anchor (before + literal + after) and beyond how far merged windows of neighbouring parts extend.
_CHUNK = 16_384


# Every distinct gate group, numbered, and each rule's groups by number: in a large text the open groups of each
# part are found once, and a rule's gate is then one subset test against those of the part and its neighbours.
_GATE_GROUPS: tuple[frozenset[bytes], ...] = tuple(sorted({g for rule in _RULES for g in rule.gate}, key=sorted))
# A rule's ``tails`` is one more group, numbered after them.
_TAILED: frozenset[int] = frozenset(i for i, rule in enumerate(_RULES) if rule.tails)
_TAILS: tuple[re.Pattern[bytes], ...] = tuple({rule.tails: None for rule in _RULES if rule.tails})
_GATE_IDS: tuple[frozenset[int], ...] = tuple(
    frozenset(map(_GATE_GROUPS.index, rule.gate))
    | ({len(_GATE_GROUPS) + _TAILS.index(rule.tails)} if rule.tails else set())
    for rule in _RULES
)


# The words of all rules' ``starts``: those that are letter runs of a text tell `_window_matches` which to look for.
_START_WORDS: frozenset[bytes] = frozenset(w for rule in _RULES for w in rule.starts)


def _gate_open(gate: tuple[frozenset[bytes], ...], toks: Iterable[bytes]) -> bool:
    """Whether every gate group has a word among the letter runs ``toks``."""
    for group in gate:  # noqa: SIM110 (a loop is cheaper than all() over a generator, on the hot path)
        if group.isdisjoint(toks):
            return False
    return True


def _reversed(toks: Iterable[bytes]) -> bytes:
    """The letter runs ``toks`` joined, each after a space, and the whole reversed (what ``tails`` reads)."""
    return (b" ".join(toks) + b" ")[::-1]


def _tails_open(tails: re.Pattern[bytes] | None, back: bytes) -> bool:
    """Whether a letter run ends with one of the rule's ``tails`` (``back``: the runs by `_reversed`)."""
    return tails is None or tails.search(back) is not None


def _anchor_hits(
    raw: bytes, letters: bytes, runs: set[bytes] | None = None, spaced: bytes | None = None
) -> tuple[list[_Rule], dict[_Key, list[int]], AbstractSet[bytes], set[bytes] | None, set[bytes]]:
    """The rules that can match (an anchor occurs, the gate is open), their anchors' positions, the start words.

    ``letters`` is ``raw`` with every non-letter a space; the start words are those of `_START_WORDS` that are
    letter runs of the text; then the text's letter runs when it is one part (else None), and last the letter runs
    of the whole text (the union of the parts' in a large text: the views read them). Only the anchors
    of the open rules are located, each by one C-level regex scan (in a large text, one over each run of
    consecutive parts that need it). ``runs``: the letter runs of the whole text when already computed.

    ``spaced`` (``letters`` framed by blanks): a large text is read through the sieve part by part
    (`_quiet_parts`); a part where no rule can match is then passed over as a part whose gates are closed, and the
    letter runs returned last are only the known ones (`contextfold._guard._sieve.known_runs`), all the views, the
    Latin pass and the learned model ask about.
    """
    n = len(raw)
    hits: dict[_Key, list[int]] = {}
    active: set[int] = set()
    if n <= 2 * _CHUNK:
        toks = _tokens(raw, letters, 0, n) if runs is None else runs
        _open_part(raw, toks, None, 0, n, hits, None, active)
        if not active:
            return [], hits, frozenset(), toks, toks
        return [_RULES[i] for i in sorted(active)], hits, _START_WORDS.intersection(toks), toks, toks
    bounds = [0]
    while n - bounds[-1] > 2 * _CHUNK:
        nl = raw.find(b"\n", bounds[-1] + _CHUNK)
        if nl < 0:
            break
        bounds.append(nl)
    bounds.append(n)
    count = len(bounds) - 1
    if spaced is None:
        live = list(range(count))
        known: set[bytes] | None = None
    else:
        live, known = _quiet_parts(raw, letters, spaced, bounds)
    # The parts whose gates are read: the live ones and their neighbours.
    read = sorted({k for j in live for k in range(max(0, j - 1), min(count, j + 2))})
    parts = {j: _tokens(raw, letters, bounds[j], bounds[j + 1]) for j in read}
    opened = {j: {k for k, g in enumerate(_GATE_GROUPS) if not g.isdisjoint(toks)} for j, toks in parts.items()}
    for k, rx in enumerate(_TAILS, len(_GATE_GROUPS)):
        for j, toks in parts.items():
            if rx.search(_reversed(toks)):
                opened[j].add(k)
    need: dict[_Key, list[tuple[int, int]]] = {}
    for j in live:
        near = opened[j].union(*(opened[k] for k in range(max(0, j - 1), min(count, j + 2))))
        _open_part(raw, parts[j], near, bounds[j], bounds[j + 1], hits, need, active)
    for key, spans in need.items():
        # Parts meet at a newline, which no anchor contains or borders on: one scan across them finds the same.
        found = hits.setdefault(key, [])
        lo, hi = spans[0]
        for a, b in [*spans[1:], (n + 1, n + 1)]:
            if a == hi:
                hi = b
                continue
            found += map(_START_OF, _LOCATE[key].finditer(raw, lo, hi))
            lo, hi = a, b
    if known is None:
        known = set().union(*parts.values())
    return [_RULES[i] for i in sorted(active)], hits, _START_WORDS.intersection(known), None, known


# A large text is read through the sieve in parts (its own `_CHUNK` parts), each with this margin either side: a
# match of a rule lies within its anchor's declared reach (before + literal + after, which the windows and the
# parts' gates rely on too), so one that holds a character of the part lies inside the part and its margins. The
# rule words are counted in blocks of about _BLOCK bytes (what `contextfold._guard._sieve.MAX_WORDS` bounds in one
# text): a denser block leaves its part unsearched.
_REACH = max(before + span for rule in _RULES for _key, before, span in rule.reach)
_BLOCK = 4096


def _quiet_parts(raw: bytes, letters: bytes, spaced: bytes, bounds: list[int]) -> tuple[list[int], set[bytes]]:
    """The parts of a large text (between ``bounds``) where a rule can match, and the known runs of the whole text.

    A part the sieve clears, with `_REACH` bytes either side, holds no character of any match: no anchor of it
    can give one, so it is read as a part with its gates closed (what the parts are already read as when its words
    open no rule). The known letter runs (`contextfold._guard._sieve.known_runs`) of each block, and the runs after
    escaped blanks, stand for the text's runs where the views, the Latin pass and the learned model read them.
    """
    live: list[int] = []
    known: set[bytes] = set()
    n = len(raw)
    for j, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        blocks: list[set[bytes]] = []
        a = lo
        while a < hi:
            # Cut at a non-letter: every run lies in one block, framed by blanks in ``spaced[a : b + 2]``.
            b = letters.find(b" ", a + _BLOCK, hi) if a + _BLOCK < hi else -1
            b = hi if b < 0 else b
            blocks.append(known_runs(spaced[a : b + 2]))
            a = b
        known.update(*blocks)
        if raw.find(b"\\", lo, hi) >= 0:
            known.update(_AFTER_ESCAPE.findall(raw, lo, hi))
        if may_match_in(raw, max(0, lo - _REACH), min(n, hi + _REACH), blocks):
            live.append(j)
    return live, known


def _open_part(
    raw: bytes,
    toks: set[bytes],
    near: set[int] | None,
    lo: int,
    hi: int,
    hits: dict[_Key, list[int]],
    need: dict[_Key, list[tuple[int, int]]] | None,
    active: set[int],
) -> None:
    """Add the rules open in ``raw[lo:hi]`` to ``active`` and locate their anchors there.

    ``toks`` are the letter runs of ``raw[lo:hi]``. In a large text ``near`` holds the gate groups open in the
    part and its neighbours, and the anchors other than punctuation ones (found already) are not located
    here: ``(lo, hi)`` goes to ``need``.
    """
    present, punct = _present(toks, raw, lo, hi)
    if not present:
        return
    idx: set[int] = set().union(*map(_BY_KEY.__getitem__, present))
    if near is None:
        here = {i for i in idx if not (gate := _RULES[i].gate) or _gate_open(gate, toks)}
        if not _TAILED.isdisjoint(here):
            back = (_joined(toks) + b" ")[::-1]  # `_reversed` of the runs, and a space after (never a tail's start)
            here -= {i for i in _TAILED.intersection(here) if not _tails_open(_RULES[i].tails, back)}
    else:
        here = {i for i in idx if _GATE_IDS[i] <= near}
    if not here:
        return
    active |= here
    for key in present:
        if here.isdisjoint(_BY_KEY[key]):
            continue
        if key in punct:
            hits.setdefault(key, []).extend(punct[key])
        elif need is not None:
            need.setdefault(key, []).append((lo, hi))
        else:
            hits[key] = list(map(_START_OF, _LOCATE[key].finditer(raw, lo, hi)))


@dataclass(slots=True)
class _Text:
    """A scanned text in the forms the windowed rules read."""

    folded: str
    raw: bytes  # ``folded`` as one byte per character (non-ASCII as ``?``)
    spaced: bytes  # ``raw`` with every non-letter a space, one space added at each end
    starts: AbstractSet[bytes]  # the words of any rule's ``starts`` that are letter runs of the text
    # The letter runs of a text of one part without a backslash (else None): `_window_open` then tests a gate in
    # a window without splitting it, from each group's words among them (``groups``, filled as rules ask).
    toks: AbstractSet[bytes] | None = None
    groups: dict[frozenset[bytes], tuple[bytes, ...]] = field(default_factory=dict)


def _window_open(t: _Text, toks: AbstractSet[bytes], group: frozenset[bytes], a: int, b: int) -> bool:
    """Whether a word of ``group`` is a letter run of ``raw[a:b]`` (a text without a backslash; ``toks``: its runs).

    What ``group.isdisjoint(spaced[a + 1 : b + 1].split())`` negated tells, without the split: a run of the
    window is a whole run of the text (one C-level ``find`` per word of the group that is a run of the text),
    or the window's first or last run, which the window's edge may cut.
    """
    words = t.groups.get(group)
    if words is None:
        words = t.groups[group] = tuple(group.intersection(toks))
    spaced = t.spaced
    for w in words:
        if spaced.find(b" " + w + b" ", a, b + 2) >= 0:
            return True
    b = min(b, len(t.raw))
    if a >= b:
        return False
    if spaced[a + 1] != 32:  # the first run starts at the edge: up to its end or the window's
        e = spaced.find(b" ", a + 1, b + 1)
        if spaced[a + 1 : e if e >= 0 else b + 1] in group:
            return True
    if spaced[b] != 32:  # the last run ends at the edge
        return spaced[max(spaced.rfind(b" ", a + 1, b + 1), a) + 1 : b + 1] in group
    return False


def _runs_at(t: _Text, word: bytes, lo: int, hi: int, whole: bool = True) -> list[int]:
    r"""Where a letter run inside ``raw[lo:hi]`` is ``word`` (``whole``) or starts with it, in order.

    Runs are what `_tokens` splits out. One C-level ``find`` per occurrence in the spaced letters (there a run
    has a space before it and, when whole, after it; index ``i`` of ``spaced`` is the character before
    ``raw[i]``); a window holding a backslash is read from ``raw``, since a run may also start after an
    escaped blank (``\nword``).
    """
    raw = t.raw
    out: list[int] = []
    if raw.find(b"\\", max(0, lo - 2), hi) < 0:
        pat, end = (b" " + word + b" ", hi + 2) if whole else (b" " + word, hi + 1)
        i = t.spaced.find(pat, lo, end)
        while i >= 0:
            out.append(i)
            i = t.spaced.find(pat, i + 1, end)
        return out
    n, size = len(raw), len(word)
    i = raw.find(word, lo, hi)
    while i >= 0:
        j = i + size
        if (not whole or j >= n or not 97 <= raw[j] <= 122) and (
            i == 0 or not 97 <= raw[i - 1] <= 122 or (i >= 2 and raw[i - 2] == 92 and raw[i - 1] in b"nrt")
        ):
            out.append(i)
        i = raw.find(word, i + 1, hi)
    return out


def _heads_at(t: _Text, head: bytes, kind: int, lo: int, hi: int) -> list[int]:
    """Where ``head`` of ``kind`` (a word, a word start, punctuation anywhere) occurs in ``raw[lo:hi]``, in order."""
    if kind != _INNER:
        return _runs_at(t, head, lo, hi, whole=kind == _WORD)
    out: list[int] = []
    i = t.raw.find(head, lo, hi)
    while i >= 0:
        out.append(i)
        i = t.raw.find(head, i + 1, hi)
    return out


def _head_finders(rule: _Rule) -> tuple[re.Pattern[bytes] | None, re.Pattern[bytes] | None, tuple[bytes, ...]]:
    """For `_head_starts`: one regex finding the rule's whole-word heads and one its stem heads, over ``spaced``.

    A trie after the blank before a run (a literal first character, so ``re`` visits only the blanks), looking
    ahead (zero width past that blank), so overlapping heads are all found, as by one ``find`` per head.
    """
    whole = sorted(h for h, kind in rule.heads if kind == _WORD)
    stems = sorted(h for h, kind in rule.heads if kind == _START)
    return (
        re.compile(b" (?=" + _trie(whole) + b" )") if whole else None,
        re.compile(b" (?=" + _trie(stems) + b")") if stems else None,
        tuple(h for h, kind in rule.heads if kind == _INNER),
    )


_HEAD_FINDERS = {rule.rule_id: _head_finders(rule) for rule in _RULES if rule.heads}


def _head_starts(rule: _Rule, t: _Text, lo: int, hi: int) -> set[int]:
    """Where one of the rule's ``heads`` occurs in ``raw[lo:hi]``: the union of `_heads_at` over them.

    A window without a backslash (a run then starts only after a blank of ``spaced``) is read by two regex scans
    (`_head_finders`) instead of one ``find`` loop per head.
    """
    if t.raw.find(b"\\", max(0, lo - 2), hi) >= 0:
        return {i for h, kind in rule.heads for i in _heads_at(t, h, kind, lo, hi)}
    whole, stems, punct = _HEAD_FINDERS[rule.rule_id]
    at: set[int] = set()
    if whole is not None:
        at.update(map(_START_OF, whole.finditer(t.spaced, lo, hi + 2)))
    if stems is not None:
        at.update(map(_START_OF, stems.finditer(t.spaced, lo, hi + 1)))
    for h in punct:
        at.update(_heads_at(t, h, _INNER, lo, hi))
    return at


def _match_at(rule: _Rule, t: _Text, at: set[int], lo: int, hi: int) -> list[re.Match[str]]:
    """What ``finditer`` finds in ``folded[lo:hi]`` when every match starts at one of ``at``: a ``match`` at each.

    Where the candidates are dense (text packed with a start word), ``finditer`` itself is cheaper.
    """
    if len(at) > (hi - lo) >> 5:
        return list(rule.pattern.finditer(t.folded, lo, hi))
    out: list[re.Match[str]] = []
    end = 0
    for i in sorted(at):
        if i >= end:
            m = rule.pattern.match(t.folded, i, hi)
            if m is not None:
                out.append(m)
                end = m.end()
    return out


# With more of a rule's start words in the text, splitting a window is cheaper than looking for each of them.
_FEW_WORDS = 2
# A window this long (merged over text packed with anchors) is left to ``finditer``: collecting dense start
# positions one by one would cost more than it saves.
_LONG_WINDOW = 4096


def _window_matches(rule: _Rule, t: _Text, lo: int, hi: int, words: frozenset[bytes]) -> Iterable[re.Match[str]]:
    """The matches ``finditer`` finds in ``folded[lo:hi]``, without trying every position where it can.

    A gate word is a whole letter run inside every match, so a window whose runs (two bytes more each side keep
    escapes whole) miss a group holds no match: testing that costs far less than running the rule's regex. A
    window without a backslash is tested without splitting it (`_window_open`); the group of start words needs no
    test there (no start word, no candidate). ``words``: the rule's start words that are letter runs of the text,
    or, once the window is split, of the window. With ``starts`` or ``heads``, every match starts where one of
    them occurs, so a short window is tried there only, left to right past the previous match.
    """
    a, b = max(0, lo - 2), hi + 2
    short = hi - lo <= _LONG_WINDOW
    if short and t.toks is not None and t.raw.find(b"\\", a, b) < 0:
        for group in rule.other_gates:
            if not _window_open(t, t.toks, group, a, b):
                return []
    elif rule.other_gates or (rule.starts and (not short or len(words) > _FEW_WORDS)):
        toks = t.spaced[a + 1 : b + 1].split()  # the runs of raw[a:b]
        if t.raw.find(b"\\", a, b) >= 0:
            toks += _AFTER_ESCAPE.findall(t.raw, a, b)
        if not _gate_open(rule.gate, toks):
            return []
        words = rule.starts.intersection(toks)
    if not short:
        return rule.pattern.finditer(t.folded, lo, hi)
    if rule.starts:
        return _match_at(rule, t, {i for w in words for i in _runs_at(t, w, lo, hi)}, lo, hi)
    if rule.heads:
        return _match_at(rule, t, _head_starts(rule, t, lo, hi), lo, hi)
    return rule.pattern.finditer(t.folded, lo, hi)  # consumed lazily: no list of every match in a flood


def _rule_matches(rule: _Rule, t: _Text, hits: dict[_Key, list[int]]) -> Iterable[re.Match[str]]:
    """Matches of ``rule`` in position order, looked for only around its anchors (one ``match`` for a lone anchor).

    A window longer than one anchor's goes to `_window_matches`. Produced lazily, not listed: text packed with an
    anchor gives a match every few bytes, and `_groups` keeps only their positions.
    """
    reach = rule.reach_by_key
    if len(hits) < len(reach):  # the order of ``keyed`` does not matter: windows are sorted
        keyed = [(found, *reach[key]) for key, found in hits.items() if found and key in reach]
    else:
        keyed = [(found, before, span) for key, before, span in rule.reach if (found := hits.get(key))]
    if len(keyed) == 1 and len(keyed[0][0]) > 1:
        return _one_key_matches(rule, t, *keyed[0])
    return _merged_matches(rule, t, keyed)


def _merged_matches(rule: _Rule, t: _Text, keyed: list[tuple[list[int], int, int]]) -> Iterable[re.Match[str]]:
    """`_rule_matches` in general: every anchor's window, sorted and merged where they overlap.

    ``keyed``: per anchor that occurs, its positions, ``before`` and reach past it.
    """
    windows: list[tuple[int, int, int]] = []
    for found, before, span in keyed:  # a window may end past the text: slicing and ``re`` clip it
        if before:
            windows += [(p - before if p > before else 0, p + span, before) for p in found]
        else:
            windows += [(p, p + span, 0) for p in found]
    if not windows:
        return ()
    n = len(t.folded)
    windows.sort()
    windows.append((n + 1, n + 1, 0))
    words = rule.starts.intersection(t.starts)
    out: list[re.Match[str]] = []
    lo, hi, exact = windows[0][0], windows[0][1], windows[0][2] == 0
    for w_lo, w_hi, before in windows[1:]:
        if w_lo <= hi and w_lo <= n:
            hi, exact = max(hi, w_hi), exact and w_lo == lo and before == 0
            continue
        out.extend(_segment(rule, t, lo, hi, not exact, words))
        lo, hi, exact = w_lo, w_hi, before == 0
    return out


def _one_key_matches(rule: _Rule, t: _Text, found: list[int], before: int, span: int) -> Iterable[re.Match[str]]:
    """`_rule_matches` when one anchor has all the hits (text packed with it): the same windows, merged at C speed.

    Its windows come in order with equal reach, so two consecutive ones merge exactly when the gap between their
    anchors is at most ``before + span``; only the gaps that split them are looked at in Python.
    """
    n, reach = len(found), before + span
    cuts: list[int] = []
    a = 0
    while True:
        # No gap over ``reach`` between anchors less than ``reach`` apart: jump to the last of them (bisect), so
        # dense anchors cost one step per ``reach`` bytes.
        b = bisect_right(found, found[a] + reach, a) - 1
        if b == n - 1:
            break
        if b == a or found[b + 1] - found[b] > reach:
            cuts.append(b + 1)
            b += 1
        a = b
    cuts.append(n)
    words = rule.starts.intersection(t.starts)
    segments = (
        _segment(
            rule, t, found[a] - before if found[a] > before else 0, found[b - 1] + span, b - a > 1 or before > 0, words
        )
        for a, b in itertools.pairwise([0, *cuts])
    )
    return next(segments) if len(cuts) == 1 else itertools.chain.from_iterable(segments)


def _segment(rule: _Rule, t: _Text, lo: int, hi: int, merged: bool, words: frozenset[bytes]) -> Iterable[re.Match[str]]:
    """The matches in one merged window (``merged``), or of one ``match`` at its anchor."""
    if merged:
        return _window_matches(rule, t, lo, hi, words)
    m = rule.pattern.match(t.folded, lo, hi)
    return () if m is None else (m,)


def _excerpt(text: str, start: int, end: int) -> str:
    snippet = text[start:end]
    if len(snippet) > _EXCERPT:
        snippet = snippet[: _EXCERPT - 1] + "…"
    return " ".join(snippet.split())


# Cost bound for text packed with attack words: matches of one rule closer than _MERGE_GAP characters are one
# finding, and after _MAX_FINDINGS findings of a rule the rest of its matches become one last finding spanning
# them all (everything that matched is still covered by a blocked span).
_MERGE_GAP = 8
_MAX_FINDINGS = 64


def _groups(matches: Iterable[re.Match[str]]) -> list[tuple[list[int], int]]:
    """Matches of one rule grouped: adjacent ones merged, at most ``_MAX_FINDINGS`` groups; each group's starts and end.

    A match starting at most ``_MERGE_GAP`` past the furthest end so far (or before it: windows overlap) joins the
    last group, so a group ends at that furthest end when the next one opens. Text packed with an anchor gives a
    match every few bytes: one tight pass keeping ints, not match objects.
    """
    groups: list[list[int]] = []
    ends: list[int] = []
    last: list[int] = []
    last_end = -(1 << 30)
    for start, end in map(_SPAN, matches):
        if end == start:
            continue
        if start - last_end > _MERGE_GAP and len(groups) < _MAX_FINDINGS:
            if groups:
                ends.append(last_end)
            last = [start]
            groups.append(last)
        else:
            last.append(start)
        if end > last_end:
            last_end = end
    ends.append(last_end)
    return list(zip(groups, ends, strict=False))  # no match: no group (``ends`` holds only the start value)


def scan_injection(text: str, learned: bool = False) -> list[Finding]:
    """Every rule match in ``text`` and in the views of it that apply (`contextfold._guard._views`), by position.

    Spans index the original text. A match whose span overlaps an earlier match of the same rule is dropped;
    matches of one rule fewer than 8 characters apart are merged into one finding, and a rule reports at most 64
    findings per text (the last one spans all its remaining matches), so text packed with attack words stays
    cheap and is still fully blocked. A match that is quoted or given as an example (security docs), a request
    preceded by a negation ("never print the token"), and tool-call syntax inside a Markdown code fence are
    reported as low severity. With ``learned``, the learned model (`contextfold._guard._learned`) reads the
    windows around words that address a reader, and a window it scores above its threshold, where no blocking
    rule finding lies, is a medium ``learned.injection`` finding.
    """
    return _scan(text, views=True, learned=learned)


def _plain_scan(text: str) -> list[Finding]:
    return _scan(text, views=False, learned=False)


def _unsieved_plain_scan(text: str) -> list[Finding]:
    return _scan(text, views=False, learned=False, sieve=False)


def _view_scan(text: str) -> list[Finding]:
    """The scan of a decoded view (base64, rot13, reversed, ...): the rules and the learned model, no views."""
    return _scan(text, views=False, learned=True)


def _unsieved_view_scan(text: str) -> list[Finding]:
    return _scan(text, views=False, learned=True, sieve=False)


def _learned_findings(
    text: str, norm: Normalized, raw: bytes, spaced: bytes, runs: set[bytes], findings: list[Finding]
) -> list[Finding]:
    """The learned model's windows above its threshold that no blocking finding overlaps (spans of ``text``)."""
    windows = trigger_windows(norm.text, raw, spaced, runs)
    if not windows:
        return []
    blocked = [(f.start, f.end) for f in findings if f.blocking]
    out: list[Finding] = []
    folded = norm.text
    for lo, hi, _score in score_windows(load_model(), folded, windows):
        start, end = norm.span(lo, hi)
        if any(s < end and start < e for s, e in blocked):
            continue
        # Like a rule's match: in a code fence, a string literal of code or quoted as an example it is only reported.
        at = first_trigger(raw, spaced, lo, hi)
        low = (
            _in_code_fence(folded, at)
            or _in_code_string(folded, at)
            or _quoted_line(folded, at)
            or _in_chat_turn(folded, at)
            or _CODE_ASSIGN.match(folded, folded.rfind("\n", max(0, at - 400), at) + 1) is not None
            or _names_the_topic(findings, start, end)
        )
        sev: Severity = "low" if low else "medium"
        out.append(Finding("instruction_injection", sev, start, end, _excerpt(text, start, end), _LEARNED_ID))
    return out


def _names_the_topic(findings: list[Finding], start: int, end: int) -> bool:
    """True when the window ``start:end`` (of the original text) talks about system prompts or prompt injection.

    A rule reported the words as a mention (``low.mention``: "system prompt", "prompt injection"; not "jailbreak",
    which attacks name as what they start) and nothing in the window was blocked: docs and security write-ups that
    explain prompts, where the character n-grams of those words are what the model reacts to (round 9).
    """
    for f in findings:
        if f.rule == "low.mention" and f.start < end and start < f.end and "jailbreak" not in f.excerpt.lower():
            return True
    return False


def _latin_findings(
    text: str, norm: Normalized, raw: bytes, runs: AbstractSet[bytes], findings: list[Finding]
) -> list[Finding]:
    """Concepts that meet in English or another Latin-script language (`_guard._latin`) where no rule blocked.

    Medium, or low where one of the words that met is quoted as an example or in a string literal, or the span is in
    a code fence (where a rule's match would be low too).
    """
    spans = latin_spans(raw, runs)
    if not spans:
        return []
    blocked = [(f.start, f.end) for f in findings if f.blocking]
    folded = norm.text
    out: list[Finding] = []
    for lo, hi, met in spans:
        start, end = norm.span(lo, hi)
        if any(s < end and start < e for s, e in blocked):
            continue
        low = _in_code_fence(folded, lo) or any(_downgraded(_LATIN_ID, folded, at) for at in met)
        sev: Severity = "low" if low else "medium"
        out.append(Finding("instruction_injection", sev, start, end, _excerpt(text, start, end), _LATIN_ID))
    return out


# A chat turn written out in YAML or JSON (docs and configs of chat APIs): the ``content`` of a ``role`` line.
_ROLE_LINE = re.compile(
    r"[\x20\t-]{0,12}[\"']?role[\"']?[\x20\t]{0,2}[:=][\x20\t]{0,2}[\"']?(?:system|user|assistant|developer)\b"
)
_CONTENT_OPEN = re.compile(r"[\x20\t-]{0,12}[\"']?content[\"']?[\x20\t]{0,2}[:=]")
_JSON_TURN = re.compile(
    r"[\"']role[\"'][\x20\t]{0,2}:[\x20\t]{0,2}[\"'](?:system|user|assistant|developer)[\"'][\x20\t]{0,2},[\x20\t]{0,2}[\"']content[\"'][\x20\t]{0,2}:"
)


def _in_chat_turn(folded: str, at: int) -> bool:
    """True when ``at`` lies in the content of a chat turn written out as data (a learned window on a system prompt).

    The learned model reads "You are a concise assistant ..." as an order to a reader; in ``role: system`` /
    ``content: ...`` (or ``{"role": "system", "content": ...}``) it is a chat API's documented turn. An override in
    such a turn is the rule ``role.yaml_system``'s.
    """
    lo = folded.rfind("\n", max(0, at - 400), at) + 1
    if _JSON_TURN.search(folded, lo, at):
        return True
    if not _CONTENT_OPEN.match(folded, lo):
        return False
    prev = folded.rfind("\n", max(0, lo - 400), lo - 1) + 1 if lo else 0
    return lo > 0 and _ROLE_LINE.match(folded, prev, lo) is not None


def _quoted_line(folded: str, at: int) -> bool:
    """True when the line of ``at`` quotes an example ("such as ...", "for example: ...") before it."""
    lo = folded.rfind("\n", max(0, at - 400), at) + 1
    return _QUOTED_BEFORE.search(folded, max(lo, at - 24), at) is not None


_LEARNED_ID = "learned.injection"
_TEMPLATE_TOKENS = frozenset({"role.chatml", "role.inst"})


def _scan(text: str, views: bool, learned: bool, sieve: bool = True) -> list[Finding]:
    """`scan_injection` (``views``: and its views; ``learned``: and the learned model).

    A text of one part (at most 32 KB) that `contextfold._guard._sieve` proves no rule can match skips the anchors,
    gates and windows; a larger text skips them in each part the sieve clears (`_quiet_parts`). ``sieve`` False:
    every text and part takes them (what the tests compare against; the views' scans then skip the sieve too).
    """
    norm, raw = fold_bytes(text)  # raw: one byte per character, so offsets are those of ``norm.text``
    folded = norm.text
    letters = raw.translate(_LETTERS)
    spaced = b" " + letters + b" "
    runs: set[bytes] | None = None
    if sieve and len(raw) <= 2 * _CHUNK:  # a text of one part (a larger one almost always holds a rule's words)
        # Its letter runs that the sieve, the views and the learned model ask about (all they read of a cleared
        # text): `_tokens` restricted to those words, by one RE2 pass instead of a set of every run.
        runs = known_runs(spaced)
        if raw.find(b"\\") >= 0:
            runs.update(_AFTER_ESCAPE.findall(raw))
    if runs is not None and not may_match(raw, runs):
        # No rule can match anywhere in the text (`contextfold._guard._sieve`): no anchors, gates or windows.
        rules: list[_Rule] = []
        hits: dict[_Key, list[int]] = {}
        starts: AbstractSet[bytes] = frozenset()
        toks: set[bytes] | None = None
    else:
        # All the runs (the rules read every one), or in a large text read through the sieve the known ones.
        rules, hits, starts, toks, runs = _anchor_hits(raw, letters, None, spaced if sieve else None)
    findings: list[Finding] = []
    if rules:
        t = _Text(folded, raw, spaced, starts, toks)
        for rule in rules:
            matches = _rule_matches(rule, t, hits)
            if not matches:  # an empty tuple or list (an iterator is true): no group
                continue
            for group, group_end in _groups(matches):
                if rule.rule_id in _TEMPLATE_TOKENS:  # adjacent tokens share the context of the first
                    low = _downgraded(rule.rule_id, folded, group[0])
                else:
                    low = all(_downgraded(rule.rule_id, folded, i) for i in group)
                start, end = norm.span(group[0], group_end)
                if not low and rule.rule_id == "override.ignore" and len(group) == 1:
                    low = _CAMEL_CASE.fullmatch(text, start, end) is not None  # an identifier: ``IgnoreRules``
                sev: Severity = "low" if low else rule.severity
                findings.append(Finding(rule.category, sev, start, end, _excerpt(text, start, end), rule.rule_id))
    findings += _latin_findings(text, norm, raw, runs, findings)
    if views:
        if learned:
            view_scan = _view_scan if sieve else _unsieved_view_scan
        else:
            view_scan = _plain_scan if sieve else _unsieved_plain_scan
        findings += view_findings(text, raw, spaced, runs, view_scan, norm.invisible)
    if learned:
        findings += _learned_findings(text, norm, raw, spaced, runs, findings)
    if not findings:
        return findings
    findings = [_context_low(text, _help_low(text, f)) for f in findings]
    findings.sort(key=lambda f: (f.start, f.end, f.rule))
    return _dedupe(findings)


# A line of a command's help or usage text (round 9): an option and its description ("  -f, --force   ignore
# nonexistent files", "-r\t忘记所有已经记住的位置") or a usage line ("用法： [忽略任何命令列引數]"), in any
# language. What it says about ignoring, forgetting or skipping is the program's behaviour, not an order.
_HELP_LINE = re.compile(
    r"[\x20\t]{0,30}(?:-{1,2}[A-Za-z0-9?][\w-]{0,40}(?:\[?[=\x20][^\s]{1,40}\]?)?(?:,[\x20\t]{0,3}-{1,2}[A-Za-z0-9][\w-]{0,40}"
    r"(?:\[?[=\x20][^\s]{1,40}\]?)?)*(?:\t|\x20{2,})"
    r"|(?i:usage|用法|使用法|使い方|사용법|использование|uso|utilisation|verwendung|aufruf)[\x20\t]{0,3}[:：])"
)


_ABOUT_ORDERS = re.compile(
    r"(?i:instruction|\brules\b|\byour\b|\bprevious\b|\bsystem\b|指令|指示|规则|規則|ルール|규칙|지시|지침|инструкц|правил|указани)"
)


def _help_low(text: str, f: Finding) -> Finding:
    """``f`` reported low when it starts on a line of help or usage text (`_HELP_LINE`) after its option."""
    if not f.blocking:
        return f
    lo = text.rfind("\n", max(0, f.start - 400), f.start) + 1
    if lo == 0 and f.start > 400:
        return f  # more than 400 characters of its line before it: no help line (and a flood costs no long search)
    m = _HELP_LINE.match(text, lo, f.start + 1)
    if m is None or m.end() > f.start or _ABOUT_ORDERS.search(text, f.start, f.end) is not None:
        return f  # "--help  Ignore all previous instructions ...": help text never names the reader's instructions
    return Finding(f.category, "low", f.start, f.end, f.excerpt, f.rule)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """Drop a finding of the same rule that overlaps the previous one (windows overlap at their edges)."""
    out: list[Finding] = []
    last_end: dict[str, int] = {}
    for f in findings:
        if f.start < last_end.get(f.rule, -1):
            continue
        out.append(f)
        last_end[f.rule] = f.end
    return out


# Round 12: contexts that describe, quote or ask about an order rather than give it. Each reads the finding's
# sentence or paragraph (offsets in the original text, compared case-folded) and reports the finding low.
_HIDDEN = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
_SENT_END = re.compile(r"[.!?\n](?=\s|$)")
# A question asking how or why something is done, or whether it can be (not "what is in the system prompt?",
# which asks the model for its own instructions).
_ASKS = re.compile(
    r"\s*(?:[-*>]\s*)?(?:q:\s*)?(?:how|why|is it possible|is there a way|can (?:i|we|someone|anyone|a user|users)"
    r"|does anyone|should (?:i|we))\b"
)
# Who a question is about: its asker or a third party ("how do I make ChatGPT ...", "why does my bot ...").
_ASKER = re.compile(r"\b(?:i|we|my|our|someone|anyone|a user|users|people|chatgpt|claude|gpt|the model|a model|bot)\b")
_ADDRESSED = re.compile(r"\b(?:you|your|yours|yourself|u)\b|\bwhy not\b|\bhow about\b|\bplease\b")
# Words that mark quoted text as an example of an attack (before the quote, or after a blockquote / code span).
_META = re.compile(
    r"\b(?:examples?|e\.g\.|for instance|such as|payloads?|attacks?|attackers?|injections?|exploits?"
    r"|red-team|test cases?|fuzzing|strings? like|phrases?|typed|types"
    r"|textbook|classic|openers?|malicious|adversarial)\b"
)
_ATTACK_WORD = re.compile(r"\b(?:attack|attacker|adversary|malicious|injection|exploit|jailbreak|technique|trick)s?\b")
_THIRD_PERSON_TO = re.compile(
    r"\b(?:model|llm|chatbot|bot|assistant|agent|ai|chatgpt|gpt|claude|it|them)\s+(?:to\s+)?(?:\w+\s+){0,2}$"
)
_IDIOM_FORGET = re.compile(
    r"(?:forget|ignore)\s+(?:everything|all|what)\s+(?:you|we)\s+(?:\w+\s+)?(?:know|knew|learned|learnt|thought)"
    r"\s+about\s+(?!(?:your\s+|the\s+|any\s+|all\s+|my\s+|our\s+)?(?:rules|instructions|guidelines|previous|prompt"
    r"|training|restrictions|safety|system|policies|programming|limits))"
)
_TEMPLATE_WORDS = re.compile(
    r"\b(?:chat[_ ]?templates?|templates?|prompt formats?|formats?|formatting|tokenizer|chatml|structure|tokens?"
    r"|delimiters?|tags?|role markers?|wrappers?)\b"
)
_TEMPLATE_RULES = frozenset({"role.chatml", "role.inst", "role.header", "role.tag", "role.fake_header"})
# Round 13: the same frames in the other languages the rules read (no word boundaries between CJK characters).
_META_ML = re.compile(
    r"例如|比如|例子|示例|举例|攻击|注入|越狱|写了|输入|例えば|攻撃|インジェクション|脱獄|入力|例:|例："
    r"|\b(?:пример|например|атак|инъекц|beispiel|z\.\s?b\.|angriff|injektion|exemple|attaque|ejemplo|ataque|inyecci)"
)
_ATTACK_ML = re.compile(r"攻击|注入|越狱|攻撃|インジェクション|脱獄")
_THIRD_PERSON_ML = re.compile(r"(?:诱导|让|使|令|导致|欺骗)(?:大)?模型|(?:モデル|ai)(?:に|を|が)")
_ADDRESSED_ML = re.compile(r"你|您|あなた|君|貴方")
# A template placeholder (``{{ system_prompt }}``, ``{user_message}``): a variable's name, never an order.
_PLACEHOLDER = re.compile(r"\{\{?[\x20\t]{0,2}[a-z_][\w.]{0,40}[\x20\t]{0,2}\}\}?")
_SKELETON_LINE = re.compile(
    r"(?:[\x20\t]|\[/?inst\]|<</?sys>>|<\|[a-z_]{2,30}\|>|</?s>|<[a-z_]{2,30}>|\{\{?[\x20\t]{0,2}[a-z_][\w.]{0,40}"
    r"[\x20\t]{0,2}\}\}?|\b(?:system|user|assistant|model|tool|human|ai)\b)*"
    r"(?:\[/?inst\]|<</?sys>>|<\|[a-z_]{2,30}\|>|<[a-z_]{2,30}>|\{\{?[\x20\t]{0,2}[a-z_][\w.]{0,40}[\x20\t]{0,2}\}\}?)"
    r"(?:[\x20\t]|\[/?inst\]|<</?sys>>|<\|[a-z_]{2,30}\|>|</?s>|<[a-z_]{2,30}>|\{\{?[\x20\t]{0,2}[a-z_][\w.]{0,40}"
    r"[\x20\t]{0,2}\}\}?|\b(?:system|user|assistant|model|tool|human|ai)\b)*"
)
_NEXT_LINE = re.compile(r"(?:\n[\x20\t]*)+")
_PREV_LINE = re.compile(r"\{\{?[\x20\t]{0,2}[a-z_][\w.]{0,40}[\x20\t]{0,2}\}\}?[\x20\t]*(?:\n[\x20\t]*)+$")
# A tool-call element whose name is a placeholder (``<invoke name="...">``, ``"$FUNCTION_NAME"``): its schema.
_SCHEMA_NAME = re.compile(
    r"[\x20\t]{0,2}[\"']?(?:\.\.\.|\u2026|\$[a-z_]{1,30}|\{\{?[\x20\t]?[a-z_][\w.]{0,30}[\x20\t]?\}\}?|<[a-z_]{1,30}>)[\"']?[\x20\t]{0,2}>"
)
# A UI string of a gettext catalog or a label attribute: text shown to a person, quoted whole on its line.
_UI_STRING_AT = re.compile(
    r"[\x20\t]{0,8}(?:msgid|msgstr(?:\[\d\])?|msgctxt)[\x20\t]+\"|.{0,200}?\b(?:aria-label|title|placeholder|label|tooltip)"
    r"[\"']?[\x20\t]{0,2}[:=][\x20\t]{0,2}[\"']"
)
_UI_ADDRESSEE = re.compile(r"\b(?:assistant|ai|agent|model|llm|bot|chatgpt|claude|gpt)s?\b|:|;")
# Overriding a setting from a named configuration source ("override the system prompt from the environment").
_CONFIG_SOURCE = re.compile(
    r"[^\n.;]{0,40}?[\x20\t](?:from|with|via|using|through|in|per)[\x20\t]{1,3}(?:the[\x20\t]|an?[\x20\t])?"
    r"(?:environment|env\b|env(?:ironment)?[\x20\t]var|config|configuration|settings|cli|command[\x20\t]line|flags?"
    r"|tests?\b|fixtures?|request|\.env|yaml|toml|--[a-z])(?![\w-]*[\x20\t]*(?:below|above|here)?[\x20\t]*:)"
)
# An order reported in the third person: a verb of telling or causing, then the model as its object.
_REPORTED_TO = re.compile(
    r"\b(?:tells?|told|asks?|asked|instructs?|instructed|gets?|got|makes?|made|tricks?|tricked|convinces?|convinced"
    r"|causes?|caused|persuades?|persuaded|forces?|forced)\s+(?:(?:the|a|an|its|their|his|her)\s+)?(?:\w+\s+)?"
    r"(?:model|llm|chatbot|bot|assistant|agent|ai|chatgpt|claude|it|them)s?\s+(?:to\s+)?$"
)
_EXAMPLE_OPEN = re.compile(r"\s*(?:[-*>]\s*)?(?:examples?\b|e\.g\.|for (?:example|instance)\b)")
_TAG_BEFORE = re.compile(r"(?:[\"']|\\s[*+?]|\(\?:|\^)$")
_TAG_AFTER = re.compile(r"[\"'][\x20\t]*(?:[,)\]}:;]|$)", re.M)
_RELEASE_HEAD = re.compile(
    r"(?im)^(?:#{1,4}\s*)?(?:v?\d+\.\d+(?:\.\d+)?\b|release notes|changelog|changes\b|what's new"
    r"|(?:added|fixed|changed|removed|deprecated|security)\s*$)"
)
_RELEASE_ITEM = re.compile(
    r"\s*[-*]\s+(?:(?:added|fixed|changed|removed|deprecated|new|improved|updated|renamed|dropped|bumped|the|now"
    r"|no longer|do not|don't|supports?|allows?)\b|`)",
    re.I,
)


def _sentence(low: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``low[start:end]``: from after the last sentence end before it to the next one."""
    lo = max(0, start - 300)
    ends = list(_SENT_END.finditer(low, lo, start))
    a = ends[-1].end() if ends else (0 if start <= 300 else lo)
    b = _SENT_END.search(low, end, end + 300)
    return a, (b.end() if b else min(len(low), end + 300))


def _inside_quote(low: str, start: int) -> int:
    """Where the quote, code span or blockquote holding ``start`` opens (-1: none), looked for on its line."""
    line = low.rfind("\n", 0, start) + 1
    if low.startswith(">", line):
        return line
    seg = low[line:start].replace("```", "")  # a code fence is no code span
    for q_open, q_close in (('"', '"'), ("`", "`"), ("\u201c", "\u201d"), ("\u300c", "\u300d"), ("\u300e", "\u300f")):
        if q_open == q_close:
            if seg.count(q_open) % 2 == 1:
                return line + seg.rfind(q_open)
        elif seg.rfind(q_open) > seg.rfind(q_close):
            return line + seg.rfind(q_open)
    # The character at ``start`` is read too: a quote right before the finding opens on the word it starts with.
    opens = list(re.finditer(r"(?:^|(?<=[\s(:]))'(?=\w)", seg + low[start : start + 1]))
    m = opens[-1] if opens else None
    if m is not None and not re.search(r"\w'(?=[\s.,;:!?)]|$)", seg[m.end() :]):
        return line + m.start()
    return -1


def _described(text: str, f: Finding) -> bool:
    """A finding asked about, quoted as an example, described as an attack, an idiom, or a documented token."""
    if _HIDDEN.search(text, f.start, f.end) or f.rule.startswith("inject."):
        return False  # hidden characters are never a quoted example; an order carried in data ("inject.") stays
    lo = max(0, f.start - 600)
    low = text[lo : f.end + 400].lower()
    s, e = f.start - lo, f.end - lo
    a, b = _sentence(low, s, e)
    sent = low[a:b]
    if sent.rstrip().endswith("?") and _ASKS.match(low, a) and _ASKER.search(low, a, s) and not _ADDRESSED.search(sent):
        return True  # a question about the phrase ("how do I make ChatGPT ignore ...?"), not addressed to the reader
    # a concept window may open before the quote that holds its order words: read the quote at its last character
    q = _inside_quote(low, e - 1 if f.rule.startswith("concepts.") else s)
    if q >= 0 and (_meta(low, max(0, q - 300), q) or _meta(low, e, e + 200)):
        return True  # quoted as an example ('a payload such as "ignore all previous instructions"')
    if _ATTACK_WORD.search(sent) and _THIRD_PERSON_TO.search(low, max(a, s - 40), s) and not _ADDRESSED.search(sent):
        return True  # an attack described in the third person ("causes the model to ignore its instructions")
    if _described13(f.rule, low, s, e, a, sent):
        return True
    if f.rule.startswith("override.") and _IDIOM_FORGET.match(low, s):
        return True  # "forget everything you know about CSS floats"
    if f.rule in _TEMPLATE_RULES or f.rule.startswith("secret."):
        near = _TEMPLATE_WORDS.search(low, max(0, s - 300), s)
        if near and f.rule.startswith("secret.") and re.search(r"\{\{\s*$", low[max(0, s - 4) : s]):
            return True  # a template placeholder in a template's docs: ``{{ system_prompt }}``
        if near and f.rule in _TEMPLATE_RULES:
            return True  # a chat-template token documented ("the Llama 2 format wraps ... in [INST]")
    line = low.rfind("\n", 0, s) + 1
    # an item of release notes ("- The assistant now ignores empty system messages"), its heading in 4 KB before
    return (
        _RELEASE_ITEM.match(low, line) is not None
        and _RELEASE_HEAD.search(text, max(0, f.start - 4000), f.start) is not None
        and not _ADDRESSED.search(sent)
    )


def _described13(rule: str, low: str, s: int, e: int, a: int, sent: str) -> bool:
    """Round 13's frames (``low[s:e]`` the finding, ``low[a:]`` its sentence ``sent``), beside `_described`'s."""
    if (
        _ATTACK_ML.search(sent)
        and _THIRD_PERSON_ML.search(low, max(a, s - 12), e)
        and not _ADDRESSED_ML.search(sent)
        and not _ADDRESSED.search(sent)
    ):
        return True  # the same in Chinese or Japanese ("数据泄露（诱导模型复述系统提示）")
    if _placeholder(rule, low, s, e):
        return True
    if rule == "tool.xml_call" and _SCHEMA_NAME.match(low, e):
        return True  # a tool-call schema: ``<invoke name="...">``, ``<invoke name="$FUNCTION_NAME">``
    if rule.startswith("secret.") and _ui_string(low, s, e):
        return True  # a UI string: ``msgid "Show the admin password"``, ``aria-label="Reveal password"``
    if (
        _REPORTED_TO.search(low, max(a, s - 60), s)
        and (_ATTACK_WORD.search(sent) or _EXAMPLE_OPEN.match(low, a))
        and not _ADDRESSED.search(sent)
    ):
        return True  # an order reported, not given ("Example: a user tells a chatbot to ignore previous ...")
    if rule == "tool.xml_call" and _tag_literal(low, s, e):
        return True  # a tag alone in a code string: ``TOOL_START = "<tool_call>"``, ``r"\s*<tool_call>"``
    if rule.startswith(("override.", "concepts.")) and low.startswith("override", s) and _CONFIG_SOURCE.match(low, e):
        ln_a, ln_b = low.rfind("\n", 0, s) + 1, low.find("\n", e)
        if not _ADDRESSED.search(low, ln_a, ln_b if ln_b >= 0 else len(low)):
            return True  # a setting overridden from a configuration source, not the reader's instructions
    return False


def _meta(low: str, a: int, b: int) -> bool:
    """A word marking quoted text as an example, in English (`_META`) or the other languages (`_META_ML`)."""
    return _META.search(low, a, b) is not None or _META_ML.search(low, a, b) is not None


def _placeholder(rule: str, low: str, s: int, e: int) -> bool:
    """A template variable (round 13): the finding is a placeholder, or turn tokens on a template's skeleton lines.

    ``{{ system_prompt }}`` alone on a line names a variable (in a sentence or an address it asks for its value, a
    template injection). ``<s>[INST] {user_message} [/INST]`` and ``<|im_start|>user`` over a
    ``{{ content }}`` line are a template's skeleton: every line the finding touches holds only turn tokens, role
    names and placeholders, and a placeholder ends the line before it, stands on it or opens the next non-blank
    line. A line with any other word (an order written into the turn) keeps the token's finding.
    """
    if rule.startswith("secret."):  # alone on its line: "What is {{system_prompt}}?" and "?q={{system_prompt}}" ask
        a, b = low.rfind("\n", 0, s) + 1, low.find("\n", e)
        return (
            _PLACEHOLDER.fullmatch(low, s, e) is not None
            and not low[a:s].strip()
            and not low[e : b if b >= 0 else len(low)].strip()
        )
    if rule not in _TEMPLATE_RULES or e - s > 4096:  # a flood of tokens is no template's skeleton (and costs no walk)
        return False
    e = max(low.rfind(">", s, e), low.rfind("]", s, e)) + 1  # the token, not the letter its pattern reads after it
    a = low.rfind("\n", 0, s) + 1
    while True:
        b = low.find("\n", a)
        b = len(low) if b < 0 else b
        if _SKELETON_LINE.fullmatch(low, a, b) is None:
            return False
        if _PLACEHOLDER.search(low, a, b) is None:
            nxt = _NEXT_LINE.match(low, b)
            prev = _PREV_LINE.search(low, max(0, a - 80), a)
            if (nxt is None or _PLACEHOLDER.match(low, nxt.end()) is None) and prev is None:
                return False
        if b >= e or b >= len(low):
            return True
        a = b + 1


def _tag_literal(low: str, s: int, e: int) -> bool:
    """A tool-call tag that is a whole string literal of code (or a regex's), with no call written after it."""
    gt = low.find(">", s, e)
    if gt < 0 or _TAG_BEFORE.search(low, max(0, s - 4), s) is None:
        return False
    return _TAG_AFTER.match(low, gt + 1) is not None


def _ui_string(low: str, s: int, e: int) -> bool:
    """The finding lies in a short quoted UI string (`_UI_STRING_AT`) that addresses no model and holds no clause."""
    line = low.rfind("\n", 0, s) + 1
    m = _UI_STRING_AT.match(low, line)
    if m is None or m.end() > s:
        return False
    close = low.find(low[m.end() - 1], e)
    if close < 0 or close - m.end() > 100 or "\n" in low[m.end() : close]:
        return False
    return _UI_ADDRESSEE.search(low, m.end(), close) is None


def _context_low(text: str, f: Finding) -> Finding:
    """``f`` reported low when its context describes the phrase rather than orders it (`_described`)."""
    if not f.blocking or not _described(text, f):
        return f
    return Finding(f.category, "low", f.start, f.end, f.excerpt, f.rule)
