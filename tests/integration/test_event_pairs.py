"""Two events of one write share a row (schema version 14): a demotion's verification event
and its ``demoted``, a failure and its escalation. Read back, every event keeps its own id
(``id - 1`` and ``id``), type, order and payload: listings, pages, counts, filters, statistics
and erasure see events, never rows. Both backends."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from factdiff.store import EventType, MemoryStore, NewEvent
from factdiff.store.model import Event
from tests.integration.conftest import raw, raw_error
from tests.integration.test_store import LATER, NOW, compress, fail

KINDS = (None, EventType.DEMOTED, EventType.COMPRESSION_CLEAN, EventType.ESCALATED_TO_REVIEW)


def _mixed_log(store: MemoryStore) -> list[str]:
    """Entries whose events are rows of two and rows of one, interleaved."""
    ids = [store.add("agent-1", f"Refund {n} of $14,250 approved.", now=NOW) for n in range(4)]
    other = store.add("agent-2", "Invoice INV-88 is due 2026-05-02.", now=NOW)
    assert compress(store, ids[0])  # compression_clean + demoted
    assert fail(store, ids[1], 0)  # compression_failure alone
    assert fail(
        store,
        ids[1],
        1,
        escalate=True,
        events=[
            NewEvent(EventType.COMPRESSION_FAILURE, {"diff": {"missing": ["amount"]}}),
            NewEvent(EventType.ESCALATED_TO_REVIEW, {"reason": "max_attempts"}),
        ],
    )
    assert compress(store, ids[2])
    store.restore(ids[2], LATER + timedelta(days=1))  # restored alone
    assert compress(store, other)
    assert compress(store, ids[3])
    return [*ids, other]


def _walk(store: MemoryStore, limit: int, kind: EventType | None) -> list[Event]:
    """Every event of the listing, page by page, checking each page's counts."""
    walked: list[Event] = []
    after = 0
    while True:
        page = store.event_page(type=kind, after=after, limit=limit)
        assert page.offset == len(walked)
        walked.extend(page.items)
        if page.next_after is None:
            assert page.total == len(walked)
            return walked
        assert len(page.items) == limit
        after = int(page.next_after)


def test_a_demotion_writes_its_two_events_in_one_row(store: MemoryStore) -> None:
    entry_id = store.add("agent-1", "Refund of $14,250 approved.", now=NOW)
    assert compress(store, entry_id)
    ((row_id, first, second),) = raw(
        store, "SELECT id, type, then_type FROM events WHERE entry_id = ?", entry_id
    )
    assert (first, second) == ("compression_clean", "demoted")
    events = list(store.events(entry_id))
    assert [(e.id, e.type) for e in events] == [
        (row_id - 1, EventType.COMPRESSION_CLEAN),
        (row_id, EventType.DEMOTED),
    ]
    assert {(e.entry_id, e.agent_id, e.at) for e in events} == {(entry_id, "agent-1", LATER)}
    store.restore(entry_id, LATER + timedelta(days=1))
    restored = list(store.events(entry_id))[-1]
    assert restored.type is EventType.RESTORED
    assert restored.id > row_id
    assert store.last_event_id() == restored.id


def test_listings_pages_and_counts_see_events_not_rows(store: MemoryStore) -> None:
    ids = _mixed_log(store)
    ((rows, pairs),) = raw(store, "SELECT count(*), count(then_type) FROM events")
    assert pairs == 5
    everything = list(store.events())
    assert len(everything) == rows + pairs
    assert [e.id for e in everything] == sorted({e.id for e in everything})
    for kind in KINDS:
        listed = [e for e in everything if kind is None or e.type is kind]
        assert list(store.events(type=kind)) == listed
        for limit in (1, 2, 3, 5):
            assert _walk(store, limit, kind) == listed
            assert list(store.events(type=kind, limit=limit)) == listed[:limit]
    # a cursor on the first event of a row of two lists its second next
    first, second = list(store.events(ids[0]))
    page = store.event_page(after=first.id, limit=1)
    assert page.items == (second,)
    assert page.offset == everything.index(second)
    assert store.event_page(entry_id=ids[1], type=EventType.ESCALATED_TO_REVIEW).total == 1
    assert store.stats()["events"] == dict(Counter(e.type.value for e in everything))


def test_a_review_reads_the_escalation_in_the_second_half_of_a_row(store: MemoryStore) -> None:
    ids = _mixed_log(store)
    (escalation,) = store.events(ids[1], type=EventType.ESCALATED_TO_REVIEW)
    assert escalation.payload == {"reason": "max_attempts"}
    later = LATER + timedelta(days=2)
    assert store.resolve_reviews(later, reason="provider_unavailable") == []
    assert store.resolve_reviews(later, reason="max_attempts") == [ids[1]]


@pytest.mark.parametrize("escalated", [False, True])
def test_an_erasure_redacts_both_events_of_a_row(store: MemoryStore, escalated: bool) -> None:
    ids = _mixed_log(store)
    target = ids[1] if escalated else ids[0]
    before = list(store.events(target))
    (done,) = store.forget([target], now=LATER + timedelta(days=2))
    assert done.redacted_events == len(before)
    after = list(store.events(target))
    assert [(e.id, e.type) for e in after[:-1]] == [(e.id, e.type) for e in before]
    assert all(e.payload["redacted"] is True for e in after[:-1])
    assert after[-1].type is EventType.ERASED
    assert store.verify() == []


def test_the_second_event_of_a_row_stays_append_only(store: MemoryStore) -> None:
    entry_id = store.add("agent-1", "Refund of $14,250 approved.", now=NOW)
    assert compress(store, entry_id)
    ((row_id,),) = raw(store, "SELECT id FROM events WHERE entry_id = ?", entry_id)
    redacted = '{"redacted": true}'
    update = "UPDATE events SET payload = ?, packed = NULL, then_payload = ?, then_packed = NULL"
    with pytest.raises(raw_error(), match="append-only"):  # outside an erasure
        raw(store, update + " WHERE id = ?", redacted, redacted, row_id)
    raw(store, "INSERT INTO erasure_pending (entry_id) VALUES (?)", entry_id)
    with pytest.raises(raw_error(), match="append-only"):  # the second must be redacted too
        raw(store, update + " WHERE id = ?", redacted, '{"x": 1}', row_id)
    with pytest.raises(raw_error(), match="append-only"):  # and keep its type
        raw(store, update + ", then_type = 'restored' WHERE id = ?", redacted, redacted, row_id)
    raw(store, update + " WHERE id = ?", redacted, redacted, row_id)  # what an erasure writes
    assert [e.payload for e in store.events(entry_id)] == [{"redacted": True}] * 2
    store.restore(entry_id, LATER + timedelta(days=1))
    ((single,),) = raw(store, "SELECT max(id) FROM events WHERE entry_id = ?", entry_id)
    with pytest.raises(raw_error(), match="append-only"):  # a row of one gains no second
        raw(store, update + " WHERE id = ?", redacted, redacted, single)
