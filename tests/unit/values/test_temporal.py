"""Unit tests for factdiff.values.temporal: dates, times and datetimes, in text and as values."""

from __future__ import annotations

import time
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.dates import DateRecognizer
from factdiff.extraction.recognizers.datetimes import DateTimeRecognizer
from factdiff.extraction.recognizers.durations import DurationRecognizer
from factdiff.extraction.recognizers.temporal_parsers import (
    parse_date,
    parse_datetime,
    parse_duration,
    parse_time,
)
from factdiff.extraction.recognizers.times import TimeRecognizer
from factdiff.values.base import FactType, Precision, Tolerance, value_from_json
from factdiff.values.temporal import (
    TIMEZONE_OFFSETS,
    DateTimeValue,
    DateValue,
    TimeValue,
)

REF = ExtractionContext(reference=date(2026, 3, 20))  # a Friday
NO_REF = ExtractionContext()
RECOGNIZERS = (DateRecognizer(), TimeRecognizer(), DateTimeRecognizer(), DurationRecognizer())
PARSERS = (parse_date, parse_time, parse_datetime, parse_duration)


def found(recognizer: object, text: str, ctx: ExtractionContext = REF) -> list[tuple[str, str]]:
    """(matched text, canonical) for every match."""
    assert hasattr(recognizer, "find")
    return [(text[m.start : m.end], m.value.canonical()) for m in recognizer.find(text, ctx)]


def dates(text: str, ctx: ExtractionContext = REF) -> list[str]:
    return [c for _, c in found(DateRecognizer(), text, ctx)]


def times(text: str) -> list[str]:
    return [c for _, c in found(TimeRecognizer(), text, NO_REF)]


def durations(text: str, ctx: ExtractionContext = REF) -> list[str]:
    return [c for _, c in found(DurationRecognizer(), text, ctx)]


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-25",
        "2026/03/25",
        "March 25, 2026",
        "March 25th, 2026",
        "Mar. 25 2026",
        "25 Mar 2026",
        "25th of March, 2026",
        "the 25th of March 2026",
        "3/25/2026",
        "03-25-2026",
        "25/03/2026",
        "25.03.2026",
        "Wednesday, March 25, 2026",
        "Wed, 25 Mar 2026",
    ],
)
def test_explicit_dates(text: str) -> None:
    assert found(DateRecognizer(), text, NO_REF) == [(text, "2026-03-25")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mar 25", "2026-03-25"),
        ("March 1st", "2026-03-01"),
        ("25th of March", "2026-03-25"),
        ("march 2nd", "2026-03-02"),
        ("Tuesday, March 25", "2026-03-25"),
        ("Oct 1", "2025-10-01"),  # closer back than forward from 2026-03-20
        ("Sept 3", "2026-09-03"),
    ],
)
def test_year_from_reference(text: str, expected: str) -> None:
    assert dates(text) == [expected]


def test_closest_year_across_new_year() -> None:
    ctx = ExtractionContext(reference=date(2027, 1, 2))
    assert dates("Dec 30", ctx) == ["2026-12-30"]
    assert dates("Jan 5", ExtractionContext(reference=date(2026, 12, 30))) == ["2027-01-05"]


def test_without_reference_year_is_unknown_never_today() -> None:
    assert dates("Mar 6", NO_REF) == ["--03-06"]
    assert dates("today, tomorrow", NO_REF) == []
    # a weekday stays a partial weekday value (never resolved against the wall clock)
    assert dates("next Friday", NO_REF) == ["Friday"]
    # a day of the month stays partial: the day is known, the month is not
    assert dates("on the 4th, or the 14th of this month", NO_REF) == ["---04", "---14"]
    assert parse_date("tomorrow", NO_REF) is None


def test_leap_day_without_year_and_invalid_days() -> None:
    assert dates("Feb 29", NO_REF) == ["--02-29"]
    assert dates("Feb 29", ExtractionContext(reference=date(2026, 3, 1))) == ["2028-02-29"]
    assert dates("February 30, 2026 and 2026-02-30 and 13/13/2026", NO_REF) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("today", "2026-03-20"),
        ("later today", "2026-03-20"),
        ("tomorrow", "2026-03-21"),
        ("yesterday", "2026-03-19"),
        ("the day after tomorrow", "2026-03-22"),
        ("day before yesterday", "2026-03-18"),
        ("Friday", "2026-03-20"),  # on or after the reference
        ("on Monday", "2026-03-23"),
        ("this Friday", "2026-03-20"),
        ("next Friday", "2026-03-27"),  # strictly after
        ("next Tuesday", "2026-03-24"),
        ("last Friday", "2026-03-13"),
        ("Wednesday this week", "2026-03-18"),
        ("Monday next week", "2026-03-23"),
        ("Friday last week", "2026-03-13"),
        ("the 4th", "2026-04-04"),  # closest month
        ("the 12th", "2026-03-12"),
        ("14th of this month", "2026-03-14"),
        ("2nd of next month", "2026-04-02"),
    ],
)
def test_relative_dates(text: str, expected: str) -> None:
    assert dates(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "every Tuesday",
        "on Tuesdays",
        "the 4th floor",
        "the 3rd option was best",
        "I may 5 times",
        "March 2026",
        "version 2026-03-25x",
        "12026-03-25",
        "3/25",
    ],
)
def test_not_dates(text: str) -> None:
    assert dates(text) == []


