"""Money and number formats on real strings, through the extractor (NFKC, groupings...)."""

from __future__ import annotations

import pytest

from factdiff.schema.builtin import generic_schema
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract
from factdiff.verify.policy import Outcome


def money(text: str) -> list[tuple[str, str]]:
    """(evidence in the original text, canonical value) of every amount."""
    record = extract(text, generic_schema())
    return [
        (text[s:e], f.value.display())
        for f in record.inventory.get(FactType.MONEY, ())
        for s, e in f.spans
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The balance is 1 250,50 € today.", ("1 250,50 €", "1250.5 EUR")),
        ("The balance is 1\u00a0250,50\u00a0€ today.", ("1\u00a0250,50\u00a0€", "1250.5 EUR")),
        ("The balance is 1\u202f250,50 € today.", ("1\u202f250,50 €", "1250.5 EUR")),
        ("The balance is 1\u2009250,50 € today.", ("1\u2009250,50 €", "1250.5 EUR")),
        ("Paid ＄１２ at the desk.", ("＄１２", "12 USD")),
        ("Paid Rs. 500 in cash.", ("Rs. 500", "500 INR")),
        ("Paid ₹1,25,000 in total.", ("₹1,25,000", "125000 INR")),
        ("Paid INR 12,34,567.50 in total.", ("INR 12,34,567.50", "1234567.5 INR")),
        ("A budget of 3,5 Mio. € was approved.", ("3,5 Mio. €", "3500000 EUR")),
        ("A €3.5bn deal closed.", ("€3.5bn", "3500000000 EUR")),
        ("Priced at $14.25k.", ("$14.25k", "14250 USD")),
        ("Invoice of 1'250.50 CHF sent.", ("1'250.50 CHF", "1250.5 CHF")),
        ("Invoice of CHF 1’250.50 sent.", ("CHF 1’250.50", "1250.5 CHF")),
        ("Invoice of EUR 1.234,56 sent.", ("EUR 1.234,56", "1234.56 EUR")),
        ("Invoice of 1.234,56 EUR sent.", ("1.234,56 EUR", "1234.56 EUR")),
        ("Adjustment:\n(USD 2,400)", ("(USD 2,400)", "-2400 USD")),
        ("Total raised: $ 1 250 000.", ("$ 1 250 000", "1250000 USD")),
        ("They paid 12 lakh rupees.", ("12 lakh rupees", "1200000 INR")),
    ],
)
def test_amount_formats(text: str, expected: tuple[str, str]) -> None:
    assert money(text) == [expected]


@pytest.mark.parametrize("text", ["Room for 2 100 people.", "Seats 1 250 and up."])
def test_space_grouped_digits_without_a_currency_are_never_read_in_part(text: str) -> None:
    record = extract(text, generic_schema())
    amounts = [f.value.display() for facts in record.inventory.values() for f in facts]
    assert not any(a.startswith(("100", "250")) for a in amounts), amounts


@pytest.mark.parametrize(
    ("source", "summary"),
    [
        ("Balance: 1 250,50 € due.", "Balance: 250,50 € due."),
        ("Paid ＄１２ at the desk.", "Paid $13 at the desk."),
        ("Paid ₹1,25,000 in total.", "Paid ₹25,000 in total."),
        ("A budget of 3,5 Mio. € was approved.", "A budget of 3,5 € was approved."),
    ],
)
def test_misread_or_dropped_amounts_fail(source: str, summary: str) -> None:
    assert check(source, summary, generic_schema()).outcome is Outcome.FAILED


@pytest.mark.parametrize(
    ("source", "summary"),
    [
        ("Balance: 1 250,50 € due.", "Balance: EUR 1250.50 due."),
        ("Paid ＄１２ at the desk.", "Paid $12.00 at the desk."),
        ("Paid ₹1,25,000 in total.", "Paid INR 125000 in total."),
        ("Paid Rs. 500 in cash.", "Paid 500 rupees in cash."),
        ("A budget of 3,5 Mio. € was approved.", "A budget of EUR 3,500,000 was approved."),
    ],
)
def test_the_same_amount_in_another_format_is_clean(source: str, summary: str) -> None:
    assert check(source, summary, generic_schema()).outcome is Outcome.CLEAN


@pytest.mark.parametrize(
    ("source", "summary", "outcome"),
    [
        (
            "Paid two thousand three hundred eighty dollars and fifty cents.",
            "Paid $2,380.50.",
            "clean",
        ),
        ("Paid 12 dollars and 5 cents today.", "Paid $12.05 today.", "clean"),
        ("Paid 12 dollars and 5 cents today.", "Paid $12.50 today.", "failed"),
    ],
)
def test_spelled_out_amounts_with_cents_are_one_amount(
    source: str, summary: str, outcome: str
) -> None:
    assert check(source, summary, generic_schema()).outcome.value == outcome
