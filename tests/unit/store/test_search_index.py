"""``SearchIndex`` on its own ``Database``: re-indexing an entry and packed narrative keys."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from factdiff.store import MemoryStore, NewEntry, open_store
from factdiff.store.database import Database
from factdiff.store.indexing import IndexDoc, Indexer
from factdiff.store.model import Entry
from factdiff.store.schema_resolver import SchemaResolver
from factdiff.store.search_index import SearchIndex, pack_keys, unpack_keys

NOW = datetime(2026, 3, 25, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with open_store(tmp_path / "m.db") as opened:
        yield opened


def unused_indexer() -> Indexer:
    raise AssertionError("the indexer is not needed")


def unused_schemas() -> SchemaResolver:
    raise AssertionError("the schemas are not needed")


def no_entry(entry_id: str) -> Entry | None:
    raise AssertionError(f"{entry_id} is not read")


def no_source(entry_id: str) -> str:
    raise AssertionError(f"{entry_id} has no archive read")


def fact_keys(db: Database, entry_id: str) -> set[int]:
    doc = db.one("select_search_doc", entry_id=entry_id)
    return {int(row["key_hash"]) for row in db.rows(db.sql("select_fact_keys"), {"doc": doc})}


def test_reindex_replaces_the_fact_keys_and_clears_the_pending_mark(store: MemoryStore) -> None:
    db = store.database
    index = SearchIndex(db, unused_indexer, unused_schemas, no_entry, no_source)
    (entry_id,) = store.add_many(
        [NewEntry("a", "Invoice INV-1 is paid.")], now=NOW, index_facts=False
    )
    assert index.has_pending()
    db.write(lambda: index.reindex(IndexDoc(entry_id, "Invoice INV-1 is paid.", (1, 2))))
    assert fact_keys(db, entry_id) == {1, 2}
    assert not index.has_pending()
    db.write(lambda: index.reindex(IndexDoc(entry_id, "Invoice INV-1 is paid.", (2, 3))))
    assert fact_keys(db, entry_id) == {2, 3}


def test_narrative_keys_round_trip_and_refuse_other_bytes() -> None:
    keys = {0, -(2**63), 2**63 - 1, 42}
    assert unpack_keys(pack_keys(keys)) == keys
    assert unpack_keys(pack_keys([])) == set()
    for packed in (b"12 -3", b"", b"\x01\x00", b"\x02" + bytes(8)):
        with pytest.raises(ValueError, match="packed"):
            unpack_keys(packed)
