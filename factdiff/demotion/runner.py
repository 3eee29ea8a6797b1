"""The demotion runner: a continuous window of claimed entries, each attempted once.

Both ``Demoter.run`` (one pass, then return) and ``Worker.run`` (until stopped) are this
runner: a sequential pass is a window of one. It keeps up to ``concurrency`` entries in
flight on the model loop (``factdiff.providers.runtime``), bounded and fed by the window's
``Gate`` (``factdiff.demotion.window``): as entries finish, the next ones are taken from a batch
claimed ahead, so the window never drains between batches. Each entry is

1. **claimed** through the store's leases (``MemoryStore.claim``): due, dormant, past its
   backoff, and under no live lease, atomically, so concurrent demoters and workers never
   attempt one entry twice or ignore a backoff;
2. **prepared** (``Boundary.prepare``: schema, cached source record, must-keep facts);
3. **attempted** by the attempt engine (no transaction open, CPU work placed by ``Work``;
   with worker processes, a passed summary's warm row is encoded where it is verified);
4. **applied** in one transaction fenced by the lease token (``Boundary.apply``).

Store calls run where the store may be used (``factdiff.demotion.store_calls``), never on the event
loop; times and usage are counted in ``factdiff.demotion.run_stats``. A heartbeat extends every
lease held. Anything unexpected while handling one entry becomes an ``internal`` error attempt and
the window goes on; a provider account failure pauses the run (``DemotionPaused``), in-flight
entries are released unused.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import ParamSpec, Protocol, TypeVar

from factdiff.compression import gc_tuning
from factdiff.compression.engine import AttemptEngine, AttemptRun, Stage
from factdiff.compression.executor import Work
from factdiff.demotion.boundary import Boundary, EntryResult
from factdiff.demotion.run_stats import RunSummary
from factdiff.demotion.store_calls import StoreCalls, grouped
from factdiff.demotion.window import Gate, Ticket
from factdiff.errors import (
    DemotionPaused,
    FactdiffError,
    StoreError,
    one_line,
)
from factdiff.providers import runtime
from factdiff.store import Claim, Entry, MemoryStore

__all__ = ["Handled", "RunOptions", "Runner", "handle_entry", "work_for"]

P = ParamSpec("P")
T = TypeVar("T")
log = logging.getLogger("factdiff.worker")

STOP_CHECK_SECONDS = 0.2
"""How often a full window looks at the stop flag (a signal handler sets it)."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How a run claims and holds entries: what the worker (``WorkerSettings``) or a one-pass
    ``Demoter`` (``DemotionSettings``) resolved, with no defaults of its own."""

    worker_id: str
    concurrency: int
    older_than: timedelta
    lease_seconds: float
    heartbeat_seconds: float
    """Seconds between heartbeats, resolved (``factdiff.settings.heartbeat_every``)."""
    poll_seconds: float | None
    """Wait after a claim found nothing; None: the run ends instead (one pass)."""
    grace_seconds: float
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
        on_claim: Callable[[StoreError | None], None] | None = None,
        finish_times: bool = False,
    ) -> None:
        self.store = store
        self.boundary = boundary
        self.engine = engine
        self.options = options
        self.clock = clock
        self.stop = stop or threading.Event()
        self.on_handled = on_handled
        self.on_claim = on_claim
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
        self._primed: set[str] = set()
        self._priming: set[asyncio.Task[None]] = set()

    # -- the calling thread ----------------------------------------------------------------

    def run(self) -> RunSummary:
        """Run until the pass ends (``poll_seconds`` None) or ``stop`` is set; blocks. With
        more than one entry in flight, the garbage collector is tuned for the pass
        (``factdiff.compression.gc_tuning``)."""
        started = time.perf_counter()
        tuning = gc_tuning.tuned() if self.options.concurrency > 1 else contextlib.nullcontext()
        with tuning:
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
                    taken = await self._take(want)
                    for claim in taken:
                        inflight.add(asyncio.create_task(self._process(claim)))
                    self._prime_dictionaries(taken)
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
            await asyncio.gather(beat, *self._priming, return_exceptions=True)

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
            if self.on_claim is not None:
                self.on_claim(exc)
            if options.poll_seconds is None:
                self._fatal = exc
                return []
            log.warning("claim failed: %s", one_line(exc))
            await self._idle()
            return []
        if self.on_claim is not None:
            self.on_claim(None)
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

    def _prime_dictionaries(self, claims: list[Claim]) -> None:
        """Train the first zstd dictionary of each agent new to this run in a worker process,
        while its first entries wait for their model calls (SQLite, with worker processes);
        else, as before, the agent's first warm write trains it on the store's thread."""
        path = getattr(self.store.backend, "path", None)
        if path is None or not self.engine.work.process_count:
            return
        for claim in claims:
            agent = claim.entry.agent_id
            if agent in self._primed:
                continue
            self._primed.add(agent)
            task = asyncio.create_task(self._prime_dictionary(str(Path(path).resolve()), agent))
            self._priming.add(task)
            task.add_done_callback(self._priming.discard)

    async def _prime_dictionary(self, path: str, agent: str) -> None:
        try:
            await self.engine.work.prime_dictionary(path, agent, self.clock())
        except Exception as exc:  # the first warm write trains it instead
            log.info("agent %s: dictionary not trained ahead: %s", agent, one_line(exc))

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


class StoreCall(Protocol):
    """``calls(function, *args)``: run a store call where the store may be used."""

    def __call__(
        self, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> Awaitable[T]: ...


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
        prepared = await calls(boundary.prepare, entry, now, engine.work.process_count > 0)
    except (StoreError, DemotionPaused):
        raise
    except Exception as exc:  # an unknown schema, a broken record: an internal error
        log.warning("entry %s: cannot prepare: %s", entry.id, one_line(exc))
        return await calls(grouped(boundary.apply_internal), entry, exc, now, lease_token), None
    if prepared.refusal is not None:
        return await calls(grouped(boundary.apply_refusal), prepared, now, lease_token), None
    run = await engine.run(prepared.job(boundary.settings), slot)
    try:
        return await calls(grouped(boundary.apply), prepared, run, now, lease_token), run
    except (StoreError, DemotionPaused):
        raise
    except Exception as exc:
        log.warning("entry %s: cannot apply: %s", entry.id, one_line(exc))
        internal = await calls(
            grouped(boundary.apply_internal), entry, exc, now, lease_token, prepared.schema
        )
        return internal, run


def _no_grace(options: RunOptions) -> RunOptions:
    from dataclasses import replace

    return replace(options, grace_seconds=0.0)


def work_for(concurrency: int, extract_workers: int | None) -> Work:
    """The ``Work`` of a run: inline for one entry at a time, else processes for the offline
    components (``extract_workers``; default one per core) and threads for the rest."""
    from factdiff.compression.executor import default_extract_workers

    if concurrency <= 1:
        return Work.inline()
    processes = default_extract_workers(concurrency) if extract_workers is None else extract_workers
    return Work.processes(processes, threads=min(concurrency, 64))


def describe_failure(exc: BaseException) -> str:
    """One line for a run that could not continue."""
    if isinstance(exc, FactdiffError):
        return str(exc).splitlines()[0]
    return one_line(exc)
