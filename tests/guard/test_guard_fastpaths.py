"""Fast paths of the guard give what the slow path they short-circuit gives (hypothesis, text built for the edges)."""

import re
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold._guard import _concepts, _learned, _scan, _sieve, _views
from contextfold._guard._normalize import fold_bytes

_RANGES = ((0x400, 0x4FF), (0x3040, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF))


def _scripted(s: str) -> bool:
    return any(lo <= ord(c) <= hi for c in s for lo, hi in _RANGES)


def test_lower_case_makes_no_script_character_from_another() -> None:
    # `_concepts._sparse_hits` looks only near the text's own characters of these scripts: lower-casing (which the
    # concept search reads) must not turn any other character into one.
    assert all(_concepts._SCRIPTS.search(w) for w in _concepts._WORDS)
    assert not [c for c in range(sys.maxunicode + 1) if not _scripted(chr(c)) and _scripted(chr(c).lower())]


_WORDS = sorted(_concepts._WORDS)
_piece = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_WORDS).map(str.upper),
    st.sampled_from(["а", "Я", "ё", "İ", "Σ", "ς", "?", " ", "\n", ",", "ai", "你", "x"]),
    st.integers(0, 400).map(lambda k: "x" * k),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_piece, max_size=40).map("".join))
def test_sparse_concept_hits_equal_the_whole_text_search(text: str) -> None:
    places = _concepts._script_places(text)
    if places is None:  # too many non-ASCII characters: the whole text is searched, no fast path to compare
        return
    assert list(_concepts._sparse_hits(text, places)) == list(_concepts._hits(_concepts._lower(text)))


def _spots(marks: bytes, pat: bytes) -> list[int] | None:
    """The slow path `_views._many_spots` stands for: one ``find`` loop per pattern (None: more than 64 times)."""
    out: list[int] = []
    i = marks.find(pat)
    while i >= 0:
        if len(out) == _views._SPOTS:
            return None
        out.append(i)
        i = marks.find(pat, i + len(pat) - 1)
    return out


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"rd", b"mp", b"cr", b"gn", b"x", b"ab"]), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from([b" ", b"a", b"rd", b"mp", b"cr", b"x", b"  "]), max_size=400).map(b" ".join),
)
def test_many_spots_equal_one_find_loop_per_pattern(runs: list[bytes], body: bytes) -> None:
    marks = b" " + body + b" "
    pats = tuple(sorted(b" " + r + b" " for r in runs)) if len(runs) > 1 else (b" a a a a a ",)
    each = [_spots(marks, p) for p in pats]
    got = _views._many_spots(marks, pats)
    if any(found is None for found in each):
        assert got is None
    else:
        assert got is not None
        assert sorted(got) == sorted(i for found in each for i in found if found is not None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["ign0re", "1gn0r3", "ignore", "syst3m", "pr0mpt", "x", " ", "\n", "!", "|"]), max_size=80)
)
def test_leet_and_spaced_gates_of_a_large_text_equal_the_small_text_reading(pieces: list[str]) -> None:
    # Padding makes the text large (the RE2 paths); the same decision over the text read whole with ``find``.
    text = ("x " * 2100) + " ".join(pieces) + " i g n o r e" * (len(pieces) % 2)
    raw = text.encode()
    spaced = b" " + raw.translate(_views._LETTERS) + b" "
    toks = set(spaced.split())
    leet = b" " + raw.translate(_views._LEET_BYTES).translate(_views._LETTERS) + b" "
    fragments = _views._LEET_FRAGMENTS.intersection(toks)
    if len(fragments) >= 2:
        expected = any(leet.find(w) >= 0 and spaced.find(w) < 0 for w in _views._PLAIN_FRAMED)
        assert _views._leet_hit(raw, spaced, fragments) == expected
    singles = _views._SINGLE.intersection(toks)
    words = [w for letters, w in _views._SPACED if letters <= singles]
    assert _views._spaced_hit(spaced, singles) == any(spaced.find(w) >= 0 for w in words)


