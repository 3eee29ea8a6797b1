"""``factdiff demo``: the whole system on a fresh SQLite store, offline, in well under a minute."""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from factdiff.compression.components import ladder_from_spec
from factdiff.demo.corpus import AGENTS, WORKED_EXAMPLE, DemoEntry, generate_corpus
from factdiff.demotion.demoter import Demoter, DemotionReport, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.present.terminal import diff_table, outcome_line, text
from factdiff.present.wording import plural
from factdiff.store import EventType, MemoryStore, Tier, open_store
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.model import Entry
from factdiff.verify.diff import FactDiff
from factdiff.verify.policy import Outcome

SHOWCASE_LADDER = "naive:40,extractive:0.35x,extractive:0.6x:strict"
"""The worked example climbs from the naive summarizer, so the diff has something to catch."""
DORMANCY = timedelta(days=14)


@dataclass(frozen=True)
class DemoSummary:
    """What the demo did, for tests and the closing lines."""

    entries: int
    tiers: dict[str, int]
    outcomes: dict[str, int]
    failure_rate: float
    seconds: float


def run_demo(db: Path, console: Console, count: int = 300) -> DemoSummary:
    """Load the corpus, age it, demote it, and narrate each step."""
    started = time.perf_counter()
    console.print(
        Panel(
            text(
                "factdiff compresses old agent memories and verifies every summary with a fact "
                "diff: facts are extracted from the source and from the summary, compared field "
                "by field, and a summary only replaces its source when no critical fact was "
                f"lost.\nStore: {db} (embedded SQLite). No model and no network: the offline "
                "extractor and summarizers."
            ),
            title="factdiff demo",
            expand=False,
        )
    )
    entries = [WORKED_EXAMPLE, *generate_corpus(count)]
    with open_store(db) as store:
        ids = _load(store, entries)
        now = max(e.occurred_at for e in entries) + DORMANCY + timedelta(days=1)
        loaded = f"{plural(len(entries), 'entry', 'entries')} of {plural(len(AGENTS), 'agent')}"
        console.print(
            f"1. Loaded {loaded} "
            f"({', '.join(a for a, _ in AGENTS)}), each with its domain fact schema, and aged "
            f"them past the {DORMANCY.days}-day dormancy threshold."
        )
        console.print(
            "2. The worked example (a billing dispute call) climbs a retry ladder that starts "
            "with a naive summarizer (first sentences only):"
        )
        _showcase(store, ids[0], now, console)
        console.print("3. Demoting everything else with the default offline ladder...")
        report = _demote_all(store, now)
        stats = store.stats()
    attempts = stats["attempts"]
    failed = attempts.get("failed", 0) + attempts.get("error", 0)
    total = attempts.get("total", 0)
    rate = failed / total if total else 0.0
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(report.counts.items()))
    console.print(f"   {counts}")
    console.print(
        f"4. Tiers now: hot {stats['tiers']['hot']}, warm {stats['tiers']['warm']}, "
        f"cold archives {stats['tiers']['cold']}. Attempts: "
        + ", ".join(f"{k} {v}" for k, v in attempts.items() if k != "total")
        + f". Failure rate per attempt: {rate:.1%}."
    )
    console.print(
        text(
            "   Every failed summary was refused: its source stayed hot, and a "
            "compression_failure event holds the diff. Explore with: "
            f"factdiff --db {shlex.quote(str(db))} events --type compression_failure"
        )
    )
    with open_store(db) as store:
        _show_retrieval(store, db, console)
    return DemoSummary(
        entries=len(entries),
        tiers=dict(stats["tiers"]),
        outcomes={k: v for k, v in attempts.items() if k != "total"},
        failure_rate=rate,
        seconds=time.perf_counter() - started,
    )


def _load(store: MemoryStore, entries: list[DemoEntry]) -> list[str]:
    catalog = SchemaCatalog(store)
    first = min(e.occurred_at for e in entries)
    for agent, schema_name in AGENTS:
        catalog.get(schema_name, first)
        store.set_agent_schema(agent, schema_name)
    return [
        store.add(
            e.agent_id,
            e.content,
            now=e.occurred_at,
            occurred_at=e.occurred_at,
            schema=e.schema,
            tags=e.tags,
            last_used_at=e.occurred_at,
        )
        for e in entries
    ]


