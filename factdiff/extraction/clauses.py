"""Clause and sentence boundaries: where a cue, a negation or a role stops applying.

A sentence ends at ``.``/``!``/``?`` before a blank, at ``;`` and at a line break. A clause
also ends at ``,``, ``:``, ``(``, ``)``, at a dash (``—``, ``–``, or hyphens between blanks:
``Card not charged - we refunded it``) and before ``and``, ``but``, ``or``, ``whereas``,
``while``, ``although``, ``because``, ``if``, ``unless``. Both lists are computed once per
text in one regex pass and queried with ``bisect``.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from factdiff.extraction.recognizers.base import lowered

_CLAUSE_END = re.compile(
    r"(?P<s>[.!?;](?=\s|$)|\n)|[,:()\[\]–—]"
    r"|[ \t](?:-+(?=[ \t])|(?:a(?:lthough|nd)|b(?:ecause|ut)|if|or|then|unless|wh(?:ereas|ile))"
    r"(?![\w-]))"
)
"""One pass: sentence ends (group ``s``), clause punctuation and dashes, and the blank before
a dash between blanks or a conjunction (every alternative starts with a character class, so
the scan skips fast); run on the lower-cased text."""


class Boundaries:
    """Sentence and clause boundary offsets of one text, computed on first use."""

    def __init__(self, text: str, masked: list[tuple[int, int]] | None = None) -> None:
        self.text = text
        self._masked = masked or []
        self._parent: Boundaries | None = None

    @classmethod
    def of(cls, text: str) -> Boundaries:
        """The boundaries of ``text`` (one regex pass, on first use)."""
        return cls(text)

    @cached_property
    def _points(self) -> tuple[list[int], list[int]]:
        if self._parent is not None:
            parent = self._parent._points
            return parent[0], _outside(parent[1], self._masked)
        sentences: list[int] = []
        clauses: list[int] = []
        for m in _CLAUSE_END.finditer(lowered(self.text)):
            clauses.append(m.start())
            if m.group("s") is not None:
                sentences.append(m.start())
        return sentences, clauses

    @property
    def sentences(self) -> list[int]:
        """Offsets of sentence ends."""
        return self._points[0]

    @property
    def clauses(self) -> list[int]:
        """Offsets of clause boundaries (sentence ends included)."""
        return self._points[1]

    def outside(self, spans: list[tuple[int, int]]) -> Boundaries:
        """The same boundaries less the clause boundaries inside ``spans`` (sorted): the comma
        of ``March 8, 2019`` does not end a clause."""
        view = Boundaries(self.text, spans)
        view._parent = self
        return view

    def same_sentence(self, left: int, right: int) -> bool:
        """No sentence boundary in ``[left, right)``."""
        return _none_between(self.sentences, left, right)

    def same_clause(self, left: int, right: int) -> bool:
        """No clause boundary in ``[left, right)``."""
        return _none_between(self.clauses, left, right)

    def sentence_start(self, pos: int) -> int:
        """Offset just after the last sentence end before ``pos`` (0 if none)."""
        return _start_after(self.sentences, pos)

    def clause_start(self, pos: int) -> int:
        """Offset just after the last clause boundary before ``pos`` (0 if none)."""
        return _start_after(self.clauses, pos)

    def sentence_end(self, pos: int) -> int:
        """Offset of the first sentence end at or after ``pos`` (the text's length if none)."""
        return _end_from(self.sentences, pos, len(self.text))

    def clause_end(self, pos: int) -> int:
        """Offset of the first clause boundary at or after ``pos`` (the text's length if
        none)."""
        return _end_from(self.clauses, pos, len(self.text))


def _start_after(points: list[int], pos: int) -> int:
    """Offset just after the last of ``points`` (sorted) before ``pos`` (0 if none)."""
    i = bisect.bisect_left(points, pos)
    return points[i - 1] + 1 if i > 0 else 0


def _end_from(points: list[int], pos: int, default: int) -> int:
    """The first of ``points`` (sorted) at or after ``pos`` (``default`` if none)."""
    i = bisect.bisect_left(points, pos)
    return points[i] if i < len(points) else default


def _outside(points: list[int], spans: list[tuple[int, int]]) -> list[int]:
    if not spans:
        return points
    starts = [s for s, _ in spans]
    kept = []
    for point in points:
        i = bisect.bisect_right(starts, point) - 1
        if i < 0 or point >= spans[i][1]:
            kept.append(point)
    return kept


def _none_between(points: list[int], left: int, right: int) -> bool:
    i = bisect.bisect_left(points, left)
    return i >= len(points) or points[i] >= right
