"""Fact retention of verified demotion on the dev data, against the naive summarizer ungated.

Run: ``.venv/bin/python bench/fact_retention.py [--limit N] [--datasets ...] [--data DIR]``

Entries are whole dialogues (``speaker: text`` lines), ``--limit`` per dataset evenly
spread (default 1000; tau-retail has 69), as they are: nothing is injected. Each dataset is
one agent with the generic schema; the tau-retail dialogues (customer-service calls about
orders, refunds and payment methods) are also loaded a second time as their own agent with
the built-in ``customer_service`` schema (row ``tau/cs``). All go into one SQLite store (on
``/dev/shm`` when available: speed is not measured here), dormant for 30 days.

Demotion runs with the default settings (``DemotionSettings()``: the offline ladder
extractive 0.35x -> 0.6x stricter -> 1.0x strictest, rules extractor, default policy and
retry), one ``Demoter.run`` pass per rung, each pass a day after the previous one (past the
backoff). Printed:

1. outcomes per pass (the rung the pass used) and after the ladder (warm clean, warm
   acceptable, hot in operator review after 3 failed attempts);
2. critical facts of the demoted entries present in their warm form, measured
   independently of the diff: the warm entry is read back from the store, its source from
   the cold archive; the source's critical facts are those of the stored fact record
   (schema fields and tracked inventory types with criticality ``critical``); the stored
   narrative is extracted again with the rules extractor, and a source fact counts as
   *stated* when the narrative's record holds a fact of the same type with the same
   normalised key (``typed``), or when the narrative contains one of the fact's source
   surface forms verbatim (``verbatim``); *stated* is either. Must be 1.000;
3. the baseline in the same run: the naive summarizer (first sentences or turns up to the
   budget) on the same sources, **without the diff gate**, as if every naive summary had
   been stored: the same measure at rung 0's budget (0.35x) over the demoted entries and over
   all entries, and at the exact word budget of each entry's accepted extractive summary
   (``matched``). *gate* shows what the diff would have said about those naive summaries
   (share failed).

Important facts are shown too (``acceptable_with_notes`` may drop them by policy, recorded in
the warm meta). A fact whose surface forms contain no letter or digit is skipped (none so far).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.compression_ratio import load_entries
from bench.datasets import Entry, base_parser, clip, print_table, resolve_limit
from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings, reference_of
from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.schema.model import Criticality, FactSchema
from factdiff.store import AttemptOutcome, EntryStatus, MemoryStore, Tier, open_store
from factdiff.summarize import NaiveSummarizer, SummaryRequest, facts_by_criticality
from factdiff.verify.check import verify

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
EXTRACTOR = RulesExtractor()
CS_GROUP = "tau/cs"


@dataclass(frozen=True)
class Group:
    """One agent of the run: a dataset's entries with one schema."""

    name: str
    agent: str
    schema: str | None
    entries: list[Entry]


@dataclass
class Share:
    """Facts checked and facts stated, by how they were found."""

    facts: int = 0
    typed: int = 0
    verbatim: int = 0
    stated: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, fact: Fact, typed: bool, verbatim: bool, where: str) -> None:
        self.facts += 1
        self.typed += typed
        self.verbatim += verbatim
        self.stated += typed or verbatim
        if not (typed or verbatim) and len(self.misses) < 3:
            self.misses.append(f"{where}: {fact.value.type.value} {fact.text!r}")

    def ratio(self, part: int | None = None) -> str:
        num = self.stated if part is None else part
        return f"{num / self.facts:.3f}" if self.facts else "-"


def all_facts(record: FactRecord) -> Iterable[Fact]:
    """Every fact of a record: fields and inventory."""
    for facts in record.fields.values():
        yield from facts
    for facts in record.inventory.values():
        yield from facts


def surfaces(fact: Fact, source: str) -> list[str]:
    """The fact's surface forms in the source (one per evidence span)."""
    found = [source[start:end].strip() for start, end in fact.spans]
    if fact.text.strip():
        found.append(fact.text.strip())
    return [s for s in found if any(c.isalnum() for c in s)]


def measure(
    share: Share,
    source: str,
    record: FactRecord,
    schema: FactSchema,
    summary: str,
    criticality: Criticality,
    where: str,
) -> None:
    """Add to ``share`` every source fact of ``criticality``, stated in ``summary`` or not."""
    wanted = [f for f, c, _ in facts_by_criticality(record, schema) if c is criticality]
    if not wanted:
        return
    again = EXTRACTOR.extract(summary, schema, record.reference)
    keys = {(f.value.type, f.value.key()) for f in all_facts(again)}
    for fact in wanted:
        forms = surfaces(fact, source)
        if not forms:
            continue
        typed = (fact.value.type, fact.value.key()) in keys
        verbatim = any(form in summary for form in forms)
        share.add(fact, typed, verbatim, where)


