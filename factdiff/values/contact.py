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

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

import phonenumbers

from factdiff.values.base import (
    JSON,
    ExtractionContext,
    FactType,
    Match,
    Value,
    leftmost_longest,
    register_decoder,
)

__all__ = [
    "CUED_GROUPED_DIGITS",
    "FALLBACK_REGIONS",
    "LONG_REFERENCE_DIGITS",
    "REFERENCE_NOUNS",
    "STRICT_REFERENCE_NOUNS",
    "EmailRecognizer",
    "EmailValue",
    "IdentifierRecognizer",
    "IdentifierValue",
    "PatternIdentifierRecognizer",
    "PhoneRecognizer",
    "PhoneValue",
    "UrlRecognizer",
    "UrlValue",
    "bare_digits_are_phone",
    "find_pattern",
    "in_phone_context",
    "normalize_phone",
    "normalize_url",
    "parse_email",
    "parse_identifier",
    "parse_phone",
    "parse_url",
    "token_is_identifier",
]

FALLBACK_REGIONS: tuple[str, ...] = ("GB",)
"""Regions tried for a trunk-``0`` national number that is invalid in the default region."""

_WS = re.compile(r"\s+")


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


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

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "text": self.text}


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


@register_decoder(FactType.IDENTIFIER.value)
def _decode_identifier(data: dict[str, JSON]) -> Value:
    return IdentifierValue(str(data["text"]))


@register_decoder(FactType.EMAIL.value)
def _decode_email(data: dict[str, JSON]) -> Value:
    return EmailValue(str(data["address"]))


@register_decoder(FactType.PHONE.value)
def _decode_phone(data: dict[str, JSON]) -> Value:
    return PhoneValue(str(data["e164"]))


@register_decoder(FactType.URL.value)
def _decode_url(data: dict[str, JSON]) -> Value:
    return UrlValue(str(data["url"]))


# --------------------------------------------------------------------------- emails

_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]{1,64})@([A-Za-z0-9.-]{1,253})")
_DOMAIN_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
_TLD = re.compile(r"[A-Za-z]{2,24}\Z")


def _valid_local(local: str) -> bool:
    return not (local.startswith(".") or local.endswith(".") or ".." in local)


def _trim_domain(domain: str) -> str | None:
    """The longest valid domain prefix without trailing dots/hyphens, or None."""
    domain = domain.rstrip(".-")
    labels = domain.split(".")
    if len(labels) < 2 or not _TLD.match(labels[-1]):
        return None
    if not all(_DOMAIN_LABEL.match(label) for label in labels):
        return None
    return domain


