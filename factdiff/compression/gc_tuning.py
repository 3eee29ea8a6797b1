"""CPython's cyclic garbage collector while many entries are in flight.

A concurrent pass keeps up to ``concurrency`` entries in flight, each holding its records,
its diff and the provider SDK's objects for a model call's latency: young objects that
survive collection after collection. With the default thresholds (700, 10, 10) the
collector ran about 1,800 young, 170 middle and 15 full collections in a pass of 2,048
entries at concurrency 128 (``bench/llm_concurrency.py``), each full one traversing the
whole heap (the SDK's modules and types included): about 0.7 ms of the main process's CPU
per compression, a fifth of it.

``tuned()`` sets, for the time of a pass, the collector as such a workload wants it: what is alive
when the pass starts (modules, the SDK, the store's caches) is left out of every traversal
(``gc.freeze``), and the youngest generation is collected after ``THRESHOLDS[0]`` allocations
instead of 700. Objects are still freed by reference counting the moment they are unused; only
garbage in reference cycles waits a little longer. When the pass ends the frozen objects go back to
the collector and the thresholds are restored (a process that had frozen objects itself before the
pass, as a pre-fork server does, keeps its own freeze: the pass neither freezes nor unfreezes
then). Passes that overlap in one process (threads, nested calls) share one tuning: the first to
start sets it, the last to end restores it. Worker processes (``factdiff.compression.process_pool``)
tune themselves once at start-up (``tune_process``): they do nothing else.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["THRESHOLDS", "tune_process", "tuned"]

THRESHOLDS = (50_000, 20, 20)
"""Collection thresholds during a concurrent pass (``gc.set_threshold``)."""


class _Tuning:
    """How many passes run tuned in this process, and the thresholds to restore after."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.saved: tuple[int, int, int] = gc.get_threshold()
        self.froze = False

    def enter(self) -> None:
        with self.lock:
            if self.users == 0:
                self.saved = gc.get_threshold()
                # a process that froze objects itself (a pre-fork server) keeps them frozen
                self.froze = gc.get_freeze_count() == 0
                if self.froze:
                    gc.freeze()
                gc.set_threshold(*THRESHOLDS)
            self.users += 1

    def leave(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users == 0:
                gc.set_threshold(*self.saved)
                if self.froze:
                    gc.unfreeze()


_TUNING = _Tuning()


@contextmanager
def tuned() -> Iterator[None]:
    """The collector tuned for a concurrent pass (see the module docstring) inside."""
    _TUNING.enter()
    try:
        yield
    finally:
        _TUNING.leave()


def tune_process() -> None:
    """In a process that only runs factdiff's CPU work (a worker process): the same tuning,
    for the rest of the process's life, with what it has imported by now frozen."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
