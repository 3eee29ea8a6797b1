"""Names that a text gives to things: works, venues, places called so."""

from __future__ import annotations

import pytest

from factdiff.extraction.recognizers.base import ExtractionContext, lowered
from factdiff.extraction.recognizers.named_things import things_named
from factdiff.extraction.recognizers.people import PersonRecognizer

CTX = ExtractionContext()


def people(text: str) -> list[str]:
    return [text[m.start : m.end] for m in PersonRecognizer().find(text, CTX)]


def things(text: str, *names: str) -> frozenset[str]:
    return things_named(text, lowered(text), names)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("What about the movie Dr. Strangelove? Dr. Strangelove is rated 8.4.", "strangelove"),
        ("You would like to rent Gloria Bell? Gloria Bell costs $3.", "gloria bell"),
        ("I'm looking for a restaurant called Curry Queen.", "curry queen"),
        ("There is the Charlie Chan, Rice House and Golden House.", "charlie chan"),
        ("I'd recommend a nice Chinese restaurant like Charlie Chan.", "charlie chan"),
        ("How about A Madea Family Funeral, Auntie Mame, or Dr. Strangelove?", "strangelove"),
        ("How about Dumbo, Hellboy, or Mad Max: Fury Road? Mad Max is long.", "mad max"),
        ("Songs: Kara Kul, A Star is Born, and Gloria Bell.", "gloria bell"),
        ("There's A Madea Family Funeral, Auntie Mame, and Dr. Strangelove.", "strangelove"),
        ("What about Gloria Bell? It has a 6.7 star rating.", "gloria bell"),
        ("I can recommend Dr. Strangelove, which has an average rating of 8.4", "strangelove"),
        ("Check out Mad Max: Fury Road, it's average rating is 8.1.", "mad max"),
        ("Confirming to play Kara Kul on the bedroom speaker.", "kara kul"),
        ("I also found Family, Gloria Bell, and Green Book.", "gloria bell"),
        ("How about Little Woods, Mary Magdalene, or Ramen Shop?", "mary magdalene"),
        ("The first available Chinese restaurant in the centre is Charlie Chan .", "charlie chan"),
        ("The restaurant is Charlie Chan. Charlie Chan is cheap.", "charlie chan"),
        ("Could you recommend one? Charlie Chan is amazing and cheap !", "charlie chan"),
    ],
)
def test_a_name_given_to_a_thing_is_a_thing(text: str, name: str) -> None:
    assert things(text, name) == {name}
    assert not [found for found in people(text) if found.lower() in name]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I found songs from the Ben Platt album Sing to Me.", "ben platt"),
        ("Everybody Hates Me by The Chainsmokers.", "the chainsmokers"),
        ("Folk songs like the dead south, please.", "dead south"),
        ("Send $1030 to the justin checking account.", "justin"),
        ("I want to watch Brian Stepanek. Brian Stepanek is funny.", "brian stepanek"),
        ("It stars Chris Evans, Ana de Armas and Jamie Lee Curtis.", "chris evans"),
        ("Present: Ana Ruiz, Tom Lee and Bo Chen.", "ana ruiz"),  # a label, not a title
        ("A Smith, Ana Ruiz and Tom Lee met.", "ana ruiz"),  # an initial, not an article
        ("Ana Ruiz, Tom Lee and Bo Chen signed the Master Services Agreement.", "bo chen"),
        ("Present: Ana Ruiz, Marketing and Legal.", "ana ruiz"),  # groups beside a person
        ("Parties: Ana Ruiz, Acme Corp and Globex Ltd.", "ana ruiz"),
        ("Cc Ana Ruiz, Tom Lee and Facilities Team.", "ana ruiz"),
        ("Attendees: Ana Ruiz, Xiang Wu and Bo Chen.", "ana ruiz"),  # family names alone
        ("Our contact at the hotel is Ana Ruiz.", "ana ruiz"),  # the venue is an object
        ("The hotel manager is Ana Ruiz.", "ana ruiz"),
        ("Ana Ruiz is very helpful and the fee is cheap.", "ana ruiz"),
    ],
)
def test_a_person_named_near_a_work_or_an_article_stays_a_person(text: str, name: str) -> None:
    assert things(text, name) == frozenset()


def test_the_people_recognizer_keeps_the_performer_and_drops_the_work() -> None:
    text = "What about the movie Dr. Strangelove? It is directed by Stanley Kubrick."
    assert people(text) == ["Stanley Kubrick"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bob Sang is a great Korean joint in Fremont.", []),
        ("Would you like No More Sad Songs by Little Mix?", ["Little Mix"]),
        ("They are located at 2603 Camino Ramon Ste 278.", []),
        ("Dr. Ana Ruiz has a great rapport with patients.", ["Ana Ruiz"]),
    ],
)
def test_venues_titles_and_addresses_name_no_one(text: str, expected: list[str]) -> None:
    assert people(text) == expected