class EmailRecognizer:
    """Finds email addresses with a practical (not RFC-complete) pattern."""

    fact_type = FactType.EMAIL

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield every address; the domain is trimmed of trailing punctuation."""
        for m in _EMAIL.finditer(text):
            local, domain = m.group(1), _trim_domain(m.group(2))
            if domain is None or not _valid_local(local):
                continue
            end = m.start(2) + len(domain)
            if end < len(text) and text[end] == "@":
                continue
            yield Match(m.start(), end, EmailValue(f"{local}@{domain}".lower()))


def parse_email(text: str, context: ExtractionContext) -> EmailValue | None:
    """Parse one whole address (``mailto:`` and angle brackets allowed)."""
    candidate = text.strip().strip("<>").strip()
    if candidate.lower().startswith("mailto:"):
        candidate = candidate[7:]
    local, sep, domain = candidate.partition("@")
    if not sep or not local or len(local) > 64 or not _valid_local(local):
        return None
    if re.fullmatch(r"[A-Za-z0-9._%+-]+", local) is None:
        return None
    if _trim_domain(domain) != domain:
        return None
    return EmailValue(candidate.lower())


# --------------------------------------------------------------------------- urls

_URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s<>\"'`{}|\\^]{1,2048}")
_URL_TRAIL = ".,;:!?'\"*"
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_HOST = re.compile(r"(?i)(?:[a-z0-9-]+\.)+[a-z]{2,24}|localhost|\d{1,3}(?:\.\d{1,3}){3}")


def _trim_url(raw: str) -> str:
    """Strip trailing punctuation and unbalanced closing brackets."""
    counts = {c: raw.count(c) for c in "()[]{}"}
    end = len(raw)
    while end:
        last = raw[end - 1]
        closer = last in _CLOSERS and counts[last] > counts[_CLOSERS[last]]
        if last not in _URL_TRAIL and not closer:
            break
        if closer:
            counts[last] -= 1
        end -= 1
    return raw[:end]


def normalize_url(raw: str) -> str | None:
    """Normalised form of an http(s) or ``www.`` URL, or None if it is not one."""
    lowered = raw.lower()
    has_scheme = lowered.startswith(("http://", "https://"))
    if not has_scheme and not lowered.startswith("www."):
        return None
    try:
        parts = urlsplit(raw if has_scheme else "http://" + raw)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not _HOST.fullmatch(host):
        return None
    scheme = parts.scheme.lower()
    if port is not None and (scheme, port) not in {("http", 80), ("https", 443)}:
        host = f"{host}:{port}"
    if parts.username is not None:
        host = f"{parts.netloc.rpartition('@')[0]}@{host}"
    path = parts.path.rstrip("/") if parts.path.endswith("/") else parts.path
    url = (f"{scheme}://" if has_scheme else "") + host + path
    if parts.query:
        url += "?" + parts.query
    if parts.fragment:
        url += "#" + parts.fragment
    return url


class UrlRecognizer:
    """Finds ``http(s)://`` and ``www.`` URLs, without trailing punctuation."""

    fact_type = FactType.URL

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield every URL that normalises."""
        for m in _URL.finditer(text):
            raw = _trim_url(m.group())
            url = normalize_url(raw)
            if url is not None:
                yield Match(m.start(), m.start() + len(raw), UrlValue(url))


def parse_url(text: str, context: ExtractionContext) -> UrlValue | None:
    """Parse one whole URL."""
    raw = text.strip().strip("<>")
    if not raw or any(c.isspace() for c in raw):
        return None
    url = normalize_url(_trim_url(raw))
    return UrlValue(url) if url is not None else None


# --------------------------------------------------------------------------- phones

_E164 = phonenumbers.PhoneNumberFormat.E164
_NANP = re.compile(
    r"(?<![\w$€£#/,+-])(?<![\d.]\.)(?:\+?1[\s.-]?)?(?:\(\d{3}\)[ ]?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
    r"(?![\w%/]|[.,-]\d)"
)
_INTL = re.compile(r"(?<![\w$€£#/.,+-])\+\d[\d ().-]{5,20}\d(?![\w%/]|[.,-]\d)")
_NATIONAL0 = re.compile(
    r"(?<![\w$€£#/.,+-])(?:\(0\d{2,4}\)|0\d{2,4})[ -]?\d{3,4}[ -]?\d{3,4}(?![\w%/]|[.,-]\d)"
)
_BARE = re.compile(r"(?<![\w$€£#/.,+-])\d{7,15}(?![\w%/]|[.,-]\d)")
_LOCAL7 = re.compile(r"(?<![\w$€£#/.,+-])\d{3}[-.]\d{4}(?![\w%/]|[.,-]\d)")
_GROUPED = re.compile(r"(?<![\w$€£#/.,+-])\+?\d{1,5}(?:[ .-]\d{2,8}){1,4}(?![\w%/]|[.,-]\d)")
CUED_GROUPED_DIGITS = (9, 15)
"""Digit count of a grouped number (``07683 609856``, ``1793 414926``, ``+872 208 000``)
that reads as a phone after a phone cue even when no region validates it."""
_CONTEXT_WORDS = re.compile(
    r"(?i)(?<![a-z])(?:(phone|telephone|tel|call|calling|fax|mobile|cell|reach|reached|dial|"
    r"text|sms|whatsapp|contact(?:ing|ed)?|number)|(order|reference|ref|account|item|product|confirmation|"
    r"booking|tracking|invoice|ticket|case|customer|card|id|serial|model|zip|postal|postcode|"
    r"routing|flight|train|user|transaction|policy|claim|price|amount|total|cost))(?![a-z])"
)
_ID_BEFORE_NUMBER = re.compile(
    r"(?i)(?<![a-z])(?:order|reference|ref|account|item|product|confirmation|booking|tracking|"
    r"invoice|ticket|case|customer|card|serial|model|routing|flight|train|transaction|policy|"
    r"claim)[\s_]*\Z"
)


def in_phone_context(text: str, start: int, window: int = 48) -> bool:
    """True when the nearest cue word before ``start`` speaks of a phone, not an ID."""
    before = text[max(0, start - window) : start]
    cues = list(_CONTEXT_WORDS.finditer(before))
    last = cues[-1] if cues else None
    if last is None or last.group(1) is None:
        return False
    if last.group(1).lower() == "number":
        return _ID_BEFORE_NUMBER.search(before, 0, last.start()) is None
    return True


def _digits(text: str) -> str:
    return "".join(c for c in text if "0" <= c <= "9")


def _e164(number: phonenumbers.PhoneNumber) -> str:
    return phonenumbers.format_number(number, _E164)


def _parse_in(text: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None


def _valid_in(text: str, region: str) -> str | None:
    number = _parse_in(text, region)
    return _e164(number) if number is not None and phonenumbers.is_valid_number(number) else None


def _fully_possible(number: phonenumbers.PhoneNumber) -> bool:
    """Possible as a full number (a 7-digit local-only US number is not)."""
    reason = phonenumbers.is_possible_number_with_reason(number)
    return bool(reason == phonenumbers.ValidationResult.IS_POSSIBLE)


@functools.lru_cache(maxsize=4096)
def normalize_phone(text: str, region: str, *, strict: bool = False) -> str | None:
    """E.164 form of ``text`` (see the module docstring), or None.

    ``strict`` requires a number valid in some region (used by the recognizer for shapes
    that are not unmistakably phones); otherwise a possible number or a digits-only form
    is accepted.
    """
    digits = _digits(text)
    if not 7 <= len(digits) <= 15:
        return None
    if text.lstrip().startswith("+"):
        number = _parse_in(text, None)
        if number is not None and phonenumbers.is_valid_number(number):
            return _e164(number)
        if number is not None and not strict and _fully_possible(number):
            return _e164(number)
        return None if strict else "digits:+" + digits
    valid = _valid_in(text, region)
    if valid is not None:
        return valid
    if digits.startswith("0") and not digits.startswith("00"):
        for fallback in FALLBACK_REGIONS:
            valid = _valid_in(text, fallback) if fallback != region else None
            if valid is not None:
                return valid
    if strict:
        return None
    trunk = digits.startswith("0") and not digits.startswith("00")
    for candidate in (*(FALLBACK_REGIONS if trunk else ()), region):
        number = _parse_in(text, candidate)
        if number is not None and _fully_possible(number):
            return _e164(number)
    return "digits:" + digits


def bare_digits_are_phone(text: str, start: int, digits: str, region: str) -> str | None:
    """E.164 form when an unseparated digit run reads as a phone number, else None.

    After a phone cue (``phone``, ``call``, ``contact number``...; not ``order number``)
    any 7-15 digit run is a phone; elsewhere only a 10-11 digit trunk-``0`` run valid in
    the default or a fallback region (``01223356354``). The identifier recognizer skips
    exactly these runs.
    """
    if not 7 <= len(digits) <= 15:
        return None
    if 10 <= len(digits) <= 11 and digits[0] == "0" and digits[1] != "0":
        valid = normalize_phone(digits, region, strict=True)
        if valid is not None:
            return valid
    return normalize_phone(digits, region) if in_phone_context(text, start) else None


class PhoneRecognizer:
    """Finds phone numbers by shape; see :func:`normalize_phone` for the canonical form.

    Shapes: NANP with separators (``408-247-8880``, ``(408) 247 8880``, ``+1 408 247
    8880``); ``+`` international numbers valid in their country; trunk-``0`` national
    numbers valid in the default or a fallback region (``01223 356354``); unseparated
    digit runs per :func:`bare_digits_are_phone`; 7-digit ``555-1234`` after a phone
    cue; after a phone cue, any number written in 2+ digit groups with 9-15 digits
    (``07683 609856``, ``1793 414926``) that no other shape took. Dates, prices, decimals
    and digit runs glued to letters never match.
    """

    fact_type = FactType.PHONE

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping phone matches in text order."""
        return leftmost_longest(self._candidates(text, context.default_region))

    def _candidates(self, text: str, region: str) -> Iterator[Match]:
        shaped = list(self._shaped(text, region))
        yield from shaped
        spans = sorted((m.start, m.end) for m in shaped)
        for m in _GROUPED.finditer(text):
            low, high = CUED_GROUPED_DIGITS
            if not low <= len(_digits(m.group())) <= high or _overlaps(spans, m.start(), m.end()):
                continue
            if in_phone_context(text, m.start()):
                e164 = normalize_phone(m.group(), region)
                if e164 is not None:
                    yield Match(m.start(), m.end(), PhoneValue(e164))

    @staticmethod
    def _shaped(text: str, region: str) -> Iterator[Match]:
        for m in _NANP.finditer(text):
            e164 = normalize_phone(m.group(), region)
            if e164 is not None:
                yield Match(m.start(), m.end(), PhoneValue(e164))
        for pattern in (_INTL, _NATIONAL0):
            for m in pattern.finditer(text):
                raw = _trim_phone(m.group())
                e164 = normalize_phone(raw, region, strict=True)
                if e164 is not None:
                    yield Match(m.start(), m.start() + len(raw), PhoneValue(e164))
        for m in _BARE.finditer(text):
            e164 = bare_digits_are_phone(text, m.start(), m.group(), region)
            if e164 is not None:
                yield Match(m.start(), m.end(), PhoneValue(e164))
        for m in _LOCAL7.finditer(text):
            e164 = normalize_phone(m.group(), region)
            if e164 is not None and in_phone_context(text, m.start()):
                yield Match(m.start(), m.end(), PhoneValue(e164))


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps one of the sorted ``spans``."""
    i = bisect.bisect_left(spans, (end, end))
    return any(s < end and start < e for s, e in spans[max(0, i - 8) : i])


def _trim_phone(raw: str) -> str:
    """Drop an unbalanced trailing ``)`` or separator from a phone candidate."""
    raw = raw.rstrip(" .-")
    if raw.endswith(")") and raw.count(")") > raw.count("("):
        raw = raw[:-1].rstrip(" .-")
    return raw


def _span_order(match: Match) -> tuple[int, int]:
    return (match.start, -(match.end - match.start))


_PHONE_TEXT = re.compile(r"\+?[\d\s().-]+(?:\s*(?:ext\.?|x)\s*\d{1,6})?")


def parse_phone(text: str, context: ExtractionContext) -> PhoneValue | None:
    """Parse one whole phone number (``tel:`` prefix allowed; an extension is dropped)."""
    raw = text.strip()
    if raw.lower().startswith("tel:"):
        raw = raw[4:].strip()
    if not raw or _PHONE_TEXT.fullmatch(raw) is None:
        return None
    raw = re.split(r"(?i)\s*(?:ext\.?|x)\s*", raw)[0]
    e164 = normalize_phone(raw, context.default_region)
    return PhoneValue(e164) if e164 is not None else None


# --------------------------------------------------------------------------- identifiers

REFERENCE_NOUNS: tuple[str, ...] = (
    "item", "room", "table", "step", "platform", "gate", "seat", "row",
    "section", "floor", "terminal", "track", "aisle", "bay", "door", "suite", "unit",
    "building", "chapter", "page", "lane", "pump", "desk", "counter", "window", "box",
    "locker", "slot", "phase", "stage", "car", "coach", "carriage", "berth", "cabin",
    "bus", "route", "apartment", "apt",
)  # fmt: skip
"""Position-like nouns (also ``line item``): ``room 12`` is a reference with any number."""

STRICT_REFERENCE_NOUNS: tuple[str, ...] = (
    "order", "ticket", "case", "invoice", "account", "claim", "policy", "booking",
    "reservation", "transaction", "flight", "train", "shipment", "tracking", "issue",
    "bug", "request", "job", "task", "incident", "batch", "lot", "contract", "po",
    "quote", "receipt", "member", "membership", "customer", "user",
    "employee", "patient", "student", "loan", "application", "confirmation", "reference",
)  # fmt: skip
"""Nouns that are also verbs (``order 2 coffees``; also ``purchase order``): a reference
needs ``#``/``number``/``no.``/``id`` or 3+ digits."""


