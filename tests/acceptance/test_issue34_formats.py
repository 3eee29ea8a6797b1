"""Issue 34, formats: percentages, spelled-out cents, weekdays and accounting negatives.
Each named case fails or passes as the issue describes, naming the field."""

from __future__ import annotations

from datetime import date

import pytest

from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.schema.loader import schema_from_yaml
from factdiff.schema.model import FactSchema
from factdiff.verify.check import check

LEDGER = schema_from_yaml(
    """schema: ledger
version: 1
fields:
  adjustment: {type: money, criticality: critical, cues: [adjustment]}
  delta: {type: number, criticality: critical, cues: [delta]}
""",
    "<test>/ledger.yaml",
)


def verdicts(
    source: str,
    summary: str,
    schema: FactSchema | None = None,
    reference: date | None = None,
) -> tuple[str, list[tuple[str, str]]]:
    """The outcome and the (verdict, field) of every finding (generic schema by default)."""
    result = check(source, summary, schema or generic_schema(), reference=reference)
    return result.outcome.value, [(f.verdict.value, f.field) for f in result.diff.findings]


PLAN = "Customer C-118 gets 20% off the annual plan."


def test_a_dropped_percentage_is_a_known_gap() -> None:
    assert verdicts(PLAN, "Customer C-118 renewed.") == (
        "acceptable_with_notes",
        [("missing", "inventory.percent")],
    )


def test_a_changed_percentage_fails() -> None:
    assert verdicts(PLAN, PLAN.replace("20%", "25%")) == (
        "failed",
        [("changed", "inventory.percent")],
    )


def test_a_percentage_moved_to_something_else_fails() -> None:
    assert verdicts(PLAN, "Customer C-118 gets 20% off shipping.") == (
        "failed",
        [("changed", "inventory.percent")],
    )


def test_two_percentages_swapped_fail_twice() -> None:
    source = "Order ORD-9 gets 20% off shipping and 10% off the plan."
    summary = "Order ORD-9 gets 10% off shipping and 20% off the plan."
    assert verdicts(source, summary) == (
        "failed",
        [("changed", "inventory.percent"), ("changed", "inventory.percent")],
    )


@pytest.mark.parametrize(
    "summary",
    [
        "Customer C-118 gets twenty percent off the annual plan.",
        "Customer C-118 gets 20 per cent off annual plans.",
        "Customer C-118 gets a 20% discount on the annual plan.",
        "Customer C-118 gets a 20% discount.",
    ],
)
def test_a_faithful_restatement_of_a_percentage_is_clean(summary: str) -> None:
    assert verdicts(PLAN, summary) == ("clean", [])


def test_a_schema_percent_field_still_binds_the_discount() -> None:
    sales = builtin_schema("sales")
    source = "Deal D-77 closed with a 15% discount off list."
    assert verdicts(source, "Deal D-77 closed at 15 percent off.", schema=sales) == ("clean", [])
    outcome, findings = verdicts(source, "Deal D-77 closed at 18% off.", schema=sales)
    assert outcome == "failed"
    assert ("changed", "discount") in findings


@pytest.mark.parametrize(
    ("source", "summary"),
    [
        (
            "Refund of two thousand three hundred eighty dollars and fifty cents.",
            "Refund: $2,380.50.",
        ),
        ("The fee was ten euros and five cents.", "The fee was €10.05."),
        ("The fee was twelve dollars and 5 cents.", "The fee was 12.05 USD."),
    ],
)
def test_spelled_out_amounts_with_cents_are_one_amount(source: str, summary: str) -> None:
    assert verdicts(source, summary) == ("clean", [])


def test_spelled_out_cents_changed_fail() -> None:
    source = "The fee was ten euros and five cents."
    assert verdicts(source, "The fee was €10.50.") == ("failed", [("changed", "inventory.money")])


def test_next_tuesday_to_next_thursday_fails_without_a_reference() -> None:
    assert verdicts("We meet next Tuesday.", "We meet next Thursday.") == (
        "failed",
        [("changed", "inventory.date")],
    )


def test_next_tuesday_to_next_thursday_fails_as_dates_with_the_entry_date() -> None:
    monday = date(2026, 3, 2)
    source, summary = "We meet next Tuesday.", "We meet next Thursday."
    assert verdicts(source, summary, reference=monday) == (
        "failed",
        [("changed", "inventory.date")],
    )
    assert verdicts(source, "We meet on March 3, 2026.", reference=monday) == ("clean", [])


def test_a_weekday_restated_is_clean_and_dropped_is_missing() -> None:
    assert verdicts("We meet next Tuesday.", "Meeting on Tuesday.") == ("clean", [])
    assert verdicts("We meet next Tuesday.", "We meet.") == (
        "failed",
        [("missing", "inventory.date")],
    )


def test_recurring_weekdays_stay_as_they_are() -> None:
    assert verdicts("The shop opens Tuesdays.", "The shop opens Thursdays.") == ("clean", [])


@pytest.mark.parametrize(
    ("source", "summary", "schema"),
    [
        ("Adjustment: ($1,250.00)", "Adjustment: -$1,250.00", LEDGER),
        ("Adjustment $(1,250.00) posted.", "Adjustment -$1,250.00 posted.", LEDGER),
        ("Delta: (1,250.00)", "Delta -1,250.00", LEDGER),
        ("The balance is (1,250.00).", "The balance is -1,250.00.", None),
        (
            "Balance on account #4410 is (1,250.00) after the credit.",
            "Account #4410 balance: -1,250.00 after credit.",
            None,
        ),
    ],
)
def test_accounting_negatives_equal_minus_signs(
    source: str, summary: str, schema: FactSchema | None
) -> None:
    assert verdicts(source, summary, schema) == ("clean", [])
    negated = summary.replace("-", "")
    assert verdicts(source, negated, schema)[0] == "failed"


def test_an_accounting_negative_restated_as_positive_fails() -> None:
    assert verdicts(
        "Adjustment ($1,250.00) posted.", "Adjustment $1,250.00 posted.", schema=LEDGER
    ) == (
        "failed",
        [("changed", "adjustment")],
    )
    assert verdicts("The balance is (1,250.00).", "The balance is 1,250.00.") == (
        "failed",
        [("changed", "inventory.money")],
    )


def test_parentheses_that_are_an_aside_are_not_negative() -> None:
    source = "Within the price range of your current camera ($502.28)."
    assert verdicts(source, "Your camera cost $502.28.") == ("clean", [])
    assert verdicts("We shipped (2 items) today.", "We shipped 2 items today.") == ("clean", [])
