"""``Integrity``: its own checks over a SQLite database, then the parts' checks in order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from factdiff.store import MemoryStore, NewEntry, open_store
from factdiff.store.database import Row
from factdiff.store.integrity import Integrity
from factdiff.store.model import IntegrityError

NOW = datetime(2026, 3, 25, tzinfo=UTC)
TAMPER = "UPDATE hot_content SET content = :c WHERE entry_id = :id"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with open_store(tmp_path / "m.db") as store:
        yield store


def no_archive(entry_id: str, cold: Row) -> bytes:
    raise IntegrityError(entry_id, "no archive expected here")


def test_a_sound_store_reports_only_the_parts_problems_in_order(store: MemoryStore) -> None:
    store.add_many([NewEntry("a", f"entry {i}") for i in range(3)], now=NOW)
    integrity = Integrity(store.database, no_archive, checks=[lambda: ["one"], lambda: iter([])])
    assert integrity.verify() == ["one"]
    checks = [lambda: ["first"], lambda: ("second", "third")]
    assert Integrity(store.database, no_archive, checks).verify() == ["first", "second", "third"]


def test_hot_content_off_its_hash_is_found_past_the_first_page(store: MemoryStore) -> None:
    ids = store.add_many([NewEntry("a", f"entry {i}") for i in range(40)], now=NOW)
    db = store.database
    for entry_id in (ids[1], ids[35]):
        db.write(partial(db.backend.execute, TAMPER, {"c": b"tampered", "id": entry_id}))
    problems = Integrity(db, no_archive, checks=[lambda: ["after"]]).verify()
    assert problems == [
        f"entry {ids[1]}: hot content does not match its hash",
        f"entry {ids[35]}: hot content does not match its hash",
        "after",
    ]


def test_an_entry_in_no_tier_is_reported(store: MemoryStore) -> None:
    (entry_id,) = store.add_many([NewEntry("a", "source")], now=NOW)
    db = store.database
    db.write(
        lambda: db.backend.execute("DELETE FROM hot_content WHERE entry_id = :id", {"id": entry_id})
    )
    assert Integrity(db, no_archive, checks=[]).verify() == [
        f"entry {entry_id}: tier hot but hot=False warm=False cold=False"
    ]
