"""DecisionValue: canonical form, loose comparison, JSON round trip."""

from __future__ import annotations

from factdiff.values.base import value_from_json
from factdiff.values.decision import DecisionValue
from factdiff.values.fieldtypes import EnumValue


def test_canonical_form() -> None:
    assert DecisionValue("refuse", False, ("refund",)).canonical() == "refuse: refund"
    assert DecisionValue("cancel", True, ("order", "w1")).canonical() == "not cancel: order w1"
    assert DecisionValue("accept").canonical() == "accept"


def test_same_when_class_polarity_and_an_object_word_agree() -> None:
    refund = DecisionValue("refuse", False, ("refund",))
    assert refund.same_as(DecisionValue("refuse", False, ("refund", "request")))
    assert refund.same_as(DecisionValue("refuse"))
    assert not refund.same_as(DecisionValue("accept", False, ("refund",)))
    assert not refund.same_as(DecisionValue("refuse", True, ("refund",)))
    assert not refund.same_as(DecisionValue("refuse", False, ("transfer",)))
    assert not refund.same_as(EnumValue("refuse"))


def test_identifiers_are_compared_only_with_identifiers() -> None:
    order = DecisionValue("cancel", False, ("order", "w1"))
    assert order.same_as(DecisionValue("cancel", False, ("order",)))
    assert order.same_as(DecisionValue("cancel", False, ("booking", "w1")))
    assert not order.same_as(DecisionValue("cancel", False, ("order", "w2")))
    assert not DecisionValue("cancel", False, ("order",)).same_as(
        DecisionValue("cancel", False, ("booking",))
    )


def test_json_round_trip() -> None:
    for value in (
        DecisionValue("refuse", False, ("refund",)),
        DecisionValue("cancel", True, ("order", "w1")),
        DecisionValue("accept"),
    ):
        assert value_from_json(value.to_json()) == value
