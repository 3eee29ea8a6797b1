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

import asyncio
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from itertools import islice
from typing import Any

from factdiff.catalog import SchemaCatalog
from factdiff.concurrency import aextract, arun_attempt
from factdiff.diff import Verdict
from factdiff.errors import RuntimeFailure, UsageError
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor, infer_reference
from factdiff.pipeline import AttemptResult, Rung, run_attempt, with_usage
from factdiff.policy import DEFAULT_POLICY, Outcome, Policy
from factdiff.providers.base import Usage
from factdiff.providers.errors import ProviderError
from factdiff.providers.meter import metered
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
        prepared = self._prepare(entry, now)
        if prepared.refusal is not None:
            return self._apply_error(
                entry, prepared.schema, prepared.refusal, now, seconds, lease_token
            )
        with metered() as usage:  # the source extraction's model calls belong to the attempt
            started = time.perf_counter()
            try:
                source_facts, from_cache = prepared.cached, True
                if source_facts is None:
                    source_facts, from_cache = self._source_facts(
                        entry, prepared.text, prepared.schema
                    )
            except ProviderError as exc:
                return self._provider_failure(
                    entry, prepared.schema, exc, now, seconds, lease_token
                )
            finally:
                seconds["extract"] = seconds.get("extract", 0.0) + time.perf_counter() - started
            attempt, error = self._timed_attempt(prepared, source_facts, seconds)
        if attempt is not None:
            attempt = with_usage(attempt, usage)
        return self._apply_attempt(
            prepared, source_facts, from_cache, attempt, error, now, seconds, lease_token
        )

    def _timed_attempt(
        self, prepared: _PreparedEntry, source_facts: FactRecord, seconds: dict[str, float]
    ) -> tuple[AttemptResult | None, Exception | None]:
        """Run the entry's rung; an exception is returned, to be applied as an error attempt."""
        started = time.perf_counter()
        attempt: AttemptResult | None = None
        error: Exception | None = None
        try:
            attempt = run_attempt(
                prepared.text,
                prepared.schema,
                self.settings.ladder[prepared.rung_index],
                prepared.rung_index,
                source_facts,
                must_keep=prepared.must_keep(source_facts),
                extractor=self.settings.extractor,
                policy=self.settings.policy,
            )
        except Exception as exc:  # a summarizer bug must not stop the pass or lose the entry
            error = exc
        finally:
            key = "summarize+verify"
            seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - started
        return attempt, error

    def run_concurrent(
        self,
        now: datetime,
        concurrency: int,
        *,
        agent: str | None = None,
        limit: int | None = None,
        on_result: Callable[[EntryResult], None] | None = None,
        keep_results: bool = True,
        batch_size: int | None = None,
    ) -> DemotionReport:
        """``run`` with up to ``concurrency`` compressions in flight (asyncio).

        Due entries are streamed in batches of ``batch_size`` (default ``4 x concurrency``).
        Everything touching the store (preparing an entry, applying its outcome) happens in
        the calling thread; no transaction is open while the models run. Outcomes are applied
        as they complete, with the same fencing, events and provider-failure handling as
        ``demote_entry``: ``DemotionPaused`` stops the pass (the attempts still in flight are
        cancelled, unused).
        """
        if concurrency < 1:
            raise UsageError("concurrency must be at least 1")
        size = batch_size or 4 * concurrency
        report = DemotionReport(keep_results=keep_results)

        def add(result: EntryResult) -> None:
            report.add(result)
            if on_result is not None:
                on_result(result)

        entries = self.due(now, agent, limit)
        while batch := list(islice(entries, size)):
            asyncio.run(self._run_batch(batch, now, concurrency, report.seconds, add))
        return report

    async def _run_batch(
        self,
        batch: Sequence[Entry],
        now: datetime,
        concurrency: int,
        seconds: dict[str, float],
        add: Callable[[EntryResult], None],
    ) -> None:
        """Prepare, compress (concurrently) and apply one batch of entries."""
        gate = asyncio.Semaphore(concurrency)
        tasks: list[asyncio.Task[_Compressed]] = []
        for entry in batch:
            prepared = self._prepare(entry, now)
            if prepared.refusal is not None:
                add(self._apply_error(entry, prepared.schema, prepared.refusal, now, seconds))
                continue
            tasks.append(asyncio.create_task(self._compress(prepared, gate)))
        try:
            for next_done in asyncio.as_completed(tasks):
                done = await next_done
                seconds["extract"] = seconds.get("extract", 0.0) + done.extract_seconds
                key = "summarize+verify"
                seconds[key] = seconds.get(key, 0.0) + done.attempt_seconds
                entry, schema = done.prepared.entry, done.prepared.schema
                if done.source_facts is None:  # the source extraction failed
                    if not isinstance(done.error, ProviderError):
                        raise done.error or RuntimeError("no source facts")
                    add(self._provider_failure(entry, schema, done.error, now, seconds, None))
                    continue
                add(
                    self._apply_attempt(
                        done.prepared,
                        done.source_facts,
                        done.from_cache,
                        done.attempt,
                        done.error,
                        now,
                        seconds,
                    )
                )
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _compress(self, prepared: _PreparedEntry, gate: asyncio.Semaphore) -> _Compressed:
        """Extract the source (unless cached) and run the attempt; errors are returned."""
        async with gate:
            with metered() as usage:
                return await self._compress_metered(prepared, usage)

    async def _compress_metered(self, prepared: _PreparedEntry, usage: Usage) -> _Compressed:
        """``_compress`` inside its meter: the source extraction's calls count too."""
        extractor = self.settings.extractor
        source, from_cache = prepared.cached, prepared.cached is not None
        started = time.perf_counter()
        try:
            if source is None:
                reference = reference_of(prepared.entry, prepared.text)
                source = await aextract(extractor, prepared.text, prepared.schema, reference)
        except Exception as exc:
            return _Compressed(prepared, None, False, None, exc, time.perf_counter() - started)
        extract_seconds = time.perf_counter() - started
        started = time.perf_counter()
        attempt: AttemptResult | None = None
        error: Exception | None = None
        try:
            attempt = await arun_attempt(
                prepared.text,
                prepared.schema,
                self.settings.ladder[prepared.rung_index],
                prepared.rung_index,
                source,
                must_keep=prepared.must_keep(source),
                extractor=extractor,
                policy=self.settings.policy,
            )
        except Exception as exc:  # applied as an error attempt, like demote_entry
            error = exc
        return _Compressed(
            prepared,
            source,
            from_cache,
            None if attempt is None else with_usage(attempt, usage),
            error,
            extract_seconds,
            time.perf_counter() - started,
        )

    def _prepare(self, entry: Entry, now: datetime) -> _PreparedEntry:
        """Everything an attempt needs from the store, read before any model runs."""
        text = entry.content or ""
        schema = self.catalog.for_entry(entry, now)
        refusal = self._refusal(entry, text)
        cached: FactRecord | None = None
        wanted: frozenset[tuple[Any, str]] = frozenset()
        if refusal is None:
            found = self.store.cached_extraction(
                entry.content_hash, schema.hash, self.settings.extractor.identity
            )
            cached = FactRecord.from_json(found) if found is not None else None
            wanted = self._lost_keys(entry)
        rung_index = min(entry.attempt_count, len(self.settings.ladder) - 1)
        return _PreparedEntry(entry, text, schema, rung_index, refusal, cached, wanted)

    def _apply_attempt(
        self,
        prepared: _PreparedEntry,
        source_facts: FactRecord,
        from_cache: bool,
        attempt: AttemptResult | None,
        error: Exception | None,
        now: datetime,
        seconds: dict[str, float],
        lease_token: str | None = None,
    ) -> EntryResult:
        """Apply an attempt's outcome, or the error that stopped it."""
        entry, schema = prepared.entry, prepared.schema
        if isinstance(error, ProviderError):
            if not from_cache:
                self._remember_source(entry, schema, source_facts)
            return self._provider_failure(entry, schema, error, now, seconds, lease_token)
        if error is not None or attempt is None:
            message = f"{type(error).__name__}: {error}".splitlines()[0][:500]
            return self._apply_error(entry, schema, message, now, seconds, lease_token)
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
        return _facts_for(source, self._lost_keys(entry))

    def _lost_keys(self, entry: Entry) -> frozenset[tuple[Any, str]]:
        """(field, value) of the facts the previous attempt lost or changed."""
        if entry.attempt_count == 0:
            return frozenset()
        attempts = self.store.attempts(entry.id)
        if not attempts:
            return frozenset()
        diff = attempts[-1].diff
        return frozenset(
            (item.get("field"), _json_key(item.get("source_value")))
            for verdict in (Verdict.MISSING, Verdict.CHANGED)
            for item in diff.get(verdict.value, [])
            if isinstance(item, dict) and "source_value" in item
        )

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


