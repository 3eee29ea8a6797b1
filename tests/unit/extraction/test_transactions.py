"""Transaction outcomes as decisions: light verbs and nouns, passives, outcome phrases."""

from __future__ import annotations

import pytest

from factdiff.extraction.decisions import find_decisions
from factdiff.values.decision import DecisionValue


def decisions(text: str) -> list[str]:
    out = []
    for match in find_decisions(text):
        assert isinstance(match.value, DecisionValue)
        out.append(str(match.value.canonical()))
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I made the reservation for you.", "book"),
        ("I got those tickets.", "book: ticket"),
        ("I set up the appointment.", "book: appointment"),
        ("I have scheduled your visit.", "book: appointment"),
        ("I have scheduled your viewing.", "book: appointment"),
        ("I completed the transfer.", "pay"),
        ("We placed the order.", "purchase"),
        ("I have initiated the transfer.", "pay"),
        ("I've processed your payment.", "pay"),
        ("I have successfully scheduled your apartment visit.", "book: appointment"),
        ("I made a dinner reservation for you.", "book"),
        ("I have started the transfer.", "pay"),
        ("I've setup your transfer.", "pay"),
        ("I've schedule the visit.", "book: appointment"),
        ("Sorry, I couldn't start the transfer.", "not pay"),
        ("I issued a prorated refund of $12.40.", "refund"),
        ("We issued your tickets.", "book: ticket"),
    ],
)
def test_a_light_verb_and_a_transaction_noun(text: str, expected: str) -> None:
    assert decisions(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "I made sure the reservation is for 7 pm.",  # no opening word before the modifier
        "Please setup a reservation for me.",  # a request
        "The setup of your booking is easy.",  # the noun ``setup``
        "You have to schedule the visit.",  # ``have to`` is no perfect
        "Let's start the booking.",  # a base form without a failure cue
        "The order processing time is 3 days.",  # ``processing`` without ``be``
        "The transfer processing fee is $2.",
    ],
)
def test_light_verbs_and_outcomes_that_state_none(text: str) -> None:
    assert decisions(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Your booking is confirmed.", "book"),
        ("Your reservation has been made successfully.", "book"),
        ("The transfer was successful.", "pay"),
        ("The payment went through.", "pay"),
        ("Your appointment went thru.", "book: appointment"),
        ("Your cab is on it's way.", "book: ride"),
        ("Your visit to the residence is planned.", "book: appointment"),
        ("Your booking is verified.", "book"),
        ("Your requested rooms have been booked.", "book: room"),
        ("The car has been booked.", "book: car"),
        ("The order was cancelled.", "cancel"),
        ("The tickets were bought.", "book: ticket"),
        ("Your tickets are ordered.", "book: ticket"),
        ("Your shared cab is on its way.", "book: ride"),
        ("Your visit to the apartment is fixed.", "book: appointment"),
        ("Your cab will arrive shortly.", "book: ride"),
        ("Your ride is currently en route.", "book: ride"),
        ("The transfer is now processing.", "pay"),
        ("Your order is currently underway.", "purchase"),
        ("Your buses are booked.", "book: bus"),
        ("Your cab is headed your way.", "book: ride"),
        ("The tickets are yours.", "book: ticket"),
        ("The booking worked.", "book"),
        ("Your refund is on its way.", "refund"),
        ("A refund of $17.99 has been processed to your gift card.", "refund"),
        ("The refund was issued yesterday.", "refund"),
        ("The chargeback for order 7781-AB was processed.", "refund"),
        ("The exchange has been successfully requested.", "exchange"),
        ("The return request for the air purifier has been successfully processed.", "return"),
        ("The payment for your reservation was declined.", "not pay"),
        ("Refund of $45.00 processed; arrives in 5 days.", "refund"),
        ("Reservation at Taverna Bistro confirmed.", "book"),
    ],
)
def test_a_transaction_noun_and_its_outcome(text: str, expected: str) -> None:
    assert decisions(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sorry, I couldn't make the reservation.", "not book"),
        ("I was unable to purchase that ticket.", "not book: ticket"),
        ("I was unable to cancel order #W123.", "not cancel: order w123"),
        ("Sorry, I wasn't able to get those tickets.", "not book: ticket"),
        ("I failed to make a reservation.", "not book"),
        ("It is not possible to make a reservation.", "not book"),
        ("The reservation didn't go through.", "not book"),
        ("Your table could not be booked.", "not book: table"),
        ("Sorry, your payment failed.", "not pay"),
        ("The booking was unsuccessful.", "not book"),
        ("Sorry, the reservation did not work.", "not book"),
        ("That appointment was unavailable.", "not book: appointment"),
        ("I didn't manage to make the reservation.", "not book"),
    ],
)
def test_failure_cues_negate(text: str, expected: str) -> None:
    assert decisions(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Do you want me to book: a table for 2 at Sino?",
        "Please confirm: you're booking 3 bus tickets to Fresno.",
        "So to confirm, I'll book 1 room at the Hilton.",
        "I'd like to book a table.",
        "I want to cancel my order.",
        "Would you like me to make the reservation?",
        "Should I book one for 2:30 pm?",
        "Okay, I am booking an appointment with Dr Lee.",
        "The reserved time is 2:45 pm.",
        "Confirming your scheduled visit on Friday.",
        "I can make the reservation for 7 pm.",
        "Customer may pay by card.",
        "We've got 6 cars which suit you.",
        "You require to book the car?",
        "Please tell me the amount to be transferred.",
        "I'm processing your payment now.",
        "I need a ticket to complete my trip.",
        "The agent will issue refund tomorrow.",
        "The ticket for the bus is $30.",
        "Please can you reserve it at 19:00?",
        "The bus is scheduled to arrive at the Intercity Terminal.",
        "I'll book you 1 room at 28 Hotel Sydney for 1 day. Is that correct?",
        "I will reserve a table for 2 at the Sargam Indian Cuisine at 11:30 am if that is correct.",
        "Confirm me the details before I book the appointment.",
        "Once you confirm, I'll proceed with the cancellation.",
        "You could reserve a spot with Becker Hubert J on March 11th.",
        "Since your order is still pending, you can cancel this item.",
        "Set up a reservation for me please.",
        "Please send me the reference number once the reservation is booked.",
        "I just need you to confirm the following for me.",
        "Please can I book this car.",
        "Sounds good, can you reserve it for me.",
        "Should i book for 3 people today or tomorrow",
        "Which date should I book the tickets for.",
        "There's a table I can reserve at 12:30 pm.",
        "You may be able to get an appointment at 5:30 pm.",
        "Great, now reserve it for me please",
        "Just confirming your shared ride for 2.",
        "To confirm then that is $850 transferred from your checking account.",
        "So I'll book an appointment with Dr Beck at 10:15 am, okay?",
        "Understood, you will book 2 tickets to the game.",
        "I'm ready to book an appointment.",
        "Please verify the following information: 4 tickets booked for the event.",
        "You asked me to cancel order #W123.",
        "You have two pending orders that can be cancelled:",
        "Kindly book a table for me.",
        "The account stays on hold until paid.",  # a reduced clause: a condition
        "If approved, the refund goes out Monday.",
        "Pleas confirm to reserve a car for March 9th.",
    ],
)
def test_prospective_decisions_are_none(text: str) -> None:
    assert decisions(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Transfer is done.", ["pay"]),
        ("I booked it, okay?", ["book"]),
        ("Just booked it.", ["book"]),
        ("I was able to confirm your ticket purchase.", ["book: ticket"]),
        ("I can confirm that your order was cancelled.", ["cancel"]),  # a clause: no accept
    ],
)
def test_an_asking_word_that_does_not_open_the_clause_leaves_it_done(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


def test_the_same_transaction_in_other_words_is_one_decision() -> None:
    done = [
        "Your reservation is confirmed.",
        "I have made the reservation.",
        "The reservation went through.",
        "I have confirmed your reservation.",
    ]
    values = {tuple(decisions(text)) for text in done}
    assert values == {("book",)}


def test_that_is_confirmed_answering_a_request_to_confirm_books_nothing() -> None:
    asked = "system: Please confirm to book a cab for 4 to 1027 Airport Boulevard.\n"
    assert decisions(asked + "user: That is confirmed, proceed.") == ["accept"]
    assert decisions("user: Can you book a cab?\nsystem: That is confirmed.") == ["book"]
    assert decisions("system: I booked your cab. That is confirmed.") == ["book: ride"] * 2


def test_a_question_after_a_done_outcome_leaves_it_done() -> None:
    assert decisions("The reservation was made, is there anything else?") == ["book"]


def test_nouns_of_one_thing_are_one_object() -> None:
    assert decisions("I booked a cab.") == decisions("The ride has been booked.")
    assert decisions("Your seats are confirmed.") == ["book: ticket"]


def test_a_consent_verb_keeps_its_class_for_other_objects() -> None:
    assert decisions("The agent refused the refund and offered a transfer.") == [
        "refuse: refund",
        "offer: transfer",
    ]
    assert decisions("Customer agreed to pay $11,850 within 7 days.") == ["promise"]
    assert decisions("I paid $50 by card.") == ["pay"]


def test_a_wish_governs_only_its_own_clause() -> None:
    assert decisions("I need to return a speaker I bought.") == ["purchase"]


def test_a_failed_attempt_and_a_failed_outcome_negate() -> None:
    assert decisions("Sorry, there was an issue trying to book the table.") == ["not book: table"]
    assert decisions("The booking was a failure.") == ["not book"]
    assert decisions("Your appointment was a success.") == ["book: appointment"]


def test_a_booked_person_and_a_named_thing_booked() -> None:
    assert decisions("You are now confirmed.") == ["book"]
    assert decisions("You're all set.") == ["book"]
    assert decisions("Are you all set?") == []
    assert decisions("I was able to confirm your ticket purchase.") == ["book: ticket"]
    assert decisions("Your transfer began successfully.") == ["pay"]


def test_only_a_ride_is_booked_by_coming() -> None:
    assert decisions("The bus will arrive at 5 pm.") == []
    assert decisions("Will the taxi arrive on time?") == []
    assert decisions("Your car is headed to the airport.") == []


def test_an_after_sales_decision_stays_the_verb_finders() -> None:
    assert decisions("Your refund was approved.") == ["accept"]
    assert decisions("I approved the refund.") == ["accept: refund"]
    assert decisions("Your refund request was rejected.") == ["refuse"]
    assert decisions("We could not process the refund.") == ["not refund"]
    assert decisions("I've initiated the return for your sneakers.") == ["return"]


def test_requested_is_an_outcome_only_after_be_and_without_by() -> None:
    assert decisions("The transfer was requested.") == ["pay"]
    assert decisions("A refund was requested by the customer.") == []
    assert decisions("The payment requested is $20.") == []


def test_managed_to_licenses_a_done_outcome() -> None:
    assert decisions("I managed to buy your tickets.") == ["book: ticket"]
    assert decisions("I managed to make the reservation.") == ["book"]


def test_work_is_an_outcome_only_after_did() -> None:
    assert decisions("That reservation doesn't work for me.") == []
    assert decisions("Did the reservation work?") == []


def test_a_participle_in_the_phrase_is_an_outcome_only_at_the_clause_end() -> None:
    assert decisions("Reservation for the confirmed guests is at 7.") == []


def test_yours_is_an_outcome_only_after_be() -> None:
    assert decisions("Are the tickets yours?") == []
    assert decisions("The room is now yours.") == ["book: room"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The transfer I have just initiated will take 3 business days.", "pay"),
        ("The order that we placed last week hasn't arrived.", "purchase"),
        ("The room I booked was dirty.", "book: room"),
        ("The table I haven't booked yet.", "not book: table"),
    ],
)
def test_the_speaker_as_subject_of_a_relative_clause_after_the_noun(
    text: str, expected: str
) -> None:
    assert decisions(text) == [expected]


