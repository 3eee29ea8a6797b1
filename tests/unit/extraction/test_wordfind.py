"""Scans from a text's own words find what the equivalent regex scan finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from factdiff.extraction import roles
from factdiff.extraction.recognizers import identifiers
from factdiff.extraction.recognizers.base import lowered
from factdiff.extraction.wordfind import (
    Word,
    find_words,
    matches_starting_with,
    plural_ending,
    word_starts,
)

WORDS = ("car", "cart", "ride", "bus", "booked", "book")
PIECES = (*WORDS, "s", "es", " ", "-", "'", "’", "#", "_", "1", "é", ".", "x", "\n")


def _regex(low: str, words: tuple[str, ...], plural: bool) -> list[Word]:
    longest_first = sorted(words, key=len, reverse=True)
    forms = {w: (w, w + plural_ending(w)) if plural else (w,) for w in words}
    alternatives = "|".join(f"{w}(?:{plural_ending(w)})?" if plural else w for w in longest_first)
    pattern = re.compile(rf"(?<![\w'’#-])(?:{alternatives})(?![\w'’-])")
    return [
        Word(m.start(), m.end(), next(w for w in longest_first if m.group() in forms[w]))
        for m in pattern.finditer(low)
    ]


@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.booleans())
def test_the_same_occurrences_as_a_whole_word_regex(low: str, plural: bool) -> None:
    assert find_words(low, WORDS, not_before="'’#-", plural=plural) == _regex(low, WORDS, plural)


def test_a_plural_and_the_boundaries() -> None:
    low = "two cars, a cart, e-car and car's car"
    assert find_words(low, ["car"], plural=True) == [Word(4, 8, "car"), Word(34, 37, "car")]
    assert find_words(low, ["car"]) == [Word(34, 37, "car")]
    assert find_words("two buses, a buss", ["bus"], plural=True) == [Word(4, 9, "bus")]


def test_word_starts_are_every_occurrence_in_order() -> None:
    assert word_starts("a cart, a car, scar", ["car", "a c"]) == [0, 2, 8, 10, 16]


@given(st.lists(st.sampled_from(("car", "cart", "scar", "a", " ", "-", "x")), max_size=20))
def test_matches_starting_with_finds_what_finditer_finds(pieces: list[str]) -> None:
    low = "".join(pieces)
    pattern = re.compile(r"(?:car|a[ \t]+car)t?")
    expected = [m.span() for m in pattern.finditer(low)]
    assert [m.span() for m in matches_starting_with(pattern, low, {"car", "a"})] == expected


ROLE_PIECES = (
    *("check", "in", "checkin", "check-in", "drop", "off", "pick-up", "pickup", "due", "by"),
    *("grand", "total", "no later than", "refund", "Due", "x", " ", "  ", "-", "\t", "1"),
)


@given(st.lists(st.sampled_from(ROLE_PIECES), max_size=25).map("".join))
def test_role_cues_are_found_where_the_cue_regex_finds_them(text: str) -> None:
    expected = [(m.start(), m.end()) for m in roles._CUES.finditer(lowered(text))]
    assert [(m.start(), m.end()) for m in roles._cue_matches(text)] == expected


REF_PIECES = (
    *("order", "Order", "reorder", "ticket", "booking", "id", "ID", "#", " ", "-", "W12"),
    *("34", "no.", "x"),
)


def _scanned_everywhere(text: str) -> list[tuple[int, int]]:
    """``_noun_refs`` with the scan regex run at every position (the reference)."""
    found = {}
    for m in identifiers._NOUN_REF_SCAN.finditer(lowered(text)):
        full = identifiers._NOUN_REF.match(text, m.start())
        if full is not None:
            found[m.start()] = full
    for word in identifiers._ID_WORD.finditer(lowered(text)):
        start = word.start()
        before = identifiers._NOUN_BEFORE_ID.search(text, max(0, start - 16), start)
        if before is not None and before.start() not in found:
            full = identifiers._NOUN_REF.match(text, before.start())
            if full is not None:
                found[before.start()] = full
    kept: list[tuple[int, int]] = []
    for m in sorted(found.values(), key=lambda m: m.start()):
        if not kept or m.start() >= kept[-1][1]:
            kept.append((m.start(), m.end()))
    return kept


@given(st.lists(st.sampled_from(REF_PIECES), max_size=25).map("".join))
def test_reference_nouns_are_found_where_the_scan_regex_finds_them(text: str) -> None:
    found = [(m.start(), m.end()) for m in identifiers._noun_refs(text)]
    assert found == _scanned_everywhere(text)
