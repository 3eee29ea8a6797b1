"""Issue 34 items 1 and 2: a fact restated without its cue is kept, for every type, unless the
summary binds the value to another field; people found without a holder noun or a title."""

from __future__ import annotations

import pytest

from factdiff.schema.loader import schema_from_yaml
from factdiff.verify.check import check
from factdiff.verify.policy import Outcome

CUED = schema_from_yaml(
    """schema: cued
version: 1
fields:
  refund_amount: {type: money, criticality: critical, cues: [refund]}
  fee: {type: money, criticality: critical, cues: [fee]}
  deadline: {type: date, criticality: critical, cues: [deadline]}
  delivery: {type: date, criticality: critical, cues: [delivery]}
  order_id: {type: identifier, criticality: critical, cues: [order]}
  callback: {type: phone, criticality: critical, cues: [callback]}
  contact_email: {type: email, criticality: critical, cues: [email]}
  pickup_time: {type: time, criticality: critical, cues: [pickup]}
  dropoff_time: {type: time, criticality: critical, cues: [dropoff]}
  discount: {type: percent, criticality: critical, cues: [discount]}
  vendor: {type: organization, criticality: critical, cues: [vendor]}
  customer: {type: person, criticality: critical, cues: [customer]}
  agent: {type: person, criticality: critical, cues: [agent]}
  recipient: {type: person, criticality: critical, cues: [recipient]}
  weight: {type: quantity, criticality: critical, cues: [weight]}
  return_window: {type: duration, criticality: critical, cues: [window]}
""",
    "<test>/cued.yaml",
)


def findings(source: str, summary: str) -> list[tuple[str, str]]:
    return [(f.verdict.value, f.field) for f in check(source, summary, CUED).diff.findings]


@pytest.mark.parametrize(
    ("source", "summary"),
    [
        ("The refund is $40.", "We pay $40 back."),
        ("The deadline is March 3, 2026.", "Due March 3, 2026."),
        ("The order number is ORD-5521.", "About ORD-5521."),
        ("The callback number is 408-247-8880.", "Ring 408-247-8880."),
        ("The email is ana@example.com.", "Write to ana@example.com."),
        ("The pickup is at 6:30 pm.", "Be there at 6:30 pm."),
        ("The discount is 20%.", "They get 20% back."),
        ("The vendor is Acme Corp.", "Acme Corp ships it."),
        ("Customer Irene Costa returned it.", "Irene Costa returned it."),
        ("The weight is 5 kg.", "It is 5 kg."),
        ("The return window is 30 days.", "You have 30 days."),
    ],
)
def test_a_value_restated_without_its_cue_is_kept(source: str, summary: str) -> None:
    result = check(source, summary, CUED)
    assert result.outcome is Outcome.CLEAN, result.diff.findings


@pytest.mark.parametrize(
    ("source", "summary", "expected"),
    [
        (
            "The refund is $40. The fee is $10.",
            "The fee is $40.",
            [("changed", "fee"), ("changed", "refund_amount")],
        ),
        (
            "The deadline is March 3, 2026.",
            "The delivery is March 3, 2026.",
            [("changed", "deadline")],
        ),
        ("Customer Irene Costa called.", "Agent Irene Costa called.", [("changed", "customer")]),
        ("The pickup is at 6:30 pm.", "The dropoff is at 6:30 pm.", [("changed", "pickup_time")]),
    ],
)
def test_a_value_bound_to_another_field_is_a_change(
    source: str, summary: str, expected: list[tuple[str, str]]
) -> None:
    assert findings(source, summary) == expected


PARTIES = schema_from_yaml(
    """schema: parties
version: 1
fields:
  people: {type: person, criticality: critical, many: true}
""",
    "<test>/parties.yaml",
)


@pytest.mark.parametrize(
    ("source", "kept", "changed"),
    [
        (
            "Please send $1,200 to the checking account of Philip.",
            "Send $1,200 to Philip's checking account.",
            "Send $1,200 to Phillip's checking account.",
        ),
        (
            "Leininger Anne is a Family Counselor in Gilroy.",
            "Leininger Anne is booked (counselor).",
            "Leininger Anna is booked (counselor).",
        ),
        (
            "The movie was directed by Morton DaCosta.",
            "Morton DaCosta directed it.",
            "Morton DaCosti directed it.",
        ),
        (
            "Daniel Okafor reports the parcel lost.",
            "Parcel lost, reports Daniel Okafor.",
            "Daniel Okafur reports the parcel lost.",
        ),
    ],
)
def test_people_without_a_holder_noun_are_kept_and_one_letter_changed_fails(
    source: str, kept: str, changed: str
) -> None:
    assert check(source, kept, PARTIES).outcome is Outcome.CLEAN
    result = check(source, changed, PARTIES)
    assert result.outcome is Outcome.FAILED
    assert {f.field for f in result.diff.findings} == {"people"}
