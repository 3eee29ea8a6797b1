"""Numeric values: plain numbers, money, percentages and quantities.

This module holds the value types and their comparison; the grammar that finds them in text
lives in ``factdiff.extraction.recognizers`` (``numbers``, ``money``, ``quantities``,
``number_words``) and follows the rules below.

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
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, Final

from factdiff.errors import InvalidValue
from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value, register_decoder
from factdiff.values.units import _METRIC, _UNIT_ABBREVIATIONS, _UNIT_BY_WORD

__all__ = [
    "MoneyValue",
    "NumberValue",
    "PercentValue",
    "QuantityValue",
    "subjects_agree",
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
        raise InvalidValue(f"amount must be a finite Decimal, got {amount!r}")


def _decimal_field(data: dict[str, JSON], name: str) -> Decimal:
    raw = data.get(name)
    if not isinstance(raw, str | int):
        raise InvalidValue(f"missing or invalid {name!r} in {data!r}")
    try:
        return Decimal(raw)
    except decimal.InvalidOperation as exc:
        raise InvalidValue(f"invalid {name!r} in {data!r}") from exc


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
            raise InvalidValue(f"currency must be an ISO 4217 code, got {self.currency!r}")

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
    """A percentage in percent units (15 means 15%) and, when the text says it with
    confidence, what it applies to (``annual plan`` in "20% off the annual plan"; see
    ``factdiff.extraction.recognizers.percent_subjects``). Canonical ``"15%"``, or
    ``"20% (annual plan)"``.

    ``key()`` is the amount alone (a query or another extractor that states ``20%`` finds
    it); ``same_as`` also compares what the two apply to when both say it: they agree when
    they share a word (``annual plan`` and ``plans``; a word and its plural or ``-es`` form
    count as one), so ``20% off shipping`` and ``20% off the plan`` are different facts.
    """

    type: ClassVar[FactType] = FactType.PERCENT
    amount: Decimal
    applies_to: str | None = None

    def __post_init__(self) -> None:
        _check_amount(self.amount)
        if self.applies_to is not None and (
            not self.applies_to.strip() or self.applies_to != self.applies_to.lower()
        ):
            raise InvalidValue(
                f"applies_to must be a non-empty lower-case phrase, got {self.applies_to!r}"
            )

    def canonical(self) -> JSON:
        if self.applies_to is None:
            return f"{_plain(self.amount)}%"
        return f"{_plain(self.amount)}% ({self.applies_to})"

    def key(self) -> object:
        return _plain(self.amount)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        return (
            isinstance(other, PercentValue)
            and tolerance.numbers_close(self.amount, other.amount)
            and subjects_agree(self.applies_to, other.applies_to)
        )

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"type": self.type.value, "amount": str(self.amount)}
        if self.applies_to is not None:
            data["applies_to"] = self.applies_to
        return data


def _same_word(a: str, b: str) -> bool:
    """One word, allowing a plural or ``-es`` ending (``plan``/``plans``, ``tax``/``taxes``)."""
    short, long = sorted((a, b), key=len)
    return short == long or (
        len(short) >= 3 and long.startswith(short) and long[len(short) :] in ("s", "es")
    )


def subjects_agree(a: str | None, b: str | None) -> bool:
    """Whether two percentages' subjects may name one thing: either unknown, or a word in
    common (see :class:`PercentValue`)."""
    if a is None or b is None:
        return True
    return any(_same_word(x, y) for x in a.split() for y in b.split())


@dataclass(frozen=True)
class QuantityValue(Value):
    """A number with a unit (``kg``, ``mi``, ``person``...); canonical ``"2000 g"``."""

    type: ClassVar[FactType] = FactType.QUANTITY
    amount: Decimal
    unit: str

    def __post_init__(self) -> None:
        _check_amount(self.amount)
        if not self.unit.strip():
            raise InvalidValue("unit must not be empty")

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
    applies_to = data.get("applies_to")
    if applies_to is not None and not isinstance(applies_to, str):
        raise InvalidValue(f"invalid 'applies_to' in {data!r}")
    return PercentValue(_decimal_field(data, "amount"), applies_to)


@register_decoder(FactType.QUANTITY.value)
def _decode_quantity(data: dict[str, JSON]) -> Value:
    return QuantityValue(_decimal_field(data, "amount"), str(data.get("unit")))
