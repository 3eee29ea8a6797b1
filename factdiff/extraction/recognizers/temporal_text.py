"""Shared scanning helpers of the date, time and duration recognizers."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import NamedTuple

from factdiff.extraction.recognizers.base import Match, lowered, vocabulary
from factdiff.extraction.wordtrie import trie_alternation

# --------------------------------------------------------------------------- scanning
#
# Every pattern below runs case-sensitively on a lower-cased copy of the text (same length,
# so spans carry over) and begins with a literal or a character class, never with a
# lookbehind or an optional group: that lets the regex engine skip ahead fast. What must
# not come right before a match is checked in Python (``_Rule.guard``), and optional
# prefixes ("the", a weekday, "later") are attached afterwards by ``_extend_left``.


class _Source(NamedTuple):
    """The original text, its same-length lower-case copy, and the words it contains.

    ``vocab`` (every lower-case letter run) lets a rule whose pattern needs a word (a month,
    a weekday, a unit) skip texts that do not contain one, without running its regex.
    """

    text: str
    low: str
    vocab: frozenset[str]
    digits: bool


_DIGIT = re.compile(r"[0-9]")
_last_source: list[_Source] = []
"""The previous text's source: the date, time, datetime and duration recognizers run one
after another on one text."""


def _source(text: str) -> _Source:
    last = _last_source[0] if _last_source else None  # one read: threads may replace it
    if last is not None and (last.text is text or last.text == text):
        return last
    low = lowered(text)
    src = _Source(text, low, vocabulary(text), _DIGIT.search(low) is not None)
    _last_source[:] = [src]
    return src


def _needs(src: _Source, words: frozenset[str] | None, digits: bool) -> bool:
    """Whether a rule can match: the text has one of ``words`` (if given) and digits (if
    required)."""
    if digits and not src.digits:
        return False
    return words is None or not words.isdisjoint(src.vocab)


def _select(found: Iterable[Match]) -> list[Match]:
    """Non-overlapping candidates, longer spans first, then leftmost; sorted by start."""
    ordered = sorted(found, key=lambda f: (f.start - f.end, f.start))
    starts: list[int] = []
    chosen: list[Match] = []
    for cand in ordered:
        i = bisect.bisect_left(starts, cand.start)
        if i > 0 and chosen[i - 1].end > cand.start:
            continue
        if i < len(chosen) and chosen[i].start < cand.end:
            continue
        starts.insert(i, cand.start)
        chosen.insert(i, cand)
    return chosen


def _guard_ok(low: str, start: int, forbidden: str) -> bool:
    """True when the character before ``start`` is not a word character nor forbidden."""
    if start == 0:
        return True
    prev = low[start - 1]
    return not (prev.isalnum() or prev == "_" or prev in forbidden)


def _extend_left(low: str, start: int, prefix: re.Pattern[str]) -> int:
    """Move ``start`` left over an optional prefix that ends right before it."""
    m = prefix.search(low, max(0, start - 24), start)
    if m is None or not _guard_ok(low, m.start(), ""):
        return start
    return m.start()


_S = r"\s{1,4}"
_FOLLOW_RE = re.compile(r"[ \t]{0,4}([a-z]+)")
_FOLLOW_WORDS = (
    "at to from until till through thru and or for in on please if instead is works work "
    "would will then but so around by as because since when with thanks thank that i we "
    "it okay ok too also only could should can be was sounds no yes again onwards right "
    "there before after morning afternoon evening night next this tomorrow today"
)
_FOLLOW_OK = frozenset(_FOLLOW_WORDS.split())


def _weak_follow_ok(low: str, end: int) -> bool:
    """After a weak form ("the 4th", "evening 6"), only a function word may follow."""
    m = _FOLLOW_RE.match(low, end)
    return m is None or m.group(1) in _FOLLOW_OK


def _alternation(words: Iterable[str]) -> str:
    """The words as one trie-shaped alternation (longest match first at every branch)."""
    return trie_alternation(words)
