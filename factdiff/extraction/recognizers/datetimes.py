"""Datetimes in text: ISO stamps, and a date and a time written side by side."""

from __future__ import annotations

import re
from collections.abc import Iterable

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.dates import _NUMERIC_GUARD, _date_candidates, _safe_date
from factdiff.extraction.recognizers.temporal_text import _guard_ok, _select, _Source, _source
from factdiff.extraction.recognizers.times import _signed, _time_candidates, _zone_at
from factdiff.values.base import FactType
from factdiff.values.temporal import DateTimeValue, DateValue, TimeValue

# --------------------------------------------------------------------------- datetimes

_DATETIME_ISO = re.compile(
    r"(?P<y>[0-9]{4}|-)-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})t"
    r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2})(?::(?P<s>[0-9]{2})(?:[.,][0-9]{1,9})?)?"
    r"(?P<zone>z|[+\-][0-9]{2}(?::?[0-9]{2})?)?(?![\w:]|[.,][0-9])"
)
_ISO_JOINT = re.compile(r"[0-9]t[0-9]")
"""What every ISO datetime has (in the lower-cased text): a text without it is not scanned
for them."""
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


def _full_month(match: Match) -> bool:
    """A day alone (month unknown) does not make a datetime."""
    return isinstance(match.value, DateValue) and match.value.month is not None


def _datetime_candidates(src: _Source, ctx: ExtractionContext, lenient: bool) -> list[Match]:
    found: list[Match] = []
    for m in _DATETIME_ISO.finditer(src.low) if _ISO_JOINT.search(src.low) else ():
        if _guard_ok(src.low, m.start(), _NUMERIC_GUARD):
            cand = _iso_datetime(m, src)
            if cand is not None:
                found.append(cand)
    times = _time_candidates(src, lenient)
    dates = [d for d in _date_candidates(src, ctx) if _full_month(d)] if times else []
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


class DateTimeRecognizer:
    """Finds ISO datetimes and a date and a time written next to each other.

    The match spans both parts and claims the date and time sub-spans.
    """

    fact_type = FactType.DATETIME

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping datetime matches."""
        return _datetime_candidates(_source(text), context, lenient=False)
