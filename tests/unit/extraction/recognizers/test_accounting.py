"""Accounting negatives: where parentheses clearly are one, and where they are an aside."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.accounting import (
    accounting_position,
    cents_lexeme,
    enclosed,
)
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.money import MoneyRecognizer
from factdiff.extraction.recognizers.numbers import NumberRecognizer

CTX = ExtractionContext()


def amounts(text: str) -> list[tuple[str, str]]:
    return [(text[m.start : m.end], m.value.display()) for m in MoneyRecognizer().find(text, CTX)]


def numbers(text: str) -> list[tuple[str, str]]:
    return [(text[m.start : m.end], m.value.display()) for m in NumberRecognizer().find(text, CTX)]


def test_helpers() -> None:
    assert enclosed("a (12) b", 3, 5)
    assert not enclosed("a (12 b", 3, 5)
    assert cents_lexeme("1,250.00")
    assert cents_lexeme("12,50")
    assert not cents_lexeme("1250")
    assert not cents_lexeme("3.5")
    assert accounting_position("(1.00)", 0)
    assert accounting_position("Net: (1.00)", 5)
    assert accounting_position("Adjustment (1.00)", 11)
    assert accounting_position("The balance is (1.00)", 15)
    assert not accounting_position("your current camera (1.00)", 20)
    assert not accounting_position("The camera (1.00)", 11)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Adjustment ($1,250.00) posted.", ("($1,250.00)", "-1250 USD")),
        ("Adjustment $(1,250.00) posted.", ("$(1,250.00)", "-1250 USD")),
        ("Adjustment -$1,250.00 posted.", ("-$1,250.00", "-1250 USD")),
        ("The balance is (1,250.00).", ("(1,250.00)", "-1250 USD")),
        ("The balance is -1,250.00.", ("-1,250.00", "-1250 USD")),
        ("Net income was (USD 2,400).", ("(USD 2,400)", "-2400 USD")),
    ],
)
def test_accounting_negatives_are_negative_money(text: str, expected: tuple[str, str]) -> None:
    assert amounts(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("within the price range of your current camera ($502.28).", ("$502.28", "502.28 USD")),
        ("It costs €50 ($54.20) at the desk.", ("$54.20", "54.2 USD")),
        ("Refund ($50.00 or so) sent.", ("$50.00", "50 USD")),
    ],
)
def test_asides_and_conversions_stay_positive(text: str, expected: tuple[str, str]) -> None:
    assert expected in amounts(text)
    assert all(not value.startswith("-") for _, value in amounts(text))


def test_plain_numbers_in_parentheses() -> None:
    assert numbers("Adjustment: (1,250.00)") == [("(1,250.00)", "-1250")]
    assert numbers("Delta (1,250.00) today") == [("(1,250.00)", "-1250")]
    assert numbers("We shipped (2 items).") == [("2", "2")]
    assert numbers("Fee (12) waived") == [("12", "12")]
    assert numbers("the model (3.50) was cheaper") == [("3.50", "3.5")]


@settings(deadline=None, max_examples=200)
@given(
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal("9999999.99"), places=2),
    st.sampled_from(["Balance: ", "Adjustment ", "Net income was ", "| "]),
    st.sampled_from(["", "$"]),
)
def test_a_ledger_negative_reads_as_its_minus_sign_form(
    amount: Decimal, lead: str, symbol: str
) -> None:
    written = f"{amount:,.2f}"
    recognizer = MoneyRecognizer() if symbol else NumberRecognizer()
    parens = [m.value for m in recognizer.find(f"{lead}({symbol}{written})", CTX)]
    minus = [m.value for m in recognizer.find(f"{lead}-{symbol}{written}", CTX)]
    assert parens == minus
    assert len(parens) == 1
