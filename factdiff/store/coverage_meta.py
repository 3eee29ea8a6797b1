"""What a warm entry keeps of its check's coverage (``WarmMeta.coverage``).

The check that let a summary pass verified some of the source's sentences (they carried a
typed fact) and could not verify the others; the ones of those the summary dropped are
lost without the diff seeing it. The warm meta keeps the counts (sentences, verified, facts
kept, dropped) and the dropped unverified sentences as character spans into the source,
never their text: ``{"sentences", "verified", "facts_kept", "dropped", "u"}`` with ``u`` the
spans as a flat list of runs ``gap, length`` (``gap`` counted from the end of the span
before, the first from the start of the source); sentences next to each other, with only
whitespace between them, make one span, split again as the check split them. Reading a
warm row decodes its source anyway, so the texts come from it
(``CheckCoverage.from_json(data, source)``). The compact meta holds the runs as text
(``pack_runs``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from factdiff.verify.coverage import Coverage, Unverified, sentence_spans

__all__ = ["CheckCoverage", "decode_runs", "encode_runs", "pack_runs", "unpack_runs"]

_LAST = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
"""Base-32 digits that end a number (``pack_runs``)."""
_MORE = "ghijklmnopqrstuvwxyz0123456789-_"
"""Base-32 digits that more digits follow."""
_DIGITS = {c: (i, True) for i, c in enumerate(_LAST)} | {c: (i, False) for i, c in enumerate(_MORE)}


def encode_runs(spans: Iterable[tuple[int, int]]) -> list[int]:
    """Sorted, disjoint ``(start, end)`` spans as ``[gap, length, gap, length, ...]``."""
    runs: list[int] = []
    at = 0
    for start, end in spans:
        if start < at or end < start:
            raise ValueError(f"span ({start}, {end}) is not after {at} or is reversed")
        runs += [start - at, end - start]
        at = end
    return runs


def decode_runs(runs: Sequence[Any]) -> list[tuple[int, int]]:
    """Inverse of ``encode_runs`` (``ValueError`` on an odd or negative run)."""
    if len(runs) % 2 or not all(type(n) is int and n >= 0 for n in runs):
        raise ValueError("coverage runs are not pairs of non-negative integers")
    spans: list[tuple[int, int]] = []
    at = 0
    for i in range(0, len(runs), 2):
        start = at + runs[i]
        at = start + runs[i + 1]
        spans.append((start, at))
    return spans


def pack_runs(runs: Sequence[int]) -> str:
    """Runs as text for the compact meta: each number in base 32, most significant digit
    first, its last digit from one alphabet and the others from another (a gap below 32
    and a length below 1,024 take three characters; the JSON list took about seven)."""
    out: list[str] = []
    for run in runs:
        if run < 0:
            raise ValueError(f"a coverage run is negative: {run}")
        digits = [_LAST[run & 31]]
        rest = run >> 5
        while rest:
            digits.append(_MORE[rest & 31])
            rest >>= 5
        out.extend(reversed(digits))
    return "".join(out)


def unpack_runs(text: str) -> list[int]:
    """Inverse of ``pack_runs`` (``ValueError`` on a character outside both alphabets, or a
    number left unfinished)."""
    runs: list[int] = []
    n = 0
    for char in text:
        found = _DIGITS.get(char)
        if found is None:
            raise ValueError(f"packed coverage runs hold {char!r}")
        n = (n << 5) | found[0]
        if found[1]:
            runs.append(n)
            n = 0
    if text and text[-1] not in _LAST:
        raise ValueError("packed coverage runs end inside a number")
    return runs


@dataclass(frozen=True)
class CheckCoverage:
    """A warm entry's check coverage: its counts, the character spans of the unverified
    sentences its summary dropped (adjacent ones, with only whitespace between them, as one
    span) and those sentences (``dropped``: read from the source when first asked for; none
    when it was not given)."""

    sentences: int
    verified: int
    facts_kept: int
    dropped_count: int = 0
    spans: tuple[tuple[int, int], ...] = ()
    source: str | None = field(default=None, compare=False, repr=False)
    """The entry's source, which ``dropped`` reads the sentences from."""

    @classmethod
    def of(cls, coverage: Coverage, facts_kept: int, source: str) -> CheckCoverage:
        """What a warm meta keeps of a check's ``coverage`` of ``source``."""
        dropped = coverage.dropped
        spans: list[tuple[int, int]] = []
        for u in dropped:
            if spans and source[spans[-1][1] : u.start].isspace():
                spans[-1] = (spans[-1][0], u.end)
            else:
                spans.append((u.start, u.end))
        return cls(
            coverage.sentences, coverage.verified, facts_kept, len(dropped), tuple(spans), source
        )

    @cached_property
    def dropped(self) -> tuple[Unverified, ...]:
        """The dropped unverified sentences, read from the source on first use (none
        without it)."""
        text = self.source
        if text is None:
            return ()
        return tuple(
            Unverified(text[s:e], s, e, True)
            for start, end in self.spans
            for s, e in sentence_spans(text, start, end)
        )

    @property
    def share(self) -> float:
        """Share of the source's sentences that were verified (1.0 for a text without any)."""
        return self.verified / self.sentences if self.sentences else 1.0

    @property
    def texts(self) -> tuple[str, ...]:
        """The dropped unverified sentences' texts."""
        return tuple(u.text for u in self.dropped)

    def phrase(self) -> str:
        """``2 sentences not covered by the schema were dropped`` (empty when none were)."""
        n = self.dropped_count
        if not n:
            return ""
        noun = "sentence" if n == 1 else "sentences"
        verb = "was" if n == 1 else "were"
        return f"{n} {noun} not covered by the schema {verb} dropped"

    def to_json(self) -> dict[str, Any]:
        """The meta's ``coverage`` object (see the module docstring)."""
        return {
            "sentences": self.sentences,
            "verified": self.verified,
            "facts_kept": self.facts_kept,
            "dropped": self.dropped_count,
            "u": encode_runs(self.spans),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str | None = None) -> CheckCoverage:
        """Inverse of ``to_json``, the sentences read from ``source`` (``ValueError`` when a
        span lies outside it)."""
        counts = [data["sentences"], data["verified"], data["facts_kept"], data["dropped"]]
        if not all(type(n) is int and n >= 0 for n in counts):
            raise ValueError("coverage counts are not non-negative integers")
        runs = data.get("u", [])
        spans = decode_runs(runs if isinstance(runs, list) else [None])
        if len(spans) > counts[3] or bool(spans) != bool(counts[3]):
            raise ValueError("coverage spans do not match its count of dropped sentences")
        if source is not None and spans and spans[-1][1] > len(source):
            raise ValueError("a coverage span lies outside the source")
        sentences, verified, kept, count = counts
        return cls(sentences, verified, kept, count, tuple(spans), source)
