"""Demotion throughput on a SQLite store of dev-data dialogue entries (default 100,000).

Run: ``.venv/bin/python bench/demotion_throughput.py [--entries N] [--dir DIR] [--tmpfs-entries M]``

Entries: every MultiWOZ, SGD, tau-retail and Taskmaster-4 dialogue is cut into windows of
whole turns (``speaker: text`` lines, at most ``--window-chars`` characters, default 1,200);
the windows of the four datasets are interleaved in proportion and cycled until ``N``
entries exist. Each copy starts with a header line ``memo: replay <letters> of a <dataset>
dialogue`` whose letters change with the cycle, so no two entries share a content hash (no
extraction-cache hits) and the header states no fact (letters only; checked below). Every
entry gets the generic schema (the entries carry no schema and their agents have none, so
the catalog falls back to ``generic``), ``occurred_at`` = the dataset's own date where it
fixes one (SGD: 2019-03-01), and is dormant for 30 days (past the 14-day threshold).

Loading uses the public ``MemoryStore.add`` (one ``BEGIN IMMEDIATE`` transaction, one commit,
per entry). Demotion is one ``Demoter.run`` pass (concurrency 1, the default) with the
default ladder: each entry is claimed with a lease and gets its first attempt (rung 0:
extractive at 0.35x of the source's words); failed entries stay hot with a backoff (the later
rungs run in later passes, not measured here). Results are streamed (``keep_results=False``).

Where the time goes: ``DemotionReport.seconds`` (wall, and the busy wall time of each stage:
extract / summarize / verify / sql, every store call counted as sql) is printed as is, then
refined by timing wrappers placed around the store's methods, the summarizer and the
extractor (identities unchanged, so the pipeline runs exactly as configured):

* claim      - the lease statement and the re-read of each claimed entry with its content;
* extract    - rule extraction of the source;
* cache SQL  - extraction-cache lookup and insert (the insert is its own commit);
* summarize  - the extractive summarizer;
* verify     - extraction of the summary, diff and decision;
* apply SQL  - the outcome transaction (warm row + cold archive + attempt + events, or the
               failed attempt, backoff and event);
* other      - schema lookup, the event loop and the hand-offs to the store's thread (the
               store's commit of one entry overlaps the next entry's extraction, so this can
               be negative).

The store file is on disk (``--dir``, default a new temporary directory) with the store's
``synchronous=FULL``: every commit fsyncs the WAL. To show what that costs, a first, clearly
labelled pass of ``--tmpfs-entries`` entries (default 5,000; 0 skips it) runs on
``/dev/shm`` (RAM, fsync is free) when it exists; compare it with the disk run's figure at
5,000 entries. Memory: peak RSS (``ru_maxrss``) and current RSS are printed at 10k, 50k and
100k entries (and at the end), during load and during demotion; the loaded windows are
freed before demotion so the demotion figures show only what demotion holds.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import DEFAULT_DATA, LOADERS, Dialogue, build_entry
from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings, EntryResult
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.builtin import generic_schema
from factdiff.schema.model import FactSchema
from factdiff.store import MemoryStore, open_store
from factdiff.summarize import ExtractiveSummarizer, Summary, SummaryRequest
from factdiff.verify.check import extract

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
"""The demotion clock (the store never reads the wall clock)."""
DORMANT = timedelta(days=30)
CHECKPOINTS = (10_000, 50_000, 100_000)
STORE_METHODS = (
    "claim",
    "cached_extraction",
    "put_extraction",
    "schema_for",
    "get_schema_definition",
    "attempts",
)


# --------------------------------------------------------------------------- entries


def letters(n: int) -> str:
    """``0 -> 'a'``, ``25 -> 'z'``, ``26 -> 'ba'``: a counter written with letters only."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def header(cycle: int, dataset: str) -> str:
    """The first line of a copy: varies with the cycle, states no fact."""
    return f"memo: replay {letters(cycle + 26 * 26)} of a {dataset} dialogue"


