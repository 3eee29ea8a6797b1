"""Search filters with the semantics of LangGraph's in-memory store."""

from __future__ import annotations

from typing import Any

import pytest

from tests.extras import missing_extra

pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))

from langgraph.store.memory import InMemoryStore

from factdiff.errors import InputError
from factdiff.integrations.langgraph.filters import UnsupportedFilter, check_filter, matches

VALUE: dict[str, Any] = {
    "status": "open",
    "amount": 1249.0,
    "count": "7",
    "owner": {"name": "Irene", "team": "billing"},
    "tags": ["refund", "priority"],
    "flag": None,
}

CASES: list[tuple[dict[str, Any], bool]] = [
    ({"status": "open"}, True),
    ({"status": "closed"}, False),
    ({"status": "open", "amount": 1249.0}, True),
    ({"owner": {"name": "Irene"}}, True),
    ({"owner": {"name": "Ivan"}}, False),
    ({"owner": "Irene"}, False),
    ({"tags": ["refund", "priority"]}, True),
    ({"tags": ["refund"]}, False),
    ({"flag": None}, True),
    ({"missing": None}, True),
    ({"missing": "x"}, False),
    ({"amount": {"$gt": 1000}}, True),
    ({"amount": {"$gte": 1249}}, True),
    ({"amount": {"$lt": 1249}}, False),
    ({"amount": {"$lte": 1249, "$gt": 1}}, True),
    ({"count": {"$gt": 6}}, True),
    ({"status": {"$eq": "open"}}, True),
    ({"status": {"$ne": "open"}}, False),
    ({"missing": {"$ne": "x"}}, True),
]


@pytest.mark.parametrize(("conditions", "expected"), CASES)
def test_filters_agree_with_the_in_memory_store(conditions: dict[str, Any], expected: bool) -> None:
    assert matches(VALUE, conditions) is expected
    reference = InMemoryStore()
    reference.put(("ns",), "k", VALUE)
    assert bool(reference.search(("ns",), filter=conditions)) is expected


def test_no_filter_matches_everything() -> None:
    assert matches(VALUE, None)
    assert matches(VALUE, {})


@pytest.mark.parametrize("conditions", [{"missing": {"$gt": 1}}, {"status": {"$lt": 3}}])
def test_an_ordering_on_what_is_not_a_number_does_not_match(conditions: dict[str, Any]) -> None:
    assert not matches(VALUE, conditions)


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        ({"amount": {"$in": [1]}}, "unsupported filter operator '\\$in'"),
        ({"owner": {"name": {"$regex": "I"}}}, "unsupported filter operator"),
        ({"amount": {"$gt": "many"}}, "needs a number"),
    ],
)
def test_bad_operators_are_typed_errors(conditions: dict[str, Any], message: str) -> None:
    with pytest.raises(UnsupportedFilter, match=message) as caught:
        check_filter(conditions)
    assert isinstance(caught.value, InputError)
    assert isinstance(caught.value, ValueError)
