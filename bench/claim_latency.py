"""Claim latency and demotion throughput of the lease-based workers.

    FACTDIFF_BENCH_PG_DSN=postgresql://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m bench.claim_latency [--sizes 10000,1000000] [--seconds 3]

1. Claim latency: stores of each size are bulk-loaded (``generate_series`` on PostgreSQL, a
   recursive CTE on SQLite), analysed, then 1, 4 and 16 claimers (threads, one connection
   each) call ``claim(limit=1)`` in a loop for ``--seconds``: p50/p99 latency and claims/s.
2. End-to-end demotion: 1, 2 and 4 worker processes (``tests.integration.worker_harness``,
   offline pipeline, no model latency) demote ``--entries`` entries; entries/s until every
   entry is terminal, on SQLite and on PostgreSQL.

Each PostgreSQL run uses its own schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bench.pg import create_schema, drop_schema
from factdiff.store import MemoryStore, open_store

ROOT = Path(__file__).resolve().parents[1]
T0_US = 1_700_000_000_000_000

PG_LOAD = """
INSERT INTO entries (id, agent_id, tier, status, created_at, last_used_at, content_hash,
                     size_bytes)
SELECT lpad(g::text, 26, '0'), 'agent-' || (g % 100), 'hot', 'active', {t0},
       {t0} + g::bigint * 1000, 'sha256:bench', 20
FROM generate_series(1, {n}) AS g;
INSERT INTO hot_content (entry_id, content)
SELECT lpad(g::text, 26, '0'), convert_to('bench entry ' || g, 'UTF8')
FROM generate_series(1, {n}) AS g;
ANALYZE;
"""

SQLITE_LOAD = """
WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {n})
INSERT INTO entries (id, agent_id, tier, status, created_at, last_used_at, metadata, tags,
                     content_hash, size_bytes, attempt_count)
SELECT printf('%026d', i), 'agent-' || (i % 100), 'hot', 'active', {t0}, {t0} + i * 1000,
       '{{}}', '[]', 'sha256:bench', 20, 0 FROM g;
WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {n})
INSERT INTO hot_content (entry_id, content)
SELECT printf('%026d', i), CAST('bench entry ' || i AS BLOB) FROM g;
ANALYZE;
"""


def load_store(target: str, size: int) -> None:
    open_store(target).close()
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute(PG_LOAD.format(n=size, t0=T0_US).encode())
    else:
        import sqlite3

        lite = sqlite3.connect(target)
        lite.executescript(SQLITE_LOAD.format(n=size, t0=T0_US))
        lite.close()


def claim_run(target: str, claimers: int, seconds: float) -> tuple[float, float, float]:
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(claimers)
    stop_at: list[float] = []

    def claimer(index: int) -> None:
        store: MemoryStore = (
            open_store(target, pool_size=1)
            if target.startswith("postgresql://")
            else open_store(target, busy_timeout_ms=20000, busy_retries=20)
        )
        mine: list[float] = []
        try:
            start.wait()
            if not stop_at:
                stop_at.append(time.perf_counter() + seconds)
            while time.perf_counter() < stop_at[0]:
                began = time.perf_counter()
                store.claim(f"bench-{index}", lease_seconds=600, with_content=False)
                mine.append(time.perf_counter() - began)
        finally:
            store.close()
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=claimer, args=(i,)) for i in range(claimers)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    return p50, p99, len(latencies) / elapsed


def release_all(target: str) -> None:
    sql = "UPDATE entries SET lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL"
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute(sql)
            conn.execute("VACUUM ANALYZE entries")
    else:
        import sqlite3

        lite = sqlite3.connect(target)
        lite.execute(sql)
        lite.commit()
        lite.close()


def bench_claims(pg_dsn: str | None, sizes: list[int], seconds: float, tmp: Path) -> None:
    print("## claim latency (claim(limit=1), one connection per claimer)")
    print(
        f"{'backend':<9} {'entries':>9} {'claimers':>8} {'p50 ms':>8} {'p99 ms':>8} {'claims/s':>9}"
    )
    for size in sizes:
        backends: list[tuple[str, str, Callable[[], None]]] = []
        path = tmp / f"claims-{size}.db"
        backends.append(("sqlite", str(path), functools.partial(path.unlink, missing_ok=True)))
        if pg_dsn:
            schema = create_schema(pg_dsn, "bench_claims")
            backends.append(
                ("postgres", schema.dsn, functools.partial(drop_schema, pg_dsn, schema.name))
            )
        for name, target, cleanup in backends:
            try:
                started = time.perf_counter()
                load_store(target, size)
                load_s = time.perf_counter() - started
                for claimers in (1, 4, 16):
                    p50, p99, rate = claim_run(target, claimers, seconds)
                    print(
                        f"{name:<9} {size:>9} {claimers:>8} {p50:>8.2f} {p99:>8.2f} {rate:>9.0f}",
                        flush=True,
                    )
                    release_all(target)
                print(f"{'':<9} (loaded in {load_s:.1f}s)", flush=True)
            finally:
                cleanup()


def bench_demotion(pg_dsn: str | None, entries: int, tmp: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.integration.workers import load, spawn, stop_all, wait_terminal

    print(f"\n## end-to-end demotion, offline pipeline, {entries} entries, 2 threads/process")
    print(f"{'backend':<9} {'processes':>9} {'seconds':>8} {'entries/s':>10}")
    for processes in (1, 2, 4):
        runs: list[tuple[str, str, Callable[[], None]]] = []
        path = tmp / f"demote-{processes}.db"
        runs.append(("sqlite", str(path), functools.partial(path.unlink, missing_ok=True)))
        if pg_dsn:
            schema = create_schema(pg_dsn, "bench_claims")
            runs.append(
                ("postgres", schema.dsn, functools.partial(drop_schema, pg_dsn, schema.name))
            )
        for name, target, cleanup in runs:
            logs = tmp / f"logs-{name}-{processes}"
            logs.mkdir(exist_ok=True)
            try:
                with open_store(target) as store:
                    contents = load(store, entries)
                    started = time.perf_counter()
                    procs = [
                        spawn(target, logs / f"w{i}.jsonl", f"w{i}", "0", "30", "2")
                        for i in range(processes)
                    ]
                    try:
                        wait_terminal(store, len(contents), timeout=600)
                        elapsed = time.perf_counter() - started
                    finally:
                        stop_all(procs)
                print(
                    f"{name:<9} {processes:>9} {elapsed:>8.1f} {len(contents) / elapsed:>10.0f}",
                    flush=True,
                )
            finally:
                cleanup()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--skip-claims", action="store_true")
    parser.add_argument("--skip-demotion", action="store_true")
    args = parser.parse_args()
    pg_dsn = os.environ.get("FACTDIFF_BENCH_PG_DSN") or os.environ.get("FACTDIFF_TEST_PG_DSN")
    tmp = Path(tempfile.mkdtemp(prefix="factdiff-bench-"))
    print(f"machine: {os.cpu_count()} cores; PostgreSQL: {'yes' if pg_dsn else 'not set'}")
    try:
        if not args.skip_claims:
            sizes = [int(s) for s in args.sizes.split(",") if s]
            bench_claims(pg_dsn, sizes, args.seconds, tmp)
        if not args.skip_demotion:
            bench_demotion(pg_dsn, args.entries, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
