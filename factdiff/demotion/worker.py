"""Demotion workers: claim due entries with a lease, compress, commit fenced by the lease.

::

    worker = Worker("postgresql://db/factdiff", WorkerSettings(concurrency=4, lease_seconds=60))
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    report = worker.run()           # returns after stop(): in-flight work finished or released

A worker is the demotion runner (``factdiff.demotion.runner``) that keeps polling: up to
``concurrency`` entries in flight, each claimed with a lease (one short statement;
``FOR UPDATE SKIP LOCKED`` on PostgreSQL), compressed with no transaction open, and committed
only while its lease holds (a lost lease: the commit is refused, nothing is written, the entry
is claimed again by whoever finds it due). A heartbeat extends every lease in flight.

There is no separate scheduler or queue: "due" is computed at claim time from the entry's
``last_used_at``, ``next_attempt_at``, status and lease, so every worker is also the
scheduler and running it everywhere at once is safe. A crashed worker's leases simply expire.

An unexpected error while handling an entry becomes an ``internal`` error attempt (the window
goes on; repeated ones send the entry to review); a provider account failure (quota,
credentials) pauses the worker. ``WorkerReport.failure`` says why a worker could not go on:
the CLI then exits non-zero. The worker logs its lifecycle at INFO on ``factdiff.demotion.worker``:
start, claims, commits, refused stale commits, pauses, stop (see ``factdiff.ops.logs``).

A worker also drains re-evaluation work (``factdiff.demotion.reevaluation``): a second thread, on
its own store connection, claims pending re-evaluation items with the same leases (token, owner,
expiry on the database clock) and finishes each fenced by its lease, polling like demotion when
there is none; its counts are in ``WorkerReport.reevaluated``. A failure there (a dropped
connection, a server restart) never ends the thread: it closes its store, waits (``Backoff``: from
``poll_seconds``, doubling, at most ``RECONNECT_MAX_SECONDS``), opens the store again and goes on,
as demotion's claims do. ``Worker.health`` (``factdiff.demotion.loop_health``) says whether each
loop is alive and succeeding: the worker's ``/readyz`` and ``/metrics``.

On ``stop()`` (SIGTERM) the worker stops claiming, finishes the entries in hand within
``grace_seconds`` and releases whatever is still in flight after that, so nothing stays
claimed after a clean stop.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from factdiff.compression.engine import AttemptEngine
from factdiff.demotion.boundary import Boundary
from factdiff.demotion.demoter import DemotionSettings
from factdiff.demotion.loop_health import DEMOTION, LOOPS, REEVALUATION, Backoff, LoopHealth
from factdiff.demotion.reevaluation import ReevaluationReport, Reevaluator
from factdiff.demotion.runner import Handled, Runner, RunOptions, describe_failure, work_for
from factdiff.errors import StoreError, UsageError
from factdiff.settings import DEFAULTS, Settings, heartbeat_every
from factdiff.store import MemoryStore, open_store
from factdiff.store.factory import is_postgres

log = logging.getLogger("factdiff.worker")

StoreFactory = Callable[[], MemoryStore]

STORE_THREADS = 8
"""At most this many threads make store calls for a thread-safe (PostgreSQL) store."""
RECONNECT_MAX_SECONDS = 60.0
"""The longest wait of a failing re-evaluation loop before it opens its store again."""
STALE_MIN_SECONDS = 60.0
"""A loop without a success for longer than this (at least) is not ready."""
DEFAULT_CONCURRENCY = 4
"""Entries in flight in a worker when the ``concurrency`` setting is unset (demote: 1)."""


@dataclass(frozen=True)
class WorkerSettings:
    """How a worker claims and holds entries.

    ``lease_seconds`` must exceed the longest compression you expect between two heartbeats;
    ``heartbeat_seconds`` defaults to a third of the lease, so two heartbeats may fail before
    the lease is lost. ``poll_seconds`` is the wait after a claim found nothing.
    ``stale_seconds``: a loop without a success for this long is not ready (default
    ``stale_after``).
    """

    concurrency: int = DEFAULT_CONCURRENCY
    lease_seconds: float = DEFAULTS.lease
    heartbeat_seconds: float | None = DEFAULTS.heartbeat
    poll_seconds: float = DEFAULTS.poll
    grace_seconds: float = DEFAULTS.grace
    agent: str | None = None
    stale_seconds: float | None = None

    @property
    def stale_after(self) -> float:
        """Seconds without a success after which a loop is not ready: ``stale_seconds``, else
        the longest of ``STALE_MIN_SECONDS``, three leases and ten polls."""
        if self.stale_seconds is not None:
            return self.stale_seconds
        return max(STALE_MIN_SECONDS, 3 * self.lease_seconds, 10 * self.poll_seconds)

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats (``factdiff.settings.heartbeat_every``)."""
        return heartbeat_every(self.lease_seconds, self.heartbeat_seconds)

    @classmethod
    def from_settings(cls, settings: Settings, *, agent: str | None = None) -> WorkerSettings:
        """The ``worker`` section of resolved settings, with the ``demotion`` section's
        concurrency (``DEFAULT_CONCURRENCY`` when unset)."""
        worker = settings.worker
        return cls(
            concurrency=settings.demotion.concurrency or DEFAULT_CONCURRENCY,
            lease_seconds=worker.lease,
            heartbeat_seconds=worker.heartbeat,
            poll_seconds=worker.poll,
            grace_seconds=worker.grace,
            agent=agent,
        )


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
    """What one worker did until it stopped; ``failure`` is why it could not go on."""

    counts: Counter[str] = field(default_factory=Counter)
    released: int = 0
    failure: str | None = None
    reevaluated: Counter[str] = field(default_factory=Counter)
    """Re-evaluation items finished, per result (``promoted``, ``annotated``, ...)."""

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
        health: LoopHealth | None = None,
    ) -> None:
        self.settings = settings or WorkerSettings()
        self.health = health or LoopHealth(LOOPS, self.settings.stale_after)
        if self.settings.concurrency < 1:
            raise UsageError("concurrency must be at least 1")
        self.demotion = demotion or DemotionSettings()
        self.worker_id = worker_id or default_worker_id()
        self._on_execution = on_execution
        self._clock = clock or (lambda: datetime.now(UTC))
        threads = min(self.settings.concurrency, STORE_THREADS)
        self._factory: StoreFactory = (
            (lambda: open_store(db, pool_size=threads + 2, application_name="factdiff-worker"))
            if isinstance(db, str) and is_postgres(db)
            else (lambda: open_store(db))
            if isinstance(db, str)
            else db
        )
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self.report = WorkerReport()

    def stop(self) -> None:
        """Ask the worker to stop (safe from a signal handler): no new claims."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stopping.is_set()

    def run(self) -> WorkerReport:
        """Claim and demote until ``stop()``; then finish or release what is in flight."""
        store = self._factory()
        settings = self.settings
        log.info(
            "worker %s started: concurrency %d, lease %gs, store %s",
            self.worker_id,
            settings.concurrency,
            settings.lease_seconds,
            store.location,
        )
        options = RunOptions(
            worker_id=self.worker_id,
            concurrency=settings.concurrency,
            older_than=self.demotion.older_than,
            lease_seconds=settings.lease_seconds,
            heartbeat_seconds=settings.heartbeat_every,
            poll_seconds=settings.poll_seconds,
            grace_seconds=settings.grace_seconds,
            agent=settings.agent,
        )
        work = work_for(settings.concurrency, self.demotion.extract_workers)
        engine = AttemptEngine(self.demotion.extractor, self.demotion.policy, work)
        runner = Runner(
            store,
            Boundary(store, self.demotion),
            engine,
            options,
            clock=self._clock,
            stop=self._stopping,
            on_handled=self._handled,
            on_claim=self._claimed,
            finish_times=self._on_execution is not None,
        )
        reevaluating = threading.Thread(
            target=self._reevaluate, name="factdiff-reevaluate", daemon=True
        )
        reevaluating.start()
        self.health.started(DEMOTION)
        try:
            summary = runner.run()
            self.report.released += summary.released
            if summary.paused is not None:
                self.report.failure = f"paused: {summary.paused}"
            elif summary.failure is not None:
                self.report.failure = summary.failure
        except Exception as exc:  # the run itself broke: this worker cannot go on
            self.report.failure = describe_failure(exc)
            log.error("worker %s cannot continue: %s", self.worker_id, self.report.failure)
        finally:
            self.health.stopped(DEMOTION)
            self._stopping.set()
            reevaluating.join()
            work.close()
            store.close()
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.report.counts.items()))
        log.info(
            "worker %s stopped: %s; released %d",
            self.worker_id,
            counts or "nothing handled",
            self.report.released,
        )
        return self.report

    def _reevaluate(self) -> None:
        """Drain re-evaluation items until ``stop()``, polling when there is none; after a
        failure, wait (``Backoff``) and go on with the store opened again."""
        self.health.started(REEVALUATION)
        backoff = Backoff(self.settings.poll_seconds, RECONNECT_MAX_SECONDS)
        reevaluator: Reevaluator | None = None
        try:
            while not self._stopping.is_set():
                try:
                    if reevaluator is None:
                        reevaluator = self._reevaluator()
                    found = self._reevaluate_once(reevaluator)
                except Exception as exc:  # this loop waits and goes on; demotion goes on
                    if reevaluator is not None:
                        _close_quietly(reevaluator.store)
                        reevaluator = None
                    self._stopping.wait(self._reevaluation_failed(exc, backoff))
                    continue
                if not found:
                    self._stopping.wait(self.settings.poll_seconds)
        finally:
            if reevaluator is not None:
                _close_quietly(reevaluator.store)
            self.health.stopped(REEVALUATION)

    def _reevaluator(self) -> Reevaluator:
        store = self._factory()
        try:
            return Reevaluator(
                store,
                extractor=self.demotion.extractor,
                policy=self.demotion.policy,
                worker_id=self.worker_id,
                lease_seconds=self.settings.lease_seconds,
            )
        except BaseException:
            _close_quietly(store)
            raise

    def _reevaluate_once(self, reevaluator: Reevaluator) -> bool:
        """One run over the pending items; whether it found any. Items finished before a
        failure are counted too."""
        report = ReevaluationReport()
        try:
            reevaluator.run(
                self._clock,
                agent=self.settings.agent,
                stop=self._stopping,
                on_item=lambda _: self.health.succeeded(REEVALUATION),
                report=report,
            )
        finally:
            self._add_reevaluated(report)
        self.health.succeeded(REEVALUATION)
        return bool(report.counts or report.stale)

    def _reevaluation_failed(self, exc: Exception, backoff: Backoff) -> float:
        """Record a failure of the re-evaluation loop; the seconds to wait before retrying."""
        reason = describe_failure(exc)
        failures = self.health.failed(REEVALUATION, reason)
        wait = backoff.delay(failures)
        unexpected = not isinstance(exc, StoreError)
        log.log(
            logging.ERROR if unexpected else logging.WARNING,
            "worker %s: re-evaluation failed (%d in a row): %s; retrying in %gs",
            self.worker_id,
            failures,
            reason,
            wait,
            exc_info=exc if unexpected else None,
        )
        return wait

    def _claimed(self, error: StoreError | None) -> None:
        """The demotion loop's claim worked, or failed with ``error``."""
        if error is None:
            self.health.succeeded(DEMOTION)
        else:
            self.health.failed(DEMOTION, describe_failure(error))

    def _add_reevaluated(self, report: ReevaluationReport) -> None:
        with self._lock:
            self.report.reevaluated.update(report.counts)
            if report.stale:
                self.report.reevaluated["stale"] += report.stale
        if report.counts:
            log.info(
                "worker %s re-evaluated: %s",
                self.worker_id,
                ", ".join(f"{k} {v}" for k, v in sorted(report.counts.items())),
            )

    def _count(self, key: str) -> None:
        with self._lock:
            self.report.counts[key] += 1

    def _handled(self, done: Handled) -> None:
        result = done.result
        if result is None:
            self._count("paused" if done.paused else "store_error")
            if not done.paused:
                self.health.failed(DEMOTION, done.error or "store error")
        else:
            self.health.succeeded(DEMOTION)
            self._count(result.outcome.value if result.applied else "lease_lost")
        if self._on_execution is None:
            return
        self._on_execution(
            Execution(
                done.claim.entry.id,
                done.claim.token,
                self.worker_id,
                done.claim.claimed_at,
                done.expires_at,
                done.finished_at,
                None if result is None else result.outcome.value,
                result is not None and result.applied,
                done.error,
            )
        )


def _close_quietly(store: MemoryStore) -> None:
    """Close ``store``; a store that cannot even close is left to the collector."""
    try:
        store.close()
    except Exception as exc:
        log.warning("closing a store failed: %s", describe_failure(exc))
