"""A worker's loops outlive their store connections, and its ``/readyz`` and ``/metrics`` say
when one is failing: ``factdiff worker --metrics-port`` as a real process on PostgreSQL, its
backends terminated with ``pg_terminate_backend``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from factdiff.demotion.reevaluation import Reevaluator
from factdiff.store import open_store
from tests.integration.evolution_helpers import LATER, NAME, V2, register, schema, seed
from tests.integration.service_helpers import free_port
from tests.integration.test_worker import killed_on_failure
from tests.integration.workers import ROOT, wait_for

ENTRIES = 12


def start_worker(db: str, port: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "FACTDIFF_DB"}
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "factdiff.cli", "worker", "--db", db),
            *("--metrics-port", str(port), "--poll", "0.2s", "--lease", "5s", "--json"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def readyz(port: int) -> tuple[int, dict[str, Any]]:
    """``/readyz``'s status and body (``(0, {})`` while nothing answers as it should)."""
    try:
        answer = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
        return answer.status_code, answer.json()
    except (httpx.TransportError, ValueError):
        return 0, {}


def loop_gauges(port: int) -> dict[tuple[str, str], float]:
    """``(metric, loop) -> value`` of the worker's loop gauges."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return {
        (sample.name, sample.labels["loop"]): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("factdiff_worker_loop_")
    }


def stop(proc: subprocess.Popen[str]) -> dict[str, Any]:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-3000:]
    report: dict[str, Any] = json.loads(out)
    return report


def mine(app: str) -> str:
    """The sessions of this test's worker: this database, its application name."""
    return (
        "FROM pg_stat_activity WHERE datname = current_database() "
        f"AND application_name = '{app}' AND pid <> pg_backend_pid()"
    )


@pytest.mark.postgres
def test_reevaluation_survives_terminated_backends_and_readyz_shows_the_outage(
    pg_dsn: str, tmp_path: Path
) -> None:
    """The re-evaluation loop's claim waits on a lock this test holds; its backend (and every
    other of the worker) is terminated. While the lock holds, the loop cannot succeed:
    ``/readyz`` answers 503 naming it, and its gauges say not ready with a failure. Once the
    lock is released, the loop reconnects on its own: a new schema version's items are all
    re-evaluated and ``/readyz`` is 200 again (before, the thread logged "stopped
    re-evaluating" and the items stayed pending for good)."""
    import psycopg

    app = "fdw-" + pg_dsn.rsplit("%3D", 1)[1]
    with open_store(pg_dsn) as store:
        seed(store, tmp_path, count=ENTRIES)
    port = free_port()
    worker = start_worker(f"{pg_dsn}&application_name={app}", port)
    with (
        killed_on_failure(worker),
        psycopg.connect(pg_dsn, autocommit=True) as locker,
        psycopg.connect(pg_dsn, autocommit=True) as admin,  # sees pg_stat_activity afresh
    ):
        wait_for(lambda: readyz(port)[0] == 200, 60, "the worker to be ready")
        with locker.transaction():
            locker.execute("LOCK TABLE reevaluations IN EXCLUSIVE MODE")  # reads go on
            waiting = f"SELECT pid {mine(app)} AND wait_event_type = 'Lock'"
            wait_for(lambda: bool(admin.execute(waiting).fetchall()), 30, "a claim on the lock")
            terminated = admin.execute(f"SELECT pg_terminate_backend(pid) {mine(app)}").fetchall()
            assert terminated

            def failing() -> bool:
                status, body = readyz(port)
                loop = body.get("loops", {}).get("reevaluation", {})
                return status == 503 and loop.get("failures", 0) >= 1

            wait_for(failing, 30, "readyz to show the failing re-evaluation loop")
            status, body = readyz(port)
            assert status == 503, body
            loop = body["loops"]["reevaluation"]
            assert "reevaluation" in body["status"], body
            assert loop["alive"] is True, body
            assert loop["ready"] is False, body
            assert loop["last_error"], body
            gauges = loop_gauges(port)
            assert gauges[("factdiff_worker_loop_ready", "reevaluation")] == 0
            assert gauges[("factdiff_worker_loop_failures", "reevaluation")] >= 1
            assert gauges[("factdiff_worker_loop_alive", "reevaluation")] == 1
        with open_store(pg_dsn) as store:
            register(store, schema(2, tmp_path), V2)
            reevaluator = Reevaluator(store)
            assert reevaluator.enqueue(reevaluator.plan(NAME, LATER), LATER) == ENTRIES
            wait_for(lambda: store.pending_reevaluations(NAME) == 0, 120, "re-evaluation to go on")
        wait_for(lambda: readyz(port)[0] == 200, 60, "the worker to be ready again")
        gauges = loop_gauges(port)
        assert gauges[("factdiff_worker_loop_ready", "reevaluation")] == 1
        assert gauges[("factdiff_worker_loop_failures", "reevaluation")] == 0
        report = stop(worker)
    assert sum(report["reevaluated"].values()) >= ENTRIES, report


def test_an_idle_worker_on_sqlite_is_ready(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    open_store(db).close()
    port = free_port()
    worker = start_worker(db, port)
    with killed_on_failure(worker):
        wait_for(lambda: readyz(port)[0] == 200, 60, "the worker to be ready")
        status, body = readyz(port)
        assert status == 200, body
        assert body["status"] == "ok"
        assert set(body["loops"]) == {"demotion", "reevaluation"}
        assert all(loop["ready"] and loop["last_success"] for loop in body["loops"].values())
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json() == {"status": "ok"}
        gauges = loop_gauges(port)
        assert gauges[("factdiff_worker_loop_ready", "demotion")] == 1
        assert gauges[("factdiff_worker_loop_last_success_timestamp_seconds", "demotion")] > 0
        stop(worker)
