"""Numeric values: plain numbers, money, percentages and quantities.

Everything here is built on one scanner that finds numeric tokens in a text:

* digit tokens: ``3350``, ``-2,400``, ``14.25``, optionally followed by a scale word
  (``1.5 million``); digits glued to identifiers (``INV-9182``, ``cust_482``, ``W4923227``,
  ``#5``, ``+1``, ``14:45``, ``03/25``) are never tokens;
* number-word tokens: ``two``, ``twenty-five``, ``a hundred``, ``one thousand two hundred and
  five``, ``two dozen``, parsed by a small explicit grammar (no word2number).

Each recognizer then looks at what surrounds a token (a currency before or after, a ``%``, a
unit) with anchored regexes, so every pass is linear in the text.

Decimal separators are a per-text convention (``ExtractionContext.decimal_comma``, decided by
:func:`detect_decimal_comma` from unambiguous evidence only):

* default (decimal point): ``1,234.56`` is 1234.56, ``3.350`` is 3.35, ``3,350`` is 3350;
  a comma is never read as a decimal separator (``3,50`` is not a number);
* decimal comma: ``1.234,56`` is 1234.56, ``3.350`` is 3350, ``3,5`` is 3.5; a point that
  cannot be a thousands separator (``54.04``, ``1234.5``) is still read as a decimal point,
  because machine output (JSON) inside such texts always uses one.

Bare amounts are money in the context's default currency in two places only: under a money
key in JSON or keyword arguments (``"price": 54.04``), and right after a price word in prose
(``The fee is 150.19``, ``costs 16.5``, ``a total of 600.79``; after ``total``, ``amount``,
``balance`` or ``pay`` only with a decimal point). The rule is the same for a source and its
summary, so a kept bare price compares equal and an altered one is a changed fact; a summary
that adds a currency other than the default (``£150.19``) reads as a changed amount.

Metric quantities convert exactly to a base unit (g, m, ml); imperial units (lb, mi, ft, ...)
keep their own unit, and ``oz`` is never converted (mass or fluid is ambiguous).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, Final, NamedTuple

from factdiff.values.base import (
    EXACT,
    JSON,
    ExtractionContext,
    FactType,
    Match,
    Recognizer,
    Tolerance,
    Value,
    register_decoder,
)

__all__ = [
    "MoneyRecognizer",
    "MoneyValue",
    "NumberRecognizer",
    "NumberValue",
    "PercentRecognizer",
    "PercentValue",
    "QuantityRecognizer",
    "QuantityValue",
    "detect_decimal_comma",
    "parse_money",
    "parse_number",
    "parse_number_words",
    "parse_percent",
    "parse_quantity",
]

_CTX: Final = decimal.Context(prec=80)
"""Exact arithmetic for scales and unit factors (inputs are at most 40 digits)."""

_MAX_LEXEME: Final = 40
_MAX_WORD_TOKENS: Final = 16


# --------------------------------------------------------------------------- decimals


def _plain(amount: Decimal) -> str:
    """``amount`` as a plain decimal string: no exponent, no trailing zeros, no ``-0``."""
    text = format(amount, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        return "0"
    return text


def _check_amount(amount: object) -> None:
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValueError(f"amount must be a finite Decimal, got {amount!r}")


def _decimal_field(data: dict[str, JSON], name: str) -> Decimal:
    raw = data.get(name)
    if not isinstance(raw, str | int):
        raise ValueError(f"missing or invalid {name!r} in {data!r}")
    try:
        return Decimal(raw)
    except decimal.InvalidOperation as exc:
        raise ValueError(f"invalid {name!r} in {data!r}") from exc


# --------------------------------------------------------------------------- units

_METRIC: Final[dict[str, tuple[str, Decimal]]] = {
    "mg": ("g", Decimal("0.001")),
    "g": ("g", Decimal(1)),
    "kg": ("g", Decimal(1000)),
    "t": ("g", Decimal(1000000)),
    "mm": ("m", Decimal("0.001")),
    "cm": ("m", Decimal("0.01")),
    "m": ("m", Decimal(1)),
    "km": ("m", Decimal(1000)),
    "ml": ("ml", Decimal(1)),
    "cl": ("ml", Decimal(10)),
    "dl": ("ml", Decimal(100)),
    "l": ("ml", Decimal(1000)),
}
"""Metric unit -> (base unit, exact factor)."""

_UNIT_ABBREVIATIONS: Final[dict[str, str]] = {
    "mg": "mg",
    "g": "g",
    "kg": "kg",
    "kgs": "kg",
    "mm": "mm",
    "cm": "cm",
    "m": "m",
    "km": "km",
    "kms": "km",
    "ml": "ml",
    "mL": "ml",
    "cl": "cl",
    "dl": "dl",
    "l": "l",
    "L": "l",
    "lb": "lb",
    "lbs": "lb",
    "oz": "oz",
    "fl oz": "fl oz",
    "ft": "ft",
    "yd": "yd",
    "mi": "mi",
}
"""Case-sensitive unit abbreviations (``2 G`` is not grams)."""

_UNIT_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "mg": ("milligram", "milligrams", "milligramme", "milligrammes"),
    "g": ("gram", "grams", "gramme", "grammes"),
    "kg": ("kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos"),
    "t": ("tonne", "tonnes"),
    "mm": ("millimeter", "millimeters", "millimetre", "millimetres"),
    "cm": ("centimeter", "centimeters", "centimetre", "centimetres"),
    "m": ("meter", "meters", "metre", "metres"),
    "km": ("kilometer", "kilometers", "kilometre", "kilometres"),
    "ml": ("milliliter", "milliliters", "millilitre", "millilitres"),
    "l": ("liter", "liters", "litre", "litres"),
    "lb": (),
    "oz": ("ounce", "ounces"),
    "fl oz": ("fluid ounce", "fluid ounces"),
    "gal": ("gallon", "gallons"),
    "in": ("inch", "inches"),
    "ft": ("foot", "feet"),
    "yd": ("yard", "yards"),
    "mi": ("mile", "miles"),
    "person": (
        "person",
        "persons",
        "people",
        "guest",
        "guests",
        "pax",
        "passenger",
        "passengers",
        "traveler",
        "travelers",
        "traveller",
        "travellers",
        "attendee",
        "attendees",
    ),
    "adult": ("adult", "adults"),
    "child": ("child", "children", "kid", "kids"),
    "infant": ("infant", "infants"),
    "night": ("night", "nights"),
    "room": ("room", "rooms"),
    "bedroom": ("bedroom", "bedrooms"),
    "bathroom": ("bathroom", "bathrooms"),
    "bed": ("bed", "beds"),
    "table": ("table", "tables"),
    "ticket": ("ticket", "tickets"),
    "item": ("item", "items"),
    "star": ("star", "stars"),
    "seat": ("seat", "seats"),
    "bag": ("bag", "bags"),
    "suitcase": ("suitcase", "suitcases"),
    "piece": ("piece", "pieces"),
    "pair": ("pair", "pairs"),
    "bottle": ("bottle", "bottles"),
    "box": ("box", "boxes"),
    "pack": ("pack", "packs"),
    "package": ("package", "packages"),
    "unit": ("unit", "units"),
    "cup": ("cup", "cups"),
    "drink": ("drink", "drinks"),
    "shot": ("shot", "shots"),
    "pump": ("pump", "pumps"),
    "point": ("point", "points"),
}
"""Canonical unit -> its spelled-out surface forms (matched case-insensitively)."""

_UNIT_BY_WORD: Final[dict[str, str]] = {
    " ".join(word.split()): unit for unit, words in _UNIT_WORDS.items() for word in words
}

_MODIFIERS: Final = (
    "more",
    "additional",
    "extra",
    "adult",
    "child",
    "senior",
    "student",
    "single",
    "double",
    "twin",
    "king",
    "queen",
    "standard",
    "deluxe",
    "large",
    "small",
    "medium",
    "regular",
    "economy",
    "business",
    "premium",
    "separate",
    "free",
)
"""Adjectives allowed between a number and its count noun (``2 adult tickets``)."""

_DURATION_WORDS: Final = (
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
)
"""Not quantities (DURATION is another module), but a clear numeric context for words."""


def _alternation(words: list[str]) -> str:
    """A regex alternation, longest first, spaces matching runs of blanks."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"[ \t]+") for w in ordered)


