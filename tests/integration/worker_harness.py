"""A demotion worker process for the worker tests: scripted model latency, everything logged.

``python -m tests.integration.worker_harness DB LOG WORKER_ID [latency_ms lease_s concurrency]``
runs a ``factdiff.demotion.worker.Worker`` until SIGTERM and appends one JSON line to LOG per event,
first-hand, as it happens (so a SIGKILLed worker leaves its leases behind in the log):

* ``claim``: a lease the store granted (entry, token, database-clock claim time and expiry);
* ``heartbeat``: a lease extended (token, new expiry);
* ``model_call``: the scripted model started summarizing an entry (the worker is now inside
  its model call, holding a lease and no transaction);
* ``stopped_in_commit``: see ``FACTDIFF_TEST_STOP_IN_COMMIT`` below;
* ``execution``: an entry handled (outcome, whether it was applied, error, finish time).

Environment (the test's hooks, at the process boundary):

* ``FACTDIFF_TEST_APP``: the PostgreSQL ``application_name`` of the worker's connections
  (default ``factdiff-worker``), so a test can find exactly its own sessions;
* ``FACTDIFF_TEST_IDLE_TX``: seconds after which the server ends a session left idle inside
  a transaction (default: the store's 5 s);
* ``FACTDIFF_TEST_STOP_IN_COMMIT=1``: inside the first outcome transaction, right after the
  fenced update took the entry's row lock, the process logs ``stopped_in_commit`` and
  SIGSTOPs itself (a frozen VM or a debugger at the worst moment).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.demotion.worker import Execution, Worker, WorkerSettings
from factdiff.store import Claim, MemoryStore, SqliteStore, is_postgres
from factdiff.store.database import Database
from factdiff.summarize import ExtractiveSummarizer, Summary, SummaryRequest

Log = Callable[[dict[str, Any]], None]


def text_key(text: str) -> str:
    """How a ``model_call`` line names the entry text it summarizes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class SlowSummarizer:
    """The extractive summarizer behind a scripted model latency; logs each call."""

    identity = "extractive"

    def __init__(self, latency_s: float, log: Log | None = None) -> None:
        self._inner = ExtractiveSummarizer()
        self._latency = latency_s
        self._log = log
        self.method_version = self._inner.method_version

    def summarize(self, request: SummaryRequest) -> Summary:
        if self._log is not None:
            self._log({"kind": "model_call", "text": text_key(request.text)})
        time.sleep(self._latency)
        return self._inner.summarize(request)


def demotion_settings(latency_s: float, log: Log | None = None) -> DemotionSettings:
    slow = SlowSummarizer(latency_s, log)
    return DemotionSettings(
        older_than=timedelta(days=1),
        ladder=(
            Rung(slow, budget_ratio=0.35, strictness=0),
            Rung(slow, budget_ratio=0.6, strictness=1),
            Rung(slow, budget_ratio=1.0, strictness=2),
        ),
        retry=RetryPolicy(
            max_attempts=3, base_delay=timedelta(seconds=1), max_delay=timedelta(seconds=1)
        ),
    )


def execution_json(e: Execution) -> dict[str, Any]:
    return {
        "kind": "execution",
        "entry": e.entry_id,
        "token": e.token,
        "worker": e.worker_id,
        "claimed": e.claimed_at.timestamp(),
        "expires": e.expires_at.timestamp(),
        "finished": None if e.finished_at is None else e.finished_at.timestamp(),
        "outcome": e.outcome,
        "applied": e.applied,
        "error": e.error,
    }


