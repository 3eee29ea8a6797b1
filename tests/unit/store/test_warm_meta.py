"""Warm meta is typed from the attempt engine to the store and back; old rows still load."""

from __future__ import annotations

from datetime import UTC, datetime

from factdiff.schema.model import Criticality, SchemaRef
from factdiff.store import AttemptOutcome, KnownGap, WarmMeta
from factdiff.values.base import FactType

OLD_ROW = {
    "schema": {"name": "customer_service", "version": 1, "hash": "sha256:ab"},
    "extractor": "rules/1",
    "summarizer": "extractive",
    "method_version": "extractive/1",
    "budget_words": 42,
    "rung": 1,
    "outcome": "acceptable_with_notes",
    "compressed_at": "2026-04-13T19:32:00+00:00",
    "lost_important_fields": ["call_time"],
    "attempt_count": 2,
    "source_content_hash": "sha256:cd",
    "source_facts_digest": "sha256:ef",
}


def test_a_row_written_before_gaps_were_typed_loads() -> None:
    meta = WarmMeta.from_json(OLD_ROW)
    assert meta.schema == SchemaRef("customer_service", 1, "sha256:ab")
    assert meta.outcome is AttemptOutcome.ACCEPTABLE_WITH_NOTES
    assert meta.compressed_at == datetime(2026, 4, 13, 19, 32, tzinfo=UTC)
    assert meta.known_gaps == (KnownGap("call_time", Criticality.IMPORTANT, None),)
    assert meta.lost_important_fields == ("call_time",)
    assert meta.extra == {}


def test_typed_gaps_round_trip_and_keep_the_old_key() -> None:
    gap = KnownGap("call_time", Criticality.IMPORTANT, FactType.DATETIME)
    meta = WarmMeta.from_json({**OLD_ROW, "known_gaps": [gap.to_json()], "future_key": [1]})
    assert meta.known_gaps == (gap,)
    data = meta.to_json()
    assert data["lost_important_fields"] == ["call_time"]
    assert data["known_gaps"] == [
        {"field": "call_time", "criticality": "important", "type": "datetime"}
    ]
    assert data["future_key"] == [1]
    assert WarmMeta.from_json(data) == meta
    assert {k: data[k] for k in OLD_ROW} == {**OLD_ROW}
