"""What the store tells monitoring: counts read at scrape time, so every process that
serves metrics (API workers, demotion workers) reports the same totals.

``ObserveMixin`` is part of every ``MemoryStore``; ``factdiff.ops.metrics`` turns its
``metrics_snapshot`` into Prometheus metrics. SQL in ``sql/<dialect>/service.sql``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

from factdiff.store import codec

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


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


def _store(mixin: ObserveMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class ObserveMixin:
    """Monitoring reads of ``MemoryStore`` (see the module docstring)."""

    def metrics_snapshot(self, now: datetime, older_than: timedelta) -> MetricsSnapshot:
        """Counts for monitoring; due entries are those dormant for ``older_than`` at ``now``."""
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        threshold = now_us - codec.duration_micros(older_than, "older_than")
        outcomes = {
            (str(name), int(version), str(agent), str(outcome)): int(count)
            for name, version, agent, outcome, count in store._rows(
                store._sql("metrics_outcomes"), {}
            )
        }
        backlog = store.review_backlog()
        calls = [
            ModelCallTotals(str(m), str(r), str(o), int(c), int(ti), int(to), float(cost or 0))
            for m, r, o, c, ti, to, cost in store._rows(store._sql("metrics_model_calls"), {})
        ]
        return MetricsSnapshot(
            outcomes=outcomes,
            facts=store.lost_facts(),
            review_backlog=sum(row.waiting for row in backlog),
            kept_hot=sum(row.kept_hot for row in backlog),
            due_hot=int(store._one("metrics_due_hot", threshold=threshold, now=now_us)),
            model_calls=calls,
            reevaluations={(s, v, r): n for s, v, r, n in store.reevaluation_results()},
        )
