"""``CompactStorage`` on its own ``Database``: its identity cache and its rollback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from factdiff.store import open_store
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.database import Database


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with open_store(tmp_path / "m.db") as store:
        yield store.database


def stored_id(db: Database, kind: str, value: str) -> int | None:
    found = db.one("select_identity_id", kind=kind, value=value)
    return None if found is None else int(found)


def test_identities_are_registered_once(db: Database) -> None:
    compact = CompactStorage(db)
    refs = compact.identity_refs({"profile": "{}", "attempt": "x"})
    assert refs == {
        "profile": stored_id(db, "profile", "{}"),
        "attempt": stored_id(db, "attempt", "x"),
    }
    assert compact.identity_refs({"attempt": "x"}) == {"attempt": refs["attempt"]}
    assert CompactStorage(db).identity_refs({"attempt": "x"}) == {"attempt": refs["attempt"]}


def test_a_rolled_back_transaction_drops_the_identities_it_registered(db: Database) -> None:
    compact = CompactStorage(db)

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        db.write_each([lambda: compact.identity_refs({"profile": "{}"}), interrupted])
    assert stored_id(db, "profile", "{}") is None
    ref = compact.identity_refs({"profile": "{}"})["profile"]
    assert stored_id(db, "profile", "{}") == ref
