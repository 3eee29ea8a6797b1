"""A demotion worker process for the worker tests: scripted model latency, executions logged.

``python -m tests.integration.worker_harness DB LOG WORKER_ID [latency_ms lease_s concurrency]``
runs a ``factdiff.worker.Worker`` until SIGTERM and appends one JSON line per execution
(entry, lease token, database-clock claim/expiry/finish times, outcome) to LOG.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from factdiff.demote import DemotionSettings
from factdiff.pipeline import Rung
from factdiff.retry import RetryPolicy
from factdiff.summarize import ExtractiveSummarizer, Summary, SummaryRequest
from factdiff.worker import Execution, Worker, WorkerSettings


class SlowSummarizer:
    """The extractive summarizer behind a scripted model latency."""

    identity = "extractive"

    def __init__(self, latency_s: float) -> None:
        self._inner = ExtractiveSummarizer()
        self._latency = latency_s
        self.method_version = self._inner.method_version

    def summarize(self, request: SummaryRequest) -> Summary:
        time.sleep(self._latency)
        return self._inner.summarize(request)


def demotion_settings(latency_s: float) -> DemotionSettings:
    slow = SlowSummarizer(latency_s)
    return DemotionSettings(
        older_than=timedelta(days=1),
        ladder=(
            Rung(slow, budget_ratio=0.35, strictness=0),  # type: ignore[arg-type]
            Rung(slow, budget_ratio=0.6, strictness=1),  # type: ignore[arg-type]
            Rung(slow, budget_ratio=1.0, strictness=2),  # type: ignore[arg-type]
        ),
        retry=RetryPolicy(
            max_attempts=3, base_delay=timedelta(seconds=1), max_delay=timedelta(seconds=1)
        ),
    )


def execution_json(e: Execution) -> dict[str, Any]:
    return {
        "entry": e.entry_id,
        "token": e.token,
        "worker": e.worker_id,
        "claimed": e.claimed_at.timestamp(),
        "expires": e.expires_at.timestamp(),
        "finished": None if e.finished_at is None else e.finished_at.timestamp(),
        "outcome": e.outcome,
        "applied": e.applied,
    }


def main(argv: list[str]) -> int:
    db, log_path, worker_id = argv[0], Path(argv[1]), argv[2]
    latency = float(argv[3]) / 1000 if len(argv) > 3 else 0.005
    lease = float(argv[4]) if len(argv) > 4 else 2.0
    concurrency = int(argv[5]) if len(argv) > 5 else 2
    log = log_path.open("a", encoding="utf-8")

    def record(e: Execution) -> None:
        log.write(json.dumps(execution_json(e)) + "\n")
        log.flush()

    settings = WorkerSettings(
        concurrency=concurrency, lease_seconds=lease, poll_seconds=0.05, grace_seconds=10
    )
    worker = Worker(
        db, settings, demotion_settings(latency), worker_id=worker_id, on_execution=record
    )
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    report = worker.run()
    log.close()
    print(json.dumps({"counts": dict(report.counts), "released": report.released}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
