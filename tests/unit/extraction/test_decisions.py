"""Decisions: verb class, polarity and object, found by one regex pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.errors import SchemaError
from factdiff.extraction.decisions import find_decisions
from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.builtin import generic_schema
from factdiff.schema.loader import schema_from_yaml
from factdiff.values.base import FactType
from factdiff.values.decision import DecisionValue
from factdiff.verify.check import check, extract


def decisions(text: str) -> list[str]:
    out = []
    for match in find_decisions(text):
        assert isinstance(match.value, DecisionValue)
        out.append(str(match.value.canonical()))
    return out


def test_verb_class_and_object() -> None:
    assert decisions("The agent refused the refund and offered a transfer.") == [
        "refuse: refund",
        "offer: transfer",
    ]


def test_synonyms_are_one_class() -> None:
    assert decisions("She declined the refund.") == decisions("She denied the refund.")
    assert decisions("I confirmed the change.") == ["accept: change"]
    assert decisions("I approved the change.") == ["accept: change"]


def test_negation_gives_polarity() -> None:
    assert decisions("We did not cancel order #W123.") == ["not cancel: order w123"]
    assert decisions("We cancelled order #W123.") == ["cancel: order w123"]
    assert decisions("I never promised a discount.") == ["not promise: discount"]
    assert decisions("Sorry, I couldnot cancel order #W123.") == ["not cancel: order w123"]


@pytest.mark.parametrize("dash", [" - ", " — ", "—", " – ", " -- "])
def test_a_negation_ends_at_a_dash(dash: str) -> None:
    source = f"Card not charged{dash}we refunded order #W123."
    assert decisions(source) == ["refund: order w123"]
    assert check(source, "We refunded order #W123.", generic_schema()).outcome.value == "clean"


@pytest.mark.parametrize(
    "text",
    [
        "Your refund amount is $20.",
        "The shipping address is 1 Main St.",
        "Booking reference XY12.",
        "Special offers apply.",
    ],
)
def test_nouns_are_not_decisions(text: str) -> None:
    assert decisions(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We will cancel the order and refund the payment.", ["cancel: order", "refund: payment"]),
        ("The agent will escalate it and waive the late fee.", ["escalate", "waive: fee late"]),
        (
            "I can't cancel the order or refund the payment.",
            ["not cancel: order", "not refund: payment"],
        ),
        ("Please cancel the order and refund the payment.", []),
        ("I confirm it. Please go ahead and cancel it.", ["accept"]),
        ("I cancelled it and refund is pending.", ["cancel"]),
    ],
)
def test_a_verb_coordinated_with_a_licensed_one_shares_its_reading(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


def test_base_forms_count_after_a_verb_licence() -> None:
    assert decisions("We will refund the fee.") == ["refund: fee"]
    assert decisions("I can't confirm the date.") == ["not accept: date"]
    assert decisions("I was able to successfully cancel the order.") == ["cancel: order"]
    # the past participle as it is often misspelled after ``'ve``
    assert decisions("I've cancel the order.") == ["cancel: order"]
    assert decisions("You’re cancelling the order?") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Work was not authorized by their CTO Marcus Chen.", "not accept"),
        ("The change has been confirmed by the hotel.", "accept"),
        ("Customer agreed to pay $11,850 within 7 days.", "promise"),  # a commitment
        ("I refunded $50 to the card.", "refund"),
        ("I booked Gourmet Burger for you.", "book"),
        ("Sure, I can confirm that for you.", "accept"),
        ("I confirmed this morning with the bank.", "accept"),
        ("We declined because the truck is full.", "refuse"),
        ("I confirmed via email.", "accept"),
    ],
)
def test_an_object_not_read_with_confidence_stays_unbound(text: str, expected: str) -> None:
    assert decisions(text) == [expected]


def test_a_hyphenated_word_may_stand_in_an_object() -> None:
    assert decisions("The customer accepted a one-month credit.") == ["accept: credit one-month"]


def test_a_coordinated_phrase_that_heads_nothing_leaves_the_object_before_and() -> None:
    assert decisions("I have booked your cab and the same will reach you.") == ["book: ride"]


def test_the_direct_object_is_a_noun_phrase_or_an_identifier() -> None:
    assert decisions("I booked the hotel and the flight.") == ["book: flight hotel"]
    assert decisions("I booked the Hilton hotel.") == ["book: hotel"]
    assert decisions("We have offered you a voucher.") == ["offer: voucher"]
    assert decisions("She agreed to the refund.") == ["accept: refund"]
    assert decisions("I refunded the card ending 1234.") == ["refund: card"]


def test_a_restated_decision_with_another_reading_of_the_clause_is_kept() -> None:
    source = "Customer disputes line item 3, claiming work was not authorized by their CTO."
    summary = "The customer disputes line item 3: their CTO never authorized the work."
    result = check(source, summary, generic_schema())
    assert result.diff.findings == ()


def test_objects_tell_apart_two_decisions_of_one_class() -> None:
    source = "We cancelled order #W100. We did not cancel order #W200."
    swapped = "We cancelled order #W200. We did not cancel order #W100."
    result = check(source, swapped, generic_schema())
    assert {f.field for f in result.diff.changed} >= {"inventory.decision"}
    refused = "The agent refused the refund."
    changed = check(refused, "The agent refused the exchange.", generic_schema())
    assert [(f.verdict.value, f.field) for f in changed.diff.findings] == [
        ("changed", "inventory.decision")
    ]


def test_generic_inventory_tracks_decisions() -> None:
    record = extract("The agent refused the refund.", generic_schema())
    facts = record.inventory[FactType.DECISION]
    assert [f.text for f in facts] == ["refused"]


SOURCE = (
    "Order ORD-5521 arrived damaged on March 3, 2026. "
    "The agent refused the refund and offered a transfer."
)


def test_a_dropped_decision_is_a_known_gap() -> None:
    result = check(SOURCE, "Order ORD-5521 arrived damaged on March 3, 2026.", generic_schema())
    assert result.outcome.value == "acceptable_with_notes"
    missing = {f.source.value.canonical() for f in result.diff.missing if f.source}
    assert missing == {"refuse: refund", "offer: transfer"}
    assert result.notes == ("inventory.decision missing", "inventory.decision missing")


def test_a_flipped_decision_is_a_change() -> None:
    flipped = SOURCE.replace("refused", "agreed to")
    result = check(SOURCE, flipped, generic_schema())
    assert result.outcome.value == "failed"
    [change] = result.diff.changed
    assert change.field == "inventory.decision"
    assert change.summary is not None
    assert change.summary.value.canonical() == "accept: refund"


def test_a_flip_on_its_object_is_a_change_beside_another_decision_of_its_class() -> None:
    source = "Mr. Okafor turned down the upgrade offer but agreed to extend his contract."
    result = check(source, "Okafor accepted the upgrade; agreed to extend it.", generic_schema())
    assert [
        (f.verdict.value, f.summary.value.canonical()) for f in result.diff.findings if f.summary
    ] == [("changed", "accept: upgrade")]
    kept = "Okafor declined the upgrade offer; agreed to extend the contract."
    assert check(source, kept, generic_schema()).outcome.value == "clean"


def test_a_decision_the_source_also_states_on_that_object_is_no_flip() -> None:
    source = "I refused the refund at first. Later I approved the refund."
    result = check(source, "Refund approved later.", generic_schema())
    assert [(f.verdict.value, f.field) for f in result.diff.findings] == [
        ("missing", "inventory.decision")
    ]


def test_not_cancelled_to_cancelled_is_a_change() -> None:
    source = "Order ORD-5521 was not cancelled."
    result = check(source, "Order ORD-5521 was cancelled.", generic_schema())
    assert [f.field for f in result.diff.changed] == ["inventory.decision"]


def test_a_synonym_within_the_class_is_clean() -> None:
    summary = SOURCE.replace("refused", "declined").replace("offered", "proposed")
    assert check(SOURCE, summary, generic_schema()).outcome.value == "clean"


REFUNDS = """schema: refunds
version: 1
fields:
  refund_decision: {type: decision, criticality: critical, cues: [refund, reimburse]}
