"""Field-driven values: enum, boolean and free text.

These have no schema-free recognizer: what counts as a value depends on the field (its
allowed values and synonyms, its cues, its pattern), so the extractor builds them per field.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value, register_decoder

_SPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Case-, width- and whitespace-insensitive form of ``text`` (NFKC, casefold)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@dataclass(frozen=True)
class EnumValue(Value):
    """One of a field's allowed values (synonyms already mapped to it), or its negation.

    ``negated`` is the polarity the text gave it: "was not refunded" is ``not refunded``,
    a different fact from ``refunded``.
    """

    type: ClassVar[FactType] = FactType.ENUM
    value: str
    negated: bool = False

    def canonical(self) -> JSON:
        return f"not {self.value}" if self.negated else self.value

    def key(self) -> object:
        return (fold(self.value), self.negated)

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"type": self.type.value, "value": self.value}
        if self.negated:
            data["negated"] = True
        return data


@dataclass(frozen=True)
class BooleanValue(Value):
    """A yes/no fact."""

    type: ClassVar[FactType] = FactType.BOOLEAN
    value: bool

    def canonical(self) -> JSON:
        return self.value

    def key(self) -> object:
        return self.value

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "value": self.value}


@dataclass(frozen=True)
class TextValue(Value):
    """Free text; equal when equal after case and whitespace folding."""

    type: ClassVar[FactType] = FactType.TEXT
    text: str

    def canonical(self) -> JSON:
        return self.text

    def key(self) -> object:
        return fold(self.text)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        return isinstance(other, TextValue) and fold(other.text) == fold(self.text)

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "text": self.text}


@register_decoder(FactType.ENUM.value)
def _enum(data: dict[str, JSON]) -> Value:
    return EnumValue(str(data["value"]), bool(data.get("negated", False)))


@register_decoder(FactType.BOOLEAN.value)
def _boolean(data: dict[str, JSON]) -> Value:
    return BooleanValue(bool(data["value"]))


@register_decoder(FactType.TEXT.value)
def _text(data: dict[str, JSON]) -> Value:
    return TextValue(str(data["text"]))
