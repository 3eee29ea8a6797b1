"""Demotion: find dormant hot entries, compress each, and apply the outcome in one transaction.

One pass makes at most one attempt per entry, on the ladder rung its attempt count selects:

* clean / acceptable -> warm entry + cold archive, hot content removed (``apply_compressed``);
* failed -> stays hot, ``compression_failure`` event, next attempt after a backoff, or
  operator review after ``max_attempts`` (``apply_failed``).

No transaction is open while compressing. Every write is fenced by the attempt count read
before compressing, so rerunning after a crash at any point, or two demoters at once, never
applies an outcome twice, skips an attempt record or loses a source. A worker that leased the
entry (``MemoryStore.claim``) passes ``lease_token`` to ``demote_entry``: the outcome then
commits only while that lease is still held (see ``factdiff.worker``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from factdiff.catalog import SchemaCatalog
from factdiff.diff import Verdict
from factdiff.errors import RuntimeFailure
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor, infer_reference
from factdiff.pipeline import AttemptResult, Rung, run_attempt
from factdiff.policy import DEFAULT_POLICY, Outcome, Policy
from factdiff.providers.errors import ProviderError
from factdiff.record import Fact, FactRecord
from factdiff.retry import RetryPolicy
from factdiff.schema.model import FactSchema
from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    Entry,
    EventType,
    MemoryStore,
    NewEvent,
)
from factdiff.summarize import ExtractiveSummarizer

PAUSING_FAILURES = frozenset({"quota_exhausted", "configuration"})
"""Provider failures that no entry can get past: the whole pass stops without using attempts."""


class DemotionPaused(RuntimeFailure):
    """A provider refuses every call (quota exhausted, bad credentials or model)."""


MAX_SOURCE_BYTES = 1_048_576
"""Entries above this size are not compressed (they go to review with a clear message)."""


def default_ladder() -> tuple[Rung, ...]:
    """The offline ladder: extractive at 35% of the source, then 60% and stricter, then 100%."""
    extractive = ExtractiveSummarizer()
    return (
        Rung(extractive, budget_ratio=0.35, strictness=0),
        Rung(extractive, budget_ratio=0.6, strictness=1),
        Rung(extractive, budget_ratio=1.0, strictness=2),
    )


@dataclass(frozen=True)
class DemotionSettings:
    """How demotion compresses and retries."""

    older_than: timedelta = timedelta(days=14)
    ladder: tuple[Rung, ...] = field(default_factory=default_ladder)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    policy: Policy = DEFAULT_POLICY
    extractor: Extractor = field(default_factory=RulesExtractor)
    max_source_bytes: int = MAX_SOURCE_BYTES


@dataclass(frozen=True)
class EntryResult:
    """What one demotion attempt did to one entry."""

    entry_id: str
    agent_id: str
    outcome: AttemptOutcome
    applied: bool
    """False when another demoter got there first (nothing was written)."""
    escalated: bool = False
    attempt: AttemptResult | None = None
    error: str | None = None


@dataclass
class DemotionReport:
    """Counts and where the time went, for the CLI summary and the benchmarks."""

    results: list[EntryResult] = field(default_factory=list)
    seconds: dict[str, float] = field(
        default_factory=lambda: {"extract": 0.0, "summarize+verify": 0.0, "sql": 0.0}
    )
    keep_results: bool = True
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, result: EntryResult) -> None:
        """Count one entry's result (and keep it unless streaming)."""
        key = result.outcome.value if result.applied else "skipped"
        self.counts[key] = self.counts.get(key, 0) + 1
        if result.escalated:
            self.counts["escalated"] = self.counts.get("escalated", 0) + 1
        if self.keep_results:
            self.results.append(result)

    @property
    def processed(self) -> int:
        """Entries attempted in this pass."""
        return sum(v for k, v in self.counts.items() if k != "escalated")


