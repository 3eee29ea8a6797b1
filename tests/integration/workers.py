"""Helpers for the worker tests: load entries, run worker processes, check the end state."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from factdiff.store import EntryStatus, EventType, MemoryStore, Tier
from tests.integration.store_helpers import add_blank_entry

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def entry_text(i: int) -> str:
    if i % 97 == 0:
        return "   "  # empty: never compressed, escalated to review
    return (
        f"Call {i} with customer ACME-{i:05d}. They asked about invoice INV-{i:05d} "
        f"for ${i % 900 + 100},250.00, due 2026-03-{i % 27 + 1:02d}. "
        f"Agent promised a refund of ${i % 50 + 10}.00 by Friday and a callback at "
        f"+1 415 555 {i % 9000 + 1000:04d}. The customer was otherwise happy with the "
        "service and asked to be kept in the loop about the new billing portal. "
        "We also discussed shipping delays and the weather."
    )


def load(store: MemoryStore, count: int, start: int = 0) -> dict[str, str]:
    contents: dict[str, str] = {}
    for i in range(start, start + count):
        text, agent, now = entry_text(i), f"agent-{i % 5}", T0 + timedelta(seconds=i)
        if text.strip():
            entry_id = store.add(agent, text, now=now)
        else:  # refused by add now: a store written before the blank rule may hold one
            entry_id = add_blank_entry(store, agent, text, now)
        contents[entry_id] = text
    return contents


def spawn(
    db: str, log: Path, worker_id: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """A harness worker process (``extra``: latency_ms, lease_s, concurrency)."""
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.worker_harness", db, str(log), worker_id, *extra],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``check`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def terminal_count(store: MemoryStore) -> int:
    stats = store.stats()["entries"]
    return int(stats["warm"].get("active", 0)) + int(stats["hot"].get("review", 0))


def wait_terminal(store: MemoryStore, total: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while terminal_count(store) < total:
        if time.monotonic() > deadline:
            raise AssertionError(f"only {terminal_count(store)} of {total} terminal in time")
        time.sleep(0.2)


def stop_all(procs: list[subprocess.Popen[str]], timeout: float = 30) -> list[dict[str, Any]]:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    reports = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        assert proc.returncode == 0, err[-2000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def read_log(folder: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """Every line the harness logged in ``folder`` (of one ``kind``), file by file in order."""
    lines = []
    for path in sorted(folder.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            try:
                line = json.loads(text)
            except json.JSONDecodeError:  # a line cut by SIGKILL
                continue
            if kind is None or line.get("kind") == kind:
                lines.append(line)
    return lines


def read_executions(folder: Path) -> list[dict[str, Any]]:
    """One row per lease granted: the worker's ``execution`` line, or, for a lease whose
    worker died holding it (SIGKILL), its ``claim`` with the last expiry a heartbeat logged,
    no finish and ``killed`` set. Each row's ``expires`` is the latest expiry logged."""
    rows: list[dict[str, Any]] = []
    by_token: dict[str, dict[str, Any]] = {}
    for line in read_log(folder):
        kind, token = line.get("kind"), line.get("token")
        if token is None:
            continue
        if kind == "claim":  # a token claimed twice stays twice: check_end_state refuses it
            row = {**line, "finished": None, "applied": False, "killed": True}
            rows.append(row)
            by_token[token] = row
        elif kind == "heartbeat" and token in by_token:
            row = by_token[token]
            row["expires"] = max(row["expires"], line["expires"])
        elif kind == "execution":
            row = by_token.get(token) or {}
            if not row:
                rows.append(row)
                by_token[token] = row
            expires = max(line["expires"], row.get("expires", line["expires"]))
            row.update({**line, "expires": expires, "killed": False})
    return rows


def check_end_state(
    store: MemoryStore, contents: dict[str, str], executions: list[dict[str, Any]]
) -> dict[str, int]:
    """Every entry in exactly one terminal state, nothing lost or duplicated, no lease left,
    and no two executions of one entry holding its lease at the same time."""
    states: dict[str, int] = defaultdict(int)
    for entry_id, text in contents.items():
        entry = store.get(entry_id)
        attempts = store.attempts(entry_id)
        assert [a.attempt_no for a in attempts] == list(range(1, len(attempts) + 1))
        assert entry.attempt_count == len(attempts)
        passed = [a for a in attempts if a.outcome in ("clean", "acceptable_with_notes")]
        demoted = list(store.events(entry_id, type=EventType.DEMOTED))
        if entry.tier is Tier.WARM:
            assert len(passed) == 1, entry_id
            assert len(demoted) == 1, entry_id
            assert store.read_cold(entry_id) == text
            assert entry.warm is not None
            assert entry.warm.record
            states["warm"] += 1
        else:
            assert entry.status is EntryStatus.REVIEW, (entry_id, entry)
            assert entry.content == text
            assert passed == []
            assert demoted == []
            states["review"] += 1
    assert store.leases() == []
    assert store.verify() == []
    stats = store.stats()
    assert stats["tiers"]["warm"] == stats["tiers"]["cold"] == states["warm"]
    assert sum(stats["tiers"][t] for t in ("hot", "warm")) == len(contents)
    by_entry: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in executions:
        by_entry[e["entry"]].append(e)
    tokens = [e["token"] for e in executions]
    assert len(tokens) == len(set(tokens)), "a lease token was granted twice"
    for runs in by_entry.values():
        runs.sort(key=lambda e: e["claimed"])
        for before, after in itertools.pairwise(runs):
            held_until = min(before["expires"], before["finished"] or before["expires"])
            assert after["claimed"] >= held_until, (before, after)
    return dict(states)
