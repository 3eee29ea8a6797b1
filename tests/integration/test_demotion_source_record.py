"""Demotion takes the source record the search index made at ``add`` when it is exactly the
record the demotion's extractor would make, and extracts the source again otherwise."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from factdiff.compression import gc_tuning
from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.model import FactSchema
from factdiff.store import MemoryStore, Tier, open_store
from factdiff.summarize import ExtractiveSummarizer, Summary, SummaryRequest
from tests.integration.evolution_helpers import (
    AGENT,
    LATER,
    NAME,
    T0,
    V1,
    V2,
    call_text,
    register,
    schema,
)

PASSED = "clean"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    opened = open_store(tmp_path / "memory.db")
    register(opened, schema(1, tmp_path), V1)
    opened.set_agent_schema(AGENT, NAME)
    yield opened
    opened.close()


class Counting(RulesExtractor):
    """The rules extractor, counting the texts it extracts (a subclass: never trusted to be
    the extractor the index used)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        self.texts.append(text)
        return super().extract(text, schema, reference)


def demote(store: MemoryStore, extractor: RulesExtractor | None = None) -> dict[str, int]:
    ladder = (Rung(ExtractiveSummarizer(), budget_ratio=1.0),)
    settings = DemotionSettings(ladder=ladder, retry=RetryPolicy(1))
    if extractor is not None:
        settings = DemotionSettings(ladder=ladder, retry=RetryPolicy(1), extractor=extractor)
    return dict(Demoter(store, settings).run(LATER).counts)


def extracted_sources(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the rules extractor reads from now on."""
    seen: list[str] = []
    original = RulesExtractor.extract

    def extract(
        self: RulesExtractor, text: str, schema: FactSchema, reference: date | None = None
    ) -> FactRecord:
        seen.append(text)
        return original(self, text, schema, reference)

    monkeypatch.setattr(RulesExtractor, "extract", extract)
    return seen


def test_the_indexed_record_is_the_source_record(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = store.add(AGENT, call_text(1), now=T0, occurred_at=T0, last_used_at=T0)
    seen = extracted_sources(monkeypatch)
    assert demote(store) == {PASSED: 1}
    entry = store.get(entry_id)
    assert entry.tier is Tier.WARM
    assert entry.warm is not None
    assert call_text(1) not in seen  # only the narrative was extracted
    assert seen == [entry.warm.narrative]
    fresh = RulesExtractor().extract(call_text(1), schema(1, tmp_path), T0.date())
    assert entry.warm.record == fresh.to_json()


def test_a_record_older_rules_indexed_is_extracted_again(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry added before an upgrade keeps the record the older rules made of it: demotion
    does not take it for the current rules' record (their identities differ)."""
    monkeypatch.setattr(RulesExtractor, "identity", "rules/older")
    entry_id = store.add(AGENT, call_text(6), now=T0, occurred_at=T0, last_used_at=T0)
    monkeypatch.undo()
    seen = extracted_sources(monkeypatch)
    assert demote(store) == {PASSED: 1}
    entry = store.get(entry_id)
    assert entry.warm is not None
    assert call_text(6) in seen
    assert entry.warm.record["extractor"] == RulesExtractor.identity


def cache_reads(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The content hashes the extraction cache is asked for from now on."""
    asked: list[str] = []
    original = store.cached_extraction

    def cached_extraction(content_hash: str, schema_hash: str, extractor_id: str) -> object:
        asked.append(content_hash)
        return original(content_hash, schema_hash, extractor_id)

    monkeypatch.setattr(store, "cached_extraction", cached_extraction)
    return asked


def test_the_extraction_cache_is_read_only_without_the_indexed_record(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's record is the rules record, so a cached one could only be the same: it is
    not read. Another extractor's source record comes from the cache on a retry."""
    first = store.add(AGENT, call_text(4), now=T0, occurred_at=T0, last_used_at=T0)
    asked = cache_reads(store, monkeypatch)
    assert demote(store) == {PASSED: 1}
    assert asked == []
    second = store.add(AGENT, call_text(5), now=T0, occurred_at=T0, last_used_at=T0)
    assert demote(store, Counting()) == {PASSED: 1}
    assert asked == [store.get(second).content_hash]
    assert store.get(first).tier is Tier.WARM


def test_a_newer_schema_extracts_the_source_again(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = store.add(AGENT, call_text(2), now=T0, occurred_at=T0, last_used_at=T0)
    register(store, schema(2, tmp_path), V2)
    seen = extracted_sources(monkeypatch)
    assert demote(store) == {PASSED: 1}
    entry = store.get(entry_id)
    assert entry.warm is not None
    assert call_text(2) in seen
    assert entry.warm.record["schema"]["version"] == 2


def test_another_extractor_extracts_the_source_itself(store: MemoryStore) -> None:
    store.add(AGENT, call_text(3), now=T0, occurred_at=T0, last_used_at=T0)
    counting = Counting()
    assert demote(store, counting) == {PASSED: 1}
    assert counting.texts[0] == call_text(3)
    assert len(counting.texts) == 2


class Watching(ExtractiveSummarizer):
    """The extractive summarizer, noting the collector's thresholds while it runs."""

    def __init__(self) -> None:
        self.thresholds: set[tuple[int, int, int]] = set()

    def summarize(self, request: SummaryRequest) -> Summary:
        self.thresholds.add(gc.get_threshold())
        return super().summarize(request)


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_concurrent_pass_runs_with_the_collector_tuned(
    store: MemoryStore, concurrency: int
) -> None:
    for index in range(6):
        store.add(AGENT, call_text(index), now=T0)
    before = gc.get_threshold()
    summarizer = Watching()
    settings = DemotionSettings(
        ladder=(Rung(summarizer, budget_ratio=1.0),), retry=RetryPolicy(1), extract_workers=0
    )
    report = Demoter(store, settings).run(LATER, concurrency=concurrency)
    assert report.counts[PASSED] == 6
    assert summarizer.thresholds == ({before} if concurrency == 1 else {gc_tuning.THRESHOLDS})
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
