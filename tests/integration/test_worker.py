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
from typing import Any

import pytest

from factdiff.demotion.worker import Execution, Worker, WorkerSettings
from factdiff.store import MemoryStore, open_store
from tests.integration.worker_harness import demotion_settings
from tests.integration.workers import (
    ROOT,
    check_end_state,
    load,
    read_executions,
    read_log,
    spawn,
    stop_all,
    wait_for,
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


def live_lease_owners(store: MemoryStore) -> dict[str, list[str]]:
    """Worker id -> the tokens of the unexpired leases it holds (database clock)."""
    now = store.db_now()
    owners: dict[str, list[str]] = {}
    for _, owner, token, expires in store.leases():
        if expires > now:
            owners.setdefault(owner, []).append(token)
    return owners


@pytest.mark.postgres
def test_sigkilled_workers_lose_nothing(pg_dsn: str, tmp_path: Path) -> None:
    """30 SIGKILLs of workers that hold leases (model latency 100 ms, so a running worker
    is almost always inside a model call), a supervisor restarting the victims, then the
    survivors finish the work. Every lease
    a victim held is in the log (claims and heartbeats are logged first-hand), so the
    overlap check covers the killed executions: nobody claimed their entries before the
    last expiry the victim was granted."""
    with open_store(pg_dsn) as store:
        contents = load(store, 1000)
    logs = tmp_path / "logs"
    logs.mkdir()
    lease, latency = "1", "100"
    names = {i: f"w{i}" for i in range(4)}
    procs = {
        i: spawn(pg_dsn, logs / f"{names[i]}.jsonl", names[i], latency, lease, "2") for i in names
    }
    killed_tokens: set[str] = set()
    kills, generation, rng = 0, 0, random.Random(5)
    with open_store(pg_dsn) as store, killed_on_failure(*procs.values()):
        try:
            deadline = time.monotonic() + 180
            while kills < 30:
                assert time.monotonic() < deadline, f"only {kills} lease holders killed"
                owners = live_lease_owners(store)
                holding = [i for i, name in names.items() if owners.get(name)]
                if not holding:
                    time.sleep(0.02)
                    continue
                victim = rng.choice(holding)
                procs[victim].send_signal(signal.SIGKILL)
                procs[victim].communicate()
                killed_tokens.update(owners[names[victim]])
                kills += 1
                generation += 1
                names[victim] = f"w{victim}-{generation}"
                procs[victim] = spawn(
                    pg_dsn, logs / f"{names[victim]}.jsonl", names[victim], latency, lease, "2"
                )
                time.sleep(rng.uniform(0.15, 0.5))
            wait_terminal(store, len(contents), timeout=240)
            wait_for(lambda: store.leases() == [], 10, "every lease to be released")
        finally:
            stop_all(list(procs.values()))
        executions = read_executions(logs)
        killed = [e for e in executions if e["killed"]]
        checked = killed_tokens & {e["token"] for e in killed}
        print(f"{kills} lease holders killed; {len(checked)} of their leases checked")
        assert kills >= 30
        assert len(checked) >= 30, (kills, len(killed))
        check_end_state(store, contents, executions)


def model_calls(logs: Path, worker: str) -> list[dict[str, Any]]:
    return [line for line in read_log(logs, "model_call") if line["worker"] == worker]


def executions_of(logs: Path, worker: str) -> list[dict[str, Any]]:
    return [line for line in read_log(logs, "execution") if line["worker"] == worker]


def leases_expired(store: MemoryStore) -> bool:
    now = store.db_now()
    return all(expires <= now for *_, expires in store.leases())


@pytest.mark.postgres
def test_sigstopped_worker_cannot_commit_after_its_lease(pg_dsn: str, tmp_path: Path) -> None:
    """Stopped only once all three of its slots are inside their model call (logged by the
    scripted model), resumed only after another worker committed every entry."""
    with open_store(pg_dsn) as store:
        contents = load(store, 3, start=1)
    logs = tmp_path / "logs"
    logs.mkdir()
    paused = spawn(pg_dsn, logs / "paused.jsonl", "paused", "3000", "1", "3")
    with open_store(pg_dsn) as store, killed_on_failure(paused):
        wait_for(lambda: len(model_calls(logs, "paused")) == 3, 60, "three model calls")
        paused.send_signal(signal.SIGSTOP)
        wait_for(lambda: leases_expired(store), 30, "the paused worker's leases to expire")
        taker = spawn(pg_dsn, logs / "taker.jsonl", "taker", "5", "1", "3")
        with killed_on_failure(taker):
            try:
                wait_terminal(store, len(contents), timeout=60)
            finally:
                paused.send_signal(signal.SIGCONT)
            wait_for(lambda: len(executions_of(logs, "paused")) == 3, 60, "the resumed commits")
            stop_all([paused, taker])
        executions = read_executions(logs)
        mine = executions_of(logs, "paused")
        assert not any(e["applied"] for e in mine)
        check_end_state(store, contents, executions)
        assert all(len(store.attempts(i)) == 1 for i in contents)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_only_the_lease_token_refuses_a_resumed_workers_commit(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The paused worker resumes while the taker is still inside its model call: the entry's
    attempt count has not moved, so the attempt-count fence cannot refuse the stale commit;
    only the lease token can."""
    db = str(tmp_path / "m.db") if backend == "sqlite" else request.getfixturevalue("pg_dsn")
    with open_store(db) as store:
        contents = load(store, 1, start=1)
    (entry_id,) = contents
    logs = tmp_path / "logs"
    logs.mkdir()
    paused = spawn(db, logs / "paused.jsonl", "paused", "1500", "1", "1")
    with open_store(db) as store, killed_on_failure(paused):
        wait_for(lambda: len(model_calls(logs, "paused")) == 1, 60, "the paused worker's call")
        paused.send_signal(signal.SIGSTOP)
        wait_for(lambda: leases_expired(store), 30, "the paused worker's lease to expire")
        taker = spawn(db, logs / "taker.jsonl", "taker", "6000", "1", "1")
        with killed_on_failure(taker):
            wait_for(lambda: len(model_calls(logs, "taker")) == 1, 60, "the taker's model call")
            paused.send_signal(signal.SIGCONT)
            wait_for(lambda: len(executions_of(logs, "paused")) == 1, 30, "the stale commit")
            assert store.get(entry_id).attempt_count == 0  # the taker has not committed yet
            wait_terminal(store, 1, timeout=60)
            stop_all([paused, taker])
        (stale,) = executions_of(logs, "paused")
        (fresh,) = executions_of(logs, "taker")
        assert stale["applied"] is False
        assert stale["outcome"] is not None  # it finished its compression and tried to commit
        assert fresh["applied"] is True
        assert stale["finished"] < fresh["finished"]
        assert len(store.attempts(entry_id)) == 1
        check_end_state(store, contents, read_executions(logs))


def idle_in_transaction(admin: Any, app: str) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND application_name = %s AND state = 'idle in transaction'",
        (app,),
    ).fetchall()
    return rows


@pytest.mark.postgres
def test_worker_stopped_inside_a_transaction_loses_its_commit(pg_dsn: str, tmp_path: Path) -> None:
    """SIGSTOP inside the outcome transaction, holding the entry's row lock: the other
    worker goes on with every other entry, the server ends the frozen session after its
    idle-in-transaction timeout (rolling it back), the entry's lease expires and it is
    demoted once; on SIGCONT the frozen worker's commit fails and writes nothing."""
    import psycopg

    with open_store(pg_dsn) as store:
        contents = load(store, 20, start=1)
    logs = tmp_path / "logs"
    logs.mkdir()
    app = "fdw-" + pg_dsn.rsplit("%3D", 1)[1]
    env = {"FACTDIFF_TEST_APP": app, "FACTDIFF_TEST_IDLE_TX": "3"}
    frozen = spawn(pg_dsn, logs / "frozen.jsonl", "frozen", "5", "1", "1", env={
        **env, "FACTDIFF_TEST_STOP_IN_COMMIT": "1"})  # fmt: skip
    with open_store(pg_dsn) as store, killed_on_failure(frozen):
        wait_for(lambda: bool(read_log(logs, "stopped_in_commit")), 60, "the stop in commit")
        (stop,) = read_log(logs, "stopped_in_commit")
        wait_for(lambda: process_state(frozen.pid) == "T", 10, "the worker to be stopped")
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            assert idle_in_transaction(admin, app), "the frozen worker holds no transaction"
            taker = spawn(pg_dsn, logs / "taker.jsonl", "taker", "5", "1", "2", env=env)
            with killed_on_failure(taker):
                wait_terminal(store, len(contents), timeout=120)
                assert idle_in_transaction(admin, app) == []
                frozen.send_signal(signal.SIGCONT)
                wait_for(lambda: bool(executions_of(logs, "frozen")), 30, "the failed commit")
                stop_all([frozen, taker])
        (lost,) = [e for e in executions_of(logs, "frozen") if e["entry"] == stop["entry"]]
        assert lost["applied"] is False
        assert lost["error"], lost
        assert [a.attempt_no for a in store.attempts(stop["entry"])] == [1]
        check_end_state(store, contents, read_executions(logs))


def process_state(pid: int) -> str:
    """The process's state letter from ``/proc`` (``T``: stopped)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


@pytest.mark.postgres
def test_terminated_connections_lose_nothing(pg_dsn: str, tmp_path: Path) -> None:
    """Only this test's workers are terminated: their sessions are found by this database
    and an application name unique to this test. No session is ever seen idle inside a
    transaction for half a model call (300 ms): no transaction spans a model call, whatever
    the load on the machine."""
    import psycopg

    with open_store(pg_dsn) as store:
        contents = load(store, 400)
    logs = tmp_path / "logs"
    logs.mkdir()
    app = "fdw-" + pg_dsn.rsplit("%3D", 1)[1]
    procs = [
        spawn(
            pg_dsn, logs / f"w{i}.jsonl", f"w{i}", "300", "2", "3", env={"FACTDIFF_TEST_APP": app}
        )
        for i in range(3)
    ]
    terminated, idle_in_tx = 0, []
    mine = (
        "FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s "
        "AND pid <> pg_backend_pid()"
    )
    with (
        open_store(pg_dsn) as store,
        psycopg.connect(pg_dsn, autocommit=True) as admin,
        killed_on_failure(*procs),
    ):
        try:
            wait_for(lambda: bool(admin.execute(f"SELECT 1 {mine}", (app,)).fetchall()), 60,
                     "the workers to connect")  # fmt: skip
            for _ in range(12):
                time.sleep(0.4)
                idle_in_tx += admin.execute(
                    f"SELECT pid {mine} AND state = 'idle in transaction' "
                    "AND state_change < now() - interval '150 ms'",  # half a model call
                    (app,),
                ).fetchall()
                rows = admin.execute(
                    f"SELECT pg_terminate_backend(pid) {mine} ORDER BY random() LIMIT 3", (app,)
                ).fetchall()
                terminated += len(rows)
            wait_terminal(store, len(contents), timeout=180)
        finally:
            stop_all(procs)
        assert terminated >= 10
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
