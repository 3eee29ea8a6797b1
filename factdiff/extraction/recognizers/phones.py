"""Phone numbers in text, normalised to E.164."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator

import phonenumbers

from factdiff.extraction.recognizers.base import ExtractionContext, Match, leftmost_longest
from factdiff.values.base import FactType
from factdiff.values.contact import FALLBACK_REGIONS, PhoneValue

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
_BARE = re.compile(r"\d(?<![\w$€£#/.,+-]\d)\d{6,14}(?![\w%/]|[.,-]\d)")
_LOCAL7 = re.compile(r"\d(?<![\w$€£#/.,+-]\d)\d{2}[-.]\d{4}(?![\w%/]|[.,-]\d)")
"""``_BARE`` and ``_LOCAL7`` check the character before their first digit after reading it,
so that their scans skip to digits (``re`` searches for a leading class on its own)."""
_GROUPED = re.compile(r"(?<![\w$€£#/.,+-])\+?\d{1,5}(?:[ .-]\d{2,8}){1,4}(?![\w%/]|[.,-]\d)")
_SEVEN_DIGITS = re.compile(r"[0-9](?:[\s().+-]{0,3}[0-9]){6}")
"""Seven digits with at most three separators between each: every phone shape has them."""
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


_ID_GOVERNS = re.compile(r"(?i)[\s:#.\"'_-]*(?:(?:number|no|id)[\s:#.\"'_-]*)?(?:is[\s:]*)?\Z")
"""What may stand between an ID cue and the number it names (``order 555-0147``, ``order
no. 5550147``, ``customer ID: ...``, ``"item_id": "...``); other words make the cue a noun of
the sentence (``call customer at 555-0147``)."""


def in_phone_context(text: str, start: int, window: int = 48) -> bool:
    """True when the nearest cue word before ``start`` speaks of a phone, not an ID; an ID
    cue that does not name the number (words between them) is passed over. Cues are read in
    the ``window`` characters before ``start``, whole words only (``Smartphone`` cut at the
    window's edge is no ``phone``)."""
    left = max(0, start - window)
    for cue in reversed(list(_CONTEXT_WORDS.finditer(text, left, start))):
        if cue.group(1) is None:
            if _ID_GOVERNS.match(text, cue.end(), start) is not None:
                return False
            continue  # ``call customer at``: the noun names no number here
        if cue.group(1).lower() == "number":
            return _ID_BEFORE_NUMBER.search(text, left, cue.start()) is None
        return True
    return False


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
        if _SEVEN_DIGITS.search(text) is None:
            return []  # every shape has 7+ digits: skip the scans
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
        for pattern in (_INTL, _NATIONAL0) if "+" in text else (_NATIONAL0,):
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
