"""The times and durations factdiff takes, decided once.

* **Times** (an entry's ``occurred_at``, ``now``, filters such as ``--since``) are instants
  from ``TIME_MIN`` (``0101-01-01T00:00Z``) to ``TIME_MAX`` (``9899-12-31T23:59:59.999999Z``),
  in any UTC offset of whole minutes;
* **durations** (leases, polls, backoffs, dormancy, windows) are at most ``MAX_DURATION``
  seconds (36500 days, about a century).

Python's ``datetime`` holds years 1 to 9999; the range keeps a century clear at each end, so
a time in range can be shown in any offset (less than a day) and moved by any duration in
range, and a date resolved from an entry's own date stays a date: nothing derived from a time
factdiff accepted can overflow. ``MAX_DURATION`` is also far below the longest wait the
platform's timers take (``threading.TIMEOUT_MAX``). The store (``factdiff.store.codec``)
refuses any other time; ``parse_duration``, the one reader of durations (settings, flags,
HTTP bodies and query parameters alike), any other duration.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

from factdiff.errors import InputError

__all__ = [
    "MAX_DURATION",
    "TIME_MAX",
    "TIME_MIN",
    "check_time",
    "clamp_time",
    "later",
    "parse_duration",
]

TIME_MIN = datetime(101, 1, 1, tzinfo=UTC)
TIME_MAX = datetime(9899, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
MAX_DURATION = 36500 * 86400.0
"""Seconds: the longest duration factdiff takes (``36500d``)."""

RANGE_TEXT = "0101-01-01T00:00Z to 9899-12-31T23:59:59.999999Z"
"""``TIME_MIN`` to ``TIME_MAX`` as messages show them."""


def check_time(moment: datetime, what: str = "time") -> datetime:
    """``moment`` if it is timezone-aware and from ``TIME_MIN`` to ``TIME_MAX``, else
    ``InputError`` naming the range."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InputError(f"{what} must be timezone-aware (got {moment.isoformat()})")
    if not TIME_MIN <= moment <= TIME_MAX:
        raise InputError(
            f"{what} {moment.isoformat()} is outside the times factdiff stores: "
            f"give one from {RANGE_TEXT}"
        )
    return moment


def clamp_time(moment: datetime) -> datetime:
    """``moment`` moved into ``TIME_MIN``..``TIME_MAX`` (for a time stored before the range
    was checked, when it must be written again)."""
    return max(TIME_MIN, min(moment, TIME_MAX))


def later(moment: datetime, delay: timedelta) -> datetime:
    """``moment + delay``, at most ``TIME_MAX``: a retry or finish time is never out of range
    (for a time and a duration in range the sum cannot overflow; anything else saturates)."""
    try:
        return min(moment + delay, TIME_MAX)
    except OverflowError:
        return TIME_MAX


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|w|d|h|m|s)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_TOO_LONG = "longer than the longest duration factdiff takes, 36500d"
_NOT_A_DURATION = "is not a duration like 500ms, 30s, 12h, 14d or 2w"


def parse_duration(value: str | float | int | timedelta) -> float:
    """Seconds from ``500ms``, ``30s``, ``1h30m``, ``14d``, ``2w``, a number or a timedelta;
    ``ValueError`` for anything else, negative, or longer than ``MAX_DURATION``."""
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    elif isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:  # an int beyond any float
            raise ValueError(f"{_shown(value)} is {_TOO_LONG}") from None
    else:
        cleaned = value.strip().lower().replace(" ", "")
        parts = _DURATION.findall(cleaned)
        if not parts or "".join(a + u for a, u in parts) != cleaned:
            try:
                seconds = float(cleaned)
            except ValueError:
                raise ValueError(f"{value!r} {_NOT_A_DURATION}") from None
        else:
            seconds = sum(float(amount) * _UNITS[unit] for amount, unit in parts)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"{_shown(value)} {_NOT_A_DURATION}")
    if seconds > MAX_DURATION:
        raise ValueError(f"{_shown(value)} is {_TOO_LONG}")
    return seconds


def _shown(value: object) -> str:
    """``value`` for a message, cut short when it is long."""
    if isinstance(value, int) and abs(value) >= 10**40:
        return "a number of over 40 digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
