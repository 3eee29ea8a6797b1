"""The verification issue's worked example, through the Python API."""

from __future__ import annotations

from factdiff.check import check, extract
from factdiff.diff import Verdict
from factdiff.policy import Outcome
from factdiff.schema.model import Criticality, FactSchema
from factdiff.values.base import FactType
from tests.conftest import worked


def test_extractor_recovers_every_load_bearing_fact(customer_service: FactSchema) -> None:
    source = worked("source")
    record = extract(source, customer_service)
    facts = record.public_json({s.name: s.many for s in customer_service.fields})["facts"]
    assert facts["customer_id"] == "cust_482"
    assert facts["company_name"] == "Acme Corp"
    assert facts["invoice_id"] == "INV-9182"
    assert facts["invoice_total"] == "14250 USD"
    assert facts["disputed_amount"] == "2400 USD"
    assert facts["call_time"] == "2026-03-14T14:32-05:00"  # date, time and time zone
    assert facts["disputing_party"] == "Marcus Chen"
    assert facts["payment_deadline"] == "2026-03-25"
    assert facts["credit_memo_id"] == "CM-3392"
    (call,) = facts["tool_calls"]
    assert call["name"] == "invoice.adjust"
    assert call["result"]["credit_memo_id"] == "CM-3392"
    inventory = {t: {f.value.display() for f in found} for t, found in record.inventory.items()}
    assert "11850 USD" in inventory[FactType.MONEY]  # agreed payment
    assert "2026-03-06" in inventory[FactType.DATE]  # date of the disputed work
    assert "line item 3" in inventory[FactType.IDENTIFIER]  # the disputed line
    for name, found in record.fields.items():
        for fact in found:
            assert fact.spans, name
            for start, end in fact.spans:
                assert source[start:end], name


def test_fluent_summary_fails_with_ten_critical_facts_missing(
    customer_service: FactSchema,
) -> None:
    result = check(worked("source"), worked("fluent"), customer_service)
    assert result.outcome is Outcome.FAILED
    critical_missing = [f for f in result.diff.missing if f.criticality is Criticality.CRITICAL]
    assert len(critical_missing) >= 10, [f.field for f in critical_missing]


def test_faithful_reformatted_summary_is_clean(customer_service: FactSchema) -> None:
    result = check(worked("source"), worked("faithful"), customer_service)
    assert result.diff.findings == (), [f.to_json() for f in result.diff.findings]
    assert result.outcome is Outcome.CLEAN


def test_changed_amount_is_reported_as_exactly_that_change(customer_service: FactSchema) -> None:
    result = check(worked("source"), worked("changed"), customer_service)
    assert result.outcome is Outcome.FAILED
    (finding,) = result.diff.findings
    assert finding.verdict is Verdict.CHANGED
    assert finding.field == "disputed_amount"
    assert finding.to_json()["source_value"] == "2400 USD"
    assert finding.to_json()["summary_value"] == "2500 USD"


def test_invented_invoice_is_reported_as_added(customer_service: FactSchema) -> None:
    result = check(worked("source"), worked("invented"), customer_service)
    assert result.outcome is Outcome.FAILED
    (finding,) = result.diff.findings
    assert finding.verdict is Verdict.ADDED
    assert finding.to_json()["summary_value"] == "INV-9183"
