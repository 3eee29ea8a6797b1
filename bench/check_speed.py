"""Speed of ``check`` on ~1 KB and ~8 KB real entries, against a plain regex scan.

Run: ``.venv/bin/python bench/check_speed.py [--limit N] [--data DIR] [--repeat R]``

``check/CPU s`` counts checks per second of this thread's own CPU time (``time.thread_time``):
the per-core rate, which stays meaningful when other processes share the cores (the wall-clock
columns do not; the load average is printed beside them).

Entries are built from MultiWOZ, SGD and tau-retail dialogues (``speaker: text`` lines; for
8 KB, consecutive dialogues of one dataset are concatenated). The "summary" of an entry is
every second line of it (about half the text), so both sides carry real facts. Everything
runs in this one process, one call at a time (single core).

* check : ``factdiff.verify.check.check(source, summary, generic_schema())`` - extraction of both
          texts, the diff and the outcome.
* regex : the baseline - eight precompiled regexes (money, ISO and written dates, times,
          IDs, phones, emails, numbers) run over source and summary, and the two sets of
          matched strings compared.
"""

from __future__ import annotations

import gc
import os
import re
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.datasets import (
    LOADERS,
    Dialogue,
    Entry,
    base_parser,
    build_entry,
    print_table,
    spread,
)
from factdiff.schema.builtin import generic_schema
from factdiff.verify.check import check

BASELINE = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"[$£€]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:USD|GBP|EUR|dollars|pounds)",
        r"\b\d{4}-\d{2}-\d{2}\b",
        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?",
        r"\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?",
        r"#?\b[A-Z]{1,5}[-_]?\d{3,}\b|\b[a-z]+(?:_[a-z]+)+_\d+\b",
        r"\+?\(?\d{2,4}\)?[-. ]?\d{3,4}[-. ]?\d{3,4}",
        r"[\w.+-]+@[\w-]+\.[\w.-]+",
        r"\b\d+(?:\.\d+)?\b",
    )
)


def regex_scan(source: str, summary: str) -> bool:
    """The baseline: every pattern over both texts; True when the sets of matches differ."""

    def scan(text: str) -> set[str]:
        return {m.group() for pattern in BASELINE for m in pattern.finditer(text)}

    return scan(source) != scan(summary)


def summary_of(text: str) -> str:
    """Every second line: a crude half-length summary that still states real facts."""
    return "\n".join(text.splitlines()[::2])


def entries_1k(dialogues: list[Dialogue]) -> list[Entry]:
    """One ~1 KB entry per dialogue (whole turns, at most 1,100 characters)."""
    return [e for d in dialogues if len((e := build_entry(d, 1100)).text) >= 400]


def entries_8k(dialogues: list[Dialogue], count: int) -> list[Entry]:
    """~8 KB entries: whole dialogues of one dataset concatenated up to 8,192 characters."""
    out: list[Entry] = []
    text = ""
    first: Dialogue | None = None
    for d in dialogues:
        piece = build_entry(d, 8192 - len(text) - 1 if text else 8192).text
        if text and len(text) + 1 + len(piece) > 8192:
            if first is not None and len(text) >= 6000:
                out.append(Entry(first, text))
            text, first = "", None
            piece = build_entry(d, 8192).text
        text = f"{text}\n{piece}" if text else piece
        first = first or d
        if len(out) >= count:
            break
    if first is not None and len(text) >= 6000 and len(out) < count:
        out.append(Entry(first, text))
    return out


def timed(
    fn: Callable[[str, str], object], entries: list[Entry], repeat: int
) -> tuple[list[float], float]:
    """Wall-clock latency of ``fn(source, summary)`` per entry and repetition, and the CPU
    time this thread spent in all of them, in seconds."""
    pairs = [(e.text, summary_of(e.text)) for e in entries]
    out = []
    cpu = 0.0
    gc.collect()
    for _ in range(repeat):
        for source, summary in pairs:
            cpu_started = time.thread_time()
            started = time.perf_counter()
            fn(source, summary)
            out.append(time.perf_counter() - started)
            cpu += time.thread_time() - cpu_started
    return out, cpu


def _check(entries: list[Entry]) -> Callable[[str, str], object]:
    schema = generic_schema()
    references = {e.text: e.reference for e in entries}

    def run(source: str, summary: str) -> object:
        return check(source, summary, schema, reference=references.get(source))

    return run


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def row(
    label: str,
    entries: list[Entry],
    check_t: tuple[list[float], float],
    regex_t: tuple[list[float], float],
) -> list[str]:
    """One line of the table."""
    (check_wall, check_cpu), (regex_wall, _) = check_t, regex_t
    mean_c, mean_r = statistics.fmean(check_wall), statistics.fmean(regex_wall)
    chars = statistics.fmean(len(e.text) for e in entries)
    return [
        label,
        str(len(entries)),
        f"{chars:.0f}",
        f"{1 / mean_c:.1f}",
        f"{len(check_wall) / check_cpu:.1f}",
        f"{percentile(check_wall, 0.5) * 1000:.2f}",
        f"{percentile(check_wall, 0.99) * 1000:.2f}",
        f"{1 / mean_r:.0f}",
        f"{percentile(regex_wall, 0.5) * 1000:.3f}",
        f"{percentile(regex_wall, 0.99) * 1000:.3f}",
        f"{mean_c / mean_r:.0f}x",
    ]


def traced_peak(entries: list[Entry]) -> float:
    """Peak Python heap (MiB) allocated while checking ``entries``, by tracemalloc."""
    run = _check(entries)
    tracemalloc.start()
    for e in entries:
        run(e.text, summary_of(e.text))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    """Build the entries, warm up, time both, print."""
    parser = base_parser(__doc__ or "", default_limit=100)
    parser.add_argument("--repeat", type=int, default=2, help="passes over the entries")
    args = parser.parse_args()
    per_dataset = max(1, args.limit)
    sets: dict[str, list[Entry]] = {"1KB": [], "8KB": []}
    for name in ("multiwoz", "sgd", "tau"):
        dialogues = LOADERS[name](args.data, None)
        sets["1KB"].extend(entries_1k(spread(dialogues, per_dataset)))
        sets["8KB"].extend(entries_8k(dialogues, max(1, per_dataset // 4)))
    print(__doc__)
    run = _check(sets["1KB"] + sets["8KB"])
    for e in sets["1KB"][:5]:  # warm-up: lazy imports and regex caches
        run(e.text, summary_of(e.text))
    rows = []
    for label, entries in sets.items():
        check_t = timed(_check(entries), entries, args.repeat)
        regex_t = timed(regex_scan, entries, args.repeat)
        rows.append(row(label, entries, check_t, regex_t))
    print_table(
        [
            "size",
            "entries",
            "avg chars",
            "check/s",
            "check/CPU s",
            "p50 ms",
            "p99 ms",
            "regex/s",
            "regex p50 ms",
            "regex p99 ms",
            "check/regex",
        ],
        rows,
    )
    print(f"\n(each entry timed {args.repeat}x; check/regex = ratio of mean latencies)")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load} on {os.cpu_count()} cores")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak RSS of this process: {rss:.0f} MiB (Linux ru_maxrss, includes the loaded datasets)"
    )
    peak = traced_peak(sets["8KB"][:10])
    print(f"peak traced Python heap while checking 10 x 8 KB entries: {peak:.1f} MiB")


if __name__ == "__main__":
    main()
