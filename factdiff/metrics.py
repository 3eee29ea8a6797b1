"""Prometheus metrics of factdiff (needs ``prometheus-client``, in the ``server`` extra).

Two kinds, documented in ``docs/reference.md``:

* store totals, read from the store at every scrape (``StoreCollector``), so every API
  worker and demotion worker reports the same numbers: compression attempts by schema,
  version, agent and outcome; facts lost by field and criticality; facts added
  (confabulations); review backlog; due hot entries; re-evaluations by schema, version and
  result; model calls, tokens, cost and errors by model, role and class;
* latencies measured in the process that does the work: ``factdiff_search_seconds`` (API
  searches) and ``factdiff_demotion_seconds`` (one entry's attempt, in workers and passes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.store.observe import MetricsSnapshot

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def snapshot_of(store: MemoryStore, older_than: timedelta) -> MetricsSnapshot:
    """The store's totals now."""
    return store.metrics_snapshot(datetime.now(UTC), older_than)


def snapshot_from(db: str, older_than: timedelta) -> Callable[[], MetricsSnapshot]:
    """Totals read by opening the store at ``db`` for each scrape (any thread)."""

    def read() -> MetricsSnapshot:
        from factdiff.store import open_store

        with open_store(db, create=False) as store:
            return snapshot_of(store, older_than)

    return read


class StoreCollector(Collector):
    """Store totals at scrape time, read by ``snapshot`` in the scraping thread."""

    def __init__(self, snapshot: Callable[[], MetricsSnapshot]) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        snap = self._snapshot()
        attempts = CounterMetricFamily(
            "factdiff_compression_attempts",
            "Compression attempts by schema, schema version, agent and outcome.",
            labels=["schema", "version", "agent", "outcome"],
        )
        for (schema, version, agent, outcome), count in sorted(snap.outcomes.items()):
            attempts.add_metric([schema, str(version), agent, outcome], count)
        yield attempts
        lost = CounterMetricFamily(
            "factdiff_facts_lost",
            "Facts missing or changed in failed and accepted summaries, by field and criticality.",
            labels=["kind", "field", "criticality"],
        )
        added = CounterMetricFamily(
            "factdiff_facts_added",
            "Facts a summary added that its source does not state (confabulations).",
            labels=["field", "criticality"],
        )
        for (kind, field, criticality), count in sorted(snap.facts.items()):
            if kind == "added":
                added.add_metric([field, criticality], count)
            else:
                lost.add_metric([kind, field, criticality], count)
        yield lost
        yield added
        yield GaugeMetricFamily(
            "factdiff_review_backlog",
            "Entries waiting for an operator (in review and not kept hot).",
            snap.review_backlog,
        )
        yield GaugeMetricFamily(
            "factdiff_kept_hot_entries",
            "Entries in review an operator kept hot (decided: not in the backlog).",
            snap.kept_hot,
        )
        yield GaugeMetricFamily(
            "factdiff_due_hot_entries",
            "Hot entries dormant long enough and past their backoff: due for demotion.",
            snap.due_hot,
        )
        reevaluations = CounterMetricFamily(
            "factdiff_reevaluations",
            "Warm entries re-evaluated under a newer schema version, by schema, target version "
            "and result (promoted back to hot, annotated, clean, skipped).",
            labels=["schema", "version", "result"],
        )
        for (schema, version, result), count in sorted(snap.reevaluations.items()):
            reevaluations.add_metric([schema, str(version), result], count)
        yield reevaluations
        labels = ["model", "role", "outcome"]
        calls = CounterMetricFamily(
            "factdiff_llm_calls",
            "Model calls by model, role and outcome (ok or class).",
            labels=labels,
        )
        errors = CounterMetricFamily(
            "factdiff_llm_errors",
            "Failed model calls by model, role and failure class.",
            labels=labels,
        )
        tokens = CounterMetricFamily(
            "factdiff_llm_tokens",
            "Model tokens by model, role and direction.",
            labels=["model", "role", "direction"],
        )
        cost = CounterMetricFamily(
            "factdiff_llm_cost_usd",
            "Model cost in USD (known prices) by model and role.",
            labels=["model", "role"],
        )
        token_sums: dict[tuple[str, str, str], int] = {}
        cost_sums: dict[tuple[str, str], float] = {}
        for row in snap.model_calls:
            calls.add_metric([row.model, row.role, row.outcome], row.calls)
            if row.outcome != "ok":
                errors.add_metric([row.model, row.role, row.outcome], row.calls)
            for direction, count in (("in", row.tokens_in), ("out", row.tokens_out)):
                key = (row.model, row.role, direction)
                token_sums[key] = token_sums.get(key, 0) + count
            cost_sums[(row.model, row.role)] = (
                cost_sums.get((row.model, row.role), 0.0) + row.cost_usd
            )
        for (model, role, direction), count in sorted(token_sums.items()):
            tokens.add_metric([model, role, direction], count)
        for (model, role), usd in sorted(cost_sums.items()):
            cost.add_metric([model, role], usd)
        yield calls
        yield errors
        yield tokens
        yield cost


class ProcessMetrics:
    """A registry with the store collector and this process's latency histograms."""

    def __init__(self, snapshot: Callable[[], MetricsSnapshot]) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(StoreCollector(snapshot))
        self.search_seconds = Histogram(
            "factdiff_search_seconds",
            "Search latency in this process (API requests).",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.demotion_seconds = Histogram(
            "factdiff_demotion_seconds",
            "Time to attempt and apply one entry's demotion in this process.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def exposition(self) -> tuple[bytes, str]:
        """The text exposition and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Serve ``/metrics`` on ``host:port`` from a background thread (workers)."""
        from prometheus_client import start_http_server

        start_http_server(port, addr=host, registry=self.registry)