def windows(dialogue: Dialogue, max_chars: int) -> Iterator[str]:
    """The dialogue as consecutive windows of whole turns of at most ``max_chars``."""
    start = 0
    while start < len(dialogue.turns):
        entry = build_entry(dialogue, max_chars=max_chars, start_turn=start)
        if entry.text.strip():
            yield entry.text
        start += max(1, len(entry.turn_spans))


def base_windows(data: Path, max_chars: int) -> list[tuple[str, date | None, str]]:
    """``(dataset, reference date, text)`` of every window, datasets interleaved in proportion."""
    keyed: list[tuple[float, int, tuple[str, date | None, str]]] = []
    for rank, (name, loader) in enumerate(LOADERS.items()):
        found = [
            (name, d.reference, text) for d in loader(data, None) for text in windows(d, max_chars)
        ]
        keyed.extend(((i + 0.5) / len(found), rank, w) for i, w in enumerate(found))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [w for _, _, w in keyed]


def entry_stream(
    base: list[tuple[str, date | None, str]], count: int
) -> Iterator[tuple[str, date | None, str]]:
    """``count`` entries: the windows cycled, each copy with its own header line."""
    made = 0
    cycle = 0
    while made < count:
        for dataset, reference, text in base:
            if made >= count:
                return
            yield dataset, reference, f"{header(cycle, dataset)}\n{text}"
            made += 1
        cycle += 1


# --------------------------------------------------------------------------- instruments


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux: ru_maxrss is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Current resident set size, from /proc (0 where unavailable)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def memory(label: str) -> str:
    return f"{label}: peak RSS {peak_rss_mb():.1f} MiB, current RSS {current_rss_mb():.1f} MiB"


class Timer:
    """Seconds accumulated per name."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - started)

        return timed


class TimedSummarizer:
    """The summarizer, timed; same identity."""

    def __init__(self, inner: ExtractiveSummarizer, timer: Timer) -> None:
        self.inner = inner
        self.timer = timer
        self.identity = inner.identity

    def summarize(self, request: SummaryRequest) -> Summary:
        started = time.perf_counter()
        try:
            return self.inner.summarize(request)
        finally:
            self.timer.add("summarize", time.perf_counter() - started)


class TimedExtractor:
    """The rules extractor, timed (source and summary calls together); same identity."""

    def __init__(self, inner: RulesExtractor, timer: Timer) -> None:
        self.inner = inner
        self.timer = timer
        self.identity = inner.identity

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        started = time.perf_counter()
        try:
            return self.inner.extract(text, schema, reference)
        finally:
            self.timer.add("extractor", time.perf_counter() - started)


def timed_settings(timer: Timer) -> DemotionSettings:
    """The default settings with the default ladder's summarizer and extractor timed."""
    default = DemotionSettings()
    summarizers: dict[int, TimedSummarizer] = {}
    ladder = []
    for rung in default.ladder:
        inner = rung.summarizer
        assert isinstance(inner, ExtractiveSummarizer), "the default ladder is extractive"
        wrapped = summarizers.setdefault(id(inner), TimedSummarizer(inner, timer))
        ladder.append(
            Rung(
                wrapped,
                budget_words=rung.budget_words,
                budget_ratio=rung.budget_ratio,
                min_words=rung.min_words,
                strictness=rung.strictness,
            )
        )
    extractor = default.extractor
    assert isinstance(extractor, RulesExtractor), "the default extractor is rules"
    return DemotionSettings(
        older_than=default.older_than,
        ladder=tuple(ladder),
        retry=default.retry,
        policy=default.policy,
        extractor=TimedExtractor(extractor, timer),
        max_source_bytes=default.max_source_bytes,
    )


def instrument(store: MemoryStore, timer: Timer) -> None:
    """Time the store methods the demoter calls outside its own ``sql`` bucket."""
    for name in STORE_METHODS:
        fn = getattr(store, name)
        setattr(store, name, timer.wrap(name, fn))


# --------------------------------------------------------------------------- run


def store_size_mb(path: Path) -> float:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            total += p.stat().st_size
    return total / 2**20


