"""The HTTP API under load on loopback: uvicorn workers on PostgreSQL, concurrent adds and
searches from client threads, and a demotion worker running at the same time.

    FACTDIFF_BENCH_PG_DSN=postgresql://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m bench.service_load [--workers 4] [--clients 8] [--ops 50]

A fresh schema is created (and dropped after). ``factdiff serve --workers W`` and
``factdiff worker`` (offline pipeline, entries due at once) run as subprocesses; each client
thread, with its own agent key, alternates ``POST /v1/entries`` (a note with a unique
order id) and ``GET /v1/search`` for an id it added before. Printed: requests/s, p50/p95/p99
per route, the same operations made in-process on the store as a baseline (and the ratio),
errors (any non-2xx or transport error), and the check that nothing was lost: every id the
API returned is in the store, in one tier, with its text or its verified archive, every
search found its own entry, and ``verify`` finds no problem.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from factdiff.store import open_store
from factdiff.store.api_keys import KeyScope

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


@dataclass
class LoadResult:
    """What a load run measured and checked."""

    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    added: dict[str, str] = field(default_factory=dict)
    """Entry id -> the unique order id its text holds."""
    missed_searches: int = 0
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warm: int = 0
    baseline: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by nearest rank (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@contextmanager
def pg_schema(dsn: str) -> Iterator[str]:
    """A fresh schema on the server for the block: yields a DSN that uses it."""
    import psycopg

    name = "load_" + secrets.token_hex(5)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    joiner = "&" if "?" in dsn else "?"
    try:
        yield f"{dsn}{joiner}options=-csearch_path%3D{name}"
    finally:
        drop_schema(dsn, name)


def drop_schema(dsn: str, name: str, tries: int = 20) -> None:
    """Drop the schema ``name``, retrying while connections of ended processes linger."""
    import psycopg

    for attempt in range(tries):
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '2s'")
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            return
        except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
            if attempt == tries - 1:
                raise
            time.sleep(0.5)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _note(agent: int, n: int) -> tuple[str, str]:
    order = f"ORD-{agent:02d}{n:05d}"
    text = (
        f"Customer called about order {order}: 3 chairs for $1,2{n % 10}0.00, delivery on "
        f"2026-04-{1 + n % 28:02d} to the Denver office. Agreed to pay by card."
    )
    return order, text


@contextmanager
def _process(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``factdiff ARGS`` as a subprocess for the block (stderr kept in a temporary file)."""
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [PYTHON, "-m", "factdiff.cli", *args],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"factdiff serve exited with status {proc.returncode}")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("factdiff serve did not become ready within 60 s")


def _baseline(dsn: str, result: LoadResult, ops: int) -> None:
    """The same adds and searches in-process on the store (no HTTP), for the ratio."""
    now = datetime.now(UTC)
    with open_store(dsn) as store:
        for n in range(ops):
            order, text = _note(99, n)
            started = time.perf_counter()
            store.add("baseline", text, now=now)
            result.baseline["POST /v1/entries"].append(time.perf_counter() - started)
            started = time.perf_counter()
            store.search(order, agent="baseline", k=5)
            result.baseline["GET /v1/search"].append(time.perf_counter() - started)


def _client(
    base: str, key: str, agent: int, ops: int, result: LoadResult, lock: threading.Lock
) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    mine: list[tuple[str, str]] = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        for n in range(ops):
            order, text = _note(agent, n)
            started = time.perf_counter()
            try:
                response = http.post("/v1/entries", json={"text": text, "tags": ["load"]})
            except httpx.HTTPError as exc:
                with lock:
                    result.errors.append(f"POST /v1/entries: {type(exc).__name__}")
                continue
            elapsed = time.perf_counter() - started
            with lock:
                result.latencies["POST /v1/entries"].append(elapsed)
                if response.status_code != 201:
                    result.errors.append(f"POST /v1/entries: {response.status_code}")
                    continue
                entry_id = response.json()["id"]
                result.added[entry_id] = order
            mine.append((entry_id, order))
            wanted_id, wanted = mine[(n * 7) % len(mine)]
            started = time.perf_counter()
            try:
                found = http.get("/v1/search", params={"q": wanted, "k": 5})
            except httpx.HTTPError as exc:
                with lock:
                    result.errors.append(f"GET /v1/search: {type(exc).__name__}")
                continue
            elapsed = time.perf_counter() - started
            with lock:
                result.latencies["GET /v1/search"].append(elapsed)
                if found.status_code != 200:
                    result.errors.append(f"GET /v1/search: {found.status_code}")
                elif wanted_id not in {hit["entry_id"] for hit in found.json()["hits"]}:
                    result.missed_searches += 1


