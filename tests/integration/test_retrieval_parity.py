"""SQLite and PostgreSQL answer the same queries alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.store import MemoryStore, open_store
from factdiff.testing import FixedSummarizer
from tests.conftest import worked

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
ORDER = (
    "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10. "
    "The courier arrives at 14:30 with the parcel."
)
ORDER_SUMMARY = "Order #W2378156 for user mia_garcia_4516 was refunded $54.04 on 2026-02-10."


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
