"""Highlight spans as segments: a text cut at every fact's evidence span, server-side.

A page never inserts markup into entry text: it renders each segment's ``text`` through the
autoescaping template, wrapped in an element whose class comes from the segment's ``marks``.
Overlapping spans split the text at every boundary; a piece covered by several facts carries
all their marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from factdiff.values.base import JSON

__all__ = ["Mark", "Segment", "marks_of_record", "segments"]

VERDICT_RANK = {"missing": 0, "changed": 1, "added": 2, "kept": 3}
"""Which mark colours a piece covered by several facts: the most serious verdict."""


@dataclass(frozen=True)
class Mark:
    """One fact's evidence span: ``[start, end)`` in the text, its field, criticality and
    verdict in the diff (``kept``, ``missing``, ``changed`` or ``added``)."""

    start: int
    end: int
    field: str
    criticality: str
    verdict: str


@dataclass(frozen=True)
class Segment:
    """A piece of the text and the marks covering it (none: plain text)."""

    text: str
    marks: tuple[Mark, ...]

    @property
    def lead(self) -> Mark | None:
        """The mark that decides how the piece is shown."""
        if not self.marks:
            return None
        return min(self.marks, key=lambda m: (VERDICT_RANK.get(m.verdict, 9), m.field))

    def to_json(self) -> dict[str, JSON]:
        """``{"text", "marks": [{"field", "criticality", "verdict"}], "lead"}`` (``lead``:
        the mark that colours the piece, ``None`` for plain text)."""
        lead = self.lead
        return {
            "text": self.text,
            "marks": [_mark_json(m) for m in self.marks],
            "lead": None if lead is None else _mark_json(lead),
        }


def _mark_json(mark: Mark) -> dict[str, str]:
    return {"field": mark.field, "criticality": mark.criticality, "verdict": mark.verdict}


def segments(text: str, marks: Iterable[Mark]) -> list[Segment]:
    """``text`` cut at every mark boundary; spans outside the text are clipped or dropped."""
    size = len(text)
    kept = sorted(
        {
            Mark(max(0, m.start), min(size, m.end), m.field, m.criticality, m.verdict)
            for m in marks
            if m.start < m.end and m.start < size and m.end > 0
        },
        key=lambda m: (m.start, m.end, m.field, m.verdict),
    )
    cuts = sorted({0, size, *(m.start for m in kept), *(m.end for m in kept)})
    pieces: list[Segment] = []
    active: list[Mark] = []
    waiting = 0
    for start, end in pairwise(cuts):
        active = [m for m in active if m.end > start]
        while waiting < len(kept) and kept[waiting].start <= start:
            active.append(kept[waiting])
            waiting += 1
        covering = tuple(sorted(active, key=lambda m: (m.start, m.end, m.field, m.verdict)))
        if pieces and pieces[-1].marks == covering:
            pieces[-1] = Segment(pieces[-1].text + text[start:end], covering)
        else:
            pieces.append(Segment(text[start:end], covering))
    return pieces


def marks_of_record(
    record: Mapping[str, JSON],
    criticality: Mapping[str, str],
    verdicts: Mapping[str, str],
    default_verdict: str = "kept",
) -> list[Mark]:
    """The marks of a stored fact record (``FactRecord.to_json``): every field fact and
    inventory atom (named ``inventory.<type>``) at each of its spans."""
    found: list[Mark] = []
    fields = record.get("fields")
    inventory = record.get("inventory")
    groups: list[tuple[str, JSON]] = list(fields.items()) if isinstance(fields, Mapping) else []
    if isinstance(inventory, Mapping):
        groups += [(f"inventory.{t}", facts) for t, facts in inventory.items()]
    for name, facts in groups:
        for fact in facts if isinstance(facts, list) else []:
            spans = fact.get("spans") if isinstance(fact, dict) else None
            for span in spans if isinstance(spans, list) else []:
                if not (isinstance(span, list) and len(span) == 2):
                    continue
                start, end = span
                if not (isinstance(start, int) and isinstance(end, int)):
                    continue
                found.append(
                    Mark(
                        start,
                        end,
                        str(name),
                        criticality.get(name, "contextual"),
                        verdicts.get(name, default_verdict),
                    )
                )
    return found
