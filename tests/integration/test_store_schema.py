"""Migrations: the baseline from an empty store, the version checks, a migration after the
baseline, and the refusal of a store made before it, per dialect (SQLite files and PostgreSQL
schemas)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from factdiff.cli.main import main as cli
from factdiff.errors import MigrationRequired, StoreError, StoreFormatRetired
from factdiff.store import MemoryStore, open_store
from factdiff.store.backends.sqlite import SqliteBackend
from factdiff.store.dialect import Migration, load_dialect
from tests.integration.conftest import raw


def test_a_new_store_gets_the_baseline(tmp_path: Path) -> None:
    with open_store(tmp_path / "new.db") as store:
        assert store.schema_version() == load_dialect("sqlite").version
        assert raw(store, "SELECT version, name FROM factdiff_migrations") == [(1, "baseline")]
        tables = {r[0] for r in raw(store, "SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"entries", "warm_entries", "events", "zstd_dictionaries"} <= tables


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


@pytest.mark.postgres
def test_both_baselines_make_the_same_tables_and_columns(tmp_path: Path, pg_dsn: str) -> None:
    with open_store(tmp_path / "s.db") as store:
        tables = [r[0] for r in raw(store, "SELECT name FROM sqlite_master WHERE type='table'")]
        on_sqlite = {
            (table, str(column[1]))
            for table in tables
            if not table.startswith(("sqlite_", "search_text"))
            for column in raw(store, f"PRAGMA table_info('{table}')")
        }
    with open_store(pg_dsn) as store:
        on_postgres = {
            (str(table), str(column))
            for table, column in raw(
                store,
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema()"
                " AND table_name IN (SELECT tablename FROM pg_tables"
                " WHERE schemaname = current_schema())",
            )
        }
    on_postgres.discard(("search_docs", "body"))  # SQLite's text index is the FTS5 table
    assert on_sqlite == on_postgres


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


def _pre_baseline(store: MemoryStore) -> None:
    """Turn ``store`` into one made by an earlier factdiff 0.1 format: its migrations table
    as those versions left it (``0001_init`` to ``0017_ui_sessions``)."""
    raw(store, "DELETE FROM factdiff_migrations")
    for version, name in OLD_MIGRATIONS.items():
        raw(store, "INSERT INTO factdiff_migrations (version, name) VALUES (?, ?)", version, name)


OLD_MIGRATIONS = {
    1: "init", 2: "leases", 3: "occurred_offset", 4: "call_accounting", 6: "retrieval",
    7: "reevaluation", 8: "api_keys", 9: "compact_storage", 10: "erasure", 11: "compact_rows",
    12: "one_warm_row", 13: "loss_index", 14: "event_pairs", 15: "smaller_rows",
    16: "attestation_agents", 17: "ui_sessions",
}  # fmt: skip


@pytest.mark.parametrize("target", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_store_made_before_the_baseline_is_refused_in_one_line(
    target: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    location = str(tmp_path / "old.db") if target == "sqlite" else request.getfixturevalue("pg_dsn")
    with open_store(location) as store:
        store.add("a", "Invoice INV-1 for $5.", now=_now())
        _pre_baseline(store)
    message = "made by an earlier factdiff 0.1 format, which this factdiff does not read"
    with pytest.raises(StoreFormatRetired, match=message) as raised:
        open_store(location)
    assert "\n" not in str(raised.value)
    assert "re-create it" in str(raised.value)
    with open_store(location, check_version=False) as store, pytest.raises(StoreFormatRetired):
        store.migrate()
    for command in (["list"], ["migrate"]):
        result = CliRunner().invoke(cli, [*command, "--db", location])
        assert result.exit_code == 2, result.output
        (line,) = result.output.splitlines()
        assert line.startswith("error: store ")
        assert "earlier factdiff 0.1 format" in line
    with open_store(location, check_version=False) as store:  # nothing was changed
        assert store.schema_version() == 17
