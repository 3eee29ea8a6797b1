"""Operator decisions on an entry in review, beyond ``resolve``: approve its last summary
despite what it lost, write a summary and have it verified, or retry now on a chosen rung.

Both verify with the deterministic extractor against the entry's hot source and schema, and
write the warm entry in one transaction fenced by the attempt count (the entry must still be
in review: ``apply_compressed(from_review=True)``), as a new attempt whose summarizer names
the operator key. Approval records every lost or changed fact as a known gap, so retrieval
reads those from the source record; an edit whose diff fails is refused
(``SummaryRefused``, with its diff) and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.demotion.boundary import Boundary
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.preparation import PreparedEntry, reference_of
from factdiff.errors import InputError
from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    Entry,
    EntryStatus,
    EventType,
    KnownGap,
    MemoryStore,
    NewEvent,
    Tier,
    WarmMeta,
    WrongTier,
)
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.verify.check import DEFAULT_EXTRACTOR, CheckResult, check, facts_kept
from factdiff.verify.policy import DEFAULT_POLICY, Outcome

if TYPE_CHECKING:
    from factdiff.values.base import JSON

METHOD = "operator-review/1"


class SummaryRefused(InputError):
    """An operator's summary failed its fact diff: nothing was written."""

    def __init__(self, entry_id: str, result: CheckResult) -> None:
        self.result = result
        lost = ", ".join(f.field for f in result.diff.findings) or "-"
        super().__init__(
            f"entry {entry_id}: the edited summary fails its fact diff ({lost}); keep those "
            "facts and try again"
        )


@dataclass(frozen=True)
class ReviewDecision:
    """What a decision wrote: the entry's id, the outcome recorded, and the diff."""

    entry_id: str
    outcome: AttemptOutcome
    known_gaps: tuple[KnownGap, ...]
    diff: dict[str, JSON]

    def to_json(self) -> dict[str, JSON]:
        """``{"id", "tier", "outcome", "known_gaps", "diff"}``."""
        return {
            "id": self.entry_id,
            "tier": Tier.WARM.value,
            "outcome": self.outcome.value,
            "known_gaps": [gap.to_json() for gap in self.known_gaps],
            "diff": self.diff,
        }


def _in_review(store: MemoryStore, entry_id: str) -> Entry:
    entry = store.get(entry_id)
    if entry.tier is not Tier.HOT or entry.status is not EntryStatus.REVIEW:
        raise WrongTier(
            f"entry {entry_id} is {entry.tier.value} and {entry.status.value}: not in review"
        )
    if store.kept_hot(entry_id) is not None:
        raise WrongTier(f"entry {entry_id} is kept hot: resolve it first")
    return entry


def _verify(store: MemoryStore, entry: Entry, summary: str, now: datetime) -> CheckResult:
    schema = SchemaCatalog(store).for_entry(entry, now)
    text = entry.content or ""
    return check(text, summary, schema, reference=reference_of(entry, text))


def approve(
    store: MemoryStore, entry_id: str, *, reason: str, key_name: str, now: datetime
) -> ReviewDecision:
    """Accept the last failed attempt's summary despite its loss (``reason`` required)."""
    if not reason.strip():
        raise InputError("approving a summary that lost facts needs a reason")
    entry = _in_review(store, entry_id)
    attempts = [a for a in store.attempts(entry_id) if a.summary.strip()]
    if not attempts:
        raise WrongTier(f"entry {entry_id} has no summary to approve: edit one instead")
    summary = attempts[-1].summary
    result = _verify(store, entry, summary, now)
    gaps = tuple(
        KnownGap(f.field, f.criticality, f.fact_type)
        for f in (*result.diff.missing, *result.diff.changed)
    )
    event = NewEvent(
        EventType.REVIEW_APPROVED,
        {"key": key_name, "reason": reason, "diff": result.diff.to_json()},
    )
    return _write(
        store,
        entry,
        summary,
        result,
        AttemptOutcome.ACCEPTABLE_WITH_NOTES,
        gaps,
        key_name,
        event,
        now,
    )