def test_ordinal_day_needs_date_context() -> None:
    assert dates("I leave on the 3rd going to Toronto") == ["2026-04-03"]
    assert dates("From the 12th to the 24th.") == ["2026-03-12", "2026-03-24"]


def test_date_value_rules() -> None:
    value = DateValue(2026, 3, 25)
    assert value.type is FactType.DATE
    assert value.to_date() == date(2026, 3, 25)
    assert DateValue(None, 3, 25).to_date() is None
    # a partial date equals only the values consistent with it
    assert value.same_as(DateValue(None, 3, 25))
    assert value.same_as(DateValue(None, None, 25))
    assert not value.same_as(DateValue(None, 3, 24))
    assert not value.same_as(DateValue(None, None, 24))
    assert DateValue(None, None, 25).canonical() == "---25"
    assert value.same_as(DateValue(2026, 3, 1), Tolerance(precision=Precision.MONTH))
    assert value.same_as(DateValue(2026, 9, 1), Tolerance(precision=Precision.YEAR))
    assert not value.same_as(DateValue(2026, 3, 24), Tolerance(precision=Precision.DAY))
    with pytest.raises(ValueError, match="no such day"):
        DateValue(2026, 2, 29)


# --------------------------------------------------------------------------- times


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("14:32", "14:32"),
        ("2:32 PM", "14:32"),
        ("2:32pm", "14:32"),
        ("2:32 p.m.", "14:32"),
        ("14:32:05", "14:32:05"),
        ("12:15 am", "00:15"),
        ("12 pm", "12:00"),
        ("6 pm", "18:00"),
        ("six pm", "18:00"),
        ("noon", "12:00"),
        ("12 noon", "12:00"),
        ("midnight", "00:00"),
        ("half past 11 in the morning", "11:30"),
        ("quarter past 5 in the evening", "17:15"),
        ("quarter to 6 pm", "17:45"),
        ("quarter to 12 in the morning", "11:45"),
        ("11 in the morning", "11:00"),
        ("5:30 in the evening", "17:30"),
        ("one in the afternoon", "13:00"),
        ("8 o'clock at night", "20:00"),
        ('12 o"clock in the afternoon', "12:00"),
        ("5 o'clock", "05:00"),
        ("evening 6:30", "18:30"),
        ("afternoon 3", "15:00"),
        ("14:32 EST", "14:32-05:00"),
        ("2:32 PM EST", "14:32-05:00"),
        ("2 PM (IST)", "14:00+05:30"),
        ("14:32 UTC", "14:32+00:00"),
        ("14:32 UTC+2", "14:32+02:00"),
        ("9:00 GMT-05:30", "09:00-05:30"),
        ("14:32Z", "14:32+00:00"),
        ("14:32-05:00", "14:32-05:00"),
        ("14:32+05:30", "14:32+05:30"),
        ("7.30pm", "19:30"),
        ("9.15 a.m.", "09:15"),
    ],
)
def test_times(text: str, expected: str) -> None:
    assert found(TimeRecognizer(), text, NO_REF) == [(text, expected)]


@pytest.mark.parametrize(
    "text",
    [
        "at 5",
        "3",
        "1.5 hours",
        "$5.30 pm",
        "costs 12.30",
        "at 7.30",
        "a table for 2 this evening",
        "evening 6 people",
        "25:00",
        "1045",
        "ratio 3:1",
    ],
)
def test_not_times(text: str) -> None:
    assert times(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("quarter to 12 in the morning", "11:45"),
        ("evening 4:30", "16:30"),
        ("afternoon 3", "15:00"),
        ("01:15", "01:15"),
        ("00:45", "00:45"),
    ],
)
def test_clock_readings_from_dialogues(text: str, expected: str) -> None:
    assert times(f"user: I want it at {text} please") == [expected]


