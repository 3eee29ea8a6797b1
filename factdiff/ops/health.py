"""Memory score per agent: is an agent's compressed memory degrading?

For each agent, from the store:

* ``failure_rate``: share of failed or error attempts among its last ``window`` attempts
  (``None`` without attempts), and ``trend``: that rate minus the rate of the ``window``
  attempts before them (``None`` without earlier attempts; positive: failures climbing);
* ``gap_share``: share of its warm entries with known gaps (facts compression noted as lost);
* ``reevaluation``: entries re-evaluated under a newer schema version, how many failed
  (promoted back to hot) and their ``rate``;
* ``review_backlog``: its entries waiting for operator review (and ``backlog_share`` of all
  its entries), as the dashboard's backlog and ``/metrics`` count them: an entry an operator
  kept hot is decided, not waiting (``kept_hot`` counts those);
* ``coverage``: over its warm entries that keep their check's coverage, the source
  sentences, the verified ones (they carried a typed fact), their ``share`` and the
  unverified ones the narratives dropped (``Stats.coverage``).

One figure sums them up, ``health`` (0 to 100, higher is better)::

    f = min(1, failure_rate + max(0, trend))      # a climbing rate counts at once
    u = 1 - coverage share                        # sentences no check verified
    health = 100 * (1 - f) * (1 - gap_share / 2) * (1 - reevaluation rate) * (1 - backlog_share)
                 * (1 - u / 4)

Missing parts count as 0 (no attempts yet: ``f = 0``; no coverage kept: ``u = 0``). A gap
is half a loss: the fact is still in the warm record and its source in cold, but the
narrative an agent reads lacks it. An unverified sentence is a quarter of one: nothing
shows it was lost (it may be small talk), but nothing checked it either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdiff.store.reports import AgentCoverage
from factdiff.store.stats import coverage_json

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.values.base import JSON

__all__ = ["WINDOW", "agent_health", "health_figure", "reevaluation_by_schema"]

WINDOW = 100
"""Attempts per agent the failure rate is measured over (and again for its trend)."""

_FAILED = frozenset({"failed", "error"})


def _rate(outcomes: list[str]) -> float | None:
    if not outcomes:
        return None
    return sum(1 for o in outcomes if o in _FAILED) / len(outcomes)


def health_figure(
    failure_rate: float | None,
    trend: float | None,
    gap_share: float,
    reevaluation_rate: float | None,
    backlog_share: float,
    verified_share: float | None = None,
) -> float:
    """The documented health figure (see the module docstring), rounded to 0.1."""
    f = min(1.0, (failure_rate or 0.0) + max(0.0, trend or 0.0))
    u = 1 - (1.0 if verified_share is None else verified_share)
    score = 100 * (1 - f) * (1 - gap_share / 2) * (1 - (reevaluation_rate or 0.0))
    return round(score * (1 - backlog_share) * (1 - u / 4), 1)


def agent_health(
    store: MemoryStore, agent: str | None = None, window: int = WINDOW
) -> list[dict[str, JSON]]:
    """The memory score of every agent (or of ``agent``), by agent id."""
    reevaluated = store.reevaluation_by_agent()
    covered = {c.agent: c for c in store.agent_coverage()}
    result: list[dict[str, JSON]] = []
    for counts in store.agent_counts():
        if agent is not None and counts.agent != agent:
            continue
        recent = store.recent_outcomes(counts.agent, 2 * window)
        rate, before = _rate(recent[:window]), _rate(recent[window:])
        trend = None if rate is None or before is None else rate - before
        gap_share = counts.warm_with_gaps / counts.warm if counts.warm else 0.0
        checked, promoted = reevaluated.get(counts.agent, (0, 0))
        reevaluation_rate = promoted / checked if checked else None
        backlog_share = counts.review / counts.entries if counts.entries else 0.0
        coverage = covered.get(counts.agent, AgentCoverage(counts.agent, 0, 0, 0, 0))
        result.append(
            {
                "agent": counts.agent,
                "entries": counts.entries,
                "attempts_measured": min(len(recent), window),
                "failure_rate": _round(rate),
                "trend": _round(trend),
                "warm": counts.warm,
                "warm_with_gaps": counts.warm_with_gaps,
                "gap_share": _round(gap_share),
                "reevaluation": {
                    "checked": checked,
                    "promoted": promoted,
                    "rate": _round(reevaluation_rate),
                },
                "review_backlog": counts.review,
                "kept_hot": counts.kept_hot,
                "backlog_share": _round(backlog_share),
                "coverage": coverage_json(coverage),
                "health": health_figure(
                    rate, trend, gap_share, reevaluation_rate, backlog_share, coverage.share
                ),
            }
        )
    return result


def reevaluation_by_schema(store: MemoryStore, agent: str | None = None) -> list[dict[str, JSON]]:
    """Per schema name and target version: entries re-evaluated, per result, and the
    re-evaluation failure rate (promoted / checked; skipped items left out)."""
    groups: dict[tuple[str, int], dict[str, int]] = {}
    for name, version, result, count in store.reevaluation_results(agent):
        groups.setdefault((name, version), {})[result] = count
    rows: list[dict[str, JSON]] = []
    for (name, version), counts in sorted(groups.items()):
        checked = sum(n for r, n in counts.items() if r != "skipped")
        promoted = counts.get("promoted", 0)
        rows.append(
            {
                "schema": name,
                "version": version,
                "checked": checked,
                "promoted": promoted,
                "annotated": counts.get("annotated", 0),
                "clean": counts.get("clean", 0),
                "rate": _round(promoted / checked if checked else None),
            }
        )
    return rows


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