class Demoter:
    """Runs demotion passes over one store."""

    def __init__(self, store: MemoryStore, settings: DemotionSettings | None = None) -> None:
        self.store = store
        self.settings = settings or DemotionSettings()
        self.catalog = SchemaCatalog(store)

    def due(
        self, now: datetime, agent: str | None = None, limit: int | None = None
    ) -> Iterator[Entry]:
        """Dormant hot entries whose next attempt is due (streamed)."""
        return self.store.due_for_demotion(now, self.settings.older_than, agent, limit)

    def run(
        self,
        now: datetime,
        *,
        agent: str | None = None,
        limit: int | None = None,
        on_result: Callable[[EntryResult], None] | None = None,
        keep_results: bool = True,
    ) -> DemotionReport:
        """One pass: at most one attempt for every due entry."""
        report = DemotionReport(keep_results=keep_results)
        for entry in self.due(now, agent, limit):
            result = self.demote_entry(entry, now, report.seconds)
            report.add(result)
            if on_result is not None:
                on_result(result)
        return report

    def demote_entry(
        self,
        entry: Entry,
        now: datetime,
        seconds: dict[str, float] | None = None,
        *,
        lease_token: str | None = None,
    ) -> EntryResult:
        """Make the entry's next attempt and apply its outcome.

        With ``lease_token`` the outcome is fenced by that lease: ``applied`` is ``False``
        when the lease was lost (nothing written).
        """
        seconds = seconds if seconds is not None else {}
        text = entry.content or ""
        schema = self.catalog.for_entry(entry, now)
        problem = self._refusal(entry, text)
        if problem is not None:
            return self._apply_error(entry, schema, problem, now, seconds, lease_token)
        started = time.perf_counter()
        try:
            source_facts, from_cache = self._source_facts(entry, text, schema)
        except ProviderError as exc:
            return self._provider_failure(entry, schema, exc, now, seconds, lease_token)
        finally:
            seconds["extract"] = seconds.get("extract", 0.0) + time.perf_counter() - started
        rung_index = min(entry.attempt_count, len(self.settings.ladder) - 1)
        must_keep = self._lost_last_time(entry, source_facts)
        started = time.perf_counter()
        try:
            attempt = run_attempt(
                text,
                schema,
                self.settings.ladder[rung_index],
                rung_index,
                source_facts,
                must_keep=must_keep,
                extractor=self.settings.extractor,
                policy=self.settings.policy,
            )
        except ProviderError as exc:
            if not from_cache:
                self._remember_source(entry, schema, source_facts)
            return self._provider_failure(entry, schema, exc, now, seconds, lease_token)
        except Exception as exc:  # a summarizer bug must not stop the pass or lose the entry
            message = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
            return self._apply_error(entry, schema, message, now, seconds, lease_token)
        finally:
            key = "summarize+verify"
            seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - started
        started = time.perf_counter()
        try:
            if attempt.outcome.passed:
                return self._apply_passed(entry, schema, source_facts, attempt, now, lease_token)
            result = self._apply_failed(entry, schema, source_facts, attempt, now, lease_token)
            if result.applied and not result.escalated and not from_cache:
                self._remember_source(entry, schema, source_facts)
            return result
        finally:
            seconds["sql"] = seconds.get("sql", 0.0) + time.perf_counter() - started

    def _refusal(self, entry: Entry, text: str) -> str | None:
        if not text.strip():
            return "the entry is empty or whitespace: an empty warm entry is never written"
        if entry.size_bytes > self.settings.max_source_bytes:
            return (
                f"the entry is {entry.size_bytes} bytes, above the compression limit of "
                f"{self.settings.max_source_bytes}; split it into smaller entries or raise "
                "max_source_bytes (it stays hot, intact)"
            )
        return None

    def _source_facts(self, entry: Entry, text: str, schema: FactSchema) -> tuple[FactRecord, bool]:
        """The source's record and whether it came from the extraction cache."""
        extractor = self.settings.extractor
        cached = self.store.cached_extraction(entry.content_hash, schema.hash, extractor.identity)
        if cached is not None:
            return FactRecord.from_json(cached), True
        return extractor.extract(text, schema, reference_of(entry, text)), False

    def _remember_source(self, entry: Entry, schema: FactSchema, record: FactRecord) -> None:
        """Cache the source's record for the retry (only entries that stay hot need it)."""
        self.store.put_extraction(
            entry.content_hash, schema.hash, self.settings.extractor.identity, record.to_json()
        )

    def _lost_last_time(self, entry: Entry, source: FactRecord) -> tuple[Fact, ...]:
        if entry.attempt_count == 0:
            return ()
        attempts = self.store.attempts(entry.id)
        if not attempts:
            return ()
        diff = attempts[-1].diff
        wanted = {
            (item.get("field"), _json_key(item.get("source_value")))
            for verdict in (Verdict.MISSING, Verdict.CHANGED)
            for item in diff.get(verdict.value, [])
            if isinstance(item, dict) and "source_value" in item
        }
        facts = [
            fact
            for name, found in _named_facts(source)
            for fact in found
            if (name, _json_key(fact.value.canonical())) in wanted
        ]
        return tuple(facts)

    def _attempt_record(
        self,
        schema: FactSchema,
        attempt: AttemptResult | None,
        outcome: AttemptOutcome,
        now: datetime,
        error: str | None = None,
    ) -> AttemptRecord:
        duration = attempt.duration_ms if attempt else 0.0
        return AttemptRecord(
            rung=attempt.rung if attempt else -1,
            summarizer=attempt.summarizer if attempt else "-",
            extractor=self.settings.extractor.identity,
            method_version=attempt.method_version if attempt else "-",
            outcome=outcome,
            started_at=now,
            finished_at=now + timedelta(milliseconds=duration),
            duration_ms=duration,
            budget_words=attempt.budget_words if attempt else None,
            diff=attempt.diff.to_json() if attempt else {},
            summary=attempt.summary if attempt else "",
            tokens_in=attempt.tokens_in if attempt else None,
            tokens_out=attempt.tokens_out if attempt else None,
            cost_usd=Decimal(attempt.cost_usd) if attempt and attempt.cost_usd else None,
            error=error,
            schema_name=schema.name,
            schema_version=schema.version,
            schema_hash=schema.hash,
        )

    def _apply_passed(
        self,
        entry: Entry,
        schema: FactSchema,
        source_facts: FactRecord,
        attempt: AttemptResult,
        now: datetime,
        lease_token: str | None = None,
    ) -> EntryResult:
        outcome = AttemptOutcome(attempt.outcome.value)
        lost = [f.field for f in self.settings.policy.notes(attempt.diff)]
        meta: dict[str, Any] = {
            "schema": schema.ref.to_json(),
            "extractor": self.settings.extractor.identity,
            "summarizer": attempt.summarizer,
            "method_version": attempt.method_version,
            "budget_words": attempt.budget_words,
            "rung": attempt.rung,
            "outcome": attempt.outcome.value,
            "compressed_at": now.isoformat(),
            "lost_important_fields": lost,
            "attempt_count": entry.attempt_count + 1,
            "source_content_hash": entry.content_hash,
            "source_facts_digest": source_facts.digest(),
        }
        event_type = (
            EventType.COMPRESSION_CLEAN
            if attempt.outcome is Outcome.CLEAN
            else EventType.COMPRESSION_ACCEPTABLE
        )
        events = [
            NewEvent(event_type, {"rung": attempt.rung, "diff": attempt.diff.to_json()}),
            NewEvent(EventType.DEMOTED, {"summarizer": attempt.summarizer, "lost": lost}),
        ]
        applied = self.store.apply_compressed(
            entry.id,
            expected_attempts=entry.attempt_count,
            narrative=attempt.summary,
            record=source_facts.to_json(),
            meta=meta,
            attempt=self._attempt_record(schema, attempt, outcome, now),
            events=events,
            now=now,
            lease_token=lease_token,
        )
        return EntryResult(entry.id, entry.agent_id, outcome, applied, attempt=attempt)

    def _apply_failed(
        self,
        entry: Entry,
        schema: FactSchema,
        source_facts: FactRecord,
        attempt: AttemptResult,
        now: datetime,
        lease_token: str | None = None,
    ) -> EntryResult:
        decision = self.settings.retry.decide(entry.id, entry.attempt_count + 1, now)
        events = [
            NewEvent(
                EventType.COMPRESSION_FAILURE,
                {
                    "rung": attempt.rung,
                    "summarizer": attempt.summarizer,
                    "summary": attempt.summary,
                    "diff": attempt.diff.to_json(),
                    "source_facts": source_facts.to_json(),
                    "summary_facts": attempt.summary_facts.to_json(),
                    "next_attempt_at": decision.retry_at.isoformat() if decision.retry_at else None,
                },
            )
        ]
        if decision.escalate:
            events.append(NewEvent(EventType.ESCALATED_TO_REVIEW, {"reason": decision.reason}))
        applied = self.store.apply_failed(
            entry.id,
            expected_attempts=entry.attempt_count,
            attempt=self._attempt_record(schema, attempt, AttemptOutcome.FAILED, now),
            next_attempt_at=decision.retry_at,
            escalate=decision.escalate,
            events=events,
            now=now,
            lease_token=lease_token,
        )
        return EntryResult(
            entry.id, entry.agent_id, AttemptOutcome.FAILED, applied, decision.escalate, attempt
        )

    def _provider_failure(
        self,
        entry: Entry,
        schema: FactSchema,
        exc: ProviderError,
        now: datetime,
        seconds: dict[str, float],
        lease_token: str | None,
    ) -> EntryResult:
        """A model call failed: stop the pass (quota, credentials) or retry this entry later."""
        if exc.failure_class in PAUSING_FAILURES:
            raise DemotionPaused(
                f"{exc} ({exc.failure_class}): demotion paused, no attempt was used; "
                "fix the provider account or configuration, then run demotion again"
            ) from exc
        retry_at = None
        if exc.retry_after is not None:
            retry_at = now + timedelta(seconds=exc.retry_after)
        message = f"{exc.failure_class}: {exc}".splitlines()[0][:500]
        return self._apply_error(
            entry,
            schema,
            message,
            now,
            seconds,
            lease_token,
            retry=True,
            not_before=retry_at,
            failure_class=exc.failure_class,
        )

    def _apply_error(
        self,
        entry: Entry,
        schema: FactSchema,
        message: str,
        now: datetime,
        seconds: dict[str, float],
        lease_token: str | None = None,
        *,
        retry: bool = False,
        not_before: datetime | None = None,
        failure_class: str = "refused_input",
    ) -> EntryResult:
        """Record an attempt that produced no summary; retry later, or go to review at once."""
        started = time.perf_counter()
        retry_at: datetime | None = None
        escalate = True
        reason = message
        if retry:
            decision = self.settings.retry.decide(
                entry.id, entry.attempt_count + 1, now, not_before
            )
            retry_at, escalate, reason = decision.retry_at, decision.escalate, decision.reason
        payload = {
            "error": message,
            "failure_class": failure_class,
            "summary": None,
            "next_attempt_at": retry_at.isoformat() if retry_at else None,
        }
        events = [NewEvent(EventType.COMPRESSION_FAILURE, payload)]
        if escalate:
            events.append(NewEvent(EventType.ESCALATED_TO_REVIEW, {"reason": reason}))
        applied = self.store.apply_failed(
            entry.id,
            expected_attempts=entry.attempt_count,
            attempt=self._attempt_record(schema, None, AttemptOutcome.ERROR, now, message),
            next_attempt_at=retry_at,
            escalate=escalate,
            events=events,
            now=now,
            lease_token=lease_token,
        )
        seconds["sql"] = seconds.get("sql", 0.0) + time.perf_counter() - started
        return EntryResult(
            entry.id, entry.agent_id, AttemptOutcome.ERROR, applied, escalate, error=message
        )


def reference_of(entry: Entry, text: str) -> date | None:
    """The entry's own date (UTC) resolves partial and relative dates; else the text's anchor."""
    if entry.occurred_at is not None:
        return entry.occurred_at.date()
    return infer_reference(text)


def _named_facts(record: FactRecord) -> Sequence[tuple[str, tuple[Fact, ...]]]:
    named = list(record.fields.items())
    named.extend((f"inventory.{t.value}", facts) for t, facts in record.inventory.items())
    return named


def _json_key(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)
