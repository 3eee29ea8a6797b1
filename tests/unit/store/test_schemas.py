"""``SchemaRegistry``: registered hashes cached once found, dropped when a write rolls back."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from factdiff.store import MemoryStore, NewEvent, open_store
from factdiff.store.model import SchemaVersionConflict
from factdiff.store.schemas import SchemaRegistry

NOW = datetime(2026, 3, 25, tzinfo=UTC)
FORGET = "DELETE FROM schemas WHERE name = :name"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with open_store(tmp_path / "m.db") as store:
        yield store


def test_hashes_are_cached_until_a_rollback(store: MemoryStore) -> None:
    appended: list[list[NewEvent]] = []
    db = store.database
    registry = SchemaRegistry(db, lambda events, *_: appended.append(events))
    assert registry.registered_hash("invoice", 1) is None
    assert registry.register_schema("invoice", 1, "h1", {"fields": []}, now=NOW)
    assert [e.type.value for (e,) in appended] == ["schema_registered"]
    assert registry.registered_hash("invoice", 1) == "h1"
    db.write(lambda: db.backend.execute(FORGET, {"name": "invoice"}))
    assert registry.registered_hash("invoice", 1) == "h1"  # cached: a version keeps its hash
    for forget in db.on_rollback:
        forget()
    assert registry.registered_hash("invoice", 1) is None


def test_a_version_keeps_its_hash(store: MemoryStore) -> None:
    registry = SchemaRegistry(store.database, lambda *_: None)
    assert registry.register_schema("invoice", 1, "h1", {}, now=NOW)
    assert not registry.register_schema("invoice", 1, "h1", {}, now=NOW)
    with pytest.raises(SchemaVersionConflict, match="bump the schema's version"):
        registry.register_schema("invoice", 1, "h2", {}, now=NOW)
