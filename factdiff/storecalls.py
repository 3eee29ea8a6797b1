"""Store calls made from the event loop, run where the store may be used.

A SQLite connection belongs to the thread that opened it: its calls are queued to that thread
(``serve_until``); a thread-safe store (PostgreSQL) gets a few threads of its own. Either way
no store call blocks the event loop, and each is timed as the ``sql`` stage.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import time
from collections.abc import Callable
from typing import Any, TypeVar

from factdiff.runstats import StageClock
from factdiff.store import MemoryStore

__all__ = ["StoreCalls", "call_here"]

T = TypeVar("T")


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


async def call_here(function: Callable[..., T], *args: Any) -> T:
    """A store call in the current thread (the store belongs to it)."""
    return function(*args)