@dataclass(frozen=True)
class _PreparedEntry:
    """An entry ready for its attempt: what the store said before any model ran."""

    entry: Entry
    text: str
    schema: FactSchema
    rung_index: int
    refusal: str | None
    cached: FactRecord | None
    """The source's record from the extraction cache, if there."""
    wanted: frozenset[tuple[Any, str]]
    """(field, value) the previous attempt lost: the next summary must keep them."""

    def must_keep(self, source: FactRecord) -> tuple[Fact, ...]:
        return _facts_for(source, self.wanted)


@dataclass(frozen=True)
class _Compressed:
    """One entry's attempt (or the error that stopped it), ready to apply."""

    prepared: _PreparedEntry
    source_facts: FactRecord | None
    """None: the source extraction itself failed with ``error``."""
    from_cache: bool
    attempt: AttemptResult | None
    error: Exception | None
    extract_seconds: float = 0.0
    attempt_seconds: float = 0.0


def _facts_for(source: FactRecord, wanted: frozenset[tuple[Any, str]]) -> tuple[Fact, ...]:
    if not wanted:
        return ()
    return tuple(
        fact
        for name, found in _named_facts(source)
        for fact in found
        if (name, _json_key(fact.value.canonical())) in wanted
    )


def reference_of(entry: Entry, text: str) -> date | None:
    """The entry's own local date (its occurred_at offset) resolves partial and relative dates."""
    if entry.occurred_at is not None:
        return entry.occurred_at.date()
    return infer_reference(text)


def _named_facts(record: FactRecord) -> Sequence[tuple[str, tuple[Fact, ...]]]:
    named = list(record.fields.items())
    named.extend((f"inventory.{t.value}", facts) for t, facts in record.inventory.items())
    return named


def _json_key(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)
