"""The verification issue's worked example, through the Python API."""

from __future__ import annotations

from typing import Any

from factdiff.schema.model import Criticality, FactSchema
from factdiff.values.base import FactType
from factdiff.verify.check import CheckResult, check, extract, verify
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome
from tests.conftest import worked


def test_extractor_recovers_every_load_bearing_fact(customer_service: FactSchema) -> None:
    source = worked("source")
    record = extract(source, customer_service)
    facts: Any = record.public_json({s.name: s.many for s in customer_service.fields})["facts"]
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


def test_fluent_summary_fails_with_fourteen_critical_facts_missing(
    customer_service: FactSchema,
) -> None:
    result = check(worked("source"), worked("fluent"), customer_service)
    assert result.outcome is Outcome.FAILED
    critical_missing = [f for f in result.diff.missing if f.criticality is Criticality.CRITICAL]
    assert len(critical_missing) == 14, [f.field for f in critical_missing]


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


def _swap(text: str, a: str, b: str) -> str:
    return text.replace(a, "\0").replace(b, a).replace("\0", b)


def _changed(result: CheckResult) -> dict[str, tuple[object, object, str]]:
    return {
        f.field: (f.to_json().get("source_value"), f.to_json().get("summary_value"), f.detail)
        for f in result.diff.changed
    }


def test_swapped_total_and_disputed_amount_fail_naming_both_fields(
    customer_service: FactSchema,
) -> None:
    source = worked("source")
    summary = source.replace("totaling $14,250", "totaling $2,400").replace(
        "($2,400 for engineering", "($14,250 for engineering"
    )
    result = check(source, summary, customer_service)
    assert result.outcome is Outcome.FAILED
    assert _changed(result) == {
        "invoice_total": ("14250 USD", "2400 USD", "exchanged with disputed_amount"),
        "disputed_amount": ("2400 USD", "14250 USD", "exchanged with invoice_total"),
    }


def test_swapped_deadlines_fail_naming_both_fields(customer_service: FactSchema) -> None:
    source = worked("source")
    result = check(source, _swap(source, "2026-03-25", "2026-03-15"), customer_service)
    assert result.outcome is Outcome.FAILED
    assert _changed(result) == {
        "payment_deadline": ("2026-03-25", "2026-03-15", "exchanged with credit_memo_deadline"),
        "credit_memo_deadline": ("2026-03-15", "2026-03-25", "exchanged with payment_deadline"),
    }


def test_refused_to_pay_fails_on_the_payment_commitment(customer_service: FactSchema) -> None:
    source = worked("source")
    result = check(source, source.replace("agreed to pay", "refused to pay"), customer_service)
    assert result.outcome is Outcome.FAILED
    assert _changed(result) == {"payment_commitment": (True, False, "")}


def test_authorized_work_fails_on_the_authorization(customer_service: FactSchema) -> None:
    source = worked("source")
    result = check(source, source.replace("was not authorized", "was authorized"), customer_service)
    assert _changed(result) == {"work_authorized": (False, True, "")}


def test_swaps_in_a_reformatted_summary_fail_too(customer_service: FactSchema) -> None:
    source, faithful = worked("source"), worked("faithful")
    amounts = faithful.replace("totals 14,250 USD", "totals 2,400 USD").replace(
        "line item 3, USD 2400.00", "line item 3, USD 14250.00"
    )
    deadlines = _swap(faithful, "25 Mar 2026", "15 March 2026")
    refused = faithful.replace("The customer will pay", "The customer refused to pay")
    assert set(_changed(check(source, amounts, customer_service))) == {
        "invoice_total",
        "disputed_amount",
    }
    assert set(_changed(check(source, deadlines, customer_service))) == {
        "payment_deadline",
        "credit_memo_deadline",  # its value is now the summary's payment deadline
    }
    assert set(_changed(check(source, refused, customer_service))) == {"payment_commitment"}


def test_verify_is_check_without_extraction(customer_service: FactSchema) -> None:
    source, summary = worked("source"), worked("changed")
    source_facts = extract(source, customer_service)
    summary_facts = extract(summary, customer_service, source_facts.reference)
    verified = verify(source_facts, summary_facts, customer_service, texts=(source, summary))
    checked = check(source, summary, customer_service)
    assert verified.to_json() == checked.to_json()
    bare = verify(source_facts, summary_facts, customer_service).to_json()
    assert "coverage" not in bare
    assert bare == {k: v for k, v in checked.to_json().items() if k != "coverage"}
    assert verified.outcome is Outcome.FAILED
