"""The dashboard's figures, read from the store's attempts, events and model calls.

``dashboard_figures(store)`` is the document of ``GET /v1/dashboard`` and of the page
``/ui/dashboard``. Its statements are the ``dashboard_*`` blocks of each dialect's
``dashboard.sql`` (SQLite and PostgreSQL); everything is ordered, so the document is the
same on every run over the same store.

Two figures come from ``factdiff.health``, the same functions as ``factdiff stats --json``:
``memory_score`` (the health figure per agent and what it is made of) and ``reevaluation``
(entries re-evaluated per schema version, and the share promoted back to hot).
"""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from factdiff.store import codec
from factdiff.store import rows as rowmap

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

__all__ = ["OUTCOMES", "dashboard_figures", "memory_score", "reevaluation_status"]

OUTCOMES = ("clean", "acceptable_with_notes", "failed", "error")
"""Attempt outcomes, in the order the dashboard shows them."""

TOP_FIELDS = 10
"""How many of the most often lost fields the dashboard lists."""

PAGE = 500
"""Attempt diffs read per query when counting lost fields."""

_EPOCH_DAY = date(1970, 1, 1)


def dashboard_figures(store: MemoryStore) -> dict[str, Any]:
    """``{"outcomes_by_day", "failure_by_schema", "failure_by_agent", "fields_lost",
    "review_backlog", "review_decisions_by_day", "llm_cost", "memory_score",
    "reevaluation"}``."""
    with store._read():
        by_day = store._rows(store._sql("dashboard_outcomes_by_day"), {})
        by_schema = store._rows(store._sql("dashboard_failure_by_schema"), {})
        by_agent = store._rows(store._sql("dashboard_failure_by_agent"), {})
        backlog = store._rows(store._sql("dashboard_backlog"), {})
        cost = store._rows(store._sql("dashboard_cost"), {})
        decisions = store._rows(store._sql("dashboard_review_events"), {})
    return {
        "outcomes_by_day": _outcomes_by_day(by_day),
        "failure_by_schema": [
            {"schema": str(name) or None, "version": int(version) or None, **_rate(total, bad)}
            for name, version, total, bad in by_schema
        ],
        "failure_by_agent": [
            {"agent": str(agent), **_rate(total, bad)} for agent, total, bad in by_agent
        ],
        "fields_lost": _fields_lost(store),
        "review_backlog": {
            "total": sum(int(count) for _, count, _ in backlog),
            "by_agent": [
                {
                    "agent": str(agent),
                    "count": int(count),
                    "oldest_created_at": codec.from_micros(int(oldest)).isoformat(),
                }
                for agent, count, oldest in backlog
            ],
        },
        "review_decisions_by_day": [
            {"day": _day(day), "type": str(kind), "count": int(count)}
            for day, kind, count in decisions
        ],
        "llm_cost": _cost(cost),
        "memory_score": memory_score(store),
        "reevaluation": reevaluation_status(store),
    }


def _day(day: Any) -> str:
    return (_EPOCH_DAY + timedelta(days=int(day))).isoformat()


def _rate(total: Any, bad: Any) -> dict[str, Any]:
    attempts, failed = int(total), int(bad or 0)
    return {
        "attempts": attempts,
        "failed": failed,
        "rate": round(failed / attempts, 6) if attempts else 0.0,
    }


def _outcomes_by_day(rows: list[Any]) -> list[dict[str, Any]]:
    days: dict[str, dict[str, Any]] = {}
    for day, outcome, count in rows:
        key = _day(day)
        row = days.setdefault(key, {"day": key, **dict.fromkeys(OUTCOMES, 0)})
        row[str(outcome)] = row.get(str(outcome), 0) + int(count)
    return [days[key] for key in sorted(days)]


def _fields_lost(store: MemoryStore) -> list[dict[str, Any]]:
    counts: dict[str, Counter[str]] = {}
    sql, after = store._sql("dashboard_lossy_diffs"), 0
    while True:
        with store._read():
            rows = store._rows(sql, {"after": after, "limit": PAGE})
        for attempt_id, diff_text, packed in rows:
            after = int(attempt_id)
            for kind, name in rowmap.diff_fields(rowmap.attempt_diff(diff_text, packed)):
                counts.setdefault(name, Counter())[kind] += 1
        if len(rows) < PAGE:
            break
    ordered = sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    return [
        {
            "field": name,
            "missing": c["missing"],
            "changed": c["changed"],
            "added": c["added"],
            "total": sum(c.values()),
        }
        for name, c in ordered[:TOP_FIELDS]
    ]


def _cost(rows: list[Any]) -> dict[str, Any]:
    models = []
    total = Decimal(0)
    complete = True
    for model, role, calls, tokens_in, tokens_out, cost, unpriced in rows:
        known = int(unpriced or 0) == 0
        amount = Decimal(str(cost)) if cost is not None else Decimal(0)
        complete = complete and known
        total += amount
        models.append(
            {
                "model": str(model),
                "role": str(role),
                "calls": int(calls),
                "tokens_in": int(tokens_in),
                "tokens_out": int(tokens_out),
                "cost_usd": f"{amount:.6f}" if known else None,
            }
        )
    return {"total_usd": f"{total:.6f}" if complete else None, "by_model": models}


def memory_score(store: MemoryStore) -> dict[str, Any]:
    """``{"available": True, "agents": [...]}``: per agent its health figure (``score``, 0 to
    100, documented in ``docs/evolution.md``) and the figures it is made of."""
    from factdiff.health import agent_health

    agents = [
        {
            "agent": row["agent"],
            "score": row["health"],
            "failure_rate": row["failure_rate"],
            "trend": row["trend"],
            "gap_share": row["gap_share"],
            "reevaluation_rate": row["reevaluation"]["rate"],
            "review_backlog": row["review_backlog"],
        }
        for row in agent_health(store)
    ]
    return {"available": True, "agents": agents}


def reevaluation_status(store: MemoryStore) -> dict[str, Any]:
    """``{"available": True, "schemas": [...]}``: per schema name and target version, the
    entries re-evaluated, promoted, annotated and clean, and the promoted share."""
    from factdiff.health import reevaluation_by_schema

    return {"available": True, "schemas": reevaluation_by_schema(store)}
