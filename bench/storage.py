"""Storage per tier after demotion on the dev data: does compression compress?

Run: ``.venv/bin/python bench/storage.py [--limit N] [--datasets ...] [--data DIR] [--pg DSN]``

Per dataset (MultiWOZ, SGD, tau-retail, Taskmaster-4; ``--limit`` dialogues each, evenly
spread, default 1000; 0 = all) and per attempt retention setting (``--attempt-retention``,
default ``all,warm-clean``), a fresh SQLite store gets every dialogue as one hot entry of
one agent (the dataset's name; generic schema), added with ``add_many``. The store is then
demoted with the default offline ladder (three passes, 30, 33 and 36 days later) and
measured. Printed per store:

* *entries* added and *warm* after demotion; *source* = UTF-8 bytes of the warm entries'
  sources (``stats --json`` ``storage.warm_source_bytes``);
* bytes of warm *narratives*, *records*, *meta*, *cold* archives and zstd *dicts*, and the
  ratios *warm x* = (narratives + records + meta) / source (target <= 0.5) and *cold x* =
  (archives + dictionaries) / source (target <= 0.35);
* the same tiers as this store stored them before the compact tiers (baseline, computed in
  the same process from the same rows): canonical JSON record and meta, zlib level 6
  archive: *base warm x*, *base cold x*;
* the SQLite file (WAL checkpointed) *before* demotion, *after* it, and after ``VACUUM``
  (the store before demotion vacuumed too, *before vac*); *smaller* says whether the whole
  vacuumed store after demotion is smaller than before it;
* checks: every warm entry's archive reads back byte-exact (hash-checked) and equals the
  source that was added, every warm record equals the rules extraction re-derived from its
  cold source, ``verify`` is clean, and every entry restored to hot is byte-exact.

With ``--pg DSN`` the same is measured on PostgreSQL (a fresh schema per dataset, dropped
after): the total relation size of the store's tables before demotion, after it, and after
``VACUUM FULL``.

Where the bytes go: per store, the bytes of each table and each index of the vacuumed store
before and after demotion (SQLite: the ``dbstat`` virtual table; PostgreSQL:
``pg_table_size`` of each table, toast included, and ``pg_relation_size`` of each index),
the relations that grew or shrank by at least ``--min-delta`` bytes, largest change first.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import LOADERS, base_parser, build_entry, print_table, resolve_limit, spread
from bench.pg import pg_schema
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.retrieve.index import extract_source, reference_date
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import MemoryStore, NewEntry, Tier, codec, open_store
from factdiff.store.compact_storage import StorageSizes

T0 = datetime(2026, 1, 5, tzinfo=UTC)


@dataclass
class Sizes:
    """What one store measured."""

    entries: int
    warm: int
    storage: StorageSizes
    base_warm: int
    base_cold: int
    before: int
    before_vacuum: int
    after: int
    after_vacuum: int
    problems: list[str]
    demote_seconds: float
    relations_before: dict[str, int]
    relations_after: dict[str, int]


def entries_of(data: Path, name: str, limit: int | None) -> list[NewEntry]:
    out = []
    for dialogue in spread(LOADERS[name](data, None), limit):
        text = build_entry(dialogue).text
        if not text.strip():
            continue
        ref = dialogue.reference
        occurred = None if ref is None else datetime(ref.year, ref.month, ref.day, tzinfo=UTC)
        out.append(NewEntry(name, text, occurred_at=occurred))
    return out


def demote_all(store: MemoryStore, retention: str) -> float:
    settings = DemotionSettings(older_than=timedelta(days=14), attempt_retention=retention)
    demoter = Demoter(store, settings)
    started = time.perf_counter()
    for days in (30, 33, 36):
        demoter.run(T0 + timedelta(days=days), keep_results=False)
    return time.perf_counter() - started


def baseline(store: MemoryStore, ids: Sequence[str]) -> tuple[int, int]:
    """Warm (narrative + JSON record + JSON meta) and cold (zlib) bytes as stored before."""
    warm = cold = 0
    for entry_id in ids:
        entry = store.get(entry_id)
        if entry.warm is None:
            continue
        warm += len(entry.warm.narrative.encode())
        warm += len(codec.dump_json(entry.warm.record, "record").encode())
        warm += len(codec.dump_json(entry.warm.meta.to_json(), "meta").encode())
        cold += len(zlib.compress(store.read_cold(entry_id).encode(), 6))
    return warm, cold


def checks(store: MemoryStore, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
    """Byte-exact archives, re-derived records, verify, byte-exact restores."""
    problems = list(store.verify())
    schemas = SchemaResolver(store)
    warm = []
    for entry_id, text in zip(ids, texts, strict=True):
        entry = store.get(entry_id)
        if entry.warm is None:
            continue
        warm.append((entry_id, text))
        source = store.read_cold(entry_id)
        if source != text:
            problems.append(f"{entry_id}: archive differs from the source")
        meta = entry.warm.meta
        schema = schemas.get(meta.schema.name, meta.schema.version)
        if schema is None:
            problems.append(f"{entry_id}: schema {meta.schema.name} not registered")
            continue
        again = extract_source(source, schema, reference_date(entry.occurred_at, source))
        if again.to_json() != entry.warm.record:
            problems.append(f"{entry_id}: warm record differs from the re-derived one")
    return problems


def restore_all(store: MemoryStore, warm: Sequence[tuple[str, str]]) -> list[str]:
    problems = []
    for entry_id, text in warm:
        store.restore(entry_id, T0 + timedelta(days=60))
        if store.get(entry_id).content != text:
            problems.append(f"{entry_id}: restored content differs")
    return problems + store.verify()


def sqlite_size(path: Path, vacuum: bool) -> int:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if vacuum:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path.stat().st_size


def sqlite_relations(path: Path) -> dict[str, int]:
    """Bytes of each table and index of a SQLite file (``dbstat``)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    finally:
        conn.close()
    return {str(name): int(size) for name, size in rows}


