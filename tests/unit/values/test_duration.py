"""Unit tests for factdiff.values.duration: durations found in text and as values."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.durations import DurationRecognizer
from factdiff.extraction.recognizers.temporal_parsers import parse_date, parse_duration
from factdiff.values.base import Tolerance, value_from_json
from factdiff.values.duration import DurationValue
from factdiff.values.temporal import DateValue

REF = ExtractionContext(reference=date(2026, 3, 20))  # a Friday
NO_REF = ExtractionContext()


def found(recognizer: object, text: str, ctx: ExtractionContext = REF) -> list[tuple[str, str]]:
    """(matched text, canonical) for every match."""
    assert hasattr(recognizer, "find")
    return [(text[m.start : m.end], m.value.canonical()) for m in recognizer.find(text, ctx)]


def durations(text: str, ctx: ExtractionContext = REF) -> list[str]:
    return [c for _, c in found(DurationRecognizer(), text, ctx)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7 business days", "P7BD"),
        ("7 working days", "P7BD"),
        ("2 business weeks", "P10BD"),
        ("two weeks", "P14D"),
        ("a fortnight", None),
        ("48 hours", "PT48H"),
        ("30 minutes", "PT30M"),
        ("30 mins", "PT30M"),
        ("3 months", "P3M"),
        ("18 months", "P1Y6M"),
        ("2 years", "P2Y"),
        ("1.5 hours", "PT1H30M"),
        ("90 minutes", "PT1H30M"),
        ("an hour and a half", "PT1H30M"),
        ("two and a half hours", "PT2H30M"),
        ("half an hour", "PT30M"),
        ("1 hour and 30 minutes", "PT1H30M"),
        ("an hour and 20 minutes", "PT1H20M"),
        ("twenty-one days", "P21D"),
        ("a hundred days", "P100D"),
        ("45 seconds", "PT45S"),
        ("a 30-minute call", "PT30M"),
    ],
)
def test_durations(text: str, expected: str | None) -> None:
    assert durations(text, NO_REF) == ([] if expected is None else [expected])


@pytest.mark.parametrize(
    "text",
    [
        "once a day",
        "one day I will",
        "in a minute",
        "just a sec",
        "5 to 7 business days",
        "2-3 days",
        "$30 days",
        "1,000 hours",
    ],
)
def test_not_durations(text: str) -> None:
    assert durations(text, NO_REF) == []


def test_article_durations_need_a_cue() -> None:
    assert durations("it takes a week", NO_REF) == ["P7D"]
    assert durations("for one day", NO_REF) == ["P1D"]
    assert durations("a week", NO_REF) == []


def test_relative_deadlines_resolve_with_reference() -> None:
    ctx = ExtractionContext(reference=date(2026, 3, 20))  # Friday
    (deadline,) = DurationRecognizer().find("refund within 7 business days.", ctx)
    assert isinstance(deadline.value, DurationValue)
    assert deadline.value.resolved == DateValue(2026, 3, 31)
    assert deadline.value.canonical() == "P7BD"
    (soon,) = DurationRecognizer().find("in 3 days", ctx)
    assert isinstance(soon.value, DurationValue)
    assert soon.value.resolved == DateValue(2026, 3, 23)
    (ago,) = DurationRecognizer().find("2 weeks ago", ctx)
    assert isinstance(ago.value, DurationValue)
    assert ago.value.resolved == DateValue(2026, 3, 6)
    (months,) = DurationRecognizer().find("in 1 month", ExtractionContext(date(2026, 1, 31)))
    assert isinstance(months.value, DurationValue)
    assert months.value.resolved == DateValue(2026, 2, 28)
    (plain,) = DurationRecognizer().find("in 3 days", NO_REF)
    assert isinstance(plain.value, DurationValue)
    assert plain.value.resolved is None
    (hours,) = DurationRecognizer().find("in 3 hours", ctx)
    assert isinstance(hours.value, DurationValue)
    assert hours.value.resolved is None
    assert parse_date("in 3 days", ctx) == DateValue(2026, 3, 23)


def test_duration_value_rules() -> None:
    week = DurationValue(Decimal(1), "week")
    assert week == DurationValue(Decimal(7), "days")
    assert week.key() == DurationValue(Decimal("7.0"), "day").key()
    assert not DurationValue(Decimal(7), "day", business=True).same_as(week)
    assert not DurationValue(Decimal(2), "day").same_as(DurationValue(Decimal(48), "hour"))
    resolved = DurationValue(Decimal(7), "day", resolved=DateValue(2026, 1, 1))
    assert resolved.same_as(week)
    near = Tolerance(absolute=Decimal(1))
    assert DurationValue(Decimal(8), "day").same_as(week, near)
    with pytest.raises(ValueError, match="business"):
        DurationValue(Decimal(1), "hour", business=True)
    with pytest.raises(ValueError, match="unit"):
        DurationValue(Decimal(1), "fortnights of doom")
    assert DurationValue(Decimal(0), "second").canonical() == "PT0S"
    assert DurationValue(Decimal("1.5"), "month").canonical() == "P1.5M"


def test_json_round_trip_examples() -> None:
    values = [
        DurationValue(Decimal("1.5"), "hour"),
        DurationValue(Decimal(7), "day", True, DateValue(2026, 3, 31)),
    ]
    for value in values:
        data = value.to_json()
        assert data["type"] == "duration"
        assert value_from_json(data) == value


def test_decoder_rejects_bad_json() -> None:
    with pytest.raises(ValueError, match="amount"):
        value_from_json({"type": "duration", "amount": 7, "unit": "day", "business": False})


# --------------------------------------------------------------------------- properties

_DATES = st.dates(min_value=date(1900, 1, 1), max_value=date(2199, 12, 31))
_DURATIONS = st.builds(
    DurationValue,
    st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False, allow_infinity=False),
    st.sampled_from(["second", "minute", "hour", "day", "week", "month", "year"]),
    st.just(False),
    st.one_of(st.none(), _DATES.map(DateValue.of)),
)


@given(_DURATIONS)
def test_json_round_trip(value: DurationValue) -> None:
    assert value_from_json(value.to_json()) == value
    assert value_from_json(value.to_json()).key() == value.key()


@given(_DURATIONS)
def test_duration_canonical_parses_back(value: DurationValue) -> None:
    parsed = parse_duration(value.canonical(), NO_REF)
    assert parsed is not None
    assert parsed.same_as(value)


@given(_DATES, st.integers(0, 60))
def test_business_days_skip_weekends(start: date, count: int) -> None:
    ctx = ExtractionContext(reference=start)
    value = parse_duration(f"within {count} business days", ctx)
    assert value is not None
    assert value.resolved is not None
    end = value.resolved.to_date()
    assert end is not None
    weekdays = sum(
        1 for i in range(1, (end - start).days + 1) if (start + timedelta(i)).weekday() < 5
    )
    assert weekdays == count
    assert count == 0 or end.weekday() < 5
