"""Prometheus metrics: ``/metrics`` of the API (operator key) and ``factdiff worker
--metrics-port``, from the store's real totals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import open_store
from tests.conftest import worked
from tests.integration.service_helpers import client, free_port, make_keys, running_api

CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _seed(target: str) -> None:
    """One entry sent to review by a failing one-rung ladder, one dormant hot entry."""
    old = datetime.now(UTC) - timedelta(days=30)
    with open_store(target) as store:
        store.add(
            "support-bot",
            worked("source"),
            now=old,
            occurred_at=CALL_TIME,
            schema="customer_service",
            last_used_at=old,
        )
        settings = DemotionSettings(
            ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
        )
        Demoter(store, settings).run(datetime.now(UTC))
        store.add("other", "Order ORD-77 shipped on 2026-03-02.", now=old, last_used_at=old)


def test_api_metrics(target: str) -> None:
    keys = make_keys(target)
    _seed(target)
    with running_api(target) as base:
        with client(base, keys.alice) as http:
            assert http.get("/metrics").status_code == 403
            assert http.get("/v1/search", params={"q": "ORD-77"}).status_code == 200
        with client(base, keys.operator) as ops:
            response = ops.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = _samples(response.text)
    attempt = (
        "factdiff_compression_attempts_total",
        (
            ("agent", "support-bot"),
            ("outcome", "failed"),
            ("schema", "customer_service"),
            ("version", "2"),
        ),
    )
    assert samples[attempt] == 1
    assert samples[("factdiff_review_backlog", ())] == 1
    assert samples[("factdiff_due_hot_entries", ())] == 1
    lost = [k for k in samples if k[0] == "factdiff_facts_lost_total"]
    assert lost
    assert all(dict(labels)["criticality"] != "unknown" for _, labels in lost)
    assert samples[("factdiff_search_seconds_count", ())] == 1  # alice's one search


def test_reevaluations_are_counted(target: str, tmp_path: Path) -> None:
    from factdiff.demotion.reevaluation import Reevaluator
    from tests.integration.evolution_helpers import LATER, NAME, V2, register, schema, seed

    keys = make_keys(target)
    with open_store(target) as store:
        seed(store, tmp_path, count=12)
        register(store, schema(2, tmp_path), V2)
        reevaluator = Reevaluator(store)
        reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER)
        report = reevaluator.run(LATER, schema_name=NAME).to_json()
    with running_api(target) as base, client(base, keys.operator) as ops:
        samples = _samples(ops.get("/metrics").text)
    counted = {
        dict(labels)["result"]: value
        for name, labels in samples
        if name == "factdiff_reevaluations_total"
        for value in [samples[(name, labels)]]
        if dict(labels)["schema"] == NAME and dict(labels)["version"] == "2"
    }
    expected = {r: report[r] for r in ("promoted", "annotated", "clean") if report[r]}
    assert counted == expected
    assert counted["promoted"] > 0


def test_worker_metrics_port(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    _seed(db)
    port = free_port()
    worker = subprocess.Popen(
        [sys.executable, "-m", "factdiff.cli", "worker", "--db", db, "--metrics-port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "FACTDIFF_POLL": "0.1"},
    )
    try:
        text = ""
        for _ in range(200):
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
                break
            except httpx.TransportError:
                time.sleep(0.05)
        samples = _samples(text)
        assert samples[("factdiff_review_backlog", ())] == 1
        assert ("factdiff_demotion_seconds_count", ()) in samples
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=60)