_POS_NOUNS = frozenset(REFERENCE_NOUNS)
_STRICT_NOUNS = frozenset(STRICT_REFERENCE_NOUNS)
_TWO_WORD_NOUNS = {"item": "line", "order": "purchase"}
_COUNTED = (
    r"bath|bathrooms?|beds?|bedrooms?|baths?|people|persons?|guests?|adults?|kids|children|"
    r"nights?|days?|hours?|minutes?|weeks?|months?|years?|times|seats?|tickets?|rooms?|"
    r"tables?|items?|pieces?|stars?|x|or|to|and|through|thru"
)
_NOT_A_REFERENCE_AFTER = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|may\s{1,3}\d|[ap]\.?m\b"
)
"""After the number: a month (``apartment 5 Mar 2019`` states a date) or am/pm (a time)."""
_NOUN_REF = re.compile(
    r"(?i)(?<![\w-])(?P<noun>[a-z]{2,12})"
    r"(?P<word>\s{1,3}(?:number|num|no\.?|nr\.?|id)(?![a-z]):?)?"
    r"(?:\s{1,3}#?|\s{0,3}#)(?:(?<=#)[ \t])?"
    rf"(?P<num>\d{{1,12}})(?![\w$%/]|[.,:]\d|-\w|\s{{0,3}}-|\s{{1,3}}(?:{_COUNTED})\b"
    rf"|\s{{1,3}}(?:{_NOT_A_REFERENCE_AFTER}))"
)
_TWO_WORD_BEFORE = re.compile(r"(?i)(line|purchase)\s{1,3}\Z")

