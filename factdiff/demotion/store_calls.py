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
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from factdiff.demotion.run_stats import StageClock
from factdiff.errors import StoreError
from factdiff.store import MemoryStore

__all__ = ["GROUP_LIMIT", "Grouped", "StoreCalls", "call_here", "grouped"]

T = TypeVar("T")

GROUP_LIMIT = 64
"""At most this many queued calls are taken at once (and grouped into one transaction)."""


class Grouped(Generic[T]):
    """A store call that may share its transaction with others queued with it (see the
    module docstring); called directly, it is ``function``."""

    def __init__(self, function: Callable[..., T]) -> None:
        self.function = function

    def __call__(self, *args: Any) -> T:
        return self.function(*args)


def grouped(function: Callable[..., T]) -> Grouped[T]:
    """Mark ``function`` (a store call that writes through ``_write`` only) as groupable."""
    return Grouped(function)


@dataclass(frozen=True)
class _Call:
    future: concurrent.futures.Future[Any]
    call: Callable[[], Any]
    grouped: bool


class StoreCalls:
    """Runs store calls where the store may be used, timing them as the ``sql`` stage.

    A store that is not thread-safe (SQLite) is served by the thread that runs
    ``serve_until``, the one that opened it; a thread-safe one by a small thread pool.
    """

    def __init__(self, store: MemoryStore, clock: StageClock, threads: int = 4) -> None:
        self._store = store
        self._clock = clock
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._pool = (
            concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="factdiff-store")
            if store.thread_safe
            else None
        )
        self.groups = 0
        """Transactions that applied more than one grouped call (for tests and benches)."""

    async def __call__(self, function: Callable[..., T], *args: Any) -> T:
        future: concurrent.futures.Future[T]
        if self._pool is not None:
            future = self._pool.submit(self._timed, function, *args)
        else:
            future = concurrent.futures.Future()
            self._queue.put(_Call(future, lambda: function(*args), isinstance(function, Grouped)))
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

    def _settle(self, item: _Call) -> None:
        """Run one call in its own transaction(s) and hand its caller the outcome."""
        if item.future.set_running_or_notify_cancel():
            self._run_alone(item)

    def _settle_group(self, group: list[_Call]) -> None:
        """Run grouped calls in one transaction; each caller gets its own outcome after the
        commit (or, when the shared transaction fails, after running alone)."""
        live = [item for item in group if item.future.set_running_or_notify_cancel()]
        if len(live) <= 1:
            for item in live:
                self._run_alone(item)
            return
        started = time.perf_counter()
        try:
            outcomes = self._store.write_each([item.call for item in live])
        except Exception:  # the shared transaction failed: nothing of it was stored
            for item in live:
                self._run_alone(item)
            return
        except BaseException:
            for item in live:
                item.future.set_exception(
                    StoreError("interrupted before its commit: nothing was written")
                )
            raise
        finally:
            self._clock.add("sql", started, time.perf_counter())
        self.groups += 1
        for item, (ok, value) in zip(live, outcomes, strict=True):
            if ok:
                item.future.set_result(value)
            else:
                item.future.set_exception(value)

    def _run_alone(self, item: _Call) -> None:
        """A call whose future is already running, in its own transaction(s)."""
        try:
            item.future.set_result(self._timed(item.call))
        except BaseException as exc:
            item.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    def close(self) -> None:
        """Stop the pool (a thread-safe store's)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)


async def call_here(function: Callable[..., T], *args: Any) -> T:
    """A store call in the current thread (the store belongs to it)."""
    return function(*args)
