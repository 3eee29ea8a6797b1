"""``cue_pattern`` finds exactly what a case-insensitive alternation of its cues, longest
first, finds: same spans in every text, whether written as a trie (ASCII cues) or not; and
``cue_spans``, which scans the lower-cased copy of an ASCII text, finds the same spans."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from factdiff.extraction.cues import cue_pattern, cue_spans, lowered_cue_pattern

ALPHABET = "abkKs -.'#1"
TEXT_ALPHABET = ALPHABET + "AB\u212a\u017f\u00e9\n,:"  # the Kelvin sign and long s fold to k, s
"""Few letters, so that cues share prefixes and overlap in the texts."""


def plain_alternation(cues: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = sorted((re.escape(c.strip()) for c in cues), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


cue_lists = st.lists(st.text(ALPHABET, min_size=1, max_size=6), min_size=1, max_size=8).filter(
    lambda cues: all(cue.strip() for cue in cues)
)


@settings(max_examples=500, deadline=None)
@given(cue_lists, st.text(TEXT_ALPHABET, max_size=60))
@example(["K", "k a"], "k a")  # cues alike but for case: the longer one still wins
def test_matches_the_plain_alternation(cues: list[str], text: str) -> None:
    found = [m.span() for m in cue_pattern(tuple(cues)).finditer(text)]
    assert found == [m.span() for m in plain_alternation(tuple(cues)).finditer(text)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["refund", "Réf", "réf.", "Straße", "ship to"]), min_size=1))
def test_non_ascii_cues_match_the_plain_alternation(cues: list[str]) -> None:
    text = "Réf 12, RÉF. 13, refund to STRASSE, straße 4, Ship  to x, ship to y"
    found = [m.span() for m in cue_pattern(tuple(cues)).finditer(text)]
    assert found == [m.span() for m in plain_alternation(tuple(cues)).finditer(text)]


def test_the_longest_cue_that_ends_a_word_wins() -> None:
    pattern = cue_pattern(("order", "Order ID", "order id number"))
    assert [m.group() for m in pattern.finditer("ORDER ID 7, order idx, Order Id Number")] == [
        "ORDER ID",
        "order",
        "Order Id Number",
    ]


ASCII_TEXT_ALPHABET = ALPHABET + "ABS\n,:_"


@settings(max_examples=500, deadline=None)
@given(cue_lists, st.text(ASCII_TEXT_ALPHABET, max_size=60) | st.text(TEXT_ALPHABET, max_size=60))
@example(["K", "k a"], "K A k a")
@example(["ab", "a"], "Ab a_b A")
def test_cue_spans_are_the_spans_of_the_cue_pattern(cues: list[str], text: str) -> None:
    expected = [m.span() for m in cue_pattern(tuple(cues)).finditer(text)]
    assert cue_spans(text, cues) == expected


def test_the_lowered_pattern_is_only_for_cues_that_start_with_an_ascii_letter() -> None:
    assert lowered_cue_pattern(("Total", "amount due")) is not None
    assert lowered_cue_pattern(("total", "#")) is None
    assert lowered_cue_pattern(("total", "réf")) is None
