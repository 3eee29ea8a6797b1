"""The person recognizer's cue tries match exactly what plain alternations of the same words
match: same spans, same groups, in every text; the phrase cues found case-sensitively in the
lower-cased copy of an ASCII text are those the case-folding pattern finds in it; and a text
is only spared a cue's scan when the scan would find nothing."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers import people
from factdiff.extraction.recognizers.base import ExtractionContext, finditer_folded


def _plain(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(word) for word in words) + ")"


PLAIN_CUES = {
    "role": (
        people._ROLE_CUE,
        re.compile(r"\b" + _plain(people._ROLE_WORDS) + r"(?:,(?=[ \t]))?(?=[ \t])"),
    ),
    "holder": (
        people._HOLDER_CUE,
        re.compile(r"(?<![\w-])" + _plain(people._HOLDER_WORDS) + r"(?=[ \t])"),
    ),
    "recipient": (
        people._RECIPIENT_CUE,
        re.compile(
            r"(?i:\b" + _plain(people._PAYING_VERBS) + r"\b)"
            r"(?P<what>(?:[ \t]+[\w$.,]+){0,5}?)[ \t]+(?i:to)(?=[ \t]+[A-Z])"
        ),
    ),
    "phrase": (
        people._PHRASE_CUE,
        re.compile(
            r"(?i)\b(?:(?P<name>(?:" + _plain(people._POSSESSIVES) + r"\s+|(?<![\w'’]\s)"
            r"(?<![\w'’]))name(?:\s+is|'s|\s*:))|(?P<greet>this\s+is)|(?P<self>i'm|i\s+am|i’m)|"
            + _plain(people._MEETING_VERBS)
            + r"\s+(?:with|to)|(?:appointment|consultation)\s+with|ask(?:ed)?\s+for|"
            r"contact(?:\s+person)?\s*:|contact|signed\s+by|assigned\s+to|"
            + _plain(people._PERSON_NOUNS)
            + r"\s+(?:named|called))(?=[ \t])"
        ),
    ),
}

CUE_WORDS = sorted(
    {
        *people._ROLE_WORDS,
        *people._HOLDER_WORDS,
        *people._PAYING_VERBS,
        *people._POSSESSIVES,
        *people._MEETING_VERBS,
        *people._PERSON_NOUNS,
        *("name", "is", "this", "I'm", "am", "with", "to", "named", "called", "contact"),
    }
)
OTHER_WORDS = ("Priya", "Raman", "$780", "the", "Man", "CEOs", "agents", "x", "7", "-", "Li")
SEPARATORS = (" ", "  ", "\t", ", ", ": ", ". ", "\n", "-", "'s ", "")


def _case(word: str, how: int) -> str:
    return (word, word.upper(), word.lower(), word.capitalize())[how]


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.tuples(
                st.sampled_from(CUE_WORDS + list(OTHER_WORDS)),
                st.integers(0, 3),
                st.sampled_from(SEPARATORS),
            ),
            max_size=14,
        )
    )
    return "".join(_case(word, how) + sep for word, how, sep in parts)


@settings(max_examples=400, deadline=None)
@given(texts())
def test_each_cue_trie_matches_its_plain_alternation(text: str) -> None:
    for name, (trie, plain) in PLAIN_CUES.items():
        found = [(m.span(), m.groupdict()) for m in trie.finditer(text)]
        expected = [(m.span(), m.groupdict()) for m in plain.finditer(text)]
        assert found == expected, name


def test_the_cues_still_find_their_examples() -> None:
    text = (
        "Spoke with Priya Raman, then the Manager Li Wei said: send $780 to Justin. "
        "Guest Ana Costa checked in; my name is Omar."
    )
    assert [m.group() for m in people._ROLE_CUE.finditer(text)] == ["Manager"]
    assert [m.group() for m in people._HOLDER_CUE.finditer(text)] == ["Guest"]
    assert [m.group("what") for m in people._RECIPIENT_CUE.finditer(text)] == [" $780"]
    assert [m.group() for m in people._PHRASE_CUE.finditer(text)] == [
        "Spoke with",
        "my name is",
    ]


def _spans(matches: Iterable[re.Match[str]]) -> list[tuple[tuple[int, int], dict[str, Any]]]:
    return [(m.span(), {name: m.span(name) for name in m.re.groupindex}) for m in matches]


@settings(max_examples=400, deadline=None)
@given(texts())
@example("My NAME is Ana. THIS IS Omar. I'M Li, spoke WITH Ana")
@example("I’m Ana, MY name: Li")
def test_the_phrase_cues_of_a_lowered_ascii_text_are_those_of_the_text(text: str) -> None:
    found = finditer_folded(text, people._PHRASE_CUE, people._PHRASE_CUE_LOWER)
    assert _spans(found) == _spans(people._PHRASE_CUE.finditer(text))


@settings(max_examples=400, deadline=None)
@given(texts())
@example("the On call nurse Ana, pay $5 to Li")
@example("co-CEO Ana")
def test_a_text_is_only_spared_a_cue_scan_that_finds_nothing(text: str) -> None:
    for pattern, runs in (
        (people._ROLE_CUE, people._ROLE_RUNS),
        (people._HOLDER_CUE, people._HOLDER_RUNS),
        (people._RECIPIENT_CUE, people._PAYING_RUNS),
    ):
        if pattern.search(text) is not None:
            assert runs.may_occur_in(text), pattern.pattern[:40]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("CFO Linda Park called.", ["Linda Park"]),
        ("Agent Maria Church helped.", ["Maria Church"]),
        ("Meeting with Globex Corporation's CFO, Linda Park, on 12 May.", ["Linda Park"]),
        ("Meet me at the Linda Park Hotel.", []),
        ("Agent Ana Street Parking helped.", []),
    ],
)
def test_a_place_word_is_a_family_name_after_a_known_given_name(
    text: str, expected: list[str]
) -> None:
    found = people.PersonRecognizer().find(text, ExtractionContext())
    assert [str(m.value.canonical()) for m in found] == expected
