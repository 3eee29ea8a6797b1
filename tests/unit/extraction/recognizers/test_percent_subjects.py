"""What a percentage applies to: read in four shapes, unbound everywhere else."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.percent_subjects import percent_subject
from factdiff.extraction.recognizers.quantities import PercentRecognizer, parse_percent
from factdiff.values.numeric import PercentValue

CTX = ExtractionContext()


def subject(text: str) -> str | None:
    """The subject of the one percentage written as ``N%`` in ``text``."""
    m = re.search(r"[0-9.]+ ?%", text)
    assert m is not None
    return percent_subject(text.lower(), m.start(), m.end())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Customer gets 20% off the annual plan.", "annual plan"),
        ("Take 20% off your first order today.", "first order"),
        ("About 12% of revenue.", "revenue"),
        ("A 20% discount on shipping.", "shipping"),
        ("a 15% reduction for members", "members"),
        ("A 5% late fee applies.", "late fee"),
        ("the 3.5% interest rate", "interest rate"),
        ("An interest rate of 3.5% is fixed.", "interest rate"),
        ("A discount of 20% on shipping.", "shipping"),
        ("A 20% increase in price.", "increase"),
    ],
)
def test_subjects_read_with_confidence(text: str, expected: str) -> None:
    assert subject(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "We offer 20% off.",
        "A 15% discount.",
        "A discount of 20% for now.",
        "Revenue grew 20% last year.",
        "Prices are 20% higher.",
        "It fell 5% from March.",
        "Give 20% off if you sign.",
        "About 12% of 400 seats.",
    ],
)
def test_everything_else_is_unbound(text: str) -> None:
    assert subject(text) is None


def test_the_recognizer_attaches_the_subject_without_widening_the_span() -> None:
    text = "Twenty percent off the Premium Plan!"
    [match] = PercentRecognizer().find(text, CTX)
    assert text[match.start : match.end] == "Twenty percent"
    assert match.value == PercentValue(Decimal(20), "premium plan")


def test_a_whole_percentage_string_has_no_subject() -> None:
    assert parse_percent("20 per cent", CTX) == PercentValue(Decimal(20))


WORDS = st.sampled_from(
    ["off", "of", "the", "a", "plan", "annual", "fee", "discount", "on", "shipping", "if", "and"]
)


@settings(deadline=None, max_examples=200)
@given(st.lists(WORDS, max_size=6), st.lists(WORDS, max_size=6))
def test_subjects_are_deterministic_lower_case_and_short(
    before: list[str], after: list[str]
) -> None:
    text = " ".join([*before, "20%", *after])
    first = [m.value for m in PercentRecognizer().find(text, CTX)]
    assert first == [m.value for m in PercentRecognizer().find(text.upper(), CTX)]
    for value in first:
        assert isinstance(value, PercentValue)
        if value.applies_to is not None:
            assert value.applies_to == value.applies_to.lower()
            assert 1 <= len(value.applies_to.split()) <= 3
