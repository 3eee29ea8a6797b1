"""Store calls made from the event loop, run where the store may be used.

A SQLite connection belongs to the thread that opened it: its calls are queued to that thread
(``serve_until``); a thread-safe store (PostgreSQL) gets a few threads of its own. Either way
no store call blocks the event loop, and each is timed as the ``sql`` stage.

Calls marked ``grouped`` (the outcomes of demotion: each is its own fenced write) that are
waiting in the queue together are applied in one transaction with one commit
(``MemoryStore.write_each``): each in its own savepoint, so a refused or failing outcome
writes nothing and leaves the others alone, and each caller gets its own result or
exception, after the commit. On SQLite that commit (and its fsync) is most of an outcome's
cost; the groups form by themselves when outcomes arrive faster than they commit. The other
calls taken with a group (claims, reads, heartbeats: the window waits on them) run first. When
the shared transaction fails, each call of the group runs again alone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import time
from collections.abc import Callable
from typing import Generic, ParamSpec, Protocol, TypeVar

from factdiff.demotion.run_stats import StageClock
from factdiff.errors import StoreError
from factdiff.store import MemoryStore

__all__ = ["GROUP_LIMIT", "Grouped", "StoreCalls", "call_here", "grouped"]

P = ParamSpec("P")
T = TypeVar("T")

GROUP_LIMIT = 64
"""At most this many queued calls are taken at once (and grouped into one transaction)."""


class Grouped(Generic[P, T]):
    """A store call that may share its transaction with others queued with it (see the
    module docstring); called directly, it is ``function``."""

    def __init__(self, function: Callable[P, T]) -> None:
        self.function = function

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.function(*args, **kwargs)


def grouped(function: Callable[P, T]) -> Grouped[P, T]:
    """Mark ``function`` (a store call that writes through ``_write`` only) as groupable."""
    return Grouped(function)


def _timed(clock: StageClock, call: Callable[[], T]) -> T:
    """``call()``, timed as the ``sql`` stage."""
    started = time.perf_counter()
    try:
        return call()
    finally:
        clock.add("sql", started, time.perf_counter())


class _Queued(Protocol):
    """A queued store call, whatever its result type, as the serving thread handles it."""

    grouped: bool

    def claim(self) -> bool:
        """Mark the caller's future running; False when the caller cancelled it."""
        ...

    def run_alone(self, clock: StageClock) -> None:
        """Run the call in its own transaction(s) and hand its caller the outcome."""
        ...

    def keep(self) -> None:
        """Run the call inside a shared transaction, keeping its result until the commit."""
        ...

    def deliver(self) -> None:
        """Hand the caller the kept result (after the commit)."""
        ...

    def fail(self, error: BaseException) -> None:
        """Hand the caller ``error``."""
        ...


class _Call(Generic[T]):
    """One queued store call and the future its caller awaits."""

    def __init__(self, call: Callable[[], T], grouped: bool) -> None:
        self.future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self.call = call
        self.grouped = grouped
        self._kept: tuple[T] | None = None

    def claim(self) -> bool:
        return self.future.set_running_or_notify_cancel()

    def run_alone(self, clock: StageClock) -> None:
        try:
            self.future.set_result(_timed(clock, self.call))
        except BaseException as exc:
            self.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    def keep(self) -> None:
        self._kept = (self.call(),)

    def deliver(self) -> None:
        assert self._kept is not None
        self.future.set_result(self._kept[0])

    def fail(self, error: BaseException) -> None:
        self.future.set_exception(error)


class StoreCalls:
    """Runs store calls where the store may be used, timing them as the ``sql`` stage.

    A store that is not thread-safe (SQLite) is served by the thread that runs
    ``serve_until``, the one that opened it; a thread-safe one by a small thread pool.
    """

    def __init__(self, store: MemoryStore, clock: StageClock, threads: int = 4) -> None:
        self._store = store
        self._clock = clock
        self._queue: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        self._pool = (
            concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="factdiff-store")
            if store.thread_safe
            else None
        )
        self.groups = 0
        """Transactions that applied more than one grouped call (for tests and benches)."""

    async def __call__(self, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        def call() -> T:
            return function(*args, **kwargs)

        future: concurrent.futures.Future[T]
        if self._pool is not None:
            future = self._pool.submit(_timed, self._clock, call)
        else:
            queued = _Call(call, isinstance(function, Grouped))
            future = queued.future
            self._queue.put(queued)
        return await asyncio.wrap_future(future)

    def serve_until(self, main: concurrent.futures.Future[T]) -> None:
        """Run queued store calls in this thread until ``main`` is done."""
        main.add_done_callback(lambda _: self._queue.put(None))
        while True:
            taken = [self._queue.get()]
            while len(taken) < GROUP_LIMIT:
                try:
                    taken.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            calls = [item for item in taken if item is not None]
            for item in calls:  # claims, reads, heartbeats: others wait on them
                if not item.grouped:
                    self._settle(item)
            group = [item for item in calls if item.grouped]
            if group:
                self._settle_group(group)
            if len(calls) < len(taken) and main.done():
                break

    def _settle(self, item: _Queued) -> None:
        """Run one call in its own transaction(s) and hand its caller the outcome."""
        if item.claim():
            item.run_alone(self._clock)

    def _settle_group(self, group: list[_Queued]) -> None:
        """Run grouped calls in one transaction; each caller gets its own outcome after the
        commit (or, when the shared transaction fails, after running alone)."""
        live = [item for item in group if item.claim()]
        if len(live) <= 1:
            for item in live:
                item.run_alone(self._clock)
            return
        started = time.perf_counter()
        try:
            outcomes = self._store.write_each([item.keep for item in live])
        except Exception:  # the shared transaction failed: nothing of it was stored
            for item in live:
                item.run_alone(self._clock)
            return
        except BaseException:
            for item in live:
                item.fail(StoreError("interrupted before its commit: nothing was written"))
            raise
        finally:
            self._clock.add("sql", started, time.perf_counter())
        self.groups += 1
        for item, (ok, error) in zip(live, outcomes, strict=True):
            if ok:
                item.deliver()
            else:
                item.fail(error)

    def close(self) -> None:
        """Stop the pool (a thread-safe store's)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)


async def call_here(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """A store call in the current thread (the store belongs to it)."""
    return function(*args, **kwargs)
