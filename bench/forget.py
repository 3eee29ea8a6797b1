"""Erasure cost: ``MemoryStore.forget`` per entry against ``add`` of one entry, and ``vacuum``.

Run: ``.venv/bin/python bench/forget.py [--entries N] [--forget K] [--warm W] [--pg DSN]``

A store is filled with ``N`` dev-data entries (as ``bulk_add.py`` builds them, one
transaction), ``W`` of them demoted to warm (extractive summarizer), then in this process:

* ``add`` (baseline): one entry added, one transaction each, ``K`` times;
* ``forget`` of ``K`` hot entries and of the ``W`` warm ones, one transaction each (every
  erasure step; on SQLite the text index's segments are merged, so the cost grows with the
  index);
* ``vacuum``: the whole store rewritten once (SQLite ``VACUUM`` + WAL truncation,
  PostgreSQL ``VACUUM FULL``), with the SQLite file size before and after.

Latencies are p50 / p95 / max in milliseconds; the ratio is p50 over the baseline's p50.
``--pg DSN`` runs the same on PostgreSQL in a fresh schema (dropped after). The machine may be
shared: timings are noisy, rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bulk_add import dev_texts, lines
from bench.datasets import DEFAULT_DATA, print_table
from bench.pg import pg_schema
from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.store import MemoryStore, NewEntry, Tier, open_store

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max of ``samples`` (seconds) in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000, ordered[-1] * 1000


def fill(store: MemoryStore, texts: list[tuple[str, str]], count: int, warm: int) -> list[str]:
    items = [
        NewEntry(str(i["agent"]), str(i["text"]), None, {}, None, (), NOW)
        for i in lines(texts, count)
    ]
    ids = store.add_many(items, now=NOW)
    demoter = Demoter(store, DemotionSettings(ladder=ladder_from_spec("extractive:0.9x")))
    demoter.run(NOW + timedelta(days=30), limit=warm)
    return ids


def figures(target: str, texts: list[tuple[str, str]], args: argparse.Namespace) -> list[list[str]]:
    rows: list[list[str]] = []
    with open_store(target) as store:
        ids = fill(store, texts, args.entries, args.warm)
        warm = [e.id for e in store.entries(tier=Tier.WARM)]
        hot = [i for i in ids if i not in set(warm)][: args.forget]
        later = NOW + timedelta(days=60)
        adds = []
        for i in range(args.forget):
            start = time.perf_counter()
            store.add("bench", f"baseline note {i}: order ORD-{i:05d} ships today", now=later)
            adds.append(time.perf_counter() - start)
        hot_times = []
        for entry_id in hot:
            start = time.perf_counter()
            store.forget([entry_id], now=later, reason="bench")
            hot_times.append(time.perf_counter() - start)
        warm_times = []
        for entry_id in warm:
            start = time.perf_counter()
            store.forget([entry_id], now=later, reason="bench")
            warm_times.append(time.perf_counter() - start)
        base = percentiles(adds)[0]
        for name, samples in (("add (baseline)", adds), ("forget hot", hot_times)) + (
            (("forget warm", warm_times),) if warm_times else ()
        ):
            p50, p95, top = percentiles(samples)
            rows.append(
                [
                    name,
                    str(len(samples)),
                    f"{p50:.1f}",
                    f"{p95:.1f}",
                    f"{top:.1f}",
                    f"{p50 / base:.1f}x",
                ]
            )
        path = getattr(store, "path", None)
        size = path.stat().st_size if path is not None else None
        start = time.perf_counter()
        store.vacuum()
        spent = (time.perf_counter() - start) * 1000
        after = path.stat().st_size if path is not None else None
        sizes = "-"
        if size is not None and after is not None:
            sizes = f"file {size / 1e6:.1f} MB -> {after / 1e6:.1f} MB"
        rows.append(["vacuum", "1", f"{spent:.1f}", "-", "-", sizes])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=200, help="dialogues per dataset")
    parser.add_argument("--max-chars", type=int, default=4000)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--forget", type=int, default=50, help="hot entries to forget")
    parser.add_argument("--warm", type=int, default=20, help="entries demoted, then forgotten")
    parser.add_argument("--pg", default=None, help="also on this PostgreSQL server")
    args = parser.parse_args()
    texts = dev_texts(args.data, args.limit, args.max_chars)
    header = ["operation", "n", "p50 ms", "p95 ms", "max ms", "p50 vs add"]
    with tempfile.TemporaryDirectory() as folder:
        rows = figures(str(Path(folder) / "bench.db"), texts, args)
    print(f"SQLite, {args.entries} entries ({args.warm} warm)")
    print_table(header, rows)
    if args.pg:
        with pg_schema(args.pg, "bench_forget") as schema:
            rows = figures(schema.dsn, texts, args)
        print(f"\nPostgreSQL, {args.entries} entries ({args.warm} warm)")
        print_table(header, rows)


if __name__ == "__main__":
    main()
