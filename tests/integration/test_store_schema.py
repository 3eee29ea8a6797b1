"""Migrations: from an empty file, against the declared schema snapshot, and version checks."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from factdiff.errors import MigrationRequired, StoreError
from factdiff.store import MemoryStore
from factdiff.store.dialect import Migration, load_dialect
from factdiff.store.sqlite import split_statements


def schema_shape(path: Path) -> dict[str, Any]:
    """A structural description of a database schema, independent of SQL formatting."""
    conn = sqlite3.connect(path)
    try:
        shape: dict[str, Any] = {}
        objects = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master "
            "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
        for kind, name, table, sql in objects:
            if kind == "table":
                shape[f"table {name}"] = {
                    "columns": conn.execute(f"PRAGMA table_xinfo('{name}')").fetchall(),
                    "foreign_keys": conn.execute(f"PRAGMA foreign_key_list('{name}')").fetchall(),
                    "indexes": sorted(conn.execute(f"PRAGMA index_list('{name}')").fetchall()),
                }
            else:
                text = re.sub(r"\s+", " ", sql or "").strip()
                shape[f"{kind} {name}"] = {"table": table, "sql": text}
                if kind == "index":
                    columns = conn.execute(f"PRAGMA index_xinfo('{name}')").fetchall()
                    shape[f"{kind} {name}"]["columns"] = columns
        return shape
    finally:
        conn.close()


def test_migrations_produce_the_declared_schema(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path / "migrated.db") as store:
        assert store.schema_version() == load_dialect("sqlite").version
    declared = tmp_path / "declared.db"
    conn = sqlite3.connect(declared)
    for statement in split_statements(load_dialect("sqlite").schema_sql):
        conn.execute(statement)
    conn.commit()
    conn.close()
    migrated = schema_shape(tmp_path / "migrated.db")
    assert "table entries" in migrated
    assert "trigger events_no_update" in migrated
    assert migrated == schema_shape(declared)


def test_connection_settings(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path / "m.db") as store:
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)
        assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert conn.execute("PRAGMA busy_timeout").fetchone() == (5000,)


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore.open(path) as store:
        assert store.migrate() == 0
    with MemoryStore.open(path, create=False) as store:
        assert store.schema_version() == 1


def test_empty_file_is_migrated_explicitly(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(MigrationRequired, match="run `factdiff migrate`"):
        MemoryStore.open(path, create=False)
    with MemoryStore.open(path, create=False, check_version=False) as store:
        assert store.schema_version() == 0
        assert store.migrate() == load_dialect("sqlite").version
    with MemoryStore.open(path, create=False) as store:
        store.add("a", "x", now=_now())


def test_missing_file_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        MemoryStore.open(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(MigrationRequired):
        MemoryStore.open(path)
    with (
        MemoryStore.open(path, check_version=False) as store,
        pytest.raises(StoreError, match="not a factdiff store"),
    ):
        store.migrate()


def test_old_store_requires_migration_and_newer_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore.open(path) as store:
        store.add("a", "kept across the migration", now=_now())
    current = load_dialect("sqlite")
    extra = Migration(
        current.version + 1, "add_note", "ALTER TABLE entries ADD COLUMN note TEXT;\n"
    )
    newer = replace(current, migrations=(*current.migrations, extra))
    with pytest.raises(
        MigrationRequired, match=r"version 1, this factdiff needs 2: run `factdiff migrate`"
    ):
        MemoryStore.open(path, dialect=newer)
    with MemoryStore.open(path, dialect=newer, check_version=False) as store:
        assert store.migrate() == 1
        assert store.migrate() == 0
    with MemoryStore.open(path, dialect=newer) as store:
        assert store.schema_version() == 2
        assert [e.content for e in store.entries()] == ["kept across the migration"]
    with pytest.raises(StoreError, match="upgrade factdiff"):
        MemoryStore.open(path)


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    MemoryStore.open(path).close()
    current = load_dialect("sqlite")
    broken = Migration(
        current.version + 1,
        "broken",
        "ALTER TABLE entries ADD COLUMN note TEXT;\nSELECT * FROM no_such_table;\n",
    )
    dialect = replace(current, migrations=(*current.migrations, broken))
    with MemoryStore.open(path, dialect=dialect, check_version=False) as store:
        with pytest.raises(StoreError, match="no_such_table"):
            store.migrate()
        assert store.schema_version() == current.version
    conn = sqlite3.connect(path)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(entries)")]
    conn.close()
    assert "note" not in columns


def _now() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)