class LoggedLeases:
    """Store mixin: every granted claim and heartbeat is logged the moment it returns."""

    log: Log = staticmethod(lambda line: None)  # replaced once the store is open
    stop_in_commit: bool = False

    def claim(self, worker_id: str, **options: Any) -> list[Claim]:
        claims: list[Claim] = super().claim(worker_id, **options)  # type: ignore[misc]
        for c in claims:
            self.log(
                {
                    "kind": "claim",
                    "entry": c.entry.id,
                    "token": c.token,
                    "claimed": c.claimed_at.timestamp(),
                    "expires": c.expires_at.timestamp(),
                }
            )
        return claims

    def heartbeat(self, token: str, lease_seconds: float = 60.0) -> datetime | None:
        expiry: datetime | None = super().heartbeat(token, lease_seconds)  # type: ignore[misc]
        if expiry is not None:
            self.log({"kind": "heartbeat", "token": token, "expires": expiry.timestamp()})
        return expiry

    def hook_commit(self, database: Database) -> None:
        """Stop in the first outcome transaction when armed: the attempt's row is written
        right after the fenced update took the entry's row lock."""
        real = database.exec

        def exec_(key: str, **params: Any) -> Any:
            if key == "insert_attempt" and self.stop_in_commit:
                self.stop_in_commit = False
                self.log({"kind": "stopped_in_commit", "entry": params.get("entry_id")})
                os.kill(os.getpid(), signal.SIGSTOP)
            return real(key, **params)

        setattr(database, "exec", exec_)  # noqa: B010 - a fault hook on this store's database


class LoggedSqliteStore(LoggedLeases, SqliteStore):
    """``SqliteStore`` with its leases logged."""


def store_factory(db: str, concurrency: int, log: Log) -> Callable[[], MemoryStore]:
    """Stores for the worker: its own application name and idle-transaction timeout on
    PostgreSQL, claims and heartbeats logged, the stop-in-commit hook armed once."""
    armed = {"stop": os.environ.get("FACTDIFF_TEST_STOP_IN_COMMIT") == "1"}
    lock = threading.Lock()

    def arm(store: LoggedLeases, database: Database) -> None:
        with lock:
            store.stop_in_commit, armed["stop"] = armed["stop"], False
        store.log = log
        store.hook_commit(database)

    if is_postgres(db):
        from factdiff.store.postgres import PostgresStore

        class LoggedPostgresStore(LoggedLeases, PostgresStore):
            """``PostgresStore`` with its leases logged."""

        def open_postgres() -> MemoryStore:
            options: dict[str, Any] = {
                "pool_size": concurrency + 2,
                "application_name": os.environ.get("FACTDIFF_TEST_APP", "factdiff-worker"),
            }
            if os.environ.get("FACTDIFF_TEST_IDLE_TX"):
                options["idle_in_transaction_timeout"] = float(os.environ["FACTDIFF_TEST_IDLE_TX"])
            store = LoggedPostgresStore.connect(db, **options)
            assert isinstance(store, LoggedLeases)
            arm(store, store.database)
            return store

        return open_postgres

    def open_sqlite() -> MemoryStore:
        store = LoggedSqliteStore.connect(db)
        assert isinstance(store, LoggedLeases)
        arm(store, store.database)
        return store

    return open_sqlite


def main(argv: list[str]) -> int:
    db, log_path, worker_id = argv[0], Path(argv[1]), argv[2]
    latency = float(argv[3]) / 1000 if len(argv) > 3 else 0.005
    lease = float(argv[4]) if len(argv) > 4 else 2.0
    concurrency = int(argv[5]) if len(argv) > 5 else 2
    handle = log_path.open("a", encoding="utf-8")
    lock = threading.Lock()

    def log(line: dict[str, Any]) -> None:
        with lock:
            handle.write(json.dumps({"worker": worker_id, **line}) + "\n")
            handle.flush()

    settings = WorkerSettings(
        concurrency=concurrency, lease_seconds=lease, poll_seconds=0.05, grace_seconds=10
    )
    worker = Worker(
        store_factory(db, concurrency, log),
        settings,
        demotion_settings(latency, log),
        worker_id=worker_id,
        on_execution=lambda e: log(execution_json(e)),
    )
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    report = worker.run()
    handle.close()
    print(json.dumps({"counts": dict(report.counts), "released": report.released}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
