"""``verify`` is the pure half of ``check``: two records in, the diff and outcome out."""

from __future__ import annotations

from factdiff.schema.model import FactSchema
from factdiff.verify.check import DEFAULT_EXTRACTOR, check, verify
from factdiff.verify.policy import Outcome
from tests.conftest import worked


def test_check_is_extract_both_then_verify(customer_service: FactSchema) -> None:
    source, summary = worked("source"), worked("fluent")
    checked = check(source, summary, customer_service)
    reference = checked.source_facts.reference
    records = [DEFAULT_EXTRACTOR.extract(t, customer_service, reference) for t in (source, summary)]
    verified = verify(records[0], records[1], customer_service)
    assert verified.outcome is checked.outcome is Outcome.FAILED
    assert verified.diff.to_json() == checked.diff.to_json()
    assert verified.notes == checked.notes


def test_verify_of_a_record_against_itself_is_clean(customer_service: FactSchema) -> None:
    record = DEFAULT_EXTRACTOR.extract(worked("source"), customer_service)
    result = verify(record, record, customer_service)
    assert result.outcome is Outcome.CLEAN
    assert result.source_facts is record
    assert result.summary_facts is record
