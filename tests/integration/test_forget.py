"""Erasure on both stores: after ``forget``, no table or column holds any fragment of the
entry's text or any of its fact values (also after ``vacuum``, and in the SQLite file's raw
bytes); other entries are untouched; tombstones, the erased event, idempotence, errors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.retrieve.keys import record_facts
from factdiff.store import EntryNotFound, EventType, MemoryStore, Tier
from factdiff.store.model import EntryErased
from tests.conftest import worked
from tests.integration.conftest import raw, raw_error
from tests.integration.erasure_scan import (
    find,
    find_in_files,
    string_leaves,
    windows,
)

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
LATER = T0 + timedelta(days=30)
ERASED_AT = LATER + timedelta(days=30)

SECRET = (
    "Call with Zorbulax Quarries (customer cust_zq7781) about invoice INV-77123. "
    "Quintferrel Vandermoss says the invoice total is $18,437.55 and disputes $3,912.40 of "
    "the gravel haulage. Quintferrel agreed to pay the undisputed balance by 2026-04-27; we "
    "promised a credit memo by 2026-04-19. Reach Quintferrel at "
    "quintferrel.vandermoss@zorbulax-quarries.test or +1 415 555 0199."
)
HOT_OTHER = "Lighthouse rainfall log: Pemberton recorded 31 mm overnight at the north station."
MADE_UP_WORDS = ("zorbulax", "quintferrel", "vandermoss")


@dataclass
class Scene:
    store: MemoryStore
    secret: str
    hot_other: str
    warm_other: str
    needles: set[str]


class OwnRulesExtractor(RulesExtractor):
    """The rules extractor, but not the search index's: demotion extracts the source itself
    and caches its record between attempts, so the extraction cache holds the secret too."""


def demote_all(store: MemoryStore) -> None:
    rungs = ladder_from_spec("naive:8,extractive:0.6x")
    settings = DemotionSettings(
        ladder=rungs, retry=RetryPolicy(max_attempts=3), extractor=OwnRulesExtractor()
    )
    demoter = Demoter(store, settings)
    first = demoter.run(LATER)
    assert first.counts.get("failed", 0) >= 1  # the secret's first attempt quotes lost facts
    for entry in store.entries(tier=Tier.HOT):
        if entry.next_attempt_at is not None:
            demoter.run(entry.next_attempt_at)


def baseline_text(store: MemoryStore) -> str:
    """Everything the store holds before the secret is added (schemas above all)."""
    from tests.integration.erasure_scan import table_rows

    parts: list[str] = []
    for _, _, value in table_rows(store):
        if isinstance(value, bytes | bytearray | memoryview):
            parts.append(bytes(value).decode("latin-1"))
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts).lower()


def build(store: MemoryStore) -> Scene:
    warm_other = store.add(
        "support-bot", worked("source"), now=T0, schema="customer_service", last_used_at=T0
    )
    hot_other = store.add("support-bot", HOT_OTHER, now=LATER, last_used_at=LATER)
    # the schema registers at demotion: demote the other entry first, then take the baseline
    Demoter(store, DemotionSettings(ladder=ladder_from_spec("extractive:0.6x"))).run(LATER)
    assert store.get(warm_other).tier is Tier.WARM
    baseline = baseline_text(store) + worked("source").lower()
    secret = store.add(
        "support-bot",
        SECRET,
        now=T0,
        occurred_at=T0,
        schema="customer_service",
        last_used_at=T0,
    )
    demote_all(store)
    entry = store.get(secret)
    assert entry.tier is Tier.WARM
    assert entry.warm is not None
    store.search("Quintferrel INV-77123 credit memo", include_source="always", now=LATER)
    store.attest("decision-1", [secret, hot_other], now=LATER)
    values = {v for v in string_leaves(entry.warm.record) if len(v) >= 5}
    for _, fact in record_facts(FactRecord.from_json(entry.warm.record)):
        canonical = fact.value.canonical()  # surface text is in the record's "text" leaves
        values |= {v for v in string_leaves(canonical) if len(v) >= 5}
    values |= {v for v in string_leaves(entry.warm.narrative) if len(v) >= 5}
    needles = {n for n in windows(SECRET) | {v.lower() for v in values} if n not in baseline}
    needles |= {w[:7] for w in MADE_UP_WORDS}  # index terms (stems, lowercased)
    assert len(needles) > 200
    assert {"inv-77123", "$18,437.55", "18437.55", "+14155550199"} <= needles
    return Scene(store, secret, hot_other, warm_other, needles)


def test_forget_leaves_no_fragment_in_any_table(store: MemoryStore, tmp_path: Path) -> None:
    scene = build(store)
    before = find(store, scene.needles)
    places = {table for table, _, _ in before}
    # the scan sees the secret wherever it lives before the erasure (a scan that can fail)
    text_index = "search_text_data" if store.dialect.name == "sqlite" else "search_docs"
    assert {"warm_entries", "attempts", "events", "extraction_cache"} <= places
    assert text_index in places
    warm_source = store.read_cold(scene.warm_other)
    hot_before = store.get(scene.hot_other)

    if store.dialect.name == "sqlite":  # the raw scan finds the text before the erasure
        path: Path = store.backend.path  # type: ignore[attr-defined]
        files = [path, path.with_name(path.name + "-wal")]
        assert find_in_files(files, scene.needles)

    (done,) = store.forget([scene.secret], now=ERASED_AT, reason="customer request 42")

    assert done.newly_erased
    assert done.redacted_attempts >= 2
    assert done.redacted_events >= 3
    assert find(store, scene.needles) == set()
    # other entries untouched: byte-exact sources, verify clean
    assert store.get(scene.hot_other) == hot_before
    assert store.read_cold(scene.warm_other) == warm_source
    assert store.verify() == []
    store.restore(scene.warm_other, ERASED_AT)
    assert store.get(scene.warm_other).content == warm_source
    assert store.verify() == []
    assert [h.entry_id for h in store.search("Quintferrel", now=ERASED_AT)] == []

    store.vacuum()
    assert find(store, scene.needles) == set()
    if store.dialect.name == "sqlite":
        assert find_in_files(files, scene.needles) == set()


def test_the_tombstone_and_the_erased_event_carry_no_content(store: MemoryStore) -> None:
    scene = build(store)
    store.forget([scene.secret], now=ERASED_AT, reason="customer request 42")
    with pytest.raises(EntryErased, match="was erased at"):
        store.get(scene.secret)
    stone = store.tombstone(scene.secret)
    assert stone is not None
    assert (stone.agent_id, stone.tier, stone.reason) == (
        "support-bot",
        "warm",
        "customer request 42",
    )
    assert stone.erased_at == ERASED_AT
    events = list(store.events(scene.secret))
    erased = [e for e in events if e.type is EventType.ERASED]
    assert len(erased) == 1
    assert set(erased[0].payload) == {
        "content_hash",
        "size_bytes",
        "tier",
        "reason",
        "redacted_events",
        "redacted_attempts",
    }
    assert erased[0].payload["content_hash"] == stone.content_hash
    others = [e for e in events if e.type is not EventType.ERASED]
    assert others
    assert all(e.payload.get("redacted") is True for e in others)
    failure = next(e for e in others if e.type is EventType.COMPRESSION_FAILURE)
    assert failure.payload["diff"]["missing"]  # the structure stays, the values do not
    assert all(a.summary == "[erased]" for a in store.attempts(scene.secret))
    assert store.stats()["facts_lost"]  # field names survive the redaction


def test_events_stay_append_only_outside_an_erasure(store: MemoryStore) -> None:
    scene = build(store)
    (event_id,) = raw(store, "SELECT min(id) FROM events WHERE entry_id = ?", scene.secret)[0]
    with pytest.raises(raw_error(), match="append-only"):
        raw(store, "UPDATE events SET payload = ? WHERE id = ?", '{"redacted": true}', event_id)
    with pytest.raises(raw_error(), match="append-only"):
        raw(store, "DELETE FROM events WHERE id = ?", event_id)
    raw(store, "INSERT INTO erasure_pending (entry_id) VALUES (?)", scene.secret)
    with pytest.raises(raw_error(), match="append-only"):  # a redaction must say so
        raw(store, "UPDATE events SET payload = ? WHERE id = ?", '{"x": 1}', event_id)
    with pytest.raises(raw_error(), match="append-only"):  # and change nothing else
        raw(store, "UPDATE events SET type = 'demoted' WHERE id = ?", event_id)


def test_forget_is_idempotent_and_a_missing_id_is_an_error(store: MemoryStore) -> None:
    kept = store.add("a", "keep me: order ORD-5521 ships Tuesday", now=T0)
    gone = store.add("a", "forget me: order ORD-9934 ships Friday", now=T0)
    with pytest.raises(EntryNotFound, match="no entry with id 'nope'"):
        store.forget([gone, "nope"], now=LATER)
    assert store.get(gone).content is not None  # nothing erased when an id is unknown
    (first,) = store.forget([gone], now=LATER, reason="r")
    (again,) = store.forget([gone], now=ERASED_AT)
    assert first.newly_erased
    assert not again.newly_erased
    assert again.tombstone == first.tombstone
    assert len([e for e in store.events(gone) if e.type is EventType.ERASED]) == 1
    assert store.get(kept).content == "keep me: order ORD-5521 ships Tuesday"


def test_an_owner_forgets_its_own_entries_only(store: MemoryStore) -> None:
    mine = store.add("bot-a", "mine: QX-1200", now=T0)
    theirs = store.add("bot-b", "theirs: QX-3400", now=T0)
    with pytest.raises(EntryNotFound, match=theirs):
        store.forget([mine, theirs], now=LATER, owner="bot-a")
    assert store.get(mine).content == "mine: QX-1200"
    (done,) = store.forget([mine], now=LATER, owner="bot-a")
    assert done.newly_erased
    assert store.forget([mine], now=LATER, owner="bot-a") != []
    with pytest.raises(EntryNotFound):
        store.forget([mine], now=LATER, owner="bot-b")
    assert store.get(theirs).content == "theirs: QX-3400"


def test_forget_an_agent(store: MemoryStore) -> None:
    mine = [store.add("bot-a", f"note {i} for QX-{i}400", now=T0) for i in range(3)]
    other = store.add("bot-b", "note for QX-9900", now=T0)
    results = store.forget_agent("bot-a", now=LATER, reason="account closed")
    assert sorted(r.tombstone.entry_id for r in results) == sorted(mine)
    assert store.forget_agent("bot-a", now=LATER) == []
    assert store.get(other).content == "note for QX-9900"
    with pytest.raises(Exception, match="agent 'bot-z' has no entries"):
        store.forget_agent("bot-z", now=LATER)


def test_an_attestation_reports_an_erased_entry_and_verifies_the_rest(
    store: MemoryStore,
) -> None:
    scene = build(store)
    store.forget([scene.secret], now=ERASED_AT, reason="customer request 42")
    check = store.check_attestation("decision-1")
    assert check.intact
    assert not check.ok
    assert check.status == "erased"
    by_id = {e.entry_id: e for e in check.entries}
    assert by_id[scene.secret].status == "erased"
    assert by_id[scene.secret].tombstone
    assert "customer request 42" in by_id[scene.secret].changes[0]
    assert by_id[scene.hot_other].status == "unchanged"
    assert store.verify() == []
    # the rest is still verified: a change to the entry left is reported as a change
    store.correct(scene.hot_other, HOT_OTHER + " Corrected: 33 mm.", now=ERASED_AT)
    assert store.check_attestation("decision-1").status == "changed"


CRASH_SCRIPT = """
import os, sys
from datetime import datetime, timezone
from factdiff.store import open_store
target, entry_id, step = sys.argv[1:4]

