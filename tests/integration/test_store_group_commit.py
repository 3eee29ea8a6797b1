"""Group commit: several outcomes applied in one transaction (``MemoryStore.write_each``),
each fenced on its own, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from typing import Any

import pytest

from factdiff.errors import InputError, StoreError
from factdiff.store import EventType, MemoryStore, Tier
from tests.integration.test_store import LATER, NOW, compress, fail


def test_outcomes_apply_together_each_fenced_on_its_own(store: MemoryStore) -> None:
    first, stale, third = (store.add("a", f"Refund of ${n},250.", now=NOW) for n in (14, 15, 16))
    outcomes = store.write_each(
        [
            lambda: compress(store, first),
            lambda: compress(store, stale, expected=3),  # its fence refuses it
            lambda: fail(store, third, 0),
        ]
    )
    assert outcomes == [(True, True), (True, False), (True, True)]
    assert store.get(first).tier is Tier.WARM
    refused = store.get(stale)
    assert (refused.tier, refused.attempt_count, refused.content) == (
        Tier.HOT,
        0,
        "Refund of $15,250.",
    )
    assert store.attempts(stale) == []
    assert list(store.events(stale)) == []
    assert store.get(third).attempt_count == 1
    assert [e.type for e in store.events(third)] == [EventType.COMPRESSION_FAILURE]
    assert store.verify() == []


def test_a_failing_outcome_writes_nothing_and_keeps_its_own_exception(store: MemoryStore) -> None:
    before, broken, after = (store.add("a", f"Note {n}.", now=NOW) for n in range(3))

    def half_written() -> bool:
        def work() -> bool:
            store.database.exec(
                "touch", id=broken, now=0
            )  # written, then undone with its savepoint
            raise InputError("broken outcome")

        return store.database.write(work)

    outcomes = store.write_each(
        [lambda: compress(store, before), half_written, lambda: compress(store, after)]
    )
    assert outcomes[0] == (True, True)
    assert outcomes[2] == (True, True)
    ok, error = outcomes[1]
    assert not ok
    assert isinstance(error, InputError)
    assert "broken outcome" in str(error)
    assert store.get(broken).last_used_at == NOW
    assert store.get(before).tier is Tier.WARM
    assert store.get(after).tier is Tier.WARM
    assert store.verify() == []


def test_a_driver_error_in_one_outcome_is_a_store_error_for_that_caller(
    store: MemoryStore,
) -> None:
    entry = store.add("a", "Refund of $14,250.", now=NOW)

    def bad_statement() -> Any:
        return store.database.write(
            lambda: store.backend.execute("SELECT * FROM no_such_table", {})
        )

    outcomes = store.write_each([bad_statement, lambda: compress(store, entry)])
    assert not outcomes[0][0]
    assert isinstance(outcomes[0][1], StoreError)
    assert outcomes[1] == (True, True)
    assert store.get(entry).tier is Tier.WARM


def test_an_interrupt_rolls_every_outcome_back(store: MemoryStore) -> None:
    entry = store.add("a", "Refund of $14,250.", now=NOW)

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.write_each([lambda: compress(store, entry), interrupted])
    assert store.get(entry).tier is Tier.HOT
    assert compress(store, entry)  # the entry was never applied: it applies now
    assert store.get(entry).warm is not None
    assert store.get(entry).warm.compressed_at == LATER  # type: ignore[union-attr]
