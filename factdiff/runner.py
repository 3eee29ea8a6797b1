"""The demotion runner: a continuous window of claimed entries, each attempted once.

Both ``Demoter.run`` (one pass, then return) and ``Worker.run`` (until stopped) are this
runner: a sequential pass is a window of one. It keeps up to ``concurrency`` entries in
flight on the model loop (``factdiff.providers.runtime``): as entries finish, the next ones
are claimed (one statement for every eighth of the window that frees up), so the window
never drains between batches. Each entry is

1. **claimed** through the store's leases (``MemoryStore.claim``): due, dormant, past its
   backoff, and under no live lease, atomically, so concurrent demoters and workers never
   attempt one entry twice or ignore a backoff;
2. **prepared** (``Boundary.prepare``: schema, cached source record, must-keep facts);
3. **attempted** by the attempt engine (no transaction open, CPU work placed by ``Work``);
4. **applied** in one transaction fenced by the lease token (``Boundary.apply``).

Store calls run in the thread that owns the store (a SQLite connection belongs to the thread
that opened it: the caller's), or in a few threads for a thread-safe store (PostgreSQL), never
on the event loop. A heartbeat extends every lease in flight. Anything unexpected while
handling one entry becomes an ``internal`` error attempt and the window goes on; a provider
account failure pauses the run (``DemotionPaused``), in-flight entries are released unused.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import concurrent.futures
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from factdiff.accounting import ModelCall
from factdiff.engine import AttemptEngine, AttemptRun, Stage
from factdiff.errors import (
    DemotionPaused,
    FactdiffError,
    ProviderAccountError,
    StoreError,
    one_line,
)
from factdiff.outcomes import Boundary, EntryResult
from factdiff.providers import runtime
from factdiff.providers.base import Usage
from factdiff.store import Claim, Entry, MemoryStore
from factdiff.work import Work

__all__ = [
    "Handled",
    "RunOptions",
    "RunSummary",
    "Runner",
    "StageClock",
    "StoreCalls",
    "call_here",
    "handle_entry",
]

T = TypeVar("T")
log = logging.getLogger("factdiff.worker")

CLAIM_BATCH = 8
"""Entries leased by one claim statement (the window takes them as it needs them): one commit
per batch instead of one per entry. The heartbeat keeps their leases."""

STOP_CHECK_SECONDS = 0.2
"""How often a full window looks at the stop flag (a signal handler sets it)."""


@dataclass(frozen=True)
class RunOptions:
    """How a run claims and holds entries."""

    worker_id: str
    concurrency: int = 1
    older_than: timedelta = timedelta(days=14)
    lease_seconds: float = 60.0
    heartbeat_seconds: float = 20.0
    poll_seconds: float | None = None
    """Wait after a claim found nothing; None: the run ends instead (one pass)."""
    grace_seconds: float = 30.0
    agent: str | None = None
    limit: int | None = None
    claim_now: datetime | None = None
    """The time dormancy and backoff are judged at (None: the database clock)."""


@dataclass(frozen=True)
class Handled:
    """One claimed entry as the run handled it (``result`` None: nothing was written)."""

    claim: Claim
    result: EntryResult | None
    expires_at: datetime
    """The last lease expiry the database granted (claim or heartbeat)."""
    finished_at: datetime | None
    error: str | None = None
    paused: bool = False
    """A provider account failure stopped the run here (nothing written, lease released)."""


class StageClock:
    """Wall-clock seconds during which at least one entry was in each stage (overlapping
    entries are counted once, so no stage exceeds the run's wall time).

    Per stage, intervals are kept merged and sorted; those that ended ``HORIZON`` seconds
    before the newest one started are folded into a total (no later interval can reach
    back that far), so a worker that runs for days keeps a bounded list.
    """

    HORIZON = 900.0

    def __init__(self) -> None:
        self._spans: dict[str, list[tuple[float, float]]] = {}
        self._folded: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, stage: str, start: float, end: float) -> None:
        """Record that some entry was in ``stage`` from ``start`` to ``end``."""
        with self._lock:
            spans = self._spans.setdefault(stage, [])
            index = bisect.bisect_left(spans, (start, start))
            if index > 0 and spans[index - 1][1] >= start:
                index -= 1
                start = spans[index][0]
            stop = index
            while stop < len(spans) and spans[stop][0] <= end:
                end = max(end, spans[stop][1])
                stop += 1
            spans[index:stop] = [(start, end)]
            old = 0
            while old < len(spans) and spans[old][1] < start - self.HORIZON:
                old += 1
            if old:
                folded = sum(e - s for s, e in spans[:old])
                self._folded[stage] = self._folded.get(stage, 0.0) + folded
                del spans[:old]

    def seconds(self, *stages: str) -> float:
        """The union of the intervals of ``stages``."""
        with self._lock:
            if len(stages) == 1:
                spans = self._spans.get(stages[0], [])
                return self._folded.get(stages[0], 0.0) + sum(e - s for s, e in spans)
            merged = StageClock()
            for stage in stages:
                for start, end in self._spans.get(stage, []):
                    merged.add("all", start, end)
            folded = sum(self._folded.get(stage, 0.0) for stage in stages)
        return folded + merged.seconds("all")


@dataclass
class RunSummary:
    """Where a run's time and money went; ``paused`` / ``failure`` say why it stopped early."""

    wall_seconds: float = 0.0
    stages: StageClock = field(default_factory=StageClock)
    usage: dict[tuple[str, str], Usage] = field(default_factory=dict)
    released: int = 0
    paused: str | None = None
    failure: str | None = None

    def add_calls(self, calls: list[ModelCall]) -> None:
        """Count model calls per (model, role)."""
        for call in calls:
            self.usage.setdefault((call.model, call.role), Usage()).record(call)

    def seconds(self) -> dict[str, float]:
        """``wall`` and the busy wall time of each stage (see ``StageClock``)."""
        clock = self.stages
        return {
            "wall": self.wall_seconds,
            "extract": clock.seconds("extract"),
            "summarize": clock.seconds("summarize"),
            "verify": clock.seconds("verify"),
            "summarize+verify": clock.seconds("summarize", "verify"),
            "sql": clock.seconds("sql"),
        }

    def usage_json(self) -> list[dict[str, Any]]:
        """Per model and role: calls, HTTP requests, tokens, cost (None when unknown)."""
        return [
            {"model": model, "role": role, **usage.snapshot()}
            for (model, role), usage in sorted(self.usage.items())
        ]


class StoreCalls:
    """Runs store calls where the store may be used, timing them as the ``sql`` stage.

    A store that is not thread-safe (SQLite) is served by the thread that runs
    ``serve_until``, the one that opened it; a thread-safe one by a small thread pool.
    """

    def __init__(self, store: MemoryStore, clock: StageClock, threads: int = 4) -> None:
        self._clock = clock
        self._queue: queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Any] | None] = (
            queue.SimpleQueue()
        )
        self._pool = (
            concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="factdiff-store")
            if store.thread_safe
            else None
        )

    async def __call__(self, function: Callable[..., T], *args: Any) -> T:
        future: concurrent.futures.Future[T]
        if self._pool is not None:
            future = self._pool.submit(self._timed, function, *args)
        else:
            future = concurrent.futures.Future()
            self._queue.put((future, lambda: self._timed(function, *args)))
        return await asyncio.wrap_future(future)

    def _timed(self, function: Callable[..., T], *args: Any) -> T:
        started = time.perf_counter()
        try:
            return function(*args)
        finally:
            self._clock.add("sql", started, time.perf_counter())

    def serve_until(self, main: concurrent.futures.Future[Any]) -> None:
        """Run queued store calls in this thread until ``main`` is done."""
        main.add_done_callback(lambda _: self._queue.put(None))
        while True:
            item = self._queue.get()
            if item is None:
                if main.done():
                    break
                continue
            future, call = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:
                future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise

    def close(self) -> None:
        """Stop the pool (a thread-safe store's)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)


class Runner:
    """One run over one store (see the module docstring)."""

    def __init__(
        self,
        store: MemoryStore,
        boundary: Boundary,
        engine: AttemptEngine,
        options: RunOptions,
        *,
        clock: Callable[[], datetime],
        stop: threading.Event | None = None,
        on_handled: Callable[[Handled], None] | None = None,
        finish_times: bool = False,
    ) -> None:
        self.store = store
        self.boundary = boundary
        self.engine = engine
        self.options = options
        self.clock = clock
        self.stop = stop or threading.Event()
        self.on_handled = on_handled
        self.finish_times = finish_times
        self.summary = RunSummary()
        self.calls = StoreCalls(store, self.summary.stages, threads=min(options.concurrency, 8))
        self.gate = Gate(options.concurrency)
        self._expiry: dict[str, datetime] = {}
        self._lost: set[str] = set()
        self._claimed = 0
        self._pending: collections.deque[Claim] = collections.deque()
        self._seen: set[str] = set()
        self._exhausted = False
        self._fatal: BaseException | None = None

    # -- the calling thread ----------------------------------------------------------------

    def run(self) -> RunSummary:
        """Run until the pass ends (``poll_seconds`` None) or ``stop`` is set; blocks."""
        started = time.perf_counter()
        main = runtime.submit(self._main())
        try:
            self._serve(main)
            main.result()
        finally:
            self.calls.close()
            self.summary.wall_seconds = time.perf_counter() - started
        if self._fatal is not None:
            raise self._fatal
        return self.summary

    def _serve(self, main: concurrent.futures.Future[None]) -> None:
        try:
            if self.store.thread_safe:
                while not main.done():
                    try:
                        main.result(timeout=0.5)
                    except concurrent.futures.TimeoutError:
                        continue
                    except BaseException:
                        break
            else:
                self.calls.serve_until(main)
        except KeyboardInterrupt:
            self.stop.set()
            self.options = _no_grace(self.options)
            self._serve(main)
            raise

    # -- the model loop --------------------------------------------------------------------

    async def _main(self) -> None:
        inflight: set[asyncio.Task[None]] = set()
        beat = asyncio.create_task(self._heartbeat())
        gate = self.gate
        try:
            while not self._stopping():
                want = gate.wanted(len(inflight))
                if want:
                    for claim in await self._take(want):
                        inflight.add(asyncio.create_task(self._process(claim)))
                if not inflight:
                    if self._exhausted or self.options.poll_seconds is None:
                        break
                    await self._idle()
                    continue
                hungry = gate.wanted(len(inflight)) and not (self._exhausted and not self._pending)
                poll = self.options.poll_seconds
                entered = asyncio.create_task(gate.entered.wait())
                done, _ = await asyncio.wait(
                    {*inflight, entered},
                    timeout=poll if hungry and poll is not None else STOP_CHECK_SECONDS,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                entered.cancel()
                gate.entered.clear()
                inflight -= done
            await self._wind_down(inflight)
        finally:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)

    def _stopping(self) -> bool:
        return self.stop.is_set() or self._fatal is not None or self.summary.paused is not None

    async def _idle(self) -> None:
        poll = self.options.poll_seconds or 0.0
        deadline = time.monotonic() + poll
        while not self._stopping() and time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, poll))

    async def _wind_down(self, inflight: set[asyncio.Task[None]]) -> None:
        """Let in-flight entries finish within the grace period; release the rest unused."""
        while self._pending:  # claimed, never started
            claim = self._pending.popleft()
            self._expiry.pop(claim.token, None)
            await self._release(claim.token)
            self.summary.released += 1
        if not inflight:
            return
        grace = 0.0 if self.summary.paused or self._fatal else self.options.grace_seconds
        if grace > 0:
            _, pending = await asyncio.wait(inflight, timeout=grace)
        else:
            pending = inflight
        for task in pending:
            task.cancel()
        await asyncio.gather(*inflight, return_exceptions=True)

    async def _take(self, want: int) -> list[Claim]:
        """Up to ``want`` claimed entries: from the ones claimed ahead, else one statement
        claims a batch of them (``CLAIM_BATCH``, or more for a wider window)."""
        if not self._pending and not self._exhausted:
            self._pending.extend(await self._claim(max(want, self.gate.claim_size)))
        taken: list[Claim] = []
        while self._pending and len(taken) < want:
            taken.append(self._pending.popleft())
        return taken

    async def _claim(self, room: int) -> list[Claim]:
        options = self.options
        if options.limit is not None:
            room = min(room, options.limit - self._claimed)
            if room <= 0:
                self._exhausted = True
                return []
        try:
            claims = await self.calls(
                lambda: self.store.claim(
                    options.worker_id,
                    now=options.claim_now,
                    older_than=options.older_than,
                    lease_seconds=options.lease_seconds,
                    limit=room,
                    agent=options.agent,
                )
            )
        except StoreError as exc:
            if options.poll_seconds is None:
                self._fatal = exc
                return []
            log.warning("claim failed: %s", one_line(exc))
            await self._idle()
            return []
        fresh: list[Claim] = []
        for claim in claims:
            if claim.entry.id in self._seen:  # due again within this pass: not twice
                await self._release(claim.token)
                self._exhausted = options.poll_seconds is None
                continue
            if options.poll_seconds is None:
                self._seen.add(claim.entry.id)
            self._expiry[claim.token] = claim.expires_at
            fresh.append(claim)
            log.info(
                "claimed entry %s (attempt %d, lease %s)",
                claim.entry.id,
                claim.entry.attempt_count + claim.entry.error_attempts + 1,
                claim.token[:8],
            )
        self._claimed += len(fresh)
        if len(claims) < room and options.poll_seconds is None:
            self._exhausted = True  # nothing else is due now: the pass ends with its window
        return fresh

    async def _process(self, claim: Claim) -> None:
        token = claim.token
        result: EntryResult | None = None
        error: str | None = None
        paused = False
        ticket = self.gate.queue()
        try:
            result = await self._attempt(claim, ticket)
        except asyncio.CancelledError:
            await self._release(token)
            self.summary.released += 1
            raise
        except DemotionPaused as exc:
            self.summary.paused = str(exc)
            log.error("pausing: %s", exc)
            error, paused = str(exc), True
        except StoreError as exc:
            error = one_line(exc)
            log.warning("entry %s: store error, its lease will expire: %s", claim.entry.id, error)
            if self.options.poll_seconds is None:
                self._fatal = exc
        except Exception as exc:  # recording the internal error failed too: stop
            error = one_line(exc)
            log.error("entry %s: cannot record the error: %s", claim.entry.id, error)
            self.summary.failure = f"cannot record an error attempt: {error}"
            self._fatal = exc
        finally:
            ticket.leave()
            expires = self._expiry.pop(token, claim.expires_at)
            self._lost.discard(token)
        self._log(claim, result)
        if self.on_handled is not None:
            finished = await self._finish_time() if self.finish_times else None
            self.on_handled(Handled(claim, result, expires, finished, error, paused))

    async def _attempt(self, claim: Claim, ticket: Ticket) -> EntryResult:
        result, run = await handle_entry(
            self.calls, self.boundary, self.engine, claim.entry, self.clock(), claim.token, ticket
        )
        if run is not None:
            self._account(run)
        return result

    def _account(self, run: AttemptRun) -> None:
        stages: tuple[Stage, ...] = run.stages
        for name, start, end in stages:
            self.summary.stages.add(name, start, end)
        self.summary.add_calls(run.usage.records)

    def _log(self, claim: Claim, result: EntryResult | None) -> None:
        if result is None:
            return
        if not result.applied:
            log.warning("refused stale commit on entry %s (lease lost)", claim.entry.id)
            return
        detail = f" ({result.failure_class})" if result.failure_class else ""
        review = ", sent to review" if result.escalated else ""
        log.info("committed entry %s: %s%s%s", claim.entry.id, result.outcome.value, detail, review)

    async def _finish_time(self) -> datetime | None:
        try:
            return await self.calls(self.store.db_now)
        except StoreError:
            return None

    async def _release(self, token: str) -> None:
        with contextlib.suppress(StoreError, asyncio.CancelledError):  # else it expires
            await asyncio.shield(self.calls(self.store.release, token))

    async def _heartbeat(self) -> None:
        every = self.options.heartbeat_seconds
        while True:
            await asyncio.sleep(every)
            for token in [t for t in self._expiry if t not in self._lost]:
                try:
                    expiry = await self.calls(
                        self.store.heartbeat, token, self.options.lease_seconds
                    )
                except StoreError as exc:
                    log.warning("heartbeat failed: %s", one_line(exc))
                    continue
                if expiry is None:
                    self._lost.add(token)
                    log.warning("lease %s lost before its commit", token[:8])
                elif token in self._expiry:
                    self._expiry[token] = expiry


StoreCall = Callable[..., Awaitable[Any]]


class Ticket:
    """One entry's place in the ``Gate``: queued until it holds a summarizer slot."""

    def __init__(self, gate: Gate) -> None:
        self._gate = gate
        self._queued = True
        gate.waiting += 1

    def leave(self) -> None:
        """No longer waiting for a slot (it got one, or it will never need one)."""
        if self._queued:
            self._queued = False
            self._gate.waiting -= 1
            self._gate.entered.set()

    async def __aenter__(self) -> Ticket:
        await self._gate.slots.acquire()
        if self._gate.closed:  # a provider account failure: no more model calls
            self._gate.slots.release()
            raise asyncio.CancelledError
        self.leave()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None and issubclass(kind, ProviderAccountError):
            self._gate.closed = True  # before the slot goes to the next entry
        self._gate.slots.release()


