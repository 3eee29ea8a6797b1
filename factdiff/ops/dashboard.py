"""The dashboard's figures, read from the store's attempts, events and model calls.

``dashboard_figures(store)`` is the document of ``GET /v1/dashboard`` and of the page
``/ui/dashboard``; everything is ordered, so the document is the same on every run over the
same store. Outcomes and review decisions per day are its own (``dashboard_*`` in
``sql/common/dashboard.sql``). The failure rates, the facts lost, the review backlog and the
LLM cost are the store's figures (``MemoryStore.failure_by_schema``, ``failure_by_agent``,
``facts_lost``, ``review_backlog_summary``, ``llm_cost``), the same as ``factdiff stats
--json`` (``failure_rate``, ``failure_by_agent``, ``facts_lost``, ``review_backlog``,
``llm_cost``) and ``/metrics``.

Two figures come from ``factdiff.ops.health``, the same functions as ``factdiff stats --json``:
``memory_score`` (the health figure per agent and what it is made of) and ``reevaluation``
(entries re-evaluated per schema version, and the share promoted back to hot).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from factdiff.inputs.json_toml import JSON, json_object

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.store.activity import DayCount

__all__ = ["OUTCOMES", "dashboard_figures", "memory_score", "reevaluation_status"]

OUTCOMES = ("clean", "acceptable_with_notes", "failed", "error")
"""Attempt outcomes, in the order the dashboard shows them."""

TOP_FIELDS = 10
"""How many of the most often lost fields the dashboard lists."""


def dashboard_figures(store: MemoryStore) -> dict[str, JSON]:
    """``{"outcomes_by_day", "failure_by_schema", "failure_by_agent", "fields_lost",
    "review_backlog", "review_decisions_by_day", "llm_cost", "memory_score",
    "reevaluation"}``."""
    activity = store.daily_activity()
    lost = store.facts_lost()
    return {
        "outcomes_by_day": _outcomes_by_day(activity.outcomes),
        "failure_by_schema": store.failure_by_schema(),
        "failure_by_agent": store.failure_by_agent(),
        "fields_lost": [
            {"field": name, **counts, "total": sum(counts.values())}
            for name, counts in list(lost.items())[:TOP_FIELDS]
        ],
        "review_backlog": store.review_backlog_summary(),
        "review_decisions_by_day": [
            {"day": decision.day.isoformat(), "type": decision.kind, "count": decision.count}
            for decision in activity.review_decisions
        ],
        "llm_cost": store.llm_cost(),
        "memory_score": memory_score(store),
        "reevaluation": reevaluation_status(store),
    }


def _outcomes_by_day(counts: Sequence[DayCount]) -> list[dict[str, JSON]]:
    days: dict[str, dict[str, int]] = {}
    for count in counts:
        row = days.setdefault(count.day.isoformat(), dict.fromkeys(OUTCOMES, 0))
        row[count.kind] = row.get(count.kind, 0) + count.count
    return [{"day": day, **days[day]} for day in sorted(days)]


def memory_score(store: MemoryStore) -> dict[str, JSON]:
    """``{"available": True, "window": N, "agents": [...]}``: per agent its health figure
    (``score``, 0 to 100, documented in ``docs/evolution.md``) and the figures it is made of
    (``failure_rate`` over its last ``window`` attempts)."""
    from factdiff.ops.health import WINDOW, agent_health

    agents: list[JSON] = [
        {
            "agent": row["agent"],
            "score": row["health"],
            "failure_rate": row["failure_rate"],
            "trend": row["trend"],
            "gap_share": row["gap_share"],
            "reevaluation_rate": json_object(row["reevaluation"])["rate"],
            "review_backlog": row["review_backlog"],
            "kept_hot": row["kept_hot"],
        }
        for row in agent_health(store)
    ]
    return {"available": True, "window": WINDOW, "agents": agents}


def reevaluation_status(store: MemoryStore) -> dict[str, JSON]:
    """``{"available": True, "schemas": [...]}``: per schema name and target version, the
    entries re-evaluated, promoted, annotated and clean, and the promoted share."""
    from factdiff.ops.health import reevaluation_by_schema

    return {"available": True, "schemas": reevaluation_by_schema(store)}
