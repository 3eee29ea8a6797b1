"""A passed summary's warm body made where it was verified (a worker process): the warm
rows and index rows it leaves are the ones the store's thread makes, and a body that no
longer fits the entry is made again, never written."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import zstandard

from factdiff.compression.executor import Work
from factdiff.compression.process_pool import shutdown_pools
from factdiff.compression.verification import Verification
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.retrieve.index import extract_source, reference_date
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.schema.model import FactSchema
from factdiff.store import MemoryStore, Tier, codec, open_store, warm_columns
from factdiff.store.dictionaries import MIN_SAMPLES
from factdiff.store.warm_columns import WarmBody, WarmTarget, encode_body
from factdiff.verify.policy import Policy
from tests.integration.conftest import raw
from tests.integration.test_dictionary_priming import two_copies
from tests.integration.test_store_compact import LATER, load

WARM_ROWS = """
SELECT w.entry_id, w.narrative, w.record, w.meta, w.attempt_no, w.compressed_at, w.encoding,
       w.dictionary_id, i.value, w.facts_digest, w.narrative_hash, w.record_hash,
       w.narrative_keys, w.source_codec, w.source_dictionary_id, w.source
FROM warm_entries AS w JOIN store_identities AS i ON i.id = w.identity_ref
ORDER BY w.entry_id
"""
FACT_KEYS = """
SELECT d.entry_id, f.key_hash FROM fact_index AS f JOIN search_docs AS d ON d.doc = f.doc
ORDER BY d.entry_id, f.key_hash
"""


@pytest.fixture(autouse=True)
def _pools() -> object:
    yield None
    shutdown_pools()


def demote(path: Path, concurrency: int) -> list[Any]:
    """Demote every entry (four passes, so that failed rungs are retried); the warm rows and
    fact keys left, after checking the store."""
    settings = DemotionSettings(older_than=timedelta(days=14), extract_workers=1)
    with open_store(path) as store:
        demoter = Demoter(store, settings)
        for step in range(4):
            demoter.run(LATER + timedelta(days=step), keep_results=False, concurrency=concurrency)
        assert store.verify() == []
        return [raw(store, WARM_ROWS), raw(store, FACT_KEYS)]


def count_bodies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The entries whose body the store's thread made (not a worker process)."""
    made: list[str] = []

    def counted(entry_id: str, *args: Any) -> WarmBody:
        made.append(entry_id)
        return encode_body(entry_id, *args)

    monkeypatch.setattr(warm_columns, "encode_body", counted)
    return made


def test_bodies_made_in_worker_processes_write_what_the_store_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    concurrent_path, sequential_path = two_copies(tmp_path, MIN_SAMPLES + 6)
    made_here = count_bodies(monkeypatch)
    concurrent = demote(concurrent_path, concurrency=8)
    warm_count = len(concurrent[0])
    assert warm_count > MIN_SAMPLES // 2
    # the agent's first bodies were made before its dictionary existed: those are made
    # again here; every later one came from the worker process
    assert len(made_here) < warm_count // 2
    made_here.clear()
    assert demote(sequential_path, concurrency=1) == concurrent
    assert len(made_here) == warm_count  # no worker process: every body is made here


def test_bodies_from_worker_processes_restore_and_rederive_on_both_backends(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    sources = {i: store.get(i).content for i in ids}
    made_here = count_bodies(monkeypatch)
    settings = DemotionSettings(older_than=timedelta(days=14), extract_workers=1)
    demoter = Demoter(store, settings)
    for step in range(4):
        demoter.run(LATER + timedelta(days=step), keep_results=False, concurrency=8)
    warm = [i for i in ids if store.get(i).tier is Tier.WARM]
    assert len(warm) > MIN_SAMPLES // 2
    assert len(made_here) < len(warm) // 2  # most bodies came from the worker process
    assert store.verify() == []
    schemas = SchemaResolver(store)
    for entry_id in warm:
        entry = store.get(entry_id)
        assert entry.warm is not None
        source = store.read_cold(entry_id)
        assert source == sources[entry_id]
        schema = schemas.get(entry.warm.meta.schema.name, entry.warm.meta.schema.version)
        assert schema is not None
        rederived = extract_source(source, schema, reference_date(entry.occurred_at, source))
        assert rederived.to_json() == entry.warm.record


def test_a_body_that_no_longer_fits_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body made with another dictionary under the same id (a deleted dictionary's id
    taken by a new one), without the agent's dictionary, of another narrative or of
    another source is not written: the store's thread makes the body again."""
    path, _ = two_copies(tmp_path, MIN_SAMPLES + 6)
    other = zstandard.ZstdCompressionDict(b"an unrelated dictionary of other words " * 64)
    offered: list[str] = []
    verify = Work.verify_summary

    def misfit(
        warm: WarmTarget, narrative: str, record: dict[str, Any], schema: FactSchema
    ) -> WarmBody:
        assert warm.dictionary is not None
        dictionary_id, data = warm.dictionary
        own = (dictionary_id, zstandard.ZstdCompressionDict(data))
        edited_source = warm.source + " (edited)"
        edited_hash = codec.content_hash(edited_source.encode())
        source, content_hash, said, dictionary = [
            (warm.source, warm.content_hash, narrative, (dictionary_id, other)),  # same id
            (warm.source, warm.content_hash, narrative, (None, None)),  # no dictionary
            (warm.source, warm.content_hash, narrative + " (edited)", own),  # other narrative
            (edited_source, edited_hash, narrative, own),  # other source
        ][len(offered) % 4]
        return encode_body(
            warm.entry_id, source, content_hash, said, record, dictionary, _Only(schema)
        )

    async def misfitting(
        self: Work,
        extractor: Extractor,
        narrative: str,
        source_facts: FactRecord,
        schema: FactSchema,
        policy: Policy,
        warm: WarmTarget | None = None,
        source_text: str | None = None,
    ) -> Verification:
        checked = await verify(
            self, extractor, narrative, source_facts, schema, policy, warm, source_text
        )
        if warm is None or warm.dictionary is None or not checked.outcome.passed:
            return checked
        body = misfit(warm, narrative, source_facts.to_json(), schema)
        offered.append(warm.entry_id)
        return replace(checked, body=body)

    monkeypatch.setattr(Work, "verify_summary", misfitting)
    made_here = count_bodies(monkeypatch)
    with open_store(path) as store:
        ids = [str(r[0]) for r in raw(store, "SELECT entry_id FROM hot_content")]
        sources = {i: store.get(i).content for i in ids}
        settings = DemotionSettings(older_than=timedelta(days=14), extract_workers=1)
        demoter = Demoter(store, settings)
        for step in range(4):
            demoter.run(LATER + timedelta(days=step), keep_results=False, concurrency=8)
        assert len(offered) >= 8
        assert set(offered) <= set(made_here)  # every misfit was made again
        assert store.verify() == []
        for entry_id in offered:
            entry = store.get(entry_id)
            assert entry.tier is Tier.WARM
            assert entry.warm is not None
            assert store.read_cold(entry_id) == sources[entry_id]
            assert entry.warm.narrative == store.attempts(entry_id)[-1].summary


class _Only:
    """The one schema a body is made with (as a worker process has it)."""

    def __init__(self, schema: FactSchema) -> None:
        self.schema = schema

    def get(self, name: str, version: int | None = None) -> FactSchema | None:
        return self.schema
