"""Typed values: the common base every fact value derives from.

A value is a frozen dataclass that knows three things about itself:

* ``canonical()``: its JSON form, the one users see (``"14250 USD"``, ``"2026-03-25"``);
* ``key()``: a hashable identity after normalisation; two values with equal keys are the
  same fact whatever their surface form (``$14,250`` and ``14,250 USD``);
* ``same_as(other, tolerance)``: equality under a field's tolerance (numeric slack,
  datetime precision, name subsets). The default is key equality.

``to_json()`` / ``value_from_json()`` round-trip a value losslessly for storage.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, TypeVar

from factdiff.errors import InvalidValue
from factdiff.inputs.json_toml import JSON

__all__ = [
    "EXACT",
    "JSON",
    "Decoder",
    "FactType",
    "Precision",
    "Tolerance",
    "Value",
    "json_string",
    "register_decoder",
    "value_from_json",
]

json_string: Callable[[str], str] = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(text, ensure_ascii=False)``, its encoder made once (``json.dumps`` makes one
per call when given options, which costs more than encoding a short string)."""


class FactType(enum.StrEnum):
    """Every type a fact value can have."""

    IDENTIFIER = "identifier"
    MONEY = "money"
    NUMBER = "number"
    PERCENT = "percent"
    QUANTITY = "quantity"
    DATE = "date"
    DATETIME = "datetime"
    TIME = "time"
    DURATION = "duration"
    PERSON = "person"
    ORGANIZATION = "organization"
    EMAIL = "email"
    PHONE = "phone"
    URL = "url"
    ENUM = "enum"
    BOOLEAN = "boolean"
    TEXT = "text"
    TOOL_CALL = "tool_call"
    DECISION = "decision"


class Precision(enum.StrEnum):
    """How finely two temporal values must agree to count as the same fact."""

    YEAR = "year"
    MONTH = "month"
    DAY = "day"
    HOUR = "hour"
    MINUTE = "minute"
    SECOND = "second"


@dataclass(frozen=True)
class Tolerance:
    """Comparison slack of one field. ``None`` everywhere means exact after normalisation."""

    absolute: Decimal | None = None
    """Numeric values within this absolute difference are the same."""
    relative: Decimal | None = None
    """Numeric values within this fraction of the larger magnitude are the same."""
    precision: Precision | None = None
    """Temporal values are compared down to this unit only."""

    def numbers_close(self, a: Decimal, b: Decimal) -> bool:
        """True when ``a`` and ``b`` are equal within this tolerance."""
        if a == b:
            return True
        diff = abs(a - b)
        if self.absolute is not None and diff <= self.absolute:
            return True
        if self.relative is not None:
            return diff <= self.relative * max(abs(a), abs(b))
        return False


EXACT = Tolerance()


@dataclass(frozen=True)
class Value:
    """Base of every typed value. Subclasses are frozen dataclasses with a ``type``."""

    type: ClassVar[FactType]

    def canonical(self) -> JSON:
        """The JSON form shown to users; equal for equal facts."""
        raise NotImplementedError

    def key(self) -> object:
        """A hashable identity after normalisation."""
        raise NotImplementedError

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """True when ``other`` states the same fact within ``tolerance``."""
        return type(other) is type(self) and other.key() == self.key()

    def to_json(self) -> dict[str, JSON]:
        """Lossless JSON form, tagged with the type, for storage."""
        raise NotImplementedError

    def display(self) -> str:
        """A short human-readable form for tables and prompts."""
        canonical = self.canonical()
        return canonical if isinstance(canonical, str) else str(canonical)

    def parts(self) -> tuple[Value, ...]:
        """Values that together state this one when written apart (a datetime: its date and
        its time); empty for values that are not composite."""
        return ()

    def digit_key(self) -> str | None:
        """The digits that identify this value across types (a long numeric ID and a phone
        number written with the same digits are one fact), or None."""
        return None

    def unstated_parts(self, other: Value) -> list[str] | None:
        """Which parts of this value ``other`` does not state (``[]``: all stated), or None
        when ``other`` is not comparable part by part (the default)."""
        return None

    @property
    def is_mention(self) -> bool:
        """A value only mentioned in prose (a tool name), whose missing parts are losses,
        not changes."""
        return False


Decoder = Callable[[dict[str, JSON]], Value]
"""Rebuilds a value from its ``to_json()`` form."""
D = TypeVar("D", bound=Decoder)

_DECODERS: dict[str, Decoder] = {}


def register_decoder(tag: str) -> Callable[[D], D]:
    """Register the function that rebuilds a value from its ``to_json()`` form."""

    def decorate(decoder: D) -> D:
        _DECODERS[tag] = decoder
        return decoder

    return decorate


def value_from_json(data: dict[str, JSON]) -> Value:
    """Rebuild a value from ``Value.to_json()`` output."""
    tag = data.get("type")
    if not isinstance(tag, str) or tag not in _DECODERS:
        raise InvalidValue(f"unknown value type tag {tag!r}")
    return _DECODERS[tag](data)