# --------------------------------------------------------------------------- currencies

_CODES: Final = (
    "USD",
    "EUR",
    "GBP",
    "JPY",
    "CNY",
    "CAD",
    "AUD",
    "NZD",
    "CHF",
    "SEK",
    "NOK",
    "DKK",
    "PLN",
    "CZK",
    "HUF",
    "INR",
    "BRL",
    "MXN",
    "ZAR",
    "SGD",
    "HKD",
    "KRW",
    "RUB",
    "ILS",
    "AED",
    "SAR",
    "THB",
    "IDR",
    "MYR",
)

_SYMBOLS: Final[dict[str, str | None]] = {
    "US$": "USD",
    "CA$": "CAD",
    "C$": "CAD",
    "AU$": "AUD",
    "A$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
    "$": None,
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
}
"""Currency symbols; ``None`` is the context's default currency."""

_CURRENCY_WORDS: Final[dict[str, tuple[str | None, Decimal]]] = {
    "us dollar": ("USD", Decimal(1)),
    "us dollars": ("USD", Decimal(1)),
    "dollar": (None, Decimal(1)),
    "dollars": (None, Decimal(1)),
    "buck": (None, Decimal(1)),
    "bucks": (None, Decimal(1)),
    "cent": (None, Decimal("0.01")),
    "cents": (None, Decimal("0.01")),
    "euro": ("EUR", Decimal(1)),
    "euros": ("EUR", Decimal(1)),
    "pound": ("GBP", Decimal(1)),
    "pounds": ("GBP", Decimal(1)),
    "quid": ("GBP", Decimal(1)),
    "pence": ("GBP", Decimal("0.01")),
    "yen": ("JPY", Decimal(1)),
}
"""Currency words -> (currency or ``None`` for the default, factor)."""

_CODE_ALT: Final = "|".join(_CODES)
_SYMBOL_ALT: Final = _alternation(list(_SYMBOLS))
_CURRENCY_WORD_ALT: Final = _alternation(list(_CURRENCY_WORDS))

# --------------------------------------------------------------------------- number words

_SMALL: Final[dict[str, int]] = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS: Final[dict[str, int]] = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        [
            "twenty",
            "thirty",
            "forty",
            "fifty",
            "sixty",
            "seventy",
            "eighty",
            "ninety",
        ]
    )
}
_SCALES: Final[dict[str, int]] = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_NUMBER_WORD_ALT: Final = _alternation([*_SMALL, *_TENS, *_SCALES, "hundred", "dozen"])


