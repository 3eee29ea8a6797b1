"""Where an attempt's CPU work runs: inline, in threads, or in a pool of processes.

The attempt engine awaits every stage. Model components (``aextract`` / ``asummarize``) are
awaited on the model loop; the CPU-bound stages (offline extraction, offline summarizing,
the diff) go where the run's ``Work`` puts them:

* ``Work.inline()``: the offline components factdiff ships are called directly on the loop.
  One entry at a time (``compress``, a sequential demotion pass) has nothing to overlap, so
  this is the cheapest. Every other blocking component (a user's summarizer) runs in a thread
  even here: it could block for long, and the loop keeps the leases' heartbeats going.
* ``Work.threads(n)``: a thread pool of ``n`` for blocking components that are not ours (a
  user's summarizer: their waits overlap), and one thread for the offline components
  factdiff ships (pure Python: more threads would only contend for the GIL).
* ``Work.processes(n, threads)``: the offline components factdiff ships (the rules
  extractor, the extractive and naive summarizers) and ``verify`` run in ``n`` worker
  processes, so extraction uses other cores and never stalls the loop that keeps many model
  calls in flight; anything else falls back to the threads. The calls made in one turn of
  the event loop go to the processes as a few tasks (``process_pool.Batcher``), not one
  task each.

The pools, their batches and what crosses the process boundary: ``process_pool``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from datetime import date, datetime
from typing import TYPE_CHECKING, TypeVar, TypeVarTuple

from factdiff.compression import process_pool
from factdiff.compression.verification import (
    Verification,
    extract_summary_and_verify,
    verified_in_process,
    verify_narrative,
)
from factdiff.compression.warm_encoding import prime_dictionary
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import Summarizer, Summary, SummaryRequest
from factdiff.summarize.extractive import ExtractiveSummarizer
from factdiff.summarize.naive import NaiveSummarizer
from factdiff.verify.policy import Policy

if TYPE_CHECKING:
    from factdiff.store.warm_columns import WarmTarget

__all__ = ["Work", "default_extract_workers"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

PORTABLE = (RulesExtractor, ExtractiveSummarizer, NaiveSummarizer)
"""Components that are pure functions of their input: safe to run in another process."""


POOL_FROM_CONCURRENCY = 8
"""With this many entries in flight or more, offline extraction gets worker processes by
default: fewer leave the loop idle most of the time, and a process costs about a second of
start-up and 100 MB."""


def default_extract_workers(concurrency: int) -> int:
    """Worker processes when unset: one per core (at most 8) from ``POOL_FROM_CONCURRENCY``
    entries in flight, else none."""
    if concurrency < POOL_FROM_CONCURRENCY:
        return 0
    return max(1, min(os.cpu_count() or 1, 8))


def _extract(
    extractor: Extractor, text: str, schema: FactSchema, reference: date | None
) -> FactRecord:
    return extractor.extract(text, schema, reference)


def _summarize(summarizer: Summarizer, request: SummaryRequest) -> Summary:
    return summarizer.summarize(request)


class Work:
    """Where CPU-bound stages run (see the module docstring). Close it when done."""

    def __init__(self, processes: int = 0, threads: int = 0) -> None:
        self._processes = processes
        self._threads = threads
        self._thread_pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._cpu_pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._batcher = process_pool.Batcher(processes) if processes else None
        self._primed: dict[str, tuple[int, bytes]] = {}
        """Agents' dictionaries trained ahead by ``prime_dictionary`` (id and bytes)."""
        self._priming: dict[str, asyncio.Event] = {}
        """Agents whose ``prime_dictionary`` is running: set when it ends."""

    @classmethod
    def inline(cls) -> Work:
        """Everything on the calling loop."""
        return cls()

    @classmethod
    def threads(cls, count: int = 8) -> Work:
        """Blocking stages in a pool of ``count`` threads."""
        return cls(threads=max(1, count))

    @classmethod
    def processes(cls, count: int, threads: int = 8) -> Work:
        """Portable stages in ``count`` processes (0: none), the rest in ``threads``."""
        return cls(processes=max(0, count), threads=max(1, threads))

    @property
    def process_count(self) -> int:
        """How many worker processes this work may use."""
        return self._processes

    def close(self) -> None:
        """Stop the thread pool (waits for running calls); process pools stay shared."""
        for pool in (self._thread_pool, self._cpu_pool):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._thread_pool = self._cpu_pool = None

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (for CPU accounting in benchmarks)."""
        pool = process_pool.running_pool(self._processes)
        processes = getattr(pool, "_processes", None) or {}
        return [int(pid) for pid in processes]

    # -- stages ----------------------------------------------------------------------------

    async def extract(
        self, extractor: Extractor, text: str, schema: FactSchema, reference: date | None
    ) -> FactRecord:
        """``extractor``'s record of ``text``."""
        native = getattr(extractor, "aextract", None)
        if native is not None:
            record: FactRecord = await native(text, schema, reference)
            return record
        return await self._call(extractor, _extract, extractor, text, schema, reference)

    async def summarize(self, summarizer: Summarizer, request: SummaryRequest) -> Summary:
        """``summarizer``'s summary for ``request``."""
        native = getattr(summarizer, "asummarize", None)
        if native is not None:
            summary: Summary = await native(request)
            return summary
        return await self._call(summarizer, _summarize, summarizer, request)

    async def verify_summary(
        self,
        extractor: Extractor,
        narrative: str,
        source_facts: FactRecord,
        schema: FactSchema,
        policy: Policy,
        warm: WarmTarget | None = None,
        source_text: str | None = None,
    ) -> Verification:
        """Extract ``narrative`` with ``extractor`` and verify it against the source's
        record (and the source as written, ``source_text``, when given); in a worker
        process, a passed summary's warm body for ``warm`` is made in the same task (none
        elsewhere: the store's thread makes it). A target prepared
        before its agent had a dictionary gets the one ``prime_dictionary`` trained since
        (waiting for it while it runs), so that the body fits the warm write (else the
        store's thread makes it again)."""
        if warm is not None and warm.dictionary is None:
            warm = await self._with_primed_dictionary(warm)
        if getattr(extractor, "aextract", None) is not None:
            summary_facts = await self.extract(extractor, narrative, schema, source_facts.reference)
            checked = verify_narrative(
                narrative, source_facts, summary_facts, schema, policy, source_text
            )
            return Verification.of(checked)
        if self._batcher is not None and isinstance(extractor, PORTABLE):
            return await self._batcher.submit(
                verified_in_process,
                (extractor, narrative, source_facts, schema, policy, warm, source_text),
            )
        checked = await self._call(
            extractor,
            extract_summary_and_verify,
            extractor,
            narrative,
            source_facts,
            schema,
            policy,
            source_text,
        )
        return Verification.of(checked)

    async def prime_dictionary(self, path: str, agent_id: str, now: datetime) -> bool | None:
        """Train ``agent_id``'s first zstd dictionary in the SQLite store at ``path`` in a
        worker process (``MemoryStore.prime_dictionary``), so that the store's own thread
        does not train it on the agent's first warm write; ``None`` (nothing done) without
        worker processes."""
        if not self._processes:
            return None
        loop = asyncio.get_running_loop()
        pool = process_pool.shared_pool(self._processes)
        done = self._priming.setdefault(agent_id, asyncio.Event())
        try:
            found = await loop.run_in_executor(pool, prime_dictionary, path, agent_id, now)
            if found is not None:
                self._primed[agent_id] = found
        except BrokenProcessPool:
            process_pool.discard(self._processes, pool)
            return None
        finally:  # verifications waiting for it go on, with or without a dictionary
            done.set()
            if self._priming.get(agent_id) is done:
                del self._priming[agent_id]
        return found is not None

    async def _with_primed_dictionary(self, warm: WarmTarget) -> WarmTarget:
        """``warm`` with its agent's dictionary trained ahead, once a training in progress
        has ended; unchanged when there is none."""
        running = self._priming.get(warm.agent_id)
        if running is not None:
            await running.wait()
        primed = self._primed.get(warm.agent_id)
        return warm if primed is None else replace(warm, dictionary=primed)

    async def _call(self, component: object, function: Callable[[*Ts], T], *args: *Ts) -> T:
        """``function(*args)`` where ``component`` may run: a module-level function, which
        a worker process can import. In processes, calls are batched
        (``process_pool.Batcher``); a pool that broke is replaced, and the batch that saw it
        break runs in a thread."""
        if self._batcher is not None and isinstance(component, PORTABLE):
            return await self._batcher.submit(function, args)
        if self._threads:
            loop = asyncio.get_running_loop()
            if isinstance(component, PORTABLE):  # pure Python CPU work: threads cannot overlap
                return await loop.run_in_executor(self._cpu_executor(), function, *args)
            return await loop.run_in_executor(self._thread_executor(), function, *args)
        if not isinstance(component, PORTABLE):  # may block for long: never on the loop,
            return await asyncio.to_thread(function, *args)  # whose heartbeats keep leases
        return function(*args)

    def _thread_executor(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._thread_pool is None:
            self._thread_pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=self._threads, thread_name_prefix="factdiff-work"
            )
        return self._thread_pool

    def _cpu_executor(self) -> concurrent.futures.ThreadPoolExecutor:
        """One thread for the offline components without processes: more threads would only
        contend for the GIL and starve the threads that hold store transactions open."""
        if self._cpu_pool is None:
            self._cpu_pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="factdiff-cpu", initializer=process_pool.yield_cpu
            )
        return self._cpu_pool
