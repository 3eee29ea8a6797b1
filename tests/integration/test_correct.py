"""Correction on both stores: a hot or warm entry's source replaced, history kept, indexes
updated, due for compression again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.errors import InputError
from factdiff.store import EntryStatus, EventType, MemoryStore, Tier
from factdiff.store.model import EntryErased

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
LATER = T0 + timedelta(days=30)
WRONG = "Order ORD-4410 for Brannigan Tiles: 40 boxes, total $1,250.00, deliver by 2026-04-02."
RIGHT = "Order ORD-4410 for Bramwell Tiles: 40 boxes, total $1,520.00, deliver by 2026-04-09."


def due_ids(store: MemoryStore) -> list[str]:
    return [e.id for e in store.due_for_demotion(LATER, timedelta(days=14))]


def test_correct_a_hot_entry(store: MemoryStore) -> None:
    entry_id = store.add("ops", WRONG, now=T0, last_used_at=T0)
    before = store.get(entry_id)
    done = store.correct(entry_id, RIGHT, now=LATER, reason="amount misheard")
    after = store.get(entry_id)
    assert after.content == RIGHT
    assert after.tier is Tier.HOT
    assert done.previous_content_hash == before.content_hash != after.content_hash
    assert after.content_hash == done.content_hash
    assert not done.restored
    assert after.last_used_at == before.last_used_at
    assert entry_id in due_ids(store)
    (event,) = [e for e in store.events(entry_id) if e.type is EventType.CORRECTED]
    assert event.payload["previous_content_hash"] == before.content_hash
    assert event.payload["reason"] == "amount misheard"
    assert [h.entry_id for h in store.search("Bramwell", touch=False, now=LATER)] == [entry_id]
    assert [h.entry_id for h in store.search("Brannigan", touch=False, now=LATER)] == []
    (hit,) = store.search("$1,520.00", touch=False, now=LATER)
    assert hit.entry_id == entry_id
    assert hit.matched
    assert store.verify() == []


def test_correct_a_warm_entry_restores_it_first(store: MemoryStore) -> None:
    entry_id = store.add("ops", WRONG, now=T0, last_used_at=T0)
    Demoter(store, DemotionSettings(ladder=ladder_from_spec("extractive:0.9x"))).run(LATER)
    assert store.get(entry_id).tier is Tier.WARM
    done = store.correct(entry_id, RIGHT, now=LATER, reason="dates swapped")
    entry = store.get(entry_id)
    assert done.restored
    assert entry.tier is Tier.HOT
    assert entry.content == RIGHT
    assert entry.warm is None
    assert entry_id in due_ids(store)
    assert [h.entry_id for h in store.search("2026-04-09", touch=False, now=LATER)] == [entry_id]
    assert store.verify() == []
    # compressed again from the corrected text
    Demoter(store, DemotionSettings(ladder=ladder_from_spec("extractive:0.9x"))).run(LATER)
    assert store.read_cold(entry_id) == RIGHT


def test_a_corrected_review_entry_is_active_again(store: MemoryStore) -> None:
    entry_id = store.add("ops", WRONG, now=T0, last_used_at=T0)
    rungs = ladder_from_spec("naive:3")
    Demoter(store, DemotionSettings(ladder=rungs, retry=RetryPolicy(max_attempts=1))).run(LATER)
    assert store.get(entry_id).status is EntryStatus.REVIEW
    store.correct(entry_id, RIGHT, now=LATER)
    assert store.get(entry_id).status is EntryStatus.ACTIVE
    assert entry_id in due_ids(store)
    assert len(store.attempts(entry_id)) == 1  # the history stays


def test_correct_refuses_bad_input(store: MemoryStore) -> None:
    entry_id = store.add("ops", WRONG, now=T0)
    with pytest.raises(InputError, match="empty or whitespace"):
        store.correct(entry_id, "  \n", now=LATER)
    with pytest.raises(InputError, match="already holds exactly this text"):
        store.correct(entry_id, WRONG, now=LATER)
    store.forget([entry_id], now=LATER)
    with pytest.raises(EntryErased):
        store.correct(entry_id, RIGHT, now=LATER)
    with pytest.raises(InputError, match="no entry with id 'nope'"):
        store.correct("nope", RIGHT, now=LATER)
