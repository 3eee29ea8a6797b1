"""Prometheus metrics of factdiff (needs ``prometheus-client``, in the ``server`` extra).

Two kinds, documented in ``docs/reference.md``:

* store totals, read from the store at every scrape (``StoreCollector``), so every API
  worker and demotion worker reports the same numbers: compression attempts by schema,
  version, agent and outcome; facts lost by field and criticality; facts added
  (confabulations); review backlog; due hot entries; re-evaluations by schema, version and
  result; model calls, tokens, cost and errors by model, role and class;
* latencies measured in the process that does the work: ``factdiff_search_seconds`` (API
  searches) and ``factdiff_demotion_seconds`` (one entry's attempt, in workers and passes);
* in workers, each loop's health (``LoopCollector``, from ``factdiff.demotion.loop_health``):
  ``factdiff_worker_loop_alive``, ``_ready``, ``_failures`` and
  ``_last_success_timestamp_seconds``, labelled by ``loop``.

``factdiff_store_up`` is 0 when the store cannot be read at a scrape: the store totals are
then left out and everything else is still exposed (a worker whose store is down shows its
failing loops).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from factdiff.errors import one_line

if TYPE_CHECKING:
    from factdiff.demotion.loop_health import LoopHealth
    from factdiff.store import MemoryStore
    from factdiff.store.observe import MetricsSnapshot

log = logging.getLogger("factdiff.metrics")

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
        try:
            snap = self._snapshot()
        except Exception as exc:  # the store is down: say so, keep the other metrics
            log.warning("metrics: cannot read the store: %s", one_line(exc))
            yield GaugeMetricFamily(
                "factdiff_store_up", "1 when the store could be read at this scrape.", 0
            )
            return
        yield GaugeMetricFamily(
            "factdiff_store_up", "1 when the store could be read at this scrape.", 1
        )
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


class LoopCollector(Collector):
    """Each loop of a worker, from its ``LoopHealth`` at scrape time."""

    def __init__(self, health: LoopHealth) -> None:
        self._health = health

    def collect(self) -> Iterator[Metric]:
        labels = ["loop"]
        alive = GaugeMetricFamily(
            "factdiff_worker_loop_alive",
            "1 while the worker's loop (demotion, reevaluation) runs.",
            labels=labels,
        )
        ready = GaugeMetricFamily(
            "factdiff_worker_loop_ready",
            "1 when the loop runs, its last attempt worked and it succeeded recently (readyz).",
            labels=labels,
        )
        failures = GaugeMetricFamily(
            "factdiff_worker_loop_failures",
            "Failures of the loop since its last success.",
            labels=labels,
        )
        last = GaugeMetricFamily(
            "factdiff_worker_loop_last_success_timestamp_seconds",
            "Unix time of the loop's last success (0: none yet).",
            labels=labels,
        )
        for status in self._health.statuses():
            alive.add_metric([status.name], int(status.alive))
            ready.add_metric([status.name], int(status.ready))
            failures.add_metric([status.name], status.failures)
            success = status.last_success
            last.add_metric([status.name], 0.0 if success is None else success.timestamp())
        yield alive
        yield ready
        yield failures
        yield last


class ProcessMetrics:
    """A registry with the store collector, this process's latency histograms and, in a
    worker, its loops' health."""

    def __init__(
        self, snapshot: Callable[[], MetricsSnapshot], health: LoopHealth | None = None
    ) -> None:
        self.health = health
        self.registry = CollectorRegistry()
        self.registry.register(StoreCollector(snapshot))
        if health is not None:
            self.registry.register(LoopCollector(health))
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
        """Serve ``/metrics`` (and, with a ``health``, ``/healthz`` and ``/readyz``) on
        ``host:port`` from background threads (workers; ``factdiff.ops.metrics_server``)."""
        from prometheus_client import make_wsgi_app

        from factdiff.ops.metrics_server import health_app, serve

        app = make_wsgi_app(self.registry)
        serve(app if self.health is None else health_app(app, self.health), host, port)
