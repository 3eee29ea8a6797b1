"""Render a choice of segments of a split text (``text_units.split_units``) as readable text.

``flat_segments`` lists every segment in text order; ``render`` keeps the chosen ones: prose
units joined with spaces, dialogue turns as ``Speaker: text`` lines, dropped clauses marked
with `` ... ``, JSON bodies trimmed to smaller, still valid JSON. No locale, no randomness.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from factdiff.summarize.text_units import JsonTree, Layout, Span, Unit, merge_spans

__all__ = ["clean", "flat_segments", "join_units", "render", "unit_text"]

_SPACES = re.compile(r"\s+")
_TRAILING_PUNCT = ",;:-–—"
_ELLIPSIS = " ... "
_FAR = 1 << 62


def flat_segments(layout: Layout) -> list[tuple[Span, int, int]]:
    """Every segment in text order, with its unit index and its global sentence index."""
    out: list[tuple[Span, int, int]] = []
    sentence_index = 0
    for unit_index, unit in enumerate(layout.units):
        for sentence in unit.sentences:
            out.extend((seg, unit_index, sentence_index) for seg in sentence.segments)
            sentence_index += 1
    return out


def render(text: str, layout: Layout, kept: Sequence[bool], protected: Sequence[Span] = ()) -> str:
    """The readable text of the kept segments (``kept`` is indexed like ``flat_segments``).

    Prose units are joined with spaces, dialogue turns become ``Speaker: text`` lines. Dropped
    clauses inside a sentence leave `` ... ``; a sentence cut short ends with a period. Runs of
    whitespace collapse to one space, never inside a ``protected`` span. A JSON body keeps
    only its kept members and the containers holding them, and stays valid JSON. The result
    is never longer than ``text``.
    """
    intervals = merge_spans(protected)
    lines: list[str] = []
    offset = 0
    for unit in layout.units:
        count = _segment_count(unit)
        local = kept[offset : offset + count]
        offset += count
        if any(local):
            lines.append(_render_unit(text, unit, local, intervals))
    return join_units(layout, lines)


def unit_text(text: str, unit: Unit) -> str:
    """The readable text of a whole unit (label included)."""
    return _render_unit(text, unit, [True] * _segment_count(unit), [])


def join_units(layout: Layout, rendered: Sequence[str]) -> str:
    """Join rendered units as ``render`` does: lines for dialogue, spaces for prose."""
    return ("\n" if layout.dialogue else " ").join(rendered)


def _segment_count(unit: Unit) -> int:
    return sum(len(s.segments) for s in unit.sentences)


@dataclass(frozen=True)
class _Run:
    start: int
    end: int
    opens_sentence: bool
    closes_sentence: bool


def _runs(unit: Unit, kept: Sequence[bool]) -> list[_Run]:
    """Maximal runs of consecutive kept segments of one unit."""
    flat: list[tuple[Span, bool, bool]] = []
    for sentence in unit.sentences:
        last = len(sentence.segments) - 1
        flat.extend((seg, i == 0, i == last) for i, seg in enumerate(sentence.segments))
    runs: list[_Run] = []
    current: list[tuple[Span, bool, bool]] = []
    for item, keep in zip(flat, kept, strict=True):
        if keep:
            current.append(item)
            continue
        if current:
            runs.append(_Run(current[0][0][0], current[-1][0][1], current[0][1], current[-1][2]))
            current = []
    if current:
        runs.append(_Run(current[0][0][0], current[-1][0][1], current[0][1], current[-1][2]))
    return runs


def _render_unit(text: str, unit: Unit, kept: Sequence[bool], intervals: list[Span]) -> str:
    parts: list[str] = []
    if unit.label is not None:
        parts.append(clean(text, unit.label, intervals) + " ")
    if unit.tree is not None:
        segments = unit.sentences[0].segments
        return "".join(parts) + _render_json(text, segments, unit.tree, kept, intervals)
    runs = _runs(unit, kept)
    for i, run in enumerate(runs):
        if i:
            previous = runs[i - 1]
            parts.append(_separator(text, previous, run))
        following = runs[i + 1] if i + 1 < len(runs) else None
        if not run.closes_sentence and (following is None or following.opens_sentence):
            piece = _close(text, run, intervals)
        else:
            piece = clean(text, (run.start, run.end), intervals)
        parts.append(piece)
    return "".join(parts)


def _separator(text: str, previous: _Run, run: _Run) -> str:
    """A space between whole sentences or around a dropped aside, else an ellipsis."""
    if previous.closes_sentence and run.opens_sentence:
        return " "
    gap = text[previous.end : run.start].strip()
    aside = gap.startswith("(") and gap.rstrip(",;:").endswith(")")
    return " " if aside or len(gap) < 3 else _ELLIPSIS


def _protected_char(intervals: list[Span], pos: int) -> bool:
    """True when the character at ``pos`` belongs to a protected span."""
    i = bisect.bisect_right(intervals, (pos, _FAR)) - 1
    return i >= 0 and intervals[i][0] <= pos < intervals[i][1]


def _close(text: str, run: _Run, intervals: list[Span]) -> str:
    """A run that stops mid-sentence, ended with a period instead of its dangling comma
    or dash (never removing a protected character)."""
    end = run.end
    while (
        end > run.start
        and (text[end - 1] in _TRAILING_PUNCT or text[end - 1].isspace())
        and not _protected_char(intervals, end - 1)
    ):
        end -= 1
    piece = clean(text, (run.start, end if end > run.start else run.end), intervals)
    return piece if piece[-1:] in (".", "!", "?", "…") else piece + "."


def clean(text: str, span: Span, intervals: Sequence[Span]) -> str:
    """``text[span]`` with whitespace collapsed outside the protected ``intervals``, stripped
    at both ends."""
    start, end = span
    pieces: list[tuple[str, bool]] = []
    i = max(0, bisect.bisect_right(intervals, (start, _FAR)) - 1)
    pos = start
    while i < len(intervals) and intervals[i][0] < end:
        a, b = max(intervals[i][0], start), min(intervals[i][1], end)
        if b > pos:
            if a > pos:
                pieces.append((_SPACES.sub(" ", text[pos:a]), False))
            pieces.append((text[max(a, pos) : b], True))
            pos = b
        i += 1
    if pos < end:
        pieces.append((_SPACES.sub(" ", text[pos:end]), False))
    strip = " "
    while pieces and not pieces[0][1]:
        head = pieces[0][0].lstrip(strip)
        if head:
            pieces[0] = (head, False)
            break
        pieces.pop(0)
    while pieces and not pieces[-1][1]:
        tail = pieces[-1][0].rstrip(strip)
        if tail:
            pieces[-1] = (tail, False)
            break
        pieces.pop()
    return "".join(p for p, _ in pieces)


def _render_json(
    text: str,
    segments: Sequence[Span],
    tree: JsonTree,
    kept: Sequence[bool],
    intervals: list[Span],
) -> str:
    """The kept members of a JSON body (and the containers holding them), as valid JSON."""
    keep = list(kept)
    for i in range(len(keep) - 1, -1, -1):
        if keep[i] and tree.parents[i] >= 0:
            keep[tree.parents[i]] = True
    children: list[list[int]] = [[] for _ in range(len(segments) + 1)]
    for i, parent in enumerate(tree.parents):
        children[parent + 1].append(i)

    def member_end(i: int) -> int:
        return tree.closers[i] + 1 if tree.closers[i] >= 0 else segments[i][1]

    def emit(parent: int) -> str:
        parts: list[str] = []
        previous = -1
        for position, i in enumerate(children[parent + 1]):
            if not keep[i]:
                continue
            if parts:
                adjacent = previous == position - 1
                gap = text[member_end(children[parent + 1][previous]) : segments[i][0]]
                parts.append(", " if not adjacent or gap.strip() != gap else ",")
            piece = clean(text, segments[i], intervals)
            if tree.closers[i] >= 0:
                piece += emit(i) + text[tree.closers[i]]
            parts.append(piece)
            previous = position
        return "".join(parts)

    return text[tree.open] + emit(-1) + text[tree.close]