def test_weak_forms_at_a_line_end_need_no_function_word() -> None:
    text = "user: I'll pick it up at around afternoon 3\nsystem: Where from?"
    assert times(text) == ["15:00"]
    assert dates("user: I mean the 24th\nsystem: Sure") == ["2026-03-24"]
    assert times("user: around afternoon 3 system: Where") == []


def test_time_ranges_are_two_times() -> None:
    assert times("open 10:00-11:00 and 9:00-17:00") == ["10:00", "11:00", "09:00", "17:00"]
    assert times("6pm-8pm") == ["18:00", "20:00"]


def test_time_equality() -> None:
    a = parse_time("14:32 EST", NO_REF)
    b = parse_time("2:32 PM EST", NO_REF)
    c = parse_time("19:32 UTC", NO_REF)
    bare = parse_time("14:32", NO_REF)
    assert a is not None
    assert b is not None
    assert c is not None
    assert bare is not None
    assert a.key() == b.key() == c.key()
    assert a.same_as(c)
    assert not a.same_as(bare)  # a lost zone is a lost fact
    assert bare.key() == TimeValue(14, 32, 0).key()
    assert TimeValue(14, 32, 59).same_as(bare, Tolerance(precision=Precision.MINUTE))
    assert not TimeValue(14, 32, 59).same_as(bare)
    assert TimeValue(14, 5).same_as(TimeValue(14, 55), Tolerance(precision=Precision.HOUR))
    assert TimeValue(14, 0, tz="EST").offset_minutes == -300


def test_a_capitalised_weekday_abbreviation_before_a_number_is_a_weekday() -> None:
    assert [c for _, c in found(DateTimeRecognizer(), "down since Sat 8 pm")] == [
        "2026-03-21T20:00"
    ]
    assert [c for _, c in found(DateRecognizer(), "we sat 8 hours")] == []


def test_a_range_shares_the_zone_written_after_its_second_end() -> None:
    assert times("5xx errors 09:12-09:26 UTC") == ["09:12+00:00", "09:26+00:00"]
    assert times("between 9:00 and 11:00 EST") == ["09:00-05:00", "11:00-05:00"]
    assert times("calls at 9:00, 11:00 EST") == ["09:00", "11:00-05:00"]


def test_timezone_table() -> None:
    assert TIMEZONE_OFFSETS["EST"] == -300
    assert TIMEZONE_OFFSETS["IST"] == 330
    assert TIMEZONE_OFFSETS["AEDT"] == 660
    assert times("14:32 est") == ["14:32"]  # lower case is a word, not a zone


# --------------------------------------------------------------------------- datetimes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-14T14:32:00-05:00", "2026-03-14T14:32:00-05:00"),
        ("2026-03-14T14:32Z", "2026-03-14T14:32+00:00"),
        ("2026-03-14 14:32 EST", "2026-03-14T14:32-05:00"),
        ("March 14, 2026 at 2:32 PM EST", "2026-03-14T14:32-05:00"),
        ("2:32 PM EST on March 14, 2026", "2026-03-14T14:32-05:00"),
        ("2026-03-14, 14:32", "2026-03-14T14:32"),
        ("tomorrow at 6 pm", "2026-03-21T18:00"),
        ("6:30 pm today", "2026-03-20T18:30"),
    ],
)
def test_datetimes(text: str, expected: str) -> None:
    assert found(DateTimeRecognizer(), text) == [(text, expected)]


def test_datetime_claims_its_parts() -> None:
    text = "Call on March 14, 2026 at 2:32 PM EST please"
    (match,) = DateTimeRecognizer().find(text, REF)
    assert [text[a:b] for a, b in match.claims] == ["March 14, 2026", "2:32 PM EST"]
    (iso,) = DateTimeRecognizer().find("at 2026-03-14T14:32:00Z.", REF)
    assert iso.claims == ((3, 13), (14, 23))


def test_datetime_same_as() -> None:
    est = parse_datetime("2026-03-14T14:32-05:00", NO_REF)
    utc = parse_datetime("2026-03-14T19:32:00Z", NO_REF)
    bare = parse_datetime("2026-03-14T14:32", NO_REF)
    later = parse_datetime("2026-03-14T14:32:45-05:00", NO_REF)
    assert est is not None
    assert utc is not None
    assert bare is not None
    assert later is not None
    assert est.same_as(utc)
    assert est.key() == utc.key()
    assert not est.same_as(bare)
    assert bare.same_as(est, Tolerance(precision=Precision.DAY))
    assert not est.same_as(later)
    assert est.same_as(later, Tolerance(precision=Precision.MINUTE))
    midnight = parse_datetime("2026-03-15T00:30+05:30", NO_REF)
    evening = parse_datetime("2026-03-14T19:00Z", NO_REF)
    assert midnight is not None
    assert evening is not None
    assert midnight.same_as(evening)


