"""An entry keeps the UTC offset of its occurred_at, so relative dates resolve locally."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from factdiff.demotion.demoter import reference_of
from factdiff.schema.builtin import generic_schema
from factdiff.store import MemoryStore
from factdiff.values.base import FactType
from factdiff.verify.check import extract

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
PLUS_TWO = timezone(timedelta(hours=2))


def test_occurred_at_keeps_its_offset_and_the_local_date(store: MemoryStore) -> None:
    occurred = datetime(2026, 1, 6, 0, 30, tzinfo=PLUS_TWO)  # 2026-01-05 22:30 UTC
    text = "The parts arrive tomorrow."
    entry_id = store.add("agent", text, now=NOW, occurred_at=occurred)
    entry = store.get(entry_id)
    assert entry.occurred_at == occurred
    assert entry.occurred_at is not None
    assert entry.occurred_at.utcoffset() == timedelta(hours=2)
    reference = reference_of(entry, text)
    assert reference == date(2026, 1, 6)
    record = extract(text, generic_schema(), reference)
    (fact,) = record.inventory[FactType.DATE]
    assert fact.value.canonical() == "2026-01-07"


def test_utc_and_missing_offsets(store: MemoryStore) -> None:
    utc_id = store.add("agent", "a", now=NOW, occurred_at=datetime(2026, 1, 5, 22, 30, tzinfo=UTC))
    none_id = store.add("agent", "b", now=NOW)
    utc = store.get(utc_id).occurred_at
    assert utc is not None
    assert utc.utcoffset() == timedelta(0)
    assert store.get(none_id).occurred_at is None