class Gate:
    """The window: at most ``size`` summarizer calls at once, and a few entries claimed,
    prepared and extracted ahead (``prefetch``) so a freed slot is taken at once; the
    entries still verifying and committing after their call are bounded by ``size`` too.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.prefetch = max(1, size // 4)
        self.batch = max(1, self.prefetch // 2)
        """Entries are started when at least this many are wanted."""
        self.claim_size = max(CLAIM_BATCH, self.prefetch)
        """One claim statement leases this many entries (kept until started)."""
        self.slots = asyncio.Semaphore(size)
        self.waiting = 0
        self.entered = asyncio.Event()
        self.closed = False
        """Set by a provider account failure: entries still waiting never call the model."""

    def queue(self) -> Ticket:
        """A ticket for a newly claimed entry."""
        return Ticket(self)

    def wanted(self, inflight: int) -> int:
        """How many entries to claim now (0 until a batch is wanted)."""
        want = min(self.prefetch - self.waiting, 2 * self.size + self.prefetch - inflight)
        return want if want >= min(self.batch, self.prefetch) and want > 0 else 0


async def handle_entry(
    calls: StoreCall,
    boundary: Boundary,
    engine: AttemptEngine,
    entry: Entry,
    now: datetime,
    lease_token: str | None,
    slot: AbstractAsyncContextManager[object] | None = None,
) -> tuple[EntryResult, AttemptRun | None]:
    """Prepare, attempt and apply one entry: the one path every demotion takes.

    ``calls(function, *args)`` runs a store call where the store may be used; ``slot`` is
    held around the summarizer call (the window's bound). An unexpected error while
    preparing or applying becomes an ``internal`` error attempt; store errors and
    ``DemotionPaused`` propagate.
    """
    try:
        prepared = await calls(boundary.prepare, entry, now)
    except (StoreError, DemotionPaused):
        raise
    except Exception as exc:  # an unknown schema, a broken record: an internal error
        log.warning("entry %s: cannot prepare: %s", entry.id, one_line(exc))
        return await calls(boundary.apply_internal, entry, exc, now, lease_token), None
    if prepared.refusal is not None:
        return await calls(boundary.apply_refusal, prepared, now, lease_token), None
    run = await engine.run(prepared.job(boundary.settings), slot)
    try:
        return await calls(boundary.apply, prepared, run, now, lease_token), run
    except (StoreError, DemotionPaused):
        raise
    except Exception as exc:
        log.warning("entry %s: cannot apply: %s", entry.id, one_line(exc))
        internal = await calls(
            boundary.apply_internal, entry, exc, now, lease_token, prepared.schema
        )
        return internal, run


async def call_here(function: Callable[..., T], *args: Any) -> T:
    """A store call in the current thread (the store belongs to it)."""
    return function(*args)


def _no_grace(options: RunOptions) -> RunOptions:
    from dataclasses import replace

    return replace(options, grace_seconds=0.0)


def work_for(concurrency: int, extract_workers: int | None) -> Work:
    """The ``Work`` of a run: inline for one entry at a time, else processes for the offline
    components (``extract_workers``; default one per core) and threads for the rest."""
    from factdiff.work import default_extract_workers

    if concurrency <= 1:
        return Work.inline()
    processes = default_extract_workers(concurrency) if extract_workers is None else extract_workers
    return Work.processes(processes, threads=min(concurrency, 64))


def describe_failure(exc: BaseException) -> str:
    """One line for a run that could not continue."""
    if isinstance(exc, FactdiffError):
        return str(exc).splitlines()[0]
    return one_line(exc)
