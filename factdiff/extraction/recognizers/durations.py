"""Durations in text, resolved to a date when they point from the reference."""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from decimal import Decimal
from types import MappingProxyType
from typing import NamedTuple

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.dates import _shift_month
from factdiff.extraction.recognizers.temporal_text import (
    _S,
    _alternation,
    _guard_ok,
    _select,
    _Source,
    _source,
)
from factdiff.extraction.wordtrie import word_start_alternation
from factdiff.values.base import FactType
from factdiff.values.duration import DurationValue
from factdiff.values.temporal import DateValue

# --------------------------------------------------------------------------- durations

_SMALL_NUMBERS: Mapping[str, int] = MappingProxyType(
    {
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
        "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19,
    }
)  # fmt: skip
_TENS: Mapping[str, int] = MappingProxyType(
    {
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90,
    }
)  # fmt: skip
_ONES_RE = _alternation(k for k, v in _SMALL_NUMBERS.items() if 1 <= v <= 9)
_BELOW_100_RE = (
    rf"(?:(?:{_alternation(_TENS)})(?:[\s-](?:{_ONES_RE}))?|{_alternation(_SMALL_NUMBERS)})"
)
_NUMBER_WORDS_RE = (
    rf"(?:(?:a|{_ONES_RE}){_S}hundred(?:{_S}(?:and{_S})?{_BELOW_100_RE}\b)?|{_BELOW_100_RE})"
)


def _number_words(text: str) -> Decimal | None:
    """Value of "twenty-one", "two hundred and five", "a"/"an" (1); ``None`` otherwise."""
    total, current = 0, 0
    tokens = [t for t in re.split(r"[\s-]+", text.lower()) if t and t != "and"]
    if not tokens:
        return None
    for token in tokens:
        if token in ("a", "an"):
            current += 1
        elif token in _SMALL_NUMBERS:
            current += _SMALL_NUMBERS[token]
        elif token in _TENS:
            current += _TENS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
            total, current = total + current, 0
        else:
            return None
    return Decimal(total + current)


_DURATION_UNITS_RE = (
    r"(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?"
    r"|months?|years?|yrs?)\b"
)
_AND_HALF = rf"{_S}and{_S}a{_S}half"
_DURATION = re.compile(
    rf"(?:(?P<halfof>half{_S}an?|a{_S}half)(?:{_S}|-)"
    rf"|(?P<num>[0-9]{{1,6}}(?:\.[0-9]{{1,6}})?(?![0-9])|{_NUMBER_WORDS_RE}\b|an?\b)"
    rf"(?P<half1>{_AND_HALF})?(?:{_S}|\s?-\s?))"
    rf"(?:(?P<biz>business|working|work){_S})?{_DURATION_UNITS_RE}"
    rf"(?P<half2>{_AND_HALF})?"
)
_DURATION_GUARD = ".,$€£/+-"
_UNIT_WORDS = frozenset(
    [
        "second",
        "seconds",
        "sec",
        "secs",
        "minute",
        "minutes",
        "min",
        "mins",
        "hour",
        "hours",
        "hr",
        "hrs",
        "day",
        "days",
        "week",
        "weeks",
        "wk",
        "wks",
        "fortnight",
        "fortnights",
        "month",
        "months",
        "year",
        "years",
        "yr",
        "yrs",
    ]
)
"""A duration needs one of these words: texts without any skip the duration regex."""
_DURATION_BEFORE = re.compile(r"(?P<word>in|within)\s{1,4}$")
_DURATION_AFTER = re.compile(rf"{_S}(?P<word>from{_S}(?:now|today)|ago)\b")
_ARTICLE_CONTEXT = re.compile(
    r"(?:in|within|for|after|about|around|over|under|than|least|most|only|just|"
    r"takes?|took|lasts?|lasted|another|next|last|past|nearly|almost|roughly)\s{1,4}$"
)
_RANGE_BEFORE = re.compile(
    rf"(?:[0-9]|(?<![a-z])(?:{_alternation(_SMALL_NUMBERS)}|{_alternation(_TENS)}))"
    r"\s{0,4}(?:to|or|-|–)\s{0,4}$"
)
_DURATION_JOIN = re.compile(rf"(?:\s{{0,2}},\s{{0,4}}|{_S})(?:and{_S})?$")


class _Span(NamedTuple):
    start: int
    end: int
    amount: Decimal
    unit: str
    business: bool
    weak: bool


def _duration_span(m: re.Match[str]) -> _Span | None:
    """A raw duration: amount in the unit's normalised base, before context is applied."""
    num, business = m.group("num"), m.group("biz") is not None
    half = bool(m.group("half1") or m.group("half2"))
    value = _raw_duration(num, half, m.group("unit"), business)
    if value is None:
        return None
    weak = num in ("a", "an", "one") and not half
    return _Span(m.start(), m.end(), value.amount, value.unit, business, weak)


@functools.lru_cache(maxsize=1024)
def _raw_duration(num: str | None, half: bool, unit: str, business: bool) -> DurationValue | None:
    """The duration "<num> [and a half] <unit>"; ``num`` is ``None`` for "half an <unit>"."""
    if num is None:
        amount = Decimal("0.5")
    else:
        parsed = Decimal(num) if num[0].isdigit() else _number_words(num)
        if parsed is None:
            return None
        amount = parsed + (Decimal("0.5") if half else 0)
    try:
        return DurationValue(amount, unit, business)
    except ValueError:
        return None


