"""What a warm entry keeps of its check's coverage (``WarmMeta.coverage``).

The check that let a summary pass verified some of the source's sentences (they carried a
typed fact) and could not verify the others; the ones of those the summary dropped are
lost without the diff seeing it. The warm meta keeps the counts (sentences, verified, facts
kept) and the dropped unverified sentences as character spans into the source, never their
text: ``{"sentences", "verified", "facts_kept", "u"}`` with ``u`` the spans as a flat list
of runs ``gap, length`` (``gap`` counted from the end of the span before, the first from
the start of the source). Reading a warm row decodes its source anyway, so the texts come
from it (``CheckCoverage.from_json(data, source)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from factdiff.verify.coverage import Coverage, Unverified

__all__ = ["CheckCoverage", "decode_runs", "encode_runs"]


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


@dataclass(frozen=True)
class CheckCoverage:
    """A warm entry's check coverage: its counts and the unverified sentences its summary
    dropped (spans into the source; texts read from it, empty when it was not given)."""

    sentences: int
    verified: int
    facts_kept: int
    dropped: tuple[Unverified, ...] = ()

    @classmethod
    def of(cls, coverage: Coverage, facts_kept: int) -> CheckCoverage:
        """What a warm meta keeps of a check's ``coverage``."""
        return cls(coverage.sentences, coverage.verified, facts_kept, coverage.dropped)

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
        return Coverage(self.sentences, self.verified, self.dropped).phrase()

    def to_json(self) -> dict[str, Any]:
        """The meta's ``coverage`` object (see the module docstring)."""
        return {
            "sentences": self.sentences,
            "verified": self.verified,
            "facts_kept": self.facts_kept,
            "u": encode_runs((u.start, u.end) for u in self.dropped),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str | None = None) -> CheckCoverage:
        """Inverse of ``to_json``, the texts read from ``source`` (``ValueError`` when a span
        lies outside it)."""
        counts = [data["sentences"], data["verified"], data["facts_kept"]]
        if not all(type(n) is int and n >= 0 for n in counts):
            raise ValueError("coverage counts are not non-negative integers")
        runs = data.get("u", [])
        spans = decode_runs(runs if isinstance(runs, list) else [None])
        if source is not None and spans and spans[-1][1] > len(source):
            raise ValueError("a coverage span lies outside the source")
        dropped = tuple(
            Unverified("" if source is None else source[s:e], s, e, True) for s, e in spans
        )
        return cls(counts[0], counts[1], counts[2], dropped)