def _below_hundred(tokens: list[str], i: int) -> tuple[int, int] | None:
    """Parse 1..99 (``seven``, ``fifteen``, ``forty two``) at ``i``."""
    if i >= len(tokens):
        return None
    word = tokens[i]
    if word in _TENS:
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if nxt in _SMALL and 0 < _SMALL[nxt] < 10:
            return _TENS[word] + _SMALL[nxt], i + 2
        return _TENS[word], i + 1
    if word in _SMALL and word != "zero":
        return _SMALL[word], i + 1
    return None


def _group(tokens: list[str], i: int, first: bool) -> tuple[int, int] | None:
    """The longest group below a scale word at ``i`` (``two hundred and five``, ``a hundred``)."""
    if tokens[i] in ("a", "an"):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not first or nxt not in ("hundred", "dozen", *_SCALES):
            return None
        if nxt != "hundred":
            return 1, i + 1
        value, j = 100, i + 2
    else:
        head = _below_hundred(tokens, i)
        if head is None:
            return None
        value, j = head
        if j >= len(tokens) or tokens[j] != "hundred":
            return value, j
        value, j = value * 100, j + 1
    k = j + 1 if j < len(tokens) and tokens[j] == "and" else j
    tail = _below_hundred(tokens, k)
    return (value + tail[0], tail[1]) if tail else (value, j)


def _longest_number(tokens: list[str], i: int) -> tuple[int, int] | None:
    """The longest number phrase starting at token ``i``, as (end index, value).

    Grammar: groups below 1000 (``[X hundred [and]] [tens [units] | teen | unit]``, where X
    may be 1..99 or ``a``) joined by strictly decreasing scale words (thousand, million,
    billion, trillion), optionally ``and`` after a scale; or ``zero``; or ``[group] dozen``.
    """
    if tokens[i] == "zero":
        return i + 1, 0
    total, last_scale, pos, best = 0, 0, i, None
    while pos < len(tokens) and pos - i < _MAX_WORD_TOKENS:
        group = _group(tokens, pos, pos == i)
        if group is None or (last_scale and group[0] >= last_scale):
            break
        value, pos = group
        best = (pos, total + value)
        word = tokens[pos] if pos < len(tokens) else ""
        if word == "dozen":
            if not last_scale and value < 100:
                best = (pos + 1, value * 12)
            break
        scale = _SCALES.get(word, 0)
        if not scale or value >= 1000 or (last_scale and scale >= last_scale):
            break
        total, last_scale, pos = total + value * scale, scale, pos + 1
        best = (pos, total)
        if pos < len(tokens) and tokens[pos] == "and":
            pos += 1
    return best


_JOINERS: Final = frozenset(("hundred", "dozen", "and", *_SCALES))
"""Words that can continue a number phrase after a unit word."""
_WORD_TOKEN_RE: Final = re.compile(r"[A-Za-z]+")


def parse_number_words(text: str) -> int | None:
    """Parse a whole number phrase (``"one thousand two hundred"``) or return ``None``."""
    tokens = _WORD_TOKEN_RE.findall(text.lower())
    rest = _WORD_TOKEN_RE.sub("", text)
    if not tokens or len(tokens) > _MAX_WORD_TOKENS or rest.strip(" \t-"):
        return None
    found = _longest_number(tokens, 0)
    return found[1] if found and found[0] == len(tokens) else None


# --------------------------------------------------------------------------- scanner

_DIGITS_RE: Final = re.compile(
    r"(?=[-−0-9])(?<![\w#+.,:/@])(?<!\w-)"
    r"(?P<sign>[-−](?=[0-9]))?"
    r"(?P<num>[0-9]++(?:[.,][0-9]++)*+)"
    r"(?:[ \t]+(?P<scale>(?i:thousand|million|billion|trillion))\b)?"
)
_WORDS_RE: Final = re.compile(
    r"(?=[abdefhmnostzABDEFHMNOSTZ])(?<![\w-])"
    r"(?:an?[ \t]+(?=(?:hundred|thousand|million|billion|trillion|dozen)\b))?"
    rf"(?:{_NUMBER_WORD_ALT})\b"
    rf"(?:(?:[ \t]+and[ \t]+|[ \t]+|[ \t]*-[ \t]*)(?:{_NUMBER_WORD_ALT})\b)*+",
    re.IGNORECASE,
)
_GROUPED_POINT_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_PLAIN_POINT_RE: Final = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_GROUPED_COMMA_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:\.[0-9]{3})+(?:,[0-9]+)?")
_PLAIN_COMMA_RE: Final = re.compile(r"[0-9]+(?:,[0-9]+)?")


def _lexeme_value(lexeme: str, decimal_comma: bool) -> Decimal | None:
    """Read a digit lexeme (``1,234.5``) under the text's separator convention."""
    if len(lexeme) > _MAX_LEXEME:
        return None
    if decimal_comma:
        if _GROUPED_COMMA_RE.fullmatch(lexeme) or _PLAIN_COMMA_RE.fullmatch(lexeme):
            return Decimal(lexeme.replace(".", "").replace(",", "."))
        if _PLAIN_POINT_RE.fullmatch(lexeme):  # not a valid thousands grouping: a decimal point
            return Decimal(lexeme)
        return None
    if _GROUPED_POINT_RE.fullmatch(lexeme) or _PLAIN_POINT_RE.fullmatch(lexeme):
        return Decimal(lexeme.replace(",", ""))
    return None