def test_a_relative_clause_without_an_outcome_states_none() -> None:
    assert decisions("The ticket I want is the 5 pm one.") == []


def test_not_possible_is_a_failed_outcome_and_possible_none() -> None:
    assert decisions("The reservation was not possible.") == ["not book"]
    assert decisions("Sorry, that table isn't available.") == ["not book: table"]
    assert decisions("The table is available at 7 pm.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Your visit to the apartment has been scheduled.", "book: appointment"),
        ("Your reservation at Taverna Bistro was made.", "book"),
        ("Your reservation for a party of four was confirmed.", "book"),
        ("The transfer request has been made.", "pay"),
        ("Your transfer process is started.", "pay"),
        ("Your transfer of $1,340.50 to Grace Smith has been initiated.", "pay"),
        ("Your payment of € 45 was declined.", "not pay"),
        ("Your reservation on March 3rd was confirmed.", "book"),
        ("Your reservation for 7:30 pm was confirmed.", "book"),
    ],
)
def test_a_short_phrase_between_the_noun_and_its_outcome(text: str, expected: str) -> None:
    assert decisions(text) == [expected]


def test_a_counted_transfer_is_a_change_of_bus_not_a_payment() -> None:
    assert decisions("It does have 1 transfer on the way and costs $66.") == []
    assert decisions("Nope, there are 0 transfers scheduled.") == []
    # ``it`` stands for the tickets, not for the transfers counted after them
    assert decisions("Want tickets? 7:10 am, $45, 0 transfers. It is confirmed.") == ["book"]
    assert decisions("The transfer to Ana is done.") == ["pay"]  # uncounted: a payment
    assert decisions("Your 2 transfers of $100 were successful.") == ["pay"]  # with an amount


