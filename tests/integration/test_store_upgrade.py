"""A SQLite store of schema version 6 (before evolve, service, compact storage and erasure)
upgraded in one `migrate`: 0007 to 0014 apply in order, 0010's rebuilds keep 0009's packed
columns and every row, old text rows read back, and an erasure redacts them. A version 10
store's warm index rows move into its warm rows (0011). A version 11 store's cold archives
move into their warm rows (0012), and an unpaired archive stops that upgrade; its outcome
index becomes the partial index of lossy attempts (0013). A version 13 store's events, one
row each, read the same after 0014, and the next ones pair up after them."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from factdiff.errors import StoreError
from factdiff.store import AttemptOutcome, EventType, MemoryStore, codec, open_store
from factdiff.store.dialect import load_dialect
from tests.integration.conftest import dialect_at, raw
from tests.integration.erasure_scan import find, windows

T0 = datetime(2026, 2, 1, tzinfo=UTC)
LATEST = load_dialect("sqlite").version
"""The schema version ``migrate`` brings a store to (both dialects number alike)."""
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
    with open_store(path, dialect=dialect_at("sqlite", version)) as store:
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


def _pending_after(store: MemoryStore, version: int) -> int:
    """How many migrations of the store's dialect come after ``version``."""
    return sum(1 for m in store.dialect.migrations if m.version > version)


