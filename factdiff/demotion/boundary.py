"""The store boundary of demotion: read what an attempt needs, write what it did.

``Boundary.prepare`` reads what an attempt needs before any model runs
(``factdiff.demotion.preparation``). ``Boundary.apply`` writes an ``AttemptRun`` back in one
fenced transaction:

* passed -> warm entry + cold archive, with a typed ``WarmMeta`` (known gaps included);
* failed -> stays hot, ``compression_failure`` event, the next rung's must-keep facts, and a
  backoff, or review after ``max_attempts`` (reason ``max_attempts``);
* error (provider unavailable, model output, internal) -> an error attempt with its model
  calls, tokens and cost: no rung is climbed and no verified attempt spent; it backs off on
  the error schedule and goes to review only past the error budget (reason
  ``provider_unavailable``, or ``errors``); a context too long for the model goes to review
  at once (reason ``context_too_long``);
* a provider account failure (quota, credentials, rejected parameters) writes nothing: the
  lease is released and ``DemotionPaused`` stops the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.compression.engine import AttemptResult, AttemptRun
from factdiff.demotion.attempt_rows import error_record, verified_record
from factdiff.demotion.preparation import PreparedEntry, prepare
from factdiff.demotion.retry import RetryDecision, ReviewReason
from factdiff.errors import (
    ContextTooLong,
    DemotionPaused,
    ProviderAccountError,
    ProviderError,
    ProviderUnavailable,
    failure_class_of,
    one_line,
)
from factdiff.extraction.record import FactRecord
from factdiff.providers.base import Usage
from factdiff.schema.model import FactSchema
from factdiff.store import AttemptOutcome, Entry, EventType, MemoryStore, NewEvent, WarmMeta
from factdiff.store.catalog import SchemaCatalog
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.verify.check import facts_kept
from factdiff.verify.policy import Outcome

if TYPE_CHECKING:
    from factdiff.demotion.settings import DemotionSettings
    from factdiff.values.base import JSON

__all__ = ["Boundary", "EntryResult", "PassedWrite"]

REFUSED_INPUT = "refused_input"


@dataclass(frozen=True)
class EntryResult:
    """What one demotion attempt did to one entry."""

    entry_id: str
    agent_id: str
    outcome: AttemptOutcome
    applied: bool
    """False when the fence refused the commit (another demoter, or a lost lease)."""
    escalated: bool = False
    attempt: AttemptResult | None = None
    error: str | None = None
    failure_class: str | None = None
    counts_as_attempt: bool = True
    """False for error attempts: they climb no rung and spend no verified attempt."""


@dataclass(frozen=True)
class PassedWrite:
    """What a passed attempt writes, made once before the store is touched."""

    outcome: AttemptOutcome
    record: FactRecord
    """The source record: the warm row's, the digest's and the index's (its JSON is made
    only where the warm row is made: by the worker process that verified the summary, else
    by the store)."""
    diff: dict[str, JSON]
    """The diff's JSON: the event's and the attempt row's."""
    meta: WarmMeta
    events: list[NewEvent]


