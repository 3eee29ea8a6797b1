"""A bounded run of the service load bench: uvicorn workers on PostgreSQL, concurrent adds
and searches with a demotion worker running: no errors, nothing lost (no timing asserted)."""

from __future__ import annotations

import pytest

from bench.service_load import report, run_load


@pytest.mark.postgres
def test_service_under_concurrent_load(pg_dsn: str) -> None:
    result = run_load(pg_dsn, workers=2, clients=3, ops=6)
    assert result.errors == []
    assert len(result.added) == 3 * 6
    assert result.lost == []
    assert result.missed_searches == 0
    assert result.problems == []
    assert len(result.latencies["GET /v1/search"]) == 3 * 6
    assert "p95=" in report(result, 2, 3)
