"""The currency codes' trie matches exactly the codes, and the decimal-evidence patterns,
with their start check, match what the plain patterns match."""

from __future__ import annotations

import itertools
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers import numbers
from factdiff.extraction.recognizers import numeric_lexicon as lexicon

PLAIN_CODES = "|".join(lexicon._CODES)


def test_the_trie_matches_the_codes_and_nothing_else() -> None:
    trie = re.compile(f"(?:{lexicon._CODE_ALT})")
    folded = re.compile(f"(?:{lexicon._CODE_ALT})", re.IGNORECASE)
    codes = set(lexicon._CODES)
    for letters in itertools.product(string.ascii_uppercase, repeat=3):
        word = "".join(letters)
        assert (trie.fullmatch(word) is not None) == (word in codes), word
        assert (folded.fullmatch(word.lower()) is not None) == (word in codes), word
        assert trie.match(word + "X") is None or word in codes


def _plain(pattern: str) -> re.Pattern[str]:
    assert lexicon._CODE_ALT in pattern
    return re.compile(pattern.replace(lexicon._CODE_ALT, PLAIN_CODES))


@st.composite
def amounts(draw: st.DrawFn) -> str:
    pieces = st.sampled_from(
        (
            *lexicon._CODES[:6],
            "EURO",
            "US",
            "$",
            "€",
            "%",
            "1,50",
            "1.234,56",
            "12.5",
            "3,5",
            "1,234.56",
            "7",
            " ",
            "\t",
            ",",
            ".",
            "a",
            "X",
        )
    )
    return "".join(draw(st.lists(pieces, max_size=12)))


@settings(max_examples=300, deadline=None)
@given(amounts())
def test_the_decimal_evidence_patterns_match_as_the_plain_ones(text: str) -> None:
    for fast, plain in (
        (numbers._COMMA_EVIDENCE_RE, numbers._COMMA_EVIDENCE),
        (numbers._POINT_EVIDENCE_RE, numbers._POINT_EVIDENCE),
    ):
        assert [m.span() for m in fast.finditer(text)] == [
            m.span() for m in _plain(plain).finditer(text)
        ]