def load(
    store: MemoryStore,
    base: list[tuple[str, date | None, str]],
    count: int,
    progress: int,
    label: str,
) -> float:
    """Add ``count`` dormant entries; returns the seconds it took."""
    started = time.perf_counter()
    created = NOW - DORMANT
    for i, (dataset, reference, text) in enumerate(entry_stream(base, count), start=1):
        at = created + timedelta(milliseconds=i)
        store.add(
            f"bench-{dataset}",
            text,
            now=at,
            occurred_at=None
            if reference is None
            else datetime(reference.year, reference.month, reference.day, tzinfo=UTC),
            last_used_at=at,
        )
        if i % progress == 0 or i == count:
            elapsed = time.perf_counter() - started
            print(f"  [{label}] loaded {i:,} ({i / elapsed:,.0f}/s)", file=sys.stderr, flush=True)
        if i in CHECKPOINTS:
            print(f"  [{label}] load {i:,}: {memory('memory')}", flush=True)
    return time.perf_counter() - started


def demote(store: MemoryStore, count: int, progress: int, label: str) -> None:
    """One demotion pass over the store, with the time split and memory checkpoints."""
    timer = Timer()
    instrument(store, timer)
    demoter = Demoter(store, timed_settings(timer))
    done = 0
    started = time.perf_counter()
    marks: dict[int, float] = {}

    def on_result(result: EntryResult) -> None:
        nonlocal done
        done += 1
        if done % progress == 0 or done == count:
            elapsed = time.perf_counter() - started
            last = max((k for k in marks if k < done), default=0)
            recent = (done - last) / (elapsed - marks.get(last, 0.0))
            marks[done] = elapsed
            print(
                f"  [{label}] demoted {done:,}/{count:,} ({done / elapsed:,.1f}/s overall, "
                f"{recent:,.1f}/s over the last {done - last:,})",
                file=sys.stderr,
                flush=True,
            )
        if done in CHECKPOINTS or done == count:
            print(f"  [{label}] demotion {done:,}: {memory('memory')}", flush=True)

    report = demoter.run(NOW, on_result=on_result, keep_results=False)
    wall = time.perf_counter() - started
    n = report.processed
    print(f"  [{label}] outcomes of the pass: {dict(sorted(report.counts.items()))}")
    if 5000 in marks and count > 5000:
        print(f"  [{label}] first 5,000 entries: {5000 / marks[5000]:,.1f} entries/s")
    print(
        f"  [{label}] end to end: {n:,} entries in {wall:,.1f} s = {n / wall:,.1f} entries/s "
        f"({1000 * wall / max(n, 1):.2f} ms/entry)"
    )
    print(
        f"  [{label}] DemotionReport.seconds: "
        + ", ".join(f"{k} {v:,.1f} s" for k, v in report.seconds.items())
    )
    t = timer.seconds
    cache_sql = t.get("cached_extraction", 0.0) + t.get("put_extraction", 0.0)
    schema_sql = t.get("schema_for", 0.0) + t.get("get_schema_definition", 0.0)
    claim = t.get("claim", 0.0)
    src_extract = report.seconds["extract"]
    sum_extract = t.get("extractor", 0.0) - src_extract
    parts = [
        ("claim (lease statement + re-read of each entry)", claim),
        ("extract source", src_extract),
        ("extraction cache SQL (lookup + insert commit)", cache_sql),
        ("summarize (extractive)", t.get("summarize", 0.0)),
        ("verify: extract summary", sum_extract),
        ("verify: diff + decide", report.seconds["verify"] - sum_extract),
        (
            "apply outcome SQL (one transaction)",
            report.seconds["sql"] - claim - cache_sql - schema_sql,
        ),
        ("schema lookup SQL", schema_sql),
    ]
    parts.append(("other (loop, thread hand-offs; < 0: overlap)", wall - sum(s for _, s in parts)))
    print(
        f"  [{label}] time split (share of {wall:,.1f} s wall; store calls run in this thread "
        "while the next entry is prepared, so parts may overlap):"
    )
    for name, seconds in parts:
        print(
            f"      {name:<46} {seconds:9.1f} s  {100 * seconds / wall:5.1f}%  "
            f"{1000 * seconds / max(n, 1):6.2f} ms/entry"
        )
    print(f"  [{label}] all SQL together: {report.seconds['sql']:,.1f} s")


