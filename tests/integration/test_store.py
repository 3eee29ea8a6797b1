"""The memory store on SQLite and PostgreSQL (one parametrized fixture, see conftest.py):
entries, tiers, attempts, events, schemas, cache, with identical results on both."""

from __future__ import annotations

import sqlite3
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from factdiff import builtin_schema, extract
from factdiff.errors import InputError
from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    EntryNotFound,
    EntryStatus,
    EventType,
    IntegrityError,
    MemoryStore,
    NewEvent,
    SchemaNotRegistered,
    SchemaVersionConflict,
    Tier,
    WrongTier,
    content_hash,
    open_store,
)
from tests.integration.conftest import raw, raw_error
from tests.integration.store_helpers import meta

NOW = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=15)
AGE = timedelta(days=14)


def attempt(outcome: AttemptOutcome = AttemptOutcome.CLEAN, **kw: Any) -> AttemptRecord:
    fields: dict[str, Any] = {
        "rung": 0,
        "summarizer": "extractive",
        "extractor": "rules",
        "method_version": "1",
        "outcome": outcome,
        "started_at": NOW,
        "finished_at": NOW + timedelta(milliseconds=12),
        "duration_ms": 12.0,
        "budget_words": 60,
        "diff": {"missing": [], "changed": [], "added": []},
        "summary": "Refund of $14,250 approved.",
    }
    fields.update(kw)
    return AttemptRecord(**fields)


def compress(store: MemoryStore, entry_id: str, expected: int = 0, **kw: Any) -> bool:
    args: dict[str, Any] = {
        "expected_attempts": expected,
        "narrative": "Refund of $14,250 approved.",
        "record": {"fields": {"amount": ["14250 USD"]}},
        "meta": meta(),
        "attempt": attempt(),
        "events": [NewEvent(EventType.COMPRESSION_CLEAN, {}), NewEvent(EventType.DEMOTED, {})],
        "now": LATER,
    }
    args.update(kw)
    return store.apply_compressed(entry_id, **args)


def fail(store: MemoryStore, entry_id: str, expected: int, **kw: Any) -> bool:
    args: dict[str, Any] = {
        "expected_attempts": expected,
        "attempt": attempt(
            AttemptOutcome.FAILED, diff={"missing": [{"field": "amount"}], "changed": []}
        ),
        "next_attempt_at": LATER + timedelta(hours=1),
        "escalate": False,
        "events": [NewEvent(EventType.COMPRESSION_FAILURE, {"diff": {"missing": ["amount"]}})],
        "now": LATER,
    }
    args.update(kw)
    return store.apply_failed(entry_id, **args)


@pytest.mark.parametrize(
    "content",
    ["x", "   \n\t x \r\n ", "nul\0inside\0", "emoji 😀 and é, 中文", "line\r\nbreaks\u2028"],
)
def test_round_trip_hot_and_cold(store: MemoryStore, content: str) -> None:
    entry_id = store.add("agent-1", content, now=NOW, metadata={"k": [1, "x"]}, tags=("billing",))
    entry = store.get(entry_id)
    assert entry.content == content
    assert entry.tier is Tier.HOT
    assert entry.status is EntryStatus.ACTIVE
    assert entry.content_hash == content_hash(content.encode("utf-8"))
    assert entry.size_bytes == len(content.encode("utf-8"))
    assert entry.metadata == {"k": [1, "x"]}
    assert entry.tags == ("billing",)
    assert entry.created_at == entry.last_used_at == NOW
    assert compress(store, entry_id)
    assert store.read_cold(entry_id) == content
    store.restore(entry_id, LATER)
    assert store.get(entry_id).content == content


def test_ten_megabyte_entry_and_size_limit(target: str) -> None:
    big = ("Invoice INV-2231 for $14,250 due 2026-03-25. 😀\0" * 200_000)[: 10 * 1024 * 1024]
    with open_store(target) as store:
        entry_id = store.add("a", big, now=NOW)
        assert store.get(entry_id).content == big
        assert compress(store, entry_id)
        assert store.read_cold(entry_id) == big
        assert store.verify() == []
    with open_store(target, max_entry_bytes=1000) as store:
        with pytest.raises(InputError, match="over the store's limit of 1000"):
            store.add("a", "x" * 1001, now=NOW)
        assert sum(1 for _ in store.entries(with_content=False)) == 1