def crash(name: str) -> None:
    if name == step:
        os._exit(17)

with open_store(target) as store:
    store.forget([entry_id], now=datetime(2026, 6, 1, tzinfo=timezone.utc), on_step=crash)
    if step == "after_commit":
        os._exit(17)
"""


def crash_forget(target: str, entry_id: str, step: str) -> int:
    """Run ``forget`` in a subprocess that dies (``os._exit``) just before ``step``."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, target, entry_id, step],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode


def test_a_crash_at_any_step_leaves_the_whole_entry_or_the_whole_erasure(
    store: MemoryStore, target: str
) -> None:
    from factdiff.store.erasure import STEPS

    scene = build(store)
    source = store.read_cold(scene.secret)
    entry = store.get(scene.secret)
    attempts = store.attempts(scene.secret)
    events = list(store.events(scene.secret))
    hits = [h.entry_id for h in store.search("Quintferrel", touch=False, now=LATER)]
    assert hits == [scene.secret]
    for step in STEPS:
        assert crash_forget(target, scene.secret, step.name) == 17, step.name
        assert store.get(scene.secret) == entry, step.name
        assert store.read_cold(scene.secret) == source
        assert store.attempts(scene.secret) == attempts
        assert list(store.events(scene.secret)) == events
        assert store.tombstone(scene.secret) is None
        assert store.verify() == []
        assert [h.entry_id for h in store.search("Quintferrel", touch=False, now=LATER)] == hits
    assert crash_forget(target, scene.secret, "after_commit") == 17
    assert store.tombstone(scene.secret) is not None
    assert find(store, scene.needles) == set()
    assert store.verify() == []


def test_an_outcome_or_a_cache_write_after_the_erasure_is_stale(store: MemoryStore) -> None:
    from tests.integration.test_store import compress, fail

    first = store.add("a", "Invoice INV-55120 for Halvard Ropes is due 2026-04-30.", now=T0)
    second = store.add("a", "Invoice INV-55121 for Halvard Ropes is due 2026-05-30.", now=T0)
    content_hash = store.get(first).content_hash
    store.forget([first, second], now=LATER)
    assert compress(store, first) is False
    assert fail(store, second, 0) is False
    store.put_extraction(content_hash, "sha256:" + "0" * 64, "rules/2", {"fields": {}})
    assert store.cached_extraction(content_hash, "sha256:" + "0" * 64, "rules/2") is None
    assert [e.type for e in store.events(first)] == [EventType.ERASED]
