"""Properties of the engine: formats never change a fact, swaps of bound values always do."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.record import FactRecord
from factdiff.schema.builtin import generic_schema
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract
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

cents = st.integers(min_value=100, max_value=999_999_999)


def _grouped(whole: int, sep: str) -> str:
    text = f"{whole:,}"
    return text.replace(",", sep)


def _plain(amount: Decimal) -> str:
    text = format(amount, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def styles(value: int) -> list[str]:
    """The same euro amount (``value`` cents) in formats a summary may use."""
    whole, frac = divmod(value, 100)
    return [
        f"€{_grouped(whole, ',')}.{frac:02d}",
        f"{_grouped(whole, ' ')},{frac:02d} €",
        f"{_grouped(whole, chr(0xA0))},{frac:02d}\u00a0€",
        f"EUR {_grouped(whole, chr(0x2009))},{frac:02d}",
        f"{_grouped(whole, chr(0x27))}.{frac:02d} EUR",
        f"EUR {whole}.{frac:02d}",
    ]


@settings(max_examples=60, deadline=None)
@given(value=cents, first=st.integers(0, 5), second=st.integers(0, 5))
def test_an_amount_in_any_format_is_the_same_fact(value: int, first: int, second: int) -> None:
    source = f"The balance of {styles(value)[first]} is due."
    summary = f"Due: {styles(value)[second]}."
    record = extract(source, generic_schema())
    (fact,) = record.inventory[FactType.MONEY]
    assert fact.value.canonical() == f"{_plain(Decimal(value) / 100)} EUR"
    assert check(source, summary, generic_schema()).outcome is Outcome.CLEAN


@settings(max_examples=60, deadline=None)
@given(a=cents, b=cents)
def test_swapping_two_cue_bound_amounts_always_fails(a: int, b: int) -> None:
    if a == b:
        return
    text = "The total is ${}. The deposit is ${}."
    source = text.format(f"{a / 100:,.2f}", f"{b / 100:,.2f}")
    summary = text.format(f"{b / 100:,.2f}", f"{a / 100:,.2f}")
    result = check(source, summary, AMOUNTS)
    assert result.outcome is Outcome.FAILED
    assert {f.field for f in result.diff.changed} == {"total", "deposit"}


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=300))
def test_records_round_trip_with_bindings_and_roles(text: str) -> None:
    for schema in (AMOUNTS, generic_schema()):
        record = extract(text, schema)
        assert FactRecord.from_json(record.to_json()) == record
        for facts in (*record.fields.values(), *record.inventory.values()):
            for fact in facts:
                for start, end in fact.spans:
                    assert 0 <= start < end <= len(text)
