"""Re-evaluation: re-diff warm entries compressed under an older schema version.

::

    reevaluator = Reevaluator(store)
    plan = reevaluator.plan("customer_service")          # latest version; due older versions
    reevaluator.enqueue(plan, now=now)                     # durable work items (idempotent)
    report = reevaluator.run(now, schema_name="customer_service")

Items are claimed a batch at a time (``BATCH``), decided with no transaction open, and
finished in one transaction per batch (one commit), each item fenced on its own. For each work
item (one warm entry, see ``factdiff.store.reevaluation``) the entry's cold
source is read (hash-checked), the new version's facts are extracted from the source and
from the warm narrative with the same extractor, and the two records are diffed under the
new version:

* failed -> the entry goes back to hot from cold (verified), keeping its dormancy, so the
  next demotion recompresses it under the new version; events ``reevaluation_failed`` and
  ``promoted``;
* acceptable with notes -> its known gaps are updated and its meta moves to the new
  version; event ``reevaluated``;
* clean -> its meta moves to the new version; event ``reevaluated``.

The warm record (the source's facts) and its index rows are replaced with the new
version's. Items are claimed with leases and finished fenced by them (the item marked done
in the transaction that changes its entry), so a crash at any step and a rerun end in the
same state,
and ``factdiff worker`` drains the same queue.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.demotion.preparation import reference_of
from factdiff.errors import UsageError
from factdiff.extraction.base import Extractor
from factdiff.schema.evolution import SchemaDiff, diff_schemas
from factdiff.schema.model import FactSchema
from factdiff.settings import DEFAULTS
from factdiff.store import (
    AttemptOutcome,
    Entry,
    EventType,
    KnownGap,
    MemoryStore,
    NewEvent,
    WrongTier,
)
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.store.reevaluation import (
    ReevaluationFinish,
    ReevaluationItem,
    ReevaluationResult,
)
from factdiff.store.schema_resolver import SchemaResolver
from factdiff.verify.check import DEFAULT_EXTRACTOR, facts_kept, verify
from factdiff.verify.policy import DEFAULT_POLICY, Outcome, Policy

if TYPE_CHECKING:
    from factdiff.store import WarmMeta
    from factdiff.values.base import JSON

__all__ = [
    "ReevaluationPlan",
    "ReevaluationReport",
    "Reevaluator",
    "reevaluator_id",
]

BATCH = 32
"""Items claimed per statement (and finished per transaction)."""
STALE_ROUNDS = 3
"""Batches in a row that applied nothing (every item stale) before a run gives up."""


def reevaluator_id() -> str:
    """``reevaluate:host:pid``: the lease owner of a re-evaluation run."""
    import os
    import socket

    return f"reevaluate:{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class ReevaluationPlan:
    """Which warm entries of one schema a new version makes due.

    ``warm`` counts warm entries per version they were compressed under; ``diffs`` holds the
    schema diff from each older version to ``target``; ``due_versions`` the older versions
    whose entries are due (a material diff, or every older one with ``include_all``).
    """

    target: FactSchema
    warm: dict[int, int]
    diffs: dict[int, SchemaDiff | None]
    due_versions: tuple[int, ...]

    @property
    def due(self) -> int:
        """How many warm entries are due for re-evaluation."""
        return sum(self.warm.get(v, 0) for v in self.due_versions)


@dataclass
class ReevaluationReport:
    """What a run did: items checked, per result, and per field that caused a result."""

    schema: str | None = None
    to_version: int | None = None
    enqueued: int = 0
    dry_run: bool = False
    counts: Counter[str] = field(default_factory=Counter)
    fields: dict[str, Counter[str]] = field(default_factory=dict)
    stale: int = 0
    """Items whose commit was refused (lease lost, or the entry changed meanwhile)."""
    pending: int = 0
    """Items still pending after the run (leased by another run or worker, or stale)."""

    def add(self, result: ReevaluationResult, fields: tuple[str, ...]) -> None:
        """Count one finished item."""
        self.counts[result.value] += 1
        for name in fields:
            self.fields.setdefault(name, Counter())[result.value] += 1

    @property
    def checked(self) -> int:
        """Entries re-evaluated (skipped ones excluded)."""
        return sum(n for k, n in self.counts.items() if k != ReevaluationResult.SKIPPED)

    def to_json(self) -> dict[str, JSON]:
        """The ``reevaluate --json`` object."""
        return {
            "schema": self.schema,
            "to_version": self.to_version,
            "dry_run": self.dry_run,
            "enqueued": self.enqueued,
            "checked": self.checked,
            "promoted": self.counts[ReevaluationResult.PROMOTED.value],
            "annotated": self.counts[ReevaluationResult.ANNOTATED.value],
            "clean": self.counts[ReevaluationResult.CLEAN.value],
            "skipped": self.counts[ReevaluationResult.SKIPPED.value],
            "stale": self.stale,
            "pending": self.pending,
            "fields": {
                name: {
                    "promoted": c[ReevaluationResult.PROMOTED.value],
                    "annotated": c[ReevaluationResult.ANNOTATED.value],
                }
                for name, c in self.ordered_fields()
            },
        }

    def ordered_fields(self) -> list[tuple[str, Counter[str]]]:
        """The fields that caused a result, the most often first (then by name)."""
        return sorted(self.fields.items(), key=lambda kv: (-kv[1].total(), kv[0]))


@dataclass(frozen=True)
class Decision:
    """One item decided (before its transaction)."""

    finish: ReevaluationFinish

    @property
    def result(self) -> ReevaluationResult:
        """What the item does."""
        return self.finish.result


class Reevaluator:
    """Re-evaluates warm entries of one store (see the module docstring)."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        extractor: Extractor = DEFAULT_EXTRACTOR,
        policy: Policy = DEFAULT_POLICY,
        worker_id: str | None = None,
        lease_seconds: float = DEFAULTS.lease,
    ) -> None:
        if lease_seconds <= 0:
            raise UsageError(f"lease must be positive (got {lease_seconds})")
        self.store = store
        self.extractor = extractor
        self.policy = policy
        self.worker_id = worker_id or reevaluator_id()
        self.lease_seconds = lease_seconds
        self.catalog = SchemaCatalog(store)

    # -- planning --------------------------------------------------------------------------

    def plan(
        self,
        schema_name: str,
        now: datetime,
        *,
        to_version: int | None = None,
        agent: str | None = None,
        include_all: bool = False,
    ) -> ReevaluationPlan:
        """The target version (latest registered by default) and the due older versions."""
        target = self.catalog.get(schema_name, now, to_version)
        warm = self.store.warm_schema_versions(schema_name, agent)
        diffs: dict[int, SchemaDiff | None] = {}
        due: list[int] = []
        for version in sorted(v for v in warm if v < target.version):
            try:
                old = self.catalog.get(schema_name, now, version)
            except UsageError:
                old = None  # that version was never registered here: nothing to compare
            diffs[version] = None if old is None else diff_schemas(old, target)
            change = diffs[version]
            if include_all or change is None or change.material:
                due.append(version)
        return ReevaluationPlan(target, warm, diffs, tuple(due))

    def enqueue(self, plan: ReevaluationPlan, now: datetime, agent: str | None = None) -> int:
        """Make the plan's due entries pending work items; returns how many are new."""
        return self.store.enqueue_reevaluations(
            plan.target.name, plan.due_versions, plan.target.version, now=now, agent=agent
        )

    def register(
        self, schema: FactSchema, now: datetime, source_text: str | None = None
    ) -> tuple[bool, ReevaluationPlan]:
        """Register ``schema`` (``False``: that version was already registered) and queue
        the warm entries its older versions leave due: what ``schema register`` and
        ``POST /v1/schemas`` do."""
        new = self.catalog.register(schema, now, source_text)
        plan = self.plan(schema.name, now, to_version=schema.version)
        self.enqueue(plan, now)
        return new, plan

    def execute(
        self,
        plan: ReevaluationPlan,
        now: datetime,
        *,
        agent: str | None = None,
        dry_run: bool = False,
        on_start: Callable[[int], None] | None = None,
        on_item: Callable[[ReevaluationResult], None] | None = None,
    ) -> ReevaluationReport:
        """Carry ``plan`` out (or, with ``dry_run``, say what it would do): queue its due
        entries, run every pending item of its schema (``agent``'s only, if given; how many
        there are goes to ``on_start``, each result to ``on_item``), and report what is
        still pending: what ``factdiff reevaluate`` and
        ``POST /v1/schemas/{name}/reevaluate`` do."""
        if dry_run:
            return self.dry_run(plan, now, agent)
        name = plan.target.name
        report = ReevaluationReport(schema=name, to_version=plan.target.version)
        report.enqueued = self.enqueue(plan, now, agent)
        if on_start is not None:
            on_start(self.store.pending_reevaluations(name, agent))
        self.run(now, schema_name=name, agent=agent, on_item=on_item, report=report)
        report.pending = self.store.pending_reevaluations(name, agent)
        return report

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        now: datetime | Callable[[], datetime],
        *,
        schema_name: str | None = None,
        agent: str | None = None,
        on_item: Callable[[ReevaluationResult], None] | None = None,
        stop: threading.Event | None = None,
        report: ReevaluationReport | None = None,
    ) -> ReevaluationReport:
        """Claim and finish pending items (of ``schema_name``, ``agent``) until none is
        left that this run can claim, or ``stop`` is set (the items in hand are released).

        An item refused because its entry changed meanwhile is released and decided again;
        after ``STALE_ROUNDS`` batches in a row that applied nothing the run ends (the items
        stay pending for the next run) instead of deciding them again and again."""
        report = report or ReevaluationReport(schema=schema_name)
        clock = now if callable(now) else (lambda: now)
        idle_rounds = 0
        while (stop is None or not stop.is_set()) and idle_rounds < STALE_ROUNDS:
            items = self.store.claim_reevaluations(
                self.worker_id,
                lease_seconds=self.lease_seconds,
                limit=BATCH,
                schema_name=schema_name,
                agent=agent,
            )
            if not items:
                break
            before = sum(report.counts.values())
            self._handle_batch(items, clock, report, on_item, stop)
            idle_rounds = 0 if sum(report.counts.values()) > before else idle_rounds + 1
        return report

    def _handle_batch(
        self,
        items: list[ReevaluationItem],
        clock: Callable[[], datetime],
        report: ReevaluationReport,
        on_item: Callable[[ReevaluationResult], None] | None,
        stop: threading.Event | None,
    ) -> None:
        claimed = time.monotonic()
        decided: list[tuple[ReevaluationItem, Decision]] = []
        for position, item in enumerate(items):
            if stop is not None and stop.is_set():
                for rest in items[position:]:
                    self.store.release_reevaluation(rest.token)
                break
            renew = time.monotonic() - claimed > self.lease_seconds / 3
            if renew and self.store.heartbeat_reevaluation(item.token, self.lease_seconds) is None:
                report.stale += 1
                continue
            decided.append((item, self.decide(item, clock())))
        applied = self.store.finish_reevaluations(
            [(item, decision.finish) for item, decision in decided], now=clock()
        )
        for (_, decision), done in zip(decided, applied, strict=True):
            if done:
                report.add(decision.result, decision.finish.fields)
                if on_item is not None:
                    on_item(decision.result)
            else:
                report.stale += 1

    def decide(self, item: ReevaluationItem, now: datetime) -> Decision:
        """Re-diff one item's entry under its target version (reads only)."""
        entry = self.store.get(item.entry_id)
        seen = self.store.warm_state(entry)
        if (
            seen is None
            or seen[1].schema.name != item.schema_name
            or seen[1].schema.version >= item.to_version
        ):
            return Decision(ReevaluationFinish(ReevaluationResult.SKIPPED, seen))
        schema = self.catalog.get(item.schema_name, now, item.to_version)
        try:
            source = self.store.read_cold(entry.id)
        except WrongTier:  # restored meanwhile: decided again on the next claim
            return Decision(ReevaluationFinish(ReevaluationResult.SKIPPED, None))
        return Decision(self._judge(item, entry, seen, schema, source, now))

    def _judge(
        self,
        item: ReevaluationItem,
        entry: Entry,
        seen: tuple[int, WarmMeta],
        schema: FactSchema,
        source: str,
        now: datetime,
    ) -> ReevaluationFinish:
        assert entry.warm is not None
        narrative = entry.warm.narrative
        source_facts = self.extractor.extract(source, schema, reference_of(entry, source))
        narrative_facts = self.extractor.extract(narrative, schema, source_facts.reference)
        checked = verify(
            source_facts, narrative_facts, schema, self.policy, texts=(source, narrative)
        )
        diff = checked.diff.to_json()
        versions = {
            "schema": item.schema_name,
            "from_version": item.from_version,
            "to_version": item.to_version,
        }
        if checked.outcome is Outcome.FAILED:
            fields = _unique(f.field for f in checked.diff.findings if self.policy.fails(f))
            events = (
                NewEvent(EventType.REEVALUATION_FAILED, {**versions, "fields": list(fields)}),
                NewEvent(
                    EventType.PROMOTED,
                    {**versions, "reason": "reevaluation", "content_hash": entry.content_hash},
                ),
            )
            return ReevaluationFinish(
                ReevaluationResult.PROMOTED, seen, fields, diff, entry=entry, events=events
            )
        notes = self.policy.notes(checked.diff)
        gaps = tuple(KnownGap(f.field, f.criticality, f.fact_type) for f in notes)
        outcome = AttemptOutcome(checked.outcome.value)
        meta = replace(
            seen[1],
            schema=schema.ref,
            outcome=outcome,
            known_gaps=gaps,
            source_facts_digest=source_facts.digest(),
            coverage=None
            if checked.coverage is None
            else CheckCoverage.of(checked.coverage, facts_kept(source_facts, checked.diff), source),
            extra={
                **seen[1].extra,
                "reevaluated_at": now.isoformat(),
                "reevaluated_from": item.from_version,
            },
        )
        record = source_facts.to_json()
        indexer = self.store.services.indexer
        index = indexer.warm_doc(
            SchemaResolver(self.store), entry.id, source, narrative, record, narrative_facts
        )
        result = (
            ReevaluationResult.ANNOTATED
            if outcome is AttemptOutcome.ACCEPTABLE_WITH_NOTES
            else ReevaluationResult.CLEAN
        )
        fields = tuple(gap.field for gap in gaps)
        event = NewEvent(
            EventType.REEVALUATED,
            {
                **versions,
                "outcome": outcome.value,
                "known_gaps": [gap.to_json() for gap in gaps],
            },
        )
        return ReevaluationFinish(
            result, seen, fields, diff, record=record, meta=meta, index=index, events=(event,)
        )

    # -- dry run ---------------------------------------------------------------------------

    def dry_run(
        self, plan: ReevaluationPlan, now: datetime, agent: str | None = None
    ) -> ReevaluationReport:
        """What a run would do to the plan's due entries; writes nothing."""
        report = ReevaluationReport(
            schema=plan.target.name, to_version=plan.target.version, dry_run=True
        )
        for version in plan.due_versions:
            for entry_id in self.store.warm_candidates(plan.target.name, version, agent):
                item = ReevaluationItem(
                    0, entry_id, "", plan.target.name, version, plan.target.version, "", now
                )
                decision = self.decide(item, now)
                report.add(decision.result, decision.finish.fields)
        return report


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
