"""Demotion workers as real processes: many at once, SIGKILL, SIGSTOP, connection loss."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from factdiff.store import open_store
from factdiff.worker import Execution, Worker, WorkerSettings
from tests.integration.worker_harness import demotion_settings
from tests.integration.workers import (
    ROOT,
    check_end_state,
    load,
    read_executions,
    spawn,
    stop_all,
    wait_terminal,
)


@contextmanager
def killed_on_failure(*procs: subprocess.Popen[str]) -> Iterator[None]:
    """Kill the worker processes if the test fails before stopping them."""
    try:
        yield
    except BaseException:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.communicate()
        raise


WORKERS = int(os.environ.get("FACTDIFF_TEST_WORKERS", "8"))
ENTRIES = int(os.environ.get("FACTDIFF_TEST_ENTRIES", "2000"))


def test_in_process_worker_and_clean_stop(target: str) -> None:
    with open_store(target) as store:
        contents = load(store, 120)
    executions: list[Execution] = []
    lock = threading.Lock()

    def record(e: Execution) -> None:
        with lock:
            executions.append(e)

    settings = WorkerSettings(concurrency=3, lease_seconds=2, poll_seconds=0.05)
    worker = Worker(target, settings, demotion_settings(0.002), on_execution=record)
    runner = threading.Thread(target=worker.run)
    runner.start()
    with open_store(target) as store:
        try:
            wait_terminal(store, len(contents), timeout=120)
        finally:
            worker.stop()
            runner.join(30)
        assert not runner.is_alive()
        rows = [
            {
                "entry": e.entry_id,
                "token": e.token,
                "claimed": e.claimed_at.timestamp(),
                "expires": e.expires_at.timestamp(),
                "finished": e.finished_at.timestamp() if e.finished_at else None,
            }
            for e in executions
        ]
        states = check_end_state(store, contents, rows)
    assert states["review"] >= 2  # the empty entries
    assert worker.report.counts["lease_lost"] == 0
    assert worker.report.processed == len(executions)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_worker_processes_demote_every_entry_exactly_once(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "m.db") if backend == "sqlite" else request.getfixturevalue("pg_dsn")
    workers = WORKERS if backend == "postgres" else min(WORKERS, 4)
    entries = ENTRIES if backend == "postgres" else min(ENTRIES, 300)
    with open_store(db) as store:
        contents = load(store, entries)
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [spawn(db, logs / f"w{i}.jsonl", f"w{i}", "5", "2", "2") for i in range(workers)]
    with open_store(db) as store:
        try:
            wait_terminal(store, len(contents), timeout=240)
        finally:
            reports = stop_all(procs)
        executions = read_executions(logs)
        check_end_state(store, contents, executions)
    assert sum(r["released"] for r in reports) == 0
    assert sum(1 for r in reports if sum(r["counts"].values())) >= 2  # work was shared
    assert {e["worker"] for e in executions} == {f"w{i}" for i in range(workers)} or (
        len({e["worker"] for e in executions}) >= 2
    )


@pytest.mark.postgres
def test_sigkilled_workers_lose_nothing(pg_dsn: str, tmp_path: Path) -> None:
    """At least 30 SIGKILLs over 1,000 entries, a supervisor restarting the victims."""
    with open_store(pg_dsn) as store:
        contents = load(store, 1000)
    logs = tmp_path / "logs"
    logs.mkdir()
    lease = 1.0
    procs = {
        i: spawn(pg_dsn, logs / f"w{i}.jsonl", f"w{i}", "10", str(lease), "2") for i in range(4)
    }
    kills, generation, rng = 0, 0, random.Random(5)
    with open_store(pg_dsn) as store:
        try:
            time.sleep(1.5)
            while kills < 30 or store.stats()["entries"]["hot"].get("active", 0) > 0:
                if kills >= 200:
                    break
                victim = rng.choice(list(procs))
                procs[victim].send_signal(signal.SIGKILL)
                procs[victim].communicate()
                kills += 1
                generation += 1
                procs[victim] = spawn(
                    pg_dsn,
                    logs / f"w{victim}-{generation}.jsonl",
                    f"w{victim}-{generation}",
                    "10",
                    str(lease),
                    "2",
                )
                time.sleep(rng.uniform(0.15, 0.5))
            wait_terminal(store, len(contents), timeout=240)
            time.sleep(2 * lease)
            assert store.leases() == []
        finally:
            stop_all(list(procs.values()))
        assert kills >= 30
        check_end_state(store, contents, read_executions(logs))


@pytest.mark.postgres
def test_sigstopped_worker_cannot_commit_after_its_lease(pg_dsn: str, tmp_path: Path) -> None:
    with open_store(pg_dsn) as store:
        contents = load(store, 3, start=1)
    logs = tmp_path / "logs"
    logs.mkdir()
    paused = spawn(pg_dsn, logs / "paused.jsonl", "paused", "3000", "1", "3")
    with open_store(pg_dsn) as store, killed_on_failure(paused):
        deadline = time.monotonic() + 30
        while len(store.leases()) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(store.leases()) == 3
        paused.send_signal(signal.SIGSTOP)
        time.sleep(1.5)  # past the lease: no heartbeat from a stopped process
        taker = spawn(pg_dsn, logs / "taker.jsonl", "taker", "5", "1", "3")
        try:
            wait_terminal(store, len(contents), timeout=60)
        finally:
            paused.send_signal(signal.SIGCONT)
            time.sleep(3.5)  # the paused worker wakes up, finishes its model call, commits
            stop_all([paused, taker])
        executions = read_executions(logs)
        mine = [e for e in executions if e["worker"] == "paused"]
        assert len(mine) == 3
        assert not any(e["applied"] for e in mine)
        check_end_state(store, contents, executions)
        assert all(len(store.attempts(i)) == 1 for i in contents)


@pytest.mark.postgres
def test_terminated_connections_lose_nothing(pg_dsn: str, tmp_path: Path) -> None:
    import psycopg

    with open_store(pg_dsn) as store:
        contents = load(store, 400)
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [spawn(pg_dsn, logs / f"w{i}.jsonl", f"w{i}", "30", "2", "3") for i in range(3)]
    terminated, idle_in_tx = 0, []
    schema = pg_dsn.rsplit("%3D", 1)[1]
    with open_store(pg_dsn) as store, psycopg.connect(pg_dsn, autocommit=True) as admin:
        try:
            for _ in range(12):
                time.sleep(0.4)
                idle_in_tx += admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = "
                    "'factdiff-worker' AND state = 'idle in transaction' "
                    "AND state_change < now() - interval '20 ms'"
                ).fetchall()
                rows = admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'factdiff-worker' AND pid <> pg_backend_pid() "
                    "ORDER BY random() LIMIT 3"
                ).fetchall()
                terminated += len(rows)
            wait_terminal(store, len(contents), timeout=180)
        finally:
            stop_all(procs)
        assert terminated >= 10, schema
        assert idle_in_tx == []
        check_end_state(store, contents, read_executions(logs))


def test_cli_worker_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with open_store(db) as store:
        contents = load(store, 60)
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "factdiff"),
            "worker",
            "--db",
            str(db),
            "--concurrency",
            "2",
            "--lease",
            "5s",
            "--poll",
            "0.1s",
            "--older-than",
            "1d",
            "--backoff",
            "1s",
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with open_store(db) as store:
        try:
            deadline = time.monotonic() + 60
            while not store.stats()["tiers"]["warm"] and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert '"worker_id"' in out, (out, err[-3000:])
        assert store.leases() == []
        assert store.verify() == []
        assert store.stats()["tiers"]["warm"] >= 1
        assert sum(store.stats()["tiers"][t] for t in ("hot", "warm")) == len(contents)