LONG_REFERENCE_DIGITS = 4
"""From this many digits on, the number after a reference noun is the identifier on its own
(``item ID: 2872451762`` is ``2872451762``, as it is in a JSON ``"item_id"``)."""


def _noun_ref(text: str, m: re.Match[str]) -> tuple[int, str] | None:
    """(start, value) of a short "noun + number" reference match, or None if it is not one.

    The value is ``noun number``: the noun lowercased, the marker (``#``, ``number``,
    ``no.``, ``id``) dropped, so ``Order #12`` and ``order number 12`` are one reference.
    """
    noun, num = m.group("noun").lower(), m.group("num")
    marked = m.group("word") is not None or "#" in text[m.end("noun") : m.start("num")]
    if noun not in _POS_NOUNS and not (noun in _STRICT_NOUNS and (marked or len(num) >= 3)):
        return None
    start = m.start()
    before = _TWO_WORD_BEFORE.search(text, max(0, start - 12), start)
    if before is not None and _TWO_WORD_NOUNS.get(noun) == before.group(1).lower():
        start, noun = before.start(), f"{before.group(1).lower()} {noun}"
    return start, f"{noun} {num}"


def _long_ref(text: str, m: re.Match[str], region: str) -> Match | None:
    """The bare number (``#`` kept when glued) of a long reference; phones are left alone."""
    start = _long_ref_start(text, m)
    if start is None or bare_digits_are_phone(text, m.start("num"), m.group("num"), region):
        return None
    return Match(start, m.end("num"), IdentifierValue(text[start : m.end("num")]))