def groups_of(args_data: Path, names: Sequence[str], limit: int | None, cs: bool) -> list[Group]:
    by_set = load_entries(args_data, names, limit)
    groups = [Group(name, f"ret-{name}", None, entries) for name, entries in by_set.items()]
    if cs and "tau" in by_set:
        groups.append(Group(CS_GROUP, "ret-tau-cs", "customer_service", by_set["tau"]))
    return groups


def schema_named(name: str | None) -> FactSchema:
    return generic_schema() if name is None else builtin_schema(name)


def main() -> None:
    parser = base_parser(__doc__.splitlines()[0] if __doc__ else "", default_limit=1000)
    parser.add_argument("--datasets", default="multiwoz,sgd,tau,taskmaster")
    parser.add_argument("--no-cs", action="store_true", help="skip the tau/customer_service row")
    args = parser.parse_args()
    started = time.perf_counter()
    names = [n for n in args.datasets.split(",") if n]
    groups = groups_of(args.data, names, resolve_limit(args.limit), not args.no_cs)
    settings = DemotionSettings()
    ladder: tuple[Rung, ...] = settings.ladder
    print("ladder: " + " | ".join(r.describe() for r in ladder))
    print(f"retry: max_attempts={settings.retry.max_attempts}; policy: default")

    shm = Path("/dev/shm")
    parent = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="factdiff-retention-", dir=parent))
    try:
        with open_store(folder / "retention.db") as store:
            run(store, groups, settings)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n({time.perf_counter() - started:.1f} s)")


