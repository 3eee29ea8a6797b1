"""Bindings: how facts are tied to fields, stored with the record, and used by the diff."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from factdiff.extraction.record import TYPE_ONLY, Binding, BindingKind, Fact, FactRecord
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome

AMOUNTS = FactSchema.build(
    "amounts",
    1,
    fields=[
        FieldSpec("total", FactType.MONEY, Criticality.CRITICAL, cues=("total",)),
        FieldSpec("deposit", FactType.MONEY, Criticality.CRITICAL, cues=("deposit",)),
    ],
    inventory={FactType.MONEY: Criticality.CRITICAL},
)


def test_record_round_trips_bindings_and_roles() -> None:
    source = "The total is $500 and the deposit is $50. We leave at 10:00 and arrive at 12:00."
    record = extract(source, AMOUNTS)
    (total,) = record.fields["total"]
    assert total.binding == Binding(BindingKind.CUE, "total", 4, True)
    assert total.binding.strong
    again = FactRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert again == record
    assert again.digest() == record.digest()


def test_records_of_earlier_versions_load_as_type_only() -> None:
    record = extract("The total is $500.", AMOUNTS)
    data: Any = record.to_json()
    for facts in data["fields"].values():
        for fact in facts:
            fact.pop("binding", None)
            fact.pop("roles", None)
    loaded = FactRecord.from_json(data)
    (total,) = loaded.fields["total"]
    assert total.binding is TYPE_ONLY
    assert not total.binding.strong
    assert Fact.from_json({"value": {"type": "text", "text": "x"}, "spans": []}).roles == ()


@pytest.mark.parametrize(
    ("binding", "strong"),
    [
        (Binding(BindingKind.CUE, "total", 24), True),
        (Binding(BindingKind.CUE, "total", 25), False),
        (Binding(BindingKind.PATTERN), False),
        (Binding(BindingKind.PATTERN, contextual=True), True),
        (TYPE_ONLY, False),
    ],
)
def test_strong_bindings(binding: Binding, strong: bool) -> None:
    assert binding.strong is strong
    assert Binding.from_json(binding.to_json()) == binding


def test_swapped_cue_fields_are_two_changes_naming_each_other() -> None:
    source = "The total is $500. The deposit is $50."
    result = check(source, "The total is $50. The deposit is $500.", AMOUNTS)
    assert result.outcome is Outcome.FAILED
    assert {(f.field, f.detail) for f in result.diff.changed} == {
        ("total", "exchanged with deposit"),
        ("deposit", "exchanged with total"),
    }


def test_a_value_restated_without_its_cue_is_not_a_change() -> None:
    source = "The total is $500. The deposit is $50."
    result = check(source, "We got $50 up front of the $500 owed.", AMOUNTS)
    assert result.diff.changed == ()


def test_a_cue_beside_the_value_inside_its_parentheses_is_taken_first() -> None:
    record = extract("The deposit for order 12 ($500 total) is due.", AMOUNTS)
    assert [f.value.canonical() for f in record.fields["total"]] == ["500 USD"]
    assert record.fields["deposit"] == ()
    source = "The deposit for order 12 is due; the total is $500."
    assert check(source, "Deposit for order 12 due ($500 total).", AMOUNTS).diff.findings == ()


def test_a_far_cue_is_tolerated_as_before() -> None:
    source = "The total is $500. The deposit is $50."
    summary = "The total, after all the discussion about fees and taxes, came to $50; $500 paid."
    result = check(source, summary, AMOUNTS)
    assert [f for f in result.diff.changed if f.field == "total"] == []


def test_swapped_departure_and_arrival_times_fail_the_generic_schema() -> None:
    source = "system: TR1234 leaves cambridge at 10:11 and arrives in london at 11:05 ."
    summary = "system: TR1234 leaves cambridge at 11:05 and arrives in london at 10:11 ."
    result = check(source, summary, generic_schema())
    assert result.outcome is Outcome.FAILED
    changed = result.diff.changed
    assert {f.field for f in changed} == {"inventory.time"}
    assert {f.summary.value.display() for f in changed if f.summary} == {"10:11", "11:05"}


def test_equivalent_role_words_and_missing_cues_are_not_changes() -> None:
    source = "user: I will depart on March 8th and return on March 14th."
    for summary in (
        "user: I will leave on March 8th and come back on March 14th.",
        "user: March 8th to March 14th.",
        "user: Trip: March 8th, March 14th.",
    ):
        result = check(source, summary, generic_schema(), reference=date(2019, 3, 1))
        assert result.diff.findings == (), summary


def test_swapped_dates_with_from_to_fail() -> None:
    source = "user: I need the car from March 2nd until March 4th."
    summary = "user: I need the car from March 4th until March 2nd."
    result = check(source, summary, generic_schema(), reference=date(2019, 3, 1))
    assert result.outcome is Outcome.FAILED
    assert all(f.verdict is Verdict.CHANGED for f in result.diff.findings)


def test_swapped_money_roles_fail() -> None:
    source = "Your balance is $40.00 and the new item costs $54.04."
    summary = "Your balance is $54.04 and the new item costs $40.00."
    assert check(source, summary, generic_schema()).outcome is Outcome.FAILED


def test_deadline_delivery_and_renewal_cues_give_dates_their_roles() -> None:
    source = (
        "The refund is due by March 3, 2026, the replacement ships on March 10, 2026 "
        "and the plan renews on April 1, 2026."
    )
    dates = extract(source, generic_schema()).inventory[FactType.DATE]
    assert [f.roles for f in dates] == [("due+refund",), ("delivery",), ("renewal",)]


def test_a_money_cue_names_a_date_but_no_time() -> None:
    times = extract("The payment is due at 17:00.", generic_schema()).inventory[FactType.TIME]
    assert [f.roles for f in times] == [("due",)]
    dates = extract("The payment is due on March 10, 2026.", generic_schema())
    assert [f.roles for f in dates.inventory[FactType.DATE]] == [("due+payment",)]


def test_a_reworded_deadline_keeps_its_role_and_an_unroled_one_is_not_compared() -> None:
    source = "The payment is due on March 10, 2026; the contract renews on April 1, 2026."
    for summary in (
        "Payment due March 10, 2026; contract renewal April 1, 2026.",
        "Dates: March 10, 2026 and April 1, 2026.",
    ):
        assert check(source, summary, generic_schema()).diff.findings == (), summary


INVOICES = "Invoice INV-7001 is due on March 10, 2026 and invoice INV-8002 is due on April 1, 2026."


def test_an_identifier_before_a_roled_date_is_its_holder() -> None:
    dates = extract(INVOICES, generic_schema()).inventory[FactType.DATE]
    assert [f.roles for f in dates] == [("due of INV-7001",), ("due of INV-8002",)]


def test_two_invoices_due_dates_exchanged_are_two_changes() -> None:
    summary = (
        "Invoice INV-7001 is due on April 1, 2026 and invoice INV-8002 is due on March 10, 2026."
    )
    result = check(INVOICES, summary, generic_schema())
    assert result.outcome is Outcome.FAILED
    assert [f.detail for f in result.diff.findings] == [
        "due of INV-7001 is 2026-03-10 in the source (the source's due of INV-8002)",
        "due of INV-8002 is 2026-04-01 in the source (the source's due of INV-7001)",
    ]


@pytest.mark.parametrize(
    "summary",
    [
        "INV-8002 is due April 1, 2026; INV-7001 is due March 10, 2026.",
        "Invoices INV-7001 and INV-8002 are due on March 10, 2026 and April 1, 2026.",
        "Due dates: INV-7001 on March 10, 2026, INV-8002 on April 1, 2026.",
    ],
)
def test_holders_restated_or_listed_together_are_not_changes(summary: str) -> None:
    assert check(INVOICES, summary, generic_schema()).diff.findings == ()


def test_a_value_under_a_json_key_takes_no_holder() -> None:
    text = 'The payment for #W2378156 was: {"total_price": 54.04}'
    (amount,) = extract(text, generic_schema()).inventory[FactType.MONEY]
    assert amount.roles == ("price+total",)


SOURCE_RELEASE = (
    "Deployed v2.4.0 at 14:00 to api-gateway-3; errors rose, so we rolled back to v2.3.1 at 14:20."
)


@pytest.mark.parametrize("schema", ["generic", "operations"])
def test_swapped_deployed_and_rolled_back_versions_are_two_changes(schema: str) -> None:
    summary = (
        "Deployed v2.3.1 at 14:00 to api-gateway-3; errors rose, so we rolled back to v2.4.0 at "
        "14:20."
    )
    result = check(SOURCE_RELEASE, summary, builtin_schema(schema))
    assert result.outcome is Outcome.FAILED
    changed = result.diff.changed
    assert [f.verdict for f in result.diff.findings] == [Verdict.CHANGED, Verdict.CHANGED]
    assert {
        (f.source.value.display(), f.summary.value.display())
        for f in changed
        if f.source and f.summary
    } == {
        ("v2.4.0", "v2.3.1"),
        ("v2.3.1", "v2.4.0"),
    }


@pytest.mark.parametrize("schema", ["generic", "operations"])
@pytest.mark.parametrize(
    "summary",
    [
        "v2.4.0 was deployed at 14:00 to api-gateway-3 and rolled back to v2.3.1 at 14:20.",
        "Rolled back to v2.3.1 at 14:20 after deploying v2.4.0 at 14:00 to api-gateway-3.",
        "Rollback from v2.4.0 to v2.3.1 at 14:20 (deployed 14:00, api-gateway-3).",
        "At 14:00 version 2.4.0 went to api-gateway-3; at 14:20 we reverted to V2.3.1.",
    ],
)
def test_versions_restated_in_their_roles_or_without_a_cue_are_kept(
    schema: str, summary: str
) -> None:
    result = check(SOURCE_RELEASE, summary, builtin_schema(schema))
    assert result.diff.findings == (), summary


def test_a_version_changed_fails_the_generic_schema() -> None:
    summary = "Deployed v2.4.1 at 14:00 to api-gateway-3, rolled back to v2.3.1 at 14:20."
    result = check(SOURCE_RELEASE, summary, generic_schema())
    assert result.outcome is Outcome.FAILED
    assert [f.field for f in result.diff.changed] == ["inventory.identifier"]