def _long_ref_start(text: str, m: re.Match[str]) -> int | None:
    """Start of the bare number of a long reference after a reference noun or ``ID``."""
    noun, word = m.group("noun").lower(), (m.group("word") or "").strip(" \t:").lower()
    if noun not in _POS_NOUNS and noun not in _STRICT_NOUNS and word != "id":
        return None
    start = m.start("num")
    return start - 1 if text[start - 1] == "#" else start


_ROLE_WORDS = frozenset({
    "SYSTEM", "USER", "ASSISTANT", "AGENT", "CUSTOMER", "TOOL", "BOT", "HUMAN", "CALLER",
    "OPERATOR", "PLEASE", "NUMBER", "PENDING", "UNKNOWN", "NONE", "NULL", "INVALID", "ERROR",
    "CONFIRMED", "CANCELLED", "CANCELED", "NOTE", "BELOW", "ABOVE",
})  # fmt: skip
"""All-caps words that follow a reference cue without being a code (speaker labels...)."""
_REF_CUE = re.compile(
    r"(?i:\b(?:reference|ref\.?|(?:confirmation|reservation)\s(?:number|code|no\.?|\#)|"
    r"booking\s(?:reference|"
    r"ref|code|number|id)|record\slocator|locator|pnr)(?![A-Za-z])(?:\s(?:number|no\.?|code|id|\#))?)"
    r"(?:[ \t]{0,8}(?:is|was|will\sbe|now|:|=|\#)){0,3}[ \t]{0,8}(?P<code>[A-Z0-9]{5,12})"
    r"(?![\w@/:-])"
)
_TOKEN = re.compile(
    r"(?<![\w.:/@#$€£¥+&=%-])#?[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*(?![\w@/%]|[.,:][A-Za-z0-9]|[-_]\w)"
)
_UNIT_LIKE = re.compile(r"\d+[A-Za-z]{1,3}|\d+[a-z]+|[A-Za-z]{1,2}\d{1,2}|[a-z]+\d{1,2}")
_WORD_DIGIT = re.compile(r"[a-z]+-\d{1,2}|[A-Za-z]+[-_]\d|\d+-[a-z]+(?:-[a-z]+)*")
_STOP_TOKENS = frozenset({"covid-19", "covid19", "sars-cov-2", "mp3", "mp4", "wi-fi", "24x7"})