def run(store: MemoryStore, groups: list[Group], settings: DemotionSettings) -> None:
    sources: dict[str, tuple[Group, Entry]] = {}
    for group in groups:
        for i, entry in enumerate(group.entries):
            at = NOW - timedelta(days=30) + timedelta(milliseconds=i)
            ref = entry.reference
            entry_id = store.add(
                group.agent,
                entry.text,
                now=at,
                occurred_at=None if ref is None else datetime(*ref.timetuple()[:3], tzinfo=UTC),
                schema=group.schema,
                last_used_at=at,
            )
            sources[entry_id] = (group, entry)

    # 1. one pass per rung
    demoter = Demoter(store, settings)
    outcomes = [o.value for o in AttemptOutcome]
    pass_rows = []
    for k, rung in enumerate(settings.ladder):
        report = demoter.run(NOW + timedelta(days=k), keep_results=True)
        counts: dict[str, dict[str, int]] = {g.agent: {} for g in groups}
        for result in report.results:
            if result.applied:
                bucket = counts[result.agent_id]
                bucket[result.outcome.value] = bucket.get(result.outcome.value, 0) + 1
        for group in groups:
            c = counts[group.agent]
            total = sum(c.values())
            n = len(group.entries)
            pass_rows.append(
                [group.name, f"{k + 1} (rung {k}: {rung.budget_ratio}x)", f"{total}"]
                + [f"{c.get(o, 0)} ({c.get(o, 0) / n:.3f})" for o in outcomes]
            )
    print("\n1a. outcomes per pass (count, share of the group's entries)")
    print_table(["group", "pass", "attempted", *outcomes], pass_rows)

    # 2. final state and the independent retention measure
    final: dict[str, dict[str, int]] = {g.agent: {} for g in groups}
    warm_crit = {g.agent: Share() for g in groups}
    warm_imp = {g.agent: Share() for g in groups}
    naive_demoted = {g.agent: Share() for g in groups}
    naive_matched = {g.agent: Share() for g in groups}
    naive_all = {g.agent: Share() for g in groups}
    naive_failed = {g.agent: 0 for g in groups}
    digest_mismatch = 0
    failures: list[str] = []
    naive = NaiveSummarizer()
    rung0 = settings.ladder[0]
    for entry_id, (group, entry) in sources.items():
        stored = store.get(entry_id)
        schema = schema_named(group.schema)
        state = final[group.agent]
        where = f"{group.name} {entry.dialogue.dialogue_id}"
        if stored.tier is Tier.WARM and stored.warm is not None:
            warm = stored.warm
            outcome = warm.meta.outcome.value
            state[outcome] = state.get(outcome, 0) + 1
            if warm.meta.schema.hash != schema.hash:
                raise SystemExit(f"{where}: stored with another schema {warm.meta.schema}")
            source = store.read_cold(entry_id)
            record = FactRecord.from_json(warm.record)
            if (
                EXTRACTOR.extract(source, schema, record.reference).digest()
                != warm.meta.source_facts_digest
            ):
                digest_mismatch += 1
            measure(
                warm_crit[group.agent],
                source,
                record,
                schema,
                warm.narrative,
                Criticality.CRITICAL,
                where,
            )
            measure(
                warm_imp[group.agent],
                source,
                record,
                schema,
                warm.narrative,
                Criticality.IMPORTANT,
                where,
            )
            budget = warm.meta.budget_words
            if budget is None:
                raise SystemExit(f"{where}: warm meta has no word budget")
            matched = summarize_naive(naive, source, schema, record, budget)
            measure(
                naive_matched[group.agent],
                source,
                record,
                schema,
                matched,
                Criticality.CRITICAL,
                where,
            )
            demoted = True
        else:
            key = "review" if stored.status is EntryStatus.REVIEW else "hot"
            state[key] = state.get(key, 0) + 1
            source = stored.content or ""
            record = EXTRACTOR.extract(source, schema, reference_of(stored, source))
            demoted = False
            attempts = store.attempts(entry_id)
            if attempts and len(failures) < 6:
                last = attempts[-1]
                found = [
                    f"{kind} {item.get('field')} "
                    f"{item.get('source_text') or item.get('summary_text') or ''}"
                    for kind in ("missing", "changed", "added")
                    for item in last.diff.get(kind, [])
                ]
                failures.append(
                    f"{where} ({len(attempts)} attempts, last rung {last.rung}): "
                    + "; ".join(found[:4])
                )
        plain = summarize_naive(naive, source, schema, record, rung0.budget_for(source))
        measure(naive_all[group.agent], source, record, schema, plain, Criticality.CRITICAL, where)
        if demoted:
            measure(
                naive_demoted[group.agent],
                source,
                record,
                schema,
                plain,
                Criticality.CRITICAL,
                where,
            )
        summary_facts = EXTRACTOR.extract(plain, schema, record.reference)
        if not verify(record, summary_facts, schema).outcome.passed:
            naive_failed[group.agent] += 1

    rows = []
    for group in groups:
        s, n = final[group.agent], len(group.entries)
        rows.append(
            [group.name, f"{n}"]
            + [
                f"{s.get(k, 0)} ({s.get(k, 0) / n:.3f})"
                for k in ("clean", "acceptable_with_notes", "review", "hot")
            ]
        )
    print("\n1b. after the ladder (count, share)")
    print_table(
        ["group", "entries", "warm clean", "warm acceptable", "review (failed)", "hot other"], rows
    )
    for line in failures:
        print(f"  still hot: {clip(line, 150)}")
    print(
        f"source fact records re-derived from the cold archive differing from the warm meta "
        f"digest: {digest_mismatch}"
    )

    rows = []
    for group in groups:
        w = warm_crit[group.agent]
        rows.append(
            [
                group.name,
                f"{w.facts}",
                f"{w.ratio()} ({w.ratio(w.typed)}/{w.ratio(w.verbatim)})",
                f"{warm_imp[group.agent].ratio()}",
                f"{naive_demoted[group.agent].ratio()}",
                f"{naive_matched[group.agent].ratio()}",
                f"{naive_all[group.agent].facts}",
                f"{naive_all[group.agent].ratio()}",
                f"{naive_failed[group.agent] / len(group.entries):.3f}",
            ]
        )
    print("\n2-3. critical facts stated (typed/verbatim), warm vs naive without the gate")
    print_table(
        [
            "group",
            "crit facts (demoted)",
            "warm stated (typed/verb)",
            "warm important",
            "naive 0.35x",
            "naive matched",
            "crit facts (all)",
            "naive 0.35x all",
            "gate fails naive",
        ],
        rows,
    )
    overall = Share()
    base = Share()
    for group in groups:
        for src, dst in ((warm_crit[group.agent], overall), (naive_demoted[group.agent], base)):
            dst.facts += src.facts
            dst.stated += src.stated
            dst.typed += src.typed
            dst.verbatim += src.verbatim
    print(
        f"all groups: warm {overall.stated}/{overall.facts} = {overall.ratio()} critical facts "
        f"stated; naive 0.35x ungated on the same entries {base.stated}/{base.facts} = "
        f"{base.ratio()}"
    )
    for group in groups:
        for label, share in (
            ("warm", warm_crit[group.agent]),
            ("naive", naive_demoted[group.agent]),
        ):
            for miss in share.misses[:2]:
                print(f"  {label} miss: {clip(miss, 120)}")


def summarize_naive(
    naive: NaiveSummarizer, source: str, schema: FactSchema, record: FactRecord, budget: int
) -> str:
    request = SummaryRequest(
        text=source, schema=schema, source_record=record, budget_words=max(1, int(budget))
    )
    return naive.summarize(request).text


if __name__ == "__main__":
    main()
