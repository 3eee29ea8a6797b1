"""Re-evaluation throughput on dev-data dialogue entries, SQLite and (with ``--pg``) PostgreSQL.

Run: ``.venv/bin/python bench/reevaluation.py [--entries N] [--pg DSN] [--data DIR]``

Entries: the dev dialogues (all four datasets) cut into windows of whole turns, interleaved
and cycled as in ``demotion_throughput.py`` (default 2,000 entries). Schema ``bench_dialogue``
v1 tracks the generic inventory but holds times, phones, quantities and durations
``contextual``: one default demotion pass (extractive, rung 0) compresses the entries under
v1, letting those go. v2 raises times and phones to ``critical`` and quantities to
``important`` (a material change): every warm entry is due for re-evaluation.

Measured, per backend: the enqueue statement, then one ``Reevaluator.run`` (items claimed 32
at a time with a lease, each entry's cold source read hash-checked, source and narrative
extracted under v2, diffed, and the batch's results committed in one transaction, each item
fenced on its own). Printed: entries checked, wall seconds, entries/s, p50/p99 of the
per-entry decision (reads + extraction + diff) and of the per-batch commit (the finishing
transaction: fences, warm rows or rehydration, index rows, events), the results, the
warm entries left verified, and a baseline in the
same process: the same re-diffs (two extractions + verify) on texts already in memory, with no
store at all; the ratio is what the store's side (reads, leases, commits, index rows) costs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import DEFAULT_DATA
from bench.demotion_throughput import base_windows, entry_stream
from bench.pg import pg_schema
from factdiff.demotion.demoter import Demoter
from factdiff.demotion.preparation import reference_of
from factdiff.demotion.reevaluation import BATCH, Reevaluator
from factdiff.schema.loader import schema_from_yaml
from factdiff.schema.model import FactSchema
from factdiff.store import MemoryStore, NewEntry, open_store
from factdiff.verify.check import DEFAULT_EXTRACTOR, verify

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NAME = "bench_dialogue"
V1 = """schema: bench_dialogue
version: 1
description: Dialogue windows; times, phones and amounts of things are context in v1.
inventory:
  identifier: critical
  money: critical
  date: critical
  datetime: critical
  time: contextual
  phone: contextual
  email: important
  percent: important
  quantity: contextual
  duration: contextual
"""
V2 = (
    V1.replace("version: 1", "version: 2")
    .replace("time: contextual", "time: critical")
    .replace("phone: contextual", "phone: critical")
    .replace("quantity: contextual", "quantity: important")
)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def register(store: MemoryStore, text: str) -> FactSchema:
    schema = schema_from_yaml(text, f"{NAME}.yaml")
    store.register_schema(
        schema.name, schema.version, schema.hash, schema.definition(), source_text=text, now=NOW
    )
    return schema


def load(store: MemoryStore, texts: list[str]) -> None:
    entries = [
        NewEntry("bench-agent", text, occurred_at=NOW - timedelta(days=40), schema=NAME)
        for text in texts
    ]
    store.add_many(entries, now=NOW - timedelta(days=30), index_facts=False)


def timed(samples: list[float], fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            samples.append(time.perf_counter() - started)

    return run


def baseline(store: MemoryStore, schema: FactSchema) -> tuple[int, float]:
    """The re-diffs alone on in-memory texts: (entries, seconds)."""
    pairs = []
    for entry in store.entries():
        if entry.warm is not None:
            pairs.append((entry, store.read_cold(entry.id), entry.warm.narrative))
    started = time.perf_counter()
    for entry, source, narrative in pairs:
        facts = DEFAULT_EXTRACTOR.extract(source, schema, reference_of(entry, source))
        summary = DEFAULT_EXTRACTOR.extract(narrative, schema, facts.reference)
        verify(facts, summary, schema)
    return len(pairs), time.perf_counter() - started


def measure(label: str, target: str, texts: list[str]) -> None:
    with open_store(target) as store:
        register(store, V1)
        load(store, texts)
        started = time.perf_counter()
        demoted = Demoter(store).run(NOW, keep_results=False)
        print(
            f"[{label}] loaded {len(texts)} entries; demotion under v1 in "
            f"{time.perf_counter() - started:.1f}s: {dict(sorted(demoted.counts.items()))}"
        )
        v2 = register(store, V2)
        reevaluator = Reevaluator(store)
        started = time.perf_counter()
        plan = reevaluator.plan(NAME, NOW)
        enqueued = reevaluator.enqueue(plan, NOW)
        enqueue_s = time.perf_counter() - started
        decide: list[float] = []
        commit: list[float] = []
        reevaluator.decide = timed(decide, reevaluator.decide)  # type: ignore[method-assign]
        store.finish_reevaluations = timed(commit, store.finish_reevaluations)
        started = time.perf_counter()
        report = reevaluator.run(NOW, schema_name=NAME)
        wall = time.perf_counter() - started
        data: Any = report.to_json()
        rate = data["checked"] / wall if wall else 0.0
        print(
            f"[{label}] enqueued {enqueued} items in {enqueue_s * 1000:.0f} ms; "
            f"re-evaluated {data['checked']} entries in {wall:.2f}s: {rate:.0f} entries/s"
        )
        print(
            f"[{label}] per entry: decide p50 {percentile(decide, 0.5) * 1000:.1f} ms "
            f"p99 {percentile(decide, 0.99) * 1000:.1f} ms; per batch of up to {BATCH}: commit "
            f"p50 {percentile(commit, 0.5) * 1000:.1f} ms p99 {percentile(commit, 0.99) * 1000:.1f}"
            f" ms ({sum(commit) / max(1, data['checked']) * 1000:.2f} ms per entry)"
        )
        print(
            f"[{label}] results: promoted {data['promoted']}, annotated {data['annotated']}, "
            f"clean {data['clean']}, skipped {data['skipped']}, stale {data['stale']}; "
            f"top fields: {list(data['fields'])[:4]}"
        )
        count, seconds = baseline(store, v2)
        base_rate = count / seconds if seconds else 0.0
        print(
            f"[{label}] baseline (re-diff only, no store) on {count} warm entries: "
            f"{base_rate:.0f} entries/s; re-evaluation / baseline = "
            f"{rate / base_rate if base_rate else 0.0:.2f}"
        )
        problems = store.verify()
        print(f"[{label}] verify: {'ok' if not problems else problems[:3]}")
        if decide:
            print(f"[{label}] mean decide {statistics.fmean(decide) * 1000:.1f} ms per entry")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--window-chars", type=int, default=1200)
    parser.add_argument("--pg", help="PostgreSQL DSN (a fresh schema, dropped after)")
    args = parser.parse_args()
    base = base_windows(args.data, args.window_chars)
    texts = [text for _, _, text in entry_stream(base, args.entries)]
    with tempfile.TemporaryDirectory() as folder:
        measure("sqlite", str(Path(folder) / "bench.db"), texts)
    if args.pg:
        with pg_schema(args.pg, "bench_reevaluation") as schema:
            measure("postgres", schema.dsn, texts)


if __name__ == "__main__":
    main()
