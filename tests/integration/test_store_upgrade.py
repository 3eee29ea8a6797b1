"""A SQLite store of schema version 6 (before evolve, service, compact storage and erasure)
upgraded in one `migrate`: 0007, 0008, 0009 and 0010 apply in order, 0010's rebuilds keep
0009's packed columns and every row, old text rows read back, and an erasure redacts them."""

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


def _v6_store(path: Path) -> None:
    current = load_dialect("sqlite")
    v6 = replace(current, migrations=tuple(m for m in current.migrations if m.version <= 6))
    with MemoryStore.open(path, dialect=v6) as store:
        assert store.schema_version() == 6
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


def test_a_version_6_store_upgrades_through_0007_to_0010(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    _v6_store(path)
    with MemoryStore.open(path, check_version=False) as store:
        assert store.migrate() == 4
        assert store.schema_version() == 10
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
