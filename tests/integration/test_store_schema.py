"""Migrations: from an empty store, against the declared schema snapshot, and version checks,
per dialect (SQLite files and PostgreSQL schemas)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from factdiff.errors import MigrationRequired, StoreError
from factdiff.store import open_store
from factdiff.store.backends.sqlite import SqliteBackend, split_statements
from factdiff.store.dialect import Migration, load_dialect
from tests.integration.conftest import admin_dsn, create_schema, drop_schema


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
    with open_store(tmp_path / "migrated.db") as store:
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
    with open_store(tmp_path / "m.db") as store:
        assert isinstance(store.backend, SqliteBackend)
        conn = store.backend.conn
        assert tuple(conn.execute("PRAGMA journal_mode").fetchone()) == ("wal",)
        assert tuple(conn.execute("PRAGMA synchronous").fetchone()) == (2,)
        assert tuple(conn.execute("PRAGMA foreign_keys").fetchone()) == (1,)
        assert tuple(conn.execute("PRAGMA busy_timeout").fetchone()) == (5000,)


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with open_store(path) as store:
        assert store.migrate() == 0
    with open_store(path, create=False) as store:
        assert store.schema_version() == load_dialect("sqlite").version


def test_empty_file_is_migrated_explicitly(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(MigrationRequired, match="run `factdiff migrate`"):
        open_store(path, create=False)
    with open_store(path, create=False, check_version=False) as store:
        assert store.schema_version() == 0
        assert store.migrate() == len(load_dialect("sqlite").migrations)
    with open_store(path, create=False) as store:
        store.add("a", "x", now=_now())


def test_missing_file_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        open_store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(MigrationRequired):
        open_store(path)
    with (
        open_store(path, check_version=False) as store,
        pytest.raises(StoreError, match="not a factdiff store"),
    ):
        store.migrate()


def test_old_store_requires_migration_and_newer_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with open_store(path) as store:
        store.add("a", "kept across the migration", now=_now())
    current = load_dialect("sqlite")
    extra = Migration(
        current.version + 1, "add_note", "ALTER TABLE entries ADD COLUMN note TEXT;\n"
    )
    newer = replace(current, migrations=(*current.migrations, extra))
    v = current.version
    with pytest.raises(
        MigrationRequired, match=rf"version {v}, this factdiff needs {v + 1}: run `factdiff"
    ):
        open_store(path, dialect=newer)
    with open_store(path, dialect=newer, check_version=False) as store:
        assert store.migrate() == 1
        assert store.migrate() == 0
    with open_store(path, dialect=newer) as store:
        assert store.schema_version() == v + 1
        assert [e.content for e in store.entries()] == ["kept across the migration"]
    with pytest.raises(StoreError, match="upgrade factdiff"):
        open_store(path)


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    open_store(path).close()
    current = load_dialect("sqlite")
    broken = Migration(
        current.version + 1,
        "broken",
        "ALTER TABLE entries ADD COLUMN note TEXT;\nSELECT * FROM no_such_table;\n",
    )
    dialect = replace(current, migrations=(*current.migrations, broken))
    with open_store(path, dialect=dialect, check_version=False) as store:
        with pytest.raises(StoreError, match="no_such_table"):
            store.migrate()
        assert store.schema_version() == current.version
    conn = sqlite3.connect(path)
    columns = [row[1] for row in conn.execute("PRAGMA table_info(entries)")]
    conn.close()
    assert "note" not in columns


def _now() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)


def pg_shape(dsn: str, schema: str) -> dict[str, Any]:
    """Tables, columns, constraints, indexes, triggers, functions and views of one PostgreSQL
    schema."""
    import psycopg

    queries = {
        "columns": "SELECT table_name, column_name, ordinal_position, data_type, is_nullable, "
        "column_default, collation_name, is_identity FROM information_schema.columns "
        "WHERE table_schema = %(s)s ORDER BY 1, 3",
        "constraints": "SELECT c.conrelid::regclass::text, c.conname, "
        "pg_get_constraintdef(c.oid) FROM pg_constraint c "
        "JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = %(s)s ORDER BY 1, 2",
        "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes "
        "WHERE schemaname = %(s)s ORDER BY 1, 2",
        "triggers": "SELECT t.tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %(s)s AND NOT t.tgisinternal ORDER BY 1",
        "functions": "SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p "
        "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %(s)s ORDER BY 1",
        "views": "SELECT table_name, view_definition FROM information_schema.views "
        "WHERE table_schema = %(s)s ORDER BY 1",
    }
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path = {schema}")
        shape = {k: conn.execute(q, {"s": schema}).fetchall() for k, q in queries.items()}
    text = repr(shape).replace(schema + ".", "").replace(schema, "<schema>")
    return {"text": text, "tables": sorted({row[0] for row in shape["columns"]})}


@pytest.mark.postgres
def test_postgres_migrations_produce_the_declared_schema() -> None:
    base = admin_dsn()
    migrated_name, migrated_dsn = create_schema(base)
    declared_name, declared_dsn = create_schema(base)
    try:
        with open_store(migrated_dsn) as store:
            assert store.schema_version() == load_dialect("postgres").version
            assert store.migrate() == 0
        import psycopg

        with psycopg.connect(declared_dsn, autocommit=True) as conn:
            conn.execute(load_dialect("postgres").schema_sql.encode())
        migrated = pg_shape(base, migrated_name)
        declared = pg_shape(base, declared_name)
        assert "entries" in migrated["tables"]
        assert "events_no_update" in migrated["text"]
        assert migrated == declared
    finally:
        drop_schema(base, migrated_name)
        drop_schema(base, declared_name)


def test_dialects_share_migration_numbers() -> None:
    sqlite, postgres = load_dialect("sqlite"), load_dialect("postgres")
    assert [(m.version, m.name) for m in sqlite.migrations] == [
        (m.version, m.name) for m in postgres.migrations
    ]
    assert set(sqlite.queries) == set(postgres.queries)


@pytest.mark.postgres
def test_postgres_version_checks(pg_dsn: str) -> None:
    with open_store(pg_dsn) as store:
        store.add("a", "kept", now=_now())
    current = load_dialect("postgres")
    extra = Migration(current.version + 1, "add_note", "ALTER TABLE entries ADD COLUMN note text;")
    newer = replace(current, migrations=(*current.migrations, extra))
    with pytest.raises(MigrationRequired, match="run `factdiff migrate`"):
        open_store(pg_dsn, dialect=newer)
    with open_store(pg_dsn, dialect=newer, check_version=False) as store:
        assert store.migrate() == 1
    with pytest.raises(StoreError, match="upgrade factdiff"):
        open_store(pg_dsn)


def test_unreachable_postgres_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="cannot reach PostgreSQL"):
        open_store("postgresql://nobody:secret@127.0.0.1:1/none", connect_timeout=1)
