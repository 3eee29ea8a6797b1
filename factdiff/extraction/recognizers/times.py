"""Times of day in text: digital, hour words, fractions, noon and time zones."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.temporal_text import (
    _S,
    _alternation,
    _guard_ok,
    _needs,
    _select,
    _Source,
    _source,
    _weak_follow_ok,
)
from factdiff.values.base import FactType
from factdiff.values.temporal import TIMEZONE_OFFSETS, TimeValue

# --------------------------------------------------------------------------- times

_HOUR_WORDS: Mapping[str, int] = MappingProxyType(
    {
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    }
)  # fmt: skip
_HOUR = rf"(?P<h>[0-9]{{1,2}}|(?:{_alternation(_HOUR_WORDS)})\b)(?![0-9]|[.,:][0-9])"
_AMPM = r"(?:\s?(?P<ampm>[ap])\.?m\b\.?)"
_PERIOD = (
    rf"(?:{_S}(?:in{_S}the|this){_S}(?P<per>morning|afternoon|evening|night)"
    rf"|{_S}(?:at{_S}(?P<atnight>night)|(?P<tonight>tonight)))"
)
_OCLOCK = r"(?P<oc>\s?o['’\"]?\s?clock\b)"
_TIME_GUARD = ":.,/$€£+"

_TIME_DIGITAL = re.compile(
    r"(?P<h>[0-9]{1,2}):(?P<m>[0-5][0-9])"
    r"(?::(?P<s>[0-5][0-9])(?:[.,][0-9]{1,9})?)?(?![0-9]|:[0-9]|[.,][0-9])"
    rf"{_AMPM}?{_PERIOD}?"
)
_TIME_DOTTED = re.compile(
    r"(?P<h>[0-9]{1,2})\.(?P<m>[0-5][0-9])(?![0-9]|[.,][0-9])"
    r"(?:\s?(?P<ampm>[ap])\.?m\b\.?)"
)
"""A time written with a dot (``7.30pm``, ``9.15 a.m.``): only with am/pm, since ``7.30`` alone
is a decimal."""
# The lookahead demands a marker after the hour: a bare number is not a time.
_MARKER_AHEAD = rf"(?=\s?o['’\"]?\s?clock\b|\s?[ap]\.?m\b|{_S}(?:in|this|at|tonight)\b)"
_TIME_HOUR_DIGITS = re.compile(
    rf"(?P<h>[0-9]{{1,2}})(?![0-9]|[.,:][0-9]){_MARKER_AHEAD}{_OCLOCK}?{_AMPM}?{_PERIOD}?"
)
_TIME_HOUR_WORDS = re.compile(
    rf"(?P<h>(?:{_alternation(_HOUR_WORDS)})\b)(?![0-9]|[.,:][0-9])"
    rf"{_MARKER_AHEAD}{_OCLOCK}?{_AMPM}?{_PERIOD}?"
)
"""An hour with a marker after it, in two scans: digits (a fast character-class start) and
hour words (run only on texts that contain one)."""
_TIME_FRACTION = re.compile(
    rf"(?P<q>half|quarter){_S}(?P<dir>past|after|to|till|before){_S}{_HOUR}"
    rf"{_OCLOCK}?{_AMPM}?{_PERIOD}?"
)
_TIME_NOON = re.compile(
    rf"(?:12|twelve)(?::00)?{_S}(?P<w1>noon|midnight)\b|(?P<w2>noon|midday|mid-day|midnight)\b"
)
_TIME_PREFIXED = re.compile(
    rf"(?P<per>morning|afternoon|evening|night){_S}(?P<h>[0-9]{{1,2}})"
    r"(?::(?P<m>[0-5][0-9]))?(?![0-9]|:[0-9]|[.,][0-9]|\s?[ap]\.?m\b)"
)
_TZ_NAMES = _alternation(k for k in TIMEZONE_OFFSETS if k != "Z")
_TZ_BODY = (
    r"(?:(?P<base>UTC|GMT)(?:\s?(?P<sign>[+\-−])\s?(?P<oh>[0-9]{1,2})(?::?(?P<om>[0-9]{2}))?)?"
    rf"|(?P<abbr>{_TZ_NAMES}))(?![A-Za-z0-9])"
)
_TZ_SPACED = re.compile(rf"\s?(?P<paren>\()?{_TZ_BODY}(?(paren)\))")
_TZ_GLUED = re.compile(r"(?:(?P<z>Z)|(?P<sign>[+\-−])(?P<oh>[0-9]{2}):?(?P<om>[0-9]{2}))(?![\w:])")


class _Zone(NamedTuple):
    end: int
    tz: str | None
    offset: int


def _signed(sign: str, hours: str, minutes: str | None) -> int | None:
    h, mins = int(hours), int(minutes or 0)
    if h > 14 or mins > 59:
        return None
    total = h * 60 + mins
    return -total if sign in "-−" else total


def _glued_zone(text: str, pos: int, local: int, lenient: bool) -> _Zone | None:
    """A ``Z`` or ``+HH:MM`` glued to a 24-hour time (see the module docstring)."""
    m = _TZ_GLUED.match(text, pos)
    if m is None:
        return None
    if m.group("z"):
        return _Zone(m.end(), "Z", 0)
    offset = _signed(m.group("sign"), m.group("oh"), m.group("om"))
    if offset is None:
        return None
    if offset < 0 and not lenient:
        hours, minutes = divmod(-offset, 60)
        if hours > 12 or minutes not in (0, 30, 45) or -offset >= local:
            return None
    return _Zone(m.end(), None, offset)


def _zone_at(text: str, pos: int) -> _Zone | None:
    """A zone abbreviation or ``UTC+2`` style offset after a time (upper case only)."""
    m = _TZ_SPACED.match(text, pos)
    if m is None:
        return None
    if m.group("abbr"):
        return _Zone(m.end(), m.group("abbr"), TIMEZONE_OFFSETS[m.group("abbr")])
    base = m.group("base")
    if not m.group("sign"):
        return _Zone(m.end(), base, 0)
    offset = _signed(m.group("sign"), m.group("oh"), m.group("om"))
    return None if offset is None else _Zone(m.end(), None, offset)


def _hour_value(raw: str) -> int:
    return _HOUR_WORDS.get(raw) or int(raw)


def _apply_period(hour: int, marker: str) -> int | None:
    """24-hour clock hour of ``hour`` read with am/pm or a part of the day."""
    if marker in ("a", "morning"):
        return None if not 0 <= hour <= 12 else hour % 12
    if marker == "afternoon" and not (hour == 12 or 1 <= hour % 12 <= 7):
        return None
    if marker == "evening" and not 4 <= hour % 12 <= 11:
        return None
    if marker in ("p", "afternoon", "evening"):
        if 13 <= hour <= 23:
            return hour  # "17:15 pm": redundant but unambiguous
        return None if not 1 <= hour <= 12 else hour % 12 + 12
    if marker == "night":
        if hour == 12:
            return 0
        if 1 <= hour <= 5 or 18 <= hour <= 23:
            return hour
        return None if not 6 <= hour <= 11 else hour + 12
    return hour if 0 <= hour <= 23 else None


def _marker(m: re.Match[str]) -> str:
    """The am/pm letter or part of the day a time regex matched, or ``""``."""
    groups = m.groupdict()
    if groups.get("ampm"):
        return str(groups["ampm"])
    if groups.get("per"):
        return str(groups["per"])
    if groups.get("atnight"):
        return "night"
    return "evening" if groups.get("tonight") else ""


def _time_found(
    m: re.Match[str], src: _Source, hour: int | None, minute: int, second: int | None, **kw: bool
) -> Match | None:
    """A candidate from a time match, with any zone that follows it."""
    if hour is None or not 0 <= hour <= 23:
        return None
    end, zone = m.end(), None
    if kw.get("glued"):
        zone = _glued_zone(src.text, end, hour * 60 + minute, kw.get("lenient", False))
    zone = zone or _zone_at(src.text, end)
    if zone is None:
        return Match(m.start(), end, TimeValue(hour, minute, second))
    return Match(m.start(), zone.end, TimeValue(hour, minute, second, zone.tz, zone.offset))


def _digital(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    marker = _marker(m)
    hour = _apply_period(int(m.group("h")), marker)
    second = int(m.group("s")) if m.groupdict().get("s") else None
    glued = not marker
    return _time_found(m, src, hour, int(m.group("m")), second, glued=glued, lenient=lenient)


def _hourly(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    marker = _marker(m)
    if not marker and not m.group("oc"):
        return None  # a bare number is not a time
    return _time_found(m, src, _apply_period(_hour_value(m.group("h")), marker), 0, None)


def _fraction(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    """ "half past 11", "quarter to 6 pm": am/pm applies to the resulting time (5:45 pm)."""
    hour, minute = _hour_value(m.group("h")), 30 if m.group("q") == "half" else 15
    if m.group("dir") in ("to", "till", "before"):
        if minute == 30:
            return None  # "half to six" is not English
        hour, minute = (hour - 1 if hour >= 2 else 12 if hour == 1 else 23), 45
    return _time_found(m, src, _apply_period(hour, _marker(m)), minute, None)


def _noon(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    hour = 0 if (m.group("w1") or m.group("w2")) == "midnight" else 12
    return _time_found(m, src, hour, 0, None)


def _prefixed(m: re.Match[str], src: _Source, lenient: bool) -> Match | None:
    if not m.group("m") and not _weak_follow_ok(src.low, m.end()):
        return None
    hour = _apply_period(int(m.group("h")), m.group("per"))
    return _time_found(m, src, hour, int(m.group("m") or 0), None)


class _TimeRule(NamedTuple):
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str], _Source, bool], Match | None]
    guard: str
    words: frozenset[str] | None = None
    digits: bool = False


_TIME_RULES = (
    _TimeRule(_TIME_DIGITAL, _digital, _TIME_GUARD, digits=True),
    _TimeRule(_TIME_DOTTED, _digital, _TIME_GUARD, digits=True),
    _TimeRule(_TIME_HOUR_DIGITS, _hourly, _TIME_GUARD, digits=True),
    _TimeRule(_TIME_HOUR_WORDS, _hourly, _TIME_GUARD, frozenset(_HOUR_WORDS)),
    _TimeRule(_TIME_FRACTION, _fraction, "", frozenset({"half", "quarter"})),
    _TimeRule(_TIME_NOON, _noon, "", frozenset({"noon", "midnight", "midday", "mid"})),
    _TimeRule(
        _TIME_PREFIXED, _prefixed, "", frozenset({"morning", "afternoon", "evening", "night"}), True
    ),
)
_cache: list[tuple[str, bool, list[Match]]] = []
"""The previous text's times (the datetime recognizer needs them too)."""