class _Num(NamedTuple):
    """A numeric token in a text."""

    start: int
    end: int
    value: Decimal
    words: bool
    weak: bool
    """A number word that needs a numeric context to count (``one``, ``a dozen``)."""
    raw: str
    """The digit lexeme without sign ("" for words)."""
    scaled: bool


def _scan_digits(text: str, ctx: ExtractionContext) -> Iterator[_Num]:
    for m in _DIGITS_RE.finditer(text):
        value = _lexeme_value(m["num"], ctx.decimal_comma)
        if value is None:
            continue
        if m["scale"]:
            value = _CTX.multiply(value, Decimal(_SCALES[m["scale"].lower()]))
        if m["sign"]:
            value = -value
        yield _Num(m.start(), m.end(), value, False, False, m["num"], bool(m["scale"]))


def _scan_words(text: str) -> Iterator[_Num]:
    for m in _WORDS_RE.finditer(text):
        after = text[m.end() : m.end() + 2]
        if after[:1] == "-" and after[1:2].isalpha():
            continue  # glued to a word: "twenty-five-year-old"
        spans = [(t.start(), t.end()) for t in _WORD_TOKEN_RE.finditer(text, m.start(), m.end())]
        tokens = [text[s:e].lower() for s, e in spans]
        i = 0
        while i < len(tokens):
            word = tokens[i]
            if word in _SMALL and (i + 1 == len(tokens) or tokens[i + 1] not in _JOINERS):
                value = _SMALL[word]  # fast path: a lone "one", "twelve"
                yield _Num(spans[i][0], spans[i][1], Decimal(value), True, value <= 10, "", False)
                i += 1
                continue
            found = _longest_number(tokens, i)
            if found is None:
                i += 1
                continue
            j, value = found
            weak = tokens[i] in ("a", "an") or (j - i == 1 and value <= 10)
            yield _Num(spans[i][0], spans[j - 1][1], Decimal(value), True, weak, "", False)
            i = j


_last_scan: tuple[str, bool, list[_Num]] = ("", False, [])
"""The previous scan: the four recognizers usually run one after another on one text."""


def _scan(text: str, ctx: ExtractionContext) -> list[_Num]:
    """Every numeric token in ``text``, in order, without overlaps."""
    global _last_scan  # noqa: PLW0603 - a one-entry cache of a pure function
    cached_text, cached_comma, cached = _last_scan
    if cached_comma == ctx.decimal_comma and (cached_text is text or cached_text == text):
        return cached
    tokens = sorted([*_scan_digits(text, ctx), *_scan_words(text)], key=lambda n: n.start)
    result: list[_Num] = []
    for tok in tokens:
        if not result or tok.start >= result[-1].end:
            result.append(tok)
    _last_scan = (text, ctx.decimal_comma, result)
    return result


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class NumberValue(Value):
    """A plain number; canonical ``"3350"``, ``"3.5"``, ``"-2400"``."""

    type: ClassVar[FactType] = FactType.NUMBER
    amount: Decimal

    def __post_init__(self) -> None:
        _check_amount(self.amount)

    def canonical(self) -> JSON:
        return _plain(self.amount)

    def key(self) -> object:
        return _plain(self.amount)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        return isinstance(other, NumberValue) and tolerance.numbers_close(self.amount, other.amount)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "amount": str(self.amount)}


@dataclass(frozen=True)
class MoneyValue(Value):
    """An amount of one currency (ISO 4217 code); canonical ``"14250 USD"``."""

    type: ClassVar[FactType] = FactType.MONEY
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        _check_amount(self.amount)
        if not re.fullmatch(r"[A-Z]{3}", self.currency):
            raise ValueError(f"currency must be an ISO 4217 code, got {self.currency!r}")

    def canonical(self) -> JSON:
        return f"{_plain(self.amount)} {self.currency}"

    def key(self) -> object:
        return (_plain(self.amount), self.currency)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        return (
            isinstance(other, MoneyValue)
            and other.currency == self.currency
            and tolerance.numbers_close(self.amount, other.amount)
        )

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "amount": str(self.amount), "currency": self.currency}


@dataclass(frozen=True)
class PercentValue(Value):
    """A percentage in percent units (15 means 15%); canonical ``"15%"``."""

    type: ClassVar[FactType] = FactType.PERCENT
    amount: Decimal

    def __post_init__(self) -> None:
        _check_amount(self.amount)

    def canonical(self) -> JSON:
        return f"{_plain(self.amount)}%"

    def key(self) -> object:
        return _plain(self.amount)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        return isinstance(other, PercentValue) and tolerance.numbers_close(
            self.amount, other.amount
        )

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "amount": str(self.amount)}


