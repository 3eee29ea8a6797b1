"""Whole-string parsers for dates, times, datetimes and durations."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.dates import _date_candidates, _safe_date
from factdiff.extraction.recognizers.datetimes import _datetime_candidates
from factdiff.extraction.recognizers.durations import _duration_candidates
from factdiff.extraction.recognizers.temporal_text import _source
from factdiff.extraction.recognizers.times import _time_candidates
from factdiff.values.base import Value
from factdiff.values.duration import DurationValue
from factdiff.values.temporal import DateTimeValue, DateValue, TimeValue
from factdiff.values.weekday import WeekdayValue

# --------------------------------------------------------------------------- parsers

_PARTIAL_DATE = re.compile(r"--(?P<m>[0-9]{2})-(?P<d>[0-9]{2})|---(?P<day>[0-9]{2})")
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


def parse_date(text: str, context: ExtractionContext) -> DateValue | WeekdayValue | None:
    """Parse a whole date string: any recognised surface form, ``--03-25``, a datetime
    (its date), or "in 3 days" / "3 days ago" (resolved against the reference); a weekday
    without a reference is a partial weekday value."""
    s = _whole(text)
    if (m := _PARTIAL_DATE.fullmatch(s)) is not None:
        if m.group("day"):
            day = int(m.group("day"))
            return DateValue(None, None, day) if 1 <= day <= 31 else None
        return _safe_date(None, int(m.group("m")), int(m.group("d")))
    src = _source(s)
    value = _only(_date_candidates(src, context), s)
    if isinstance(value, DateValue | WeekdayValue):
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
