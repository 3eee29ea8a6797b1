"""What the store tells monitoring: counts read at scrape time, so every process that
serves metrics (API workers, demotion workers) reports the same totals.

``Monitoring`` is a repository over the store's ``Database`` (with the reports, and the lost
facts the store passes in); ``MemoryStore`` forwards ``metrics_snapshot``, which
``factdiff.ops.metrics`` turns into Prometheus metrics. SQL in ``sql/<dialect>/service.sql``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from factdiff.store import codec
from factdiff.store.database import Database
from factdiff.store.reports import Reports


@dataclass(frozen=True)
class ModelCallTotals:
    """Model calls of one model, role and outcome (``ok`` or a failure class)."""

    model: str
    role: str
    outcome: str
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float


@dataclass(frozen=True)
class MetricsSnapshot:
    """Store-wide counts for ``/metrics``."""

    outcomes: dict[tuple[str, int, str, str], int]
    """(schema name, schema version, agent, outcome) -> attempts."""
    facts: dict[tuple[str, str, str], int]
    """(kind: missing/changed/added, field, criticality) -> facts, over failed and
    acceptable attempts (``MemoryStore.lost_facts``)."""
    review_backlog: int
    """Entries waiting for an operator (``MemoryStore.review_backlog``)."""
    due_hot: int
    model_calls: list[ModelCallTotals] = field(default_factory=list)
    reevaluations: dict[tuple[str, int, str], int] = field(default_factory=dict)
    """(schema name, target version, result) -> finished re-evaluations."""
    kept_hot: int = 0
    """Entries in review an operator kept hot (decided: not in the backlog)."""


class Monitoring:
    """Monitoring reads of one store (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        reports: Reports,
        lost_facts: Callable[[], dict[tuple[str, str, str], int]],
    ) -> None:
        self._db = db
        self._reports = reports
        self._lost_facts = lost_facts

    def metrics_snapshot(self, now: datetime, older_than: timedelta) -> MetricsSnapshot:
        """Counts for monitoring; due entries are those dormant for ``older_than`` at ``now``."""
        db = self._db
        now_us = codec.to_micros(now, "now")
        threshold = now_us - codec.duration_micros(older_than, "older_than")
        outcomes = {
            (str(name), int(version), str(agent), str(outcome)): int(count)
            for name, version, agent, outcome, count in db.rows(db.sql("metrics_outcomes"), {})
        }
        backlog = self._reports.review_backlog()
        calls = [
            ModelCallTotals(str(m), str(r), str(o), int(c), int(ti), int(to), float(cost or 0))
            for m, r, o, c, ti, to, cost in db.rows(db.sql("metrics_model_calls"), {})
        ]
        return MetricsSnapshot(
            outcomes=outcomes,
            facts=self._lost_facts(),
            review_backlog=sum(row.waiting for row in backlog),
            kept_hot=sum(row.kept_hot for row in backlog),
            due_hot=int(db.one("metrics_due_hot", threshold=threshold, now=now_us)),
            model_calls=calls,
            reevaluations={(s, v, r): n for s, v, r, n in self._reports.reevaluation_results()},
        )
