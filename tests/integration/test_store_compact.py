"""Compact warm and cold tiers on both stores: zstd archives with per-agent dictionaries,
compact records and meta, stats' storage, re-encoding of older rows, dictionary retirement."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from factdiff.demo.corpus import AGENTS, generate_corpus
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.retrieve.index import extract_source, reference_date
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import IntegrityError, MemoryStore, Tier, frames, open_store
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.dictionaries import MIN_SAMPLES, unpack_ids
from tests.integration.conftest import raw

AGENT = "support-bot"
LATER = datetime(2026, 6, 1, tzinfo=UTC)


def load(store: MemoryStore, count: int) -> list[str]:
    """``count`` demo entries of one agent (its schema registered), hot."""
    entries = [e for e in generate_corpus(count * len(AGENTS)) if e.agent_id == AGENT]
    catalog = SchemaCatalog(store)
    catalog.get("customer_service", entries[0].occurred_at)
    store.set_agent_schema(AGENT, "customer_service")
    return [
        store.add(
            e.agent_id,
            e.content,
            now=e.occurred_at,
            occurred_at=e.occurred_at,
            schema=e.schema,
            tags=e.tags,
            last_used_at=e.occurred_at,
        )
        for e in entries
    ]


def demote_all(store: MemoryStore) -> None:
    demoter = Demoter(store, DemotionSettings(older_than=timedelta(days=14)))
    for step in range(4):
        demoter.run(LATER + timedelta(days=step), keep_results=False)


def sources(store: MemoryStore, ids: list[str]) -> dict[str, str]:
    return {i: store.get(i).content or "" for i in ids}


def test_demotion_trains_a_dictionary_and_everything_round_trips(store: MemoryStore) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    before = sources(store, ids)
    demote_all(store)
    warm = [i for i in ids if store.get(i).tier is Tier.WARM]
    assert len(warm) > MIN_SAMPLES // 2
    (dictionary,) = raw(store, "SELECT id, version, trained_on FROM zstd_dictionaries")
    assert dictionary[1] == 1
    assert unpack_ids(bytes(dictionary[2])) <= set(ids)
    used = raw(store, "SELECT count(*) FROM warm_entries WHERE source_dictionary_id IS NOT NULL")
    assert used[0][0] == len(warm)
    assert store.verify() == []
    schemas = SchemaResolver(store)
    for entry_id in warm:
        entry = store.get(entry_id)
        assert entry.warm is not None
        assert store.read_cold(entry_id) == before[entry_id]
        # the stored record is the one the rules extraction re-derives from the cold source
        schema = schemas.get(entry.warm.meta.schema.name, entry.warm.meta.schema.version)
        assert schema is not None
        source = store.read_cold(entry_id)
        rederived = extract_source(source, schema, reference_date(entry.occurred_at, source))
        assert rederived.to_json() == entry.warm.record
    for entry_id in warm[:3]:
        history = store.attempts(entry_id)
        narrative = store.get(entry_id).warm.narrative  # type: ignore[union-attr]
        assert history[-1].summary == narrative  # stored once, in the warm row
        store.restore(entry_id, LATER + timedelta(days=9))
        assert store.get(entry_id).content == before[entry_id]
        assert store.attempts(entry_id) == history  # written back before the warm row went
    assert store.verify() == []


def test_storage_object_counts_every_tier(store: MemoryStore) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    total = sum(len(t.encode()) for t in sources(store, ids).values())
    fresh = store.storage()
    assert fresh["hot_content"] == total
    assert fresh["warm_source_bytes"] == 0
    assert fresh["warm_ratio"] is None
    demote_all(store)
    after = store.storage()
    warm_sources = sum(
        e.size_bytes for e in store.entries(with_content=False) if e.tier is Tier.WARM
    )
    assert after["warm_source_bytes"] == warm_sources > 0
    assert after["hot_content"] == total - warm_sources
    assert after["warm_records"] > 0
    assert after["warm_meta"] > 0
    assert after["dictionaries"] > 0
    warm_bytes = after["warm_narratives"] + after["warm_records"] + after["warm_meta"]
    assert after["warm_ratio"] == round(warm_bytes / warm_sources, 4)
    assert after["cold_archives"] + after["dictionaries"] < warm_sources * 0.5
    assert store.stats()["storage"] == after


def test_a_warm_row_in_an_unknown_encoding_names_its_entry(store: MemoryStore) -> None:
    ids = load(store, 4)
    demote_all(store)
    warm = next(i for i in ids if store.get(i).tier is Tier.WARM)
    raw(store, "UPDATE warm_entries SET encoding = 0 WHERE entry_id = ?", warm)
    with pytest.raises(IntegrityError, match="unknown encoding 0"):
        store.get(warm)
    assert any(warm in problem for problem in store.verify())


def test_a_narrative_that_is_not_a_frame_names_its_entry(store: MemoryStore) -> None:
    ids = load(store, 4)
    demote_all(store)
    warm = next(i for i in ids if store.get(i).tier is Tier.WARM)
    raw(store, "UPDATE warm_entries SET narrative = ? WHERE entry_id = ?", "Edited.", warm)
    with pytest.raises(IntegrityError, match="does not decode"):
        store.get(warm)
    assert any(warm in problem and "does not decode" in problem for problem in store.verify())


def test_retiring_the_dictionaries_trained_on_an_entry(store: MemoryStore) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    before = sources(store, ids)
    demote_all(store)
    ((old_id, trained_on),) = raw(store, "SELECT id, trained_on FROM zstd_dictionaries")
    erased = sorted(unpack_ids(bytes(trained_on)))[0]
    untouched = store.add(AGENT, "A later note, added after the training.", now=LATER)
    assert store.retire_dictionaries_trained_on(untouched, now=LATER) == 0
    assert store.retire_dictionaries_trained_on(erased, now=LATER) == 1
    rows = raw(store, "SELECT id, version, trained_on FROM zstd_dictionaries")
    assert old_id not in [r[0] for r in rows]
    for _, _, packed in rows:
        assert erased not in unpack_ids(bytes(packed))
    users = raw(
        store,
        "SELECT count(*) FROM warm_entries WHERE source_dictionary_id = ?",
        old_id,
    )
    assert users == [(0,)]
    for entry_id in ids:
        entry = store.get(entry_id)
        if entry.tier is Tier.WARM:
            assert store.read_cold(entry_id) == before[entry_id]
    assert store.verify() == []
    assert store.retire_dictionaries_trained_on(erased, now=LATER) == 0


def test_attempts_store_their_diffs_compactly(store: MemoryStore) -> None:
    ids = load(store, 6)
    demote_all(store)
    for entry_id in ids:
        for attempt in store.attempts(entry_id):
            assert isinstance(attempt.diff, dict)
            assert attempt.summary
    rows = raw(store, "SELECT diff, summary, packed FROM attempts")
    assert rows
    assert all(r[0] == "" and r[1] == "" and r[2] is not None for r in rows)
    assert json.dumps(store.stats()["facts_lost"])  # read from the packed diffs


def test_attempt_retention_warm_clean(store: MemoryStore) -> None:
    ids = load(store, 8)
    settings = DemotionSettings(older_than=timedelta(days=14), attempt_retention="warm-clean")
    Demoter(store, settings).run(LATER, keep_results=False)
    warm = [i for i in ids if store.get(i).tier is Tier.WARM]
    clean = [i for i in warm if any(e.type.value == "compression_clean" for e in store.events(i))]
    assert clean
    for entry_id in set(warm) - set(clean):  # acceptable with notes: the history stays
        assert store.attempts(entry_id)
    events_before = {i: len(list(store.events(i))) for i in clean}
    for entry_id in clean:
        assert store.attempts(entry_id) == []
        assert {e.type.value for e in store.events(entry_id)} >= {"compression_clean", "demoted"}
    hot = [i for i in ids if i not in warm]
    assert all(store.attempts(i) for i in hot)  # failed attempts of hot entries stay
    store.restore(clean[0], LATER + timedelta(days=1))
    assert store.get(clean[0]).content
    assert store.verify() == []
    assert {i: len(list(store.events(i))) for i in clean[1:]} == {
        i: n for i, n in events_before.items() if i != clean[0]
    }


def test_pruning_the_attempts_of_entries_already_warm(store: MemoryStore) -> None:
    ids = load(store, 8)
    demote_all(store)
    warm = [i for i in ids if store.get(i).tier is Tier.WARM]
    outcomes = {i: store.attempts(i)[-1].outcome.value for i in warm}
    clean = [i for i, o in outcomes.items() if o == "clean"]
    assert clean
    assert store.prune_clean_attempts(batch=3) == len(clean)
    for entry_id in warm:
        assert (store.attempts(entry_id) == []) == (entry_id in clean)
    assert store.prune_clean_attempts() == 0
    assert store.verify() == []


def test_verify_names_packed_rows_and_dictionaries_that_do_not_decode(
    store: MemoryStore, target: str
) -> None:
    ids = load(store, MIN_SAMPLES + 6)
    demote_all(store)
    assert store.verify() == []
    entry_id = next(i for i in ids if store.get(i).tier is Tier.WARM)
    raw(store, "UPDATE attempts SET packed = ? WHERE entry_id = ?", b"garbage", entry_id)
    problems = store.verify()
    assert any(entry_id in p and "attempt" in p and "does not decode" in p for p in problems)
    raw(store, "UPDATE zstd_dictionaries SET hash = ?", b"\x00" * 32)
    reopened = open_store(target)  # nothing cached: the dictionary is read again
    try:
        problems = reopened.verify()
    finally:
        reopened.close()
    assert any("zstd dictionary does not match its hash" in p for p in problems)


def test_schema_hashes_are_stored_once_and_read_back_whole(store: MemoryStore) -> None:
    ids = load(store, 6)
    demote_all(store)
    entry_id = next(i for i in ids if store.get(i).tier is Tier.WARM)
    registered = {(name, version): h for name, version, h in store.schema_versions()}
    attempts = store.attempts(entry_id)
    assert attempts
    for attempt in attempts:
        schema = attempt.diff["schema"]
        expected = registered[(schema["name"], schema["version"])]
        assert schema["hash"] == attempt.schema_hash == expected
    with_diff = [e for e in store.events(entry_id) if "diff" in e.payload]
    assert with_diff
    assert all(e.payload["diff"]["schema"]["hash"] == expected for e in with_diff)
    # stored once: the attempt rows and packed diffs name the schema without its hash
    assert raw(
        store,
        "SELECT count(*) FROM attempts WHERE entry_id = ? AND schema_hash IS NOT NULL",
        entry_id,
    ) == [(0,)]
    packed = raw(store, "SELECT packed FROM attempts WHERE entry_id = ?", entry_id)
    packed += raw(store, "SELECT packed FROM events WHERE entry_id = ?", entry_id)
    frames_read = [frames.unpack(bytes(p)) for (p,) in packed if p is not None]
    assert len(frames_read) >= len(attempts) + len(with_diff)
    assert not [f for f in frames_read if expected.removeprefix("sha256:").encode() in f]
    assert store.verify() == []
