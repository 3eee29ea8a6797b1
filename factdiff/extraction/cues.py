"""Cue words: a field's values are the ones stated close to its cues, in the same sentence."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.recognizers.base import finditer_folded
from factdiff.extraction.wordtrie import trie_alternation, word_start_alternation

CUE_WINDOW = 48
"""At most this many characters between a cue and the value it introduces."""
AFTER_PENALTY = 16
"""A cue after its value (``$2,400 disputed``) counts as this much farther away."""


@lru_cache(maxsize=1024)
def cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    """One case-insensitive regex matching any of ``cues`` as whole words or phrases (the
    longest that ends a word where several start alike). ASCII cues are written as a trie of
    their lowercase forms (``wordtrie``: the same matches, found without trying every cue
    at every position); others as an alternation, longest first."""
    words = [cue.strip() for cue in cues]
    if all(word and word.isascii() for word in words):
        lower = [word.lower() for word in words]
        starts = "".join(sorted({re.escape(word[0]) for word in lower}))
        body = f"(?=[{starts}])" + trie_alternation(lower)  # most positions fail at once
    else:
        body = "(?:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + ")"
    return re.compile(r"(?<!\w)" + body + r"(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def lowered_cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str] | None:
    """``cue_pattern(cues)`` for the lower-cased copy of an ASCII text: case-sensitive, and
    beginning with the class of the cues' first letters (``word_start_alternation``), so
    that ``re`` skips to them: the same matches, several times faster. ``None`` when a cue
    is not ASCII or does not start with a letter."""
    words = [cue.strip().lower() for cue in cues]
    if not all(word and word.isascii() and word[0].isalpha() for word in words):
        return None
    return re.compile(word_start_alternation(words) + r"(?!\w)")


def cue_spans(text: str, cues: Sequence[str]) -> list[tuple[int, int]]:
    """The spans of ``cue_pattern(cues)``'s matches in ``text``, found in its lower-cased
    copy when both are ASCII (``lowered_cue_pattern``)."""
    key = tuple(cues)
    found = finditer_folded(text, cue_pattern(key), lowered_cue_pattern(key))
    return [m.span() for m in found]


@dataclass(frozen=True)
class CueHit:
    """The nearest cue of a value: which cue, how far, and whether in the same clause."""

    cue: str
    distance: int
    same_clause: bool
    aside: bool = False
    """The cue and the value stand on two sides of a parenthesis (``disputes INV-7781
    ($4,210.00 total)``: ``disputes``); a cue on the value's side is taken first
    (``total``)."""


class CueIndex:
    """Cue occurrences of one field in one text, for distance queries."""

    def __init__(self, text: str, cues: Sequence[str], bounds: Boundaries) -> None:
        self.text = text
        self.spans = cue_spans(text, cues) if cues else []
        self.starts = [s for s, _ in self.spans]
        self.bounds = bounds

    def nearest(self, start: int, end: int) -> CueHit | None:
        """The nearest cue of the value ``[start, end)``, or None if none is near."""
        if not self.spans:
            return None
        best: tuple[bool, int, int, int, bool] | None = None
        i = bisect.bisect_right(self.starts, start)
        for j in (i - 1, i - 2):
            if j >= 0:
                cue_start, cue_end = self.spans[j]
                if cue_end <= start and self.bounds.same_sentence(cue_end, start):
                    aside = _across_parentheses(self.text[cue_end:start])
                    hit = (aside, start - cue_end, cue_start, cue_end, False)
                    best = hit if best is None or hit < best else best
        for j in (i, i + 1):
            if j < len(self.spans):
                cue_start, cue_end = self.spans[j]
                if cue_start >= end and self.bounds.same_sentence(end, cue_start):
                    aside = _across_parentheses(self.text[end:cue_start])
                    hit = (aside, cue_start - end + AFTER_PENALTY, cue_start, cue_end, True)
                    best = hit if best is None or hit < best else best
        if best is None or best[1] > CUE_WINDOW:
            return None
        aside, distance, cue_start, cue_end, after = best
        gap = (end, cue_start) if after else (cue_end, start)
        cue = " ".join(self.text[cue_start:cue_end].lower().split())
        return CueHit(cue, distance, self.bounds.same_clause(*gap), aside)

    def distance(self, start: int, end: int) -> int | None:
        """Distance from the value ``[start, end)`` to its nearest cue, or None if none is near."""
        hit = self.nearest(start, end)
        return None if hit is None else hit.distance


def _across_parentheses(gap: str) -> bool:
    """Whether the ``gap`` between a cue and its value opens or closes a parenthesis it does
    not close or open: one of the two stands in an aside the other is outside of."""
    return gap.count("(") != gap.count(")")


def sentence_ends(text: str) -> list[int]:
    """Offsets of sentence-ending punctuation and line breaks."""
    return Boundaries.of(text).sentences
