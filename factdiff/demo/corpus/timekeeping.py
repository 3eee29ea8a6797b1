"""Time for the demo corpus without a time zone database: the zones people write, US and
EU summer time by their rules, business days and month arithmetic."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta


@dataclass(frozen=True)
class _Zone:
    """A time zone as people write it: abbreviations and their UTC offset in hours."""

    standard: str
    summer: str
    offset: int
    rule: str  # "us", "eu" or "none"
    currency: str


ZONES = (
    _Zone("EST", "EDT", -5, "us", "USD"),
    _Zone("CST", "CDT", -6, "us", "USD"),
    _Zone("MST", "MDT", -7, "us", "USD"),
    _Zone("PST", "PDT", -8, "us", "USD"),
    _Zone("GMT", "BST", 0, "eu", "GBP"),
    _Zone("CET", "CEST", 1, "eu", "EUR"),
)
US_ZONES = ZONES[:4]
UTC_ZONE = _Zone("UTC", "UTC", 0, "none", "USD")


def _nth_sunday(year: int, month: int, n: int) -> date:
    """The ``n``-th Sunday of a month; ``n = -1`` for the last."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() + 1) % 7)


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=UTC)


def _is_summer(zone: _Zone, instant: datetime) -> bool:
    """Whether summer time applies to ``instant`` (UTC) in ``zone``, by US or EU rules."""
    year = instant.year
    if zone.rule == "us":
        begin = _at(_nth_sunday(year, 3, 2), 2 - zone.offset)
        end = _at(_nth_sunday(year, 11, 1), 1 - zone.offset)
    elif zone.rule == "eu":
        begin = _at(_nth_sunday(year, 3, -1), 1)
        end = _at(_nth_sunday(year, 10, -1), 1)
    else:
        return False
    return begin <= instant < end


def _offset(zone: _Zone, instant: datetime) -> int:
    return zone.offset + (1 if _is_summer(zone, instant) else 0)


def _local(zone: _Zone, instant: datetime) -> tuple[datetime, str]:
    """Local wall time (naive) of a UTC instant and the zone abbreviation in force."""
    summer = _is_summer(zone, instant)
    wall = instant + timedelta(hours=zone.offset + (1 if summer else 0))
    return wall.replace(tzinfo=None), zone.summer if summer else zone.standard


def _from_local(zone: _Zone, day: date, hour: int, minute: int) -> datetime:
    """The UTC instant of a daytime local wall time (never near a summer-time switch)."""
    instant = datetime.combine(day, time(hour, minute), tzinfo=UTC) - timedelta(hours=zone.offset)
    return instant - timedelta(hours=1) if _is_summer(zone, instant) else instant


def _business_days_after(day: date, count: int) -> date:
    while count > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def _add_months(day: date, months: int) -> date:
    """The same day ``months`` later (the month's last day when it is shorter)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, _month_end(date(year, month, 1)).day))


def _month_end(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1) - timedelta(days=1)


def _next_weekday(day: date, weekday: int) -> date:
    """The first ``weekday`` strictly after ``day``."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)
