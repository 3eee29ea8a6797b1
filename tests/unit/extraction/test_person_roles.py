"""A person's role is the role noun written right beside the name."""

from __future__ import annotations

import pytest

from factdiff.schema.builtin import builtin_schema
from factdiff.values.base import FactType
from factdiff.verify.check import extract


def roles(text: str) -> dict[str, tuple[str, ...]]:
    record = extract(text, builtin_schema("generic"))
    return {
        str(fact.value.canonical()): fact.roles
        for fact in record.inventory.get(FactType.PERSON, ())
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Agent Priya Raman refunded customer Daniel Okafor.",
            {"Priya Raman": ("agent",), "Daniel Okafor": ("customer",)},
        ),
        (
            "Priya Raman (agent) called Daniel Okafor (client).",
            {"Priya Raman": ("agent",), "Daniel Okafor": ("customer",)},
        ),
        ("Bo Chen, our technician, came by.", {"Bo Chen": ("technician",)}),
        ("The agent told customer Ana Ruiz.", {"Ana Ruiz": ("customer",)}),
        ("Ana Ruiz, the customer's daughter, called.", {"Ana Ruiz": ()}),
        ("Daniel Okafor reports a damaged parcel.", {"Daniel Okafor": ()}),
    ],
)
def test_the_role_noun_beside_a_name_is_its_role(
    text: str, expected: dict[str, tuple[str, ...]]
) -> None:
    assert roles(text) == expected


def test_synonyms_share_one_role_class() -> None:
    assert roles("Caller Ana Ruiz spoke to rep Tom Berg.") == {
        "Ana Ruiz": ("customer",),
        "Tom Berg": ("agent",),
    }


def test_a_title_may_stand_between_the_role_noun_and_the_name() -> None:
    assert roles("The customer, Mrs. Olga Petrova, called.") == {"Olga Petrova": ("customer",)}


def test_operations_and_sales_roles() -> None:
    text = "On-call engineer Priya Shah paged; postmortem owner: Marcus Lee; AE Jenna Ortiz."
    assert roles(text) == {
        "Priya Shah": ("on_call",),
        "Marcus Lee": ("owner",),
        "Jenna Ortiz": ("sales",),
    }
