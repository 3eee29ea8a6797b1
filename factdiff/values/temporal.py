"""Temporal values: dates, times of day, datetimes and durations.

Everything here is deterministic: no wall clock, no locale, no ``TZ``. A date that needs a
year, or a relative word ("tomorrow", "next Friday"), resolves only against
``ExtractionContext.reference`` (the entry's own date); without a reference such phrases
yield nothing (a month-day date yields a year-less ``DateValue``).

Resolution rules (``ref`` is the reference date, weeks run Monday to Sunday):

* missing year: the year (within ref.year +/- 4) that puts the date closest to ``ref``;
  a tie goes to the later date. "Dec 30" written on 2027-01-02 is 2026-12-30.
* "the 4th" (ordinal day alone): the month (ref's, the one before or after) that puts the
  date closest to ``ref``; a tie goes to the later date. It counts only when a function word
  follows ("on the 4th at noon") or a date preposition precedes and no noun follows ("on
  the 4th floor" is not a date). "4th of this/next/last month" uses that month.
* "today", "tomorrow", "yesterday", "(the) day after tomorrow", "(the) day before yesterday",
  "later today".
* "Tuesday", "on Tuesday", "this Tuesday", "this coming Tuesday": the first Tuesday on or
  after ``ref``. "next Tuesday": the first Tuesday strictly after ``ref``. "last Tuesday":
  the last Tuesday strictly before ``ref``. "Tuesday this/next/last week": the Tuesday of
  ref's calendar week, of the following one, of the previous one. "every Tuesday" and
  "Tuesdays" are recurring, not dates. A weekday written before an explicit date
  ("Tuesday, March 25") is absorbed into that date and not checked against it.
* numeric dates: ``2026-03-25`` and ``2026/03/25``; ``3/25/2026`` and ``03-25-2026`` are US
  month/day unless the first number exceeds 12 (``25/03/2026``); ``25.03.2026`` is always
  day.month. Numeric dates need a four-digit year.
* durations "in 3 days", "within 7 business days", "3 days from now" resolve forward and
  "3 days ago" backward into ``DurationValue.resolved``; business days skip Saturdays and
  Sundays (no holidays); durations below a day resolve to nothing.

Times of day: ``14:32``, ``2:32 pm``, ``6 pm``, ``6 o'clock``, ``noon``, ``midnight``,
``half past 11 in the morning``, ``quarter to 6 pm``, ``evening 6:30``. A bare number is
never a time. Without am/pm or a part of day the hour is taken as written ("5 o'clock" is
05:00). Parts of day: morning = am; afternoon (12 to 7) and evening (4 to 11) = pm, other
hours are rejected ("for 2 this evening" is a party size); night = pm from 6 to 11, am from
1 to 5, and 12 at night is midnight. "evening 6" needs a function word or the
end of the sentence after it. Time zones map to fixed offsets
through ``TIMEZONE_OFFSETS`` (upper case only; IST is India, CST is US Central, BST is
British Summer Time; generic ET/PT are not mapped). Explicit offsets: ``UTC+2``,
``GMT-05:00``, ``+05:30`` glued to a 24-hour time. In free text a glued ``-HH:MM`` is an
offset only when it is at most 12 hours, on a 0/30/45 minute, and earlier than the time
itself ("14:32-05:00" is an offset, "10:00-11:00" a range).

Durations normalise weeks to days, hours/minutes/seconds to seconds, years to months;
business days never equal calendar days. "1 hour and 30 minutes" is one duration. "a day",
"an hour", "one week" need a cue before them ("for", "in", "takes", "about", ...) so that
"once a day" is not a duration; "in a minute"/"just a sec" (idioms) and ranges ("5 to 7
days", "2-3 days") are not durations. Canonical forms are ISO-8601-like: ``P7D``,
``P7BD`` (business days), ``PT1H30M``, ``P3M``, ``P1Y6M``.
"""

from __future__ import annotations

import bisect
import calendar
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import ClassVar, NamedTuple

from factdiff.values.base import (
    EXACT,
    JSON,
    ExtractionContext,
    FactType,
    Match,
    Precision,
    Tolerance,
    Value,
    register_decoder,
)

__all__ = [
    "TIMEZONE_OFFSETS",
    "DateRecognizer",
    "DateTimeRecognizer",
    "DateTimeValue",
    "DateValue",
    "DurationRecognizer",
    "DurationValue",
    "TimeRecognizer",
    "TimeValue",
    "parse_date",
    "parse_datetime",
    "parse_duration",
    "parse_time",
]

TIMEZONE_OFFSETS: Mapping[str, int] = MappingProxyType(
    {
        "UTC": 0,
        "GMT": 0,
        "Z": 0,
        "WET": 0,
        "WEST": 60,
        "BST": 60,
        "CET": 60,
        "CEST": 120,
        "EET": 120,
        "EEST": 180,
        "MSK": 180,
        "IST": 330,
        "SGT": 480,
        "HKT": 480,
        "AWST": 480,
        "JST": 540,
        "KST": 540,
        "ACST": 570,
        "ACDT": 630,
        "AEST": 600,
        "AEDT": 660,
        "NZST": 720,
        "NZDT": 780,
        "HST": -600,
        "AKST": -540,
        "AKDT": -480,
        "PST": -480,
        "PDT": -420,
        "MST": -420,
        "MDT": -360,
        "CST": -360,
        "CDT": -300,
        "EST": -300,
        "EDT": -240,
    }
)
"""Time zone abbreviation -> fixed UTC offset in minutes (matched in upper case only)."""

_PLACEHOLDER_YEAR = 2000
"""A leap year standing in for an unknown year in arithmetic."""

# --------------------------------------------------------------------------- helpers


def _fmt_decimal(value: Decimal) -> str:
    """``Decimal`` as plain digits, without exponent or trailing zeros."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _valid_day(year: int | None, month: int, day: int) -> bool:
    """True when the day exists (an unknown year allows 29 February)."""
    if not 1 <= month <= 12 or day < 1:
        return False
    if month == 2 and day == 29:
        return year is None or calendar.isleap(year)
    return day <= _MONTH_DAYS[month - 1]


def _offset_text(offset: int) -> str:
    sign = "-" if offset < 0 else "+"
    hours, minutes = divmod(abs(offset), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def _json_int(data: Mapping[str, JSON], name: str) -> int | None:
    raw = data.get(name)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ValueError(f"{name} must be an integer")
    return raw


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class DateValue(Value):
    """A calendar date; ``year`` is ``None`` when the text gave none and no reference."""

    type: ClassVar[FactType] = FactType.DATE
    year: int | None
    month: int
    day: int

    def __post_init__(self) -> None:
        if self.year is not None and not 1 <= self.year <= 9999:
            raise ValueError(f"year out of range: {self.year}")
        if not _valid_day(self.year, self.month, self.day):
            raise ValueError(f"no such day: {self.year}-{self.month}-{self.day}")

    @classmethod
    def of(cls, day: date) -> DateValue:
        """The value of a ``datetime.date``."""
        return cls(day.year, day.month, day.day)

    def to_date(self) -> date | None:
        """The ``datetime.date``, or ``None`` without a year."""
        return None if self.year is None else date(self.year, self.month, self.day)

    def canonical(self) -> str:
        """``2026-03-25``, or ``--03-25`` without a year."""
        head = "-" if self.year is None else f"{self.year:04d}"
        return f"{head}-{self.month:02d}-{self.day:02d}"

    def key(self) -> object:
        return (self.year, self.month, self.day)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Equal down to ``tolerance.precision`` (YEAR, MONTH; finer means the whole date)."""
        if not isinstance(other, DateValue):
            return False
        if tolerance.precision is Precision.YEAR:
            return self.year == other.year
        if tolerance.precision is Precision.MONTH:
            return (self.year, self.month) == (other.year, other.month)
        return self.key() == other.key()

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "year": self.year, "month": self.month, "day": self.day}


