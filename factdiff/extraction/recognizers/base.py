"""What recognizers share: the extraction context, a match, the recognizer protocol."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from factdiff.values.base import FactType, Value


@dataclass(frozen=True)
class ExtractionContext:
    """What a recognizer may know beyond the text itself. Never the wall clock."""

    reference: date | None = None
    """The entry's own date: fills missing years and resolves relative dates."""
    default_currency: str = "USD"
    """Currency of a bare ``$`` amount."""
    default_region: str = "US"
    """Region for phone numbers written without a country code."""
    decimal_comma: bool = False
    """The text writes ``3.350,50`` (European style); detected per text by the extractor."""


@dataclass(frozen=True)
class Match:
    """One value found in a text, with its character span ``[start, end)``."""

    start: int
    end: int
    value: Value
    claims: tuple[tuple[int, int], ...] = field(default=())
    """Extra spans this match consumes (a datetime claims its date and time parts)."""
    anew: bool = False
    """States its value again as a separate occurrence, not a restatement (a decision taken
    again after another of its class was asked for: ``occurrences`` of its fact)."""


def leftmost_longest(matches: Iterable[Match]) -> Iterator[Match]:
    """Non-overlapping matches in text order: the earliest start wins, then the longer span."""
    last_end = -1
    for match in sorted(matches, key=lambda m: (m.start, m.start - m.end)):
        if match.start >= last_end:
            last_end = match.end
            yield match


class Recognizer(Protocol):
    """Finds every value of one type in a text. Pure and deterministic."""

    fact_type: FactType

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield the matches in ``text``; overlaps with other recognizers are resolved later."""
        ...


_LETTERS = re.compile(r"[a-z]+")
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_last_vocabulary: list[tuple[str, frozenset[str]]] = []
_last_lowered: list[tuple[str, str]] = []


def lowered(text: str) -> str:
    """``text`` lower-cased with the same length (so spans carry over): case-insensitive
    patterns run much faster as case-sensitive ones on this copy."""
    last = _last_lowered[0] if _last_lowered else None  # one read: threads may replace it
    if last is not None and last[0] is text:
        return last[1]
    low = text.lower()
    if len(low) != len(text):  # a few characters lengthen when lower-cased
        low = text.translate(_ASCII_LOWER)
    _last_lowered[:] = [(text, low)]
    return low


def finditer_folded(
    text: str, folding: re.Pattern[str], lowered_pattern: re.Pattern[str] | None
) -> Iterator[re.Match[str]]:
    """The matches of ``folding``, a case-insensitive pattern, in ``text``. In an ASCII text
    they are found by ``lowered_pattern`` (the same pattern, case-sensitive, every letter in
    lower case) in ``lowered(text)``: the same spans and groups, without case folding. With
    ``None``, always by ``folding``."""
    if lowered_pattern is not None and text.isascii():
        return lowered_pattern.finditer(lowered(text))
    return folding.finditer(text)


class CueRuns:
    """The letter runs of a set of cue words (each word's ``vocabulary``), for a quick test
    whether an ASCII text may hold one: a cue matches only between non-letters, so each of
    its runs is one of the text's. Other texts always may: under case folding, the long s
    and the Kelvin sign match ``s`` and ``k``, letters that ``vocabulary`` does not see."""

    def __init__(self, words: Iterable[str]) -> None:
        runs = {vocabulary(word) for word in words}
        self._always = frozenset() in runs
        self._single = frozenset(run for found in runs if len(found) == 1 for run in found)
        self._several = tuple(found for found in runs if len(found) > 1)

    def may_occur_in(self, text: str) -> bool:
        """Whether ``text`` may hold one of the cue words."""
        if self._always or not text.isascii():
            return True
        words = vocabulary(text)
        return not self._single.isdisjoint(words) or any(run <= words for run in self._several)


def vocabulary(text: str) -> frozenset[str]:
    """Every lower-cased letter run of ``text``: a recognizer whose patterns need one of a few
    words skips texts without them (the last text's set is kept for the next recognizer)."""
    last = _last_vocabulary[0] if _last_vocabulary else None
    if last is not None and last[0] is text:
        return last[1]
    words = frozenset(_LETTERS.findall(lowered(text)))
    _last_vocabulary[:] = [(text, words)]
    return words
