"""Demotion workers: claim due entries with a lease, compress, commit fenced by the lease.

::

    worker = Worker("postgresql://db/factdiff", WorkerSettings(concurrency=4, lease_seconds=60))
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    report = worker.run()           # returns after stop(): in-flight work finished or released

Each of ``concurrency`` slots loops: ``claim`` one due entry (one short statement, committed
at once; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), run ``Demoter.demote_entry`` on it with
its lease token (compression runs with no transaction open), and let the fenced
``apply_compressed``/``apply_failed`` commit it. A heartbeat thread extends every in-flight
lease every ``heartbeat_seconds``; a lease that could not be extended is lost, and the slot's
commit will be refused ("lease lost": nothing is written, the attempt's work is dropped and
the entry is claimed again by whoever finds it due).

There is no separate scheduler or queue: "due" is computed at claim time from the entry's
``last_used_at``, ``next_attempt_at``, status and lease, so every worker is also the
scheduler, and running it everywhere at once is safe (``factdiff demote --enqueue`` is not
needed). A crashed worker's leases simply expire and its entries are claimed again.

On ``stop()`` (SIGTERM) slots stop claiming, finish the entry in hand within
``grace_seconds``, and whatever is still in flight after the grace period is released, so
nothing stays claimed after a clean stop.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from factdiff.demote import Demoter, DemotionPaused, DemotionSettings
from factdiff.errors import FactdiffError, StoreError
from factdiff.store import Claim, MemoryStore, open_store

log = logging.getLogger("factdiff.worker")

StoreFactory = Callable[[], MemoryStore]


@dataclass(frozen=True)
class WorkerSettings:
    """How a worker claims and holds entries.

    ``lease_seconds`` must exceed the longest compression you expect between two heartbeats;
    ``heartbeat_seconds`` defaults to a third of the lease, so two heartbeats may fail before
    the lease is lost. ``poll_seconds`` is the wait after a claim found nothing.
    """

    concurrency: int = 4
    lease_seconds: float = 60.0
    heartbeat_seconds: float | None = None
    poll_seconds: float = 1.0
    grace_seconds: float = 30.0
    agent: str | None = None

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats."""
        if self.heartbeat_seconds is not None:
            return self.heartbeat_seconds
        return max(0.05, self.lease_seconds / 3)


@dataclass(frozen=True)
class Execution:
    """One claimed entry as this worker handled it (for logs, metrics and tests).

    ``claimed_at``, ``expires_at`` (the last expiry the database granted, by claim or
    heartbeat) and ``finished_at`` are database-clock times; ``finished_at`` is read just
    after the commit (or refusal) returned, so the lease was held at most until
    ``min(expires_at, finished_at)``.
    """

    entry_id: str
    token: str
    worker_id: str
    claimed_at: datetime
    expires_at: datetime
    finished_at: datetime | None
    outcome: str | None
    applied: bool
    error: str | None = None


@dataclass
class WorkerReport:
    """What one worker did until it stopped."""

    counts: Counter[str] = field(default_factory=Counter)
    released: int = 0

    @property
    def processed(self) -> int:
        """Entries claimed and handled (applied, refused or failed)."""
        return sum(v for k, v in self.counts.items() if k not in {"lease_lost", "store_error"})