def pg_relations(dsn: str, name: str) -> dict[str, int]:
    """Bytes of each table (toast included) and index of a PostgreSQL schema."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT c.relname, CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) "
            "ELSE pg_table_size(c.oid) END FROM pg_class AS c "
            "JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'm', 'i')",
            (name,),
        ).fetchall()
    return {str(rel): int(size) for rel, size in rows}


def measure(
    store: MemoryStore,
    entries: list[NewEntry],
    size: Callable[[bool], int],
    relations: Callable[[], dict[str, int]],
    retention: str,
) -> tuple[Sizes, list[tuple[str, str]]]:
    ids: list[str] = []
    for start in range(0, len(entries), 1000):
        ids.extend(store.add_many(entries[start : start + 1000], now=T0))
    before = size(False)
    before_vacuum = size(True)
    relations_before = relations()
    seconds = demote_all(store, retention)
    texts = [e.content for e in entries]
    warm = [(i, t) for i, t in zip(ids, texts, strict=True) if store.get(i).tier is Tier.WARM]
    storage = store.storage()
    base_warm, base_cold = baseline(store, ids)
    problems = checks(store, ids, texts)
    after = size(False)
    after_vacuum = size(True)
    relations_after = relations()
    sizes = Sizes(
        len(ids),
        len(warm),
        storage,
        base_warm,
        base_cold,
        before,
        before_vacuum,
        after,
        after_vacuum,
        problems,
        seconds,
        relations_before,
        relations_after,
    )
    return sizes, warm


def pg_size(dsn: str, name: str, vacuum: bool) -> int:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        if vacuum:  # this schema's tables only (a bare VACUUM FULL takes the whole database)
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename",
                (name,),
            ).fetchall()
            listed = ", ".join(f'{name}."{t[0]}"' for t in tables)
            conn.execute(f"VACUUM FULL {listed}")
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class AS c "
            "JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (name,),
        ).fetchone()
    return int(row[0]) if row else 0


def kib(n: int) -> str:
    return f"{n / 1024:,.0f}K"


def ratio(n: int, d: int) -> str:
    return f"{n / d:.3f}" if d else "-"


def row_of(label: str, s: Sizes) -> tuple[list[str], list[str]]:
    st = s.storage
    source = st["warm_source_bytes"]
    narratives, records, meta = st["warm_narratives"], st["warm_records"], st["warm_meta"]
    cold, dicts = st["cold_archives"], st["dictionaries"]
    tiers = [
        label,
        str(s.entries),
        str(s.warm),
        kib(source),
        kib(narratives),
        kib(records),
        kib(meta),
        kib(cold),
        kib(dicts),
        ratio(narratives + records + meta, source),
        ratio(cold + dicts, source),
        ratio(s.base_warm, source),
        ratio(s.base_cold, source),
    ]
    files = [
        label,
        kib(s.before),
        kib(s.before_vacuum),
        kib(s.after),
        kib(s.after_vacuum),
        "yes" if s.after_vacuum < s.before_vacuum else "NO",
        kib(int(st["retrieval_index"] or 0)),
        f"{s.warm / s.demote_seconds:.0f}" if s.demote_seconds else "-",
        "ok" if not s.problems else f"{len(s.problems)} problems",
    ]
    return tiers, files


def relation_rows(label: str, s: Sizes, min_delta: int) -> list[list[str]]:
    """The relations of one store that changed by at least ``min_delta`` bytes."""
    names = set(s.relations_before) | set(s.relations_after)
    changes = [
        (name, s.relations_before.get(name, 0), s.relations_after.get(name, 0)) for name in names
    ]
    changes.sort(key=lambda c: (-abs(c[2] - c[1]), c[0]))
    return [
        [label, name, kib(b), kib(a), f"{(a - b) / 1024:+,.0f}K"]
        for name, b, a in changes
        if abs(a - b) >= min_delta
    ]


RELATION_HEADERS = ["store", "relation", "before", "after", "change"]
TIER_HEADERS = [
    "store",
    "entries",
    "warm",
    "source",
    "narr",
    "records",
    "meta",
    "cold",
    "dicts",
    "warm x",
    "cold x",
    "base warm x",
    "base cold x",
]
FILE_HEADERS = [
    "store",
    "before",
    "before vac",
    "after",
    "after vac",
    "smaller",
    "index",
    "demoted/s",
    "checks",
]


def main() -> None:
    parser = base_parser(__doc__.splitlines()[0], 1000)
    parser.add_argument("--datasets", default="multiwoz,sgd,tau,taskmaster")
    parser.add_argument("--pg", help="PostgreSQL DSN (a fresh schema per dataset, dropped after)")
    parser.add_argument(
        "--attempt-retention",
        default="all,warm-clean",
        help="the retention settings to measure, each on its own store (default both)",
    )
    parser.add_argument(
        "--min-delta",
        type=int,
        default=8192,
        help="list the relations that changed by at least this many bytes (default 8192)",
    )
    args = parser.parse_args()
    retentions = [r.strip() for r in args.attempt_retention.split(",") if r.strip()]
    limit = resolve_limit(args.limit)
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    tiers: list[list[str]] = []
    files: list[list[str]] = []
    relations: list[list[str]] = []
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="factdiff-storage-") as folder:
        for name in names:
            entries = entries_of(args.data, name, limit)
            for retention in retentions:
                label = f"{name} {retention}"
                path = Path(folder) / f"{name}-{retention}.db"
                with open_store(path) as store:
                    sizes, warm = measure(
                        store,
                        entries,
                        partial(sqlite_size, path),
                        partial(sqlite_relations, path),
                        retention,
                    )
                    problems += restore_all(store, warm[:200])
                t, f = row_of(f"{label} sqlite", sizes)
                tiers.append(t)
                files.append(f)
                relations += relation_rows(f"{label} sqlite", sizes, args.min_delta)
                problems += sizes.problems
                if not args.pg:
                    continue
                with pg_schema(args.pg, "bench_storage") as schema, open_store(schema.dsn) as store:
                    sizes, warm = measure(
                        store,
                        entries,
                        partial(pg_size, args.pg, schema.name),
                        partial(pg_relations, args.pg, schema.name),
                        retention,
                    )
                    problems += restore_all(store, warm[:200])
                t, f = row_of(f"{label} pg", sizes)
                tiers.append(t)
                files.append(f)
                relations += relation_rows(f"{label} pg", sizes, args.min_delta)
                problems += sizes.problems
    print("bytes per tier after demotion (default ladder); x = / source bytes of warm entries")
    print_table(TIER_HEADERS, tiers)
    print()
    print("store size: before demotion, after it, vacuumed (SQLite file / PostgreSQL relations)")
    print_table(FILE_HEADERS, files)
    print()
    print(f"where the bytes go: tables and indexes (vacuumed) that changed by >= {args.min_delta}")
    print_table(RELATION_HEADERS, relations)
    for problem in problems[:20]:
        print("problem:", problem)
    print(f"problems: {len(problems)} (restores checked: first 200 warm entries per store)")


if __name__ == "__main__":
    main()
