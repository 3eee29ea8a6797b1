"""PostgreSQL's rows are read by column name, as ``sqlite3.Row`` is on SQLite."""

from __future__ import annotations

import sqlite3

import pytest

from factdiff.store.backends.named_rows import NamedRow, row_class


def test_a_named_row_reads_by_name_and_stays_a_tuple() -> None:
    cls = row_class(("id", "tier", "id"))
    row: NamedRow = cls(("e1", "hot", "other"))
    assert (row["id"], row["tier"]) == ("e1", "hot")  # the first of two "id" columns wins
    assert row[1] == "hot"
    first, *_ = row
    assert first == "e1"
    assert row.keys() == ["id", "tier"]
    with pytest.raises(IndexError, match="no column named 'missing'"):
        row["missing"]
    assert row_class(("id", "tier", "id")) is cls  # one class per column list
    assert row == ("e1", "hot", "other")  # a tuple still


def test_sqlite_rows_answer_the_same_reads() -> None:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    sqlite_row = conn.execute("SELECT 'e1' AS id, 'hot' AS tier, 'other' AS id").fetchone()
    named: NamedRow = row_class(("id", "tier", "id"))(("e1", "hot", "other"))
    for key in ("id", "tier", 0, 2):
        assert sqlite_row[key] == named[key]
    assert tuple(sqlite_row) == tuple(named)
    conn.close()
