"""Moving a store: entries/s of ``export`` and ``import`` (``factdiff.store.transfer``).

Run: ``.venv/bin/python bench/store_transfer.py [--entries N] [--pg DSN]``

A SQLite source store gets ``N`` hot entries (default 100,000) through the bulk-add path
(``add_many`` with ``index_facts=False``, the facts indexed after, as ``factdiff add --jsonl
--defer-index`` then ``factdiff index`` do), from the demo corpus cycled, each copy with its
own first line. Then, timed:

* ``export``: ``export_lines`` of the whole store written to a file;
* ``import`` into a new SQLite file: ``import_lines`` of that file, one transaction with the
  search indexes rebuilt from the hot records the file carries (nothing is extracted again:
  reading the records' fact keys and writing the text index are most of its time);
* with ``--pg DSN``, the same import into PostgreSQL in a fresh schema (dropped after).

Each figure has the process's peak RSS after it (``ru_maxrss``, which only grows: a phase
that streams leaves it where the store's loading left it). The machine may be shared:
timings are noisy; say the load average (``uptime``) next to them.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import print_table
from bench.pg import pg_schema
from factdiff.demo import generate_corpus
from factdiff.store import NewEntry, open_store
from factdiff.store.transfer import export_lines, import_lines

NOW = datetime(2026, 3, 1, tzinfo=UTC)
BATCH = 10_000


def entries(count: int) -> Iterator[NewEntry]:
    """``count`` hot entries cycling over the demo corpus, each with its own first line."""
    corpus = generate_corpus(min(count, 2_000))
    for i, item in zip(range(count), itertools.cycle(corpus), strict=False):
        yield NewEntry(
            item.agent_id,
            f"memo copy {i}\n{item.content}",
            item.occurred_at,
            {},
            item.schema,
            item.tags,
            None,
        )


def peak_mb() -> float:
    """The process's peak resident set size so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reader(path: Path) -> Callable[[], Iterator[bytes]]:
    def lines() -> Iterator[bytes]:
        with path.open("rb") as stream:
            yield from stream

    return lines


def timed_import(target: str, path: Path, count: int, label: str) -> list[str]:
    with open_store(target) as store:
        started = time.perf_counter()
        summary = import_lines(store, reader(path))
        seconds = time.perf_counter() - started
    assert summary.counts["entry"] == count, summary.counts
    return [label, str(count), f"{seconds:.1f}", f"{count / seconds:,.0f}", f"{peak_mb():.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000, help="entries in the store")
    parser.add_argument("--pg", help="also import into this PostgreSQL DSN (fresh schema)")
    args = parser.parse_args()
    count: int = args.entries
    folder = Path(tempfile.mkdtemp(prefix="factdiff-transfer-"))
    source_path, export_path = folder / "source.db", folder / "store.jsonl"
    rows: list[list[str]] = []
    with open_store(source_path) as source:
        started = time.perf_counter()
        items = entries(count)
        while batch := list(itertools.islice(items, BATCH)):
            source.add_many(batch, now=NOW, index_facts=False)
        source.index_pending()
        rows.append(
            ["load (add_many + index)", str(count), f"{time.perf_counter() - started:.1f}", "-",
             f"{peak_mb():.0f}"]
        )  # fmt: skip
        started = time.perf_counter()
        with export_path.open("w", encoding="utf-8") as out:
            out.writelines(export_lines(source))
        seconds = time.perf_counter() - started
        rows.append(
            ["export", str(count), f"{seconds:.1f}", f"{count / seconds:,.0f}", f"{peak_mb():.0f}"]
        )
    rows.append(timed_import(str(folder / "target.db"), export_path, count, "import: SQLite"))
    if args.pg:
        with pg_schema(args.pg, "bench_transfer") as schema:
            rows.append(timed_import(schema.dsn, export_path, count, "import: PostgreSQL"))
    size_mb = export_path.stat().st_size / 1e6
    print_table(["step", "entries", "seconds", "entries/s", "peak RSS MB"], rows)
    print(f"export file: {size_mb:,.1f} MB; load average: {os.getloadavg()}")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
