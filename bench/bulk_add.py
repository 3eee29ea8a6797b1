"""Bulk loading: ``factdiff add --jsonl`` against one ``add`` per entry, on dev-data entries.

Run: ``.venv/bin/python bench/bulk_add.py [--entries N] [--baseline M] [--pg DSN]``

Entries: every MultiWOZ, SGD, tau-retail and Taskmaster-4 dialogue (``--limit`` per dataset)
becomes one memory entry (``speaker: text`` lines, at most ``--max-chars`` characters); the
entries are cycled until ``N`` exist, each copy with its own first line so no two share a
content hash. Each JSONL line carries ``text``, ``agent`` (one per dataset), ``occurred_at``
and ``tags``.

Figures, all on the same machine in one run:

* ``add`` per entry (baseline): ``MemoryStore.add`` called ``M`` times in this process, one
  transaction and one commit each (SQLite: ``synchronous=FULL``, an fsync per commit);
* ``add_many`` in process: the same store method the CLI uses, all ``N`` entries in one
  transaction;
* ``add_many`` with ``index_facts=False``: the same, the entries' words indexed and their
  facts (rules extraction, fact keys, stored record) left for ``index_pending``, timed next;
* ``factdiff add --jsonl FILE``: the command as a user runs it (a new process: start-up,
  reading and checking every line, one transaction), wall time and the child's peak RSS;
  again with ``--defer-index``;
* ``factdiff add`` of a one-line file: the fixed cost of a CLI call (start-up + open + commit).

``--pg DSN`` repeats the store figures on PostgreSQL in a fresh schema (dropped after).
The machine may be shared: timings are noisy, rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import DEFAULT_DATA, LOADERS, build_entry, print_table, spread
from bench.pg import pg_schema
from factdiff.store import NewEntry, open_store

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 3, 1, tzinfo=UTC)


def dev_texts(data: Path, per_dataset: int, max_chars: int) -> list[tuple[str, str]]:
    """``(dataset, entry text)`` for up to ``per_dataset`` dialogues of each dataset."""
    texts: list[tuple[str, str]] = []
    for name, loader in LOADERS.items():
        for dialogue in spread(loader(data, None), per_dataset):
            text = build_entry(dialogue, max_chars=max_chars).text
            if text.strip():
                texts.append((name, text))
    return texts


def lines(texts: list[tuple[str, str]], count: int) -> Iterator[dict[str, object]]:
    """``count`` JSONL objects cycling over ``texts``, each with its own first line."""
    cycle = itertools.cycle(texts)
    for i in range(count):
        dataset, text = next(cycle)
        yield {
            "text": f"memo copy {i} of a {dataset} dialogue\n{text}",
            "agent": f"{dataset}-agent",
            "occurred_at": "2026-01-15T10:00:00+00:00",
            "tags": [dataset],
        }


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}" if seconds > 0 else "-"


def store_figures(target: str, items: list[dict[str, object]], baseline: int) -> list[list[str]]:
    """Per-entry ``add`` (baseline) and ``add_many`` into the store at ``target``."""
    entries = [
        NewEntry(
            agent_id=str(item["agent"]),
            content=str(item["text"]),
            occurred_at=datetime.fromisoformat(str(item["occurred_at"])),
            tags=tuple(item["tags"]),  # type: ignore[arg-type]
        )
        for item in items
    ]
    rows = []
    with open_store(target) as store:
        sample = entries[:baseline]
        started = time.perf_counter()
        for e in sample:
            store.add(e.agent_id, e.content, now=NOW, occurred_at=e.occurred_at, tags=e.tags)
        single = time.perf_counter() - started
        started = time.perf_counter()
        ids = store.add_many(entries, now=NOW)
        many = time.perf_counter() - started
        assert len(ids) == len(entries)
        assert store.stats()["tiers"]["hot"] == len(sample) + len(entries)
        started = time.perf_counter()
        store.add_many(entries, now=NOW, index_facts=False)
        deferred = time.perf_counter() - started
        started = time.perf_counter()
        assert store.index_pending() == len(entries)
        pending = time.perf_counter() - started
    single_rate = len(sample) / single
    many_rate = len(entries) / many
    rows.append(["add per entry (baseline)", f"{len(sample):,}", f"{single:.2f}",
                 rate(len(sample), single), "1.0x"])  # fmt: skip
    rows.append(["add_many, one transaction", f"{len(entries):,}", f"{many:.2f}",
                 rate(len(entries), many), f"{many_rate / single_rate:.1f}x"])  # fmt: skip
    rows.append(["add_many, facts deferred (index_facts=False)", f"{len(entries):,}",
                 f"{deferred:.2f}", rate(len(entries), deferred), "words indexed"])  # fmt: skip
    rows.append(["  then index_pending (their facts)", f"{len(entries):,}", f"{pending:.2f}",
                 rate(len(entries), pending), "the deferred step"])  # fmt: skip
    return rows


def cli_figures(target: str, jsonl: Path, count: int, one: Path, *extra: str) -> list[list[str]]:
    """``factdiff add --jsonl`` wall time and peak RSS, and a one-entry ``add``."""
    factdiff = [sys.executable, "-m", "factdiff.cli"]
    env = {k: v for k, v in os.environ.items() if k != "FACTDIFF_DB"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*factdiff, "add", "--jsonl", str(jsonl), *extra, "--db", target, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()  # stderr stays small: one line at most
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    bulk = time.perf_counter() - started
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"factdiff add --jsonl failed: {err.decode()}")
    assert json.loads(out)["count"] == count
    peak_mb = usage.ru_maxrss / 1024
    singles = []
    for _ in range(5):
        started = time.perf_counter()
        one_run = subprocess.run(
            [*factdiff, "add", "--agent", "a", "--db", target, str(one)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        singles.append(time.perf_counter() - started)
        assert one_run.returncode == 0, one_run.stderr
    singles.sort()
    return [
        [" ".join(["factdiff add --jsonl", *extra, "(process)"]), f"{count:,}", f"{bulk:.2f}",
         rate(count, bulk), f"peak RSS {peak_mb:.0f} MB"],
        ["factdiff add FILE (1 entry, median of 5)", "1", f"{singles[2]:.3f}",
         rate(1, singles[2]), f"min {singles[0]:.3f} s"],
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--baseline", type=int, default=1_000, help="per-entry adds to time")
    parser.add_argument("--limit", type=int, default=200, help="dialogues per dataset")
    parser.add_argument("--max-chars", type=int, default=1_200)
    parser.add_argument("--pg", help="also measure on this PostgreSQL DSN (fresh schema)")
    args = parser.parse_args()

    texts = dev_texts(args.data, args.limit, args.max_chars)
    items = list(lines(texts, args.entries))
    mean_chars = sum(len(str(i["text"])) for i in items) / len(items)
    with tempfile.TemporaryDirectory(prefix="factdiff-bulk-") as folder:
        jsonl = Path(folder) / "entries.jsonl"
        with jsonl.open("w", encoding="utf-8") as handle:
            for item in items:
                handle.write(json.dumps(item, ensure_ascii=False) + "\n")
        one = Path(folder) / "one.txt"
        one.write_text(str(items[0]["text"]), encoding="utf-8")
        size_mb = jsonl.stat().st_size / 2**20
        print(
            f"{len(items):,} entries from {len(texts)} dev dialogues, mean {mean_chars:,.0f} "
            f"characters, JSONL {size_mb:.1f} MiB; shared machine, timings are noisy\n"
        )
        targets = [("SQLite (disk, synchronous=FULL)", str(Path(folder) / "store.db"))]
        with ExitStack() as schemas:
            if args.pg:
                schema = schemas.enter_context(pg_schema(args.pg, "bench_bulk"))
                targets.append(("PostgreSQL", schema.dsn))
            for label, target in targets:
                print(label)
                rows = store_figures(target, items, args.baseline)
                cli_target = str(Path(folder) / "cli.db") if target.endswith(".db") else target
                rows += cli_figures(cli_target, jsonl, len(items), one)
                rows += cli_figures(cli_target, jsonl, len(items), one, "--defer-index")[:1]
                print_table(["what", "entries", "seconds", "entries/s", "note"], rows)
                print()


if __name__ == "__main__":
    main()
