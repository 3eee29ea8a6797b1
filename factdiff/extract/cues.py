"""Cue words: a field's values are the ones stated close to its cues, in the same sentence."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache

CUE_WINDOW = 48
"""At most this many characters between a cue and the value it introduces."""
AFTER_PENALTY = 16
"""A cue after its value (``$2,400 disputed``) counts as this much farther away."""

_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")


@lru_cache(maxsize=1024)
def cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    """One case-insensitive regex matching any of ``cues`` as whole words or phrases."""
    alternatives = sorted((re.escape(c.strip()) for c in cues), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


class CueIndex:
    """Cue occurrences of one field in one text, for distance queries."""

    def __init__(self, text: str, cues: Sequence[str], sentence_ends: Sequence[int]) -> None:
        self.text = text
        self.spans = [m.span() for m in cue_pattern(tuple(cues)).finditer(text)] if cues else []
        self.starts = [s for s, _ in self.spans]
        self.sentence_ends = sentence_ends

    def distance(self, start: int, end: int) -> int | None:
        """Distance from the value ``[start, end)`` to its nearest cue, or None if none is near."""
        if not self.spans:
            return None
        best: int | None = None
        i = bisect.bisect_right(self.starts, start)
        for j in (i - 1, i - 2):
            if j >= 0:
                cue_start, cue_end = self.spans[j]
                if cue_end <= start and self._same_sentence(cue_end, start):
                    gap = start - cue_end
                    best = gap if best is None else min(best, gap)
        for j in (i, i + 1):
            if j < len(self.spans):
                cue_start, _ = self.spans[j]
                if cue_start >= end and self._same_sentence(end, cue_start):
                    gap = cue_start - end + AFTER_PENALTY
                    best = gap if best is None else min(best, gap)
        return best if best is not None and best <= CUE_WINDOW else None

    def _same_sentence(self, left: int, right: int) -> bool:
        i = bisect.bisect_left(self.sentence_ends, left)
        return i >= len(self.sentence_ends) or self.sentence_ends[i] >= right


def sentence_ends(text: str) -> list[int]:
    """Offsets of sentence-ending punctuation and line breaks."""
    return [m.start() for m in _SENTENCE_END.finditer(text)]