def test_a_version_6_store_upgrades_through_0007_to_0015(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    _v6_store(path)
    with open_store(path, check_version=False) as store:
        assert store.migrate() == _pending_after(store, 6)
        assert store.schema_version() == store.dialect.version
    for table in ("attempts", "events"):
        assert "packed" in _columns(path, table)
    for table in ("reevaluations", "api_keys", "zstd_dictionaries", "tombstones"):
        assert _columns(path, table)

    with open_store(path) as store:
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
    # to version 11 only: these warm rows have no archive, which 0012 would refuse
    with open_store(path, check_version=False, dialect=dialect_at("sqlite", 11)) as store:
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


V11_INDEXES = (  # the indexes 0012 and 0013 replaced, and their migration rows gone (both)
    "CREATE INDEX warm_entries_dictionary ON warm_entries (dictionary_id)"
    " WHERE dictionary_id IS NOT NULL",
    "CREATE INDEX cold_archive_dictionary ON cold_archive (dictionary_id)"
    " WHERE dictionary_id IS NOT NULL",
    "DROP INDEX attempts_losses",
    "CREATE INDEX attempts_outcome ON attempts (outcome, id)",
    "DELETE FROM factdiff_migrations WHERE version >= 12",
)

V11_LAYOUT = (  # warm_entries and cold_archive as schema version 11 declared them
    """CREATE TABLE warm_v11 (
    entry_id       TEXT PRIMARY KEY REFERENCES entries (id),
    narrative      BLOB NOT NULL,
    record         BLOB NOT NULL,
    meta           BLOB NOT NULL,
    attempt_no     INTEGER NOT NULL,
    compressed_at  INTEGER NOT NULL,
    encoding       INTEGER NOT NULL DEFAULT 0,
    dictionary_id  INTEGER REFERENCES zstd_dictionaries (id),
    identity_ref   INTEGER REFERENCES store_identities (id),
    facts_digest   BLOB,
    narrative_hash BLOB,
    record_hash    BLOB,
    narrative_keys BLOB
)""",
    """CREATE TABLE cold_archive (
    entry_id      TEXT PRIMARY KEY REFERENCES entries (id),
    codec         TEXT NOT NULL CHECK (codec IN ('zlib', 'zstd')),
    data          BLOB NOT NULL,
    content_hash  BLOB NOT NULL,
    size_bytes    INTEGER NOT NULL,
    archived_at   INTEGER NOT NULL,
    dictionary_id INTEGER REFERENCES zstd_dictionaries (id)
)""",
    "INSERT INTO cold_archive SELECT w.entry_id, w.source_codec, w.source,"
    " unhex_hash(e.content_hash), e.size_bytes, w.compressed_at, w.source_dictionary_id"
    " FROM warm_entries AS w JOIN entries AS e ON e.id = w.entry_id",
    "INSERT INTO warm_v11 SELECT entry_id, narrative, record, meta, attempt_no,"
    " compressed_at, encoding, dictionary_id, identity_ref, facts_digest, narrative_hash,"
    " record_hash, narrative_keys FROM warm_entries",
    "DROP TABLE warm_entries",
    "ALTER TABLE warm_v11 RENAME TO warm_entries",
    *V11_INDEXES,
)


def _as_version_11(path: Path) -> None:
    """Rewrite a store of today's schema into the layout of version 11 (what 0012 upgrades)."""
    conn = sqlite3.connect(path)
    conn.create_function("unhex_hash", 1, lambda text: bytes.fromhex(text.split(":", 1)[1]))
    with conn:
        for statement in V11_LAYOUT:
            conn.execute(statement)
    conn.close()


PG_V11_LAYOUT = (  # the same on PostgreSQL
    """CREATE TABLE cold_archive (
    entry_id      text COLLATE "C" PRIMARY KEY REFERENCES entries (id),
    codec         text NOT NULL CHECK (codec IN ('zlib', 'zstd')),
    data          bytea NOT NULL,
    content_hash  bytea NOT NULL,
    size_bytes    bigint NOT NULL,
    archived_at   bigint NOT NULL,
    dictionary_id bigint REFERENCES zstd_dictionaries (id)
)""",
    "INSERT INTO cold_archive SELECT w.entry_id, w.source_codec, w.source,"
    " decode(substr(e.content_hash, 8), 'hex'), e.size_bytes, w.compressed_at,"
    " w.source_dictionary_id FROM warm_entries AS w JOIN entries AS e ON e.id = w.entry_id",
    "ALTER TABLE warm_entries DROP COLUMN source_codec, DROP COLUMN source_dictionary_id,"
    " DROP COLUMN source",
    *V11_INDEXES,
)


def _kind(target: str) -> str:
    return "postgres" if target.startswith("postgresql") else "sqlite"


def _demoted_store(target: str, version: int | None = None) -> dict[str, str]:
    """A store of one agent with a trained dictionary, most entries warm: id -> source
    (written by the factdiff of schema ``version``, today's by default)."""
    from factdiff.store.dictionaries import MIN_SAMPLES
    from tests.integration.test_store_compact import demote_all, load, sources

    options: dict[str, Any] = {}
    if version is not None:
        options["dialect"] = dialect_at(_kind(target), version)
    with open_store(target, **options) as store:
        ids = load(store, MIN_SAMPLES + 6)
        before = sources(store, ids)
        demote_all(store)
    return before


def test_0012_moves_cold_archives_into_warm_rows(target: str) -> None:
    before = _demoted_store(target, 13)
    with open_store(target, dialect=dialect_at(_kind(target), 13)) as store:
        views = {i: store.get(i) for i in before}
        if store.dialect.name == "postgres":
            for statement in PG_V11_LAYOUT:
                raw(store, statement)
    warm = [i for i, entry in views.items() if entry.tier.value == "warm"]
    assert len(warm) > len(before) // 2
    if not target.startswith("postgresql"):
        path = Path(target)
        _as_version_11(path)
        assert {"cold_archive", "warm_entries"} <= _names(path, "table")
        assert "source" not in _columns(path, "warm_entries")

    with open_store(target, check_version=False) as store:
        assert store.schema_version() == 11
        assert raw(store, "SELECT count(*) FROM cold_archive") == [(len(warm),)]
        assert store.migrate() == _pending_after(store, 11)
        assert store.schema_version() == store.dialect.version
    if not target.startswith("postgresql"):
        assert "cold_archive" not in _names(Path(target), "table")
        indexes = _names(Path(target), "index")
        assert not {"warm_entries_dictionary", "cold_archive_dictionary"} & indexes
        assert "attempts_losses" in indexes
        assert "attempts_outcome" not in indexes
    with open_store(target) as store:
        assert {i: store.get(i) for i in before} == views
        assert store.verify() == []
        for entry_id in warm:
            assert store.read_cold(entry_id) == before[entry_id]
        store.restore(warm[0], T0 + timedelta(days=400))
        assert store.get(warm[0]).content == before[warm[0]]
        assert store.verify() == []


def test_0012_refuses_an_unpaired_archive_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "v11.db"
    before = _demoted_store(str(path), 13)
    _as_version_11(path)
    assert _warm_ids(path) <= set(before)
    conn = sqlite3.connect(path)
    with conn:  # a damaged store: an archive without a warm row
        conn.execute(
            "INSERT INTO cold_archive VALUES ('01ORPHAN', 'zstd', x'00', x'00', 1, 0, NULL)"
        )
    conn.close()
    with open_store(path, check_version=False) as store:
        with pytest.raises(StoreError, match="unpaired; run factdiff verify"):
            store.migrate()
        assert store.schema_version() == 11
    assert "cold_archive" in _names(path, "table")
    assert "source" not in _columns(path, "warm_entries")


def _warm_ids(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {str(r[0]) for r in conn.execute("SELECT entry_id FROM warm_entries")}
    finally:
        conn.close()


def test_0014_keeps_earlier_events_and_pairs_the_next_ones(target: str) -> None:
    from factdiff.store.rows import event_payload
    from tests.integration.test_store import LATER, NOW, compress

    with open_store(target, dialect=dialect_at(_kind(target), 13)) as store:
        first = store.add("agent-1", "Refund of $14,250 approved.", now=NOW)
        assert compress(store, first)  # two rows, as version 13 wrote them
        rows = raw(store, "SELECT id, type, entry_id, agent_id, at, payload, packed FROM events")
    assert [r[1] for r in rows] == ["compression_clean", "demoted"]
    with open_store(target, check_version=False) as store:
        assert store.migrate() == _pending_after(store, 13)  # 0014, 0015 and later
        listed = list(store.events(first))
        assert [(e.id, e.type.value) for e in listed] == [(r[0], r[1]) for r in rows]
        assert [e.payload for e in listed] == [event_payload(r[5], r[6]) for r in rows]
        second = store.add("agent-1", "Refund of $9,100 approved.", now=NOW)
        assert compress(store, second)
        ((row_id, then_type),) = raw(
            store, "SELECT id, then_type FROM events WHERE entry_id = ?", second
        )
        assert then_type == "demoted"
        assert row_id - 1 > rows[-1][0]  # the pair's first id was never given before
        ids = [e.id for e in store.events()]
        assert ids == sorted(set(ids))
        store.forget([first, second], now=LATER + timedelta(days=1))
        for entry_id in (first, second):
            *redacted, erased = store.events(entry_id)
            assert [e.payload["redacted"] for e in redacted] == [True, True]
            assert erased.type is EventType.ERASED
        assert store.verify() == []


def test_0015_reads_earlier_attempts_and_cuts_index_hashes_to_fingerprints(target: str) -> None:
    from factdiff.retrieve.index import text_digest
    from factdiff.store.warm_columns import record_digest
    from tests.integration.test_store import NOW, attempt, compress, fail

    schema: dict[str, Any] = {"schema_name": "generic", "schema_version": 1}
    with open_store(target, dialect=dialect_at(_kind(target), 14)) as store:
        old = store.add("agent-1", "Refund of $14,250 approved.", now=NOW)
        assert fail(store, old, 0, attempt=attempt(AttemptOutcome.FAILED, rung=0, **schema))
        assert compress(store, old, 1, attempt=attempt(rung=1, summarizer="llm:a", **schema))
        warm = store.get(old).warm
        assert warm is not None
        full = (  # the 32-byte hashes version 14 wrote
            codec.digest_bytes(text_digest(warm.narrative)),
            codec.digest_bytes(record_digest(warm.record)),
        )
        raw(store, "UPDATE warm_entries SET narrative_hash = ?, record_hash = ?", *full)
        columns = "summarizer, extractor, method_version, schema_name, schema_version"
        rows = raw(store, f"SELECT {columns}, attempt_no FROM attempts ORDER BY attempt_no")
    assert rows == [
        ("extractive", "rules", "1", "generic", 1, 1),
        ("llm:a", "rules", "1", "generic", 1, 2),
    ]

    with open_store(target, check_version=False) as store:
        assert store.migrate() == _pending_after(store, 14)
        assert raw(store, f"SELECT {columns}, attempt_no FROM attempts ORDER BY 6") == rows
        hashes = raw(store, "SELECT narrative_hash, record_hash FROM warm_entries")
        assert [tuple(bytes(h) for h in row) for row in hashes] == [(full[0][:8], full[1][:8])]
        assert store.verify() == []
        new = store.add("agent-1", "Refund of $9,100 approved.", now=NOW)
        assert fail(store, new, 0, attempt=attempt(AttemptOutcome.FAILED, rung=0, **schema))
        assert compress(store, new, 1, attempt=attempt(rung=1, summarizer="llm:a", **schema))
        assert raw(store, f"SELECT {columns} FROM attempts WHERE entry_id = ?", new) == [
            ("", "", "", None, None),
            ("", "", "", None, None),
        ]
        for entry_id in (old, new):
            read = [
                (a.summarizer, a.extractor, a.method_version, a.schema_name, a.schema_version)
                for a in store.attempts(entry_id)
            ]
            assert [(*r, i + 1) for i, r in enumerate(read)] == rows
        stats = store.stats()
        assert {(u["summarizer"], u["attempts"]) for u in stats["usage"]} == {
            ("extractive", 2),
            ("llm:a", 2),
        }
        assert [(r["schema"], r["version"], r["attempts"]) for r in stats["failure_rate"]] == [
            ("generic", 1, 4)
        ]
        assert store.verify() == []
        raw(store, "UPDATE warm_entries SET narrative = ? WHERE entry_id = ?", b"x", old)
        assert any("warm narrative" in p for p in store.verify())
