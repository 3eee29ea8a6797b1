"""The store's activity per day: a read model for the dashboard (``factdiff.ops.dashboard``).

``DailyActivity`` holds the attempts per UTC day and outcome, and the review decisions per
UTC day and event type, read in one snapshot (``dashboard_*`` in
``sql/common/dashboard.sql``), each list ordered by day then kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from factdiff.store.database import Database, Row

__all__ = ["DailyActivity", "DayCount", "read_daily_activity"]

_EPOCH_DAY = date(1970, 1, 1)


@dataclass(frozen=True)
class DayCount:
    """How many of one kind (an attempt outcome, a review event type) on one UTC day."""

    day: date
    kind: str
    count: int


@dataclass(frozen=True)
class DailyActivity:
    """Attempts per day and outcome, review decisions per day and event type."""

    outcomes: tuple[DayCount, ...]
    review_decisions: tuple[DayCount, ...]


def read_daily_activity(db: Database) -> DailyActivity:
    """The store's ``DailyActivity``, in one read snapshot."""
    with db.read():
        by_day = db.rows(db.sql("dashboard_outcomes_by_day"), {})
        decisions = db.rows(db.sql("dashboard_review_events"), {})
    return DailyActivity(_counts(by_day), _counts(decisions))


def _counts(rows: list[Row]) -> tuple[DayCount, ...]:
    return tuple(
        DayCount(_EPOCH_DAY + timedelta(days=int(day)), str(kind), int(count))
        for day, kind, count in rows
    )
