"""The stats figures' arithmetic: failure rates, facts lost per diff, the LLM cost."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from factdiff.store.stats import Stats, _diff_facts, _llm_cost, failure_rate


def test_failure_rate_is_rounded_and_zero_without_attempts() -> None:
    assert failure_rate(0, 0) == 0.0
    assert failure_rate(3, 1) == 0.333333
    assert failure_rate(4, 4) == 1.0


def test_diff_facts_reads_objects_and_old_field_names() -> None:
    diff = {
        "missing": [{"field": "total", "criticality": "critical"}, "due_date"],
        "changed": [{"field": "payee"}, {"criticality": "high"}, 7],
        "added": "not a list",
        "fields": [{"field": "ignored"}],
    }
    assert list(_diff_facts(diff)) == [
        ("missing", "total", "critical"),
        ("missing", "due_date", "unknown"),
        ("changed", "payee", "unknown"),
    ]
    assert list(_diff_facts(None)) == []
    assert list(_diff_facts(["missing"])) == []


def usage(model: str, cost: str | None) -> tuple[dict[str, Any], Decimal | None]:
    row = {
        "model": model,
        "role": "summarizer",
        "calls": 2,
        "http_calls": 2,
        "failed_calls": 0,
        "tokens_in": 10,
        "tokens_out": 5,
        "cost_usd": cost,
    }
    return row, None if cost is None else Decimal(cost)


def test_llm_cost_sums_exactly_and_is_unknown_when_a_price_is() -> None:
    known = _llm_cost([usage("a", "0.1"), usage("b", "0.2")])
    assert known["total_usd"] == "0.300000"
    assert [row["model"] for row in known["by_model"]] == ["a", "b"]
    assert "http_calls" not in known["by_model"][0]
    assert _llm_cost([usage("a", "0.1"), usage("b", None)])["total_usd"] is None
    assert _llm_cost([]) == {"total_usd": "0.000000", "by_model": []}


class CountedStats(Stats):
    """``Stats`` whose lost facts are given (no database)."""

    def __init__(self, lost: dict[tuple[str, str, str], int]) -> None:
        self._lost = lost

    def lost_facts(self) -> dict[tuple[str, str, str], int]:
        return self._lost


def test_facts_lost_sums_over_criticality_most_lost_first() -> None:
    stats = CountedStats(
        {
            ("missing", "b", "critical"): 1,
            ("missing", "b", "unknown"): 1,
            ("changed", "a", "high"): 2,
            ("added", "c", "unknown"): 3,
        }
    )
    assert list(stats.facts_lost().items()) == [
        ("c", {"missing": 0, "changed": 0, "added": 3}),
        ("a", {"missing": 0, "changed": 2, "added": 0}),
        ("b", {"missing": 2, "changed": 0, "added": 0}),
    ]