def _time_candidates(src: _Source, lenient: bool = False) -> list[Match]:
    if _cache and _cache[0][0] is src.text and _cache[0][1] == lenient:
        return _cache[0][2]
    found: list[Match] = []
    for rule in _TIME_RULES:
        if not _needs(src, rule.words, rule.digits):
            continue
        for m in rule.pattern.finditer(src.low):
            if _guard_ok(src.low, m.start(), rule.guard):
                cand = rule.build(m, src, lenient)
                if cand is not None:
                    found.append(cand)
    selected = _shared_zones(src.low, _select(found))
    _cache[:] = [(src.text, lenient, selected)]
    return selected


_RANGE_JOINT = re.compile(r"[ \t]*(?:-|–|—|to|until|till|through|thru|and)[ \t]*\Z")
"""What joins the two ends of a time range (``09:12-09:26``, ``between 9 and 11 am``)."""


def _shared_zones(low: str, times: list[Match]) -> list[Match]:
    """Times in text order, the first end of a range taking the zone written once after the
    second (``09:12-09:26 UTC`` is 09:12 UTC to 09:26 UTC)."""
    out = list(times)
    for i in range(len(out) - 1, 0, -1):
        first, second = out[i - 1], out[i]
        early, late = first.value, second.value
        if not (isinstance(early, TimeValue) and isinstance(late, TimeValue)):
            continue
        zoned = late.tz is not None or late.offset_minutes is not None
        if not zoned or early.tz is not None or early.offset_minutes is not None:
            continue
        if _RANGE_JOINT.match(low, first.end, second.start) is None:
            continue
        value = TimeValue(early.hour, early.minute, early.second, late.tz, late.offset_minutes)
        out[i - 1] = Match(first.start, first.end, value)
    return out


class TimeRecognizer:
    """Finds times of day; a bare number is never a time."""

    fact_type = FactType.TIME

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping time matches."""
        return _time_candidates(_source(text))
