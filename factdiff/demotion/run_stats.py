"""What a demotion run spent: busy wall time per stage and model usage per model and role."""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from factdiff.providers.accounting import ModelCall
from factdiff.providers.base import Usage

if TYPE_CHECKING:
    from factdiff.values.base import JSON

__all__ = ["RunSummary", "StageClock"]


class StageClock:
    """Wall-clock seconds during which at least one entry was in each stage (overlapping
    entries are counted once, so no stage exceeds the run's wall time).

    Per stage, intervals are kept merged and sorted; those that ended ``HORIZON`` seconds
    before the newest one started are folded into a total (no later interval can reach
    back that far), so a worker that runs for days keeps a bounded list.
    """

    HORIZON = 900.0

    def __init__(self) -> None:
        self._spans: dict[str, list[tuple[float, float]]] = {}
        self._folded: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, stage: str, start: float, end: float) -> None:
        """Record that some entry was in ``stage`` from ``start`` to ``end``."""
        with self._lock:
            spans = self._spans.setdefault(stage, [])
            index = bisect.bisect_left(spans, (start, start))
            if index > 0 and spans[index - 1][1] >= start:
                index -= 1
                start = spans[index][0]
            stop = index
            while stop < len(spans) and spans[stop][0] <= end:
                end = max(end, spans[stop][1])
                stop += 1
            spans[index:stop] = [(start, end)]
            old = 0
            while old < len(spans) and spans[old][1] < start - self.HORIZON:
                old += 1
            if old:
                folded = sum(e - s for s, e in spans[:old])
                self._folded[stage] = self._folded.get(stage, 0.0) + folded
                del spans[:old]

    def seconds(self, *stages: str) -> float:
        """The union of the intervals of ``stages``."""
        with self._lock:
            if len(stages) == 1:
                spans = self._spans.get(stages[0], [])
                return self._folded.get(stages[0], 0.0) + sum(e - s for s, e in spans)
            merged = StageClock()
            for stage in stages:
                for start, end in self._spans.get(stage, []):
                    merged.add("all", start, end)
            folded = sum(self._folded.get(stage, 0.0) for stage in stages)
        return folded + merged.seconds("all")


@dataclass
class RunSummary:
    """Where a run's time and money went; ``paused`` / ``failure`` say why it stopped early."""

    wall_seconds: float = 0.0
    stages: StageClock = field(default_factory=StageClock)
    usage: dict[tuple[str, str], Usage] = field(default_factory=dict)
    released: int = 0
    paused: str | None = None
    failure: str | None = None

    def add_calls(self, calls: list[ModelCall]) -> None:
        """Count model calls per (model, role)."""
        for call in calls:
            self.usage.setdefault((call.model, call.role), Usage()).record(call)

    def seconds(self) -> dict[str, float]:
        """``wall`` and the busy wall time of each stage (see ``StageClock``)."""
        clock = self.stages
        return {
            "wall": self.wall_seconds,
            "extract": clock.seconds("extract"),
            "summarize": clock.seconds("summarize"),
            "verify": clock.seconds("verify"),
            "summarize+verify": clock.seconds("summarize", "verify"),
            "sql": clock.seconds("sql"),
        }

    def usage_json(self) -> list[dict[str, JSON]]:
        """Per model and role: calls, HTTP requests, tokens, cost (None when unknown)."""
        return [
            {"model": model, "role": role, **usage.snapshot()}
            for (model, role), usage in sorted(self.usage.items())
        ]
