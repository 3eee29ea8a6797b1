"""Resolve overlapping matches from different recognizers: longer span first, then priority."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from factdiff.extraction.recognizers.base import Match
from factdiff.values.base import FactType


def resolve_overlaps(matches: Iterable[Match], priority: Sequence[FactType]) -> list[Match]:
    """Non-overlapping matches in text order.

    A longer span wins over a shorter one it overlaps (``2026-03-14 14:32`` beats its date);
    on equal length the type listed first in ``priority`` wins, then the earlier start.
    """
    rank = {fact_type: i for i, fact_type in enumerate(priority)}
    ordered = sorted(
        (m for m in matches if m.end > m.start),
        key=lambda m: (m.start - m.end, rank.get(m.value.type, len(rank)), m.start),
    )
    starts: list[int] = []
    ends: list[int] = []
    chosen: list[Match] = []
    for match in ordered:
        i = bisect.bisect_left(starts, match.start)
        if i > 0 and ends[i - 1] > match.start:
            continue
        if i < len(starts) and starts[i] < match.end:
            continue
        starts.insert(i, match.start)
        ends.insert(i, match.end)
        chosen.insert(i, match)
    return chosen