def test_a_phrase_naming_its_own_transaction_leaves_the_outcome_to_that_noun() -> None:
    assert decisions("The table at 7 pm is not available.") == ["not book: table"]
    assert decisions("The reservation for your table at 7 pm is confirmed.") == ["book: table"]
    assert decisions("The reservation for your tables is confirmed.") == ["book: table"]
    # a word that only starts like a transaction noun is none (``tablet``, ``cart``)
    assert decisions("Your order for the tablet was placed.") == ["purchase"]
    assert decisions("Your reservation for the cart was confirmed.") == ["book"]


def test_an_issue_before_an_ing_form_is_a_failed_attempt() -> None:
    assert decisions("There was an issue booking the tickets.") == ["not book: ticket"]
    assert decisions("Sorry, there was a problem with making the reservation.") == ["not book"]
    assert decisions("You are scheduled.") == ["book"]


def test_a_commitment_or_a_past_decision_stays_one() -> None:
    assert decisions("I'll book you 1 room at 28 Hotel. Is there anything else?") == ["book"]
    assert decisions("After I booked the table, I called.") == ["book: table"]
    assert decisions("I have a taxi scheduled to pick you up at 11:30.") == ["book: ride"]
    assert decisions("I set up the appointment.") == ["book: appointment"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I need a cab to the airport. OK, it's on its way.", ["book"]),
        ("Please book the appointment. It was scheduled.", ["book"]),
        ("The transfer will take 1 day and it was successfully initiated.", ["pay"]),
        ("The transfer takes 3 days. It could not be initiated.", ["not pay"]),
        ("Is the reservation for two? It failed, sorry.", ["not book"]),
        ("Can I pay the transfer fee? That has been processed.", ["pay"]),
    ],
)
def test_an_outcome_stated_of_a_pronoun_takes_the_class_of_the_noun_before_it(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


def test_a_pronoun_states_no_outcome_without_a_noun_or_as_no_subject() -> None:
    assert decisions("OK, it's done.") == []  # nothing transacted before it
    assert decisions("I need a cab. The driver says it is on its way.") == []
    assert decisions("Your bus leaves at 8. It is scheduled to arrive at noon.") == []
    assert decisions("The table seats six. It was made of oak.") == []
    # ``it`` stands for the clause after it: no purchase (``confirmed`` is a consent of its own)
    assert decisions("About the order: it was confirmed that returns take 5 days.") == ["accept"]
    assert decisions("The booking was hard. It is done so that you can rest.") == []
    assert decisions("I need a cab. " + "x" * 420 + ". It's on its way.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I need an appointment. I was able to schedule that for you.", ["book"]),
        ("I want a table. Great, I went ahead and scheduled it.", ["book"]),
        ("The transfer takes a day. Sorry, I was unable to process it.", ["not pay"]),
        ("Your order is ready. I've submitted it successfully.", ["purchase"]),
    ],
)
def test_a_pronoun_object_of_a_light_verb_takes_the_class_of_the_noun_before_it(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I scheduled it.",  # no transaction before it
        "I need a cab. Got it.",  # ``got it`` says it was understood
        "I want the order. We made it!",
        "I need the order. I processed that request.",  # ``that`` opens a noun phrase
        "I need a table. Can you schedule it for me?",  # asked for
        "I need a table. I'll schedule it for you.",  # a commitment, not an outcome
    ],
)
def test_a_pronoun_object_states_no_outcome_otherwise(text: str) -> None:
    assert decisions(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I have cancelled order #W1234. Your order has been cancelled.",
            ["cancel: order w1234", "cancel: order w1234"],
        ),
        ("I have booked your cab. It is on its way.", ["book: ride", "book: ride"]),
        (
            "Your appointment has been booked. Now a table for two? Your reservation is made.",
            ["book: appointment", "book"],
        ),
        (
            "I cancelled order #W1. Order #W2 too? The order was cancelled.",
            ["cancel: order w1", "cancel"],
        ),
        ("Your ride is booked. Sorry, the booking failed.", ["book: ride", "not book"]),
        (
            "Your appointment is booked. Could you book a table at Nopa? It is done.",
            ["book: appointment", "book"],
        ),
    ],
)
def test_an_unbound_decision_restating_a_bound_one_takes_its_object(
    text: str, expected: list[str]
) -> None:
    assert decisions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Your order is on its way.", ["ship"]),
        ("Parcel left the warehouse on March 3.", ["ship"]),
        ("Your order is still in transit.", ["ship"]),
        ("The shipment is out for delivery.", ["ship"]),
        ("The parcel was sent on Monday.", ["ship"]),
        ("Your cab is on its way.", ["book: ride"]),  # a ride comes: it was booked
        ("The customer accepted the parcel.", ["accept: parcel"]),  # consent keeps its class
        ("I left the warehouse at 5.", []),
    ],
)
def test_goods_on_their_way_were_shipped(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The refund of $47.49 goes back to the Mastercard within 5-7 days.", ["refund"]),
        ("The refund will be credited to your Visa.", ["refund"]),
        ("The payment of $50 went through.", ["pay"]),
        ("The transfer went back to your account.", []),  # only a refund goes back
    ],
)
def test_a_refund_going_back_or_credited_is_done(text: str, expected: list[str]) -> None:
    assert decisions(text) == expected