def test_rejects_bad_input(store: MemoryStore) -> None:
    with pytest.raises(InputError, match="lone surrogate"):
        store.add("a", "bad \udc80 text", now=NOW)
    with pytest.raises(InputError, match="timezone-aware"):
        store.add("a", "x", now=datetime(2026, 1, 1))
    with pytest.raises(InputError, match="agent id"):
        store.add(" ", "x", now=NOW)
    with pytest.raises(InputError, match="JSON"):
        store.add("a", "x", now=NOW, metadata={"x": {1, 2}})
    assert list(store.entries()) == []


def test_unknown_ids(store: MemoryStore) -> None:
    for call in (
        lambda: store.get("nope"),
        lambda: store.touch("nope", NOW),
        lambda: store.attempts("nope"),
        lambda: store.read_cold("nope"),
        lambda: store.restore("nope", NOW),
        lambda: compress(store, "nope"),
        lambda: fail(store, "nope", 0),
    ):
        with pytest.raises(EntryNotFound, match="'nope'"):
            call()


def test_touch_and_due_for_demotion(store: MemoryStore) -> None:
    old = store.add("a", "old", now=NOW)
    fresh = store.add("a", "fresh", now=NOW + timedelta(days=10))
    other = store.add("b", "other agent", now=NOW - timedelta(days=1))
    due = [e.id for e in store.due_for_demotion(LATER, AGE)]
    assert due == [other, old]
    assert [e.id for e in store.due_for_demotion(LATER, AGE, agent="a")] == [old]
    assert [e.id for e in store.due_for_demotion(LATER, AGE, limit=1)] == [other]
    store.touch(old, LATER)
    assert [e.id for e in store.due_for_demotion(LATER, AGE)] == [other]
    assert fresh not in [e.id for e in store.due_for_demotion(LATER, AGE)]
    assert store.get(old).last_used_at == LATER
    listed = list(store.due_for_demotion(LATER, AGE, with_content=False))
    assert listed[0].content is None


