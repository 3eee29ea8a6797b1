"""Demotion: claim dormant hot entries, compress each once, apply the outcome in one transaction.

One pass makes at most one attempt per entry, on the ladder rung its verified attempt count
selects:

* clean / acceptable -> warm entry + cold archive, hot content removed;
* failed -> stays hot, ``compression_failure`` event, next attempt after a backoff, or
  operator review after ``max_attempts``;
* error (the provider was unavailable, the model answered unusably, something broke) -> an
  error attempt that spends no rung: it backs off on its own schedule and reaches review
  only past the error budget (see ``factdiff.demotion.boundary``).

A pass is the demotion runner (``factdiff.demotion.runner``) until nothing is due: entries are
claimed with a lease (so concurrent passes and workers never attempt one twice or ignore a backoff),
compressed with no transaction open (up to ``concurrency`` at once, on asyncio) and committed fenced
by their lease. A sequential pass is concurrency 1.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.compression.engine import AttemptEngine
from factdiff.compression.pipeline import run_sync
from factdiff.demotion.boundary import Boundary, EntryResult
from factdiff.demotion.preparation import PreparedEntry, reference_of
from factdiff.demotion.run_stats import RunSummary
from factdiff.demotion.runner import Handled, Runner, RunOptions, handle_entry, work_for
from factdiff.demotion.settings import DemotionSettings, default_ladder
from factdiff.demotion.store_calls import call_here
from factdiff.errors import DemotionPaused, UsageError
from factdiff.settings import DEFAULTS
from factdiff.store import Entry, MemoryStore

if TYPE_CHECKING:
    from factdiff.values.base import JSON

__all__ = [
    "Demoter",
    "DemotionPaused",
    "DemotionReport",
    "DemotionSettings",
    "EntryResult",
    "PreparedEntry",
    "default_ladder",
    "reference_of",
]


@dataclass
class DemotionReport:
    """Counts, wall time, busy time per stage and model usage, for the CLI and benchmarks.

    ``seconds`` holds ``wall`` and, per stage, the wall time during which at least one entry
    was in it (``extract``, ``summarize``, ``verify``, ``summarize+verify``, ``sql``), so
    concurrent entries are never counted twice. ``paused`` is set when a provider account
    failure stopped the pass.
    """

    results: list[EntryResult] = field(default_factory=list)
    keep_results: bool = True
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    usage: list[dict[str, JSON]] = field(default_factory=list)
    paused: str | None = None

    def add(self, result: EntryResult) -> None:
        """Count one entry's result (and keep it unless streaming)."""
        key = result.outcome.value if result.applied else "skipped"
        self.counts[key] = self.counts.get(key, 0) + 1
        if result.escalated and result.applied:
            self.counts["escalated"] = self.counts.get("escalated", 0) + 1
        if self.keep_results:
            self.results.append(result)

    def finish(self, summary: RunSummary) -> None:
        """Take the run's times and usage."""
        self.seconds = summary.seconds()
        self.usage = summary.usage_json()
        self.paused = summary.paused

    @property
    def processed(self) -> int:
        """Entries attempted in this pass."""
        return sum(v for k, v in self.counts.items() if k != "escalated")

    def to_json(self) -> dict[str, JSON]:
        """The ``demote --json`` object."""
        data: dict[str, JSON] = {
            "processed": self.processed,
            "counts": dict(sorted(self.counts.items())),
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "usage": self.usage,
        }
        if self.paused is not None:
            data["paused"] = self.paused
        return data


def demoter_id() -> str:
    """``demote:host:pid``: the lease owner of a demotion pass."""
    return f"demote:{socket.gethostname()}:{os.getpid()}"


class Demoter:
    """Runs demotion passes over one store."""

    def __init__(self, store: MemoryStore, settings: DemotionSettings | None = None) -> None:
        self.store = store
        self.settings = settings or DemotionSettings()
        self.boundary = Boundary(store, self.settings)
        self.catalog = self.boundary.catalog

    def due(
        self, now: datetime, agent: str | None = None, limit: int | None = None
    ) -> Iterator[Entry]:
        """Dormant hot entries whose next attempt is due (streamed; nothing is claimed)."""
        return self.store.due_for_demotion(now, self.settings.older_than, agent, limit)

    def demote_entry(
        self, entry: Entry, now: datetime, *, lease_token: str | None = None
    ) -> EntryResult:
        """Make ``entry``'s next attempt now and apply it (one entry, no claim: the commit is
        fenced by the attempt counts read in ``entry``, and by ``lease_token`` when given)."""
        engine = AttemptEngine(self.settings.extractor, self.settings.policy)
        result, _ = run_sync(
            handle_entry(call_here, self.boundary, engine, entry, now, lease_token)
        )
        return result

    def run(
        self,
        now: datetime,
        *,
        agent: str | None = None,
        limit: int | None = None,
        on_result: Callable[[EntryResult], None] | None = None,
        keep_results: bool = True,
        concurrency: int = 1,
    ) -> DemotionReport:
        """One pass: at most one attempt for every entry due at ``now``.

        Up to ``concurrency`` entries are in flight at once. Raises ``DemotionPaused`` (with
        the report so far as ``report``) when a provider account failure stopped the pass.
        """
        if concurrency < 1:
            raise UsageError("concurrency must be at least 1")
        report = DemotionReport(keep_results=keep_results)

        def handled(done: Handled) -> None:
            if done.result is None:
                return
            report.add(done.result)
            if on_result is not None:
                on_result(done.result)

        options = RunOptions(
            worker_id=demoter_id(),
            concurrency=concurrency,
            older_than=self.settings.older_than,
            lease_seconds=self.settings.lease_seconds,
            heartbeat_seconds=self.settings.heartbeat_every,
            poll_seconds=None,
            grace_seconds=DEFAULTS.grace,
            agent=agent,
            limit=limit,
            claim_now=now,
        )
        work = work_for(concurrency, self.settings.extract_workers)
        engine = AttemptEngine(self.settings.extractor, self.settings.policy, work)
        runner = Runner(
            self.store, self.boundary, engine, options, clock=lambda: now, on_handled=handled
        )
        try:
            summary = runner.run()
        finally:
            work.close()
        report.finish(summary)
        if summary.paused is not None:
            raise DemotionPaused(summary.paused, report)
        return report