@register_decoder(FactType.DATE.value)
def _decode_date(data: dict[str, JSON]) -> Value:
    month, day = _json_int(data, "month"), _json_int(data, "day")
    if month is None or day is None:
        raise ValueError("date needs month and day")
    return DateValue(_json_int(data, "year"), month, day)


@dataclass(frozen=True)
class TimeValue(Value):
    """A time of day, optionally with a zone abbreviation and/or a UTC offset in minutes.

    ``key()`` is the UTC time of day when the offset is known ("14:32 EST" and "19:32 UTC"
    share a key) and the written time otherwise; a missing second counts as 0. A time with
    an offset is never the same as one without (a lost zone is a lost fact).
    """

    type: ClassVar[FactType] = FactType.TIME
    hour: int
    minute: int
    second: int | None = None
    tz: str | None = None
    offset_minutes: int | None = None

    def __post_init__(self) -> None:
        if not (0 <= self.hour <= 23 and 0 <= self.minute <= 59):
            raise ValueError(f"invalid time {self.hour}:{self.minute}")
        if self.second is not None and not 0 <= self.second <= 59:
            raise ValueError(f"invalid second {self.second}")
        if self.offset_minutes is None and self.tz is not None:
            object.__setattr__(self, "offset_minutes", TIMEZONE_OFFSETS.get(self.tz))
        if self.offset_minutes is not None and not -1439 <= self.offset_minutes <= 1439:
            raise ValueError(f"invalid offset {self.offset_minutes}")

    def canonical(self) -> str:
        """``14:32``, ``14:32:05`` or ``14:32-05:00``."""
        text = f"{self.hour:02d}:{self.minute:02d}"
        if self.second is not None:
            text += f":{self.second:02d}"
        if self.offset_minutes is not None:
            text += _offset_text(self.offset_minutes)
        return text

    def _seconds(self, precision: Precision | None) -> int:
        """Seconds of the (UTC when zoned) day, truncated to ``precision``."""
        minutes = self.hour * 60 + self.minute - (self.offset_minutes or 0)
        minutes %= 1440
        if precision in (Precision.HOUR, Precision.DAY, Precision.MONTH, Precision.YEAR):
            minutes -= minutes % 60
        second = 0 if precision is not None and precision != Precision.SECOND else self.second
        return minutes * 60 + (second or 0)

    def key(self) -> object:
        zone = "local" if self.offset_minutes is None else "utc"
        return (zone, self._seconds(None))

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Equal instants of day down to the precision (coarser than HOUR means HOUR)."""
        if not isinstance(other, TimeValue):
            return False
        if (self.offset_minutes is None) != (other.offset_minutes is None):
            return False
        precision = tolerance.precision
        return self._seconds(precision) == other._seconds(precision)

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": self.type.value,
            "hour": self.hour,
            "minute": self.minute,
            "second": self.second,
            "tz": self.tz,
            "offset_minutes": self.offset_minutes,
        }


@register_decoder(FactType.TIME.value)
def _decode_time(data: dict[str, JSON]) -> Value:
    hour, minute = _json_int(data, "hour"), _json_int(data, "minute")
    tz = data.get("tz")
    if hour is None or minute is None or not (tz is None or isinstance(tz, str)):
        raise ValueError("time needs hour and minute")
    return TimeValue(hour, minute, _json_int(data, "second"), tz, _json_int(data, "offset_minutes"))


@dataclass(frozen=True)
class DateTimeValue(Value):
    """A date and a time of day; with an offset it is an instant."""

    type: ClassVar[FactType] = FactType.DATETIME
    date: DateValue
    time: TimeValue

    def canonical(self) -> str:
        """``2026-03-14T14:32-05:00`` (no offset when none is known)."""
        return f"{self.date.canonical()}T{self.time.canonical()}"

    def _instant(self, precision: Precision | None) -> tuple[int | None, datetime]:
        """(year or None, naive datetime in UTC when zoned) truncated to ``precision``."""
        day, t = self.date, self.time
        moment = datetime(day.year or _PLACEHOLDER_YEAR, day.month, day.day, t.hour, t.minute)
        if precision in (None, Precision.SECOND):
            moment += timedelta(seconds=t.second or 0)
        if t.offset_minutes is not None:
            moment -= timedelta(minutes=t.offset_minutes)
        if precision is Precision.HOUR:
            moment = moment.replace(minute=0)
        return (None if day.year is None else moment.year), moment

    def key(self) -> object:
        year, moment = self._instant(None)
        zone = "local" if self.time.offset_minutes is None else "utc"
        return (zone, year, moment.month, moment.day, moment.hour, moment.minute, moment.second)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Same instant (UTC) down to the precision; YEAR/MONTH/DAY compare written dates.

        One side with an offset and the other without is never the same.
        """
        if not isinstance(other, DateTimeValue):
            return False
        precision = tolerance.precision
        if precision in (Precision.YEAR, Precision.MONTH, Precision.DAY):
            return self.date.same_as(other.date, tolerance)
        if (self.time.offset_minutes is None) != (other.time.offset_minutes is None):
            return False
        if (self.date.year is None) != (other.date.year is None):
            return False
        return self._instant(precision) == other._instant(precision)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "date": self.date.to_json(), "time": self.time.to_json()}


@register_decoder(FactType.DATETIME.value)
def _decode_datetime(data: dict[str, JSON]) -> Value:
    day, time = data.get("date"), data.get("time")
    if not isinstance(day, dict) or not isinstance(time, dict):
        raise ValueError("datetime needs date and time objects")
    date_value, time_value = _decode_date(day), _decode_time(time)
    if not isinstance(date_value, DateValue) or not isinstance(time_value, TimeValue):
        raise ValueError("datetime parts did not decode")
    return DateTimeValue(date_value, time_value)


