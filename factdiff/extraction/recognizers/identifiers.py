"""Identifiers in text: codes, long digit runs and "noun + number" references."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from factdiff.extraction.recognizers.base import ExtractionContext, Match, lowered, vocabulary
from factdiff.extraction.recognizers.emails_urls import EmailRecognizer, UrlRecognizer
from factdiff.extraction.recognizers.phones import _span_order, bare_digits_are_phone
from factdiff.extraction.wordfind import matches_at, matches_starting_with
from factdiff.extraction.wordtrie import trie_alternation, word_start_alternation
from factdiff.values.base import FactType
from factdiff.values.contact import _WS
from factdiff.values.identifier import IdentifierValue


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


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
    "order", "ticket", "case", "invoice", "account", "acct", "claim", "policy", "booking",
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
    r"tables?|items?|pieces?|stars?|x|(?:or|to|and|through|thru)(?=\s{1,3}\d)"
)
"""Words after a number that count it (``3 nights``) or make it a range's first end (``5 to
7``; not ``case 88213 to tier 2``)."""
_NOT_A_REFERENCE_AFTER = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|may\s{1,3}\d|[ap]\.?m\b"
)
"""After the number: a month (``apartment 5 Mar 2019`` states a date) or am/pm (a time)."""
_MARKER = (
    r"(?P<word>\s{1,3}(?:number|num|no\.?|nr\.?|id)(?![a-z]):?)?"
    r"(?:\s{1,3}#?|\s{0,3}#)(?:(?<=#)[ \t])?"
)
"""What stands between a reference noun and its number: ``number``, ``no.``, ``id``, ``#``."""
_COUNTED_AFTER = rf"\s{{1,3}}(?:{_COUNTED})\b|\s{{1,3}}(?:{_NOT_A_REFERENCE_AFTER})"
"""After a reference's number: a count, a range, a month or am/pm (no reference)."""
_NOUN_REF = re.compile(
    r"(?i)(?<![\w-])(?P<noun>[a-z]{2,12})"
    + _MARKER
    + rf"(?P<num>\d{{1,12}})(?![\w$%/]|[.,:]\d|-\w|\s{{0,3}}-|{_COUNTED_AFTER})"
)
_SCANNED_NOUNS = frozenset([*REFERENCE_NOUNS, *STRICT_REFERENCE_NOUNS])
_NOUN_REF_SCAN = re.compile(
    r"(?<![\w-])(?P<noun>"
    + trie_alternation(_SCANNED_NOUNS)
    + r")(?![a-z])"
    + _NOUN_REF.pattern.removeprefix(r"(?i)(?<![\w-])(?P<noun>[a-z]{2,12})")
)
"""``_NOUN_REF`` for scanning, run case-sensitively on the lower-cased text where a reference
noun the text has starts: the noun only from the reference nouns, so the scan does not try
every word; any other noun counts only before ``ID`` (found by :data:`_ID_WORD`)."""
_DASHED_REF = re.compile(
    r"(?<![\w-])(?:"
    + trie_alternation(_STRICT_NOUNS)
    + r")"
    + _MARKER
    + rf"(?P<num>\d{{2,}}(?:-\d{{2,}}){{1,3}})(?![\w-]|[.,:]\d|{_COUNTED_AFTER})"
)
"""A number in dash-joined digit groups after a strict reference noun (``order 555-0147``,
``case 2023-1187``): the number alone is the identifier (scanned on the lower-cased text).
Position nouns are left out: ``rooms 12-14`` is a range."""
_ID_WORD = re.compile(r"(?<![a-z])id(?![a-z])")
_NOUN_BEFORE_ID = re.compile(r"(?i)(?<![\w-])[a-z]{2,12}\s{1,3}\Z")
_REF_CUE_WORDS = frozenset(
    {"reference", "ref", "confirmation", "reservation", "booking", "record", "locator", "pnr"}
)
_REF_CUE_START = re.compile(word_start_alternation(_REF_CUE_WORDS, "[a-z0-9_]") + "(?![a-z])")
_DIGIT_RUN = re.compile(r"[0-9]+")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-#")
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
    r"(?<![\w.:/@#$€£¥+&=%-])(?=#?[A-Za-z0-9_-]*[0-9])"
    r"#?[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*(?![\w@/%]|[.,:][A-Za-z0-9]|[-_]\w)"
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
    * Release versions (``v2.4.0``, ``version 2.4.1``: ``v2.4.1``; ``4.2.1`` where it reads
      as no date or time).
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
        for m in _noun_refs(text):
            if len(m.group("num")) >= LONG_REFERENCE_DIGITS:
                long_ref = _long_ref(text, m, context.default_region)
                if long_ref is not None:
                    yield long_ref
                continue
            ref = _noun_ref(text, m)
            if ref is not None:
                yield Match(ref[0], m.end(), IdentifierValue(ref[1]))
        yield from _dashed_refs(text)
        yield from _card_endings(text)
        yield from _versions(text)
        for m in _ref_cues(text):
            if m.group("code") not in _ROLE_WORDS:
                yield Match(m.start("code"), m.end("code"), IdentifierValue(m.group("code")))
        for m in _tokens(text):
            token = m.group()
            if not token_is_identifier(token):
                continue
            if token.isdigit() and bare_digits_are_phone(
                text, m.start(), token, context.default_region
            ):
                continue
            yield Match(m.start(), m.end(), IdentifierValue(token))


