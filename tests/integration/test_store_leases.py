"""Leases on both backends: claim, heartbeat, release, fenced outcomes, cheap claims."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from factdiff.errors import InputError
from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    EventType,
    MemoryStore,
    NewEvent,
    Tier,
    open_store,
)
from factdiff.store.backends import SqliteBackend
from tests.integration.store_helpers import meta

NOW = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=30)
AGE = timedelta(days=14)


def attempt(outcome: AttemptOutcome = AttemptOutcome.CLEAN) -> AttemptRecord:
    return AttemptRecord(
        rung=0,
        summarizer="s",
        extractor="e",
        method_version="1",
        outcome=outcome,
        started_at=LATER,
        finished_at=LATER,
        duration_ms=1.0,
    )


def compress(store: MemoryStore, entry_id: str, token: str | None, expected: int = 0) -> bool:
    return store.apply_compressed(
        entry_id,
        expected_attempts=expected,
        narrative="summary",
        record={"fields": {}},
        meta=meta(),
        attempt=attempt(),
        events=[NewEvent(EventType.DEMOTED, {})],
        now=LATER,
        lease_token=token,
    )


def fail(store: MemoryStore, entry_id: str, token: str | None, expected: int = 0) -> bool:
    return store.apply_failed(
        entry_id,
        expected_attempts=expected,
        attempt=attempt(AttemptOutcome.FAILED),
        next_attempt_at=None,
        escalate=False,
        events=[NewEvent(EventType.COMPRESSION_FAILURE, {})],
        now=LATER,
        lease_token=token,
    )


def claim(store: MemoryStore, worker: str = "w1", **kw: Any) -> list[Any]:
    kw.setdefault("now", LATER)
    kw.setdefault("older_than", AGE)
    kw.setdefault("lease_seconds", 30)
    return store.claim(worker, **kw)


def test_claim_leases_due_entries_once(store: MemoryStore) -> None:
    ids = [store.add("a", f"entry {i}", now=NOW + timedelta(minutes=i)) for i in range(5)]
    store.add("a", "fresh", now=LATER)
    first = claim(store, limit=2)
    assert [c.entry.id for c in first] == ids[:2]
    assert all(c.entry.content == f"entry {i}" for i, c in enumerate(first))
    assert len({c.token for c in first}) == 2
    assert all(c.expires_at - c.claimed_at == timedelta(seconds=30) for c in first)
    second = claim(store, "w2", limit=10)
    assert [c.entry.id for c in second] == ids[2:]
    assert claim(store, "w3") == []
    assert len(store.leases()) == 5
    assert {w for _, w, _, _ in store.leases()} == {"w1", "w2"}
    assert list(store.due_for_demotion(LATER, AGE))  # listing ignores leases
    with pytest.raises(InputError):
        claim(store, lease_seconds=0)
    assert claim(store, limit=0) == []


def test_claim_uses_the_database_clock_by_default(store: MemoryStore) -> None:
    old = store.add("a", "old", now=store.db_now() - timedelta(days=20))
    store.add("a", "recent", now=store.db_now())
    claims = store.claim("w", older_than=AGE, lease_seconds=5)
    assert [c.entry.id for c in claims] == [old]
    assert abs(claims[0].claimed_at - store.db_now()) < timedelta(seconds=5)
    assert [c.entry.id for c in claim(store, agent="a", now=LATER + AGE)] != [old]


def test_fenced_outcomes(store: MemoryStore) -> None:
    a = store.add("a", "one", now=NOW)
    b = store.add("a", "two", now=NOW + timedelta(seconds=1))
    ca, cb = claim(store, limit=2)
    assert not compress(store, a, "not-the-token")
    assert not compress(store, a, None)  # a live lease blocks unleased demoters too
    assert not fail(store, a, cb.token)
    assert store.attempts(a) == []
    assert compress(store, a, ca.token)
    assert not compress(store, a, ca.token)
    assert store.get(a).tier is Tier.WARM
    assert fail(store, b, cb.token)
    assert store.heartbeat(cb.token) is None  # applied: the lease is gone
    assert store.leases() == []
    again = claim(store)
    assert [c.entry.id for c in again] == [b]
    assert store.release(again[0].token)
    assert not store.release(again[0].token)
    assert compress(store, b, None, expected=1)


def test_heartbeat_extends_and_never_revives(store: MemoryStore) -> None:
    entry_id = store.add("a", "x", now=NOW)
    (c,) = claim(store, lease_seconds=0.3)
    extended = store.heartbeat(c.token, 5)
    assert extended is not None
    assert extended > c.expires_at
    assert store.heartbeat(c.token, 0.05) is not None
    time.sleep(0.15)
    assert store.heartbeat(c.token, 30) is None
    assert not compress(store, entry_id, c.token)
    (again,) = claim(store, "w2")
    assert again.token != c.token
    assert compress(store, entry_id, again.token)


def test_expired_lease_commit_refused_100_times(target: str) -> None:
    """The fast in-process form of "a worker paused past its lease": two connections, the
    first claims with a short lease and stalls, the second claims the expired entry; the
    first's commit (and heartbeat) is refused every time, the second's applies."""
    with open_store(target) as first, open_store(target) as second:
        ids = [first.add("a", f"entry {i}", now=NOW + timedelta(seconds=i)) for i in range(100)]
        refused = 0
        for entry_id in ids:
            (stale,) = claim(first, "paused", lease_seconds=0.02)
            assert stale.entry.id == entry_id
            time.sleep(0.03)
            (fresh,) = claim(second, "taker")
            assert fresh.entry.id == entry_id
            assert first.heartbeat(stale.token) is None
            refused += not compress(first, entry_id, stale.token)
            refused += not fail(first, entry_id, stale.token)
            assert compress(second, entry_id, fresh.token)
        assert refused == 200
        assert all(len(first.attempts(i)) == 1 for i in ids)
        assert first.leases() == []


def test_sqlite_claim_plan_uses_the_due_index(tmp_path: Any) -> None:
    with open_store(tmp_path / "m.db") as store_sql:
        backend = store_sql.backend
        assert isinstance(backend, SqliteBackend)  # its connection knows factdiff_now_us()
        params = {"owner": "w", "now": 0, "older_than": 0, "lease": 1, "limit": 1, "agent": "a"}
        for key, index in (("claim", "entries_due"), ("claim_agent", "entries_due_agent")):
            sql = store_sql.dialect.sql(key)
            rows = backend.conn.execute("EXPLAIN QUERY PLAN " + sql, params)
            plan = " ".join(str(r[3]) for r in rows)
            assert f"USING INDEX {index} " in plan, plan
            assert "TEMP B-TREE" not in plan


@pytest.mark.postgres
def test_postgres_claim_plan_stays_cheap_at_scale(pg_dsn: str) -> None:
    """200,000 entries (most fresh, some leased, some in review): the claim walks the partial
    due index in order, with no sequential scan and no sort."""
    import psycopg

    with open_store(pg_dsn) as store:
        store.add("a", "seed", now=NOW)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            """
            INSERT INTO entries (id, agent_id, tier, status, created_at, last_used_at,
                                 content_hash, size_bytes)
            SELECT lpad(g::text, 26, '0'), 'agent-' || (g % 50),
                   CASE WHEN g % 3 = 0 THEN 'warm' ELSE 'hot' END,
                   CASE WHEN g % 17 = 0 THEN 'review' ELSE 'active' END,
                   g, 1700000000000000 + g::bigint * 1000000, 'sha256:x', 1
            FROM generate_series(1, 200000) AS g
            """
        )
        conn.execute("ANALYZE entries")
        params = {
            "owner": "w",
            "now": 1700000000000000 + 150000 * 1000000,
            "older_than": 0,
            "lease": 1000000,
            "limit": 8,
            "agent": "agent-7",
        }
        for key in ("claim", "claim_agent"):
            sql = store.dialect.sql(key)
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, params))
            index = "entries_due" if key == "claim" else "entries_due_agent"
            assert f"Index Scan using {index} on entries" in plan, plan
            assert "Seq Scan on entries" not in plan, plan
            assert "Sort" not in plan, plan
        started = time.perf_counter()
        rows = conn.execute(store.dialect.sql("claim"), params).fetchall()
        assert len(rows) == 8
        assert time.perf_counter() - started < 5  # generous: the plan is what matters