# --------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("parser", "text", "expected"),
    [
        (parse_date, "--03-06", "--03-06"),
        (parse_date, " March 25, 2026. ", "2026-03-25"),
        (parse_date, "2026-03-14T10:00:00", "2026-03-14"),
        (parse_time, "17:15", "17:15"),
        (parse_time, "08:00-09:00", "08:00-09:00"),  # whole strings: always an offset
        (parse_datetime, "--03-14T14:32", "--03-14T14:32"),
        (parse_duration, "P7BD", "P7BD"),
        (parse_duration, "PT1H30M", "PT1H30M"),
        (parse_duration, "P1Y6M", "P1Y6M"),
        (parse_duration, "P2W", "P14D"),
        (parse_duration, "an hour", "PT1H"),
        (parse_duration, "a week", "P7D"),
    ],
)
def test_parsers(parser: object, text: str, expected: str) -> None:
    assert callable(parser)
    value = parser(text, REF)
    assert value is not None
    assert value.canonical() == expected


@pytest.mark.parametrize(
    ("parser", "text"),
    [
        (parse_date, "March 25 and March 26"),
        (parse_date, "not a date"),
        (parse_time, "5"),
        (parse_time, "14:32 tomorrow"),
        (parse_datetime, "2026-03-14"),
        (parse_duration, "P1DT2H"),
        (parse_duration, "P"),
        (parse_duration, "7 days later today"),
    ],
)
def test_parsers_reject(parser: object, text: str) -> None:
    assert callable(parser)
    assert parser(text, REF) is None


# --------------------------------------------------------------------------- JSON, determinism


def test_json_round_trip_examples() -> None:
    values = [
        DateValue(2026, 3, 25),
        DateValue(None, 2, 29),
        TimeValue(14, 32, None, "EST"),
        TimeValue(9, 0, 5, None, 330),
        DateTimeValue(DateValue(2026, 3, 14), TimeValue(14, 32, 0, None, -300)),
    ]
    for value in values:
        data = value.to_json()
        assert data["type"] == value.type.value
        assert value_from_json(data) == value


def test_decoders_reject_bad_json() -> None:
    with pytest.raises(ValueError, match="integer"):
        value_from_json({"type": "date", "year": "2026", "month": 3, "day": 1})
    with pytest.raises(ValueError, match="datetime"):
        value_from_json({"type": "datetime", "date": None, "time": None})


def test_independent_of_process_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Tuesday, March 25 at 6 pm, tomorrow, within 7 business days, 14:32 EST"

    def run() -> list[list[tuple[str, str]]]:
        return [found(r, text) for r in RECOGNIZERS]

    before = run()
    if not hasattr(time, "tzset"):
        pytest.skip("no tzset on this platform")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    try:
        assert run() == before
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_large_text_completes() -> None:
    chunk = "Call on March 14 at 2:32 pm EST, refund within 7 business days; ref 1234-5678. "
    text = chunk * 4000  # ~320 KB, dense with values
    for recognizer in RECOGNIZERS:
        list(recognizer.find(text, REF))


# --------------------------------------------------------------------------- properties

