"""People without cues: given-name gazetteer, capitalisation and sentence position."""

from __future__ import annotations

import pytest

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.gazetteer import find_plain_people
from factdiff.extraction.recognizers.name_lists import family_names, given_names
from factdiff.extraction.recognizers.organizations import OrganizationRecognizer


def names(text: str) -> list[str]:
    return [str(m.value.canonical()) for m in find_plain_people(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Daniel Okafor reports the parcel lost.", ["Daniel Okafor"]),
        ("Greta Holm called twice.", ["Greta Holm"]),
        ("Irene Costa returned it", ["Irene Costa"]),
        ("What about David A. Flakoll? He is free.", ["David A. Flakoll"]),
        ("May I suggest Garcia Daniel? He is a psychiatrist.", ["Garcia Daniel"]),
        ("Ana Ruiz (customer) said yes.", ["Ana Ruiz"]),
        ("Leininger Anne is a Family Counselor in Gilroy.", ["Leininger Anne"]),
        ("You may want to try Barskyex Bryna G in San Jose.", ["Barskyex Bryna G"]),
        ("Blank Gary A is also a psychologist.", ["Blank Gary A"]),
        ("Here is Alissa Scanlin Psyd in Lafayette.", ["Alissa Scanlin"]),
        ("you asked for miller nicole g at noon", ["Miller Nicole g"]),
        ("Guest Priya Raman called.", ["Priya Raman"]),
        ("Aiko Tanaka's Osaka flight was cancelled.", ["Aiko Tanaka"]),  # a possessive ends it
        ("Akira Suzuki met Hiroshi Sato.", ["Akira Suzuki", "Hiroshi Sato"]),  # romanized lists
        ("Gang Members Association called.", []),
    ],
)
def test_names_without_a_cue(text: str, expected: list[str]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "We flew to San Jose and Santa Rosa.",
        "I want a table at Olive Garden tonight.",
        "Book the Alexander Bed and Breakfast.",
        "The Marriott Paris Porte Maillot is full.",
        "Go to 899 Sir Francis Drake Boulevard.",
        "Pick me up at John Wayne Airport.",
        "Will you pay by Monday?",
        "PLEASE CALL AS SOON AS POSSIBLE",
        "Call Anne tomorrow.",
        "I'm Priya.",
        "There's Billy at the Forum.",
        "Do you like A Madea Family Funeral. I do.",
        "I need a car till noon and a room per night.",
        "Book a table at Charlie Chan. Charlie Chan takes cards.",
        "charlie chan is a cheap Chinese restaurant. Call Charlie Chan now.",
        "I'm looking for Comfort Food.",  # a given name, then a food word: a cuisine
        "I recommend Caffe Uno .",
        "Book a table at Rosie Mccann's for March 2nd.",  # a possessive alone: the venue
        "A table at Rosie Mccann's Irish Pub & Restaurant.",
    ],
)
def test_places_venues_and_common_words_are_not_people(text: str) -> None:
    assert names(text) == []


def test_the_gazetteer_is_shipped_data_folded_and_without_common_words() -> None:
    given, family = given_names(), family_names()
    assert {"daniel", "greta", "irene"} <= given
    assert {"costa", "ruiz", "holm"} <= family
    assert not {"may", "will", "grant", "the"} & given
    assert all(name == name.casefold() for name in given)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The order from Nordlys AS arrived.", ["Nordlys AS"]),
        ("Sold to Bergen Fisk ASA today.", ["Bergen Fisk ASA"]),
        ("PLEASE CALL AS SOON AS POSSIBLE", []),
        ("Lena Fischer (Head of Finance, Alpenblick GmbH) called.", ["Alpenblick GmbH"]),
        ("Initech, Inc. called.", ["Initech, Inc."]),
    ],
)
def test_nordic_and_european_legal_forms(text: str, expected: list[str]) -> None:
    found = OrganizationRecognizer().find(text, ExtractionContext())
    assert [m.value.canonical() for m in found] == expected


def test_a_name_after_at_is_a_venue_unless_it_is_an_appointment() -> None:
    assert names("Book an appointment at Barskyex Bryna G on Monday.") == ["Barskyex Bryna G"]
    assert names("Book a table at Barskyex Bryna G on Monday.") == []
    assert names("Daniel Okafor reports the parcel lost at the depot.") == ["Daniel Okafor"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Would you like Arte Carrillo Gil Museum?", []),  # inside a longer capitalised name
        ("Watch Blackmail - Cinemix Par Chloe tonight.", []),
        ("How about John Bentley's Restaurant in Redwood City?", []),  # a venue word after it
        ("May I recommend Lynne Strover gallery at 23 high street?", []),  # lower-case one
        ("I found Country Sharon Apartments, at 2225 Sharon Road.", []),
        ("How about Amelie San Francisco in San Francisco?", []),  # it runs into a place
        ("The Amber Run Brooklyn concert is on.", []),
        ("What about Kara Kul by Mark Petrie from the album?", []),  # a title before a credit
        ("How about the Psychiatrist Garcia Daniel out of Napa?", ["Garcia Daniel"]),
        ("Do you want Ariela Ora Karasov? They are a psychiatrist.", ["Ariela Ora"]),
        ("How about Burma Ruby Burmese Cuisine in Palo Alto?", []),  # it ends in a venue word
        ("I met Ana Ruiz by the door.", ["Ana Ruiz"]),  # "by" and no credited name
        ("Yesterday Daniel Okafor called.", ["Daniel Okafor"]),  # a sentence's first word
    ],
)
def test_names_inside_longer_names_and_titles(text: str, expected: list[str]) -> None:
    assert names(text) == expected


def test_a_json_key_names_no_one_but_a_json_value_may() -> None:
    assert names('{"Tablet": "8024098596", "Tea Kettle": "9832717871"}') == []
    assert names('{"customer": "Daniel Okafor", "status": "open"}') == ["Daniel Okafor"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- **Skin Tone:** Dark", []),  # a field's label, in directory order
        ("- **Address Line 1:** 157 Oak Street", []),
        ("  - Address Line 1: 1234 Elm St", []),
        ("We met Garcia Daniel: he agreed.", ["Garcia Daniel"]),  # a colon before prose
        ("Then Garcia Daniel 10:30 arrived.", ["Garcia Daniel"]),  # a time, not a label
    ],
)
def test_a_pair_in_directory_order_that_labels_a_value_is_a_field(
    text: str, expected: list[str]
) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm headed to Willard Hicks. A cab to Willard Hicks, then.", []),
        ("Try Barskyex Bryna G. located in San Jose.", ["Barskyex Bryna G."]),
        ("May I suggest Charlie Chan ? It is a good chinese restaurant .", []),
        ("Ok how about Charlie Chan , located at Regent Street City Centre .", []),
        ("I'm driving to Ana Ruiz's house. Ana Ruiz is my sister.", ["Ana Ruiz", "Ana Ruiz"]),
        ("Going to Ana Ruiz’s office now.", ["Ana Ruiz"]),  # the ending read in the name
        ("I sent the parcel to Ana Ruiz. It is a gift.", ["Ana Ruiz"]),
    ],
)
def test_a_name_one_goes_to_or_that_is_located_somewhere_is_a_venue(
    text: str, expected: list[str]
) -> None:
    assert names(text) == expected