inventory: {decision: important}
"""


def test_a_schema_decision_field_has_its_own_verbs_and_criticality() -> None:
    schema = schema_from_yaml(REFUNDS, "<test>/refunds.yaml")
    source = "Ticket T-1: we will not refund the fee. The agent offered a voucher."
    kept = "Ticket T-1: we will not reimburse the fee. The agent offered a voucher."
    assert check(source, kept, schema).outcome.value == "clean"
    flipped = check(source, source.replace("not refund", "refund"), schema)
    assert [(f.verdict.value, f.field) for f in flipped.diff.findings] == [
        ("changed", "refund_decision")
    ]
    dropped = check(source, "Ticket T-1. The agent offered a voucher.", schema)
    assert dropped.outcome.value == "failed"
    assert [(f.verdict.value, f.field) for f in dropped.diff.findings] == [
        ("missing", "refund_decision")
    ]


def test_a_decision_field_without_verbs_is_refused() -> None:
    text = REFUNDS.replace("cues: [refund, reimburse]", "cues: [give back]")
    with pytest.raises(SchemaError, match="decision field needs `cues`"):
        schema_from_yaml(text, "<test>/refunds.yaml")


@pytest.mark.parametrize(
    ("text", "occurrences"),
    [
        ("Your reservation has been made. Shall I book a car? Yes. Your booking is made.", 2),
        ("Your reservation has been made. Your booking is confirmed.", 1),
        ("I cancelled it. Do you want me to book a table? No. It was cancelled.", 1),
        ("I couldn't book it. Should I book 7 pm? Yes. Sorry, I couldn't book that either.", 2),
        ("I couldn't book it. Sorry, I couldn't book that one either.", 2),
        ("You are now confirmed. I need a bus ticket back. You are now confirmed.", 2),
        (
            "I couldn't make the appointment. Will you schedule one at 3? I couldn't make the "
            "appointment.",
            1,  # ``one`` is no transaction noun
        ),
        (
            "I couldn't make the appointment. Will you schedule an appointment at 3? I couldn't "
            "make the appointment.",
            2,
        ),
        (
            "The reservation failed. Confirming: I am booking a table for 3. The reservation "
            "failed.",
            2,
        ),
        ("I cancelled it. The system failed, so I cancelled it again.", 2),
        ("I couldn't book it. Either way, I couldn't book it.", 1),
        ("I booked it. It's too expensive, but I booked it.", 1),
    ],
)
def test_a_decision_taken_again_after_one_of_its_class_was_asked_for_occurs_again(
    text: str, occurrences: int
) -> None:
    [fact] = extract(text, generic_schema()).inventory[FactType.DECISION]
    assert fact.occurrences == occurrences
    assert len(fact.spans) == 2


def test_occurrences_survive_the_record_json() -> None:
    text = "Your reservation has been made. Shall I book a car? Yes. Your booking is made."
    record = extract(text, generic_schema())
    [fact] = record.inventory[FactType.DECISION]
    assert fact.to_json()["occurrences"] == 2
    assert FactRecord.from_json(record.to_json()).inventory[FactType.DECISION] == (fact,)
    [once] = extract("Your reservation has been made.", generic_schema()).inventory[
        FactType.DECISION
    ]
    assert "occurrences" not in once.to_json()
    with pytest.raises(ValueError, match="occurrences"):
        Fact.from_json({**fact.to_json(), "occurrences": 0})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Billing confirmed INV-2231 was paid on May 2.", ["pay"]),
        ("I can confirm that your order was cancelled.", ["cancel"]),
        ("We confirmed the customer's address is correct.", []),
        ("I agree that the fee is wrong.", []),
        ("Confirmed with billing: INV-2231 paid.", ["pay"]),
        ("The agent confirmed the refund.", ["accept: refund"]),
        ("I confirmed the booking that was made yesterday.", ["book"]),  # a relative clause
        ("I agreed to the refund and it was issued.", ["accept: refund"]),
        ("I confirmed your booking is for Friday.", ["book"]),  # the booking's, not a check
        ("Mrs. Petrova confirmed service restored.", []),  # a state, its verb left out
        ("I confirmed the parcel delivered and closed the case.", []),
    ],
)
def test_a_verb_of_consent_before_a_clause_states_a_fact_not_a_decision(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Replacement ships next Tuesday.", ["ship"]),
        ("Order ships tomorrow.", ["ship"]),
        ("The replacement unit ships tomorrow via UPS.", ["ship"]),
        ("A new replacement router ships Friday.", ["ship"]),
        ("Pending refunds next week.", []),
        ("Your subscription cancels on May 1.", ["cancel"]),
        ("The deposit refunds within 5 days.", ["refund"]),
        ("Special offers this week.", []),  # not a class a note states so
        ("Cruise ships this week.", []),  # no noun of a subject before it
        ("The order ships 3 boxes.", []),  # no time after it
    ],
)
def test_a_notes_bare_present_with_a_time_states_a_decision(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Offered the customer 20% off the next renewal.", ["offer"]),
        ("We offered the customer a voucher.", ["offer: voucher"]),
        ("We offered the customer.", ["offer: customer"]),  # nothing else is offered
        ("I cancelled the customer account.", ["cancel: account customer"]),
    ],
)
def test_the_person_who_receives_it_is_not_what_is_offered(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected


def test_a_passive_confirmed_with_a_reference_states_the_outcome() -> None:
    assert decisions("Yes it is confirmed with reference number TT8J62KR.") == ["accept"]
    assert decisions("I confirmed with billing that the $1,250.00 charge was paid.") == ["pay"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We agreed to waive the late fee.", ["waive: fee late"]),
        ("We refused to waive the late fee.", ["not waive: fee late"]),
        ("We promised to refund the fee.", ["refund: fee"]),
        ("I agreed to ship it today.", ["ship"]),
        ("The customer agreed to pay by Friday.", ["promise"]),
        ("The customer promised to pay by Friday.", ["promise"]),
        ("The customer will pay by Friday.", ["promise"]),
        ("She'll pay the rest tomorrow.", ["promise"]),
        ("Okafor is going to pay $11,850 within 7 days.", ["promise"]),
        ("I'll rent it.", []),  # the speaker's: a proposal or a wish
        ("Tell me the price I'll pay.", []),
        ("Within 3 business days the amount will transfer.", []),  # a thing's: no one's
        ("The customer refused to pay.", ["refuse"]),
        ("We agreed to the refund.", ["accept: refund"]),
        ("Will you pay by card?", []),
        ("You can pay by card.", []),
    ],
)
def test_a_commitment_reads_alike_in_every_wording(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected


def test_the_worked_examples_faithful_summary_is_clean_under_the_generic_schema() -> None:
    folder = Path(__file__).resolve().parents[2] / "fixtures" / "worked_example"
    source = (folder / "source.txt").read_text(encoding="utf-8")
    faithful = (folder / "faithful.txt").read_text(encoding="utf-8")
    assert check(source, faithful, generic_schema()).outcome.value == "clean"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Olga cancelled SUB-771; confirmed by agent Luis Romero.", ["cancel: sub-771"]),
        ("SUB-771 is cancelled from April 1 (confirmed by Luis Romero).", ["cancel"]),
        ("The refund was approved by Bo Chen.", ["accept"]),
    ],
)
def test_a_consent_participle_opening_its_clause_before_by_is_an_attribution(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


def test_consent_to_a_cancellation_is_the_cancellation() -> None:
    assert decisions("Agent Luis Romero confirmed the cancellation.") == ["cancel"]
    assert decisions("We approved the cancellation.") == ["cancel"]
    assert decisions("I confirmed the change.") == ["accept: change"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She turned down the offer.", ["refuse: offer"]),
        ("She turned the offer down.", ["refuse: offer"]),
        ("The technician turned down the volume on the alarm panel.", []),
        ("We turned the music down and called it off.", ["cancel"]),
        ("He turned down the thermostat.", []),
    ],
)
def test_a_phrasal_verb_in_its_literal_sense_is_no_decision(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected
