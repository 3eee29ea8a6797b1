"""People named by what happens to them: recipients, relatives, credits, messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers import person_cues
from factdiff.extraction.recognizers.base import lowered
from factdiff.extraction.recognizers.person_cues import find_cued_people


def names(text: str) -> list[str]:
    return [str(m.value.canonical()) for m in find_cued_people(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Transfer to the checking account of Philip.", ["Philip"]),
        ("Please make the transfer to Jasbir and confirm.", ["Jasbir"]),
        ("You are sending Yumi $1,200 from checking.", ["Yumi"]),
        ("user: Send Yumi 80 bucks to their account.", ["Yumi"]),
        ("Please transfer 1,790 bucks to mom today.", ["Mom"]),
        ("Send it to my Mom from savings.", ["Mom"]),
        ("It goes to my uncle Richard.", ["Richard"]),
        ("It will be sent to my friend Yumi.", ["Yumi"]),
        ("A drama directed by harry elfont .", ["Harry Elfont"]),
        ("The album Joytime with Blocks by Marshmello.", ["Marshmello"]),
        ("How about Lotus Flower by Radiohead in the album?", ["Radiohead"]),
        ("Anything starring Missi Pyle?", ["Missi Pyle"]),
        ("Something with Chuck Waters in it.", ["Chuck Waters"]),
        ("Hiroyasu Ishida directed the movie.", ["Hiroyasu Ishida"]),
        ("It costs $6 and barbara crampton is acting in it.", ["Barbara Crampton"]),
        ("Morton Dacosta is the director of that movie.", ["Morton Dacosta"]),
        ("Send $1,790 to Grace 's checking account.", ["Grace"]),
        ("I have also let O'Shea Jackson Jr. know.", ["O'Shea Jackson Jr."]),
        ("Send thirty dollars to Diego. Thanks.", ["Diego"]),
        ("The recipient is Uncle Richard.", ["Uncle Richard"]),
        ("Transfer from savings to checking of Justin of $1,470.", ["Justin"]),
        ("I want something that has Buddy Guy in it.", ["Buddy Guy"]),
        ("I like songs by the artist Lizzo.", ["Lizzo"]),
        ("A movie that stars Byron Webster.", ["Byron Webster"]),
        ("Banjo Odyssey by the Dead South from the album.", ["Dead South"]),
        ("Please watch within 3 days. Brinke Stevens stars.", ["Brinke Stevens"]),
        ("The Star is Tom Hanks.", ["Tom Hanks"]),
        ("user: Stars Brinke Stevens, right?", ["Brinke Stevens"]),
        ("Send it to the savings account belonging to my son Justin.", ["Justin"]),
    ],
)
def test_people_after_or_before_a_cue(text: str, expected: list[str]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I want to go to Denver next week.",
        "Please call Uber for me.",
        "We flew to San Jose.",
        "Can you pay by Visa?",
        "I need it by Friday.",
        "Please let me know.",
        "Is Auntie Mame a good movie?",
        "The hotel is by the beach.",
        "Transfer $300 to savings.",
        "Book 2 tickets to Chicago.",
        "Meet me by the band stand, by the way.",
        "The hotel has 4 stars. Great.",
        "A great 4 star is Hilton Philadelphia At Penn's Landing.",
        "A 5-star is Grand Hyatt Tokyo.",
        "Anything directed by someone else?",
        "The movie Body Double with Mandarin subtitles.",
        "I'll change the payment method to your Visa card ending in 8902.",
        "Play the album A Star is Born Soundtrack.",  # a capitalised credit word: a title
        "Play Stars Dance, her album.",
    ],
)
def test_no_person_without_one(text: str) -> None:
    assert names(text) == []


def test_a_known_name_is_needed_after_a_weak_cue() -> None:
    assert names("Please tell Grace Holm.") == ["Grace Holm"]
    assert names("Please tell Zorblat.") == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["send", "it", "to", "my", "Mom", "account", "of", "Ana", "by", "Song", "Ghost",
             "directed", "with", "in", "starring", "uncle", "Tell", "Grace", "$5", " ", ".",
             "SEND", "Account", "Of"]
        ),
        max_size=12,
    ).map(" ".join)
)  # fmt: skip
def test_the_lower_cased_scan_finds_what_the_folding_one_finds(text: str) -> None:
    folded = [(m.span(), m.groupdict()) for m in person_cues._CUES.finditer(text)]
    plain = [(m.span(), m.groupdict()) for m in person_cues._CUES_LOWER.finditer(lowered(text))]
    assert [span for span, _ in folded] == [span for span, _ in plain]
    if not person_cues._CUE_RUNS.may_occur_in(text):
        assert folded == []
    tried = [m.regs for m in person_cues._cue_matches(text)]
    assert tried == [m.regs for m in person_cues._CUES.finditer(text)]  # only where a cue starts


def test_the_same_names_on_every_run() -> None:
    text = "Send $40 to the account of Philip; directed by Morton DaCosta; let Ana Ruiz know."
    assert names(text) == names(text) == ["Philip", "Morton DaCosta", "Ana Ruiz"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I found a hotel called Hilton Philadelphia At Penn's Landing.", []),
        ("It's called Shine a Light.", []),
        ("I called Omar twice.", ["Omar"]),  # a subject before it: a call
        ("Called Omar this morning.", ["Omar"]),
        ("A 1 star place called Courtyard By Marriott Sacramento.", []),  # "By" in a name
        ("A song by Marshmello.", ["Marshmello"]),
    ],
)
def test_called_names_a_thing_after_a_noun_and_by_inside_a_name_credits_none(
    text: str, expected: list[str]
) -> None:
    assert names(text) == expected