@dataclass(frozen=True)
class QuantityValue(Value):
    """A number with a unit (``kg``, ``mi``, ``person``...); canonical ``"2000 g"``."""

    type: ClassVar[FactType] = FactType.QUANTITY
    amount: Decimal
    unit: str

    def __post_init__(self) -> None:
        _check_amount(self.amount)
        if not self.unit.strip():
            raise ValueError("unit must not be empty")

    def normalized(self) -> tuple[Decimal, str]:
        """The amount in the base unit of its dimension (metric units), and that unit."""
        unit = _UNIT_ABBREVIATIONS.get(self.unit) or _UNIT_BY_WORD.get(
            " ".join(self.unit.lower().split()), self.unit
        )
        if unit in _METRIC:
            base, factor = _METRIC[unit]
            return _CTX.multiply(self.amount, factor), base
        return self.amount, unit

    def canonical(self) -> JSON:
        amount, unit = self.normalized()
        return f"{_plain(amount)} {unit}"

    def key(self) -> object:
        amount, unit = self.normalized()
        return (_plain(amount), unit)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        if not isinstance(other, QuantityValue):
            return False
        (a, unit_a), (b, unit_b) = self.normalized(), other.normalized()
        return unit_a == unit_b and tolerance.numbers_close(a, b)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "amount": str(self.amount), "unit": self.unit}


@register_decoder(FactType.NUMBER.value)
def _decode_number(data: dict[str, JSON]) -> Value:
    return NumberValue(_decimal_field(data, "amount"))


@register_decoder(FactType.MONEY.value)
def _decode_money(data: dict[str, JSON]) -> Value:
    return MoneyValue(_decimal_field(data, "amount"), str(data.get("currency")))


@register_decoder(FactType.PERCENT.value)
def _decode_percent(data: dict[str, JSON]) -> Value:
    return PercentValue(_decimal_field(data, "amount"))


@register_decoder(FactType.QUANTITY.value)
def _decode_quantity(data: dict[str, JSON]) -> Value:
    return QuantityValue(_decimal_field(data, "amount"), str(data.get("unit")))


# --------------------------------------------------------------------------- context regexes

_NUMBER_RIGHT_BAD_RE: Final = re.compile(r"[\w#]|-\w|[:/.,][0-9]")
_POSTCODE_LEFT_RE: Final = re.compile(r"(?<![\w])[A-Z]{2}[ \t]\Z")

_COUNT_NOUN_ALT: Final = _alternation(list(_UNIT_BY_WORD))
_MODIFIER_ALT: Final = _alternation(list(_MODIFIERS))
_WORD_CONTEXT_RE: Final = re.compile(
    rf"[ \t]*-?[ \t]*(?:(?:{_MODIFIER_ALT})[ \t]+)?"
    rf"(?:{_COUNT_NOUN_ALT}|{_alternation(list(_DURATION_WORDS))}|{_CURRENCY_WORD_ALT}"
    rf"|per[ \t]?cent|pounds|of[ \t]+(?:us|them|you|those|these))\b"
    rf"|[ \t]?(?:%|(?:{_CODE_ALT})\b|{_SYMBOL_ALT})",
    re.IGNORECASE,
)
"""After a weak number word: what makes it clearly a number (``two people``, ``one %``)."""

_PREFIX_RE: Final = re.compile(
    rf"(?P<neg>(?<![\w*-])[-−])?"
    rf"(?:(?<![^\W\d_])(?P<sym>{_SYMBOL_ALT})|(?<!\w)(?P<code>{_CODE_ALT}))[ \t]?\Z"
)
_LETTER_SCALE_RE: Final = re.compile(r"(?P<scale>mn|bn|MM|Mn|Bn|BN|[kKmMbB])(?!\w)")
_SUFFIX_RE: Final = re.compile(
    rf"[ \t]?(?P<sym>{_SYMBOL_ALT})(?![ \t]?[-−(]?[0-9])"
    rf"|[ \t]?(?P<code>{_CODE_ALT})(?!\w)"
    rf"|[ \t]+(?P<word>(?i:{_CURRENCY_WORD_ALT}))(?![\w])(?![ \t]+of\b)"
)
_LETTER_SCALES: Final[dict[str, Decimal]] = {
    "k": Decimal(10**3),
    "m": Decimal(10**6),
    "mn": Decimal(10**6),
    "mm": Decimal(10**6),
    "b": Decimal(10**9),
    "bn": Decimal(10**9),
}
_MONEY_KEYS: Final = (
    "price|amount|total|subtotal|balance|cost|fee|fees|refund|charge|paid|payment|tax|tip"
    "|fare|rent|salary|budget"
)
_JSON_KEY_RE: Final = re.compile(
    rf'(?:"(?:[A-Za-z0-9]+_)*(?:{_MONEY_KEYS})"[ \t]*:'
    rf"|(?<![\w])(?:[A-Za-z0-9]+_)*(?:{_MONEY_KEYS})[ \t]*=)[ \t]*\Z",
    re.IGNORECASE,
)
_JSON_AFTER_RE: Final = re.compile(r"[ \t]*(?:[,}\]);\r\n]|\Z)")
_AFTER_NUMBER_RE: Final = re.compile(r"[0-9][ \t]?\Z")
_PRICE_CUE_RE: Final = re.compile(
    r"(?<![\w-])(?:(?P<strong>price|fee|cost|fare|charge|rent)s?|costing"
    r"|(?P<weak>total|amount|subtotal|balance|pay|paying|paid))"
    r"(?:[ \t]+(?:for|of)[ \t]+(?:(?:the|a|an|your|each|one|per)[ \t]+)?[a-z]+[ \t]*"
    r"(?::|=|is|was|will[ \t]+be|would[ \t]+be|comes[ \t]+to)"
    r"|[ \t]*(?::|=|is|was|will[ \t]+be|would[ \t]+be|comes[ \t]+to|of))?"
    r"(?:[ \t]+(?:only|just))?[ \t]*\Z",
    re.IGNORECASE,
)
"""A price word directly before a bare number, with at most a copula, ``of`` or ``:``
between (``The fee is``, ``costs``, ``a total of``), or ``for``/``of`` + one noun + a copula
(``the cost for the ticket is``; not ``the fee of the first 3``). After
``total``/``amount``/``balance``/``pay`` the number needs a decimal point (``total of 5``
counts, ``paid 3 times`` too)."""
_PREFIX_MARKS: Final = frozenset("$€£¥₹-−")
_SCALE_MARKS: Final = frozenset("kKmMbB")
_SUFFIX_FIRST: Final = frozenset(
    c for w in (*_SYMBOLS, *_CODES, *_CURRENCY_WORDS) for c in (w[0], w[0].upper())
)
_PERCENT_MARKS: Final = frozenset("% \t")
_UNIT_MARKS: Final = frozenset(" \t-")
_PERCENT_RE: Final = re.compile(r"[ \t]?%|[ \t]+(?i:per[ \t]?cent|pct)\b")
_ABBREVIATION_ALT: Final = _alternation(list(_UNIT_ABBREVIATIONS))
_UNIT_RE: Final = re.compile(
    rf"(?:[ \t]?-?[ \t]?)(?P<abbr>{_ABBREVIATION_ALT})(?![\w])"
    rf"|(?:[ \t]+|[ \t]*-[ \t]*)(?:(?P<mod>(?i:{_MODIFIER_ALT}))[ \t]+)?"
    rf"(?:(?P<word>(?i:{_COUNT_NOUN_ALT}))\b|(?P<lb>(?i:pounds?))(?=[ \t]+of\b))"
)


def _default_currency(ctx: ExtractionContext) -> str:
    """The context's currency for ``$`` and ``dollars``; "" (no money) if not an ISO code."""
    code = ctx.default_currency.strip().upper()
    return code if re.fullmatch(r"[A-Z]{3}", code) else ""


def _symbol_currency(symbol: str, ctx: ExtractionContext) -> str:
    return _SYMBOLS.get(symbol) or _default_currency(ctx)


def _word_currency(word: str, ctx: ExtractionContext) -> tuple[str, Decimal]:
    currency, factor = _CURRENCY_WORDS[" ".join(word.lower().split())]
    return currency or _default_currency(ctx), factor


# --------------------------------------------------------------------------- recognizers


def _digit_number_ok(text: str, tok: _Num) -> bool:
    """False for digits that look like a piece of an identifier, phone or postcode."""
    if _NUMBER_RIGHT_BAD_RE.match(text, tok.end):
        return False
    if not tok.scaled and tok.raw.isdigit():
        if len(tok.raw) >= 7 or (len(tok.raw) >= 2 and tok.raw[0] == "0"):
            return False
        if len(tok.raw) == 5 and _POSTCODE_LEFT_RE.search(text, max(0, tok.start - 4), tok.start):
            return False
    return not (tok.start > 0 and text[tok.start - 1] == '"' and text[tok.end : tok.end + 1] == '"')


class NumberRecognizer:
    """Plain numbers: digits that are not part of an identifier, and number words in a
    clear numeric context (``two people``; a bare ``one`` is not a number)."""

    fact_type: FactType = FactType.NUMBER

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every number in ``text``."""
        for tok in _scan(text, context):
            if tok.words:
                if tok.weak and not _WORD_CONTEXT_RE.match(text, tok.end):
                    continue
            elif not _digit_number_ok(text, tok):
                continue
            yield Match(tok.start, tok.end, NumberValue(tok.value))


def _before(text: str, pos: int, limit: int = 2) -> str:
    """The character before ``pos``, skipping up to ``limit`` blanks ("" at the start)."""
    stop = max(0, pos - limit - 1)
    while pos > stop and text[pos - 1] in " \t":
        pos -= 1
    return text[pos - 1] if pos > 0 else ""


def _prefix(text: str, tok: _Num, floor: int) -> re.Match[str] | None:
    """The currency symbol or code right before ``tok``; a code right after another number
    is that number's suffix (``2050 USD 1 bed``), not a prefix of ``tok``."""
    mark = _before(text, tok.start, 1)
    if not (mark in _PREFIX_MARKS or "A" <= mark <= "Z"):
        return None
    prefix = _PREFIX_RE.search(text, max(floor, tok.start - 8), tok.start)
    if prefix and prefix["code"] and _AFTER_NUMBER_RE.search(text, 0, prefix.start()):
        return None
    return prefix


def _money_at(text: str, tok: _Num, ctx: ExtractionContext, floor: int) -> Match | None:
    """The money amount built around ``tok``, if a currency marks it."""
    start, end, amount, currency = tok.start, tok.end, tok.value, ""
    negative = amount < 0
    prefix = _prefix(text, tok, floor)
    if prefix:
        start = prefix.start()
        negative = negative or bool(prefix["neg"])
        currency = _symbol_currency(prefix["sym"], ctx) if prefix["sym"] else prefix["code"]
    if not tok.words and not tok.scaled and text[end : end + 1] in _SCALE_MARKS:
        scale = _LETTER_SCALE_RE.match(text, end)
        if scale:
            amount = _CTX.multiply(amount, _LETTER_SCALES[scale["scale"].lower()])
            end = scale.end()
    nxt = text[end : end + 2].lstrip(" \t")[:1]
    suffix = _SUFFIX_RE.match(text, end) if nxt and nxt in _SUFFIX_FIRST else None
    if suffix:
        if suffix["word"]:
            found, factor = _word_currency(suffix["word"], ctx)
        else:
            found, factor = suffix["code"] or _symbol_currency(suffix["sym"], ctx), Decimal(1)
        if not currency:
            currency, amount, end = found, _CTX.multiply(amount, factor), suffix.end()
        elif found == currency and factor == 1:
            end = suffix.end()
    if not currency:
        return _json_money(text, tok, ctx) or _cued_money(text, tok, ctx)
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return None
    start, end, negative = _accounting(text, start, end, floor, negative)
    amount = -abs(amount) if negative else abs(amount)
    return Match(start, end, MoneyValue(amount, currency))


