"""Identifiers, emails, phone numbers and URLs: values, recognizers and parsers.

Decisions (all deterministic, both sides of a diff normalise the same way):

* **Identifiers are exact.** ``INV-9182`` and ``inv-9182`` differ; a leading ``#`` is kept
  (``#W4923227`` is not ``W4923227``). The only normalisation is whitespace, and for
  "noun + number" references (``Room 12`` -> ``room 12``, ``order #12`` -> ``order 12``) the
  noun is lowercased and the marker (``#``, ``number``, ``no.``, ``ID``) dropped, because
  they are ordinary language, not part of the code. The noun is kept only for short numbers
  (below :data:`LONG_REFERENCE_DIGITS` digits), where it carries the meaning: ``item ID:
  2872451762`` is ``2872451762``, the same key as that ID bare in JSON.
* **Emails** are lowercased entirely (local part too): RFC 5321 allows case-sensitive local
  parts, but no real mail system uses that, and a summary that recases an address has not
  changed the fact.
* **Phones** compare in E.164 (``+14082478880``). Numbers are parsed in
  ``ExtractionContext.default_region``; a national number with a trunk ``0`` that is invalid
  there is tried in :data:`FALLBACK_REGIONS` (``GB``: MultiWOZ writes ``01223356354``); where
  a possible (not only a valid) number is enough, a trunk-``0`` number possible in a fallback
  region is read there (``07642 970234`` is ``+447642970234``, as ``+44 7642 970234`` is). A
  number no region accepts keeps a digits-only form ``digits:5551234``.
* **URLs**: scheme and host lowercased, default port and trailing path slash dropped, trailing
  punctuation stripped. The key ignores the scheme: ``http://``, ``https://`` and a bare
  ``www.`` address of the same host and path are the same fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import JSON, FactType, Value, register_decoder

__all__ = [
    "FALLBACK_REGIONS",
    "EmailValue",
    "PhoneValue",
    "UrlValue",
]

FALLBACK_REGIONS: tuple[str, ...] = ("GB",)
"""Regions tried for a trunk-``0`` national number that is invalid in the default region."""

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class EmailValue(Value):
    """An email address; compared lowercased."""

    type: ClassVar[FactType] = FactType.EMAIL
    address: str

    def canonical(self) -> JSON:
        """The lowercased address."""
        return self.address.lower()

    def key(self) -> object:
        """The lowercased address."""
        return self.address.lower()

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "address": self.address}


@dataclass(frozen=True)
class PhoneValue(Value):
    """A phone number in E.164 (``+14082478880``) or ``digits:<digits>`` when unparseable."""

    type: ClassVar[FactType] = FactType.PHONE
    e164: str

    def canonical(self) -> JSON:
        """The normalised number."""
        return self.e164

    def key(self) -> object:
        """The normalised number."""
        return self.e164

    def digit_key(self) -> str | None:
        """The number's digits (it may also be read as a numeric identifier)."""
        return self.e164.removeprefix("digits:").removeprefix("+")

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "e164": self.e164}


@dataclass(frozen=True)
class UrlValue(Value):
    """A normalised http(s) or ``www.`` URL."""

    type: ClassVar[FactType] = FactType.URL
    url: str

    def canonical(self) -> JSON:
        """The normalised URL."""
        return self.url

    def key(self) -> object:
        """The URL without its scheme (``http``/``https``/none compare equal)."""
        _, sep, rest = self.url.partition("://")
        return rest if sep else self.url

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "url": self.url}


@register_decoder(FactType.EMAIL.value)
def _decode_email(data: dict[str, JSON]) -> Value:
    return EmailValue(str(data["address"]))


@register_decoder(FactType.PHONE.value)
def _decode_phone(data: dict[str, JSON]) -> Value:
    return PhoneValue(str(data["e164"]))


@register_decoder(FactType.URL.value)
def _decode_url(data: dict[str, JSON]) -> Value:
    return UrlValue(str(data["url"]))