def default_worker_id() -> str:
    """``host:pid``, unique among live workers."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Worker:
    """Claims and demotes due entries until ``stop()``; see the module docstring."""

    def __init__(
        self,
        db: str | StoreFactory,
        settings: WorkerSettings | None = None,
        demotion: DemotionSettings | None = None,
        *,
        worker_id: str | None = None,
        on_execution: Callable[[Execution], None] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings or WorkerSettings()
        if self.settings.concurrency < 1:
            raise FactdiffError("concurrency must be at least 1")
        self.demotion = demotion or DemotionSettings()
        self.worker_id = worker_id or default_worker_id()
        self._on_execution = on_execution
        self._clock = clock or (lambda: datetime.now(UTC))
        pool = self.settings.concurrency + 2
        self._factory: StoreFactory = (
            (lambda: open_store(db, pool_size=pool, application_name="factdiff-worker"))
            if isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))
            else (lambda: open_store(db))
            if isinstance(db, str)
            else db
        )
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._inflight: dict[str, Claim] = {}
        self._granted: dict[str, datetime] = {}
        self._lost: set[str] = set()
        self.report = WorkerReport()

    # -- control ---------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask the worker to stop (safe from a signal handler): no new claims."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stopping.is_set()

    def run(self) -> WorkerReport:
        """Run the slots and the heartbeat until ``stop()``; then finish or release."""
        main_store = self._factory()
        shared = main_store if main_store.thread_safe else None
        slots_done = threading.Event()
        threads = [
            threading.Thread(target=self._slot, args=(shared, i), name=f"slot-{i}", daemon=True)
            for i in range(self.settings.concurrency)
        ]
        beat = threading.Thread(
            target=self._heartbeat, args=(shared, slots_done), name="heartbeat", daemon=True
        )
        try:
            for thread in threads:
                thread.start()
            beat.start()
            while not self._stopping.wait(0.2):
                if not any(t.is_alive() for t in threads):  # pragma: no cover - slots crashed
                    break
            deadline = time.monotonic() + self.settings.grace_seconds
            for thread in threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            self._release_inflight(main_store)
            slots_done.set()
            beat.join(self.settings.heartbeat_every + 5)
        finally:
            self._stopping.set()
            slots_done.set()
            main_store.close()
        return self.report

    # -- internals -------------------------------------------------------------------------

    def _count(self, key: str) -> None:
        with self._lock:
            self.report.counts[key] += 1

    def _slot(self, shared: MemoryStore | None, index: int) -> None:
        try:
            store = shared or self._factory()
        except FactdiffError as exc:
            log.error("slot %d cannot open the store: %s", index, exc)
            self._count("store_error")
            return
        demoter = Demoter(store, self.demotion)
        try:
            while not self._stopping.is_set():
                try:
                    claims = store.claim(
                        self.worker_id,
                        older_than=self.demotion.older_than,
                        lease_seconds=self.settings.lease_seconds,
                        limit=1,
                        agent=self.settings.agent,
                    )
                except StoreError as exc:
                    log.warning("claim failed: %s", exc)
                    self._count("store_error")
                    self._stopping.wait(self.settings.poll_seconds)
                    continue
                if not claims:
                    self._stopping.wait(self.settings.poll_seconds)
                    continue
                for claim in claims:
                    self._handle(store, demoter, claim)
        finally:
            if shared is None:
                store.close()

    def _handle(self, store: MemoryStore, demoter: Demoter, claim: Claim) -> None:
        token = claim.token
        with self._lock:
            self._inflight[token] = claim
            self._granted[token] = claim.expires_at
        outcome: str | None = None
        applied = False
        error: str | None = None
        try:
            result = demoter.demote_entry(claim.entry, self._clock(), lease_token=token)
            outcome, applied = result.outcome.value, result.applied
            if applied:
                self._count(outcome)
            else:
                self._count("lease_lost")
                log.warning("lease lost on entry %s: outcome not committed", claim.entry.id)
        except DemotionPaused as exc:
            error = str(exc)
            self._count("paused")
            log.error("pausing the worker pool: %s", exc)
            self._stopping.set()
            with contextlib.suppress(StoreError):  # else the lease expires on its own
                store.release(token)
        except StoreError as exc:
            error = str(exc)
            self._count("store_error")
            log.warning("entry %s: store error, its lease will expire: %s", claim.entry.id, exc)
        finally:
            with self._lock:
                self._inflight.pop(token, None)
                expires = self._granted.pop(token, claim.expires_at)
                self._lost.discard(token)
        if self._on_execution is not None:
            try:
                finished: datetime | None = store.db_now()
            except StoreError:
                finished = None
            self._on_execution(
                Execution(
                    claim.entry.id,
                    token,
                    self.worker_id,
                    claim.claimed_at,
                    expires,
                    finished,
                    outcome,
                    applied,
                    error,
                )
            )

    def _heartbeat(self, shared: MemoryStore | None, done: threading.Event) -> None:
        try:
            store = shared or self._factory()
        except FactdiffError as exc:  # pragma: no cover - the slots report it too
            log.error("heartbeat cannot open the store: %s", exc)
            return
        try:
            self._beat(store, done)
        finally:
            if shared is None:
                store.close()

    def _beat(self, store: MemoryStore, done: threading.Event) -> None:
        every = self.settings.heartbeat_every
        while not done.wait(every):
            with self._lock:
                tokens = [t for t in self._inflight if t not in self._lost]
            for token in tokens:
                try:
                    expiry = store.heartbeat(token, self.settings.lease_seconds)
                except StoreError as exc:
                    log.warning("heartbeat failed: %s", exc)
                    continue
                with self._lock:
                    if expiry is None:
                        self._lost.add(token)
                    elif token in self._granted:
                        self._granted[token] = expiry

    def _release_inflight(self, store: MemoryStore) -> None:
        with self._lock:
            tokens = list(self._inflight)
        for token in tokens:
            try:
                if store.release(token):
                    self.report.released += 1
            except StoreError as exc:  # pragma: no cover - the lease will expire instead
                log.warning("release failed (the lease will expire): %s", exc)