def _accounting(
    text: str, start: int, end: int, floor: int, negative: bool
) -> tuple[int, int, bool]:
    """Widen ``($2,400)`` to a negative amount when it stands like a ledger cell: the
    parentheses hold just the amount and follow a line start, ``:``, ``=`` or ``|``."""
    if start - 1 < max(floor, 0) or text[start - 1] != "(" or text[end : end + 1] != ")":
        return start, end, negative
    if _before(text, start - 1, 8) not in ("", ":", "=", "|", "\n"):
        return start, end, negative
    return start - 1, end + 1, True


def _json_money(text: str, tok: _Num, ctx: ExtractionContext) -> Match | None:
    """A bare number under a money key in JSON or keyword arguments (``"price": 54.04``)."""
    if tok.words or tok.scaled or _before(text, tok.start) not in (":", "="):
        return None
    if not _PLAIN_POINT_RE.fullmatch(tok.raw):
        return None
    if not _JSON_KEY_RE.search(text, max(0, tok.start - 64), tok.start):
        return None
    if not _JSON_AFTER_RE.match(text, tok.end):
        return None
    amount, currency = Decimal(tok.raw), _default_currency(ctx)
    if not currency:
        return None
    value = MoneyValue(-amount if tok.value < 0 else amount, currency)
    return Match(tok.start, tok.end, value)


def _cued_money(text: str, tok: _Num, ctx: ExtractionContext) -> Match | None:
    """A bare amount right after a price cue (``The fee is 150.19``, ``costs 16.5``,
    ``a total of 600.79``), in the default currency; see :data:`_PRICE_CUE_RE`."""
    if tok.words or tok.scaled or tok.value < 0 or not _digit_number_ok(text, tok):
        return None
    cue = _PRICE_CUE_RE.search(text, max(0, tok.start - 64), tok.start)
    if cue is None or (cue["weak"] and "." not in tok.raw) or _UNIT_RE.match(text, tok.end):
        return None
    currency = _default_currency(ctx)
    return Match(tok.start, tok.end, MoneyValue(tok.value, currency)) if currency else None


class MoneyRecognizer:
    """Money: ``$14,250``, ``14,250 USD``, ``USD 14250.00``, ``$14.25k``, ``10.50 pounds``,
    ``fourteen thousand dollars``, ``-$2,400``, ledger-style ``($2,400)``, bare numbers
    under money keys in JSON or keyword arguments (``"price": 54.04``), and bare numbers
    right after a price cue in prose (``The fee is 150.19``); the last two are in the
    context's default currency.

    A currency code between two numbers belongs to the first (``2050 USD 1 bed``), and a
    list dash before an amount (``- $50.88``) is not a minus sign.
    """

    fact_type: FactType = FactType.MONEY

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every amount of money in ``text``."""
        floor = 0
        for tok in _scan(text, context):
            if tok.start < floor:
                continue
            match = _money_at(text, tok, context, floor)
            if match is not None:
                floor = match.end
                yield match


class PercentRecognizer:
    """Percentages: ``15%``, ``12,5 %``, ``15 percent``, ``fifteen per cent``."""

    fact_type: FactType = FactType.PERCENT

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every percentage in ``text``."""
        for tok in _scan(text, context):
            if text[tok.end : tok.end + 1] not in _PERCENT_MARKS:
                continue
            suffix = _PERCENT_RE.match(text, tok.end)
            if suffix:
                yield Match(tok.start, suffix.end(), PercentValue(tok.value))


_PLURAL_ONLY: Final = frozenset(
    ("guest", "passenger", "traveler", "traveller", "attendee", "adult", "child", "kid", "infant")
)
"""Singular forms that only count "one": ``5 guest houses`` is not five guests."""


def _unit_of(match: re.Match[str]) -> str:
    if match["abbr"]:
        return _UNIT_ABBREVIATIONS[" ".join(match["abbr"].split())]
    if match["lb"]:
        return "lb"
    return _UNIT_BY_WORD[" ".join(match["word"].lower().split())]


