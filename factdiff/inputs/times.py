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
refuses any other time; ``factdiff.settings.parse_duration`` any other duration.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factdiff.errors import InputError

__all__ = ["MAX_DURATION", "TIME_MAX", "TIME_MIN", "check_time", "clamp_time", "later"]

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
