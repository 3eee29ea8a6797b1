"""A SQLite store of schema version 6 (before evolve, service, compact storage and erasure)
upgraded in one `migrate`: 0007 to 0011 apply in order, 0010's rebuilds keep 0009's packed
columns and every row, old text rows read back, and an erasure redacts them. A version 10
store's warm index rows move into its warm rows (0011)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from factdiff.store import EventType, MemoryStore, codec
from factdiff.store.dialect import load_dialect
from tests.integration.erasure_scan import find, windows

T0 = datetime(2026, 2, 1, tzinfo=UTC)
SECRET = "Brindlewick Osmunder owes invoice QX-40417 of $7,310.25, due 2026-05-02."
SUMMARY = "Brindlewick Osmunder owes an invoice."
DIFF = {
    "missing": [
        {"field": "invoice", "criticality": "critical", "value": "QX-40417", "text": "QX-40417"}
    ],
    "changed": [],
    "added": [],
}


def _store_at(path: Path, version: int) -> None:
    current = load_dialect("sqlite")
    old = replace(current, migrations=tuple(m for m in current.migrations if m.version <= version))
    with MemoryStore.open(path, dialect=old) as store:
        assert store.schema_version() == version


def _v6_store(path: Path) -> None:
    _store_at(path, 6)
    data = codec.encode_content(SECRET, max_bytes=2**20)
    at = codec.to_micros(T0, "now")
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "INSERT INTO entries (id, agent_id, created_at, last_used_at, content_hash,"
            " size_bytes, attempt_count) VALUES ('E1', 'agent-a', ?, ?, ?, ?, 1)",
            (at, at, codec.content_hash(data), len(data)),
        )
        conn.execute("INSERT INTO hot_content (entry_id, content) VALUES ('E1', ?)", (data,))
        conn.execute(
            "INSERT INTO attempts (entry_id, attempt_no, rung, summarizer, extractor,"
            " method_version, outcome, diff, summary, started_at, finished_at, duration_ms)"
            " VALUES ('E1', 1, 0, 'naive', 'rules/2', 'naive/1', 'failed', ?, ?, ?, ?, 1.5)",
            (json.dumps(DIFF), json.dumps(SUMMARY), at, at),
        )
        conn.execute(
            "INSERT INTO events (type, entry_id, agent_id, at, payload)"
            " VALUES ('compression_failure', 'E1', 'agent-a', ?, ?)",
            (at, json.dumps({"summary": SUMMARY, "diff": DIFF})),
        )
    conn.close()


def _columns(path: Path, table: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [str(c[1]) for c in conn.execute(f"PRAGMA table_info('{table}')")]
    finally:
        conn.close()


def test_a_version_6_store_upgrades_through_0007_to_0011(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    _v6_store(path)
    with MemoryStore.open(path, check_version=False) as store:
        assert store.migrate() == 5
        assert store.schema_version() == 11
    for table in ("attempts", "events"):
        assert "packed" in _columns(path, table)
    for table in ("reevaluations", "api_keys", "zstd_dictionaries", "tombstones"):
        assert _columns(path, table)

    with MemoryStore.open(path) as store:
        (attempt,) = store.attempts("E1")
        assert attempt.summary == SUMMARY
        assert attempt.diff == DIFF
        (event,) = store.events("E1")
        assert event.payload == {"summary": SUMMARY, "diff": DIFF}
        later = T0 + timedelta(days=1)
        other = store.add("agent-a", "A plain note about the lighthouse rainfall log.", now=later)

        needles = windows(SECRET) | windows(SUMMARY) | {"qx-40417", "brindlewick"}
        assert {(t, c) for t, c, _ in find(store, needles)} >= {
            ("attempts", "diff"),
            ("attempts", "summary"),
            ("events", "payload"),
            ("hot_content", "content"),
        }
        (done,) = store.forget(["E1"], now=later, reason="upgrade test")
        assert (done.redacted_attempts, done.redacted_events) == (1, 1)
        assert find(store, needles) == set()
        assert store.verify() == []
        erased = list(store.events("E1"))
        assert erased[0].payload["redacted"] is True
        assert erased[-1].type is EventType.ERASED
        assert store.get(other).content == "A plain note about the lighthouse rainfall log."


def _names(path: Path, kind: str) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))
        return {str(r[0]) for r in rows}
    finally:
        conn.close()


def test_0011_moves_warm_index_rows_into_warm_rows_and_drops_two_event_indexes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v10.db"
    _store_at(path, 10)
    assert {"events_type", "events_at"} <= _names(path, "index")
    conn = sqlite3.connect(path)
    with conn:
        for entry_id, indexed in (("W1", True), ("W2", False)):
            conn.execute(
                "INSERT INTO warm_entries (entry_id, narrative, record, meta, attempt_no,"
                " compressed_at) VALUES (?, x'6e', x'7b7d', x'7b7d', 1, 0)",
                (entry_id,),
            )
            if indexed:
                conn.execute(
                    "INSERT INTO warm_index VALUES (?, ?, ?, ?)",
                    (entry_id, b"n" * 32, b"r" * 32, b"\x01keys"),
                )
    conn.close()
    with MemoryStore.open(path, check_version=False) as store:
        assert store.migrate() == 1
    assert "warm_index" not in _names(path, "table")
    assert not {"events_type", "events_at"} & _names(path, "index")
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT entry_id, narrative_hash, record_hash, narrative_keys FROM warm_entries"
            " ORDER BY entry_id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [("W1", b"n" * 32, b"r" * 32, b"\x01keys"), ("W2", None, None, None)]
