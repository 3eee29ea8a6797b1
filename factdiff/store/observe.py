"""What the store tells monitoring: counts read at scrape time, so every process that
serves metrics (API workers, demotion workers) reports the same totals.

``ObserveMixin`` is part of every ``MemoryStore``; ``factdiff.metrics`` turns its
``metrics_snapshot`` into Prometheus metrics. SQL in ``sql/<dialect>/service.sql``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, cast

from factdiff.store import codec
from factdiff.store import rows as rowmap

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

PAGE = 256


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
    acceptable attempts."""
    review_backlog: int
    due_hot: int
    model_calls: list[ModelCallTotals] = field(default_factory=list)
    reevaluations: dict[tuple[str, int, str], int] = field(default_factory=dict)
    """(schema name, target version, result) -> finished re-evaluations."""


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
        calls = [
            ModelCallTotals(str(m), str(r), str(o), int(c), int(ti), int(to), float(cost or 0))
            for m, r, o, c, ti, to, cost in store._rows(store._sql("metrics_model_calls"), {})
        ]
        return MetricsSnapshot(
            outcomes=outcomes,
            facts=self._fact_counts(),
            review_backlog=int(store._one("metrics_review_backlog")),
            due_hot=int(store._one("metrics_due_hot", threshold=threshold, now=now_us)),
            model_calls=calls,
            reevaluations={(s, v, r): n for s, v, r, n in store.reevaluation_results()},
        )

    def _fact_counts(self) -> dict[tuple[str, str, str], int]:
        store = _store(self)
        counts: Counter[tuple[str, str, str]] = Counter()
        sql, after = store._sql("lossy_diffs_page"), 0
        while True:
            rows = store._rows(sql, {"after": after, "limit": PAGE})
            for attempt_id, diff_text, packed in rows:
                after = int(attempt_id)
                diff = rowmap.attempt_diff(diff_text, packed)
                if not isinstance(diff, dict):
                    continue
                for kind in ("missing", "changed", "added"):
                    for item in diff.get(kind) or []:
                        if isinstance(item, dict) and isinstance(item.get("field"), str):
                            criticality = str(item.get("criticality") or "unknown")
                            counts[(kind, item["field"], criticality)] += 1
            if len(rows) < PAGE:
                return dict(counts)
