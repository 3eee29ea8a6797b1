"""The attempt rows demotion writes: a verified attempt's, or an error's."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from factdiff.compression.engine import AttemptResult, AttemptRun
from factdiff.extraction.record import Fact
from factdiff.inputs.times import later
from factdiff.providers.base import Usage
from factdiff.providers.client import cost_str
from factdiff.schema.model import FactSchema
from factdiff.store import AttemptOutcome, AttemptRecord
from factdiff.values.base import JSON

__all__ = ["error_record", "verified_record"]


def verified_record(
    extractor: str,
    schema: FactSchema,
    attempt: AttemptResult,
    outcome: AttemptOutcome,
    now: datetime,
    usage: Usage,
    must_keep: tuple[Fact, ...],
    diff: dict[str, JSON] | None = None,
) -> AttemptRecord:
    """A verified attempt's row, made with ``extractor`` (its identity); ``diff``: its diff's
    JSON, when already made."""
    duration = attempt.duration_ms
    return AttemptRecord(
        rung=attempt.rung,
        summarizer=attempt.summarizer,
        extractor=extractor,
        method_version=attempt.method_version,
        outcome=outcome,
        started_at=now,
        finished_at=later(now, timedelta(milliseconds=duration)),
        duration_ms=duration,
        budget_words=attempt.budget_words,
        diff=attempt.diff.to_json() if diff is None else diff,
        summary=attempt.summary,
        tokens_in=attempt.tokens_in,
        tokens_out=attempt.tokens_out,
        cost_usd=Decimal(attempt.cost_usd) if attempt.cost_usd else None,
        schema_name=schema.name,
        schema_version=schema.version,
        schema_hash=schema.hash,
        must_keep=None if outcome is not AttemptOutcome.FAILED else _facts_json(must_keep),
        calls=tuple(usage.records),
    )


def error_record(
    extractor: str,
    schema: FactSchema | None,
    run: AttemptRun | None,
    now: datetime,
    message: str,
    failure: str,
    rung: int | None,
) -> AttemptRecord:
    """An error attempt's row: the model calls ``run`` made, if it got that far."""
    duration = run.duration_ms if run is not None else 0.0
    usage = run.usage if run is not None else Usage()
    summarizer = "-"
    if run is not None:
        summarizer = run.job.rung.summarizer.identity
    metered = usage.calls > 0
    cost = usage.known_cost if metered else None
    return AttemptRecord(
        rung=-1 if rung is None else rung,
        summarizer=summarizer,
        extractor=extractor,
        method_version="-",
        outcome=AttemptOutcome.ERROR,
        started_at=now,
        finished_at=later(now, timedelta(milliseconds=duration)),
        duration_ms=duration,
        tokens_in=usage.tokens_in if metered else None,
        tokens_out=usage.tokens_out if metered else None,
        cost_usd=None if cost is None else Decimal(cost_str(cost) or "0"),
        error=message,
        schema_name=None if schema is None else schema.name,
        schema_version=None if schema is None else schema.version,
        schema_hash=None if schema is None else schema.hash,
        failure_class=failure,
        calls=tuple(usage.records),
    )


def _facts_json(facts: tuple[Fact, ...]) -> tuple[dict[str, JSON], ...]:
    return tuple(fact.to_json() for fact in facts)