_VERSION = re.compile(
    r"(?<![\w.-])(?:[vV](?P<bare>\d+(?:\.\d+){1,3})"
    r"|(?i:version|release|build)[ \t]+[vV]?(?P<named>\d+(?:\.\d+){1,3})"
    r"|(?P<triple>\d{1,3}\.\d{1,3}\.\d{1,3}))"
    r"(?P<label>-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\w-]|\.\w)"
)
"""A release version: ``v2.4.0``, ``version 2.4.1``, ``release 3.1``, ``v1.2.0-rc.1``, and
three dotted numbers that read as no date or time (``4.2.1``)."""


_DOTTED_NUMBERS = re.compile(r"\d\.\d")


def _date_or_time(triple: str) -> bool:
    """Whether three dotted numbers may be a date (``12.03.24``, ``3.12.2024``) or a time of
    day (``10.30.45``)."""
    parts = triple.split(".")
    first, second, third = (int(part) for part in parts)
    if len(parts[2]) in (2, 4) and (
        (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)
    ):
        return True
    return len(parts[1]) == len(parts[2]) == 2 and first <= 23 and second <= 59 and third <= 59


_VERSION_VALUE = re.compile(r"[vV]\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.]+)?")


def is_version(value: object) -> bool:
    """Whether a value is a release version identifier (``v2.4.0``)."""
    return isinstance(value, IdentifierValue) and _VERSION_VALUE.fullmatch(value.text) is not None


def _versions(text: str) -> Iterator[Match]:
    """Release versions (:data:`_VERSION`) as identifiers ``v<numbers>``, one value however
    written (``version 2.4.1`` is ``v2.4.1``); the span is the version's own."""
    if _DOTTED_NUMBERS.search(text) is None:
        return  # every version has two numbers joined by a dot: most texts have none
    for m in _VERSION.finditer(text):
        group = next(name for name in ("bare", "named", "triple") if m.group(name))
        if group == "triple" and _date_or_time(m.group(group)):
            continue
        start = m.start() if group == "bare" else m.start(group)
        value = f"v{m.group(group)}{m.group('label') or ''}"
        yield Match(start, m.end(), IdentifierValue(value))


