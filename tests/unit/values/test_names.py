"""People and organisations: values, recognizers, parsers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.organizations import OrganizationRecognizer, parse_organization
from factdiff.extraction.recognizers.people import PersonRecognizer, parse_person
from factdiff.values.base import Value, value_from_json
from factdiff.values.names import HONORIFICS, ROLES, OrganizationValue, PersonValue

CTX = ExtractionContext()


def person(text: str) -> PersonValue:
    value = parse_person(text, CTX)
    assert value is not None
    return value


def people(text: str) -> list[tuple[str, object]]:
    return [
        (text[m.start : m.end], m.value.canonical()) for m in PersonRecognizer().find(text, CTX)
    ]


def orgs(text: str) -> list[tuple[str, object]]:
    matches = OrganizationRecognizer().find(text, CTX)
    return [(text[m.start : m.end], m.value.canonical()) for m in matches]


# --------------------------------------------------------------------------- persons


@pytest.mark.parametrize(
    "text",
    [
        "Marcus Chen",
        "CTO Marcus Chen",
        "Chen, Marcus",
        "Mr. Marcus Chen",
        "marcus chen",
        "MARCUS CHEN",
        "Marcus Chen, CTO",
        "Dr. Marcus Chen (CTO)",
        "Marcus Chen's",
        "Vice President Marcus Chen",
    ],
)
def test_person_variants_share_key_and_canonical(text: str) -> None:
    value = person(text)
    assert value.key() == person("Marcus Chen").key()
    assert value.canonical() == "Marcus Chen"


@pytest.mark.parametrize(
    ("other", "same"),
    [
        ("Chen", True),
        ("Mr. Chen", True),
        ("Marcus J. Chen", True),
        ("M. Chen", True),
        ("Marcus Lee", False),
        ("Mark Chen", False),
        ("Marcus", False),
        ("Lee Chen", False),
        ("Marcus Cheng", False),
        ("Chen Marcus", False),
    ],
)
def test_person_same_as_never_merges_different_names(other: str, same: bool) -> None:
    assert person("Marcus Chen").same_as(person(other)) is same
    assert person(other).same_as(person("Marcus Chen")) is same


def test_person_diacritics_fold() -> None:
    assert person("José García").key() == person("Jose Garcia").key()


def test_person_not_same_as_other_type() -> None:
    assert not person("Acme").same_as(OrganizationValue("Acme"))


def test_parse_person_empty() -> None:
    assert parse_person("   ", CTX) is None
    assert parse_person("CEO", CTX) is None
    assert parse_person("123", CTX) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I spoke with Marcus Chen yesterday.", [("Marcus Chen", "Marcus Chen")]),
        ("Our CTO Marcus Chen approved it.", [("Marcus Chen", "Marcus Chen")]),
        ("Hi, this is Sarah Kim from Acme.", [("Sarah Kim", "Sarah Kim")]),
        ("My name is Chen, Marcus.", [("Chen, Marcus", "Marcus Chen")]),
        ("I'm Priya, calling about my order.", [("Priya", "Priya")]),
        ("Mr. Chen will call on Monday.", [("Chen", "Chen")]),
        ("ask for Dr. Kalpana I. Nathan", [("Kalpana I. Nathan", "Kalpana I. Nathan")]),
        ("a man named Ludwig van Beethoven", [("Ludwig van Beethoven", "Ludwig van Beethoven")]),
        (
            '{"name": {"first_name": "Isabella", "last_name": "Lopez"}}',
            [('Isabella", "last_name": "Lopez', "Isabella Lopez")],
        ),
    ],
)
def test_person_recognizer_finds_cued_names(text: str, expected: list[tuple[str, str]]) -> None:
    assert people(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You'd like an appointment with Carol Weser at 2:45 pm", [("Carol Weser", "Carol Weser")]),
        ("book a consultation with Dr. Ann Lee", [("Ann Lee", "Ann Lee")]),
        ("an appointment with Pamela Culver, Psy at 1 pm", [("Pamela Culver", "Pamela Culver")]),
        ("an appointment with the dentist at 4", []),
        ("an appointment with Bayview Dental Clinic", []),
    ],
)
def test_appointment_with_is_a_person_cue(text: str, expected: list[tuple[str, str]]) -> None:
    assert people(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm Looking for a hotel in the east.",
        "Please contact Customer Support.",
        "She lives at 7 Mount Lassen Dr. Suite 5",
        "Go to 899 Sir Francis Drake Boulevard.",
        "The manager Monday said no.",
        "This is Cambridge.",
        "The hotel name is Central Park West Hostel.",
        "I spoke with Acme Corp about it.",
        "my name is bob",
    ],
)
def test_person_recognizer_precision(text: str) -> None:
    assert people(text) == []


# --------------------------------------------------------------------------- organisations


@pytest.mark.parametrize(
    "text", ["Acme Corp", "Acme Corporation", "ACME Corp.", "Acme", "Acme, Inc.", "The Acme Co."]
)
def test_organization_variants_share_key(text: str) -> None:
    value = parse_organization(text, CTX)
    assert value is not None
    assert value.key() == ("acme",)


def test_organization_keys_differ_for_different_names() -> None:
    assert OrganizationValue("Acme Corp").key() != OrganizationValue("Acme Labs").key()
    assert OrganizationValue("AT&T").key() == OrganizationValue("AT and T").key()
    assert parse_organization(" , ", CTX) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We met Acme Corp. yesterday", [("Acme Corp.", "Acme Corp.")]),
        ("I work at Globex Holdings and Initech, Inc. is our vendor", None),
        ("customer cust_482 (Acme) called", [("Acme", "Acme")]),
        ("our supplier Umbrella called", [("Umbrella", "Umbrella")]),
        ("Yesterday Acme Corp called", [("Acme Corp", "Acme Corp")]),
    ],
)
def test_organization_recognizer(text: str, expected: list[tuple[str, str]] | None) -> None:
    if expected is None:
        expected = [("Globex Holdings", "Globex Holdings"), ("Initech, Inc.", "Initech, Inc.")]
    assert orgs(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I am at Cambridge today.", "customer cust_482 (Marcus Chen)", "the company was founded"],
)
def test_organization_precision(text: str) -> None:
    assert orgs(text) == []


# --------------------------------------------------------------------------- properties

NAME_VALUES = st.one_of(
    st.text(min_size=1).map(PersonValue), st.text(min_size=1).map(OrganizationValue)
)


@given(NAME_VALUES)
def test_json_round_trip(value: Value) -> None:
    assert value_from_json(value.to_json()) == value


@settings(max_examples=200)
@given(st.text())
def test_recognizers_never_raise(text: str) -> None:
    for recognizer in (PersonRecognizer(), OrganizationRecognizer()):
        for match in recognizer.find(text, CTX):
            assert 0 <= match.start < match.end <= len(text)


@given(st.text(), st.text())
def test_same_as_never_raises_and_is_symmetric(a: str, b: str) -> None:
    pa, pb = parse_person(a, CTX), parse_person(b, CTX)
    if pa is not None and pb is not None:
        assert pa.same_as(pb) == pb.same_as(pa)
        assert pa.same_as(pa)
    parse_organization(a, CTX)


NAMES = st.from_regex(r"[A-Z][a-z]{2,8} [A-Z][a-z]{2,8}", fullmatch=True).filter(
    lambda name: not any(w.casefold() in HONORIFICS | ROLES for w in name.split())
)
"""Two-word names, none of whose words is a title or role (``Ceo Ceo`` names no one)."""


@given(NAMES)
def test_person_surface_variants_share_a_key(name: str) -> None:
    first, last = name.split()
    variants = [name, name.lower(), f"{last}, {first}", f"Mr. {name}", f"CEO {name}"]
    assert len({person(v).key() for v in variants}) == 1


def test_large_input_completes() -> None:
    text = ("Hi, this is Sarah Kim from Acme Corp; I spoke with Mr. Chen. " * 17000)[:1_000_000]
    for recognizer in (PersonRecognizer(), OrganizationRecognizer()):
        for _ in recognizer.find(text, CTX):
            pass


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Guest Priya Raman (member ID 88231) called about her stay.", ["Priya Raman"]),
        ("Our guest John Smith arrived late.", ["John Smith"]),
        ("Patient Ana Ruiz is waiting.", ["Ana Ruiz"]),
        ("Guest Services Desk is closed.", []),
        ("Customer Service Team called back.", []),
        ("Patient Zero was never found.", []),
        ("Customer disputes line item 3.", []),
    ],
)
def test_holder_nouns_before_a_full_name(text: str, expected: list[str]) -> None:
    found = [m.value.canonical() for m in PersonRecognizer().find(text, ExtractionContext())]
    assert found == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please send some money to Li.", ["Li"]),
        ("Send 270 bucks to Svetlana from my contacts.", ["Svetlana"]),
        ("So you'd like to send $780 to Li Wei, right?", ["Li Wei"]),
        ("The order was mistakenly sent to Texas.", []),
        ("Send it to London Bridge Station.", []),
    ],
)
def test_recipients_of_money(text: str, expected: list[str]) -> None:
    found = [m.value.canonical() for m in PersonRecognizer().find(text, ExtractionContext())]
    assert found == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The first one is a psychiatrist, Larkin Matt in Los Gatos.", ["Larkin Matt"]),
        ("Try the Family Counselor Leininger Anne in Gilroy.", ["Leininger Anne"]),
        ("Is it a Psychiatrist, Psychologist or something else?", []),
        ("Is it a Psychiatrist, Family Counselor, or something else?", []),
    ],
)
def test_an_occupation_cues_a_name_but_a_compound_role_is_none(
    text: str, expected: list[str]
) -> None:
    assert [found for found, _ in people(text)] == expected