def _segment_is_code(segment: str) -> bool:
    has_alpha = any(c.isalpha() for c in segment)
    has_digit = any(c.isdigit() for c in segment)
    return has_alpha and has_digit and len(segment) >= 4 and not _UNIT_LIKE.fullmatch(segment)


def token_is_identifier(token: str) -> bool:
    """True for schema-free ID shapes (see :class:`IdentifierRecognizer`)."""
    body = token.removeprefix("#")
    if body.casefold() in _STOP_TOKENS or not any(c.isdigit() for c in body):
        return False
    segments = re.split(r"[_-]", body)
    if all(s.isdigit() for s in segments) and len(segments) > 1:
        return False
    if body.isdigit():
        return (
            len(body) >= 8
            or (len(body) >= 6 and body[0] == "0")
            or (token.startswith("#") and len(body) >= 3)
        )
    if any(_segment_is_code(s) for s in segments):
        return True
    if len(segments) < 2 or _WORD_DIGIT.fullmatch(body):
        return False
    digit_runs = [s for s in segments if s.isdigit()]
    return any(len(s) >= 3 for s in digit_runs) or (
        any(len(s) >= 2 for s in digit_runs) and segments[0].isupper()
    )


def _masked_spans(text: str, context: ExtractionContext) -> list[tuple[int, int]]:
    """Merged, sorted spans of emails and URLs (identifiers never start inside them)."""
    spans = [(m.start, m.end) for m in EmailRecognizer().find(text, context)]
    spans += [(m.start, m.end) for m in UrlRecognizer().find(text, context)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


class IdentifierRecognizer:
    """Finds schema-free identifiers with precision first.

    * Tokens (``#``, letters, digits, ``_``/``-`` joins) where one segment mixes letters and
      digits and has 4+ characters (``W4923227``, ``YF86GE4J``, ``lopez3271``), or joined
      codes with a 3+ digit segment (``cust_482``, ``CM-3392``, ``credit_card_8897086``) or
      an uppercase prefix and 2+ digits (``A-12``).
    * Digit runs of 8+ digits (``1008292230``), 6+ digits with a leading zero
      (``00000013``), ``#`` + 3+ digits; a run that reads as a phone number is left to
      :class:`PhoneRecognizer`.
    * All-caps codes of 5-12 characters after a reference cue on the same line ("reference
      number is now ZVHHCNYU"); never a speaker label (``SYSTEM:``) or a status word.
    * "Noun + number" references with a short number (:data:`REFERENCE_NOUNS` with any
      number, :data:`STRICT_REFERENCE_NOUNS` with ``#``/``number``/``no.`` or 3 digits); the
      value is ``room 12``/``order 123``: noun lowercased, marker dropped. From
      :data:`LONG_REFERENCE_DIGITS` digits on, a number after such a noun or after ``ID``
      is the identifier alone (``#`` kept when glued), unless it reads as a phone. A number
      followed by a month or am/pm is a date or time, not a reference.

    Never: dates, times, money, decimals, ordinals (``3rd``), units (``10kg``, ``5pm``,
    ``2x``), compounds like ``3-bedroom`` or ``covid-19``, words, or text inside an email
    address or URL.
    """

    fact_type = FactType.IDENTIFIER

    @staticmethod
    def with_pattern(pattern: re.Pattern[str]) -> PatternIdentifierRecognizer:
        """A recognizer for one schema-declared ID pattern (e.g. ``cust_\\d+``)."""
        return PatternIdentifierRecognizer(pattern)

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield identifier matches in text order, without overlaps."""
        masked = _masked_spans(text, context)
        found = sorted(self._candidates(text, context), key=_span_order)
        last_end, j = -1, 0
        for match in found:
            while j < len(masked) and masked[j][1] <= match.start:
                j += 1
            if j < len(masked) and masked[j][0] < match.end:
                continue
            if match.start >= last_end:
                last_end = match.end
                yield match

    def _candidates(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        for m in _NOUN_REF.finditer(text):
            if len(m.group("num")) >= LONG_REFERENCE_DIGITS:
                long_ref = _long_ref(text, m, context.default_region)
                if long_ref is not None:
                    yield long_ref
                continue
            ref = _noun_ref(text, m)
            if ref is not None:
                yield Match(ref[0], m.end(), IdentifierValue(ref[1]))
        for m in _REF_CUE.finditer(text):
            if m.group("code") not in _ROLE_WORDS:
                yield Match(m.start("code"), m.end("code"), IdentifierValue(m.group("code")))
        for m in _TOKEN.finditer(text):
            token = m.group()
            if not token_is_identifier(token):
                continue
            if token.isdigit() and bare_digits_are_phone(
                text, m.start(), token, context.default_region
            ):
                continue
            yield Match(m.start(), m.end(), IdentifierValue(token))


def _lower_noun(text: str) -> str:
    """``Room 12`` -> ``room 12``, ``item ID 2872451762`` -> ``2872451762`` (see the recognizer)."""
    m = _NOUN_REF.match(text)
    if m is None or m.end() != len(text):
        return text
    if len(m.group("num")) >= LONG_REFERENCE_DIGITS:
        start = _long_ref_start(text, m)
        return text[start:] if start is not None else text
    ref = _noun_ref(text, m)
    return ref[1] if ref is not None else text


@dataclass(frozen=True)
class PatternIdentifierRecognizer:
    """Finds one schema-declared ID pattern, bounded by non-word characters."""

    pattern: re.Pattern[str]
    fact_type: ClassVar[FactType] = FactType.IDENTIFIER

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield every bounded match of the pattern."""
        return find_pattern(text, self.pattern)


_BOUNDED: dict[tuple[str, int], re.Pattern[str]] = {}


def find_pattern(text: str, pattern: re.Pattern[str]) -> Iterator[Match]:
    """Matches of ``pattern`` not glued to word characters, as identifiers (text exact)."""
    cache_key = (pattern.pattern, pattern.flags)
    bounded = _BOUNDED.get(cache_key)
    if bounded is None:
        bounded = re.compile(rf"(?<!\w)(?:{pattern.pattern})(?!\w)", pattern.flags)
        _BOUNDED[cache_key] = bounded
    for m in bounded.finditer(text):
        if m.end() > m.start():
            yield Match(m.start(), m.end(), IdentifierValue(m.group()))


def parse_identifier(text: str, context: ExtractionContext) -> IdentifierValue | None:
    """Parse one whole identifier: whitespace collapsed, otherwise exact."""
    cleaned = _collapse(text)
    if not cleaned or not any(c.isalnum() for c in cleaned):
        return None
    return IdentifierValue(_lower_noun(cleaned))
