"""Calendar dates in text: explicit, month-day, day-of-month and relative forms."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import date, timedelta
from types import MappingProxyType
from typing import NamedTuple

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.temporal_text import (
    _FOLLOW_RE,
    _S,
    _alternation,
    _extend_left,
    _guard_ok,
    _needs,
    _select,
    _Source,
    _source,
    _weak_follow_ok,
)
from factdiff.values.base import FactType, Value
from factdiff.values.temporal import DateValue, _valid_day
from factdiff.values.weekday import WeekdayValue

# --------------------------------------------------------------------------- dates

_MONTHS: Mapping[str, int] = MappingProxyType(
    {
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
        "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
        "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
        "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    }
)  # fmt: skip
_WEEKDAYS: Mapping[str, int] = MappingProxyType(
    {
        "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
        "saturday": 5, "sunday": 6, "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3,
        "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
    }
)  # fmt: skip
_MONTH_RE = rf"(?P<mon>{_alternation(_MONTHS)})\b\.?"
_WD_FULL = _alternation(w for w in _WEEKDAYS if w.endswith("day"))
_YEAR_TAIL = rf"(?:,?{_S}(?P<y>[0-9]{{4}})\b)?(?![.,:/-]?[0-9])"
_ORD = r"(?P<ord>st|nd|rd|th)"
_NUMERIC_GUARD = ".+/:-"

_DATE_ISO = re.compile(
    r"(?P<y>[0-9]{4})(?P<sep>[-/])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})"
    r"(?![0-9a-su-z_]|[.,:/-][0-9])"
)
_DATE_NUMERIC = re.compile(
    r"(?P<a>[0-9]{1,2})(?P<sep>[-/.])(?P<b>[0-9]{1,2})(?P=sep)(?P<y>[0-9]{4})"
    r"(?![0-9a-z_]|[.,:/-][0-9])"
)
_DATE_MDY = re.compile(
    rf"{_MONTH_RE}{_S}(?:the{_S})?(?P<d>[0-9]{{1,2}}){_ORD}?\b{_YEAR_TAIL}(?!:[0-9])"
)
_DATE_DMY = re.compile(rf"(?P<d>[0-9]{{1,2}}){_ORD}?{_S}(?:of{_S})?{_MONTH_RE}{_YEAR_TAIL}")
_DATE_ORD_MONTH = re.compile(
    rf"(?P<d>[0-9]{{1,2}}){_ORD}{_S}of{_S}(?P<rel>this|next|last|the){_S}month\b"
)
_DATE_ORD = re.compile(rf"the{_S}(?P<d>[0-9]{{1,2}}){_ORD}\b(?!['’]?s\b)")
_DATE_ORD_BARE = re.compile(rf"(?P<d>[0-9]{{1,2}}){_ORD}\b(?!['’]?s\b)(?!{_S}of\b)")
_BARE_PREPOSITION_BEFORE = re.compile(r"(?<![a-z])(?:on|by|until|till|from|before|after)\s{1,3}$")
_DATE_WORD = re.compile(
    rf"(?P<dat>day{_S}after{_S}tomorrow)|(?P<dby>day{_S}before{_S}yesterday)"
    r"|(?P<today>today)|(?P<tomorrow>tomorrow)|(?P<yesterday>yesterday)"
)
_DATE_WEEKDAY = re.compile(
    rf"(?:(?P<mod>this{_S}coming|this|next|last|coming){_S}(?P<wd1>{_WD_FULL})"
    rf"|(?P<wd2>{_WD_FULL})(?:{_S}(?P<wk>this|next|last){_S}week)?)\b"
)
_SHORT_WEEKDAYS = frozenset(w for w in _WEEKDAYS if not w.endswith("day"))
_DATE_SHORT_WEEKDAY = re.compile(
    rf"(?<![a-z])(?P<wd>{_alternation(_SHORT_WEEKDAYS)})\.?(?=[ \t]+[0-9])"
)
"""A weekday abbreviation before a number (``Sat 8 pm``, ``Wed 10:00``), capitalised."""
_WEEKDAY_BEFORE = re.compile(rf"(?:{_alternation(_WEEKDAYS)})\.?,?{_S}$")
_THE_BEFORE = re.compile(rf"the{_S}$")
_LATER_BEFORE = re.compile(rf"(?:the|later){_S}$")
_DATE_PREPOSITION_BEFORE = re.compile(
    r"(?<![a-z])(?:on|by|until|till|from|since|through|thru|before|after|for)\s{1,4}$"
)
_ORDINAL_NOUN_WORDS = (
    "floor time times place one ones option choice row seat grade century street st avenue "
    "ave round day week month year edition generation person item line level step quarter "
    "hour attempt try stop house door table room of"
)
_ORDINAL_NOUNS = frozenset(_ORDINAL_NOUN_WORDS.split())
_RECURRING_BEFORE = re.compile(r"(?:every|each)\s{1,4}$")


def _closest(candidates: Iterable[date], ref: date) -> date | None:
    """The candidate nearest to ``ref``; the later one on a tie."""
    best: date | None = None
    for cand in candidates:
        if best is None or (abs(cand - ref), ref - cand) < (abs(best - ref), ref - best):
            best = cand
    return best


def _infer_year(month: int, day: int, ref: date) -> DateValue | None:
    years = (ref.year + k for k in range(-4, 5))
    found = _closest((date(y, month, day) for y in years if _valid_day(y, month, day)), ref)
    return None if found is None else DateValue.of(found)


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + delta
    return index // 12, index % 12 + 1


def _infer_month(day: int, ref: date) -> DateValue | None:
    months = (_shift_month(ref.year, ref.month, k) for k in range(-2, 3))
    found = _closest((date(y, m, day) for y, m in months if _valid_day(y, m, day)), ref)
    return None if found is None else DateValue.of(found)


def _safe_date(year: int | None, month: int, day: int) -> DateValue | None:
    if (year is not None and not 1 <= year <= 9999) or not _valid_day(year, month, day):
        return None
    return DateValue(year, month, day)


@functools.lru_cache(maxsize=1024)
def _month_day(month: int, day: int, year: int | None, ref: date | None) -> Value | None:
    if year is not None or not _valid_day(None, month, day):
        return _safe_date(year, month, day)
    if ref is not None:
        return _infer_year(month, day, ref)
    return DateValue(None, month, day)


def _named_month(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    written = src.text[m.start("mon") : m.end("mon")]
    if written == "may" and not m.group("ord") and not m.group("y"):
        return None  # lower-case "may" is the verb unless clearly a date
    year = int(m.group("y")) if m.group("y") else None
    return _month_day(_MONTHS[m.group("mon")], int(m.group("d")), year, ctx.reference)


def _iso(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    return _safe_date(int(m.group("y")), int(m.group("m")), int(m.group("d")))


def _numeric(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    a, b, year = int(m.group("a")), int(m.group("b")), int(m.group("y"))
    day_first = m.group("sep") == "." or a > 12
    month, day = (b, a) if day_first else (a, b)
    return _safe_date(year, month, day)


def _ord_month(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    ref = ctx.reference
    if ref is None:
        return _day_alone(int(m.group("d")))
    delta = {"next": 1, "last": -1}.get(m.group("rel"), 0)
    year, month = _shift_month(ref.year, ref.month, delta)
    return _safe_date(year, month, int(m.group("d")))


def _ordinal(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    """ "the 4th": a function word follows, or a date preposition precedes and no noun follows.

    Without a reference the date stays partial (the day alone)."""
    ref = ctx.reference
    if not _weak_follow_ok(src.low, m.end()):
        follow = _FOLLOW_RE.match(src.low, m.end())
        if follow is not None and follow.group(1) in _ORDINAL_NOUNS:
            return None
        if not _DATE_PREPOSITION_BEFORE.search(src.low, max(0, m.start() - 12), m.start()):
            return None
    day = int(m.group("d"))
    if ref is None:
        return _day_alone(day)
    return _infer_month(day, ref) if 1 <= day <= 31 else None


def _day_alone(day: int) -> DateValue | None:
    """A day of the month whose month cannot be known (no reference)."""
    return DateValue(None, None, day) if 1 <= day <= 31 else None


def _bare_ordinal(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    """ "on 12th", "by 3rd": an ordinal day right after a date preposition, no noun after."""
    if not _BARE_PREPOSITION_BEFORE.search(src.low, max(0, m.start() - 10), m.start()):
        return None
    follow = _FOLLOW_RE.match(src.low, m.end())
    if follow is not None and follow.group(1) in _ORDINAL_NOUNS:
        return None
    return _ordinal_day(int(m.group("d")), ctx)


def _ordinal_day(day: int, ctx: ExtractionContext) -> DateValue | None:
    if ctx.reference is None:
        return _day_alone(day)
    return _infer_month(day, ctx.reference) if 1 <= day <= 31 else None


@functools.lru_cache(maxsize=256)
def _shifted(ref: date, days: int) -> DateValue:
    return DateValue.of(ref + timedelta(days=days))


def _relative_word(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    if ctx.reference is None:
        return None
    shift = {"dat": 2, "dby": -2, "today": 0, "tomorrow": 1, "yesterday": -1}
    name = next(k for k in shift if m.group(k))
    return _shifted(ctx.reference, shift[name])


def _weekday(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    """A weekday as the date it names from the reference; without a reference, as a partial
    weekday value (``factdiff.values.weekday``)."""
    if _RECURRING_BEFORE.search(src.low, max(0, m.start() - 12), m.start()):
        return None
    target = _WEEKDAYS[m.group("wd1") or m.group("wd2")]
    mod, week = m.group("mod") or "", m.group("wk") or ""
    if ctx.reference is None:
        relation = f"{week} week" if week else ("last" if mod == "last" else "")
        return WeekdayValue(target, relation)
    return _weekday_date(target, mod, week, ctx.reference)


def _short_weekday(m: re.Match[str], src: _Source, ctx: ExtractionContext) -> Value | None:
    """``Sat 8 pm``: a capitalised weekday abbreviation before a time or a date, read as the
    weekday it names (lower case it is a word: ``sat 8 hours``)."""
    if not src.text[m.start()].isupper():
        return None
    target = _WEEKDAYS[m.group("wd")]
    if ctx.reference is None:
        return WeekdayValue(target, "")
    return _weekday_date(target, "", "", ctx.reference)


@functools.lru_cache(maxsize=256)
def _weekday_date(target: int, mod: str, week: str, ref: date) -> DateValue:
    """The date of weekday ``target`` under a modifier (see the module docstring)."""
    monday = ref - timedelta(days=ref.weekday())
    if week:
        offset = {"this": 0, "next": 7, "last": -7}[week]
        return DateValue.of(monday + timedelta(days=offset + target))
    if mod == "next":
        return DateValue.of(ref + timedelta(days=(target - ref.weekday() - 1) % 7 + 1))
    if mod == "last":
        return DateValue.of(ref - timedelta(days=(ref.weekday() - target - 1) % 7 + 1))
    return DateValue.of(ref + timedelta(days=(target - ref.weekday()) % 7))


class _DateRule(NamedTuple):
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], _Source, ExtractionContext], Value | None]
    guard: str
    prefixes: tuple[re.Pattern[str], ...] = ()
    words: frozenset[str] | None = None
    """The rule can only match a text containing one of these words."""
    digits: bool = False
    """The rule can only match a text with digits."""


_MONTH_WORDS = frozenset(_MONTHS)
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_WEEKDAY_WORDS = frozenset(w for w in _WEEKDAYS if w.endswith("day"))
_RELATIVE_WORDS = frozenset({"today", "tomorrow", "yesterday"})


_DATE_RULES = (
    _DateRule(_DATE_ISO, _iso, _NUMERIC_GUARD, digits=True),
    _DateRule(_DATE_NUMERIC, _numeric, _NUMERIC_GUARD, digits=True),
    _DateRule(_DATE_MDY, _named_month, "", (_WEEKDAY_BEFORE,), _MONTH_WORDS, True),
    _DateRule(
        _DATE_DMY, _named_month, ".,/$€£:-", (_THE_BEFORE, _WEEKDAY_BEFORE), _MONTH_WORDS, True
    ),
    _DateRule(_DATE_ORD_MONTH, _ord_month, "", (_THE_BEFORE,), frozenset({"month"}), True),
    _DateRule(_DATE_ORD, _ordinal, "", (_WEEKDAY_BEFORE,), _ORDINAL_SUFFIXES, True),
    _DateRule(
        _DATE_ORD_BARE, _bare_ordinal, _NUMERIC_GUARD, (_WEEKDAY_BEFORE,), _ORDINAL_SUFFIXES, True
    ),
    _DateRule(
        _DATE_WORD,
        _relative_word,
        "",
        (_LATER_BEFORE,),
        frozenset({"today", "tomorrow", "yesterday"}),
    ),
    _DateRule(_DATE_WEEKDAY, _weekday, "", words=_WEEKDAY_WORDS),
    _DateRule(_DATE_SHORT_WEEKDAY, _short_weekday, "", words=_SHORT_WEEKDAYS, digits=True),
)
_cache: list[tuple[str, ExtractionContext, list[Match]]] = []
"""The previous text's dates (the datetime recognizer needs them too)."""


def _date_candidates(src: _Source, ctx: ExtractionContext) -> list[Match]:
    if _cache and _cache[0][0] is src.text and _cache[0][1] == ctx:
        return _cache[0][2]
    found = _date_matches(src, ctx)
    _cache[:] = [(src.text, ctx, found)]
    return found


def _date_matches(src: _Source, ctx: ExtractionContext) -> list[Match]:
    found: list[Match] = []
    for rule in _DATE_RULES:
        if not _needs(src, rule.words, rule.digits):
            continue
        for m in rule.pattern.finditer(src.low):
            if not _guard_ok(src.low, m.start(), rule.guard):
                continue
            try:
                value = rule.build(m, src, ctx)
            except (OverflowError, ValueError):
                value = None  # a reference at the edge of the calendar
            if value is None:
                continue
            start = m.start()
            for prefix in rule.prefixes:
                start = _extend_left(src.low, start, prefix)
            found.append(Match(start, m.end(), value))
    return _select(found)


# --------------------------------------------------------------------------- recognizers


class DateRecognizer:
    """Finds calendar dates (explicit, and relative ones when a reference is set)."""

    fact_type = FactType.DATE

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping date matches."""
        return _date_candidates(_source(text), context)