class QuantityRecognizer:
    """Quantities: a number and a unit or count noun (``2 kg``, ``two people``, ``4-star``,
    ``5 pounds of coffee``). Durations (hours, days...) are not quantities, and neither is
    an amount with a currency before it (``a $81 ticket`` is money)."""

    fact_type: FactType = FactType.QUANTITY

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every quantity in ``text``."""
        money = iter(MoneyRecognizer().find(text, context))
        amount = next(money, None)
        for tok in _scan(text, context):
            while amount is not None and amount.end <= tok.start:
                amount = next(money, None)
            if amount is not None and amount.start < tok.start < amount.end:
                continue  # "$81 ticket": the currency before the number makes it money
            nxt = text[tok.end : tok.end + 1]
            if not (nxt in _UNIT_MARKS or nxt.isalpha()):
                continue
            suffix = _UNIT_RE.match(text, tok.end)
            if suffix and not (tok.value != 1 and (suffix["word"] or "").lower() in _PLURAL_ONLY):
                yield Match(tok.start, suffix.end(), QuantityValue(tok.value, _unit_of(suffix)))


# --------------------------------------------------------------------------- parsers

_JSON_NUMBER_RE: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,2})?")
_SIGNED_RE: Final = re.compile(
    r"(?P<sign>[-−+])?[ \t]*(?P<num>[0-9]+(?:[.,][0-9]+)*)"
    r"(?:[ \t]+(?P<scale>(?i:thousand|million|billion|trillion)))?"
)


def parse_number(text: str, context: ExtractionContext) -> NumberValue | None:
    """Parse a whole string as a number: ``"3,350"``, ``"-2400"``, ``"2400.0"``, ``"1e3"``,
    ``"1.5 million"``, ``"twenty-five"``. ``None`` if it is anything else."""
    s = text.strip()
    if len(s) > 200:
        return None
    m = _SIGNED_RE.fullmatch(s)
    if m:
        value = _lexeme_value(m["num"], context.decimal_comma)
        if value is not None:
            if m["scale"]:
                value = _CTX.multiply(value, Decimal(_SCALES[m["scale"].lower()]))
            return NumberValue(-value if m["sign"] in ("-", "−") else value)
    if _JSON_NUMBER_RE.fullmatch(s):
        return NumberValue(Decimal(s))
    words = parse_number_words(s)
    return NumberValue(Decimal(words)) if words is not None else None


def _whole(text: str, recognizer: Recognizer, context: ExtractionContext) -> Value | None:
    """The value of the one match of ``recognizer`` that spans all of ``text``."""
    for match in recognizer.find(text, context):
        if match.start == 0 and match.end == len(text):
            return match.value
    return None


_CODE_AROUND_RE: Final = re.compile(
    rf"(?P<pre>{_CODE_ALT})[ \t]*(?P<a>.+)|(?P<b>.+?)[ \t]*(?P<post>{_CODE_ALT})"
)


def parse_money(text: str, context: ExtractionContext) -> MoneyValue | None:
    """Parse a whole string as money (``"$14,250"``, ``"USD14250"``, ``"($2,400)"``).
    A bare number (``"54.04"``) is an amount in the context's default currency."""
    s = text.strip()
    if len(s) > 200 or not s:
        return None
    negative = False
    if s[0] == "(" and s[-1] == ")":
        s, negative = s[1:-1].strip(), True
    value = _whole(s, MoneyRecognizer(), context)
    if not isinstance(value, MoneyValue):
        value = _money_from_parts(s, context)
    if value is None or not negative:
        return value
    return MoneyValue(-abs(value.amount), value.currency)


def _money_from_parts(s: str, context: ExtractionContext) -> MoneyValue | None:
    m = _CODE_AROUND_RE.fullmatch(s)
    currency = (m["pre"] or m["post"]) if m else _default_currency(context)
    if not currency:
        return None
    number = parse_number((m["a"] or m["b"]) if m else s, context)
    return MoneyValue(number.amount, currency) if number else None


def parse_percent(text: str, context: ExtractionContext) -> PercentValue | None:
    """Parse a whole string as a percentage (``"15%"``, ``"15 per cent"``)."""
    s = text.strip()
    value = _whole(s, PercentRecognizer(), context) if len(s) <= 200 else None
    return value if isinstance(value, PercentValue) else None


def parse_quantity(text: str, context: ExtractionContext) -> QuantityValue | None:
    """Parse a whole string as a quantity (``"2 kg"``, ``"two people"``)."""
    s = text.strip()
    value = _whole(s, QuantityRecognizer(), context) if len(s) <= 200 else None
    return value if isinstance(value, QuantityValue) else None


# --------------------------------------------------------------------------- detection

_CUR_MARK: Final = rf"(?:%|{_SYMBOL_ALT}|(?:{_CODE_ALT})\b)"
_COMMA_EVIDENCE_RE: Final = re.compile(
    r"(?<![\w.,])[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+(?![\w.,])"
    rf"|(?<![\w.,])[0-9]+,[0-9]{{1,2}}(?![\w.,])[ \t]?{_CUR_MARK}"
    rf"|{_CUR_MARK}[ \t]?[0-9]+,[0-9]{{1,2}}(?![\w.,])"
)
_POINT_EVIDENCE_RE: Final = re.compile(
    r"(?<![\w.,])[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+(?![\w.,])"
    rf"|(?<![\w.,])[0-9]+\.[0-9]{{1,2}}(?![\w.,])[ \t]?{_CUR_MARK}"
    rf"|{_CUR_MARK}[ \t]?[0-9]+\.[0-9]{{1,2}}(?![\w.,])"
)


def detect_decimal_comma(text: str) -> bool:
    """True when ``text`` writes decimals with a comma, judged from unambiguous evidence:
    ``1.234,56``, or a 1-2 digit comma fraction beside a currency or ``%`` (``3,50 €``,
    ``12,5 %``), outnumbering the same evidence for a decimal point. Otherwise False."""
    commas = sum(1 for _ in _COMMA_EVIDENCE_RE.finditer(text))
    if not commas:
        return False
    points = sum(1 for _ in _POINT_EVIDENCE_RE.finditer(text))
    return commas > points
