"""Coverage: which source sentences the check verified, and which it could not.

A source sentence is **verified** when the source record holds a fact whose evidence lies in
it (a field value, an inventory atom or an unbound atom). The other sentences carried no
typed fact: nothing was checked there, so a summary that dropped one loses something the
diff cannot see. They are reported as ``unverified`` (not a loss), each with whether the
summary **dropped** it: fewer than half of its content words (letters, 4 or more, outside
a short list of function and courtesy words) appear anywhere in the summary. A sentence
without content words (``Thanks!``) is neither verified nor unverified.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate

from factdiff.extraction.record import Fact, FactRecord
from factdiff.inputs.json_toml import json_array, json_int, json_object
from factdiff.values.base import JSON

_SENTENCE = re.compile(r"(?:[^.!?;\n]++|[.!?;](?!\s|\Z|[.!?;]))+(?:[.!?;]+(?=\s|\Z)|\n|\Z)|[^\n]+")
"""A sentence ends at ``.``, ``!``, ``?`` or ``;`` before a space or the end, or at a line
break: a stop inside a token (``$1,249.00``, ``v1.2``) does not end it. A run of other
characters is taken whole (possessive): a sentence never ends inside one, and a line that
ends no sentence is not re-split character by character."""
_CONTENT = re.compile(r"[^\W\d_]{4,}")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION = _word_set(
    """that this with from have has had were will would could should their there them they
    then than what when where which while your yours also been being into onto over about
    after before just very some such only each other more most much many said says
    thanks thank please okay hello goodbye sure great cheers welcome"""
)


@dataclass(frozen=True)
class Unverified:
    """One source sentence that carried no extracted fact."""

    text: str
    start: int
    end: int
    dropped: bool

    def to_json(self) -> dict[str, JSON]:
        """``text``, ``span`` and ``dropped``."""
        return {"text": self.text, "span": [self.start, self.end], "dropped": self.dropped}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Unverified:
        """Inverse of ``to_json``."""
        start, end = json_array(data["span"])
        return cls(str(data["text"]), json_int(start), json_int(end), bool(data["dropped"]))


@dataclass(frozen=True)
class Coverage:
    """How many source sentences the check verified, and the unverified ones."""

    sentences: int
    verified: int
    unverified: tuple[Unverified, ...] = ()

    @property
    def dropped(self) -> tuple[Unverified, ...]:
        """Unverified sentences the summary dropped."""
        return tuple(u for u in self.unverified if u.dropped)

    @property
    def share(self) -> float:
        """Share of the source's sentences that were verified (1.0 for a text without any)."""
        return self.verified / self.sentences if self.sentences else 1.0

    def to_json(self) -> dict[str, JSON]:
        """``sentences``, ``verified``, ``unverified`` (the form stored beside known gaps)."""
        return {
            "sentences": self.sentences,
            "verified": self.verified,
            "unverified": [u.to_json() for u in self.unverified],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Coverage:
        """Inverse of ``to_json``."""
        unverified = json_array(data.get("unverified", ()))
        return cls(
            json_int(data["sentences"]),
            json_int(data["verified"]),
            tuple(Unverified.from_json(json_object(u)) for u in unverified),
        )

    def phrase(self) -> str:
        """``2 sentences not covered by the schema were dropped`` (empty when none were)."""
        n = len(self.dropped)
        if not n:
            return ""
        noun = "sentence" if n == 1 else "sentences"
        verb = "was" if n == 1 else "were"
        return f"{n} {noun} not covered by the schema {verb} dropped"


def _words(text: str) -> set[str]:
    return set(map(str.casefold, _CONTENT.findall(text))) - _FUNCTION


def _spans(record: FactRecord) -> Iterable[tuple[int, int]]:
    groups: Iterable[Iterable[Fact]] = (
        *record.fields.values(),
        *record.inventory.values(),
        *record.unbound.values(),
    )
    return (span for facts in groups for fact in facts for span in fact.spans)


class SpanIndex:
    """Sorted ``(start, end)`` spans, asked whether any overlaps a range in O(log n)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [s for s, _ in ordered]
        self._reach = list(accumulate((e for _, e in ordered), max))
        """Per prefix of the sorted spans, the furthest end it reaches."""

    def overlaps(self, start: int, end: int) -> bool:
        """Whether a span shares a character with ``[start, end)``."""
        before = bisect_left(self._starts, end)  # the spans that start before ``end``
        return before > 0 and self._reach[before - 1] > start


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` of each sentence of ``text[start:end]`` as ``coverage`` splits
    and strips them (whitespace-only pieces left out)."""
    for m in _SENTENCE.finditer(text, start, len(text) if end is None else end):
        piece = m.group()
        stripped = piece.strip()
        if stripped:
            lead = m.start() + piece.index(stripped[:1])
            yield lead, lead + len(stripped)


def coverage(source: str, source_facts: FactRecord, summary: str) -> Coverage:
    """The coverage of a check of ``summary`` against ``source`` (see the module docstring)."""
    spans = SpanIndex(_spans(source_facts))
    summary_words = _words(summary)
    sentences = verified = 0
    unverified: list[Unverified] = []
    for m in _SENTENCE.finditer(source):
        start, end = m.start(), m.end()
        if spans.overlaps(start, end):
            sentences += 1
            verified += 1
            continue
        words = _words(m.group())
        if not words:
            continue
        sentences += 1
        kept = len(words & summary_words)
        text = m.group().strip()
        lead = m.group().index(text[:1]) if text else 0
        unverified.append(
            Unverified(text, start + lead, start + lead + len(text), kept * 2 < len(words))
        )
    return Coverage(sentences, verified, tuple(unverified))
