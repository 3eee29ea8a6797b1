"""Scans rewritten to start with a character class match exactly what they matched before:
``word_start_alternation`` against a lookbehind and a trie, the title and company-suffix
cues and two phone shapes against their former patterns, and the key check before a value
against its regex. Scans skipped on a text without what every match has skip only texts
without matches."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from factdiff.extraction import roles
from factdiff.extraction.recognizers import datetimes, organizations, people, phones, toolcalls
from factdiff.extraction.wordtrie import trie_alternation, word_start_alternation

FORMER_TITLE_CUE = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Rev|Fr|Capt|Det)\b\.?(?=[ \t])"
)
FORMER_SUFFIX_WORD = re.compile(
    r"\b(?:Corp|Corporation|Inc|Incorporated|LLC|L\.L\.C|LLP|Ltd|Limited|Co|Company|GmbH|"
    r"plc|PLC|S\.A|AG|N\.V|B\.V|Pty|Group|Holdings|Technologies|Industries|Enterprises|"
    r"Associates|Solutions|Partners|Labs|Systems|Ventures|Capital|AS|ASA|AB|ApS|Oy|Oyj|SA|SAS|"
    r"SpA|S\.p\.A|SRL|KG)\b\.?"
)

FORMER_BARE = re.compile(r"(?<![\w$€£#/.,+-])\d{7,15}(?![\w%/]|[.,-]\d)")
FORMER_LOCAL7 = re.compile(r"(?<![\w$€£#/.,+-])\d{3}[-.]\d{4}(?![\w%/]|[.,-]\d)")

words = st.lists(st.text("abAB.-", min_size=0, max_size=4).map(lambda w: "a" + w), min_size=1)
pieces = st.sampled_from(("a", "ab", "aB", "A", "b", "-", ".", " ", "\n", "x", "é", "1", "_"))


@settings(max_examples=300, deadline=None)
@given(words, st.sampled_from((r"\w", r"[\w-]", r"[\w.]")), st.lists(pieces, max_size=16))
def test_word_start_alternation_matches_a_lookbehind_and_a_trie(
    cues: list[str], not_after: str, parts: list[str]
) -> None:
    text = "".join(parts)
    fast = re.compile(word_start_alternation(cues, not_after))
    plain = re.compile(f"(?<!{not_after})" + trie_alternation(cues))
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_word_start_alternation_refuses_words_that_do_not_start_with_a_letter() -> None:
    with pytest.raises(ValueError, match="start with a letter"):
        word_start_alternation(["ab", "-c"])
    with pytest.raises(ValueError, match="start with a letter"):
        word_start_alternation(["ab", ""])


cue_pieces = st.sampled_from(
    (
        *people._TITLES,
        *organizations._SUFFIX_WORDS,
        *("M", "Mrs.", "Co.", "Dr.", "Corpus", "x", " ", "\t", ".", "-", "A", "in", ",", "7", "é"),
    )
)


@settings(max_examples=400, deadline=None)
@given(st.lists(cue_pieces, max_size=14))
@example(["Mrs", " ", "Co", "mpany", " ", "Dr", ".", " "])
def test_the_title_and_suffix_cues_match_as_before(parts: list[str]) -> None:
    text = "".join(parts)
    for fast, former in (
        (people._TITLE_CUE, FORMER_TITLE_CUE),
        (organizations._SUFFIX_WORD, FORMER_SUFFIX_WORD),
    ):
        found = [m.span() for m in fast.finditer(text)]
        assert found == [m.span() for m in former.finditer(text)]


key_pieces = st.sampled_from(("amount", "due_date", "'", '"', ":", "=", " ", "\t", "x", "9"))


@settings(max_examples=400, deadline=None)
@given(st.lists(key_pieces, max_size=20), st.integers(0, 60))
@example(["amount", "'", ":", " ", "'"], 0)
def test_the_key_check_before_a_value_finds_what_its_regex_finds(
    parts: list[str], cut: int
) -> None:
    text = "".join(parts) + "$12"
    end = max(0, len(text) - 3 - cut)
    found = roles._key_before(text, end)
    expected = roles._KEY_BEFORE.search(text, max(0, end - 48), end)
    assert (found and found.span()) == (expected and expected.span())


phone_pieces = st.sampled_from(
    ("555", "1234", "5551234", "0123456789", "٣", "-", ".", " ", "+", "$", "x", "#", "/", "%")
)


@settings(max_examples=400, deadline=None)
@given(st.lists(phone_pieces, max_size=12))
@example(["x", "5551234"])
@example(["5551234"])
def test_the_bare_and_seven_digit_phone_shapes_match_as_before(parts: list[str]) -> None:
    text = "".join(parts)
    for fast, former in ((phones._BARE, FORMER_BARE), (phones._LOCAL7, FORMER_LOCAL7)):
        found = [m.span() for m in fast.finditer(text)]
        assert found == [m.span() for m in former.finditer(text)]


joint_pieces = st.sampled_from(
    (
        *("get", "_", ".", "order", "2026", "-03", "-14", "t", "T", "10", ":", "30", "z"),
        *(" ", "(", "x1", "a.b", "é", "\n"),
    )
)


@settings(max_examples=500, deadline=None)
@given(st.lists(joint_pieces, max_size=14))
@example(["get", "_", "order"])
@example(["2026", "-03", "-14", "t", "10", ":", "30"])
def test_a_text_without_the_joint_has_no_mention_or_iso_datetime(parts: list[str]) -> None:
    text = "".join(parts)
    for joint, pattern, scanned in (
        (toolcalls._MENTION_JOINT, toolcalls._MENTION, text),
        (datetimes._ISO_JOINT, datetimes._DATETIME_ISO, text.lower()),
    ):
        if pattern.search(scanned) is not None:
            assert joint.search(scanned) is not None
