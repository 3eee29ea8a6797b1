"""A worker's loop health: ready only while alive, not failing and recently successful."""

from __future__ import annotations

import socket
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from factdiff.demotion.loop_health import DEMOTION, LOOPS, REEVALUATION, Backoff, LoopHealth


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ready(health: LoopHealth) -> dict[str, bool]:
    return {s.name: s.ready for s in health.statuses()}


def test_a_loop_is_ready_while_alive_not_failing_and_recently_successful() -> None:
    clock = Clock()
    health = LoopHealth(LOOPS, stale_after=30, clock=clock)
    assert ready(health) == {DEMOTION: False, REEVALUATION: False}  # not started
    health.started(DEMOTION)
    health.started(REEVALUATION)
    assert health.ready()  # just started: not stale yet
    clock.now += 31
    assert ready(health) == {DEMOTION: False, REEVALUATION: False}  # no success in time
    health.succeeded(DEMOTION)
    health.succeeded(REEVALUATION)
    assert health.ready()
    assert health.failed(REEVALUATION, "store x: terminating connection") == 1
    assert health.failed(REEVALUATION, "store x: connection refused") == 2
    assert ready(health) == {DEMOTION: True, REEVALUATION: False}
    document: Any = health.to_json()
    assert document["status"] == "not ready: reevaluation"
    assert document["loops"][REEVALUATION]["failures"] == 2
    assert document["loops"][REEVALUATION]["last_error"] == "store x: connection refused"
    health.succeeded(REEVALUATION)
    assert health.to_json()["status"] == "ok"
    health.stopped(REEVALUATION)  # its thread ended: dead
    assert ready(health) == {DEMOTION: True, REEVALUATION: False}
    assert [s.alive for s in health.statuses()] == [True, False]


def test_backoff_doubles_from_the_first_wait_up_to_its_cap() -> None:
    backoff = Backoff(first=0.5, cap=5.0)
    assert [backoff.delay(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert backoff.delay(10_000) == 5.0


def test_a_store_that_cannot_be_read_leaves_the_loop_gauges_in_metrics() -> None:
    pytest.importorskip("psycopg")
    from factdiff.ops.metrics import ProcessMetrics, snapshot_from

    health = LoopHealth(LOOPS, stale_after=30)
    health.started(DEMOTION)
    health.failed(DEMOTION, "store down")
    with socket.socket() as reserved:  # bound, never listening: the server is down
        reserved.bind(("127.0.0.1", 0))
        dsn = f"postgresql://factdiff@127.0.0.1:{reserved.getsockname()[1]}/none"
        metrics = ProcessMetrics(snapshot_from(dsn, timedelta(days=14)), health)
        text = generate_latest(metrics.registry).decode()
    samples = {
        (s.name, s.labels.get("loop")): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert samples[("factdiff_store_up", None)] == 0
    assert samples[("factdiff_worker_loop_failures", DEMOTION)] == 1
    assert samples[("factdiff_worker_loop_ready", DEMOTION)] == 0
    assert samples[("factdiff_worker_loop_alive", REEVALUATION)] == 0
