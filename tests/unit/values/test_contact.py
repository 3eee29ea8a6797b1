"""Identifiers, emails, phones and URLs: values, recognizers, parsers."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.extraction.recognizers.base import ExtractionContext, Recognizer
from factdiff.extraction.recognizers.emails_urls import (
    EmailRecognizer,
    UrlRecognizer,
    parse_email,
    parse_url,
)
from factdiff.extraction.recognizers.identifiers import (
    IdentifierRecognizer,
    find_pattern,
    parse_identifier,
)
from factdiff.extraction.recognizers.phones import PhoneRecognizer, parse_phone
from factdiff.values.base import Value, value_from_json
from factdiff.values.contact import EmailValue, PhoneValue, UrlValue
from factdiff.values.identifier import IdentifierValue

CTX = ExtractionContext()
RECOGNIZERS: list[Recognizer] = [
    IdentifierRecognizer(),
    EmailRecognizer(),
    PhoneRecognizer(),
    UrlRecognizer(),
]


def found(recognizer: object, text: str) -> list[tuple[str, object]]:
    """(matched text, canonical) pairs."""
    matches = recognizer.find(text, CTX)  # type: ignore[attr-defined]
    return [(text[m.start : m.end], m.value.canonical()) for m in matches]


def ids(text: str) -> list[str]:
    return [canonical for _, canonical in found(IdentifierRecognizer(), text)]  # type: ignore[misc]


# --------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    "text",
    [
        "INV-9182",
        "cust_482",
        "CM-3392",
        "#W4923227",
        "credit_card_8897086",
        "YF86GE4J",
        "isabella_lopez_6490",
        "00000013",
        "1008292230",
        "TR8288",
        "w53sqqn6",
    ],
)
def test_identifier_shapes_are_found_exactly(text: str) -> None:
    assert ids(f"Please check {text}, thanks.") == [text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is on line item 3 of the bill", "line item 3"),
        ("about order #123 today", "order 123"),
        ("Ticket 452 is open", "ticket 452"),
        ("we are in room 12", "room 12"),
        ("book table 7 please", "table 7"),
        ("book table #7 please", "table 7"),
        ("go to step 2", "step 2"),
        ("from platform  4", "platform 4"),
        ("order number 55", "order 55"),
        ("Order No. 55 is late", "order 55"),
        ("purchase order 123", "purchase order 123"),
    ],
)
def test_noun_references(text: str, expected: str) -> None:
    assert ids(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Item ID: 2872451762 - Type: Canister", ("2872451762", "2872451762")),
        ("the item 3788616824 is back", ("3788616824", "3788616824")),
        ("I have train ID 2001 leaving at 16:40", ("2001", "2001")),
        ("Ticket 4521 is open", ("4521", "4521")),
        ("see case 88231", ("88231", "88231")),
        ("purchase order 12345", ("12345", "12345")),
        ("the tracking ID 840887978435 for", ("840887978435", "840887978435")),
        ("about order #1234 today", ("#1234", "#1234")),
        ("Product ID 10292", ("10292", "10292")),
    ],
)
def test_long_reference_numbers_stand_alone(text: str, expected: tuple[str, str]) -> None:
    assert found(IdentifierRecognizer(), text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Order 555-0147 shipped.", ["555-0147"]),
        ("see case 2023-1187 today", ["2023-1187"]),
        ("Call about order 555-0147.", ["555-0147"]),
        ("Rooms 12-14 are free.", []),  # a range after a position noun
        ("order 10-12 items please", []),  # a count
        ("Marco Bianchi (acct 4471-220) called", ["4471-220"]),
        ("Agent escalated case 88213 to tier 2", ["88213"]),
        ("rooms 5 to 7 are free", []),  # a range
    ],
)
def test_dash_joined_digit_groups_after_a_strict_reference_noun(
    text: str, expected: list[str]
) -> None:
    assert ids(text) == expected


def test_keyword_prefixed_id_and_json_id_share_a_key() -> None:
    prose = found(IdentifierRecognizer(), "Robotic vacuum (Item ID: 6259501109)")
    json = found(IdentifierRecognizer(), '{"item_ids": ["6259501109"]}')
    assert prose == json == [("6259501109", "6259501109")]
    assert parse_identifier("item ID 6259501109", CTX) == IdentifierValue("6259501109")
    assert parse_identifier("Order #12", CTX) == IdentifierValue("order 12")


def test_marker_variants_of_a_short_reference_share_a_key() -> None:
    variants = ["order #12", "Order number 12", "order no. 12", "order No 12", "ORDER # 12"]
    assert {tuple(ids(f"see {v} today")) for v in variants} == {("order 12",)}


def test_long_reference_that_is_a_phone_is_left_to_phones() -> None:
    text = "I booked a red bmw , contract number 07878470690 . Anything else?"
    assert ids(text) == []
    assert found(PhoneRecognizer(), text) == [("07878470690", "+447878470690")]


def test_unknown_noun_with_number_marker_is_not_a_reference() -> None:
    assert ids("the number 2019 and phone number 5555 and lucky no. 7777") == []


@pytest.mark.parametrize(
    "text",
    [
        "the apartment 5 Mar 2019 viewing",
        "room 4 march 3rd",
        "meet at table 7 pm",
        "apartment 12 September 2020",
    ],
)
def test_a_date_or_time_after_the_number_is_not_a_reference(text: str) -> None:
    assert ids(text) == []


def test_room_may_still_a_reference() -> None:
    assert ids("room 5 may be free") == ["room 5"]


@pytest.mark.parametrize(
    "text",
    [
        "on 2026-03-14 at 14:32",
        "it costs $14,250 in total",
        "call 408-247-8880 now",
        "there were 12 people and 15000 attendees",
        "the 3rd and the 25th",
        "lift 10kg at 5pm, 2x a day",
        "I'd like to order 2 coffees",
        "a 4 bed room 3 bath house",
        "a 3-bedroom flat with covid-19 rules",
        "fill in address1 and address2",
        "build at 3.14.15 and pi 3.14159265",
        "hello world, nothing to see here",
        "mail isabella.lopez3271@example.com",
        "see https://example.com/orders/AB12345 for details",
    ],
)
def test_identifier_exclusions(text: str) -> None:
    assert ids(text) == []


def test_release_versions_are_identifiers_however_written() -> None:
    text = "Deployed v2.4.0, version 2.4.1, release 3.1 and v1.2.0-rc.1 on Python 3.11."
    assert ids(text) == ["v2.4.0", "v2.4.1", "v3.1", "v1.2.0-rc.1"]
    assert ids("Rolled back to V2.3.1.") == ["v2.3.1"]
    bare = "Re-released 4.2.1; met 12.03.24 at 10.30.45 on 10.0.0.1 with 5.0.12 and 1.14.12."
    assert ids(bare) == ["v4.2.1", "v5.0.12"]  # 12.03.24, 1.14.12: dates; 10.30.45: a time


def test_reference_code_after_cue_without_digit() -> None:
    assert ids("Reference number is : ZVHHCNYU .") == ["ZVHHCNYU"]
    assert ids("REFUND12 is a code") == ["REFUND12"]
    assert ids("Your confirmation code is    LBUYUJOK .") == ["LBUYUJOK"]
    assert ids("The reference number is now QHYYACDV .") == ["QHYYACDV"]
    assert ids("The reservation number is LERUQAPY .") == ["LERUQAPY"]


@pytest.mark.parametrize(
    "text",
    [
        "Your reference number is\nSYSTEM: ok",
        "the booking reference: SYSTEM error",
        "ref #\nASSISTANT: hi",
        "Reference: PENDING",
        "reference ABCDEF: next",
    ],
)
def test_speaker_labels_and_caps_words_after_a_cue_are_not_codes(text: str) -> None:
    assert ids(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Refund to the Visa card ending in 4421.",
        "Charged to Visa ****4421 today.",
        "Amex x4421",
        "the card on file (...4421)",
        "Last four digits: 4421.",
        "Your account ending 4421 is closed.",
    ],
)
def test_a_cards_last_four_digits_are_one_identifier_however_written(text: str) -> None:
    assert ids(text) == ["ending 4421"]


@pytest.mark.parametrize(
    "text", ["The meeting ended in 2024.", "The trial ends in 2026.", "Sales are up ...2024."]
)
def test_an_ending_without_a_card_is_no_card(text: str) -> None:
    assert "ending" not in " ".join(ids(text))


def test_bare_uk_phone_is_not_an_identifier() -> None:
    text = "Their number is 01223356354 and the ref is 00000013."
    assert ids(text) == ["00000013"]


def test_identifiers_are_exact() -> None:
    assert IdentifierValue("INV-9182").key() != IdentifierValue("inv-9182").key()
    assert IdentifierValue("#W4923227") != IdentifierValue("W4923227")


def test_parse_identifier() -> None:
    assert parse_identifier("  INV-9182 ", CTX) == IdentifierValue("INV-9182")
    assert parse_identifier("Room  12", CTX) == IdentifierValue("room 12")
    assert parse_identifier("   ", CTX) is None
    assert parse_identifier("--", CTX) is None


def test_find_pattern_respects_word_boundaries() -> None:
    pattern = re.compile(r"cust_\d+")
    text = "cust_482 and xcust_9 and cust_77b and (cust_1)"
    assert [text[m.start : m.end] for m in find_pattern(text, pattern)] == ["cust_482", "cust_1"]
    rec = IdentifierRecognizer.with_pattern(pattern)
    assert [m.value for m in rec.find(text, CTX)] == [
        IdentifierValue("cust_482"),
        IdentifierValue("cust_1"),
    ]


# --------------------------------------------------------------------------- emails


def test_email_recognizer_and_normalisation() -> None:
    text = "Write to Isabella.Lopez3271@Example.COM. Or <ops@acme.co.uk>, not a@b or x@y."
    assert found(EmailRecognizer(), text) == [
        ("Isabella.Lopez3271@Example.COM", "isabella.lopez3271@example.com"),
        ("ops@acme.co.uk", "ops@acme.co.uk"),
    ]


def test_parse_email() -> None:
    assert parse_email("mailto:Bob@Acme.com", CTX) == EmailValue("bob@acme.com")
    assert parse_email("BOB@acme.com", CTX) == parse_email("bob@ACME.com", CTX)
    assert parse_email("not an email", CTX) is None
    assert parse_email("a..b@acme.com", CTX) is None
    assert parse_email("bob@acme", CTX) is None


# --------------------------------------------------------------------------- phones


@pytest.mark.parametrize(
    "text", ["408-247-8880", "(408) 247 8880", "+1 408 247 8880", "408.247.8880", "tel:4082478880"]
)
def test_us_phone_variants_are_equal(text: str) -> None:
    assert parse_phone(text, CTX) == PhoneValue("+14082478880")


def test_uk_national_numbers_fall_back_to_gb() -> None:
    expected = PhoneValue("+441223356354")
    for text in ["01223356354", "01223 356354", "+44 1223 356354"]:
        assert parse_phone(text, CTX) == expected


def test_unparseable_phone_keeps_digits() -> None:
    assert parse_phone("555-1234", CTX) == PhoneValue("digits:5551234")
    assert parse_phone("call me", CTX) is None
    assert parse_phone("12", CTX) is None


def test_phone_recognizer_shapes() -> None:
    text = (
        "Call (408) 247 8880 or +1 408-247-8881. UK: 01223 356354, phone 01223356355. "
        "Paris +33 1 84 82 49 09."
    )
    assert [c for _, c in found(PhoneRecognizer(), text)] == [
        "+14082478880",
        "+14082478881",
        "+441223356354",
        "+441223356355",
        "+33184824909",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "on 2026-03-14 at 14:32",
        "it costs $14,250.00",
        "order number 4082478880",
        "product_id 1008292230",
        "the item 6117189161 costs 481.5",
        "INV-4082478880",
        "between 10-20 people",
        "reference 408-2478",
    ],
)
def test_phone_exclusions(text: str) -> None:
    assert found(PhoneRecognizer(), text) == []


def test_an_id_noun_that_does_not_name_the_number_leaves_the_phone_cue_before_it() -> None:
    assert found(PhoneRecognizer(), "call customer at 555-0147 after 6 pm") == [
        ("555-0147", "digits:5550147")
    ]
    assert found(PhoneRecognizer(), "call about order 555-0147") == []
    assert found(PhoneRecognizer(), 'Smartphone", "item_id": "9929635042"') == []


def test_bare_ten_digits_need_phone_context() -> None:
    assert found(PhoneRecognizer(), "their phone number is 4082478880") == [
        ("4082478880", "+14082478880")
    ]
    assert found(PhoneRecognizer(), "item 4082478880 shipped") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call 07683 609856 now", ("07683 609856", "+447683609856")),
        ("the contact number is 07642970234 .", ("07642970234", "+447642970234")),
        ("their phone number is 1793 414926", ("1793 414926", "+11793414926")),
        ("phone: 00872 208000", ("00872 208000", "digits:00872208000")),
        ("mobile +44 7642 970234", ("+44 7642 970234", "+447642970234")),
        ("try contacting them at 1 40 62 05 00.", ("1 40 62 05 00", "digits:140620500")),
        ("Visit is scheduled.408-265-4808 is the phone", ("408-265-4808", "+14082654808")),
    ],
)
def test_grouped_numbers_after_a_phone_cue(text: str, expected: tuple[str, str]) -> None:
    assert found(PhoneRecognizer(), text) == [expected]


def test_spaced_and_international_forms_of_a_mobile_share_a_key() -> None:
    forms = ["07642970234", "07642 970234", "+44 7642 970234", "+447642970234"]
    keys = {m.value.key() for f in forms for m in PhoneRecognizer().find(f"call {f}", CTX)}
    assert keys == {"+447642970234"}


@pytest.mark.parametrize(
    "text",
    [
        "07683 609856 was the score",
        "call on 10 30 2019",
        "the order number is 1234 5678 90",
        "phone them about the 2 000 000 budget",
        "pi is 3.408-265-4808",
    ],
)
def test_grouped_numbers_need_a_phone_cue(text: str) -> None:
    assert found(PhoneRecognizer(), text) == []


def test_grouped_number_does_not_swallow_a_valid_phone() -> None:
    assert found(PhoneRecognizer(), "phone 01223 575314 22 people") == [
        ("01223 575314", "+441223575314")
    ]


# --------------------------------------------------------------------------- urls


def test_url_recognizer_strips_trailing_punctuation() -> None:
    text = "See HTTPS://Example.COM:443/Pay/?a=1, or (www.acme.com/docs/). Done."
    assert found(UrlRecognizer(), text) == [
        ("HTTPS://Example.COM:443/Pay/?a=1", "https://example.com/Pay?a=1"),
        ("www.acme.com/docs/", "www.acme.com/docs"),
    ]


def test_url_key_ignores_scheme() -> None:
    a = parse_url("https://www.acme.com/pay/", CTX)
    b = parse_url("www.acme.com/pay", CTX)
    c = parse_url("http://WWW.ACME.com:80/pay", CTX)
    assert a is not None
    assert b is not None
    assert c is not None
    assert a.key() == b.key() == c.key()
    assert a.canonical() == "https://www.acme.com/pay"
    assert parse_url("https://acme.com/Pay", CTX) != parse_url("https://acme.com/pay", CTX)


def test_parse_url_rejects_non_urls() -> None:
    assert parse_url("ftp://acme.com", CTX) is None
    assert parse_url("acme dot com", CTX) is None
    assert parse_url("http://[::1", CTX) is None
    assert parse_url("https://a:99999/x", CTX) is None


# --------------------------------------------------------------------------- properties

VALUES = st.one_of(
    st.text(min_size=1).map(IdentifierValue),
    st.text(min_size=1).map(EmailValue),
    st.text(min_size=1).map(PhoneValue),
    st.text(min_size=1).map(UrlValue),
)


@given(VALUES)
def test_json_round_trip(value: Value) -> None:
    assert value_from_json(value.to_json()) == value


@settings(max_examples=200)
@given(st.text())
def test_recognizers_never_raise_and_spans_are_valid(text: str) -> None:
    for recognizer in RECOGNIZERS:
        for match in recognizer.find(text, CTX):
            assert 0 <= match.start < match.end <= len(text)
            assert value_from_json(match.value.to_json()) == match.value


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    for parse in (parse_identifier, parse_email, parse_phone, parse_url):
        parse(text, CTX)


@given(st.from_regex(r"[2-9][0-8][0-9][2-9][0-9]{6}", fullmatch=True))
def test_phone_surface_variants_share_a_key(digits: str) -> None:
    a, b, c = digits[:3], digits[3:6], digits[6:]
    variants = [f"{a}-{b}-{c}", f"({a}) {b} {c}", f"+1 {a} {b} {c}", f"{a}.{b}.{c}"]
    keys = {v.key() for v in (parse_phone(t, CTX) for t in variants) if v is not None}
    assert len(keys) == 1


@given(st.from_regex(r"[a-z0-9]{1,10}@[a-z]{1,10}\.(com|org|io)", fullmatch=True))
def test_email_case_variants_share_a_key(address: str) -> None:
    lower, upper = parse_email(address, CTX), parse_email(address.upper(), CTX)
    assert lower is not None
    assert upper is not None
    assert lower.key() == upper.key()


def test_large_input_completes() -> None:
    text = ("Order #W4923227 for cust_482, call 408-247-8880 or mail a@b.co. " * 16000)[:1_000_000]
    for recognizer in RECOGNIZERS:
        for _ in recognizer.find(text, CTX):
            pass
