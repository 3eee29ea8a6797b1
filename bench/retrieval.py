"""Retrieval on the dev data: fact-aware search against plain BM25, before and after demotion,
gap-aware hits, latency at scale, index build time and size.

Run: ``.venv/bin/python bench/retrieval.py [--pg DSN] [--scales 10000,100000]
[--quality-backends sqlite,postgres] [--limit N]``

Corpus and questions: see ``bench/retrieval_queries.py`` (every dev dialogue is one entry;
questions come from the datasets' own labels and metadata, never from factdiff).

1. **Quality** (per backend in ``--quality-backends``): the corpus is added with
   ``add_many`` (hot entries are indexed as they are added), every question is asked with
   ``store.search(question, k=5, touch=False)``, then the store is demoted (three passes of
   the offline default ladder, 30, 33 and 36 days later) and every question is asked again.
   A question is a hit@k when one of its relevant entries is among the first k hits. The
   baseline is plain BM25 (SQLite FTS5 ``bm25``, same ``porter unicode61`` tokenizer) over
   the full source texts, every word of the question OR-ed, in an in-memory table built in
   the same run; it does not change with demotion (it always has the full sources).
2. **Gaps**: after demotion, for every warm entry whose compression noted known gaps, the
   question ``What was the <gap field words> for <fact>?`` where ``<fact>`` is the surface
   text of an identifier (else a phone number or an email) of the entry's record that no
   other entry states, so exactly one entry answers. Counted: the entry comes first; it has
   the gap in ``gap_hit``; its source is attached (``include_source="auto"``).
3. **Scale** (SQLite, and PostgreSQL with ``--pg``): stores of 10,000 and 100,000 entries
   (the corpus cycled, each copy with its own first line), added with ``add_many`` in
   batches of 5,000 (throughput reported, indexing included). Latency of ``search`` over a
   fixed mix of 400 questions (100 of each: id alone, id in a sentence, amount or date,
   natural language), read only (``touch=False``) and recorded as use (``touch=True``, one
   write per search), p50 and p95 after a warm-up; index build time (``build_search_index(
   rebuild=True)`` over every entry); on PostgreSQL the load is followed by ``ANALYZE`` (as
   autovacuum does after a bulk load: the search reads the most common words from the
   planner's statistics); size of the indexes (``INDEX_TABLES``: the text and
   fact indexes, the stored hot records (a warm entry's hashes and narrative keys are columns
   of its warm row since schema version 11; the load is hot), with their own B-trees and
   SQLite's FTS5 tables) against the rest of the store, measured as loaded, before
   the rebuild (SQLite: ``dbstat`` pages after VACUUM; PostgreSQL: ``pg_total_relation_size``
   after VACUUM).

The machine may be shared: timings are noisy; rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import DEFAULT_DATA, print_table
from bench.pg import pg_schema
from bench.retrieval_queries import (
    CorpusEntry,
    Question,
    amount_questions,
    date_questions,
    entries_stating,
    id_questions,
    load_corpus,
    nl_questions,
)
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.extraction.record import FactRecord
from factdiff.retrieve.gaps import KnownGap, gap_words, known_gaps
from factdiff.retrieve.keys import record_facts
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import MemoryStore, NewEntry, Tier, open_store
from factdiff.values.base import FactType

T0 = datetime(2026, 1, 15, tzinfo=UTC)
INDEX_TABLES = ("search_docs", "fact_index", "hot_records", "fact_pending")
"""What counts as the search indexes (with their own indexes, and SQLite's FTS5 tables)."""
K = 5
_WORD = re.compile(r"[^\W_]+")
GAP_FACT_TYPES = (FactType.IDENTIFIER, FactType.PHONE, FactType.EMAIL)
"""Facts that name one thing: a date or an amount, however it is written, is shared by many
entries and would make the question ambiguous."""


# -- the baseline -------------------------------------------------------------------------


class PlainBM25:
    """BM25 over the full source texts: SQLite FTS5, every word of the question OR-ed."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.db = sqlite3.connect(":memory:")
        tokenizer = "porter unicode61 remove_diacritics 2"
        self.db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{tokenizer}')")
        with self.db:
            self.db.executemany(
                "INSERT INTO t (rowid, body) VALUES (?, ?)", [(i, x) for i, x in enumerate(texts)]
            )

    def top(self, question: str, k: int) -> list[int]:
        words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(question)))
        if not words:
            return []
        query = " OR ".join(f'"{w}"' for w in words)
        sql = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?"
        return [int(r[0]) for r in self.db.execute(sql, (query, k))]


# -- quality ------------------------------------------------------------------------------


@dataclass
class Tally:
    """hit@1 and hit@k counts of one group of questions."""

    asked: int = 0
    hit1: int = 0
    hitk: int = 0

    def add(self, ranked: Sequence[int], relevant: frozenset[int]) -> None:
        self.asked += 1
        self.hit1 += bool(ranked[:1] and ranked[0] in relevant)
        self.hitk += any(r in relevant for r in ranked[:K])

    def cells(self) -> list[str]:
        if not self.asked:
            return ["-", "-"]
        return [f"{self.hit1 / self.asked:.3f}", f"{self.hitk / self.asked:.3f}"]


def ask_all(
    ask: Callable[[str], list[int]], questions: Sequence[Question]
) -> dict[tuple[str, str], Tally]:
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for question in questions:
        ranked = ask(question.text)
        tallies[(question.kind, question.dataset)].add(ranked, question.relevant)
        tallies[(question.kind, "all")].add(ranked, question.relevant)
    return tallies


def store_asker(store: MemoryStore, index_of: dict[str, int]) -> Callable[[str], list[int]]:
    def ask(text: str) -> list[int]:
        hits = store.search(text, k=K, touch=False)
        return [index_of[h.entry_id] for h in hits]

    return ask


def add_corpus(store: MemoryStore, corpus: Sequence[CorpusEntry]) -> tuple[list[str], float]:
    entries = [
        NewEntry(c.agent, c.text, occurred_at=c.occurred_at, tags=(c.dataset,)) for c in corpus
    ]
    started = time.perf_counter()
    ids: list[str] = []
    for start in range(0, len(entries), 1000):
        ids.extend(store.add_many(entries[start : start + 1000], now=T0))
    return ids, time.perf_counter() - started


def demote_all(store: MemoryStore) -> tuple[Counter[str], float]:
    demoter = Demoter(store, DemotionSettings(older_than=timedelta(days=14)))
    counts: Counter[str] = Counter()
    started = time.perf_counter()
    for days in (30, 33, 36):
        report = demoter.run(T0 + timedelta(days=days), keep_results=False)
        counts.update(report.counts)
    return counts, time.perf_counter() - started


def gap_questions(
    store: MemoryStore, corpus: Sequence[CorpusEntry], ids: Sequence[str]
) -> list[tuple[str, str, KnownGap]]:
    """``(entry id, question, gap)`` for every warm entry with known gaps (see the module)."""
    schemas = SchemaResolver(store)
    out = []
    for index, entry_id in enumerate(ids):
        entry = store.get(entry_id)
        if entry.warm is None:
            continue
        record = FactRecord.from_json(entry.warm.record)
        gaps = known_gaps(entry.warm.meta, schemas.get(record.schema.name, record.schema.version))
        if not gaps:
            continue
        fact_text = _unique_fact(record, corpus, index)
        if fact_text is None:
            continue
        gap = gaps[0]
        out.append((entry_id, f"What was the {' '.join(gap_words(gap))} for {fact_text}?", gap))
    return out


def _unique_fact(record: FactRecord, corpus: Sequence[CorpusEntry], index: int) -> str | None:
    facts = [f for _, f in record_facts(record) if f.value.type in GAP_FACT_TYPES and f.text]
    facts.sort(key=lambda f: GAP_FACT_TYPES.index(f.value.type))
    for fact in facts:
        if entries_stating(list(corpus), fact.text) == {index}:
            return fact.text
    return None


def quality(label: str, target: str, corpus: list[CorpusEntry], questions: list[Question]) -> None:
    print(f"\n== quality on {label}: {len(corpus):,} entries, {len(questions):,} questions ==")
    baseline = PlainBM25([c.text for c in corpus])
    base = ask_all(lambda q: baseline.top(q, K), questions)
    with open_store(target) as store:
        ids, add_seconds = add_corpus(store, corpus)
        index_of = {entry_id: i for i, entry_id in enumerate(ids)}
        print(f"added (indexed) in {add_seconds:.1f} s ({len(ids) / add_seconds:,.0f} entries/s)")
        started = time.perf_counter()
        before = ask_all(store_asker(store, index_of), questions)
        ask_before = time.perf_counter() - started
        counts, demote_seconds = demote_all(store)
        tiers = store.stats()["tiers"]
        print(
            f"demotion: {dict(counts)} in {demote_seconds:.1f} s; now hot {tiers['hot']:,}, "
            f"warm {tiers['warm']:,}"
        )
        started = time.perf_counter()
        after = ask_all(store_asker(store, index_of), questions)
        ask_after = time.perf_counter() - started
        print(
            f"questions asked in {ask_before:.1f} s before and {ask_after:.1f} s after demotion "
            f"({len(questions) / ask_before:,.0f} and {len(questions) / ask_after:,.0f} per s)\n"
        )
        rows = []
        for key in sorted(before, key=lambda kd: (kd[0], kd[1] != "all", kd[1])):
            kind, dataset = key
            rows.append(
                [kind, dataset, str(before[key].asked), *base[key].cells(),
                 *before[key].cells(), *after[key].cells()]
            )  # fmt: skip
        print_table(
            ["questions", "dataset", "n", "BM25 @1", "BM25 @5", "before @1", "before @5",
             "after @1", "after @5"],
            rows,
        )  # fmt: skip
        warm_share(store, questions, ids)
        gaps(store, corpus, ids)


def warm_share(store: MemoryStore, questions: Sequence[Question], ids: Sequence[str]) -> None:
    """How many of the entries that answer the nl questions are warm after demotion."""
    answers = {i for q in questions if q.kind == "nl" for i in q.relevant}
    warm = sum(1 for i in answers if store.get(ids[i]).tier is Tier.WARM)
    print(f"\nnl answers warm after demotion: {warm:,} of {len(answers):,}")


def gaps(store: MemoryStore, corpus: Sequence[CorpusEntry], ids: Sequence[str]) -> None:
    asked = gap_questions(store, corpus, ids)
    first = flagged = attached = all_three = 0
    for entry_id, question, gap in asked:
        hits = store.search(question, k=K, touch=False)
        hit = next((h for h in hits if h.entry_id == entry_id), None)
        top = bool(hits) and hits[0].entry_id == entry_id
        has_gap = hit is not None and any(g.field == gap.field for g in hit.gap_hit)
        has_source = hit is not None and hit.source is not None
        first += top
        flagged += has_gap
        attached += has_source
        all_three += top and has_gap and has_source
    n = len(asked)
    print(f"\nquestions about a lost field (warm entries with known gaps): {n:,}")
    if n:
        print_table(
            ["entry first", "gap_hit set", "source attached", "all three"],
            [[f"{first / n:.3f}", f"{flagged / n:.3f}", f"{attached / n:.3f}",
              f"{all_three / n:.3f}"]],
        )  # fmt: skip
        print(f"example: {asked[0][1]!r}")


# -- scale --------------------------------------------------------------------------------


def copies(corpus: Sequence[CorpusEntry], count: int) -> Iterator[NewEntry]:
    cycle = itertools.cycle(corpus)
    for i in range(count):
        c = next(cycle)
        text = f"memo copy {i} of a {c.dataset} dialogue\n{c.text}"
        yield NewEntry(c.agent, text, occurred_at=c.occurred_at, tags=(c.dataset,))


def latency_mix(questions: Sequence[Question], per_kind: int = 100) -> list[str]:
    by_kind: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        kind = "amount_or_date" if q.kind in ("amount", "date") else q.kind
        by_kind[kind].append(q.text)
    mix: list[str] = []
    for kind in ("id", "id_sentence", "amount_or_date", "nl"):
        texts = by_kind[kind]
        step = max(1, len(texts) // per_kind)
        mix.extend(texts[::step][:per_kind])
    return mix


def timed(store: MemoryStore, mix: Sequence[str], touch: bool) -> list[float]:
    for text in mix[:20]:  # warm-up
        store.search(text, k=10, touch=False)
    out = []
    now = T0 + timedelta(days=1)
    for text in mix:
        started = time.perf_counter()
        store.search(text, k=10, touch=touch, now=now)
        out.append((time.perf_counter() - started) * 1000)
    return out


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def sqlite_sizes(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    conn.close()
    index_names = (*INDEX_TABLES, "search_", *(f"sqlite_autoindex_{t}" for t in INDEX_TABLES))
    index = sum(int(n) for name, n in rows if str(name).startswith(index_names))
    total = sum(int(n) for _, n in rows)
    return index, total - index


def pg_sizes(dsn: str, schema: str) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path = {schema}")
        conn.execute("VACUUM")
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind = 'r'",
            (schema,),
        ).fetchall()
    index = sum(int(n) for name, n in rows if name in INDEX_TABLES)
    return index, sum(int(n) for _, n in rows) - index


def scale(
    label: str,
    target: str,
    count: int,
    corpus: Sequence[CorpusEntry],
    mix: Sequence[str],
    sizes: Callable[[], tuple[int, int]],
) -> list[str]:
    with open_store(target) as store:
        started = time.perf_counter()
        batch: list[NewEntry] = []
        for entry in copies(corpus, count):
            batch.append(entry)
            if len(batch) == 5000:
                store.add_many(batch, now=T0)
                batch = []
        if batch:
            store.add_many(batch, now=T0)
        add_seconds = time.perf_counter() - started
        if store.dialect.name == "postgres":
            analyze(store)
        index_bytes, store_bytes = sizes()  # as loaded (a rebuild would leave dead rows)
        read = timed(store, mix, touch=False)
        used = timed(store, mix[::4], touch=True)
        started = time.perf_counter()
        rebuilt = store.build_search_index(rebuild=True)
        build_seconds = time.perf_counter() - started
        assert rebuilt == count, (rebuilt, count)
    return [
        label,
        f"{count:,}",
        f"{count / add_seconds:,.0f}",
        f"{pct(read, 0.5):.1f} / {pct(read, 0.95):.1f}",
        f"{pct(used, 0.5):.1f} / {pct(used, 0.95):.1f}",
        f"{build_seconds:.1f}",
        f"{index_bytes / 2**20:,.1f} / {store_bytes / 2**20:,.1f} MiB"
        f" = {index_bytes / store_bytes:.2f}x",
    ]


def analyze(store: MemoryStore) -> None:
    """ANALYZE the PostgreSQL store, as autovacuum does after a bulk load: the search reads
    the text index's most common words from the planner's statistics."""
    import psycopg

    with psycopg.connect(store.backend.dsn, autocommit=True) as conn:  # type: ignore[attr-defined]
        conn.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="dialogues per dataset (0: all)")
    parser.add_argument("--pg", help="PostgreSQL DSN (a fresh schema per store, dropped after)")
    parser.add_argument("--scales", default="10000,100000", help="store sizes for latency")
    parser.add_argument("--quality-backends", default="sqlite", help="sqlite,postgres")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()

    started = time.perf_counter()
    corpus = load_corpus(args.data, args.limit or None)
    questions = [
        *id_questions(corpus),
        *amount_questions(corpus),
        *date_questions(corpus),
        *nl_questions(corpus),
    ]
    kinds = Counter(q.kind for q in questions)
    print(
        f"{len(corpus):,} entries ({dict(Counter(c.dataset for c in corpus))}), questions "
        f"{dict(kinds)}, built in {time.perf_counter() - started:.1f} s; shared machine, "
        "timings are noisy"
    )
    backends = [b.strip() for b in args.quality_backends.split(",") if b.strip()]
    with tempfile.TemporaryDirectory(prefix="factdiff-retrieval-") as folder:
        if not args.skip_quality:
            for backend in backends:
                if backend == "sqlite":
                    quality("SQLite", str(Path(folder) / "quality.db"), corpus, questions)
                elif args.pg:
                    with pg_schema(args.pg, "bench_retrieval") as schema:
                        quality("PostgreSQL", schema.dsn, corpus, questions)
        mix = latency_mix(questions)
        rows: list[list[str]] = []
        for count in (int(s) for s in args.scales.split(",") if s.strip()):
            path = Path(folder) / f"scale_{count}.db"
            rows.append(
                scale(
                    "SQLite", str(path), count, corpus, mix, functools.partial(sqlite_sizes, path)
                )
            )
            path.unlink()
            if args.pg:
                with pg_schema(args.pg, "bench_retrieval") as schema:
                    rows.append(
                        scale(
                            "PostgreSQL",
                            schema.dsn,
                            count,
                            corpus,
                            mix,
                            functools.partial(pg_sizes, args.pg, schema.name),
                        )
                    )
        print(f"\n== scale: {len(mix)} queries (k=10), latency in ms ==")
        print_table(
            ["backend", "entries", "add/s (indexed)", "read p50 / p95", "use p50 / p95",
             "index build s", "index / store"],
            rows,
        )  # fmt: skip


if __name__ == "__main__":
    main()
