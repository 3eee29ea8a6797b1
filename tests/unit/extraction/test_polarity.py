"""Negation scope of enum and boolean fields."""

from __future__ import annotations

import pytest

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.negation import negated
from factdiff.schema.model import Criticality, EnumOption, FactSchema, FieldSpec
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract
from factdiff.verify.policy import Outcome

SCHEMA = FactSchema.build(
    "polarity",
    1,
    fields=[
        FieldSpec("will_pay", FactType.BOOLEAN, Criticality.CRITICAL, cues=("pay",)),
        FieldSpec(
            "status",
            FactType.ENUM,
            Criticality.CRITICAL,
            options=(EnumOption("refunded", ("money back",)), EnumOption("open")),
        ),
    ],
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The customer agreed to pay.", False),
        ("The customer refused to pay.", True),
        ("The customer did not agree to pay.", True),
        ("The customer didn't pay.", True),
        ("The customer never paid, so pay.", False),  # the negation ends at the comma
        ("She no longer wants to pay.", True),
        ("The customer declined to pay.", True),
        ("He did not refuse to pay.", False),  # two negators cancel
        ("Not sure about the weather, but they will pay.", False),
        ("There is no reason they would not, in the end, pay.", False),
        ("It was not charged - pay now.", False),  # a dash between blanks ends it
        ("It was not charged — pay now.", False),
        ("It was not charged–pay now.", False),
        ("The customer would not co-pay.", True),  # a hyphen in a word does not
    ],
)
def test_negation_scope(text: str, expected: bool) -> None:
    at = text.rindex("pay")
    assert negated(text, at, Boundaries.of(text)) is expected


def test_boolean_polarity_is_a_changed_fact() -> None:
    source = "The customer agreed to pay the balance."
    assert check(source, "The customer will pay the balance.", SCHEMA).outcome is Outcome.CLEAN
    result = check(source, "The customer refused to pay the balance.", SCHEMA)
    assert result.outcome is Outcome.FAILED
    (finding,) = result.diff.changed
    assert (finding.field, finding.to_json()["summary_value"]) == ("will_pay", False)


def test_enum_polarity() -> None:
    record = extract("The order was not refunded.", SCHEMA)
    (status,) = record.fields["status"]
    assert status.value.canonical() == "not refunded"
    result = check("The order was refunded.", "The order was not refunded.", SCHEMA)
    assert result.outcome is Outcome.FAILED
    assert [f.field for f in result.diff.changed] == ["status"]
