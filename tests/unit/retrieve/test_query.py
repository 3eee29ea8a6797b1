"""``read_query``: a query's words, and its facts merged by key whatever their spelling."""

from __future__ import annotations

import pytest

from factdiff.retrieve.keys import key_hash
from factdiff.retrieve.query import read_query
from factdiff.schema.builtin import builtin_schema
from factdiff.values.base import FactType

GENERIC = builtin_schema("generic")


@pytest.mark.parametrize(
    "text", ["$14,250", "14,250 USD", "fourteen thousand two hundred fifty dollars"]
)
def test_an_amount_in_any_spelling_looks_up_one_key(text: str) -> None:
    query = read_query(f"what was {text} for", [GENERIC])
    (fact,) = query.facts
    assert fact.value.type is FactType.MONEY
    assert fact.keys == frozenset({'money:["14250","USD"]'})
    assert fact.hashes == tuple(sorted(key_hash(k) for k in fact.keys))


def test_words_and_facts_of_a_query() -> None:
    query = read_query("invoice INV-9182 for $14,250", [GENERIC])
    assert query.terms == ("invoice", "inv", "9182", "for", "14", "250")
    assert query.words == frozenset(query.terms)
    assert [(f.value.type, f.text) for f in query.facts] == [
        (FactType.IDENTIFIER, "INV-9182"),
        (FactType.MONEY, "$14,250"),
    ]


def test_a_fact_read_under_two_schemas_or_twice_counts_once() -> None:
    assert len(read_query("INV-9182 and again INV-9182", [GENERIC, GENERIC]).facts) == 1


def test_a_datetime_also_asks_for_a_date_and_a_time() -> None:
    query = read_query("meet on 2026-03-25 at 14:30", [GENERIC])
    assert query.fact_types == {FactType.DATETIME, FactType.DATE, FactType.TIME}
    assert read_query("the train at 6 pm", [GENERIC]).fact_types == {FactType.TIME}
