"""Weekdays resolve as dates against the entry's own timestamp, in its own offset."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from factdiff.demotion.demoter import reference_of
from factdiff.schema.builtin import generic_schema
from factdiff.store import MemoryStore
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract
from factdiff.verify.diff import Verdict

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
PACIFIC = timezone(timedelta(hours=-8))
SOURCE = "Technician visit for ticket TK-2201 is next Tuesday."


def test_next_tuesday_is_read_in_the_entrys_offset_and_a_changed_weekday_fails(
    store: MemoryStore,
) -> None:
    # Monday 23:30 in California is already Tuesday in UTC: "next Tuesday" is the next day
    occurred = datetime(2026, 3, 2, 23, 30, tzinfo=PACIFIC)
    entry = store.get(store.add("agent", SOURCE, now=NOW, occurred_at=occurred))
    reference = reference_of(entry, SOURCE)
    assert reference == date(2026, 3, 2)
    (fact,) = extract(SOURCE, generic_schema(), reference).inventory[FactType.DATE]
    assert fact.value.canonical() == "2026-03-03"

    kept = check(
        SOURCE, "TK-2201: technician comes March 3, 2026.", generic_schema(), reference=reference
    )
    assert kept.diff.findings == ()
    moved = check(
        SOURCE, SOURCE.replace("Tuesday", "Thursday"), generic_schema(), reference=reference
    )
    assert [(f.verdict, f.field) for f in moved.diff.findings] == [
        (Verdict.CHANGED, "inventory.date")
    ]
    assert moved.diff.findings[0].summary is not None
    assert moved.diff.findings[0].summary.value.canonical() == "2026-03-05"