def run_load(dsn: str, *, workers: int = 4, clients: int = 8, ops: int = 50) -> LoadResult:
    """Serve the API on ``dsn`` (an empty schema) and load it; see the module docstring."""
    now = datetime.now(UTC)
    with open_store(dsn) as store:
        keys = [
            store.create_api_key(
                scope=KeyScope.AGENT, agent_id=f"agent-{i}", name=f"load-{i}", now=now
            ).secret
            for i in range(clients)
        ]
    result = LoadResult(seconds=0.0)
    _baseline(dsn, result, ops)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FACTDIFF_OLDER_THAN": "0s", "FACTDIFF_POLL": "0.2"}
    serve = ["serve", "--db", dsn, "--port", str(port), "--workers", str(workers)]
    with _process(serve, env) as server, _process(["worker", "--db", dsn], env):
        _wait_ready(base, server)
        lock = threading.Lock()
        threads = [
            threading.Thread(target=_client, args=(base, keys[i], i, ops, result, lock))
            for i in range(clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        result.seconds = time.perf_counter() - started
    _check_nothing_lost(dsn, result)
    return result


def _check_nothing_lost(dsn: str, result: LoadResult) -> None:
    with open_store(dsn) as store:
        for entry_id, order in sorted(result.added.items()):
            entry = store.get(entry_id)
            text = entry.content if entry.content is not None else store.read_cold(entry_id)
            if order not in text:
                result.lost.append(entry_id)
            if entry.tier.value == "warm":
                result.warm += 1
        result.problems = store.verify()


def report(result: LoadResult, workers: int, clients: int) -> str:
    """The figures, one line each."""
    requests = sum(len(v) for v in result.latencies.values())
    lines = [
        f"service load: {workers} uvicorn workers on PostgreSQL, {clients} clients, "
        f"demotion worker running",
        f"requests {requests} in {result.seconds:.2f} s: {requests / result.seconds:.1f} req/s",
    ]
    for route in sorted(result.latencies):
        values = result.latencies[route]
        base = result.baseline.get(route, [])
        ratio = statistics.median(values) / statistics.median(base) if base else float("nan")
        lines.append(
            f"  {route:<18} n={len(values):<5} p50={percentile(values, 0.5) * 1000:7.1f} ms  "
            f"p95={percentile(values, 0.95) * 1000:7.1f} ms  "
            f"p99={percentile(values, 0.99) * 1000:7.1f} ms  "
            f"in-process p50={percentile(base, 0.5) * 1000:6.1f} ms  x{ratio:.1f}"
        )
    lines.append(
        f"errors {len(result.errors)}; added {len(result.added)}, lost {len(result.lost)}, "
        f"demoted meanwhile {result.warm}; searches missing their entry "
        f"{result.missed_searches}; verify problems {len(result.problems)}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--ops", type=int, default=50, help="adds (and searches) per client")
    args = parser.parse_args()
    dsn = os.environ.get("FACTDIFF_BENCH_PG_DSN")
    if not dsn:
        sys.exit("set FACTDIFF_BENCH_PG_DSN=postgresql://... (a server you may create schemas on)")
    with pg_schema(dsn) as schema_dsn:
        result = run_load(schema_dsn, workers=args.workers, clients=args.clients, ops=args.ops)
    print(report(result, args.workers, args.clients))
    if result.errors or result.lost or result.problems or result.missed_searches:
        sys.exit(1)


if __name__ == "__main__":
    main()