def _showcase(store: MemoryStore, entry_id: str, now: datetime, console: Console) -> None:
    ladder = ladder_from_spec(SHOWCASE_LADDER)
    settings = DemotionSettings(
        older_than=DORMANCY, ladder=ladder, retry=RetryPolicy(max_attempts=len(ladder))
    )
    demoter = Demoter(store, settings)
    moment = now
    for _ in ladder:
        entry = store.get(entry_id)
        if entry.tier.value != "hot":
            break
        result = demoter.demote_entry(entry, moment)
        attempt = result.attempt
        if attempt is None:
            console.print(Text.assemble("   attempt refused: ", text(result.error)))
            break
        console.print(
            Text.assemble(
                "   ",
                (f"attempt {attempt.rung + 1}", "bold"),
                ": ",
                text(f"{attempt.summarizer}, budget {plural(attempt.budget_words, 'word')}"),
            )
        )
        console.print(Panel(text(attempt.summary), title="summary", expand=False))
        if attempt.outcome is Outcome.FAILED:
            _show_failure(store, entry_id, attempt.diff, console)
        else:
            console.print(diff_table(attempt.diff, "fact diff"))
            console.print(Text.assemble("   ", outcome_line(attempt.outcome, attempt.diff)))
            console.print("   -> warm entry written, source archived to cold, hot copy removed.")
        entry = store.get(entry_id)
        if entry.next_attempt_at is not None:
            console.print(f"   next attempt scheduled for {entry.next_attempt_at.isoformat()}")
            moment = max(moment, entry.next_attempt_at)


def _show_retrieval(store: MemoryStore, db: Path, console: Console) -> None:
    """Step 5: a search by amount in another format, and a question about a lost field."""
    from factdiff.retrieve.gaps import gap_words, known_gaps
    from factdiff.retrieve.index import stored_record
    from factdiff.retrieve.keys import record_facts

    query = "fourteen thousand two hundred fifty dollars"
    (hit, *_) = store.search(query, k=1, touch=False)
    facts = ", ".join(f"{m.field} = {m.value}" for m in hit.matched if m.kind == "fact")
    console.print(
        Text.assemble(
            "5. Retrieval. ",
            text(f"factdiff search {query!r}"),
            f" finds the worked example ({hit.tier}) by its fact record: ",
            text(facts),
            ".",
        )
    )
    for entry in store.entries(tier=Tier.WARM):
        record = None if entry.warm is None else stored_record(entry.warm.record)
        gaps = () if entry.warm is None else known_gaps(entry.warm.meta, None)
        named = [
            f
            for _, f in (record_facts(record) if record else ())
            if f.value.type.value == "identifier"
        ]
        if not gaps or not named:
            continue
        question = f"What was the {' '.join(gap_words(gaps[0]))} for {named[0].text}?"
        (hit, *_) = store.search(question, k=1, touch=False)
        if hit.entry_id != entry.id or not hit.gap_hit or hit.source is None:
            continue
        console.print(
            Text.assemble(
                "   ",
                text(f"factdiff search {question!r}"),
                ": its narrative lost ",
                text(gaps[0].field),
                " at compression, so the hit lists it in gap_hit and carries the archived "
                "source (hash-checked) instead of letting the agent guess.",
            )
        )
        break
    console.print(
        text(f"   Try: factdiff --db {shlex.quote(str(db))} search 'INV-9182' and factdiff show ID")
    )


def _show_failure(store: MemoryStore, entry_id: str, diff: FactDiff, console: Console) -> None:
    event = list(store.events(entry_id, type=EventType.COMPRESSION_FAILURE))[-1]
    console.print(
        f"   [bold red]compression_failure[/] event #{event.id} logged: {len(diff.missing)} "
        f"missing, {len(diff.changed)} changed, {len(diff.added)} added; the source stays hot."
    )
    console.print(diff_table(diff, "fact diff"))


def _demote_all(store: MemoryStore, now: datetime) -> DemotionReport:
    demoter = Demoter(store, DemotionSettings(older_than=DORMANCY))
    total = DemotionReport(keep_results=False)
    moment = now
    for _ in demoter.settings.ladder:
        report = demoter.run(moment, keep_results=False)
        for key, count in report.counts.items():
            total.counts[key] = total.counts.get(key, 0) + count
        for key, seconds in report.seconds.items():
            total.seconds[key] = total.seconds.get(key, 0.0) + seconds
        pending = [e for e in store.entries(tier=None, with_content=False) if _waiting(e)]
        if not pending:
            break
        moment = max(e.next_attempt_at for e in pending if e.next_attempt_at is not None)
    return total


def _waiting(entry: Entry) -> bool:
    return (
        entry.tier.value == "hot"
        and entry.status.value == "active"
        and (entry.next_attempt_at is not None)
    )