def child(phase: str, path: Path, args: argparse.Namespace, label: str) -> None:
    """Run one phase in a fresh interpreter; its stdout and stderr are this process's."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        f"--{phase}-only",
        str(path),
        "--data",
        str(args.data),
        "--entries",
        str(args.entries),
        "--window-chars",
        str(args.window_chars),
        "--progress",
        str(args.progress),
        "--label",
        label,
    ]
    sys.stdout.flush()
    subprocess.run(command, check=True)


def load_only(path: Path, args: argparse.Namespace, label: str) -> None:
    """Read the dev data and load the store (its own process)."""
    started = time.perf_counter()
    base = base_windows(args.data, args.window_chars)
    by_set: dict[str, int] = {}
    for dataset, _, _ in base:
        by_set[dataset] = by_set.get(dataset, 0) + 1
    words = sum(len(t.split()) for _, _, t in base) / len(base)
    print(
        f"  [{label}] dev data: {len(base):,} windows of <= {args.window_chars} chars "
        f"{by_set}, mean {words:.0f} words; read in {time.perf_counter() - started:.1f} s"
    )
    facts = extract(header(12345, "multiwoz"), generic_schema()).fact_count()
    print(f"  [{label}] facts stated by a header line: {facts}")
    print(f"  [{label}] {memory('after reading the dev data')}", flush=True)
    with open_store(path) as store:
        seconds = load(store, base, args.entries, args.progress, label)
    print(
        f"  [{label}] load: {args.entries:,} entries in {seconds:,.1f} s = "
        f"{args.entries / seconds:,.0f}/s (one add() transaction each); "
        f"store {store_size_mb(path):,.1f} MiB",
        flush=True,
    )


def demote_only(path: Path, args: argparse.Namespace, label: str) -> None:
    """The demotion pass (its own process: its peak RSS is demotion's alone)."""
    print(f"  [{label}] demotion process started: {memory('memory')}", flush=True)
    with open_store(path) as store:
        demote(store, args.entries, args.progress, label)
        tiers = store.stats()["tiers"]
    print(f"  [{label}] tiers after the pass: {tiers}; store {store_size_mb(path):,.1f} MiB")


def run(label: str, directory: Path, args: argparse.Namespace) -> None:
    """Load then demote, each in a fresh process (ru_maxrss survives fork and exec on Linux,
    so the parent that starts them never reads the dev data)."""
    path = directory / "bench.db"
    print(f"[{label}] store {path}: {args.entries:,} entries")
    child("load", path, args, label)
    child("demote", path, args, label)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=None, help="store folder (default: temp)")
    parser.add_argument("--tmpfs-entries", type=int, default=5_000)
    parser.add_argument("--window-chars", type=int, default=1_200)
    parser.add_argument("--progress", type=int, default=5_000)
    parser.add_argument("--keep", action="store_true", help="keep the store files")
    parser.add_argument("--load-only", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--demote-only", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--label", default="disk", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_only is not None:
        load_only(args.load_only, args, args.label)
        return
    if args.demote_only is not None:
        demote_only(args.demote_only, args, args.label)
        return

    print(
        "schema: generic (the entries and their agents carry none); one Demoter pass, "
        "default ladder (rung 0 = extractive, 0.35x source words)"
    )
    print(memory("orchestrating process"))
    shm = Path("/dev/shm")
    if args.tmpfs_entries > 0:
        if shm.is_dir() and os.access(shm, os.W_OK):
            folder = Path(tempfile.mkdtemp(prefix="factdiff-bench-", dir=shm))
            small = argparse.Namespace(**{**vars(args), "entries": args.tmpfs_entries})
            try:
                run("tmpfs /dev/shm, fsync free", folder, small)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        else:
            print("tmpfs pass skipped: /dev/shm is not available")

    folder = args.dir or Path(tempfile.mkdtemp(prefix="factdiff-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        run("disk, synchronous=FULL", folder, args)
    finally:
        if args.keep or args.dir is not None:
            print(f"store kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
