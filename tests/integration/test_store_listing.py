"""Paged listings with totals, bulk adds and bulk review resolution, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from factdiff.errors import InputError
from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    BadEntry,
    EntryStatus,
    EventType,
    MemoryStore,
    NewEntry,
    NewEvent,
    Tier,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def escalate(store: MemoryStore, entry_id: str, reason: str) -> None:
    attempt = AttemptRecord(
        rung=0,
        summarizer="naive",
        extractor="rules",
        method_version="t",
        outcome=AttemptOutcome.FAILED,
        started_at=NOW,
        finished_at=NOW,
        duration_ms=1.0,
    )
    events = [NewEvent(EventType.ESCALATED_TO_REVIEW, {"reason": reason})]
    assert store.apply_failed(
        entry_id,
        expected_attempts=store.get(entry_id).attempt_count,
        attempt=attempt,
        next_attempt_at=None,
        escalate=True,
        events=events,
        now=NOW,
    )


def test_add_many_keeps_order_and_is_all_or_nothing(store: MemoryStore) -> None:
    items = [NewEntry(f"agent-{i % 3}", f"note {i}", tags=("t",)) for i in range(600)]
    ids = store.add_many(items, now=NOW)
    assert ids == sorted(ids)
    assert len(set(ids)) == 600
    listed = [e.id for e in store.entries(with_content=False)]
    assert listed == ids
    assert store.get(ids[599]).content == "note 599"
    bad = [NewEntry("a", "fine"), NewEntry("a", "x\ud800"), NewEntry("a", "also fine")]
    with pytest.raises(BadEntry) as caught:
        store.add_many(bad, now=NOW)
    assert caught.value.position == 2
    assert "lone surrogate" in caught.value.detail
    with pytest.raises(BadEntry, match="entry 1: agent id must not be empty"):
        store.add_many([NewEntry(" ", "x"), NewEntry("a", "y")], now=NOW)
    assert store.stats()["tiers"]["hot"] == 600
    with pytest.raises(InputError, match="agent id must not be empty"):
        store.add(" ", "x", now=NOW)
    assert store.add_many([], now=NOW) == []


def test_entry_pages_count_what_they_leave_out(store: MemoryStore) -> None:
    ids = store.add_many([NewEntry(f"a{i % 2}", f"n {i}") for i in range(23)], now=NOW)
    escalate(store, ids[3], "x")
    page = store.entry_page(limit=10)
    assert [e.id for e in page.items] == ids[:10]
    assert (page.total, page.offset, page.next_after) == (23, 0, ids[9])
    second = store.entry_page(limit=10, after=str(page.next_after))
    assert [e.id for e in second.items] == ids[10:20]
    assert second.offset == 10
    last = store.entry_page(limit=10, after=str(second.next_after))
    assert [e.id for e in last.items] == ids[20:]
    assert (last.offset, last.next_after) == (20, None)
    exact = store.entry_page(limit=23)
    assert exact.next_after is None
    a1 = store.entry_page(agent="a1", limit=5)
    assert a1.total == 11
    assert all(e.agent_id == "a1" for e in a1.items)
    review = store.entry_page(status=EntryStatus.REVIEW)
    assert [e.id for e in review.items] == [ids[3]]
    assert review.total == 1
    assert store.entry_page(tier=Tier.WARM).total == 0
    empty = store.entry_page(limit=0)
    assert (empty.items, empty.total, empty.next_after) == ((), 23, "")
    with pytest.raises(InputError):
        store.entry_page(limit=-1)


def test_event_pages(store: MemoryStore) -> None:
    ids = store.add_many([NewEntry("a", f"n {i}") for i in range(5)], now=NOW)
    for i, entry_id in enumerate(ids):
        escalate(store, entry_id, f"r{i}")
    page = store.event_page(type=EventType.ESCALATED_TO_REVIEW, limit=2)
    assert page.total == 5
    assert [e.entry_id for e in page.items] == ids[:2]
    rest = store.event_page(type=EventType.ESCALATED_TO_REVIEW, after=int(page.next_after or 0))
    assert [e.entry_id for e in rest.items] == ids[2:]
    assert (rest.offset, rest.next_after) == (2, None)
    since = store.event_page(since=NOW + timedelta(seconds=1))
    assert since.total == 0
    assert store.event_page(ids[0]).total == 1


def test_resolve_reviews_by_agent_and_reason(store: MemoryStore) -> None:
    ids = store.add_many([NewEntry(f"a{i % 2}", f"n {i}") for i in range(300)], now=NOW)
    for i, entry_id in enumerate(ids):
        escalate(store, entry_id, "provider_unavailable" if i % 3 == 0 else "3 of 3 failed")
    by_reason = store.resolve_reviews(NOW, reason="provider_unavailable", note="outage over")
    assert by_reason == ids[::3]
    again = store.resolve_reviews(NOW, reason="provider_unavailable")
    assert again == []
    by_agent = store.resolve_reviews(NOW, agent="a1")
    assert by_agent == [i for n, i in enumerate(ids) if n % 2 == 1 and n % 3 != 0]
    rest = store.resolve_reviews(NOW)
    assert sorted(by_reason + by_agent + rest) == ids
    assert store.entry_page(status=EntryStatus.REVIEW).total == 0
    resolved = list(store.events(type=EventType.REVIEW_RESOLVED))
    assert len(resolved) == 300
    assert resolved[0].payload == {"note": "outage over", "reason": "provider_unavailable"}