_UNIT_FACTORS: Mapping[str, tuple[str, int]] = MappingProxyType(
    {
        "second": ("second", 1),
        "sec": ("second", 1),
        "minute": ("second", 60),
        "min": ("second", 60),
        "hour": ("second", 3600),
        "hr": ("second", 3600),
        "day": ("day", 1),
        "week": ("day", 7),
        "wk": ("day", 7),
        "fortnight": ("day", 14),
        "month": ("month", 1),
        "year": ("month", 12),
        "yr": ("month", 12),
    }
)
"""Unit name (singular) -> (normalised unit, factor)."""


def _unit_name(unit: str) -> str:
    name = unit.lower().strip()
    return name[:-1] if name.endswith("s") and name[:-1] in _UNIT_FACTORS else name


@dataclass(frozen=True)
class DurationValue(Value):
    """A length of time, normalised to days, seconds or months at construction.

    ``DurationValue(Decimal(2), "weeks")`` becomes 14 days; a business week is 5 business
    days; ``business`` is only valid with days. ``resolved`` is the date the duration points
    to from the reference ("in 3 days"); it is kept in JSON but ignored by ``key``/``same_as``.
    """

    type: ClassVar[FactType] = FactType.DURATION
    amount: Decimal
    unit: str
    business: bool = False
    resolved: DateValue | None = None

    def __post_init__(self) -> None:
        name = _unit_name(self.unit)
        if name not in _UNIT_FACTORS:
            raise ValueError(f"unknown duration unit {self.unit!r}")
        unit, factor = _UNIT_FACTORS[name]
        if self.business:
            if unit != "day":
                raise ValueError("only days and weeks can be business durations")
            factor = 5 if name == "week" else factor
        amount = Decimal(self.amount) * factor
        if not amount.is_finite() or amount < 0:
            raise ValueError(f"invalid duration amount {self.amount}")
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "unit", unit)

    def canonical(self) -> str:
        """``P7D``, ``P7BD``, ``PT1H30M``, ``P3M``, ``P1Y6M``."""
        amount = self.amount
        if self.unit == "day":
            return f"P{_fmt_decimal(amount)}{'BD' if self.business else 'D'}"
        if self.unit == "month":
            if amount != amount.to_integral_value() or amount == 0:
                return f"P{_fmt_decimal(amount)}M"
            years, months = divmod(int(amount), 12)
            return "P" + (f"{years}Y" if years else "") + (f"{months}M" if months else "")
        hours = int(amount // 3600)
        minutes = int((amount - hours * 3600) // 60)
        seconds = amount - hours * 3600 - minutes * 60
        parts = [f"{hours}H" if hours else "", f"{minutes}M" if minutes else ""]
        if seconds or not (hours or minutes):
            parts.append(f"{_fmt_decimal(seconds)}S")
        return "PT" + "".join(parts)

    def key(self) -> object:
        return (self.amount.normalize(), self.unit, self.business)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Same unit and business flag, amounts equal within the numeric tolerance."""
        if not isinstance(other, DurationValue):
            return False
        if (self.unit, self.business) != (other.unit, other.business):
            return False
        return tolerance.numbers_close(self.amount, other.amount)

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": self.type.value,
            "amount": _fmt_decimal(self.amount),
            "unit": self.unit,
            "business": self.business,
            "resolved": None if self.resolved is None else self.resolved.to_json(),
        }


@register_decoder(FactType.DURATION.value)
def _decode_duration(data: dict[str, JSON]) -> Value:
    amount, unit, business = data.get("amount"), data.get("unit"), data.get("business", False)
    resolved = data.get("resolved")
    if not isinstance(amount, str) or not isinstance(unit, str) or not isinstance(business, bool):
        raise ValueError("duration needs amount (string), unit and business")
    resolved_value = None if not isinstance(resolved, dict) else _decode_date(resolved)
    if resolved_value is not None and not isinstance(resolved_value, DateValue):
        raise ValueError("resolved must be a date")
    try:
        number = Decimal(amount)
    except InvalidOperation as error:
        raise ValueError(f"invalid amount {amount!r}") from error
    return DurationValue(number, unit, business, resolved_value)


# --------------------------------------------------------------------------- scanning
#
# Every pattern below runs case-sensitively on a lower-cased copy of the text (same length,
# so spans carry over) and begins with a literal or a character class, never with a
# lookbehind or an optional group: that lets the regex engine skip ahead fast. What must
# not come right before a match is checked in Python (``_Rule.guard``), and optional
# prefixes ("the", a weekday, "later") are attached afterwards by ``_extend_left``.


class _Source(NamedTuple):
    """The original text and its same-length lower-case copy."""

    text: str
    low: str


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _source(text: str) -> _Source:
    low = text.lower()
    if len(low) != len(text):  # a few characters lengthen when lower-cased
        low = text.translate(_ASCII_LOWER)
    return _Source(text, low)


def _select(found: Iterable[Match]) -> list[Match]:
    """Non-overlapping candidates, longer spans first, then leftmost; sorted by start."""
    ordered = sorted(found, key=lambda f: (f.start - f.end, f.start))
    starts: list[int] = []
    chosen: list[Match] = []
    for cand in ordered:
        i = bisect.bisect_left(starts, cand.start)
        if i > 0 and chosen[i - 1].end > cand.start:
            continue
        if i < len(chosen) and chosen[i].start < cand.end:
            continue
        starts.insert(i, cand.start)
        chosen.insert(i, cand)
    return chosen


def _guard_ok(low: str, start: int, forbidden: str) -> bool:
    """True when the character before ``start`` is not a word character nor forbidden."""
    if start == 0:
        return True
    prev = low[start - 1]
    return not (prev.isalnum() or prev == "_" or prev in forbidden)


def _extend_left(low: str, start: int, prefix: re.Pattern[str]) -> int:
    """Move ``start`` left over an optional prefix that ends right before it."""
    m = prefix.search(low, max(0, start - 24), start)
    if m is None or not _guard_ok(low, m.start(), ""):
        return start
    return m.start()


_S = r"\s{1,4}"
_FOLLOW_RE = re.compile(r"[ \t]{0,4}([a-z]+)")
_FOLLOW_WORDS = (
    "at to from until till through thru and or for in on please if instead is works work "
    "would will then but so around by as because since when with thanks thank that i we "
    "it okay ok too also only could should can be was sounds no yes again onwards right "
    "there before after morning afternoon evening night next this tomorrow today"
)
_FOLLOW_OK = frozenset(_FOLLOW_WORDS.split())


def _weak_follow_ok(low: str, end: int) -> bool:
    """After a weak form ("the 4th", "evening 6"), only a function word may follow."""
    m = _FOLLOW_RE.match(low, end)
    return m is None or m.group(1) in _FOLLOW_OK


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


# --------------------------------------------------------------------------- dates

_MONTHS: Mapping[str, int] = MappingProxyType(
    {
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
        "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
        "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
        "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    }
)  # fmt: skip
_WEEKDAYS: Mapping[str, int] = MappingProxyType(
    {
        "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
        "saturday": 5, "sunday": 6, "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3,
        "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
    }
)  # fmt: skip
_MONTH_RE = rf"(?P<mon>{_alternation(_MONTHS)})\b\.?"
_WD_FULL = _alternation(w for w in _WEEKDAYS if w.endswith("day"))
_YEAR_TAIL = rf"(?:,?{_S}(?P<y>[0-9]{{4}})\b)?(?![.,:/-]?[0-9])"
_ORD = r"(?P<ord>st|nd|rd|th)"
_NUMERIC_GUARD = ".+/:-"

_DATE_ISO = re.compile(
    r"(?P<y>[0-9]{4})(?P<sep>[-/])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})"
    r"(?![0-9a-su-z_]|[.,:/-][0-9])"
)
_DATE_NUMERIC = re.compile(
    r"(?P<a>[0-9]{1,2})(?P<sep>[-/.])(?P<b>[0-9]{1,2})(?P=sep)(?P<y>[0-9]{4})"
    r"(?![0-9a-z_]|[.,:/-][0-9])"
)
_DATE_MDY = re.compile(
    rf"{_MONTH_RE}{_S}(?:the{_S})?(?P<d>[0-9]{{1,2}}){_ORD}?\b{_YEAR_TAIL}(?!:[0-9])"
)
_DATE_DMY = re.compile(rf"(?P<d>[0-9]{{1,2}}){_ORD}?{_S}(?:of{_S})?{_MONTH_RE}{_YEAR_TAIL}")
_DATE_ORD_MONTH = re.compile(
    rf"(?P<d>[0-9]{{1,2}}){_ORD}{_S}of{_S}(?P<rel>this|next|last|the){_S}month\b"
)
_DATE_ORD = re.compile(rf"the{_S}(?P<d>[0-9]{{1,2}}){_ORD}\b(?!['’]?s\b)")
_DATE_WORD = re.compile(
    rf"(?P<dat>day{_S}after{_S}tomorrow)|(?P<dby>day{_S}before{_S}yesterday)"
    r"|(?P<today>today)|(?P<tomorrow>tomorrow)|(?P<yesterday>yesterday)"
)
_DATE_WEEKDAY = re.compile(
    rf"(?:(?P<mod>this{_S}coming|this|next|last|coming){_S}(?P<wd1>{_WD_FULL})"
    rf"|(?P<wd2>{_WD_FULL})(?:{_S}(?P<wk>this|next|last){_S}week)?)\b"
)
_WEEKDAY_BEFORE = re.compile(rf"(?:{_alternation(_WEEKDAYS)})\.?,?{_S}$")
_THE_BEFORE = re.compile(rf"the{_S}$")
_LATER_BEFORE = re.compile(rf"(?:the|later){_S}$")
_DATE_PREPOSITION_BEFORE = re.compile(
    r"(?<![a-z])(?:on|by|until|till|from|since|through|thru|before|after|for)\s{1,4}$"
)
_ORDINAL_NOUN_WORDS = (
    "floor time times place one ones option choice row seat grade century street st avenue "
    "ave round day week month year edition generation person item line level step quarter "
    "hour attempt try stop house door table room of"
)
_ORDINAL_NOUNS = frozenset(_ORDINAL_NOUN_WORDS.split())
_RECURRING_BEFORE = re.compile(r"(?:every|each)\s{1,4}$")


def _closest(candidates: Iterable[date], ref: date) -> date | None:
    """The candidate nearest to ``ref``; the later one on a tie."""
    best: date | None = None
    for cand in candidates:
        if best is None or (abs(cand - ref), ref - cand) < (abs(best - ref), ref - best):
            best = cand
    return best


def _infer_year(month: int, day: int, ref: date) -> DateValue | None:
    years = (ref.year + k for k in range(-4, 5))
    found = _closest((date(y, month, day) for y in years if _valid_day(y, month, day)), ref)
    return None if found is None else DateValue.of(found)


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + delta
    return index // 12, index % 12 + 1


def _infer_month(day: int, ref: date) -> DateValue | None:
    months = (_shift_month(ref.year, ref.month, k) for k in range(-2, 3))
    found = _closest((date(y, m, day) for y, m in months if _valid_day(y, m, day)), ref)
    return None if found is None else DateValue.of(found)


def _safe_date(year: int | None, month: int, day: int) -> DateValue | None:
    if (year is not None and not 1 <= year <= 9999) or not _valid_day(year, month, day):
        return None
    return DateValue(year, month, day)


@functools.lru_cache(maxsize=1024)
def _month_day(month: int, day: int, year: int | None, ref: date | None) -> Value | None:
    if year is not None or not _valid_day(None, month, day):
        return _safe_date(year, month, day)
    if ref is not None:
        return _infer_year(month, day, ref)
    return DateValue(None, month, day)


def _named_month(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    written = src.text[m.start("mon") : m.end("mon")]
    if written == "may" and not m.group("ord") and not m.group("y"):
        return None  # lower-case "may" is the verb unless clearly a date
    year = int(m.group("y")) if m.group("y") else None
    return _month_day(_MONTHS[m.group("mon")], int(m.group("d")), year, ctx.reference)


def _iso(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    return _safe_date(int(m.group("y")), int(m.group("m")), int(m.group("d")))


def _numeric(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    a, b, year = int(m.group("a")), int(m.group("b")), int(m.group("y"))
    day_first = m.group("sep") == "." or a > 12
    month, day = (b, a) if day_first else (a, b)
    return _safe_date(year, month, day)


def _ord_month(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    ref = ctx.reference
    if ref is None:
        return None
    delta = {"next": 1, "last": -1}.get(m.group("rel"), 0)
    year, month = _shift_month(ref.year, ref.month, delta)
    return _safe_date(year, month, int(m.group("d")))


def _ordinal(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    """ "the 4th": a function word follows, or a date preposition precedes and no noun follows."""
    ref = ctx.reference
    if ref is None:
        return None
    if not _weak_follow_ok(src.low, m.end()):
        follow = _FOLLOW_RE.match(src.low, m.end())
        if follow is not None and follow.group(1) in _ORDINAL_NOUNS:
            return None
        if not _DATE_PREPOSITION_BEFORE.search(src.low, max(0, m.start() - 12), m.start()):
            return None
    day = int(m.group("d"))
    return _infer_month(day, ref) if 1 <= day <= 31 else None


@functools.lru_cache(maxsize=256)
def _shifted(ref: date, days: int) -> DateValue:
    return DateValue.of(ref + timedelta(days=days))


def _relative_word(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    if ctx.reference is None:
        return None
    shift = {"dat": 2, "dby": -2, "today": 0, "tomorrow": 1, "yesterday": -1}
    name = next(k for k in shift if m.group(k))
    return _shifted(ctx.reference, shift[name])


def _weekday(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    ref = ctx.reference
    if ref is None or _RECURRING_BEFORE.search(src.low, max(0, m.start() - 12), m.start()):
        return None
    target = _WEEKDAYS[m.group("wd1") or m.group("wd2")]
    return _weekday_date(target, m.group("mod") or "", m.group("wk") or "", ref)


@functools.lru_cache(maxsize=256)
def _weekday_date(target: int, mod: str, week: str, ref: date) -> DateValue:
    """The date of weekday ``target`` under a modifier (see the module docstring)."""
    monday = ref - timedelta(days=ref.weekday())
    if week:
        offset = {"this": 0, "next": 7, "last": -7}[week]
        return DateValue.of(monday + timedelta(days=offset + target))
    if mod == "next":
        return DateValue.of(ref + timedelta(days=(target - ref.weekday() - 1) % 7 + 1))
    if mod == "last":
        return DateValue.of(ref - timedelta(days=(ref.weekday() - target - 1) % 7 + 1))
    return DateValue.of(ref + timedelta(days=(target - ref.weekday()) % 7))


class _DateRule(NamedTuple):
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], _Source, ExtractionContext], Value | None]
    guard: str
    prefixes: tuple[re.Pattern[str], ...] = ()


_DATE_RULES = (
    _DateRule(_DATE_ISO, _iso, _NUMERIC_GUARD),
    _DateRule(_DATE_NUMERIC, _numeric, _NUMERIC_GUARD),
    _DateRule(_DATE_MDY, _named_month, "", (_WEEKDAY_BEFORE,)),
    _DateRule(_DATE_DMY, _named_month, ".,/$€£:-", (_THE_BEFORE, _WEEKDAY_BEFORE)),
    _DateRule(_DATE_ORD_MONTH, _ord_month, "", (_THE_BEFORE,)),
    _DateRule(_DATE_ORD, _ordinal, "", (_WEEKDAY_BEFORE,)),
    _DateRule(_DATE_WORD, _relative_word, "", (_LATER_BEFORE,)),
    _DateRule(_DATE_WEEKDAY, _weekday, ""),
)


def _date_candidates(src: _Source, ctx: ExtractionContext) -> list[Match]:
    found: list[Match] = []
    for rule in _DATE_RULES:
        for m in rule.pattern.finditer(src.low):
            if not _guard_ok(src.low, m.start(), rule.guard):
                continue
            try:
                value = rule.build(m, src, ctx)
            except (OverflowError, ValueError):
                value = None  # a reference at the edge of the calendar
            if value is None:
                continue
            start = m.start()
            for prefix in rule.prefixes:
                start = _extend_left(src.low, start, prefix)
            found.append(Match(start, m.end(), value))
    return _select(found)


# --------------------------------------------------------------------------- times

_HOUR_WORDS: Mapping[str, int] = MappingProxyType(
    {
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    }
)  # fmt: skip
_HOUR = rf"(?P<h>[0-9]{{1,2}}|(?:{_alternation(_HOUR_WORDS)})\b)(?![0-9]|[.,:][0-9])"
_AMPM = r"(?:\s?(?P<ampm>[ap])\.?m\b\.?)"
_PERIOD = (
    rf"(?:{_S}(?:in{_S}the|this){_S}(?P<per>morning|afternoon|evening|night)"
    rf"|{_S}(?:at{_S}(?P<atnight>night)|(?P<tonight>tonight)))"
)
_OCLOCK = r"(?P<oc>\s?o['’\"]?\s?clock\b)"
_TIME_GUARD = ":.,/$€£+"

_TIME_DIGITAL = re.compile(
    r"(?P<h>[0-9]{1,2}):(?P<m>[0-5][0-9])"
    r"(?::(?P<s>[0-5][0-9])(?:[.,][0-9]{1,9})?)?(?![0-9]|:[0-9]|[.,][0-9])"
    rf"{_AMPM}?{_PERIOD}?"
)
# The lookahead demands a marker after the hour: a bare number is not a time.
_MARKER_AHEAD = rf"(?=\s?o['’\"]?\s?clock\b|\s?[ap]\.?m\b|{_S}(?:in|this|at|tonight)\b)"
_TIME_HOUR = re.compile(rf"{_HOUR}{_MARKER_AHEAD}{_OCLOCK}?{_AMPM}?{_PERIOD}?")
_TIME_FRACTION = re.compile(
    rf"(?P<q>half|quarter){_S}(?P<dir>past|after|to|till|before){_S}{_HOUR}"
    rf"{_OCLOCK}?{_AMPM}?{_PERIOD}?"
)
_TIME_NOON = re.compile(
    rf"(?:12|twelve)(?::00)?{_S}(?P<w1>noon|midnight)\b|(?P<w2>noon|midday|mid-day|midnight)\b"
)
_TIME_PREFIXED = re.compile(
    rf"(?P<per>morning|afternoon|evening|night){_S}(?P<h>[0-9]{{1,2}})"
    r"(?::(?P<m>[0-5][0-9]))?(?![0-9]|:[0-9]|[.,][0-9]|\s?[ap]\.?m\b)"
)
_TZ_NAMES = _alternation(k for k in TIMEZONE_OFFSETS if k != "Z")
_TZ_BODY = (
    r"(?:(?P<base>UTC|GMT)(?:\s?(?P<sign>[+\-−])\s?(?P<oh>[0-9]{1,2})(?::?(?P<om>[0-9]{2}))?)?"
    rf"|(?P<abbr>{_TZ_NAMES}))(?![A-Za-z0-9])"
)
_TZ_SPACED = re.compile(rf"\s?(?P<paren>\()?{_TZ_BODY}(?(paren)\))")
_TZ_GLUED = re.compile(r"(?:(?P<z>Z)|(?P<sign>[+\-−])(?P<oh>[0-9]{2}):?(?P<om>[0-9]{2}))(?![\w:])")


class _Zone(NamedTuple):
    end: int
    tz: str | None
    offset: int


def _signed(sign: str, hours: str, minutes: str | None) -> int | None:
    h, mins = int(hours), int(minutes or 0)
    if h > 14 or mins > 59:
        return None
    total = h * 60 + mins
    return -total if sign in "-−" else total


def _glued_zone(text: str, pos: int, local: int, lenient: bool) -> _Zone | None:
    """A ``Z`` or ``+HH:MM`` glued to a 24-hour time (see the module docstring)."""
    m = _TZ_GLUED.match(text, pos)
    if m is None:
        return None
    if m.group("z"):
        return _Zone(m.end(), "Z", 0)
    offset = _signed(m.group("sign"), m.group("oh"), m.group("om"))
    if offset is None:
        return None
    if offset < 0 and not lenient:
        hours, minutes = divmod(-offset, 60)
        if hours > 12 or minutes not in (0, 30, 45) or -offset >= local:
            return None
    return _Zone(m.end(), None, offset)


def _zone_at(text: str, pos: int) -> _Zone | None:
    """A zone abbreviation or ``UTC+2`` style offset after a time (upper case only)."""
    m = _TZ_SPACED.match(text, pos)
    if m is None:
        return None
    if m.group("abbr"):
        return _Zone(m.end(), m.group("abbr"), TIMEZONE_OFFSETS[m.group("abbr")])
    base = m.group("base")
    if not m.group("sign"):
        return _Zone(m.end(), base, 0)
    offset = _signed(m.group("sign"), m.group("oh"), m.group("om"))
    return None if offset is None else _Zone(m.end(), None, offset)


def _hour_value(raw: str) -> int:
    return _HOUR_WORDS.get(raw) or int(raw)


def _apply_period(hour: int, marker: str) -> int | None:
    """24-hour clock hour of ``hour`` read with am/pm or a part of the day."""
    if marker in ("a", "morning"):
        return None if not 0 <= hour <= 12 else hour % 12
    if marker == "afternoon" and not (hour == 12 or 1 <= hour % 12 <= 7):
        return None
    if marker == "evening" and not 4 <= hour % 12 <= 11:
        return None
    if marker in ("p", "afternoon", "evening"):
        if 13 <= hour <= 23:
            return hour  # "17:15 pm": redundant but unambiguous
        return None if not 1 <= hour <= 12 else hour % 12 + 12
    if marker == "night":
        if hour == 12:
            return 0
        if 1 <= hour <= 5 or 18 <= hour <= 23:
            return hour
        return None if not 6 <= hour <= 11 else hour + 12
    return hour if 0 <= hour <= 23 else None


def _marker(m: re.Match[str]) -> str:
    """The am/pm letter or part of the day a time regex matched, or ``""``."""
    groups = m.groupdict()
    if groups.get("ampm"):
        return str(groups["ampm"])
    if groups.get("per"):
        return str(groups["per"])
    if groups.get("atnight"):
        return "night"
    return "evening" if groups.get("tonight") else ""


def _time_found(
    m: re.Match[str], src: _Source, hour: int | None, minute: int, second: int | None, **kw: bool
) -> Match | None:
    """A candidate from a time match, with any zone that follows it."""
    if hour is None or not 0 <= hour <= 23:
        return None
    end, zone = m.end(), None
    if kw.get("glued"):
        zone = _glued_zone(src.text, end, hour * 60 + minute, kw.get("lenient", False))
    zone = zone or _zone_at(src.text, end)
    if zone is None:
        return Match(m.start(), end, TimeValue(hour, minute, second))
    return Match(m.start(), zone.end, TimeValue(hour, minute, second, zone.tz, zone.offset))


def _digital(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    marker = _marker(m)
    hour = _apply_period(int(m.group("h")), marker)
    second = int(m.group("s")) if m.group("s") else None
    glued = not marker
    return _time_found(m, src, hour, int(m.group("m")), second, glued=glued, lenient=lenient)


def _hourly(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    marker = _marker(m)
    if not marker and not m.group("oc"):
        return None  # a bare number is not a time
    return _time_found(m, src, _apply_period(_hour_value(m.group("h")), marker), 0, None)


def _fraction(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    """ "half past 11", "quarter to 6 pm": am/pm applies to the resulting time (5:45 pm)."""
    hour, minute = _hour_value(m.group("h")), 30 if m.group("q") == "half" else 15
    if m.group("dir") in ("to", "till", "before"):
        if minute == 30:
            return None  # "half to six" is not English
        hour, minute = (hour - 1 if hour >= 2 else 12 if hour == 1 else 23), 45
    return _time_found(m, src, _apply_period(hour, _marker(m)), minute, None)


def _noon(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    hour = 0 if (m.group("w1") or m.group("w2")) == "midnight" else 12
    return _time_found(m, src, hour, 0, None)


def _prefixed(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    if not m.group("m") and not _weak_follow_ok(src.low, m.end()):
        return None
    hour = _apply_period(int(m.group("h")), m.group("per"))
    return _time_found(m, src, hour, int(m.group("m") or 0), None)


class _TimeRule(NamedTuple):
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], _Source, bool], Match | None]
    guard: str


_TIME_RULES = (
    _TimeRule(_TIME_DIGITAL, _digital, _TIME_GUARD),
    _TimeRule(_TIME_HOUR, _hourly, _TIME_GUARD),
    _TimeRule(_TIME_FRACTION, _fraction, ""),
    _TimeRule(_TIME_NOON, _noon, ""),
    _TimeRule(_TIME_PREFIXED, _prefixed, ""),
)


def _time_candidates(src: _Source, lenient: bool = False) -> list[Match]:
    found: list[Match] = []
    for rule in _TIME_RULES:
        for m in rule.pattern.finditer(src.low):
            if _guard_ok(src.low, m.start(), rule.guard):
                cand = rule.build(m, src, lenient)
                if cand is not None:
                    found.append(cand)
    return _select(found)


# --------------------------------------------------------------------------- datetimes

_DATETIME_ISO = re.compile(
    r"(?P<y>[0-9]{4}|-)-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})t"
    r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2})(?::(?P<s>[0-9]{2})(?:[.,][0-9]{1,9})?)?"
    r"(?P<zone>z|[+\-][0-9]{2}(?::?[0-9]{2})?)?(?![\w:]|[.,][0-9])"
)
_GAP_DATE_TIME = re.compile(
    r"(?:\s{0,2},\s{0,4}|\s{1,4})(?:(?:at|by|around|from)\s{1,4}|@\s{0,4})?"
)
_GAP_TIME_DATE = re.compile(r"(?:\s{0,2},\s{0,4}|\s{1,4})(?:on\s{1,4})?")


def _iso_datetime(m: re.Match[str], src: _Source) -> Match | None:
    year = None if m.group("y") == "-" else int(m.group("y"))
    day = _safe_date(year, int(m.group("mo")), int(m.group("d")))
    hour, minute = int(m.group("h")), int(m.group("mi"))
    second = int(m.group("s")) if m.group("s") else None
    if day is None or hour > 23 or minute > 59 or (second or 0) > 59:
        return None
    zone_text, end = m.group("zone"), m.end()
    tz: str | None = None
    offset: int | None = None
    if zone_text:
        tz = "Z" if zone_text == "z" else None
        offset = 0 if zone_text == "z" else _signed(zone_text[0], zone_text[1:3], zone_text[-2:])
        if offset is None:
            return None
    elif (zone := _zone_at(src.text, end)) is not None:
        end, tz, offset = zone.end, zone.tz, zone.offset
    time = TimeValue(hour, minute, second, tz, offset)
    time_start = m.start("h")
    claims = ((m.start(), time_start - 1), (time_start, end))
    return Match(m.start(), end, DateTimeValue(day, time), claims)


def _pair(first: Match, second: Match) -> Match:
    day, time = (first, second) if isinstance(first.value, DateValue) else (second, first)
    assert isinstance(day.value, DateValue)
    assert isinstance(time.value, TimeValue)
    claims = ((day.start, day.end), (time.start, time.end))
    return Match(first.start, second.end, DateTimeValue(day.value, time.value), claims)


def _datetime_candidates(src: _Source, ctx: ExtractionContext, lenient: bool) -> list[Match]:
    found: list[Match] = []
    for m in _DATETIME_ISO.finditer(src.low):
        if _guard_ok(src.low, m.start(), _NUMERIC_GUARD):
            cand = _iso_datetime(m, src)
            if cand is not None:
                found.append(cand)
    times = _time_candidates(src, lenient)
    dates = _date_candidates(src, ctx) if times else []
    dates_at = {d.start: d for d in dates}
    times_at = {t.start: t for t in times}
    for d in dates:
        gap = _GAP_DATE_TIME.match(src.low, d.end)
        if gap is not None and gap.end() in times_at:
            found.append(_pair(d, times_at[gap.end()]))
    for t in times:
        gap = _GAP_TIME_DATE.match(src.low, t.end)
        if gap is not None and gap.end() in dates_at:
            found.append(_pair(t, dates_at[gap.end()]))
    return _select(found)


# --------------------------------------------------------------------------- durations

_SMALL_NUMBERS: Mapping[str, int] = MappingProxyType(
    {
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
        "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19,
    }
)  # fmt: skip
_TENS: Mapping[str, int] = MappingProxyType(
    {
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90,
    }
)  # fmt: skip
_ONES_RE = _alternation(k for k, v in _SMALL_NUMBERS.items() if 1 <= v <= 9)
_BELOW_100_RE = (
    rf"(?:(?:{_alternation(_TENS)})(?:[\s-](?:{_ONES_RE}))?|{_alternation(_SMALL_NUMBERS)})"
)
_NUMBER_WORDS_RE = (
    rf"(?:(?:a|{_ONES_RE}){_S}hundred(?:{_S}(?:and{_S})?{_BELOW_100_RE}\b)?|{_BELOW_100_RE})"
)


def _number_words(text: str) -> Decimal | None:
    """Value of "twenty-one", "two hundred and five", "a"/"an" (1); ``None`` otherwise."""
    total, current = 0, 0
    tokens = [t for t in re.split(r"[\s-]+", text.lower()) if t and t != "and"]
    if not tokens:
        return None
    for token in tokens:
        if token in ("a", "an"):
            current += 1
        elif token in _SMALL_NUMBERS:
            current += _SMALL_NUMBERS[token]
        elif token in _TENS:
            current += _TENS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
            total, current = total + current, 0
        else:
            return None
    return Decimal(total + current)


_DURATION_UNITS_RE = (
    r"(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?"
    r"|months?|years?|yrs?)\b"
)
_AND_HALF = rf"{_S}and{_S}a{_S}half"
_DURATION = re.compile(
    rf"(?:(?P<halfof>half{_S}an?|a{_S}half)(?:{_S}|-)"
    rf"|(?P<num>[0-9]{{1,6}}(?:\.[0-9]{{1,6}})?(?![0-9])|{_NUMBER_WORDS_RE}\b|an?\b)"
    rf"(?P<half1>{_AND_HALF})?(?:{_S}|\s?-\s?))"
    rf"(?:(?P<biz>business|working|work){_S})?{_DURATION_UNITS_RE}"
    rf"(?P<half2>{_AND_HALF})?"
)
_DURATION_GUARD = ".,$€£/+-"
_DURATION_BEFORE = re.compile(r"(?P<word>in|within)\s{1,4}$")
_DURATION_AFTER = re.compile(rf"{_S}(?P<word>from{_S}(?:now|today)|ago)\b")
_ARTICLE_CONTEXT = re.compile(
    r"(?:in|within|for|after|about|around|over|under|than|least|most|only|just|"
    r"takes?|took|lasts?|lasted|another|next|last|past|nearly|almost|roughly)\s{1,4}$"
)
_RANGE_BEFORE = re.compile(
    rf"(?:[0-9]|(?<![a-z])(?:{_alternation(_SMALL_NUMBERS)}|{_alternation(_TENS)}))"
    r"\s{0,4}(?:to|or|-|–)\s{0,4}$"
)
_DURATION_JOIN = re.compile(rf"(?:\s{{0,2}},\s{{0,4}}|{_S})(?:and{_S})?$")


class _Span(NamedTuple):
    start: int
    end: int
    amount: Decimal
    unit: str
    business: bool
    weak: bool


def _duration_span(m: re.Match[str]) -> _Span | None:
    """A raw duration: amount in the unit's normalised base, before context is applied."""
    num, business = m.group("num"), m.group("biz") is not None
    half = bool(m.group("half1") or m.group("half2"))
    value = _raw_duration(num, half, m.group("unit"), business)
    if value is None:
        return None
    weak = num in ("a", "an", "one") and not half
    return _Span(m.start(), m.end(), value.amount, value.unit, business, weak)


@functools.lru_cache(maxsize=1024)
def _raw_duration(num: str | None, half: bool, unit: str, business: bool) -> DurationValue | None:
    """The duration "<num> [and a half] <unit>"; ``num`` is ``None`` for "half an <unit>"."""
    if num is None:
        amount = Decimal("0.5")
    else:
        parsed = Decimal(num) if num[0].isdigit() else _number_words(num)
        if parsed is None:
            return None
        amount = parsed + (Decimal("0.5") if half else 0)
    try:
        return DurationValue(amount, unit, business)
    except ValueError:
        return None


def _merge_durations(spans: list[_Span], low: str) -> list[_Span]:
    """Join "1 hour and 30 minutes" into one span of the same normalised unit."""
    merged: list[_Span] = []
    for span in spans:
        if merged:
            last = merged[-1]
            same = (last.unit, last.business) == (span.unit, span.business)
            if same and _DURATION_JOIN.fullmatch(low, last.end, span.start):
                total = last.amount + span.amount
                merged[-1] = _Span(last.start, span.end, total, span.unit, span.business, False)
                continue
        merged.append(span)
    return merged


def _add_business_days(start: date, days: int) -> date:
    """``start`` moved by ``days`` Monday-to-Friday days (no holidays)."""
    step = 1 if days >= 0 else -1
    weeks, left = divmod(abs(days), 5)
    if weeks and not left:
        weeks, left = weeks - 1, 5  # end on a business day even from a weekend start
    current = start + timedelta(days=7 * weeks * step)
    while left:
        current += timedelta(days=step)
        if current.weekday() < 5:
            left -= 1
    return current


@functools.lru_cache(maxsize=1024)
def _resolve(amount: Decimal, unit: str, business: bool, ref: date, sign: int) -> DateValue | None:
    """The date a duration points to from ``ref`` (forward when ``sign`` is 1)."""
    if unit == "second" or amount != amount.to_integral_value() or amount > 100_000:
        return None
    count = int(amount) * sign
    try:
        if business:
            return DateValue.of(_add_business_days(ref, count))
        if unit == "day":
            return DateValue.of(ref + timedelta(days=count))
        year, month = _shift_month(ref.year, ref.month, count)
        day = min(ref.day, calendar.monthrange(year, month)[1])
        return DateValue.of(date(year, month, day))
    except (OverflowError, ValueError):
        return None


def _final_duration(span: _Span, resolved: DateValue | None) -> DurationValue:
    return _duration_value(span.amount, span.unit, span.business, resolved)


@functools.lru_cache(maxsize=1024)
def _duration_value(
    amount: Decimal, unit: str, business: bool, resolved: DateValue | None
) -> DurationValue:
    return DurationValue(amount, unit, business, resolved)


def _duration_candidates(
    src: _Source, ctx: ExtractionContext, allow_weak: bool = False
) -> list[Match]:
    low = src.low
    spans = [
        s
        for m in _DURATION.finditer(low)
        if _guard_ok(low, m.start(), _DURATION_GUARD) and (s := _duration_span(m)) is not None
    ]
    found: list[Match] = []
    for span in _merge_durations(spans, low):
        start, end, sign = span.start, span.end, 0
        window = max(0, start - 12)
        before = _DURATION_BEFORE.search(low, window, start)
        after = _DURATION_AFTER.match(low, end)
        if before is not None and _guard_ok(low, before.start(), ""):
            start, sign = before.start(), 1
        elif after is not None:
            end, sign = after.end(), (-1 if after.group("word") == "ago" else 1)
        context = _ARTICLE_CONTEXT.search(low, window, span.start)
        weak_ok = context is not None and _guard_ok(low, context.start(), "")
        if span.weak and sign == 0 and not (weak_ok or allow_weak):
            continue  # "once a day", "one day I will": not a stated duration
        if span.weak and span.unit == "second" and span.amount <= 60 and not allow_weak:
            continue  # "in a minute", "just a sec": idioms for "soon"
        if _RANGE_BEFORE.search(low, window, span.start):
            continue  # "5 to 7 business days": a range is not one duration
        ref = ctx.reference
        resolved = None
        if ref is not None and sign != 0:
            resolved = _resolve(span.amount, span.unit, span.business, ref, sign)
        found.append(Match(start, end, _final_duration(span, resolved)))
    return _select(found)


# --------------------------------------------------------------------------- recognizers


class DateRecognizer:
    """Finds calendar dates (explicit, and relative ones when a reference is set)."""

    fact_type = FactType.DATE

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping date matches."""
        return _date_candidates(_source(text), context)


class TimeRecognizer:
    """Finds times of day; a bare number is never a time."""

    fact_type = FactType.TIME

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping time matches."""
        return _time_candidates(_source(text))


class DateTimeRecognizer:
    """Finds ISO datetimes and a date and a time written next to each other.

    The match spans both parts and claims the date and time sub-spans.
    """

    fact_type = FactType.DATETIME

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping datetime matches."""
        return _datetime_candidates(_source(text), context, lenient=False)


class DurationRecognizer:
    """Finds durations; "in 3 days" also carries the resolved date when a reference is set."""

    fact_type = FactType.DURATION

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping duration matches."""
        return _duration_candidates(_source(text), context)


# --------------------------------------------------------------------------- parsers

_PARTIAL_DATE = re.compile(r"--(?P<m>[0-9]{2})-(?P<d>[0-9]{2})")
_ISO_DURATION = re.compile(
    r"P(?:(?P<y>[0-9.]+)Y)?(?:(?P<mo>[0-9.]+)M)?(?:(?P<w>[0-9.]+)W)?"
    r"(?:(?P<d>[0-9.]+)(?P<b>B)?D)?(?:T(?:(?P<h>[0-9.]+)H)?(?:(?P<mi>[0-9.]+)M)?"
    r"(?:(?P<s>[0-9.]+)S)?)?",
    re.IGNORECASE,
)


def _whole(text: str) -> str:
    return text.strip().rstrip(".!?;,").strip()[:1000]


def _only(found: list[Match], text: str) -> Value | None:
    for f in found:
        if f.start == 0 and f.end == len(text):
            return f.value
    return None


def parse_date(text: str, context: ExtractionContext) -> DateValue | None:
    """Parse a whole date string: any recognised surface form, ``--03-25``, a datetime
    (its date), or "in 3 days" / "3 days ago" (resolved against the reference)."""
    s = _whole(text)
    if (m := _PARTIAL_DATE.fullmatch(s)) is not None:
        return _safe_date(None, int(m.group("m")), int(m.group("d")))
    src = _source(s)
    value = _only(_date_candidates(src, context), s)
    if isinstance(value, DateValue):
        return value
    stamp = _only(_datetime_candidates(src, context, lenient=True), s)
    if isinstance(stamp, DateTimeValue):
        return stamp.date
    duration = _only(_duration_candidates(src, context), s)
    return duration.resolved if isinstance(duration, DurationValue) else None


def parse_time(text: str, context: ExtractionContext) -> TimeValue | None:
    """Parse a whole time string ("14:32", "2:32 PM EST", "14:32-05:00", "noon")."""
    s = _whole(text)
    value = _only(_time_candidates(_source(s), lenient=True), s)
    return value if isinstance(value, TimeValue) else None


def parse_datetime(text: str, context: ExtractionContext) -> DateTimeValue | None:
    """Parse a whole datetime string (ISO, or a date and a time next to each other)."""
    s = _whole(text)
    value = _only(_datetime_candidates(_source(s), context, lenient=True), s)
    return value if isinstance(value, DateTimeValue) else None


_ISO_GROUPS = (
    ("y", "year"),
    ("mo", "month"),
    ("w", "week"),
    ("d", "day"),
    ("h", "hour"),
    ("mi", "minute"),
    ("s", "second"),
)


def _iso_duration(s: str) -> DurationValue | None:
    """``P7D``, ``P7BD``, ``PT1H30M``, ``P1Y6M``; parts must share one normalised unit."""
    m = _ISO_DURATION.fullmatch(s)
    if m is None:
        return None
    parts = [DurationValue(Decimal(m.group(g)), unit) for g, unit in _ISO_GROUPS if m.group(g)]
    if not parts or len({p.unit for p in parts}) != 1:
        return None
    business = m.group("b") is not None
    if business and m.group("w"):
        return None
    return DurationValue(sum((p.amount for p in parts), Decimal(0)), parts[0].unit, business)


def parse_duration(text: str, context: ExtractionContext) -> DurationValue | None:
    """Parse a whole duration string ("7 business days", "an hour and a half", "P7BD")."""
    s = _whole(text)
    try:
        iso = _iso_duration(s)
    except (InvalidOperation, ValueError):
        iso = None
    if iso is not None:
        return iso
    value = _only(_duration_candidates(_source(s), context, allow_weak=True), s)
    return value if isinstance(value, DurationValue) else None
