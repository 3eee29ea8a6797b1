"""Whether each loop of a worker is alive and doing its work: for ``/readyz`` and ``/metrics``.

A worker runs two loops (``demotion`` and ``reevaluation``), each in its own thread. Each
reports what happens to it: ``succeeded`` (a store round trip worked: a claim, even an empty
one, or a committed result), ``failed`` (with the error, as one line) and ``stopped`` (its
thread ended). A loop is **ready** when

* it is alive (its thread runs),
* its last attempt did not fail (``failures``, the failures since its last success, is 0),
* and it succeeded within ``stale_after`` seconds (counted from its start before the first
  success), so a loop stuck in a call shows too.

A worker is ready when every loop is. ``Backoff`` is the wait before a failing loop tries
again: ``first * 2 ** (failures - 1)`` seconds, at most ``cap``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factdiff.values.base import JSON

__all__ = ["DEMOTION", "LOOPS", "REEVALUATION", "Backoff", "LoopHealth", "LoopStatus"]

DEMOTION = "demotion"
REEVALUATION = "reevaluation"
LOOPS = (DEMOTION, REEVALUATION)
"""The loops of a worker."""


@dataclass(frozen=True)
class LoopStatus:
    """One loop as ``/readyz`` and ``/metrics`` show it."""

    name: str
    alive: bool
    ready: bool
    failures: int
    """Failures since the last success (0: the last attempt worked)."""
    last_success: datetime | None
    last_error: str | None

    def to_json(self) -> dict[str, JSON]:
        """The loop in ``/readyz``."""
        return {
            "alive": self.alive,
            "ready": self.ready,
            "failures": self.failures,
            "last_success": None if self.last_success is None else self.last_success.isoformat(),
            "last_error": self.last_error,
        }


@dataclass
class _Loop:
    alive: bool = False
    started: float = 0.0
    success: float | None = None
    success_at: datetime | None = None
    failures: int = 0
    error: str | None = None


class LoopHealth:
    """The loops of one worker (see the module docstring); safe from any thread."""

    def __init__(
        self,
        names: Iterable[str] = LOOPS,
        stale_after: float = 180.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stale_after = stale_after
        self._clock = clock
        self._lock = threading.Lock()
        self._loops = {name: _Loop() for name in names}

    def started(self, name: str) -> None:
        """``name``'s thread runs."""
        with self._lock:
            loop = self._loops[name]
            loop.alive, loop.started = True, self._clock()

    def succeeded(self, name: str) -> None:
        """A store round trip of ``name`` worked."""
        with self._lock:
            loop = self._loops[name]
            loop.success, loop.success_at = self._clock(), datetime.now(UTC)
            loop.failures, loop.error = 0, None

    def failed(self, name: str, error: str) -> int:
        """An attempt of ``name`` failed with ``error``; returns the failures in a row."""
        with self._lock:
            loop = self._loops[name]
            loop.failures += 1
            loop.error = error
            return loop.failures

    def stopped(self, name: str) -> None:
        """``name``'s thread ended."""
        with self._lock:
            self._loops[name].alive = False

    def statuses(self) -> list[LoopStatus]:
        """Every loop now, in order."""
        now = self._clock()
        with self._lock:
            return [
                LoopStatus(
                    name,
                    loop.alive,
                    loop.alive
                    and loop.failures == 0
                    and now - (loop.success if loop.success is not None else loop.started)
                    <= self.stale_after,
                    loop.failures,
                    loop.success_at,
                    loop.error,
                )
                for name, loop in self._loops.items()
            ]

    def ready(self) -> bool:
        """Whether every loop is ready."""
        return all(status.ready for status in self.statuses())

    def to_json(self) -> dict[str, JSON]:
        """The ``/readyz`` document: ``status`` and each loop."""
        statuses = self.statuses()
        down = [s.name for s in statuses if not s.ready]
        return {
            "status": "ok" if not down else "not ready: " + ", ".join(down),
            "loops": {s.name: s.to_json() for s in statuses},
        }


@dataclass(frozen=True)
class Backoff:
    """The wait before a failing loop tries again (see the module docstring)."""

    first: float
    cap: float

    def delay(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failures in a row (1 or more)."""
        exponent = min(max(failures, 1) - 1, 32)
        return float(min(self.cap, self.first * 2**exponent))