def test_due_query_uses_partial_index(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    store.close()
    conn = sqlite3.connect(tmp_path / "m.db")
    params = {"threshold": 0, "now": 0, "after_used": 0, "after_id": "", "limit": 1, "agent": "a"}
    try:
        for key, index in (("due_page", "entries_due"), ("due_page_agent", "entries_due_agent")):
            sql = store.dialect.sql(key)
            plan = " ".join(str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
            assert f"USING INDEX {index} " in plan
            assert "TEMP B-TREE" not in plan
    finally:
        conn.close()


def test_streaming_pages_and_filters(store: MemoryStore) -> None:
    ids = [
        store.add(f"agent-{i % 3}", f"entry {i}", now=NOW + timedelta(seconds=i))
        for i in range(600)
    ]
    assert [e.id for e in store.entries(with_content=False)] == ids
    assert [e.id for e in store.entries(agent="agent-1", limit=7)] == ids[1::3][:7]
    assert compress(store, ids[0])
    warm = list(store.entries(tier=Tier.WARM))
    assert [e.id for e in warm] == [ids[0]]
    assert warm[0].warm is not None
    assert warm[0].warm.narrative == "Refund of $14,250 approved."
    assert sum(1 for _ in store.entries(tier=Tier.HOT, status=EntryStatus.ACTIVE)) == 599
    due = list(store.due_for_demotion(LATER + timedelta(days=1), AGE))
    assert len(due) == 599
    assert [e.last_used_at for e in due] == sorted(e.last_used_at for e in due)
    with pytest.raises(InputError, match="cold"):
        list(store.entries(tier=Tier.COLD))


def test_apply_compressed_is_atomic_and_idempotent(store: MemoryStore) -> None:
    entry_id = store.add("a", "Refund of $14,250 for INV-2231.", now=NOW)
    assert compress(store, entry_id)
    assert not compress(store, entry_id)
    assert not compress(store, entry_id, expected=1)
    entry = store.get(entry_id)
    assert entry.tier is Tier.WARM
    assert entry.content is None
    assert entry.attempt_count == 1
    assert entry.warm is not None
    assert entry.warm.record == {"fields": {"amount": ["14250 USD"]}}
    assert entry.warm.meta.schema.name == "customer_service"
    assert entry.warm.attempt_no == 1
    assert entry.warm.compressed_at == LATER
    assert [a.attempt_no for a in store.attempts(entry_id)] == [1]
    types = [e.type for e in store.events(entry_id)]
    assert types == [EventType.COMPRESSION_CLEAN, EventType.DEMOTED]
    assert list(store.due_for_demotion(LATER + AGE * 2, AGE)) == []
    assert store.verify() == []


def test_a_fact_record_is_written_as_its_json_and_named_by_the_meta(store: MemoryStore) -> None:
    text = "Customer cust_482 disputes invoice INV-2231 for $14,250, due 2026-03-25."
    record = extract(text, builtin_schema("customer_service"))
    typed, as_json, other = (store.add("a", text, now=NOW) for _ in range(3))
    assert compress(store, typed, record=record)
    assert compress(store, as_json, record=record.to_json())
    warm = [store.get(entry_id).warm for entry_id in (typed, as_json)]
    assert warm[0] is not None
    assert warm[1] is not None
    assert warm[0].record == warm[1].record == record.to_json()
    assert warm[0].meta.source_facts_digest == record.digest()  # filled in: the meta had none
    assert warm[0].meta == warm[1].meta
    elsewhere = replace(meta(), source_facts_digest="sha256:" + "2" * 64)
    with pytest.raises(InputError, match="another fact record"):
        compress(store, other, record=record, meta=elsewhere)
    assert store.get(other).tier is Tier.HOT
    assert store.attempts(other) == []
    assert store.verify() == []


def test_stale_expected_attempts_changes_nothing(store: MemoryStore) -> None:
    entry_id = store.add("a", "text", now=NOW)
    assert not compress(store, entry_id, expected=3)
    assert not fail(store, entry_id, 1)
    assert store.get(entry_id).tier is Tier.HOT
    assert store.attempts(entry_id) == []
    assert list(store.events()) == []


def test_empty_narrative_and_wrong_outcome_rejected(store: MemoryStore) -> None:
    entry_id = store.add("a", "text", now=NOW)
    with pytest.raises(InputError, match="empty warm narrative"):
        compress(store, entry_id, narrative="  \n")
    with pytest.raises(InputError, match="clean or acceptable"):
        compress(store, entry_id, attempt=attempt(AttemptOutcome.FAILED))
    with pytest.raises(InputError, match="failed or error"):
        fail(store, entry_id, 0, attempt=attempt(AttemptOutcome.CLEAN))
    assert store.get(entry_id).content == "text"


def test_failed_attempts_backoff_and_review(store: MemoryStore) -> None:
    entry_id = store.add("a", "Refund of $14,250.", now=NOW)
    assert fail(store, entry_id, 0)
    assert not fail(store, entry_id, 0)
    entry = store.get(entry_id)
    assert (entry.tier, entry.attempt_count, entry.content) == (Tier.HOT, 1, "Refund of $14,250.")
    assert entry.next_attempt_at == LATER + timedelta(hours=1)
    assert list(store.due_for_demotion(LATER, AGE)) == []
    assert [e.id for e in store.due_for_demotion(LATER + timedelta(hours=1), AGE)] == [entry_id]
    assert fail(
        store,
        entry_id,
        1,
        escalate=True,
        next_attempt_at=None,
        events=[NewEvent(EventType.ESCALATED_TO_REVIEW, {"attempts": 2})],
    )
    assert store.get(entry_id).status is EntryStatus.REVIEW
    assert list(store.due_for_demotion(LATER + AGE, AGE)) == []
    assert not compress(store, entry_id, expected=2)
    assert store.resolve_review(entry_id, LATER, "checked by ops")
    assert not store.resolve_review(entry_id, LATER)
    assert store.get(entry_id).status is EntryStatus.ACTIVE
    assert [e.id for e in store.due_for_demotion(LATER, AGE)] == [entry_id]
    resolved = list(store.events(entry_id, type=EventType.REVIEW_RESOLVED))
    assert resolved[0].payload == {"note": "checked by ops"}
    assert compress(store, entry_id, expected=2)
    assert [a.outcome for a in store.attempts(entry_id)] == ["failed", "failed", "clean"]


def test_attempt_record_round_trip(store: MemoryStore) -> None:
    entry_id = store.add("a", "x", now=NOW)
    sent = attempt(
        AttemptOutcome.ERROR,
        tokens_in=120,
        tokens_out=40,
        cost_usd=Decimal("0.000123"),
        error="provider timeout\0",
        summary="partial\0summary",
        schema_name="customer_service",
        schema_version=2,
        schema_hash="sha256:abc",
        diff={"missing": [{"field": "amount", "source": ["14250 USD"]}]},
    )
    assert fail(store, entry_id, 0, attempt=sent)
    (got,) = store.attempts(entry_id)
    assert got.id is not None
    assert (got.entry_id, got.attempt_no) == (entry_id, 1)
    assert replace(got, id=None, entry_id=None, attempt_no=None) == sent


def test_restore(store: MemoryStore) -> None:
    entry_id = store.add("a", "source text", now=NOW)
    with pytest.raises(WrongTier, match="nothing to restore"):
        store.restore(entry_id, NOW)
    with pytest.raises(WrongTier, match="no cold archive"):
        store.read_cold(entry_id)
    assert compress(store, entry_id)
    store.restore(entry_id, LATER + timedelta(days=1))
    entry = store.get(entry_id)
    assert (entry.tier, entry.content, entry.warm) == (Tier.HOT, "source text", None)
    assert entry.last_used_at == LATER + timedelta(days=1)
    assert store.stats()["tiers"] == {"hot": 1, "warm": 0, "cold": 0}
    restored = list(store.events(entry_id, type=EventType.RESTORED))
    assert restored[0].payload["content_hash"] == entry.content_hash
    assert compress(store, entry_id, expected=1)
    assert store.verify() == []


def corrupt_cold(store: MemoryStore, entry_id: str, data: bytes) -> None:
    raw(store, "UPDATE warm_entries SET source = ? WHERE entry_id = ?", data, entry_id)


def test_cold_corruption_detected(store: MemoryStore) -> None:
    entry_id = store.add("a", "the real source", now=NOW)
    assert compress(store, entry_id)
    corrupt_cold(store, entry_id, zlib.compress(b"a forged source"))
    with pytest.raises(IntegrityError, match=entry_id):
        store.read_cold(entry_id)
    with pytest.raises(IntegrityError, match=entry_id):
        store.restore(entry_id, LATER)
    with pytest.raises(IntegrityError, match=entry_id):  # the record's texts live in cold
        store.get(entry_id)
    assert [e.tier for e in store.entries(with_content=False)] == [Tier.WARM]
    problems = store.verify()
    assert len(problems) == 1
    assert entry_id in problems[0]
    corrupt_cold(store, entry_id, b"\x00garbage")
    with pytest.raises(IntegrityError, match="does not decompress"):
        store.read_cold(entry_id)


def test_verify_finds_hot_corruption_and_tier_violations(store: MemoryStore) -> None:
    hot = store.add("a", "hot source", now=NOW)
    warm = store.add("a", "warm source", now=NOW)
    assert compress(store, warm)
    raw(store, "UPDATE hot_content SET content = ? WHERE entry_id = ?", b"x", hot)
    raw(store, "DELETE FROM warm_entries WHERE entry_id = ?", warm)
    problems = store.verify()
    assert any(hot in p and "hot content" in p for p in problems)
    assert any(warm in p and "tier warm" in p for p in problems)
    with pytest.raises(IntegrityError, match=hot):
        compress(store, hot)


def test_events_are_append_only_and_queryable(store: MemoryStore) -> None:
    a = store.add("agent-a", "one", now=NOW)
    b = store.add("agent-b", "two", now=NOW)
    assert compress(store, a, now=NOW + timedelta(days=1))
    assert fail(store, b, 0, now=NOW + timedelta(days=2))
    events = list(store.events())
    assert [e.id for e in events] == sorted(e.id for e in events)
    assert len({e.id for e in events}) == 3
    assert [e.entry_id for e in store.events(agent="agent-b")] == [b]
    assert [e.type for e in store.events(type=EventType.COMPRESSION_FAILURE)] == [
        EventType.COMPRESSION_FAILURE
    ]
    assert len(list(store.events(since=NOW + timedelta(days=2)))) == 1
    assert len(list(store.events(until=NOW + timedelta(days=2)))) == 2
    assert len(list(store.events(limit=2))) == 2
    assert not hasattr(store, "delete_event")
    with pytest.raises(raw_error(), match="append-only"):
        raw(store, "UPDATE events SET type = 'demoted'")
    with pytest.raises(raw_error(), match="append-only"):
        raw(store, "DELETE FROM events")
    assert len(list(store.events())) == 3


def test_schemas_and_agent_mapping(store: MemoryStore) -> None:
    definition = {"name": "cs", "fields": [{"name": "amount", "criticality": "critical"}]}
    assert store.register_schema("cs", 1, "sha256:1", definition, source_text="name: cs", now=NOW)
    assert not store.register_schema("cs", 1, "sha256:1", definition, now=NOW)
    with pytest.raises(SchemaVersionConflict, match="bump the schema's version"):
        store.register_schema("cs", 1, "sha256:other", definition, now=NOW)
    assert store.register_schema("cs", 2, "sha256:2", {"v": 2}, now=NOW)
    assert store.get_schema_definition("cs") == (2, "sha256:2", {"v": 2}, None)
    version, digest, got, source = store.get_schema_definition("cs", 1)
    assert (version, digest, got, source) == (1, "sha256:1", definition, "name: cs")
    with pytest.raises(SchemaNotRegistered):
        store.get_schema_definition("cs", 3)
    with pytest.raises(SchemaNotRegistered):
        store.get_schema_definition("nope")
    registered = list(store.events(type=EventType.SCHEMA_REGISTERED))
    assert [e.payload["version"] for e in registered] == [1, 2]
    assert store.schema_for("agent") is None
    store.set_agent_schema("agent", "cs")
    store.set_agent_schema("agent", "billing", tag="billing")
    assert store.schema_for("agent") == "cs"
    assert store.schema_for("agent", ("other", "billing")) == "billing"
    store.set_agent_schema("agent", "cs2")
    assert store.schema_for("agent", ("other",)) == "cs2"
    store.set_agent_schema("agent", None)
    assert store.schema_for("agent") is None
    assert store.schema_for("agent", ("billing",)) == "billing"


def test_extraction_cache(store: MemoryStore) -> None:
    assert store.cached_extraction("sha256:c", "sha256:s", "rules@1") is None
    store.put_extraction("sha256:c", "sha256:s", "rules@1", {"fields": {"a": ["\0x"]}})
    store.put_extraction("sha256:c", "sha256:s", "rules@1", {"fields": {}})
    assert store.cached_extraction("sha256:c", "sha256:s", "rules@1") == {"fields": {"a": ["\0x"]}}
    assert store.cached_extraction("sha256:c", "sha256:s", "llm") is None


def test_stats(store: MemoryStore) -> None:
    ids = [store.add("a", f"entry {i}", now=NOW) for i in range(4)]
    v1: dict[str, Any] = {"schema_name": "cs", "schema_version": 1}
    lost = {"missing": [{"field": "amount"}], "changed": [{"field": "date"}], "added": []}
    assert fail(store, ids[0], 0, attempt=attempt(AttemptOutcome.FAILED, diff=lost, **v1))
    assert compress(store, ids[0], expected=1, attempt=attempt(**v1))
    acceptable = attempt(
        AttemptOutcome.ACCEPTABLE_WITH_NOTES, diff={"missing": [{"field": "phone"}]}, **v1
    )
    assert compress(store, ids[1], attempt=acceptable)
    assert fail(store, ids[2], 0, escalate=True, attempt=attempt(AttemptOutcome.ERROR, **v1))
    stats = store.stats()
    assert stats["tiers"] == {"hot": 2, "warm": 2, "cold": 2}
    assert stats["entries"] == {"hot": {"active": 1, "review": 1}, "warm": {"active": 2}}
    assert stats["attempts"] == {
        "clean": 1,
        "acceptable_with_notes": 1,
        "failed": 1,
        "error": 1,
        "total": 4,
    }
    assert stats["failure_rate"] == [
        {"schema": "cs", "version": 1, "attempts": 4, "failed": 2, "rate": 0.5}
    ]
    assert stats["facts_lost"] == {
        "amount": {"missing": 1, "changed": 0, "added": 0},
        "date": {"missing": 0, "changed": 1, "added": 0},
        "phone": {"missing": 1, "changed": 0, "added": 0},
    }
    assert stats["events"]["compression_clean"] == 2


def test_text_fields_reject_nul_and_surrogates_identically(store: MemoryStore) -> None:
    """PostgreSQL text cannot hold NUL: both backends refuse it in text columns with the
    same typed error (content is bytes, so NUL round-trips there), and refuse lone
    surrogates everywhere."""
    entry_id = store.add("a", "4-byte 😀🏳️‍🌈 and NUL \0 kept", now=NOW, tags=("😀",))
    assert store.get(entry_id).content == "4-byte 😀🏳️‍🌈 and NUL \0 kept"
    assert store.get(entry_id).tags == ("😀",)
    for call in (
        lambda: store.add("a\0b", "x", now=NOW),
        lambda: store.add("a", "x", now=NOW, tags=("t\0",)),
        lambda: store.add("a", "x", now=NOW, schema="s\udc80"),
        lambda: compress(store, entry_id, narrative="nul \0 narrative"),
        lambda: store.resolve_review(entry_id, NOW, "note \0"),
    ):
        with pytest.raises(InputError):
            call()
    assert compress(store, entry_id, narrative="emoji 😀 narrative", meta=meta(k="\0😀"))
    warm = store.get(entry_id).warm
    assert warm is not None
    assert warm.narrative == "emoji 😀 narrative"
    assert warm.meta.extra == {"k": "\0😀"}
