"""The attempt rows demotion writes: a verified attempt's and an error's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from factdiff.compression.engine import AttemptResult
from factdiff.demotion.attempt_rows import error_record, verified_record
from factdiff.providers.base import Usage
from factdiff.schema.model import FactSchema
from factdiff.store import AttemptOutcome
from factdiff.verify.check import DEFAULT_EXTRACTOR, verify
from factdiff.verify.policy import DEFAULT_POLICY
from tests.conftest import worked

NOW = datetime(2026, 3, 20, 9, 30, tzinfo=UTC)


def _attempt(schema: FactSchema, summary: str) -> AttemptResult:
    source = DEFAULT_EXTRACTOR.extract(worked("source"), schema)
    said = DEFAULT_EXTRACTOR.extract(summary, schema, source.reference)
    checked = verify(source, said, schema, DEFAULT_POLICY)
    kept = tuple(fact for facts in source.fields.values() for fact in facts)[:1]
    return AttemptResult(
        rung=1,
        summarizer="extractive",
        method_version="v2",
        budget_words=60,
        summary=summary,
        outcome=checked.outcome,
        diff=checked.diff,
        summary_facts=said,
        must_keep=(),
        duration_ms=1500.0,
        tokens_in=120,
        tokens_out=40,
        cost_usd="0.0021",
        next_must_keep=kept,
    )


def test_a_failed_attempt_row_keeps_what_the_next_must_keep(
    customer_service: FactSchema,
) -> None:
    attempt = _attempt(customer_service, worked("fluent"))
    assert not attempt.outcome.passed
    row = verified_record(
        "rules-1",
        customer_service,
        attempt,
        AttemptOutcome.FAILED,
        NOW,
        Usage(),
        attempt.next_must_keep,
    )
    assert (row.rung, row.summarizer, row.extractor) == (1, "extractive", "rules-1")
    assert row.outcome is AttemptOutcome.FAILED
    assert row.finished_at == NOW + timedelta(milliseconds=1500)
    assert row.diff == attempt.diff.to_json()
    assert row.cost_usd == Decimal("0.0021")
    assert (row.tokens_in, row.tokens_out) == (120, 40)
    assert row.must_keep == tuple(fact.to_json() for fact in attempt.next_must_keep)
    assert row.must_keep
    assert (row.schema_name, row.schema_version, row.schema_hash) == (
        customer_service.name,
        customer_service.version,
        customer_service.hash,
    )


def test_a_passed_attempt_row_has_no_must_keep_and_reuses_its_diff_json(
    customer_service: FactSchema,
) -> None:
    attempt = _attempt(customer_service, worked("faithful"))
    diff = attempt.diff.to_json()
    row = verified_record(
        "rules-1", customer_service, attempt, AttemptOutcome.CLEAN, NOW, Usage(), (), diff
    )
    assert row.must_keep is None
    assert row.diff is diff


def test_an_error_before_any_attempt_ran_has_no_rung_calls_or_cost() -> None:
    row = error_record("rules-1", None, None, NOW, "unknown schema", "internal", None)
    assert (row.rung, row.summarizer, row.method_version) == (-1, "-", "-")
    assert row.outcome is AttemptOutcome.ERROR
    assert row.finished_at == NOW
    assert (row.tokens_in, row.tokens_out, row.cost_usd) == (None, None, None)
    assert (row.schema_name, row.schema_version, row.schema_hash) == (None, None, None)
    assert (row.error, row.failure_class, row.calls) == ("unknown schema", "internal", ())
