"""Properties of extraction and the diff, over arbitrary and fact-rich texts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factdiff.extraction.record import FactRecord
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.verify.check import check, extract
from factdiff.verify.diff import diff
from factdiff.verify.policy import Outcome

PIECES = [
    "Customer cust_482 ",
    "(Acme Corp) ",
    "paid $14,250 ",
    "USD 2400.00 ",
    "on 2026-03-14 ",
    "at 14:32 EST ",
    "by March 25 ",
    "within 7 business days ",
    "INV-9182 ",
    "CM-3392 ",
    "call 408-247-8880 ",
    "mail a.b@example.com ",
    "15% ",
    "2 kg ",
    "their CTO Marcus Chen ",
    "invoice.adjust(invoice_id='INV-9182', amount=-2400) returned success ",
    "\n",
    ". ",
    "line item 3 ",
    "#W4923227 ",
    "https://Example.com/x/ ",
    "3.350 ",
    "€12,5 ",
    "\x00",
    "🎉 ",
]
fact_texts = st.lists(st.sampled_from(PIECES), max_size=25).map("".join)
any_texts = st.one_of(st.text(max_size=400), fact_texts)
SCHEMAS = [generic_schema(), builtin_schema("customer_service")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=any_texts, which=st.sampled_from([0, 1]))
def test_extraction_never_crashes_and_spans_point_into_the_text(text: str, which: int) -> None:
    record = extract(text, SCHEMAS[which])
    facts = [f for found in record.fields.values() for f in found]
    facts += [f for found in record.inventory.values() for f in found]
    for fact in facts:
        for start, end in fact.spans:
            assert 0 <= start < end <= len(text)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=any_texts, which=st.sampled_from([0, 1]))
def test_a_record_diffed_with_itself_is_clean(text: str, which: int) -> None:
    schema = SCHEMAS[which]
    record = extract(text, schema)
    assert diff(record, record, schema).findings == ()
    assert check(text, text, schema).outcome is Outcome.CLEAN


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=fact_texts, which=st.sampled_from([0, 1]))
def test_extraction_is_deterministic_and_records_round_trip(text: str, which: int) -> None:
    first = extract(text, SCHEMAS[which])
    second = extract(text, SCHEMAS[which])
    assert first.to_json() == second.to_json()
    assert FactRecord.from_json(first.to_json()) == first
    assert first.digest() == second.digest()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=fact_texts)
def test_dropping_the_whole_text_loses_every_critical_fact(text: str) -> None:
    schema = generic_schema()
    result = check(text, "Nothing to report.", schema)
    record = result.source_facts
    critical = [t for t, c in schema.inventory.items() if c.value == "critical"]
    if any(record.inventory.get(t) for t in critical):
        assert result.outcome is Outcome.FAILED


def test_a_digit_string_read_as_id_in_one_text_and_phone_in_the_other_is_kept() -> None:
    from factdiff.values.base import FactType

    schema = generic_schema()
    source = 'tool: {"product_id": "3377618313", "status": "pending"}'
    result = check(source, "Call 3377618313 about the pending product.", schema)
    assert result.source_facts.inventory[FactType.IDENTIFIER]
    assert result.summary_facts.inventory[FactType.PHONE]
    assert result.diff.findings == ()
    changed = check(source, "Call 3377618314 about the pending product.", schema)
    assert changed.outcome is Outcome.FAILED