def edit(
    store: MemoryStore, entry_id: str, *, summary: str, key_name: str, now: datetime
) -> ReviewDecision:
    """Verify an operator's summary; write it when it passes, else ``SummaryRefused``."""
    if not summary.strip():
        raise InputError("the edited summary is empty")
    entry = _in_review(store, entry_id)
    result = _verify(store, entry, summary, now)
    if not result.outcome.passed:
        raise SummaryRefused(entry_id, result)
    outcome = (
        AttemptOutcome.CLEAN
        if result.outcome is Outcome.CLEAN
        else AttemptOutcome.ACCEPTABLE_WITH_NOTES
    )
    gaps = tuple(
        KnownGap(f.field, f.criticality, f.fact_type) for f in DEFAULT_POLICY.notes(result.diff)
    )
    event = NewEvent(EventType.REVIEW_EDITED, {"key": key_name, "diff": result.diff.to_json()})
    return _write(store, entry, summary, result, outcome, gaps, key_name, event, now)


def _write(
    store: MemoryStore,
    entry: Entry,
    summary: str,
    result: CheckResult,
    outcome: AttemptOutcome,
    gaps: tuple[KnownGap, ...],
    key_name: str,
    event: NewEvent,
    now: datetime,
) -> ReviewDecision:
    schema = result.source_facts.schema
    summarizer = f"operator:{key_name}"
    meta = WarmMeta(
        schema=schema,
        extractor=DEFAULT_EXTRACTOR.identity,
        summarizer=summarizer,
        method_version=METHOD,
        budget_words=None,
        rung=0,
        outcome=outcome,
        compressed_at=now,
        attempt_count=entry.attempt_count + 1,
        source_content_hash=entry.content_hash,
        source_facts_digest=result.source_facts.digest(),
        known_gaps=gaps,
        coverage=None
        if result.coverage is None
        else CheckCoverage.of(
            result.coverage, facts_kept(result.source_facts, result.diff), entry.content or ""
        ),
    )
    attempt = AttemptRecord(
        rung=0,
        summarizer=summarizer,
        extractor=DEFAULT_EXTRACTOR.identity,
        method_version=METHOD,
        outcome=outcome,
        started_at=now,
        finished_at=now,
        duration_ms=0.0,
        diff=result.diff.to_json(),
        summary=summary,
        schema_name=schema.name,
        schema_version=schema.version,
        schema_hash=schema.hash,
    )
    demoted = NewEvent(
        EventType.DEMOTED,
        {
            "summarizer": summarizer,
            "lost": [g.field for g in gaps],
            "known_gaps": [g.to_json() for g in gaps],
        },
    )
    applied = store.apply_compressed(
        entry.id,
        expected_attempts=entry.attempt_count,
        narrative=summary,
        record=result.source_facts.to_json(),
        meta=meta,
        attempt=attempt,
        events=[event, demoted],
        now=now,
        from_review=True,
    )
    if not applied:
        raise WrongTier(f"entry {entry.id} changed meanwhile (no longer in review): look again")
    return ReviewDecision(entry.id, outcome, gaps, result.diff.to_json())


class _RungBoundary(Boundary):
    """Demotion's store boundary, making the next attempt on a rung the operator chose."""

    def __init__(self, store: MemoryStore, settings: DemotionSettings, rung: int) -> None:
        super().__init__(store, settings)
        self.rung = rung

    def prepare(self, entry: Entry, now: datetime, encode_ahead: bool = False) -> PreparedEntry:
        return replace(super().prepare(entry, now, encode_ahead), rung_index=self.rung)


def retry(
    store: MemoryStore,
    entry_id: str,
    *,
    rung: int,
    key_name: str,
    now: datetime,
    settings: DemotionSettings | None = None,
) -> dict[str, JSON]:
    """Return the entry from review and make one attempt now on ladder rung ``rung`` (from
    0); a failure sends it back to review (its attempts are spent). Returns
    ``{"id", "rung", "outcome", "applied", "tier", "status"}``."""
    chosen = settings or DemotionSettings()
    if not 0 <= rung < len(chosen.ladder):
        raise InputError(f"rung {rung} is not on the ladder: choose 0 to {len(chosen.ladder) - 1}")
    _in_review(store, entry_id)
    if not store.resolve_review(entry_id, now, f"retry now on rung {rung} (key {key_name})"):
        raise WrongTier(f"entry {entry_id} left review meanwhile: look again")
    demoter = Demoter(store, chosen)
    demoter.boundary = _RungBoundary(store, chosen, rung)
    result = demoter.demote_entry(store.get(entry_id), now)
    after = store.get(entry_id)
    return {
        "id": entry_id,
        "rung": rung,
        "outcome": result.outcome.value,
        "applied": result.applied,
        "tier": after.tier.value,
        "status": after.status.value,
    }