def _merge_durations(spans: list[_Span], low: str) -> list[_Span]:
    """Join "1 hour and 30 minutes" into one span of the same normalised unit."""
    merged: list[_Span] = []
    for span in spans:
        if merged:
            last = merged[-1]
            same = (last.unit, last.business) == (span.unit, span.business)
            if same and _DURATION_JOIN.fullmatch(low, last.end, span.start):
                total = last.amount + span.amount
                merged[-1] = _Span(last.start, span.end, total, span.unit, span.business, False)
                continue
        merged.append(span)
    return merged


def _add_business_days(start: date, days: int) -> date:
    """``start`` moved by ``days`` Monday-to-Friday days (no holidays)."""
    step = 1 if days >= 0 else -1
    weeks, left = divmod(abs(days), 5)
    if weeks and not left:
        weeks, left = weeks - 1, 5  # end on a business day even from a weekend start
    current = start + timedelta(days=7 * weeks * step)
    while left:
        current += timedelta(days=step)
        if current.weekday() < 5:
            left -= 1
    return current


@functools.lru_cache(maxsize=1024)
def _resolve(amount: Decimal, unit: str, business: bool, ref: date, sign: int) -> DateValue | None:
    """The date a duration points to from ``ref`` (forward when ``sign`` is 1)."""
    if unit == "second" or amount != amount.to_integral_value() or amount > 100_000:
        return None
    count = int(amount) * sign
    try:
        if business:
            return DateValue.of(_add_business_days(ref, count))
        if unit == "day":
            return DateValue.of(ref + timedelta(days=count))
        year, month = _shift_month(ref.year, ref.month, count)
        day = min(ref.day, calendar.monthrange(year, month)[1])
        return DateValue.of(date(year, month, day))
    except (OverflowError, ValueError):
        return None


def _final_duration(span: _Span, resolved: DateValue | None) -> DurationValue:
    return _duration_value(span.amount, span.unit, span.business, resolved)


@functools.lru_cache(maxsize=1024)
def _duration_value(
    amount: Decimal, unit: str, business: bool, resolved: DateValue | None
) -> DurationValue:
    return DurationValue(amount, unit, business, resolved)


_UNIT_ANCHOR = re.compile(word_start_alternation(_UNIT_WORDS, "[a-z]") + "(?![a-z])")
_BEFORE_UNIT = 64
"""A duration's amount and words before its unit fit in this many characters."""


def _anchored(low: str) -> list[re.Match[str]]:
    """``_DURATION.finditer(low)``, run only around the unit words (a duration ends with one):
    every match whose unit is one of them, in text order, without overlaps."""
    found: dict[int, re.Match[str]] = {}
    last_end = 0
    for unit in _UNIT_ANCHOR.finditer(low):
        start = max(last_end, unit.start() - _BEFORE_UNIT)
        for m in _DURATION.finditer(low, start, min(len(low), unit.end() + 24)):
            if m.start("unit") == unit.start():
                found[m.start()] = m
                last_end = m.end()
                break
    return [found[k] for k in sorted(found)]


def _duration_candidates(
    src: _Source, ctx: ExtractionContext, allow_weak: bool = False
) -> list[Match]:
    if _UNIT_WORDS.isdisjoint(src.vocab):
        return []
    low = src.low
    spans = [
        s
        for m in _anchored(low)
        if _guard_ok(low, m.start(), _DURATION_GUARD) and (s := _duration_span(m)) is not None
    ]
    found: list[Match] = []
    for span in _merge_durations(spans, low):
        start, end, sign = span.start, span.end, 0
        window = max(0, start - 12)
        before = _DURATION_BEFORE.search(low, window, start)
        after = _DURATION_AFTER.match(low, end)
        if before is not None and _guard_ok(low, before.start(), ""):
            start, sign = before.start(), 1
        elif after is not None:
            end, sign = after.end(), (-1 if after.group("word") == "ago" else 1)
        context = _ARTICLE_CONTEXT.search(low, window, span.start)
        weak_ok = context is not None and _guard_ok(low, context.start(), "")
        if span.weak and sign == 0 and not (weak_ok or allow_weak):
            continue  # "once a day", "one day I will": not a stated duration
        if span.weak and span.unit == "second" and span.amount <= 60 and not allow_weak:
            continue  # "in a minute", "just a sec": idioms for "soon"
        if _RANGE_BEFORE.search(low, window, span.start):
            continue  # "5 to 7 business days": a range is not one duration
        ref = ctx.reference
        resolved = None
        if ref is not None and sign != 0:
            resolved = _resolve(span.amount, span.unit, span.business, ref, sign)
        found.append(Match(start, end, _final_duration(span, resolved)))
    return _select(found)


class DurationRecognizer:
    """Finds durations; "in 3 days" also carries the resolved date when a reference is set."""

    fact_type = FactType.DURATION

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping duration matches."""
        return _duration_candidates(_source(text), context)
