"""Dialect files: statements from several files, migrations numbered with gaps."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from factdiff.errors import StoreError
from factdiff.store.dialect import load_dialect, load_migrations, load_queries, resolve_queries


def test_migrations_may_leave_gaps_but_never_repeat(tmp_path: Path) -> None:
    for name in ("0001_init.sql", "0002_more.sql", "0006_later.sql", "notes.txt"):
        (tmp_path / name).write_text("-- x\n")
    assert [m.version for m in load_migrations(tmp_path)] == [1, 2, 6]
    (tmp_path / "0006_again.sql").write_text("-- y\n")
    with pytest.raises(StoreError, match="two migrations are numbered 0006"):
        load_migrations(tmp_path)


def test_the_first_migration_is_0001(tmp_path: Path) -> None:
    (tmp_path / "0002_more.sql").write_text("-- x\n")
    with pytest.raises(StoreError, match="none is 0001"):
        load_migrations(tmp_path)


def test_queries_come_from_every_file(tmp_path: Path) -> None:
    (tmp_path / "queries.sql").write_text("-- name: a\nSELECT 1\n")
    (tmp_path / "retrieval.sql").write_text("-- name: b\nSELECT 2\n-- name: c\n-- none\n")
    (tmp_path / "notes.txt").write_text("-- name: d\nSELECT 4\n")
    assert load_queries(tmp_path) == {"a": "SELECT 1", "b": "SELECT 2", "c": ""}
    (tmp_path / "more.sql").write_text("-- name: a\nSELECT 3\n")
    with pytest.raises(StoreError, match=r"query a is defined in queries\.sql and more\.sql"):
        load_queries(tmp_path)


def test_packaged_dialects_define_retrieval_in_both() -> None:
    sqlite, postgres = load_dialect("sqlite"), load_dialect("postgres")
    assert sqlite.version == postgres.version == 1
    assert sqlite.baseline == postgres.baseline == "baseline"
    for key in (
        "search_text",
        "search_hit_rows",
        "insert_attestation",
        "insert_hot_record",
        "insert_api_key",
        "filter_entries_tag",
    ):
        assert sqlite.sql(key)
        assert postgres.sql(key)
    assert postgres.sql("insert_search_text") == ""  # the tsvector is written with its doc


def test_packaged_dialects_define_compact_storage_in_both() -> None:
    sqlite, postgres = load_dialect("sqlite"), load_dialect("postgres")
    for key in ("insert_dictionary", "dictionary_samples", "update_warm_encoding", "storage_bytes"):
        assert sqlite.sql(key)
        assert postgres.sql(key)


def test_a_dialect_statement_wins_over_the_common_one(tmp_path: Path) -> None:
    own, common = tmp_path / "sqlite", tmp_path / "common"
    own.mkdir()
    common.mkdir()
    (own / "queries.sql").write_text("-- name: a\nSELECT 'own'\n")
    (common / "queries.sql").write_text("-- name: a\nSELECT 'common'\n-- name: b\nSELECT 2\n")
    assert resolve_queries(own, common) == {"a": "SELECT 'own'", "b": "SELECT 2"}
    assert resolve_queries(own, tmp_path / "none") == {"a": "SELECT 'own'"}


def test_packaged_dialects_keep_shared_statements_once() -> None:
    root = resources.files("factdiff.store") / "sql"
    common = load_queries(root / "common")
    assert len(common) > 100
    for name in ("sqlite", "postgres"):
        own = load_queries(root / name)
        assert sorted(k for k in own if k in common and own[k] == common[k]) == []
    sqlite, postgres = load_dialect("sqlite"), load_dialect("postgres")
    assert set(sqlite.queries) == set(postgres.queries)


def test_both_dialects_read_the_clock_through_one_function() -> None:
    for name in ("sqlite", "postgres"):
        dialect = load_dialect(name)
        assert dialect.sql("db_now") == "SELECT factdiff_now_us()"
        assert "factdiff_now_us()" in dialect.sql("claim")
        assert not any("julianday" in sql for sql in dialect.queries.values())
