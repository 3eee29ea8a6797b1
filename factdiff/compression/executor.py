"""Where an attempt's CPU work runs: inline, in threads, or in a pool of processes.

The attempt engine awaits every stage. Model components (``aextract`` / ``asummarize``) are
awaited on the model loop; the CPU-bound stages (offline extraction, offline summarizing,
the diff) go where the run's ``Work`` puts them:

* ``Work.inline()``: the offline components factdiff ships are called directly on the loop.
  One entry at a time (``compress``, a sequential demotion pass) has nothing to overlap, so
  this is the cheapest. Any other blocking component (a user's summarizer) runs in a thread
  even here: it could block for long, and the loop keeps the leases' heartbeats going.
* ``Work.threads(n)``: a thread pool of ``n`` for blocking components that are not ours (a
  user's summarizer: their waits overlap), and one thread for the offline components
  factdiff ships (pure Python: more threads would only contend for the GIL).
* ``Work.processes(n, threads)``: the offline components factdiff ships (the rules
  extractor, the extractive and naive summarizers) and ``verify`` run in ``n`` worker
  processes, so extraction uses other cores and never stalls the loop that keeps many model
  calls in flight; anything else falls back to the threads. The calls made in one turn of
  the event loop go to the processes as a few tasks (``_Batcher``), not one task each.

Fact records and schemas cross the process boundary with pickle (their read-only mappings
are reduced to dicts and rebuilt). Process pools are shared in the process (one per size,
started on first use, stopped at exit) so consecutive passes do not pay their start-up again;
a pool that broke (a worker process was killed) is replaced, and the call that saw it break
runs in a thread instead.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import copyreg
import multiprocessing
import os
import threading
import time
import types
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from factdiff.compression import gc_tuning
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import Summarizer, Summary, SummaryRequest
from factdiff.summarize.extractive import ExtractiveSummarizer
from factdiff.summarize.naive import NaiveSummarizer
from factdiff.verify.check import CheckResult, verify
from factdiff.verify.diff import FactDiff
from factdiff.verify.policy import Outcome, Policy

if TYPE_CHECKING:
    from factdiff.store.warm_columns import WarmBody, WarmTarget

__all__ = ["Verification", "Work", "default_extract_workers", "shared_pool", "shutdown_pools"]

T = TypeVar("T")

PORTABLE = (RulesExtractor, ExtractiveSummarizer, NaiveSummarizer)
"""Components that are pure functions of their input: safe to run in another process."""


def _mapping(data: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(data)


copyreg.pickle(types.MappingProxyType, lambda proxy: (_mapping, (dict(proxy),)))


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


CPU_NICENESS = 5
"""Offline extraction runs this much nicer than the rest: on a saturated machine the threads
that hold a store transaction or wait for a model answer are scheduled first."""


def _yield_cpu() -> None:
    """Lower this thread's (or process's) scheduling priority, where the OS allows it."""
    with contextlib.suppress(AttributeError, OSError):  # not every OS has per-thread nice
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), CPU_NICENESS)


def _watch_parent(parent: int) -> None:
    """In a worker process: run nicer (``_yield_cpu``), with the garbage collector tuned
    (``gc_tuning.tune_process``), and exit when the parent is gone (killed, crashed), so no
    pool process outlives the demoter or worker that started it."""
    _yield_cpu()
    gc_tuning.tune_process()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="factdiff-parent-watch", daemon=True).start()


def _extract(
    extractor: Extractor, text: str, schema: FactSchema, reference: date | None
) -> FactRecord:
    return extractor.extract(text, schema, reference)


def _summarize(summarizer: Summarizer, request: SummaryRequest) -> Summary:
    return summarizer.summarize(request)


def _extract_summary_and_verify(
    extractor: Extractor,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    policy: Policy,
) -> CheckResult:
    summary_facts = extractor.extract(narrative, schema, source_facts.reference)
    return verify(source_facts, summary_facts, schema, policy)


@dataclass(frozen=True)
class Verification:
    """A summary's verification as ``Work.verify_summary`` gives it: a ``CheckResult``
    without its source record (the caller has it), with the warm body of a passed summary
    when it was made where the summary was verified."""

    outcome: Outcome
    diff: FactDiff
    summary_facts: FactRecord | None
    """The summary's record; ``None`` when ``body`` was made with its index rows: what the
    warm write needs of it, its keys, is in them, so a worker process does not send it back
    (a body that no longer fits is made again, and its narrative extracted again, by the
    store's thread)."""
    notes: tuple[str, ...]
    body: WarmBody | None = None

    @classmethod
    def of(cls, checked: CheckResult) -> Verification:
        """``checked`` without its source record: its summary's record, no warm body."""
        return cls(checked.outcome, checked.diff, checked.summary_facts, checked.notes)


def _verified_in_process(
    extractor: Extractor,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    policy: Policy,
    warm: WarmTarget | None,
) -> Verification:
    checked = _extract_summary_and_verify(extractor, narrative, source_facts, schema, policy)
    if warm is None or not checked.outcome.passed:
        return Verification.of(checked)
    try:
        body = _warm_body(warm, narrative, source_facts, schema, checked.summary_facts)
    except Exception:  # the store's thread makes it again, and reports why it cannot
        return Verification.of(checked)
    said = None if body.index is not None else checked.summary_facts  # the index still needs it
    return Verification(checked.outcome, checked.diff, said, checked.notes, body)


def _warm_body(
    warm: WarmTarget,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    narrative_facts: FactRecord,
) -> WarmBody:
    from factdiff.store.warm_columns import encode_body

    dictionary_id, data = warm.dictionary if warm.dictionary is not None else (None, None)
    same_schema = source_facts.schema == schema.ref  # else the store's thread indexes it
    return encode_body(
        warm.entry_id,
        warm.source,
        warm.content_hash,
        narrative,
        source_facts.to_json(),
        (dictionary_id, _dictionary(data)),
        _SentSchema(schema) if same_schema else None,
        narrative_facts,
        source_facts,
    )


class _SentSchema:
    """The one schema a worker process was sent, as a schema lookup for the records made
    under it."""

    def __init__(self, schema: FactSchema) -> None:
        self._schema = schema

    def get(self, name: str, version: int | None = None) -> FactSchema:
        if name != self._schema.name or version != self._schema.version:
            raise KeyError(f"schema {name} version {version} was not sent")  # pragma: no cover
        return self._schema


_DICTIONARIES: dict[bytes, Any] = {}
"""In a worker process: the zstd dictionaries it was sent, by their bytes (a dictionary
object keeps its compression contexts cached; see ``codec``)."""
_DICTIONARY_LIMIT = 16


def _dictionary(data: bytes | None) -> Any:
    if data is None:
        return None
    found = _DICTIONARIES.get(data)
    if found is None:
        import zstandard

        if len(_DICTIONARIES) >= _DICTIONARY_LIMIT:
            _DICTIONARIES.clear()
        found = _DICTIONARIES[data] = zstandard.ZstdCompressionDict(data)
    return found


def _prime_dictionary(path: str, agent_id: str, now: datetime) -> tuple[int, bytes] | None:
    """In a worker process: train ``agent_id``'s first dictionary in the SQLite store at
    ``path``, on a connection of this process's own; the agent's latest dictionary after
    (id and bytes as stored), if it has one."""
    from factdiff.store import open_store

    with open_store(path, create=False) as store:
        if not store.prime_dictionary(agent_id, now):
            return None
        return store.latest_dictionary(agent_id)


def _run_batch(calls: list[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[tuple[bool, Any]]:
    """In a worker process: each call's ``(True, result)`` or ``(False, exception)``."""
    done: list[tuple[bool, Any]] = []
    for function, args in calls:
        try:
            done.append((True, function(*args)))
        except Exception as exc:  # handed back to the caller that made this call
            done.append((False, exc))
    return done


BATCH_LIMIT = 16
BATCH_WINDOW = 0.002
"""At most this many calls go to a worker process as one task."""


class _Batcher:
    """The process calls made in one turn of the event loop, sent as few tasks.

    Each task a process pool runs costs the calling process about a millisecond of CPU
    (pickling, a feeder and a manager thread, wake-ups), more than the ~0.3 ms a summary's
    verification task carries. Calls made while the loop runs one batch of ready callbacks
    are sent together at the end of it (``call_soon``: no call waits for a later one), split
    evenly over the pool's processes; objects the calls share (the schema, the extractor)
    are pickled once per task.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._waiting: list[tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]] = []
        self._sending: set[asyncio.Task[None]] = set()

    def submit(self, function: Callable[..., T], args: tuple[Any, ...]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        if not self._waiting:
            loop.call_later(BATCH_WINDOW, self._flush)
        self._waiting.append((function, args, future))
        return future

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        chunks = max(1, min(self._size, len(waiting)))
        step = max(1, min(BATCH_LIMIT, -(-len(waiting) // chunks)))
        for start in range(0, len(waiting), step):
            task = asyncio.ensure_future(self._send(waiting[start : start + step]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(
        self, batch: list[tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]]
    ) -> None:
        calls = [(function, args) for function, args, _ in batch]
        pool = shared_pool(self._size)
        try:
            done = await asyncio.get_running_loop().run_in_executor(pool, _run_batch, calls)
        except BrokenProcessPool:
            _discard(self._size, pool)
            done = await asyncio.to_thread(_run_batch, calls)  # this batch, in a thread
        except asyncio.CancelledError:  # the loop is closing: so are the callers
            for _, _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the batch would not pickle, or its results would not
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, _, future), (ok, value) in zip(batch, done, strict=True):
            if future.done():  # its caller was cancelled
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


class Work:
    """Where CPU-bound stages run (see the module docstring). Close it when done."""

    def __init__(self, processes: int = 0, threads: int = 0) -> None:
        self._processes = processes
        self._threads = threads
        self._thread_pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._cpu_pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._batcher = _Batcher(processes) if processes else None
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
        pool = _SHARED.get(self._processes)
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
    ) -> Verification:
        """Extract ``narrative`` with ``extractor`` and verify it against the source's
        record; in a worker process, a passed summary's warm body for ``warm`` is made in
        the same task (none elsewhere: the store's thread makes it). A target prepared
        before its agent had a dictionary gets the one ``prime_dictionary`` trained since
        (waiting for it while it runs), so that the body fits the warm write (else the
        store's thread makes it again)."""
        if warm is not None and warm.dictionary is None:
            warm = await self._with_primed_dictionary(warm)
        if getattr(extractor, "aextract", None) is not None:
            summary_facts = await self.extract(extractor, narrative, schema, source_facts.reference)
            return Verification.of(verify(source_facts, summary_facts, schema, policy))
        if self._batcher is not None and isinstance(extractor, PORTABLE):
            return await self._batcher.submit(
                _verified_in_process, (extractor, narrative, source_facts, schema, policy, warm)
            )
        checked = await self._call(
            extractor,
            _extract_summary_and_verify,
            extractor,
            narrative,
            source_facts,
            schema,
            policy,
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
        pool = shared_pool(self._processes)
        done = self._priming.setdefault(agent_id, asyncio.Event())
        try:
            found = await loop.run_in_executor(pool, _prime_dictionary, path, agent_id, now)
            if found is not None:
                self._primed[agent_id] = found
        except BrokenProcessPool:
            _discard(self._processes, pool)
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

    async def _call(self, component: object, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` where ``component`` may run; module-level functions of this
        module only, so that a worker process has registered the mapping reducer too. In
        processes, calls are batched (``_Batcher``); a pool that broke is replaced, and
        the batch that saw it break runs in a thread."""
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
                max_workers=1, thread_name_prefix="factdiff-cpu", initializer=_yield_cpu
            )
        return self._cpu_pool


_SHARED: dict[int, concurrent.futures.ProcessPoolExecutor] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(size: int) -> concurrent.futures.ProcessPoolExecutor:
    """The process-wide pool of ``size`` worker processes (spawned, parent-watched)."""
    with _SHARED_LOCK:
        pool = _SHARED.get(size)
        if pool is None:
            pool = _SHARED[size] = concurrent.futures.ProcessPoolExecutor(
                max_workers=size,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
        return pool


def _discard(size: int, pool: concurrent.futures.ProcessPoolExecutor) -> None:
    with _SHARED_LOCK:
        if _SHARED.get(size) is pool:
            del _SHARED[size]
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown_pools() -> None:
    """Stop every shared process pool (at exit; tests may call it)."""
    with _SHARED_LOCK:
        pools = list(_SHARED.values())
        _SHARED.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


atexit.register(shutdown_pools)
