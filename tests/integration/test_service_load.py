"""A bounded run of the service load bench on SQLite and PostgreSQL: uvicorn workers,
concurrent adds, searches, gets and listings with a demotion worker running: only 2xx,
nothing lost (no timing asserted)."""

from __future__ import annotations

from bench.service_load import ROUTES, report, run_load


def test_service_under_concurrent_load(target: str) -> None:
    result = run_load(target, workers=2, clients=3, ops=6)
    assert result.errors == []
    assert sum(result.non_2xx.values()) == 0
    assert len(result.added) == 3 * 6
    assert result.lost == []
    assert result.missed_searches == 0
    assert result.problems == []
    for route in ROUTES:
        assert len(result.latencies[route]) == 3 * 6
    assert "p95=" in report(result, 2, 3)
