"""Failures mid-transaction, killed processes and concurrent writers leave the store whole."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from factdiff.errors import StoreError
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
from factdiff.store.sqlite import SqliteStore
from tests.integration.store_helpers import meta

NOW = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=30)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore.connect(tmp_path / "memory.db") as s:
        assert isinstance(s.backend, SqliteBackend)
        yield s


def clean_attempt(outcome: AttemptOutcome = AttemptOutcome.CLEAN) -> AttemptRecord:
    return AttemptRecord(
        rung=0,
        summarizer="extractive",
        extractor="rules",
        method_version="1",
        outcome=outcome,
        started_at=NOW,
        finished_at=NOW,
        duration_ms=1.0,
    )


def compress(store: MemoryStore, entry_id: str) -> bool:
    return store.apply_compressed(
        entry_id,
        expected_attempts=0,
        narrative="summary",
        record={"fields": {}},
        meta=meta(),
        attempt=clean_attempt(),
        events=[NewEvent(EventType.COMPRESSION_CLEAN, {}), NewEvent(EventType.DEMOTED, {})],
        now=LATER,
    )


def assert_untouched_hot(store: MemoryStore, entry_id: str, content: str) -> None:
    entry = store.get(entry_id)
    assert (entry.tier, entry.content, entry.attempt_count) == (Tier.HOT, content, 0)
    assert store.attempts(entry_id) == []
    assert list(store.events(entry_id)) == []
    assert store.verify() == []
    backend = store.backend
    assert isinstance(backend, SqliteBackend)
    assert not backend.conn.in_transaction


def test_error_while_appending_events_rolls_back_demotion(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = store.add("a", "the source \0 text", now=NOW)

    real = store.database.exec

    def boom(key: str, **params: Any) -> Any:
        if key.startswith("insert_event"):
            raise RuntimeError("crash while appending events")
        return real(key, **params)

    monkeypatch.setattr(store.database, "exec", boom)
    with pytest.raises(RuntimeError, match="crash"):
        compress(store, entry_id)
    assert_untouched_hot(store, entry_id, "the source \0 text")
    monkeypatch.undo()
    assert compress(store, entry_id)


@pytest.mark.parametrize(
    "failing_step", ["insert_warm", "insert_event_pair", "delete_hot", "set_warm"]
)
def test_sqlite_error_at_each_step_rolls_back(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch, failing_step: str
) -> None:
    entry_id = store.add("a", "source", now=NOW)
    real = store.database.exec

    def flaky(key: str, **params: Any) -> Any:
        if key == failing_step:
            raise sqlite3.OperationalError("disk I/O error")
        return real(key, **params)

    monkeypatch.setattr(store.database, "exec", flaky)
    with pytest.raises(StoreError, match="disk I/O error"):
        compress(store, entry_id)
    monkeypatch.undo()
    assert_untouched_hot(store, entry_id, "source")


def test_failed_outcome_and_restore_roll_back(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_id = store.add("a", "source", now=NOW)
    real = store.database.exec

    def flaky(key: str, **params: Any) -> Any:
        if key in {"set_failed", "set_restored"}:
            raise sqlite3.OperationalError("disk I/O error")
        return real(key, **params)

    monkeypatch.setattr(store.database, "exec", flaky)
    with pytest.raises(StoreError):
        store.apply_failed(
            entry_id,
            expected_attempts=0,
            attempt=clean_attempt(AttemptOutcome.FAILED),
            next_attempt_at=LATER,
            escalate=True,
            events=[NewEvent(EventType.COMPRESSION_FAILURE, {})],
            now=LATER,
        )
    monkeypatch.undo()
    assert_untouched_hot(store, entry_id, "source")
    assert compress(store, entry_id)
    monkeypatch.setattr(store.database, "exec", flaky)
    with pytest.raises(StoreError):
        store.restore(entry_id, LATER)
    monkeypatch.undo()
    assert store.get(entry_id).tier is Tier.WARM
    assert store.read_cold(entry_id) == "source"
    assert store.verify() == []


def test_closed_connection_reports_store_error(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    entry_id = store.add("a", "source", now=NOW)
    store.close()
    with pytest.raises(StoreError):
        compress(store, entry_id)
    with open_store(tmp_path / "m.db") as again:
        assert_untouched_hot(again, entry_id, "source")


CRASH = textwrap.dedent(
    """
    import os, sys
    from datetime import UTC, datetime
    from factdiff.store import AttemptOutcome, AttemptRecord, open_store
    from tests.integration.store_helpers import meta
    now = datetime(2026, 3, 25, tzinfo=UTC)
    store = open_store(sys.argv[1])
    real = store.database.exec
    def dying(key, **params):
        result = real(key, **params)
        if key == sys.argv[3]:
            os._exit(3)
        return result
    store.database.exec = dying
    attempt = AttemptRecord(rung=0, summarizer="s", extractor="e", method_version="1",
        outcome=AttemptOutcome.CLEAN, started_at=now, finished_at=now, duration_ms=1.0)
    store.apply_compressed(sys.argv[2], expected_attempts=0, narrative="n", record={},
        meta=meta(), attempt=attempt, events=[], now=now)
    """
)


@pytest.mark.parametrize("step", ["insert_attempt", "insert_warm", "delete_hot", "set_warm"])
def test_killed_process_mid_demotion_loses_nothing(tmp_path: Path, step: str) -> None:
    path = tmp_path / "m.db"
    with open_store(path) as store:
        entry_id = store.add("a", "source that must survive", now=NOW)
    run = subprocess.run(
        [sys.executable, "-c", CRASH, str(path), entry_id, step],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 3, run.stderr
    with open_store(path) as store:
        assert_untouched_hot(store, entry_id, "source that must survive")
        assert compress(store, entry_id)
        assert store.verify() == []


WORKER = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime, timedelta
    from factdiff.store import AttemptOutcome, AttemptRecord, EventType, NewEvent, open_store
    from tests.integration.store_helpers import meta
    now = datetime(2026, 4, 25, tzinfo=UTC)
    name = sys.argv[2]
    won = 0
    with open_store(sys.argv[1], create=False) as store:
        for i in range(150):
            store.add(name, f"{name} entry {i}", now=now)
        for entry in store.due_for_demotion(now, timedelta(days=14)):
            attempt = AttemptRecord(rung=0, summarizer=name, extractor="e", method_version="1",
                outcome=AttemptOutcome.CLEAN, started_at=now, finished_at=now, duration_ms=1.0)
            won += store.apply_compressed(entry.id, expected_attempts=entry.attempt_count,
                narrative="n", record={}, meta=meta(), attempt=attempt,
                events=[NewEvent(EventType.DEMOTED, {"by": name})], now=now)
    print(won)
    """
)


def test_two_processes_write_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with open_store(path) as store:
        shared = [store.add("shared", f"shared entry {i}", now=NOW) for i in range(200)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), name],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("w1", "w2")
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    won = sum(int(out) for out, _ in outputs)
    assert won == 200
    with open_store(path) as store:
        stats = store.stats()
        assert stats["tiers"] == {"hot": 300, "warm": 200, "cold": 200}
        assert stats["attempts"]["total"] == 200
        for entry_id in shared:
            assert len(store.attempts(entry_id)) == 1
        assert len(list(store.events(type=EventType.DEMOTED))) == 200
        assert store.verify() == []
