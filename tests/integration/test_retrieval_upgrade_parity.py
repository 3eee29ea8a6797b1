"""A store from before retrieval is indexed by ``migrate``; SQLite and PostgreSQL answer alike."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.errors import MigrationRequired
from factdiff.store import MemoryStore, open_store
from factdiff.store.codec import content_hash
from factdiff.store.dialect import load_dialect
from factdiff.testing import FixedSummarizer
from tests.conftest import worked

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
ORDER = (
    "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10. "
    "The courier arrives at 14:30 with the parcel."
)
ORDER_SUMMARY = "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10."


OLD_META = json.dumps(
    {  # warm meta as stores at schema version 3 wrote it (before typed known gaps)
        "schema": {"name": "generic", "version": 1, "hash": "sha256:" + "0" * 64},
        "extractor": "rules/1",
        "summarizer": "extractive",
        "method_version": "extractive/1",
        "budget_words": 30,
        "rung": 0,
        "outcome": "clean",
        "compressed_at": "2026-03-14T00:00:00+00:00",
        "lost_important_fields": [],
        "attempt_count": 1,
        "source_content_hash": "sha256:" + "0" * 64,
        "source_facts_digest": "sha256:" + "0" * 64,
    }
)


def _insert_old_entries(path: Path) -> None:
    """A hot and a warm entry written as a store at schema version 3 holds them."""
    source = ORDER.encode()
    conn = sqlite3.connect(path)
    with conn:
        for entry_id, tier, data in (
            ("01HOT000000000000000000000", "hot", worked("source").encode()),
            ("01WARM00000000000000000000", "warm", source),
        ):
            conn.execute(
                "INSERT INTO entries (id, agent_id, tier, status, created_at, last_used_at, "
                "content_hash, size_bytes) VALUES (?, 'bot', ?, 'active', 0, 0, ?, ?)",
                (entry_id, tier, content_hash(data), len(data)),
            )
        conn.execute(
            "INSERT INTO hot_content (entry_id, content) VALUES (?, ?)",
            ("01HOT000000000000000000000", worked("source").encode()),
        )
        conn.execute(
            "INSERT INTO warm_entries VALUES (?, ?, ?, ?, 1, 0)",
            ("01WARM00000000000000000000", ORDER_SUMMARY, json.dumps({"fields": {}}), OLD_META),
        )
        conn.execute(
            "INSERT INTO cold_archive VALUES (?, 'zlib', ?, ?, ?, 0)",
            (
                "01WARM00000000000000000000",
                zlib.compress(source),
                content_hash(source),
                len(source),
            ),
        )
    conn.close()


def test_migrate_indexes_a_store_from_before_retrieval(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    current = load_dialect("sqlite")
    old = replace(current, migrations=tuple(m for m in current.migrations if m.version <= 3))
    with open_store(path, dialect=old) as store:
        assert store.schema_version() == 3
    _insert_old_entries(path)
    with pytest.raises(MigrationRequired):
        open_store(path)
    with open_store(path, check_version=False) as store:
        assert store.migrate() == len(current.migrations) - 3
    with open_store(path) as store:
        assert [h.entry_id for h in store.search("INV-9182", touch=False)] == [
            "01HOT000000000000000000000"
        ]
        (warm,) = store.search("courier parcel", touch=False)
        assert warm.entry_id == "01WARM00000000000000000000"
        assert warm.source == ORDER  # the archived source's words were indexed
        assert warm.facts is None  # its record was not a fact record: found by text only
        assert store.verify() == []
        assert store.recode_pending() == 0
    conn = sqlite3.connect(path)
    try:  # migrate re-encoded the old warm row and its zlib archive (schema version 9)
        row = conn.execute("SELECT encoding, source_codec FROM warm_entries").fetchall()
    finally:
        conn.close()
    assert row == [(1, "zstd")]


def _world(store: MemoryStore) -> dict[str, str]:
    """The same entries on any store: name -> id."""
    names = {
        "invoice": store.add(
            "bot", worked("source"), now=T0, schema="customer_service", occurred_at=T0
        ),
        "order": store.add("shop", ORDER, now=T0, last_used_at=T0),
        "train": store.add(
            "bot",
            "The train TR1234 leaves Cambridge at 10:11 on Sunday; reference 7GAWK763.",
            now=T0,
        ),
        "hotel": store.add(
            "bot", "Booked the Acorn Guest House in the north for 3 nights from Tuesday.", now=T0
        ),
        "taxi": store.add("bot", "A taxi to the Acorn Guest House, contact 07218068540.", now=T0),
    }
    settings = DemotionSettings(
        older_than=timedelta(days=14), ladder=(Rung(FixedSummarizer(ORDER_SUMMARY)),)
    )
    Demoter(settings=settings, store=store).demote_entry(
        store.get(names["order"]), T0 + timedelta(days=30)
    )
    return names


QUERIES = [
    "INV-9182",
    "$14,250",
    "March 25th, 2026",
    "what time does the courier for #W2378156 arrive?",
    "courier parcel",
    "train from cambridge on sunday",
    "guest house in the north",
    "taxi to the guest house",
    "7gawk763",
]


@pytest.mark.postgres
def test_sqlite_and_postgres_give_the_same_answers(tmp_path: Path, pg_dsn: str) -> None:
    answers = []
    for target in (str(tmp_path / "parity.db"), pg_dsn):
        with open_store(target) as store:
            names = _world(store)
            by_id = {v: k for k, v in names.items()}
            answers.append(
                [
                    [
                        (
                            by_id[h.entry_id],
                            h.tier,
                            sorted((m.kind, m.field, str(m.value), m.where) for m in h.matched),
                            [g.field for g in h.gap_hit],
                            h.source is not None,
                            int(h.score),
                        )
                        for h in store.search(query, k=3, touch=False)
                    ]
                    for query in QUERIES
                ]
            )
    sqlite_answers, postgres_answers = answers
    for query, on_sqlite, on_postgres in zip(
        QUERIES, sqlite_answers, postgres_answers, strict=True
    ):
        assert on_sqlite[0] == on_postgres[0], query  # the same first hit, matched alike
        # The same entries holding a query fact; the order of weaker, text-only hits may
        # differ (bm25 on SQLite, idf-weighted ts_rank_cd on PostgreSQL).
        assert sorted(a for a in on_sqlite if a[-1] >= 2) == sorted(
            a for a in on_postgres if a[-1] >= 2
        ), query
