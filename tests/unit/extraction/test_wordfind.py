"""``find_words`` finds what the equivalent whole-word regex finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from factdiff.extraction.wordfind import Word, find_words

WORDS = ("car", "cart", "ride", "bus", "booked", "book")
PIECES = (*WORDS, "s", " ", "-", "'", "’", "#", "_", "1", "é", ".", "x", "\n")


def _regex(low: str, words: tuple[str, ...], plural: bool) -> list[Word]:
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    suffix = "s?" if plural else ""
    pattern = re.compile(rf"(?<![\w'’#-])(?P<w>{alternatives}){suffix}(?![\w'’-])")
    return [Word(m.start(), m.end(), m.group("w")) for m in pattern.finditer(low)]


@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.booleans())
def test_the_same_occurrences_as_a_whole_word_regex(low: str, plural: bool) -> None:
    assert find_words(low, WORDS, not_before="'’#-", plural=plural) == _regex(low, WORDS, plural)


def test_a_plural_and_the_boundaries() -> None:
    low = "two cars, a cart, e-car and car's car"
    assert find_words(low, ["car"], plural=True) == [Word(4, 8, "car"), Word(34, 37, "car")]
    assert find_words(low, ["car"]) == [Word(34, 37, "car")]
