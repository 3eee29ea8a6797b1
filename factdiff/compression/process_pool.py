"""The worker processes offline extraction runs in, and the batches it sends them.

Process pools are shared in the process (one per size, started on first use, stopped at
exit) so consecutive passes do not pay their start-up again; a pool that broke (a worker
process was killed) is replaced, and the batch that saw it break runs in a thread instead.
Fact records and schemas cross the process boundary with pickle: their read-only mappings are
reduced to dicts and rebuilt (the reducer is registered here, which every worker process
imports to run its batches).
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
from typing import Any, Literal, TypeVar, TypeVarTuple

from factdiff.compression import gc_tuning

__all__ = ["BATCH_LIMIT", "BATCH_WINDOW", "Batcher", "shared_pool", "shutdown_pools", "yield_cpu"]

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
Ts = TypeVarTuple("Ts")


def _mapping(data: dict[K, V]) -> types.MappingProxyType[K, V]:
    return types.MappingProxyType(data)


copyreg.pickle(types.MappingProxyType, lambda proxy: (_mapping, (dict(proxy),)))


CPU_NICENESS = 5
"""Offline extraction runs this much nicer than the rest: on a saturated machine the threads
that hold a store transaction or wait for a model answer are scheduled first."""


def yield_cpu() -> None:
    """Lower this thread's (or process's) scheduling priority, where the OS allows it."""
    with contextlib.suppress(AttributeError, OSError):  # not every OS has per-thread nice
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), CPU_NICENESS)


def _watch_parent(parent: int) -> None:
    """In a worker process: run nicer (``yield_cpu``), with the garbage collector tuned
    (``gc_tuning.tune_process``), and exit when the parent is gone (killed, crashed), so no
    pool process outlives the demoter or worker that started it."""
    yield_cpu()
    gc_tuning.tune_process()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="factdiff-parent-watch", daemon=True).start()


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


def running_pool(size: int) -> concurrent.futures.ProcessPoolExecutor | None:
    """The shared pool of ``size`` worker processes, if it was started."""
    return _SHARED.get(size)


def discard(size: int, pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop ``pool`` (it broke) and forget it, so that the next call starts another."""
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


Call = tuple[Callable[..., object], tuple[object, ...]]
"""A function of a module a worker process can import, and its arguments."""
Done = tuple[Literal[True], object] | tuple[Literal[False], Exception]
"""A call's result, or the exception it raised."""


def run_batch(calls: list[Call]) -> list[Done]:
    """In a worker process: each call's ``(True, result)`` or ``(False, exception)``."""
    done: list[Done] = []
    for function, args in calls:
        try:
            done.append((True, function(*args)))
        except Exception as exc:  # handed back to the caller that made this call
            done.append((False, exc))
    return done


BATCH_LIMIT = 16
BATCH_WINDOW = 0.002
"""At most this many calls go to a worker process as one task."""

_Waiting = tuple[Callable[..., object], tuple[object, ...], "asyncio.Future[Any]"]
"""A call and the future its caller awaits: of whatever its function returns, which comes
back from another process (no static type follows it there)."""


class Batcher:
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
        self._waiting: list[_Waiting] = []
        self._sending: set[asyncio.Task[None]] = set()

    def submit(self, function: Callable[[*Ts], T], args: tuple[*Ts]) -> asyncio.Future[T]:
        """``function(*args)`` in a worker process, sent with the calls of this turn."""
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

    async def _send(self, batch: list[_Waiting]) -> None:
        calls: list[Call] = [(function, args) for function, args, _ in batch]
        pool = shared_pool(self._size)
        try:
            done = await asyncio.get_running_loop().run_in_executor(pool, run_batch, calls)
        except BrokenProcessPool:
            discard(self._size, pool)
            done = await asyncio.to_thread(run_batch, calls)  # this batch, in a thread
        except asyncio.CancelledError:  # the loop is closing: so are the callers
            for _, _, future in batch:
                future.cancel()
            raise
        except Exception as exc:  # the batch would not pickle, or its results would not
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, _, future), result in zip(batch, done, strict=True):
            if future.done():  # its caller was cancelled
                continue
            if result[0]:
                future.set_result(result[1])
            else:
                future.set_exception(result[1])
