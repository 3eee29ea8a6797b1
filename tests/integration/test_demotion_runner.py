"""Issue 10, items 2, 3 and 6, on the demotion runner: unexpected errors become recorded
error attempts and the window goes on; concurrent ``factdiff demote`` processes respect each
other's leases and backoffs; the worker logs its lifecycle, one line per event."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from factdiff.demotion.demoter import DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.demotion.worker import Worker, WorkerSettings
from factdiff.store import EntryStatus, EventType, Tier, open_store
from tests.conftest import ROOT, worked

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FACTDIFF = str(Path(sys.executable).parent / "factdiff")


def quick_errors() -> DemotionSettings:
    """Error attempts retried after a second; three in a row go to review."""
    second = timedelta(seconds=1)
    return DemotionSettings(
        older_than=timedelta(days=1),
        retry=RetryPolicy(error_base_delay=second, error_max_delay=second, error_budget=3),
    )


def test_an_unknown_schema_is_an_internal_error_attempt_and_the_worker_goes_on(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "m.db")
    with open_store(db) as store:
        broken = store.add("a", worked("source"), now=T0, schema="no_such_schema")
        fine = [store.add("a", worked("source"), now=T0) for _ in range(4)]
    worker = Worker(
        db, WorkerSettings(concurrency=2, lease_seconds=5, poll_seconds=0.05), quick_errors()
    )
    runner = threading.Thread(target=worker.run)
    runner.start()
    try:
        deadline = time.monotonic() + 60
        with open_store(db) as store:
            while store.get(broken).status is not EntryStatus.REVIEW:
                assert time.monotonic() < deadline, store.attempts(broken)
                time.sleep(0.1)
    finally:
        worker.stop()
        runner.join(30)
    assert not runner.is_alive()
    assert worker.report.failure is None
    with open_store(db) as store:
        entry = store.get(broken)
        attempts = store.attempts(broken)
        failures = list(store.events(broken, type=EventType.COMPRESSION_FAILURE))
        (review,) = store.events(broken, type=EventType.ESCALATED_TO_REVIEW)
        assert all(store.get(i).tier is Tier.WARM for i in fine)  # the window went on
        assert store.leases() == []
    assert (entry.attempt_count, entry.error_attempts) == (0, 3)
    assert [a.failure_class for a in attempts] == ["internal"] * 3
    for event in failures:
        assert event.payload["failure_class"] == "internal"
        assert event.payload["exception"] == "UsageError"
        assert "no_such_schema" in event.payload["error"]
    assert review.payload["reason"] == "errors"
    assert worker.report.counts["error"] == 3


def test_a_worker_that_cannot_go_on_exits_non_zero(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from factdiff.testing import Answer
    from tests.integration.llm_helpers import scripted

    db = tmp_path / "m.db"
    with open_store(db) as store:
        for _ in range(3):
            store.add("a", worked("source"), now=T0)
    with scripted(responder=lambda _r: Answer.unauthorized()) as server:
        env = dict(
            os.environ,
            OPENAI_BASE_URL=server.openai_url,
            OPENAI_API_KEY="sk-test-not-a-key",
            FACTDIFF_SUMMARIZER="openai:test-summarizer",
        )
        run = subprocess.run(
            [FACTDIFF, "worker", "--db", str(db), "--older-than", "1d", "--poll", "50ms", "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["failure"].startswith("paused: ")
    assert "credentials" in report["failure"]
    with open_store(db) as store:
        assert store.leases() == []
        assert all(e.attempt_count == e.error_attempts == 0 for e in store.entries())


def demote_process(db: Path, now: datetime) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            FACTDIFF,
            "demote",
            "--db",
            str(db),
            "--now",
            now.isoformat(),
            "--ladder",
            "naive:20",
            "--max-attempts",
            "1",
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_concurrent_demote_processes_attempt_each_entry_once(tmp_path: Path) -> None:
    """Three passes at once over 200 entries that all fail and go to review: each entry gets
    exactly one attempt, and the reports count exactly the escalations recorded."""
    db = tmp_path / "m.db"
    with open_store(db) as store:
        ids = [store.add(f"a{i % 3}", worked("source"), now=T0) for i in range(200)]
    now = T0 + timedelta(days=30)
    procs = [demote_process(db, now) for _ in range(3)]
    reports: list[dict[str, Any]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    counts: Counter[str] = Counter()
    for report in reports:
        counts.update(report["counts"])
    with open_store(db) as store:
        attempts = [store.attempts(i) for i in ids]
        escalations = list(store.events(type=EventType.ESCALATED_TO_REVIEW))
        assert store.leases() == []
    assert all(len(a) == 1 for a in attempts)
    assert counts["failed"] == 200
    assert counts["escalated"] == len(escalations) == 200
    assert sum(1 for r in reports if r["processed"]) >= 2  # the passes shared the work


def worker_lines(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines() if line.strip()]


def test_the_worker_logs_its_lifecycle_one_json_line_per_event(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    from factdiff.testing import Answer
    from tests.integration.llm_helpers import scripted

    db = tmp_path / "m.db"
    with open_store(db) as store:
        for _ in range(3):
            store.add("a", worked("source"), now=T0, schema="customer_service")
    with scripted(responder=lambda _r: Answer.text(worked("faithful"))) as server:
        env = dict(
            os.environ,
            OPENAI_BASE_URL=server.openai_url,
            OPENAI_API_KEY="sk-test-not-a-key",
            FACTDIFF_SUMMARIZER="openai:test-summarizer",
        )
        proc = subprocess.Popen(
            [
                FACTDIFF,
                "worker",
                "--db",
                str(db),
                "--older-than",
                "1d",
                "--poll",
                "50ms",
                "--log-format",
                "json",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            with open_store(db) as store:
                while store.stats()["tiers"]["warm"] < 3 and time.monotonic() < deadline:
                    time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = worker_lines(err)
    assert all(set(line) == {"time", "level", "logger", "message"} for line in lines)
    messages = [line["message"] for line in lines]
    assert messages[0].startswith("worker ")
    assert " started: " in messages[0]
    assert sum(m.startswith("claimed entry ") for m in messages) == 3
    assert sum(m.startswith("committed entry ") for m in messages) == 3
    assert messages[-1].startswith("worker ")
    assert " stopped: clean 3" in messages[-1]
    assert {line["logger"] for line in lines} == {"factdiff.worker"}  # no request logs
    assert "stopped" in out


def test_text_log_lines_are_single_lines(tmp_path: Path) -> None:
    import io
    import logging

    from factdiff.ops.logs import configure

    stream = io.StringIO()
    handler = configure("text", stream=stream)
    try:
        log = logging.getLogger("factdiff.worker")
        try:
            raise ValueError("bad\nvalue")
        except ValueError:
            log.exception("pool error\nwith detail")
        logging.getLogger("httpx2").info("HTTP Request: POST http://127.0.0.1/v1 200")
    finally:
        logging.getLogger().removeHandler(handler)
    (line,) = stream.getvalue().splitlines()
    assert line.endswith("pool error with detail: ValueError: bad value")
