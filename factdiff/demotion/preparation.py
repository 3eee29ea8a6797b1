"""What an attempt needs from the store, read before any model runs.

``prepare`` reads an entry's schema, its source record and the must-keep facts of its last
verified attempt, turning stored JSON into typed ``FactRecord``s and ``Fact``s (``from_json``
happens here and nowhere else in demotion). The source record comes from the search index,
which holds the rules record each hot entry got when it was added: with the rules extractor
that record is the one demotion would make (same extractor, schema hash and reference date;
the extractor is deterministic), so the source is not extracted again, and the extraction
cache, which could only hold the same record, is not read. Otherwise it comes from the
extraction cache (a retry).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from factdiff.compression.engine import AttemptJob
from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import MAX_TEXT_CHARS, RulesExtractor, infer_reference
from factdiff.retrieve.index import unpack_record
from factdiff.schema.model import FactSchema
from factdiff.store import Entry, MemoryStore
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.warm_columns import WarmTarget

if TYPE_CHECKING:
    from factdiff.demotion.settings import DemotionSettings

__all__ = ["PreparedEntry", "prepare", "reference_of"]


@dataclass(frozen=True)
class PreparedEntry:
    """An entry ready for its attempt: what the store said before any model ran."""

    entry: Entry
    text: str
    schema: FactSchema
    rung_index: int
    refusal: str | None
    cached: FactRecord | None
    """The source's record from the extraction cache, if there."""
    must_keep: tuple[Fact, ...]
    """The facts the last verified attempt lost: the next summary must keep them."""
    warm: WarmTarget | None = None
    """Where a passed summary goes (its warm body is made where it is verified)."""

    def job(self, settings: DemotionSettings) -> AttemptJob:
        """The attempt to make on this entry."""
        return AttemptJob(
            text=self.text,
            schema=self.schema,
            rung=settings.ladder[self.rung_index],
            rung_index=self.rung_index,
            reference=reference_of(self.entry, self.text),
            source_facts=self.cached,
            must_keep=self.must_keep,
            warm=self.warm,
        )


def reference_of(entry: Entry, text: str) -> date | None:
    """The entry's own local date (its occurred_at offset) resolves partial and relative dates."""
    if entry.occurred_at is not None:
        return entry.occurred_at.date()
    return infer_reference(text)


def prepare(
    store: MemoryStore,
    catalog: SchemaCatalog,
    settings: DemotionSettings,
    entry: Entry,
    now: datetime,
    encode_ahead: bool = False,
) -> PreparedEntry:
    """Everything an attempt needs from the store, read before any model runs; with
    ``encode_ahead`` (worker processes verify the summary), where a passed summary's
    warm row goes, with the agent's dictionary to encode it with."""
    text = entry.content or ""
    schema = catalog.for_entry(entry, now)
    refusal = _refusal(settings, entry, text)
    cached: FactRecord | None = None
    must_keep: tuple[Fact, ...] = ()
    if refusal is None:
        cached = _indexed_record(store, settings, entry, schema, text)
        if cached is None:
            found = store.cached_extraction(
                entry.content_hash, schema.hash, settings.extractor.identity
            )
            cached = None if found is None else FactRecord.from_json(found)
        if entry.attempt_count:
            must_keep = tuple(Fact.from_json(f) for f in store.last_must_keep(entry.id))
    rung_index = min(entry.attempt_count, len(settings.ladder) - 1)
    warm = None
    if refusal is None and encode_ahead:
        dictionary = store.latest_dictionary(entry.agent_id)
        warm = WarmTarget(entry.id, text, entry.content_hash, dictionary, entry.agent_id)
    return PreparedEntry(entry, text, schema, rung_index, refusal, cached, must_keep, warm)


def _indexed_record(
    store: MemoryStore, settings: DemotionSettings, entry: Entry, schema: FactSchema, text: str
) -> FactRecord | None:
    """The hot entry's record from the search index, when it is exactly the record this
    demotion's extractor would make of ``text`` (see the module docstring)."""
    extractor = settings.extractor
    if type(extractor) is not RulesExtractor or len(text) > MAX_TEXT_CHARS:
        return None
    packed = store.search_queries.hot_record(entry.id)
    if packed is None:
        return None
    record = unpack_record(packed)
    same = (
        record.extractor == extractor.identity
        and record.schema == schema.ref
        and record.reference == reference_of(entry, text)
    )
    return record if same else None


def _refusal(settings: DemotionSettings, entry: Entry, text: str) -> str | None:
    if not text.strip():
        return "the entry is empty or whitespace: an empty warm entry is never written"
    if entry.size_bytes > settings.max_source_bytes:
        return (
            f"the entry is {entry.size_bytes} bytes, above the compression limit of "
            f"{settings.max_source_bytes}; split it into smaller entries or raise "
            "max_source_bytes (it stays hot, intact)"
        )
    return None