class Boundary:
    """Reads and writes one store on behalf of demotion (see the module docstring)."""

    def __init__(self, store: MemoryStore, settings: DemotionSettings) -> None:
        self.store = store
        self.settings = settings
        self.catalog = SchemaCatalog(store)

    # -- reading ---------------------------------------------------------------------------

    def prepare(self, entry: Entry, now: datetime, encode_ahead: bool = False) -> PreparedEntry:
        """Everything an attempt needs from the store (``preparation.prepare``)."""
        return prepare(self.store, self.catalog, self.settings, entry, now, encode_ahead)

    # -- writing ---------------------------------------------------------------------------

    def apply(
        self,
        prepared: PreparedEntry,
        run: AttemptRun,
        now: datetime,
        lease_token: str | None = None,
    ) -> EntryResult:
        """Write an attempt's outcome, or the error that stopped it (one transaction)."""
        if isinstance(run.error, ProviderAccountError):
            self._release(lease_token)
            raise DemotionPaused(
                f"{run.error} ({run.error.failure_class}): demotion paused, no attempt was "
                "used; fix the provider account or configuration, then run demotion again"
            ) from run.error
        if run.error is not None or run.attempt is None:
            error = run.error or RuntimeError("the attempt produced no result")
            return self._apply_error(prepared.entry, prepared.schema, error, now, lease_token, run)
        attempt = run.attempt
        if attempt.outcome.passed:
            assert run.source_facts is not None
            write = self.passed_write(prepared, run.source_facts, attempt, now)
            return self._apply_passed(prepared, write, attempt, run.usage, now, lease_token)
        return self._apply_failed(prepared, run, attempt, now, lease_token)

    def apply_refusal(
        self, prepared: PreparedEntry, now: datetime, lease_token: str | None = None
    ) -> EntryResult:
        """An entry that cannot be compressed at all goes to review at once (a verified
        decision: it counts as an attempt)."""
        entry, message = prepared.entry, prepared.refusal or ""
        payload: dict[str, JSON] = {
            "error": message,
            "failure_class": REFUSED_INPUT,
            "summary": None,
            "next_attempt_at": None,
        }
        events = [
            NewEvent(EventType.COMPRESSION_FAILURE, payload),
            NewEvent(
                EventType.ESCALATED_TO_REVIEW,
                {"reason": ReviewReason.REFUSED_INPUT, "detail": message},
            ),
        ]
        record = error_record(
            self.settings.extractor.identity,
            prepared.schema,
            None,
            now,
            message,
            REFUSED_INPUT,
            None,
        )
        applied = self.store.apply_failed(
            entry.id,
            expected_attempts=entry.attempt_count,
            expected_errors=entry.error_attempts,
            attempt=record,
            next_attempt_at=None,
            escalate=True,
            events=events,
            now=now,
            lease_token=lease_token,
        )
        return EntryResult(
            entry.id,
            entry.agent_id,
            AttemptOutcome.ERROR,
            applied,
            True,
            error=message,
            failure_class=REFUSED_INPUT,
        )

    def apply_internal(
        self,
        entry: Entry,
        error: BaseException,
        now: datetime,
        lease_token: str | None = None,
        schema: FactSchema | None = None,
    ) -> EntryResult:
        """An unexpected error while handling ``entry`` (outside the attempt itself, e.g. an
        unknown schema name): an ``internal`` error attempt, on the error budget."""
        return self._apply_error(entry, schema, error, now, lease_token, None)

    def _release(self, lease_token: str | None) -> None:
        if lease_token is not None:
            self.store.release(lease_token)

    def passed_write(
        self, prepared: PreparedEntry, source: FactRecord, attempt: AttemptResult, now: datetime
    ) -> PassedWrite:
        """What a passed attempt writes, but its warm row (no store read)."""
        entry, schema = prepared.entry, prepared.schema
        outcome = AttemptOutcome(attempt.outcome.value)
        diff = attempt.diff.to_json()  # one object for the event and the attempt row
        meta = WarmMeta(
            schema=schema.ref,
            extractor=self.settings.extractor.identity,
            summarizer=attempt.summarizer,
            method_version=attempt.method_version,
            budget_words=attempt.budget_words,
            rung=attempt.rung,
            outcome=outcome,
            compressed_at=now,
            attempt_count=entry.attempt_count + 1,
            source_content_hash=entry.content_hash,
            source_facts_digest=None  # the digest of the record the warm row is written with
            if attempt.warm_body is None
            else attempt.warm_body.record_digest,
            known_gaps=attempt.known_gaps,
            coverage=None
            if attempt.coverage is None
            else CheckCoverage.of(
                attempt.coverage, facts_kept(source, attempt.diff), prepared.text
            ),
        )
        event_type = (
            EventType.COMPRESSION_CLEAN
            if attempt.outcome is Outcome.CLEAN
            else EventType.COMPRESSION_ACCEPTABLE
        )
        lost = list(meta.lost_important_fields)
        events = [
            NewEvent(event_type, {"rung": attempt.rung, "diff": diff}),
            NewEvent(
                EventType.DEMOTED,
                {
                    "summarizer": attempt.summarizer,
                    "lost": lost,
                    "known_gaps": [gap.to_json() for gap in meta.known_gaps],
                },
            ),
        ]
        return PassedWrite(outcome, source, diff, meta, events)

    def _apply_passed(
        self,
        prepared: PreparedEntry,
        write: PassedWrite,
        attempt: AttemptResult,
        usage: Usage,
        now: datetime,
        lease_token: str | None,
    ) -> EntryResult:
        entry, schema, outcome = prepared.entry, prepared.schema, write.outcome
        applied = self.store.apply_compressed(
            entry.id,
            expected_attempts=entry.attempt_count,
            expected_errors=entry.error_attempts,
            narrative=attempt.summary,
            record=write.record,
            meta=write.meta,
            attempt=verified_record(
                self.settings.extractor.identity,
                schema,
                attempt,
                outcome,
                now,
                usage,
                (),
                write.diff,
            ),
            events=write.events,
            now=now,
            lease_token=lease_token,
            keep_attempts=self.settings.attempt_retention != "warm-clean"
            or outcome is not AttemptOutcome.CLEAN,
            narrative_facts=attempt.summary_facts,
            body=attempt.warm_body,
        )
        return EntryResult(entry.id, entry.agent_id, outcome, applied, attempt=attempt)

    def _apply_failed(
        self,
        prepared: PreparedEntry,
        run: AttemptRun,
        attempt: AttemptResult,
        now: datetime,
        lease_token: str | None,
    ) -> EntryResult:
        entry, schema = prepared.entry, prepared.schema
        source, said = run.source_facts, attempt.summary_facts
        assert source is not None
        assert said is not None  # a failed summary has no warm body
        decision = self.settings.retry.decide(entry.id, entry.attempt_count + 1, now)
        events = [
            NewEvent(
                EventType.COMPRESSION_FAILURE,
                {
                    "rung": attempt.rung,
                    "summarizer": attempt.summarizer,
                    "summary": attempt.summary,
                    "diff": attempt.diff.to_json(),
                    "source_facts": source.to_json(),
                    "summary_facts": said.to_json(),
                    "next_attempt_at": _iso(decision.retry_at),
                },
            )
        ]
        events.extend(_escalation(decision))
        record = verified_record(
            self.settings.extractor.identity,
            schema,
            attempt,
            AttemptOutcome.FAILED,
            now,
            run.usage,
            attempt.next_must_keep,
        )
        applied = self.store.apply_failed(
            entry.id,
            expected_attempts=entry.attempt_count,
            expected_errors=entry.error_attempts,
            attempt=record,
            next_attempt_at=decision.retry_at,
            escalate=decision.escalate,
            events=events,
            now=now,
            lease_token=lease_token,
        )
        if applied and not decision.escalate and run.extracted:
            self._remember_source(entry, schema, source)
        return EntryResult(
            entry.id, entry.agent_id, AttemptOutcome.FAILED, applied, decision.escalate, attempt
        )

    def _apply_error(
        self,
        entry: Entry,
        schema: FactSchema | None,
        error: BaseException,
        now: datetime,
        lease_token: str | None,
        run: AttemptRun | None,
    ) -> EntryResult:
        failure = failure_class_of(error)
        message = (
            one_line(error)
            if not isinstance(error, ProviderError)
            else (f"{failure}: {error}".splitlines()[0][:500])
        )
        decision = self._error_decision(entry, error, failure, now)
        payload: dict[str, JSON] = {
            "error": message,
            "failure_class": failure,
            "exception": type(error).__name__,
            "summary": None,
            "next_attempt_at": _iso(decision.retry_at),
            "counts_as_attempt": False,
        }
        events = [NewEvent(EventType.COMPRESSION_FAILURE, payload), *_escalation(decision)]
        rung = run.job.rung_index if run is not None else None
        record = error_record(
            self.settings.extractor.identity, schema, run, now, message, failure, rung
        )
        applied = self.store.apply_error(
            entry.id,
            expected_attempts=entry.attempt_count,
            expected_errors=entry.error_attempts,
            attempt=record,
            next_attempt_at=decision.retry_at,
            escalate=decision.escalate,
            events=events,
            now=now,
            lease_token=lease_token,
        )
        if (
            applied
            and not decision.escalate
            and run is not None
            and run.extracted
            and run.source_facts is not None
            and schema is not None
        ):
            self._remember_source(entry, schema, run.source_facts)
        return EntryResult(
            entry.id,
            entry.agent_id,
            AttemptOutcome.ERROR,
            applied,
            decision.escalate,
            error=message,
            failure_class=failure,
            counts_as_attempt=False,
        )

    def _error_decision(
        self, entry: Entry, error: BaseException, failure: str, now: datetime
    ) -> RetryDecision:
        if isinstance(error, ContextTooLong):
            return RetryDecision(None, True, str(error), ReviewReason.CONTEXT_TOO_LONG)
        return self.settings.retry.decide_error(
            entry.id,
            entry.error_streak + 1,
            now,
            provider=isinstance(error, ProviderUnavailable),
            retry_after=error.retry_after if isinstance(error, ProviderError) else None,
            failure=failure,
        )

    def _remember_source(self, entry: Entry, schema: FactSchema, record: FactRecord) -> None:
        """Cache the source's record for the retry (only entries that stay hot need it)."""
        self.store.put_extraction(
            entry.content_hash, schema.hash, self.settings.extractor.identity, record.to_json()
        )


def _escalation(decision: RetryDecision) -> list[NewEvent]:
    if not decision.escalate:
        return []
    payload = {"reason": decision.reason, "detail": decision.detail}
    return [NewEvent(EventType.ESCALATED_TO_REVIEW, payload)]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
