"""Compression ratio of the offline summarizers on the dev data, at the default ladder's rungs.

Run: ``.venv/bin/python bench/compression_ratio.py [--limit N] [--datasets ...] [--data DIR]``

Entries are whole dialogues (``speaker: text`` lines, ``build_entry``), ``--limit`` per
dataset evenly spread (default 1000; 0 = all). Every entry is extracted once with the
generic schema (reference: the dataset's own date where it fixes one, else the first full
date the text states, as demotion does).

For each rung of ``default_ladder()`` (budget = max(30, ratio x source words), strictness),
the extractive summarizer runs **from the source with no must-keep facts** (each rung on its
own, as a first attempt would), and the naive summarizer runs at the same word budget.
Columns:

* *words* = sum of summary words / sum of source words (``count_words``), over the entries;
  *med* = median of the per-entry word ratio; *bytes* = the same as *words* in UTF-8 bytes;
* *over* = share of extractive summaries over their budget (every critical fact is kept even
  past the budget);
* *pass* = share of summaries the fact diff passes (clean or acceptable).

The *ladder* row is what demotion actually stores: ``compress()`` climbs the default ladder
(a later rung is told which facts the previous diff lost) and the ratio is taken over the
summaries that passed; *pass* there is the share of entries that passed on some rung.
Budgets never go below 30 words, so short entries (Taskmaster-4: ~40 words) cannot reach
0.35. A rung's budget counts whitespace tokens (``len(text.split())``) while the ratios here
(and the summarizers) count ``count_words`` words (tokens holding a letter or digit): on
MultiWOZ, whose text has spaces before punctuation, 0.35x of the tokens is ~0.39x of the
words.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import (
    LOADERS,
    Entry,
    base_parser,
    build_entry,
    print_table,
    resolve_limit,
    spread,
)
from factdiff.compression.pipeline import Rung, compress
from factdiff.demotion.demoter import default_ladder
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor, infer_reference
from factdiff.schema.builtin import generic_schema
from factdiff.schema.model import FactSchema
from factdiff.summarize import NaiveSummarizer, SummaryRequest, count_words
from factdiff.verify.check import verify

EXTRACTOR = RulesExtractor()


def load_entries(data: Path, names: Sequence[str], limit: int | None) -> dict[str, list[Entry]]:
    """Whole-dialogue entries per dataset, ``limit`` evenly spread (empty texts dropped)."""
    out: dict[str, list[Entry]] = {}
    for name in names:
        dialogues = spread(LOADERS[name](data, None), limit)
        entries = [build_entry(d) for d in dialogues]
        out[name] = [e for e in entries if e.text.strip()]
    return out


def reference_for(entry: Entry) -> date | None:
    """The entry's own date (SGD), else the first full date its text states."""
    return entry.reference or infer_reference(entry.text)


@dataclass
class Tally:
    """Sums for one (dataset, rung, summarizer) row."""

    source_words: int = 0
    summary_words: int = 0
    source_bytes: int = 0
    summary_bytes: int = 0
    ratios: list[float] = field(default_factory=list)
    over: int = 0
    passed: int = 0
    entries: int = 0

    def add(self, source: str, summary: str, over: bool, passed: bool) -> None:
        sw, mw = count_words(source), count_words(summary)
        self.source_words += sw
        self.summary_words += mw
        self.source_bytes += len(source.encode())
        self.summary_bytes += len(summary.encode())
        if sw:
            self.ratios.append(mw / sw)
        self.over += over
        self.passed += passed
        self.entries += 1

    def row(self, label: str, budget: str, with_over: bool, total: int) -> list[str]:
        words = self.summary_words / self.source_words if self.source_words else 0.0
        size = self.summary_bytes / self.source_bytes if self.source_bytes else 0.0
        med = statistics.median(self.ratios) if self.ratios else 0.0
        return [
            label,
            budget,
            f"{self.entries}",
            f"{words:.3f}",
            f"{med:.3f}",
            f"{size:.3f}",
            f"{self.over / self.entries:.3f}" if with_over and self.entries else "-",
            f"{self.passed / total:.3f}" if total else "-",
        ]


def passes(text: str, summary: str, schema: FactSchema, facts: FactRecord) -> bool:
    """Whether the fact diff lets ``summary`` replace ``text``."""
    result = verify(facts, EXTRACTOR.extract(summary, schema, facts.reference), schema)
    return result.outcome.passed


def measure(entries: list[Entry], ladder: Sequence[Rung], schema: FactSchema) -> list[list[str]]:
    """Rows for one dataset: per rung extractive and naive, then the ladder as demoted."""
    naive = NaiveSummarizer()
    extractive = [Tally() for _ in ladder]
    baseline = [Tally() for _ in ladder]
    stored = Tally()
    for entry in entries:
        text = entry.text
        facts = EXTRACTOR.extract(text, schema, reference_for(entry))
        for i, rung in enumerate(ladder):
            request = SummaryRequest(
                text=text,
                schema=schema,
                source_record=facts,
                budget_words=rung.budget_for(text),
                strictness=rung.strictness,
            )
            summary = rung.summarizer.summarize(request)
            extractive[i].add(
                text, summary.text, summary.over_budget, passes(text, summary.text, schema, facts)
            )
            plain = naive.summarize(request)
            baseline[i].add(text, plain.text, False, passes(text, plain.text, schema, facts))
        result = compress(text, schema, ladder, extractor=EXTRACTOR, reference=reference_for(entry))
        if result.summary is not None:
            stored.add(text, result.summary, False, True)
    rows = []
    for i, rung in enumerate(ladder):
        budget = f"{rung.budget_ratio}x s{rung.strictness}"
        rows.append(extractive[i].row(f"rung {i} extractive", budget, True, len(entries)))
        rows.append(baseline[i].row(f"rung {i} naive", budget, False, len(entries)))
    rows.append(stored.row("ladder (stored)", "-", False, len(entries)))
    return rows


def main() -> None:
    parser = base_parser(__doc__.splitlines()[0] if __doc__ else "", default_limit=1000)
    parser.add_argument("--datasets", default="multiwoz,sgd,tau,taskmaster")
    args = parser.parse_args()
    names = [n for n in args.datasets.split(",") if n]
    started = time.perf_counter()
    by_set = load_entries(args.data, names, resolve_limit(args.limit))
    schema = generic_schema()
    ladder = default_ladder()
    print("schema: generic; ladder: " + " | ".join(r.describe() for r in ladder))
    headers = ["row", "budget", "n", "words", "med", "bytes", "over", "pass"]
    for name, entries in by_set.items():
        words = [count_words(e.text) for e in entries]
        size = [len(e.text.encode()) for e in entries]
        print(
            f"\n{name}: {len(entries)} entries, source mean {statistics.mean(words):.0f} words "
            f"/ {statistics.mean(size):.0f} bytes (median {statistics.median(words):.0f} words)"
        )
        print_table(headers, measure(entries, ladder, schema))
    print(f"\n({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
