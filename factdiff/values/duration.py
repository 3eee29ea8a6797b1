"""Durations: lengths of time, as the ``durations`` recognizer finds them in text.

Durations normalise weeks to days, hours/minutes/seconds to seconds, years to months;
business days never equal calendar days. "1 hour and 30 minutes" is one duration. "a day",
"an hour", "one week" need a cue before them ("for", "in", "takes", "about", ...) so that
"once a day" is not a duration; "in a minute"/"just a sec" (idioms) and ranges ("5 to 7
days", "2-3 days") are not durations. Canonical forms are ISO-8601-like: ``P7D``,
``P7BD`` (business days), ``PT1H30M``, ``P3M``, ``P1Y6M``.

"in 3 days", "within 7 business days", "3 days from now" resolve forward and "3 days ago"
backward into ``DurationValue.resolved``, against the reference date only (see
``factdiff.values.temporal``); business days skip Saturdays and Sundays (no holidays);
durations below a day resolve to nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import ClassVar

from factdiff.errors import InvalidValue
from factdiff.values.base import (
    EXACT,
    JSON,
    FactType,
    Tolerance,
    Value,
    register_decoder,
)
from factdiff.values.temporal import DateValue, decode_date

__all__ = ["DurationValue"]


def _fmt_decimal(value: Decimal) -> str:
    """``Decimal`` as plain digits, without exponent or trailing zeros."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


_UNIT_FACTORS: Mapping[str, tuple[str, int]] = MappingProxyType(
    {
        "second": ("second", 1),
        "sec": ("second", 1),
        "minute": ("second", 60),
        "min": ("second", 60),
        "hour": ("second", 3600),
        "hr": ("second", 3600),
        "day": ("day", 1),
        "week": ("day", 7),
        "wk": ("day", 7),
        "fortnight": ("day", 14),
        "month": ("month", 1),
        "year": ("month", 12),
        "yr": ("month", 12),
    }
)
"""Unit name (singular) -> (normalised unit, factor)."""


def _unit_name(unit: str) -> str:
    name = unit.lower().strip()
    return name[:-1] if name.endswith("s") and name[:-1] in _UNIT_FACTORS else name


@dataclass(frozen=True)
class DurationValue(Value):
    """A length of time, normalised to days, seconds or months at construction.

    ``DurationValue(Decimal(2), "weeks")`` becomes 14 days; a business week is 5 business
    days; ``business`` is only valid with days. ``resolved`` is the date the duration points
    to from the reference ("in 3 days"); it is kept in JSON but ignored by ``key``/``same_as``.
    """

    type: ClassVar[FactType] = FactType.DURATION
    amount: Decimal
    unit: str
    business: bool = False
    resolved: DateValue | None = None

    def __post_init__(self) -> None:
        name = _unit_name(self.unit)
        if name not in _UNIT_FACTORS:
            raise InvalidValue(f"unknown duration unit {self.unit!r}")
        unit, factor = _UNIT_FACTORS[name]
        if self.business:
            if unit != "day":
                raise InvalidValue("only days and weeks can be business durations")
            factor = 5 if name == "week" else factor
        amount = Decimal(self.amount) * factor
        if not amount.is_finite() or amount < 0:
            raise InvalidValue(f"invalid duration amount {self.amount}")
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "unit", unit)

    def canonical(self) -> str:
        """``P7D``, ``P7BD``, ``PT1H30M``, ``P3M``, ``P1Y6M``."""
        amount = self.amount
        if self.unit == "day":
            return f"P{_fmt_decimal(amount)}{'BD' if self.business else 'D'}"
        if self.unit == "month":
            if amount != amount.to_integral_value() or amount == 0:
                return f"P{_fmt_decimal(amount)}M"
            years, months = divmod(int(amount), 12)
            return "P" + (f"{years}Y" if years else "") + (f"{months}M" if months else "")
        hours = int(amount // 3600)
        minutes = int((amount - hours * 3600) // 60)
        seconds = amount - hours * 3600 - minutes * 60
        parts = [f"{hours}H" if hours else "", f"{minutes}M" if minutes else ""]
        if seconds or not (hours or minutes):
            parts.append(f"{_fmt_decimal(seconds)}S")
        return "PT" + "".join(parts)

    def key(self) -> object:
        return (self.amount.normalize(), self.unit, self.business)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Same unit and business flag, amounts equal within the numeric tolerance."""
        if not isinstance(other, DurationValue):
            return False
        if (self.unit, self.business) != (other.unit, other.business):
            return False
        return tolerance.numbers_close(self.amount, other.amount)

    def to_json(self) -> dict[str, JSON]:
        return {
            "type": self.type.value,
            "amount": _fmt_decimal(self.amount),
            "unit": self.unit,
            "business": self.business,
            "resolved": None if self.resolved is None else self.resolved.to_json(),
        }


@register_decoder(FactType.DURATION.value)
def _decode_duration(data: dict[str, JSON]) -> Value:
    amount, unit, business = data.get("amount"), data.get("unit"), data.get("business", False)
    resolved = data.get("resolved")
    if not isinstance(amount, str) or not isinstance(unit, str) or not isinstance(business, bool):
        raise InvalidValue("duration needs amount (string), unit and business")
    resolved_value = None if not isinstance(resolved, dict) else decode_date(resolved)
    if resolved_value is not None and not isinstance(resolved_value, DateValue):
        raise InvalidValue("resolved must be a date")
    try:
        number = Decimal(amount)
    except InvalidOperation as error:
        raise InvalidValue(f"invalid amount {amount!r}") from error
    return DurationValue(number, unit, business, resolved_value)
