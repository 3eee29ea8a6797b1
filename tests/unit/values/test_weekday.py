"""Weekdays without a reference: partial dates compared as days of the week."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.errors import InvalidValue
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.dates import DateRecognizer
from factdiff.extraction.recognizers.temporal_parsers import parse_date
from factdiff.values.base import value_from_json
from factdiff.values.temporal import DateValue
from factdiff.values.weekday import RELATIONS, WeekdayValue

NO_REF = ExtractionContext()
TUESDAY, THURSDAY = 1, 3


def found(text: str, ctx: ExtractionContext = NO_REF) -> list[str]:
    return [m.value.display() for m in DateRecognizer().find(text, ctx)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We meet next Tuesday.", ["Tuesday"]),
        ("We meet on Tuesday.", ["Tuesday"]),
        ("this coming Tuesday", ["Tuesday"]),
        ("last Tuesday", ["last Tuesday"]),
        ("Tuesday next week", ["Tuesday next week"]),
        ("Tuesday last week", ["Tuesday last week"]),
        ("Open Tuesdays.", []),
        ("Every Tuesday at noon.", []),
    ],
)
def test_weekdays_without_a_reference(text: str, expected: list[str]) -> None:
    assert found(text) == expected


def test_with_a_reference_a_weekday_is_a_date() -> None:
    monday = ExtractionContext(reference=date(2026, 3, 2))
    assert found("next Tuesday", monday) == ["2026-03-03"]
    assert found("next Thursday", monday) == ["2026-03-05"]


def test_a_weekday_string_parses_to_a_partial_weekday() -> None:
    assert parse_date("next Thursday", NO_REF) == WeekdayValue(THURSDAY)
    assert parse_date("Tuesdays", NO_REF) is None


def test_comparison() -> None:
    tuesday = WeekdayValue(TUESDAY)
    assert not tuesday.same_as(WeekdayValue(THURSDAY))
    assert not tuesday.same_as(WeekdayValue(TUESDAY, "last"))
    assert tuesday.same_as(WeekdayValue(TUESDAY, "next week"))
    assert WeekdayValue(TUESDAY, "last").same_as(WeekdayValue(TUESDAY, "last week"))
    assert not WeekdayValue(TUESDAY, "next week").same_as(WeekdayValue(TUESDAY, "last week"))
    march_10 = DateValue(2026, 3, 10)  # a Tuesday
    assert tuesday.same_as(march_10)
    assert march_10.same_as(tuesday)
    assert not WeekdayValue(THURSDAY).same_as(march_10)
    assert not march_10.same_as(WeekdayValue(THURSDAY))
    assert not tuesday.same_as(DateValue(None, 3, 10))  # no year: no weekday to compare


def test_canonical_json_and_errors() -> None:
    value = WeekdayValue(TUESDAY, "next week")
    assert value.canonical() == "Tuesday next week"
    assert WeekdayValue(4, "last").canonical() == "last Friday"
    assert value_from_json(value.to_json()) == value
    with pytest.raises(InvalidValue):
        WeekdayValue(7)
    with pytest.raises(InvalidValue):
        WeekdayValue(1, "soon")
    with pytest.raises(InvalidValue):
        value_from_json({"type": "date", "weekday": "1"})


@settings(deadline=None, max_examples=200)
@given(
    st.integers(0, 6),
    st.sampled_from(RELATIONS),
    st.integers(0, 6),
    st.sampled_from(RELATIONS),
    st.dates(date(1900, 1, 1), date(2200, 1, 1)),
)
def test_comparison_is_symmetric_and_round_trips(
    day_a: int, rel_a: str, day_b: int, rel_b: str, day: date
) -> None:
    a, b = WeekdayValue(day_a, rel_a), WeekdayValue(day_b, rel_b)
    assert a.same_as(b) == b.same_as(a)
    assert a.same_as(a)
    full = DateValue.of(day)
    assert a.same_as(full) == full.same_as(a) == (day.weekday() == day_a)
    assert value_from_json(a.to_json()) == a
    week = [DateValue.of(day + timedelta(days=k)) for k in range(7)]
    assert sum(a.same_as(d) for d in week) == 1
