"""Entries an operator has to review: the worked example sent to review by a one-rung naive
ladder (shared by the CLI, HTTP and review-page tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import EntryStatus, open_store
from tests.conftest import worked

CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
"""When the worked example's call happened (its partial dates resolve against it)."""


def in_review(target: str, count: int, agent: str = "support-bot") -> list[str]:
    """``count`` copies of the worked example, dormant for 30 days, that a one-rung naive
    ladder (20 words) sent to review in the store at ``target``."""
    old = datetime.now(UTC) - timedelta(days=30)
    settings = DemotionSettings(
        ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
    )
    with open_store(target) as store:
        ids = [
            store.add(
                agent,
                worked("source"),
                now=old,
                occurred_at=CALL_TIME,
                schema="customer_service",
                last_used_at=old,
            )
            for _ in range(count)
        ]
        Demoter(store, settings).run(datetime.now(UTC))
        assert all(store.get(i).status is EntryStatus.REVIEW for i in ids)
    return ids
