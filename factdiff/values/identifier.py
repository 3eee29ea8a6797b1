"""Identifiers: opaque codes compared exactly (case and punctuation kept)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import JSON, FactType, Value, register_decoder

# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class IdentifierValue(Value):
    """An opaque identifier, compared exactly (case and punctuation kept)."""

    type: ClassVar[FactType] = FactType.IDENTIFIER
    text: str

    def canonical(self) -> JSON:
        """The identifier as written."""
        return self.text

    def key(self) -> object:
        """The exact text."""
        return self.text

    def digit_key(self) -> str | None:
        """The digits of an all-digit identifier of 7+ digits (it may be a phone number)."""
        text = self.text.removeprefix("#")
        return text if text.isdigit() and len(text) >= 7 else None

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "text": self.text}


@register_decoder(FactType.IDENTIFIER.value)
def _decode_identifier(data: dict[str, JSON]) -> Value:
    return IdentifierValue(str(data["text"]))
