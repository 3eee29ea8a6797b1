"""Fact keys: one canonical key per fact whatever its surface form; loose forms for indexing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff.extraction.rules import RulesExtractor
from factdiff.retrieve.keys import (
    comparable_types,
    indexed_keys,
    key_hash,
    key_text,
    query_keys,
    record_facts,
    record_keys,
)
from factdiff.schema.builtin import builtin_schema
from factdiff.values.base import FactType, Value
from factdiff.values.identifier import IdentifierValue
from factdiff.values.numeric import MoneyValue, NumberValue
from factdiff.values.temporal import DateTimeValue, DateValue, TimeValue

GENERIC = builtin_schema("generic")


def values_of(text: str, fact_type: FactType) -> list[Value]:
    record = RulesExtractor().extract(text, GENERIC)
    return [f.value for _, f in record_facts(record) if f.value.type is fact_type]


@pytest.mark.parametrize(
    "text",
    ["$14,250", "14,250 USD", "USD 14250.00", "fourteen thousand two hundred fifty dollars"],
)
def test_money_in_any_format_has_one_key(text: str) -> None:
    (value,) = values_of(text, FactType.MONEY)
    assert key_text(value) == key_text(MoneyValue(Decimal("14250"), "USD"))


@pytest.mark.parametrize("text", ["March 25th, 2026", "2026-03-25", "25 Mar 2026"])
def test_dates_in_any_format_have_one_key(text: str) -> None:
    (value,) = values_of(text, FactType.DATE)
    assert key_text(value) == key_text(DateValue(2026, 3, 25))


def test_identifiers_meet_case_folded() -> None:
    assert key_text(IdentifierValue("INV-9182")) == key_text(IdentifierValue("inv-9182"))
    assert key_text(IdentifierValue("INV-9182")) != key_text(IdentifierValue("INV-9183"))


def test_indexed_facts_answer_looser_queries() -> None:
    zoned = TimeValue(14, 32, None, "EST")
    moment = DateTimeValue(DateValue(2026, 3, 14), zoned)
    keys = indexed_keys(moment)
    assert key_text(DateValue(2026, 3, 14)) in keys  # the date alone
    assert key_text(DateValue(None, 3, 14)) in keys  # the date without a year
    assert key_text(TimeValue(14, 32)) in keys  # the time as written, without its zone
    assert key_text(zoned) in keys
    money = indexed_keys(MoneyValue(Decimal("14250"), "USD"))
    assert key_text(NumberValue(Decimal("14250.00"))) in money


def test_a_query_looks_up_its_own_key_not_the_looser_ones() -> None:
    day = DateValue(2026, 3, 25)
    assert query_keys(day) == {key_text(day)}
    assert key_text(DateValue(None, 3, 25)) not in query_keys(day)
    moment = DateTimeValue(day, TimeValue(9, 0))
    assert query_keys(moment) == {key_text(moment), key_text(day)}


def test_key_hashes_are_fixed_signed_64_bit_numbers() -> None:
    # Stored indexes hold these numbers: changing the hash means rebuilding every index.
    hashed = key_hash('money:["14250","USD"]')
    assert -(2**63) <= hashed < 2**63
    assert hashed == -86_875_464_992_864_361


def test_record_keys_cover_fields_and_inventory(customer_service: object) -> None:
    from factdiff.schema.model import FactSchema

    assert isinstance(customer_service, FactSchema)
    text = "Invoice INV-9182 totaling $14,250 is due 2026-03-25; call 408-247-8880."
    record = RulesExtractor().extract(text, customer_service)
    keys = record_keys(record)
    assert key_text(IdentifierValue("INV-9182")) in keys
    assert key_text(MoneyValue(Decimal("14250"), "USD")) in keys
    assert "digits:14082478880" in keys


def test_comparable_types() -> None:
    assert FactType.DATETIME in comparable_types(FactType.DATE)
    assert FactType.MONEY in comparable_types(FactType.NUMBER)
    assert comparable_types(FactType.EMAIL) == {FactType.EMAIL}


@given(
    st.decimals(min_value=1, max_value=10**7, places=2, allow_nan=False),
    st.sampled_from(["${:,.2f}", "{:.2f} USD", "USD {:,.2f}", "{:,.2f} dollars"]),
)
def test_any_written_amount_is_the_amount_key(amount: Decimal, form: str) -> None:
    found = values_of(f"the refund was {form.format(amount)} today", FactType.MONEY)
    assert [key_text(v) for v in found] == [key_text(MoneyValue(amount, "USD"))]