_CARD_WORDS = (
    "card", "cards", "visa", "mastercard", "amex", "discover", "debit", "credit", "account",
    "acct", "iban",
)  # fmt: skip
_CARD_ENDING = re.compile(
    r"(?:(?:ending|ends)(?:[ \t]+(?:in|with))?|(?P<last>last[ \t]+(?:four|4)(?:[ \t]+digits)?"
    r"(?:[ \t]+(?:of|are|is))?[ \t]*:?))[ \t]{1,3}#?(?P<num>\d{4})(?![\w.,/-]\d|\d)"
    r"|(?<![\w*.…•])(?:x|\*{2,}|…|\.{3}|•{2,})[ \t]?(?P<masked>\d{4})(?![\w.,/-]\d|\d)"
)
"""A payment card's or account's last four digits: ``ending in 4421``, ``last four 4421``,
``x4421``, ``****4421``, ``...4421``; one fact however written (``ending 4421``)."""
_CARD_WORD_BEFORE = re.compile(
    r"(?<![a-z])(?:" + "|".join(_CARD_WORDS) + r")(?![a-z])[^.;\n]{0,24}\Z"
)
"""A card or account word shortly before its ending (``Amex x1009``, ``the Visa card ending in
4421``; not ``the meeting ends in 2024``)."""


def _card_endings(text: str) -> Iterator[Match]:
    """:data:`_CARD_ENDING` matches as identifiers ``ending 4421``: after a card or account
    word in their sentence, or after ``last four``."""
    low = lowered(text)
    if "last" not in low and vocabulary(text).isdisjoint(_CARD_WORDS):
        return  # neither a card word nor ``last four``: no ending counts
    for m in _CARD_ENDING.finditer(low):
        carded = _CARD_WORD_BEFORE.search(low, max(0, m.start() - 40), m.start()) is not None
        if not (carded or m.group("last")):
            continue
        digits = m.group("masked") or m.group("num")
        yield Match(m.start(), m.end(), IdentifierValue(f"ending {digits}"))


def _dashed_refs(text: str) -> Iterator[Match]:
    """:data:`_DASHED_REF` matches, tried only where a strict reference noun starts."""
    if "-" not in text:
        return
    nouns = vocabulary(text) & _STRICT_NOUNS
    if not nouns:
        return
    low = lowered(text)
    for m in matches_starting_with(_DASHED_REF, low, nouns):
        start, end = m.span("num")
        yield Match(start, end, IdentifierValue(text[start:end]))


def _ref_cues(text: str) -> Iterator[re.Match[str]]:
    """``_REF_CUE`` matches, tried only where a reference cue word starts (found on the
    lower-cased text), since the code after it is case-sensitive."""
    if _REF_CUE_WORDS.isdisjoint(vocabulary(text)):
        return
    starts = (cue.start() for cue in _REF_CUE_START.finditer(lowered(text)))
    yield from matches_at(_REF_CUE, text, starts)


def _noun_refs(text: str) -> list[re.Match[str]]:
    """``_NOUN_REF`` matches: after a reference noun, or after any noun followed by ``ID``."""
    found = {}
    low, words = lowered(text), vocabulary(text)
    for scanned in matches_starting_with(_NOUN_REF_SCAN, low, words & _SCANNED_NOUNS):
        full = _NOUN_REF.match(text, scanned.start())
        if full is not None:
            found[scanned.start()] = full
    if "id" in words:
        for word in _ID_WORD.finditer(low):
            before = _NOUN_BEFORE_ID.search(text, max(0, word.start() - 16), word.start())
            if before is not None and before.start() not in found:
                full = _NOUN_REF.match(text, before.start())
                if full is not None:
                    found[before.start()] = full
    ordered = sorted(found.values(), key=lambda m: m.start())
    kept: list[re.Match[str]] = []
    for m in ordered:
        if not kept or m.start() >= kept[-1].end():
            kept.append(m)
    return kept


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """``_TOKEN`` matches, found from the digit runs (a token has a digit): the same matches
    as ``_TOKEN.finditer`` without trying the pattern at every position."""
    last_end = 0
    for run in _DIGIT_RUN.finditer(text):
        if run.start() < last_end:
            continue
        start = run.start()
        while start > last_end and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        for begin in range(start, run.start() + 1):
            found = _TOKEN.match(text, begin)
            if found is not None:
                last_end = found.end()
                yield found
                break


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
