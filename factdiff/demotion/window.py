"""The window of a demotion run: how many model calls at once, and how far ahead to claim."""

from __future__ import annotations

import asyncio

from factdiff.errors import ProviderAccountError

__all__ = ["CLAIM_BATCH", "Gate", "Ticket"]

CLAIM_BATCH = 8
"""Entries leased by one claim statement (the window takes them as it needs them): one commit
per batch instead of one per entry. The heartbeat keeps their leases."""


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
