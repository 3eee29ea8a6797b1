"""Temporal values: dates, times of day and datetimes (durations: ``factdiff.values.duration``).

This module holds the value types and their comparison; the grammar that finds them in text
lives in ``factdiff.extraction.recognizers`` (``dates``, ``times``, ``datetimes``) and follows
the rules below.

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
  ("Tuesday, March 25") is absorbed into that date and not checked against it. Without a
  reference a weekday is a partial date of its own, compared as a day of the week
  (``factdiff.values.weekday``): "next Tuesday" and "next Thursday" differ, and "Tuesday"
  agrees with any full date that falls on a Tuesday.
* numeric dates: ``2026-03-25`` and ``2026/03/25``; ``3/25/2026`` and ``03-25-2026`` are US
  month/day unless the first number exceeds 12 (``25/03/2026``); ``25.03.2026`` is always
  day.month. Numeric dates need a four-digit year.

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

"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from types import MappingProxyType
from typing import ClassVar

from factdiff.errors import InvalidValue
from factdiff.values.base import (
    EXACT,
    JSON,
    FactType,
    Precision,
    Tolerance,
    Value,
    register_decoder,
)
from factdiff.values.weekday import WeekdayValue, decode_weekday

__all__ = [
    "TIMEZONE_OFFSETS",
    "DateTimeValue",
    "DateValue",
    "TimeValue",
    "decode_date",
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
        raise InvalidValue(f"{name} must be an integer")
    return raw


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class DateValue(Value):
    """A calendar date, complete or partial.

    ``year`` is ``None`` when the text gave none and there was no reference (``March 6``);
    ``month`` too for a day of the month alone (``the 3rd``). A partial date equals only
    the values consistent with it: ``--03-06`` is the same as ``2026-03-06`` and
    ``---03`` as any 3rd, never as another day.
    """

    type: ClassVar[FactType] = FactType.DATE
    year: int | None
    month: int | None
    day: int

    def __post_init__(self) -> None:
        if self.year is not None and not 1 <= self.year <= 9999:
            raise InvalidValue(f"year out of range: {self.year}")
        if self.month is None:
            if self.year is not None:
                raise InvalidValue("a date with a year needs a month")
            if not 1 <= self.day <= 31:
                raise InvalidValue(f"no such day of a month: {self.day}")
        elif not _valid_day(self.year, self.month, self.day):
            raise InvalidValue(f"no such day: {self.year}-{self.month}-{self.day}")

    @classmethod
    def of(cls, day: date) -> DateValue:
        """The value of a ``datetime.date``."""
        return cls(day.year, day.month, day.day)

    def to_date(self) -> date | None:
        """The ``datetime.date``, or ``None`` for a partial date."""
        if self.year is None or self.month is None:
            return None
        return date(self.year, self.month, self.day)

    def canonical(self) -> str:
        """``2026-03-25``, ``--03-25`` without a year, ``---25`` for a day alone."""
        if self.month is None:
            return f"---{self.day:02d}"
        head = "-" if self.year is None else f"{self.year:04d}"
        return f"{head}-{self.month:02d}-{self.day:02d}"

    def key(self) -> object:
        return (self.year, self.month, self.day)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Equal down to ``tolerance.precision`` (YEAR, MONTH; finer means the whole date);
        an unknown year or month agrees with any; a weekday (``factdiff.values.weekday``)
        agrees with a full date on that day of the week."""
        if isinstance(other, WeekdayValue):
            return other.same_as(self, tolerance)
        if not isinstance(other, DateValue):
            return False
        years = _agree(self.year, other.year)
        if tolerance.precision is Precision.YEAR:
            return years
        months = years and _agree(self.month, other.month)
        if tolerance.precision is Precision.MONTH:
            return months
        return months and self.day == other.day

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "year": self.year, "month": self.month, "day": self.day}


def _agree(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


@register_decoder(FactType.DATE.value)
def decode_date(data: dict[str, JSON]) -> Value:
    if "weekday" in data:
        return decode_weekday(data)
    month, day = _json_int(data, "month"), _json_int(data, "day")
    if day is None:
        raise InvalidValue("date needs a day")
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
            raise InvalidValue(f"invalid time {self.hour}:{self.minute}")
        if self.second is not None and not 0 <= self.second <= 59:
            raise InvalidValue(f"invalid second {self.second}")
        if self.offset_minutes is None and self.tz is not None:
            object.__setattr__(self, "offset_minutes", TIMEZONE_OFFSETS.get(self.tz))
        if self.offset_minutes is not None and not -1439 <= self.offset_minutes <= 1439:
            raise InvalidValue(f"invalid offset {self.offset_minutes}")

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
        raise InvalidValue("time needs hour and minute")
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

    def _instant(self, precision: Precision | None) -> tuple[int | None, tuple[int, ...]]:
        """(year or None, the UTC moment's fields when zoned, else the written ones) truncated
        to ``precision``: ``(year, month, day, hour, minute, second)``.

        A zoned moment whose UTC time falls outside ``datetime``'s years 1-9999 (such as
        ``0001-01-01T00:00+14:00``) is ``(seconds,)`` from 0001-01-01T00:00 UTC instead: the
        same instant written in any offset gives the same fields, and no value overflows.
        """
        day, t = self.date, self.time
        month = day.month or 1
        moment = datetime(day.year or _PLACEHOLDER_YEAR, month, day.day, t.hour, t.minute)
        if precision in (None, Precision.SECOND):
            moment += timedelta(seconds=t.second or 0)
        year = None if day.year is None else moment.year
        if t.offset_minutes is not None:
            try:
                moment -= timedelta(minutes=t.offset_minutes)
            except OverflowError:
                seconds = (moment - datetime.min) // timedelta(seconds=1) - t.offset_minutes * 60
                if precision is Precision.HOUR:
                    seconds -= seconds % 3600
                return year, (seconds,)
            year = None if day.year is None else moment.year
        if precision is Precision.HOUR:
            moment = moment.replace(minute=0)
        fields = (moment.year, moment.month, moment.day, moment.hour, moment.minute)
        return year, (*fields, moment.second)

    def parts(self) -> tuple[Value, ...]:
        """The date and the time written apart state the datetime."""
        return (self.date, self.time)

    def key(self) -> object:
        year, moment = self._instant(None)
        zone = "local" if self.time.offset_minutes is None else "utc"
        return (zone, year, *moment[1:]) if len(moment) > 1 else (zone, year, *moment)

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
        raise InvalidValue("datetime needs date and time objects")
    date_value, time_value = decode_date(day), _decode_time(time)
    if not isinstance(date_value, DateValue) or not isinstance(time_value, TimeValue):
        raise InvalidValue("datetime parts did not decode")
    return DateTimeValue(date_value, time_value)