_PIECES = ["March ", "the ", "4th ", "in ", "days", " pm", "EST", "half past ", "İ", "\x00"]
_TEXT = st.lists(
    st.one_of(
        st.characters(),
        st.sampled_from(list("0123456789:/.-, apmAPMTZ+()")),
        st.sampled_from(_PIECES),
    ),
    max_size=80,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_never_crashes(text: str) -> None:
    for recognizer in RECOGNIZERS:
        matches = list(recognizer.find(text, REF))
        ends = [0]
        for m in sorted(matches, key=lambda m: m.start):
            assert ends[-1] <= m.start < m.end <= len(text)
            ends.append(m.end)
    for parser in PARSERS:
        parser(text, REF)
        parser(text, NO_REF)


_DATES = st.dates(min_value=date(1900, 1, 1), max_value=date(2199, 12, 31))
_OFFSETS = st.one_of(st.none(), st.integers(-720, 840))
_TIMES = st.builds(
    TimeValue,
    st.integers(0, 23),
    st.integers(0, 59),
    st.one_of(st.none(), st.integers(0, 59)),
    st.none(),
    _OFFSETS,
)


@given(
    st.one_of(
        _DATES.map(DateValue.of),
        _TIMES,
        st.builds(DateTimeValue, _DATES.map(DateValue.of), _TIMES),
    )
)
def test_json_round_trip(value: DateValue | TimeValue | DateTimeValue) -> None:
    assert value_from_json(value.to_json()) == value
    assert value_from_json(value.to_json()).key() == value.key()


_MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@given(_DATES.filter(lambda d: d.year >= 1000))
def test_date_surface_variants_share_a_key(day: date) -> None:
    name = _MONTH_NAMES[day.month - 1]
    variants = [
        day.isoformat(),
        f"{name} {day.day}, {day.year}",
        f"{day.day} {name[:3]} {day.year}",
        f"{day.month}/{day.day}/{day.year}",
        f"{day.day}.{day.month}.{day.year}",
    ]
    keys = {parse_date(v, NO_REF).key() for v in variants}  # type: ignore[union-attr]
    assert keys == {(day.year, day.month, day.day)}


@given(st.integers(0, 23), st.integers(0, 59), st.sampled_from(sorted(TIMEZONE_OFFSETS)))
def test_time_surface_variants_share_a_key(hour: int, minute: int, zone: str) -> None:
    twelve = f"{hour % 12 or 12}:{minute:02d} {'PM' if hour >= 12 else 'AM'}"
    if zone == "Z":
        variants = [f"{hour:02d}:{minute:02d}Z", f"{hour}:{minute:02d} UTC"]
    else:
        variants = [f"{hour:02d}:{minute:02d} {zone}", f"{twelve} {zone}", f"{twelve} ({zone})"]
    values = [parse_time(v, NO_REF) for v in variants]
    assert all(v is not None for v in values)
    assert len({v.key() for v in values if v is not None}) == 1


@given(
    st.one_of(
        _DATES.map(DateValue.of), st.builds(DateValue, st.none(), st.just(3), st.integers(1, 31))
    )
)
def test_date_canonical_parses_back(value: DateValue) -> None:
    assert parse_date(value.canonical(), NO_REF) == value


@given(_TIMES)
def test_time_canonical_parses_back(value: TimeValue) -> None:
    parsed = parse_time(value.canonical(), NO_REF)
    assert parsed is not None
    assert parsed.key() == value.key()


@given(_DATES.map(DateValue.of), _TIMES)
def test_datetime_canonical_parses_back(day: DateValue, clock: TimeValue) -> None:
    value = DateTimeValue(day, clock)
    parsed = parse_datetime(value.canonical(), NO_REF)
    assert parsed is not None
    assert parsed.same_as(value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("check in on 4th of this month", ["2019-03-04"]),
        ("the 9th of this month works", ["2019-03-09"]),
        ("the 1st of next month", ["2019-04-01"]),
        ("I leave on 12th and come back on the 15th", ["2019-03-12", "2019-03-15"]),
        ("next Friday", ["2019-03-08"]),
        ("on Monday", ["2019-03-04"]),
        ("March 12", ["2019-03-12"]),
        ("see you on 3rd floor", []),
    ],
)
def test_day_of_month_and_weekday_forms(text: str, expected: list[str]) -> None:
    assert dates(text, ExtractionContext(reference=date(2019, 3, 1))) == expected


def test_partial_dates_round_trip_and_parse() -> None:
    value = DateValue(None, None, 3)
    assert value_from_json(value.to_json()) == value
    assert parse_date("---03", NO_REF) == value
    with pytest.raises(ValueError, match="needs a month"):
        DateValue(2026, None, 3)


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("0001-01-01T01:00+14:00", "0001-01-01T00:00+13:00", True),  # before year 1 in UTC
        ("0001-01-01T00:00+14:00", "0001-01-01T00:00+13:00", False),
        ("9999-12-31T23:00-14:00", "9999-12-31T23:30-13:30", True),  # after 9999 in UTC
        ("9999-12-31T23:59-14:00", "9999-12-31T23:59-13:00", False),
        ("0001-01-01T00:00+14:00", "2026-03-14T14:32-05:00", False),
    ],
)
def test_instants_beyond_the_calendar_compare_without_overflow(
    first: str, second: str, same: bool
) -> None:
    """A zoned datetime whose UTC instant falls outside years 1-9999 has a key and compares
    (it used to raise OverflowError, and an entry stating one could not be stored)."""
    one, other = _datetime_of(first), _datetime_of(second)
    assert one.same_as(other) is same
    assert (one.key() == other.key()) is same
    assert one.same_as(one)
    assert one.key() == _datetime_of(first).key()


def _datetime_of(text: str) -> DateTimeValue:
    (match,) = DateTimeRecognizer().find(text, NO_REF)
    assert isinstance(match.value, DateTimeValue)
    return match.value
