"""Unit tests for numbers, money, percentages and quantities (factdiff.values.numeric)."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factdiff.errors import InvalidValue
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.money import MoneyRecognizer, parse_money
from factdiff.extraction.recognizers.number_words import parse_number_words
from factdiff.extraction.recognizers.numbers import (
    NumberRecognizer,
    detect_decimal_comma,
    parse_number,
)
from factdiff.extraction.recognizers.quantities import (
    PercentRecognizer,
    QuantityRecognizer,
    parse_percent,
    parse_quantity,
)
from factdiff.values.base import Tolerance, Value, value_from_json
from factdiff.values.numeric import MoneyValue, NumberValue, PercentValue, QuantityValue

CTX = ExtractionContext()
COMMA = ExtractionContext(decimal_comma=True, default_currency="EUR")
RECOGNIZERS = (MoneyRecognizer(), PercentRecognizer(), QuantityRecognizer(), NumberRecognizer())


def found(recognizer: object, text: str, ctx: ExtractionContext = CTX) -> list[tuple[str, str]]:
    """(matched text, canonical value) for every match."""
    assert hasattr(recognizer, "find")
    return [(text[m.start : m.end], str(m.value.canonical())) for m in recognizer.find(text, ctx)]


# --------------------------------------------------------------------------- values


def test_canonical_forms() -> None:
    assert NumberValue(Decimal("3350.00")).canonical() == "3350"
    assert NumberValue(Decimal("3.50")).canonical() == "3.5"
    assert NumberValue(Decimal("-2400")).canonical() == "-2400"
    assert NumberValue(Decimal("-0.0")).canonical() == "0"
    assert NumberValue(Decimal("1.5E+6")).canonical() == "1500000"
    assert MoneyValue(Decimal("14250.00"), "USD").canonical() == "14250 USD"
    assert PercentValue(Decimal("15.0")).canonical() == "15%"
    assert QuantityValue(Decimal(2), "person").canonical() == "2 person"
    assert QuantityValue(Decimal(1), "km").canonical() == "1000 m"
    assert QuantityValue(Decimal(2), "kilograms").canonical() == "2000 g"
    assert QuantityValue(Decimal("1.5"), "l").canonical() == "1500 ml"
    assert QuantityValue(Decimal(5), "mi").canonical() == "5 mi"


def test_keys_and_same_as() -> None:
    assert NumberValue(Decimal("2400.0")).key() == NumberValue(Decimal(2400)).key()
    assert QuantityValue(Decimal(1), "km").key() == QuantityValue(Decimal(1000), "m").key()
    assert QuantityValue(Decimal(2), "people").key() == QuantityValue(Decimal(2), "person").key()
    usd = MoneyValue(Decimal("100"), "USD")
    assert usd.same_as(MoneyValue(Decimal("100.00"), "USD"))
    assert not usd.same_as(MoneyValue(Decimal("100"), "EUR"))
    assert not usd.same_as(MoneyValue(Decimal("100.5"), "USD"))
    assert usd.same_as(MoneyValue(Decimal("100.5"), "USD"), Tolerance(absolute=Decimal(1)))
    assert usd.same_as(MoneyValue(Decimal("101"), "USD"), Tolerance(relative=Decimal("0.01")))
    assert not usd.same_as(NumberValue(Decimal(100)))
    assert not NumberValue(Decimal(15)).same_as(PercentValue(Decimal(15)))
    assert PercentValue(Decimal(15)).same_as(PercentValue(Decimal("15.4")), Tolerance(Decimal(1)))
    km = QuantityValue(Decimal("1.2"), "km")
    assert km.same_as(QuantityValue(Decimal(1200), "m"))
    assert not km.same_as(QuantityValue(Decimal("1.2"), "kg"))


def test_invalid_values_are_rejected() -> None:
    with pytest.raises(ValueError, match="finite"):
        NumberValue(Decimal("NaN"))
    with pytest.raises(ValueError, match="ISO 4217"):
        MoneyValue(Decimal(1), "dollars")
    with pytest.raises(ValueError, match="unit"):
        QuantityValue(Decimal(1), " ")
    with pytest.raises(ValueError, match="amount"):
        value_from_json({"type": "number", "amount": "x"})


def test_json_is_tagged_and_round_trips() -> None:
    money = MoneyValue(Decimal("14250.00"), "USD")
    assert money.to_json() == {"type": "money", "amount": "14250.00", "currency": "USD"}
    for value in (
        money,
        NumberValue(Decimal("-3.5")),
        PercentValue(Decimal("12.5")),
        QuantityValue(Decimal(2), "kg"),
    ):
        again = value_from_json(value.to_json())
        assert again == value
        assert again.canonical() == value.canonical()


# --------------------------------------------------------------------------- number words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("zero", 0),
        ("two", 2),
        ("Twelve", 12),
        ("twenty-five", 25),
        ("twenty five", 25),
        ("a hundred", 100),
        ("one hundred and five", 105),
        ("one thousand two hundred", 1200),
        ("fourteen thousand two hundred fifty", 14250),
        ("twenty five hundred", 2500),
        ("a thousand and one", 1001),
        ("three million four hundred thousand", 3400000),
        ("a dozen", 12),
        ("two dozen", 24),
        ("nine hundred ninety-nine thousand nine hundred ninety-nine", 999999),
    ],
)
def test_number_words(text: str, expected: int) -> None:
    assert parse_number_words(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "one two", "hundred", "and", "two and", "a", "a five", "thousand million", "one one"],
)
def test_not_number_words(text: str) -> None:
    assert parse_number_words(text) is None


_ONES = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
)
_TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def _spell_below_1000(n: int, hyphen: bool) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_ONES[hundreds], "hundred"]
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        if ones and hyphen:
            words.append(f"{_TENS_WORDS[tens - 2]}-{_ONES[ones]}")
        else:
            words += [_TENS_WORDS[tens - 2]] + ([_ONES[ones]] if ones else [])
    elif rest:
        words.append(_ONES[rest])
    return words


def _spell(n: int, hyphen: bool) -> str:
    if n == 0:
        return "zero"
    thousands, rest = divmod(n, 1000)
    words = [*_spell_below_1000(thousands, hyphen), "thousand"] if thousands else []
    return " ".join(words + _spell_below_1000(rest, hyphen))


@given(st.integers(min_value=0, max_value=999_999), st.booleans())
def test_spelled_numbers_parse_back(n: int, hyphen: bool) -> None:
    assert parse_number_words(_spell(n, hyphen)) == n


# --------------------------------------------------------------------------- decimal separators


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Der Preis ist 1.234,56 € inkl.", True),
        ("Kosten: 3,50 € pro Stück", True),
        ("12,5 % Rabatt", True),
        ("€3,50", True),
        ("I paid $3.50 for 3,500 items", False),
        ("items 1,2,3 and 3.350 people", False),
        ("1,234.56 USD and 3,50 €", False),
        ("", False),
    ],
)
def test_detect_decimal_comma(text: str, expected: bool) -> None:
    assert detect_decimal_comma(text) is expected


def test_separator_convention_is_per_context() -> None:
    assert parse_number("3.350", CTX) == NumberValue(Decimal("3.35"))
    assert parse_number("3.350", COMMA) == NumberValue(Decimal(3350))
    assert parse_number("1.234,56", COMMA) == NumberValue(Decimal("1234.56"))
    assert parse_number("1,234.56", CTX) == NumberValue(Decimal("1234.56"))
    assert parse_number("54.04", COMMA) == NumberValue(Decimal("54.04"))  # cannot be grouping
    assert parse_number("3,50", CTX) is None  # never a decimal comma by default
    assert found(NumberRecognizer(), "3,50 and 3.350", CTX) == [("3.350", "3.35")]
    assert found(MoneyRecognizer(), "Preis: 3,50 € oder 1.234,56 EUR", COMMA) == [
        ("3,50 €", "3.5 EUR"),
        ("1.234,56 EUR", "1234.56 EUR"),
    ]


# --------------------------------------------------------------------------- parsers


def test_parse_number() -> None:
    for text, expected in [
        ("-2400", "-2400"),
        ("2400.0", "2400"),
        ("1e3", "1000"),
        (" 3,350 ", "3350"),
        ("1.5 million", "1500000"),
        ("twenty-five", "25"),
        ("seven", "7"),
    ]:
        value = parse_number(text, CTX)
        assert value is not None
        assert value.canonical() == expected
    for text in ("", "abc", "$5", "5%", "1.2.3", "1e999", "two three"):
        assert parse_number(text, CTX) is None


MONEY_14250 = [
    "$14,250",
    "14,250 USD",
    "USD 14250.00",
    "USD14250",
    "$14.25k",
    "$14.25K",
    "14.25 thousand dollars",
    "fourteen thousand two hundred fifty dollars",
    "14250 bucks",
    "US$14,250",
]


@pytest.mark.parametrize("text", MONEY_14250)
def test_money_variants_are_equal(text: str) -> None:
    value = parse_money(text, CTX)
    assert value is not None
    assert value.key() == ("14250", "USD")
    assert value.canonical() == "14250 USD"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-$2,400", "-2400 USD"),
        ("$-2,400", "-2400 USD"),
        ("($2,400)", "-2400 USD"),
        ("-2400 USD", "-2400 USD"),
        ("(2,400 EUR)", "-2400 EUR"),
        ("£10.50", "10.5 GBP"),
        ("10.50 pounds", "10.5 GBP"),
        ("€5", "5 EUR"),
        ("5 euros", "5 EUR"),
        ("¥500", "500 JPY"),
        ("$1.2bn", "1200000000 USD"),
        ("$3m", "3000000 USD"),
        ("50 cents", "0.5 USD"),
        ("a hundred bucks", "100 USD"),
        ("54.04", "54.04 USD"),  # a bare number in a money field: the default currency
    ],
)
def test_parse_money(text: str, expected: str) -> None:
    value = parse_money(text, CTX)
    assert value is not None
    assert value.canonical() == expected


def test_parse_money_default_currency_and_rejects() -> None:
    cad = ExtractionContext(default_currency="CAD")
    assert parse_money("$5", cad) == MoneyValue(Decimal(5), "CAD")
    assert parse_money("5 dollars", cad) == MoneyValue(Decimal(5), "CAD")
    for text in ("", "15%", "2 kg", "five pounds of flour", "dollars"):
        assert parse_money(text, CTX) is None
    bad = ExtractionContext(default_currency="dollar")
    assert parse_money("$5", bad) is None  # never raises on a bad context
    assert parse_money("5 EUR", bad) == MoneyValue(Decimal(5), "EUR")
    assert found(MoneyRecognizer(), '$5, 6 EUR, "price": 7}', bad) == [("6 EUR", "6 EUR")]


def test_parse_percent() -> None:
    for text in ("15%", "15 %", "15 percent", "15 per cent", "fifteen percent", "15.0%"):
        assert parse_percent(text, CTX) == PercentValue(Decimal(15)), text
    assert parse_percent("12,5 %", COMMA) == PercentValue(Decimal("12.5"))
    for text in ("15", "0.15", "15 points", ""):
        assert parse_percent(text, CTX) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 kg", "2000 g"),
        ("2 kilograms", "2000 g"),
        ("2000g", "2000 g"),
        ("1 km", "1000 m"),
        ("1000 m", "1000 m"),
        ("750ml", "750 ml"),
        ("2 people", "2 person"),
        ("two persons", "2 person"),
        ("3 guests", "3 person"),
        ("4-star", "4 star"),
        ("three nights", "3 night"),
        ("2 adult tickets", "2 ticket"),
        ("12 oz", "12 oz"),
        ("10 miles", "10 mi"),
    ],
)
def test_parse_quantity(text: str, expected: str) -> None:
    value = parse_quantity(text, CTX)
    assert value is not None
    assert value.canonical() == expected


def test_parse_quantity_rejects() -> None:
    for text in ("3 hours", "2 days", "5 pounds", "2 G", "2", "kg", "5 guest"):
        assert parse_quantity(text, CTX) is None, text


# --------------------------------------------------------------------------- recognizers


def test_money_recognizer_in_prose() -> None:
    text = (
        "Refund $14,250 to card; the fee ($25) stays. Balance: ($2,400). "
        "Train ticket is 17.60 pounds, hotel GBP 120."
    )
    assert found(MoneyRecognizer(), text) == [
        ("$14,250", "14250 USD"),
        ("$25", "25 USD"),  # a parenthetical aside, not a ledger negative
        ("($2,400)", "-2400 USD"),
        ("17.60 pounds", "17.6 GBP"),
        ("GBP 120", "120 GBP"),
    ]


def test_money_list_dash_is_not_a_minus() -> None:
    assert found(MoneyRecognizer(), "- Crew Neck - $53.27\nTotal: -$5") == [
        ("$53.27", "53.27 USD"),
        ("-$5", "-5 USD"),
    ]


@pytest.mark.parametrize(
    "text",
    ["Items:\n- $50.88\n- $12", "  - $50.88", "-\t$50.88", "* $50.88", "- USD 50.88"],
)
def test_markdown_list_dashes_are_not_minus_signs(text: str) -> None:
    assert all(not c.startswith("-") for _, c in found(MoneyRecognizer(), text))


def test_currency_marked_count_is_money_not_quantity() -> None:
    text = "That's an $81 ticket, or a £90 room, or 2 tickets."
    assert found(MoneyRecognizer(), text) == [("$81", "81 USD"), ("£90", "90 GBP")]
    assert found(QuantityRecognizer(), text) == [("2 tickets", "2 ticket")]


@pytest.mark.parametrize(
    ("text", "money", "quantity"),
    [
        ("2050 USD 1 bed", ("2050 USD", "2050 USD"), ("1 bed", "1 bed")),
        ("1,200.50 EUR 2 rooms", ("1,200.50 EUR", "1200.5 EUR"), ("2 rooms", "2 room")),
        ("two thousand USD 3 nights", ("two thousand USD", "2000 USD"), ("3 nights", "3 night")),
    ],
)
def test_code_between_numbers_belongs_to_the_first(
    text: str, money: tuple[str, str], quantity: tuple[str, str]
) -> None:
    assert found(MoneyRecognizer(), text) == [money]
    assert found(QuantityRecognizer(), text) == [quantity]
    assert found(MoneyRecognizer(), "EUR 5 then USD 6") == [("EUR 5", "5 EUR"), ("USD 6", "6 USD")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The fee is 150.19 .", "150.19 USD"),
        ("The cost is 16.5 and payable at the station", "16.5 USD"),
        ("it costs 16.5", "16.5 USD"),
        ("a total of 600.79 is payable", "600.79 USD"),
        ("The cost for the ticket is 14.08 and", "14.08 USD"),
        ("Entrance fee: 5", "5 USD"),
        ("the price is only 20", "20 USD"),
        ("the fare will be 12.50", "12.5 USD"),
        ("You will be paying 35.20 at the station", "35.2 USD"),
        ("The balance on account 88-1102 is 1250.00 today", "1250 USD"),
    ],
)
def test_bare_amount_after_a_price_cue_is_default_currency_money(text: str, expected: str) -> None:
    assert [c for _, c in found(MoneyRecognizer(), text)] == [expected]
    assert [c for _, c in found(MoneyRecognizer(), text, COMMA)] == [expected.replace("USD", "EUR")]


@pytest.mark.parametrize(
    "text",
    [
        "a total of 5 hotels",
        "The total is 3.",
        "the entrance fee of the first 3 on the list",
        "the price range is 3",
        "the cost is 12:30",
        "Clare College is 2.50",
        "fees 0123456",
        "costs 2 nights",
        "I paid 3 times",
    ],
)
def test_bare_numbers_without_a_price_cue_are_not_money(text: str) -> None:
    assert found(MoneyRecognizer(), text) == []


def test_price_cue_amount_is_symmetric_with_explicit_default_currency() -> None:
    bare = parse_money("150.19", CTX)
    cued = [m.value for m in MoneyRecognizer().find("The fee is 150.19", CTX)]
    marked = [m.value for m in MoneyRecognizer().find("The fee is $150.19", CTX)]
    assert bare is not None
    assert cued == marked == [bare]


def test_money_in_json_and_keyword_arguments() -> None:
    text = (
        '{"price": 54.04, "item_id": "7751905257", "total_amount": 1000, '
        '"quantity": 2, "price_range": "cheap", "balance": 60}  refund(amount=12.5)'
    )
    assert found(MoneyRecognizer(), text) == [
        ("54.04", "54.04 USD"),
        ("1000", "1000 USD"),
        ("60", "60 USD"),
        ("12.5", "12.5 USD"),
    ]


def test_money_pounds_of_is_weight() -> None:
    text = "5 pounds of coffee cost 10 pounds"
    assert found(MoneyRecognizer(), text) == [("10 pounds", "10 GBP")]
    assert found(QuantityRecognizer(), text) == [("5 pounds", "5 lb")]


def test_adjacent_amounts_stay_separate() -> None:
    assert found(MoneyRecognizer(), "$5 $6, 5 USD 6 EUR") == [
        ("$5", "5 USD"),
        ("$6", "6 USD"),
        ("5 USD", "5 USD"),
        ("6 EUR", "6 EUR"),
    ]


def test_percent_recognizer() -> None:
    text = "a 2% milk latte, 15 percent off, fifteen per cent tip, a 23 percent chance"
    assert found(PercentRecognizer(), text) == [
        ("2%", "2% (milk latte)"),
        ("15 percent", "15%"),
        ("fifteen per cent", "15%"),
        ("23 percent", "23% (chance)"),
    ]


def test_quantity_recognizer() -> None:
    text = (
        "Book 4 people for 3 nights at a 4-star hotel, two rooms; 5 guest houses; "
        "it takes 3 hours; 2 G Cambridge Park; 12 oz. mocha; run 10 km"
    )
    assert found(QuantityRecognizer(), text) == [
        ("4 people", "4 person"),
        ("3 nights", "3 night"),
        ("4-star", "4 star"),
        ("two rooms", "2 room"),
        ("12 oz", "12 oz"),
        ("10 km", "10000 m"),
    ]


def test_number_recognizer_skips_identifiers() -> None:
    text = (
        "INV-9182 cust_482 W4923227 #W4923227 order#12 +1 555 call 408-363-4418 "
        'AZ 85034 "85034" at 14:45 on 03/25 the 3rd 10am v1.2.3 4768869376 007 x2'
    )
    assert found(NumberRecognizer(), text) == [("555", "555")]


def test_number_recognizer_plain_numbers() -> None:
    text = "There are 63 trains, 7,686.21 in savings, -2400 owed and 1.5 million fans in 2019."
    assert found(NumberRecognizer(), text) == [
        ("63", "63"),
        ("7,686.21", "7686.21"),
        ("-2400", "-2400"),
        ("1.5 million", "1500000"),
        ("2019", "2019"),
    ]


def test_number_words_need_a_numeric_context() -> None:
    text = (
        "The one I want. One of a kind. Two people and four of us, three more tickets, "
        "twenty-five, a hundred bucks, a dozen eggs, one hundred and five, someone, "
        "a twenty-five-year-old"
    )
    assert found(NumberRecognizer(), text) == [
        ("Two", "2"),
        ("four", "4"),
        ("three", "3"),
        ("twenty-five", "25"),
        ("a hundred", "100"),
        ("one hundred and five", "105"),
    ]


def test_recognizers_have_fact_types_and_no_self_overlap() -> None:
    text = "$5 $6 5% 2 kg 3 4 five people ($1) 10 pounds USD 7 8 EUR"
    for recognizer in RECOGNIZERS:
        assert recognizer.fact_type.value in {"money", "percent", "quantity", "number"}
        matches = list(recognizer.find(text, CTX))
        for before, after in itertools.pairwise(matches):
            assert before.end <= after.start


def test_large_text_completes() -> None:
    unit = (
        "I booked 5 tickets for $45.50 and two people, 15% off, 2 kg. "
        'tool: {"price": 54.04, "item_id": "7751905257"} the one I want. '
    )
    text = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
    for recognizer in RECOGNIZERS:
        list(recognizer.find(text + " ", CTX))  # a fresh string: no shared scan cache
    for pathological in ("1" * 1_000_000, " " * 1_000_000, "$" * 1_000_000, "one-" * 250_000):
        for recognizer in RECOGNIZERS:
            list(recognizer.find(pathological, CTX))


# --------------------------------------------------------------------------- properties


def _exercise_everything(text: str, comma: bool) -> None:
    ctx = ExtractionContext(decimal_comma=comma)
    detect_decimal_comma(text)
    for recognizer in RECOGNIZERS:
        for match in recognizer.find(text, ctx):
            assert 0 <= match.start < match.end <= len(text)
            assert match.value.type == recognizer.fact_type
    for parse in (parse_number, parse_money, parse_percent, parse_quantity):
        parse(text, ctx)


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=300), st.booleans())
def test_never_crashes_on_arbitrary_text(text: str, comma: bool) -> None:
    _exercise_everything(text, comma)


numeric_text = st.text(alphabet="0123456789 .,-$€£%()kKmM:/#_abcdefghijklmnoprstuy", max_size=80)


@settings(deadline=None, max_examples=300)
@given(numeric_text, st.booleans())
def test_never_crashes_on_numeric_noise(text: str, comma: bool) -> None:
    _exercise_everything(text, comma)


amounts = st.decimals(
    min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, places=4
)
values: st.SearchStrategy[Value] = st.one_of(
    amounts.map(NumberValue),
    amounts.map(PercentValue),
    st.builds(MoneyValue, amounts, st.sampled_from(["USD", "EUR", "GBP", "JPY"])),
    st.builds(QuantityValue, amounts, st.sampled_from(["kg", "km", "person", "mi", "oz"])),
)


@given(values)
def test_json_round_trip(value: Value) -> None:
    again = value_from_json(value.to_json())
    assert again == value
    assert again.key() == value.key()


@given(st.decimals(min_value=0, max_value=Decimal("1e9"), places=2))
def test_money_surface_variants_share_a_key(amount: Decimal) -> None:
    grouped = f"{amount:,.2f}"
    plain = f"{amount:.2f}"
    variants = [f"${grouped}", f"{grouped} USD", f"USD {plain}", f"{plain} dollars"]
    keys = {parse_money(v, CTX).key() for v in variants}  # type: ignore[union-attr]
    assert keys == {MoneyValue(amount, "USD").key()}
    europe = f"{grouped.replace(',', ' ').replace('.', ',').replace(' ', '.')} €"
    assert parse_money(europe, COMMA) == MoneyValue(amount, "EUR")


@given(st.decimals(min_value=0, max_value=Decimal(10**6), places=3))
def test_metric_variants_share_a_key(amount: Decimal) -> None:
    kg = parse_quantity(f"{amount} kg", CTX)
    grams = parse_quantity(f"{amount * 1000} g", CTX)
    assert kg is not None
    assert grams is not None
    assert kg.key() == grams.key()
    assert kg.same_as(grams)


def test_a_percentage_states_what_it_applies_to() -> None:
    plan = PercentValue(Decimal(20), "annual plan")
    assert plan.canonical() == "20% (annual plan)"
    assert plan.key() == PercentValue(Decimal(20)).key()  # a query for 20% finds it
    assert plan.same_as(PercentValue(Decimal("20.0")))  # unbound agrees with any subject
    assert plan.same_as(PercentValue(Decimal(20), "plans"))
    assert not plan.same_as(PercentValue(Decimal(20), "shipping"))
    assert not plan.same_as(PercentValue(Decimal(25), "annual plan"))
    assert PercentValue(Decimal(5), "tax").same_as(PercentValue(Decimal(5), "taxes"))
    assert value_from_json(plan.to_json()) == plan
    assert "applies_to" not in PercentValue(Decimal(20)).to_json()
    for bad in ("", "  ", "Annual Plan"):
        with pytest.raises(InvalidValue):
            PercentValue(Decimal(20), bad)
    with pytest.raises(InvalidValue):
        value_from_json({"type": "percent", "amount": "20", "applies_to": 3})


@settings(deadline=None, max_examples=200)
@given(
    st.sampled_from([None, "plan", "annual plan", "plans", "shipping", "late fee", "fees"]),
    st.sampled_from([None, "plan", "annual plan", "plans", "shipping", "late fee", "fees"]),
)
def test_subject_agreement_is_symmetric(a: str | None, b: str | None) -> None:
    left, right = PercentValue(Decimal(20), a), PercentValue(Decimal(20), b)
    assert left.same_as(right) == right.same_as(left)
    assert left.same_as(left)


def test_a_partys_size_counts_people_without_its_noun() -> None:
    text = (
        "Booked a table for four at Osteria Nonna; a party of 6. A reservation for 2 people; "
        "a table for 2 available at 7; a reservation for 3 nights."
    )
    assert found(QuantityRecognizer(), text) == [
        ("four", "4 person"),
        ("6", "6 person"),
        ("2 people", "2 person"),
        ("3 nights", "3 night"),
    ]