_VOCABULARY = sorted(_sieve._KNOWN.get()[1])
_run_piece = st.one_of(
    st.sampled_from(_VOCABULARY),
    st.sampled_from(_VOCABULARY).map(lambda w: w + b"s"),
    st.sampled_from([b" ", b"\\n", b"\\t", b"\\", b"n", b"_", b"?", b"1", b"-", b"\n", b"ab"]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_run_piece, max_size=30).map(b"".join))
def test_known_runs_are_the_letter_runs_among_the_known_words(raw: bytes) -> None:
    # What `_scan._scan` gives a text of one part instead of `_tokens`: the same runs, among the known words.
    letters = raw.translate(_scan._LETTERS)
    runs = _sieve.known_runs(b" " + letters + b" ")
    if raw.find(b"\\") >= 0:
        runs.update(_scan._AFTER_ESCAPE.findall(raw))
    known = frozenset(_VOCABULARY)
    assert known & runs == known & _scan._tokens(raw, letters, 0, len(raw))


def test_known_words_cover_every_vocabulary_a_cleared_text_is_read_through() -> None:
    words = _sieve._SIEVE.get()[1]
    vocabularies = [words, _learned.TRIGGER_WORDS, _views._ROT13, _views._REVERSED, _views._LEET_FRAGMENTS]
    assert all(v <= frozenset(_VOCABULARY) for v in [*vocabularies, _views._SINGLE])


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60), st.sampled_from([3, 4, 5]))
def test_shifted_copies_give_every_substring_of_n_characters(text: str, n: int) -> None:
    # `_learned.grams` cuts its n-grams by zipping shifted copies; the regex it replaced found them at every position.
    expected = set(re.findall("(?=(" + "." * n + "))", text, re.DOTALL))
    assert set(map("".join, zip(*(text[k:] for k in range(n)), strict=False))) == expected
    assert _learned.grams(text) == set(re.findall("(?=(....))", " " + re.sub(r"\s+", " ", text) + " ", re.DOTALL))


def test_str_split_and_the_regex_blank_agree_on_every_character() -> None:
    # `_learned._collapse_blanks` splits where ``re``'s ``\s`` matches: the two must mean the same characters.
    blank = re.compile(r"\s")
    assert not [c for c in range(sys.maxunicode + 1) if bool(blank.fullmatch(chr(c))) != chr(c).isspace()]


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(["a", "b", " ", "\t", "\n", "\u00a0", "\u2028", "\x1c", "\u3000", "é"]), max_size=30))
def test_collapsed_blanks_equal_the_regex_substitution(text: str) -> None:
    assert _learned._collapse_blanks(text) == re.sub(r"\s+", " ", text)


_TRIGGERS = sorted(w.decode() for w in _learned.TRIGGER_WORDS)
_trigger_piece = st.one_of(
    st.sampled_from(_TRIGGERS),
    st.sampled_from(_TRIGGERS).map(lambda w: w + "s"),
    st.sampled_from(_learned.TRIGGER_LITERALS),
    st.sampled_from([" ", "  ", "\n", ".", ", ", "\\n", "x", "é", "_"]),
    st.integers(0, 2000).map(lambda k: "z " * k),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_trigger_piece, max_size=400).map("".join), st.integers(0, 40_000))
def test_trigger_places_in_one_pass_equal_one_find_per_word(text: str, pad: int) -> None:
    text = "q " * (pad // 2) + text
    norm, raw = fold_bytes(text)
    spaced = b" " + raw.translate(_scan._LETTERS) + b" "
    words = _learned.TRIGGER_WORDS.intersection(spaced.split())
    pieces = _learned._non_ascii_pieces(norm.text, raw)
    literals = [lit for lit in _learned._FOLDED_LITERALS if any(lit in piece for _, piece in pieces)]
    assert (_learned._literals_in(norm.text, raw, pieces) if pieces else []) == literals
    got = _learned._trigger_places(spaced, words, pieces, literals)
    saved = _learned._ONE_PASS
    try:
        _learned._ONE_PASS = 1 << 62  # every text read by one ``find`` per word
        assert got == _learned._trigger_places(spaced, words, pieces, literals)
    finally:
        _learned._ONE_PASS = saved
