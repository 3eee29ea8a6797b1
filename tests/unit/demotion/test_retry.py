"""Two retry schedules: verified failures climb the ladder, error attempts never do."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factdiff.demotion.retry import MIN_DELAY, RetryPolicy, ReviewReason

NOW = datetime(2026, 4, 1, tzinfo=UTC)


def test_a_retry_after_is_the_next_attempt_exactly() -> None:
    decision = RetryPolicy().decide_error("e", 1, NOW, provider=True, retry_after=30)
    assert decision.retry_at == NOW + timedelta(seconds=30)
    assert not decision.escalate
    zero = RetryPolicy().decide_error("e", 1, NOW, provider=True, retry_after=0)
    assert zero.retry_at == NOW + MIN_DELAY  # never due again within the same pass


def test_error_backoff_doubles_up_to_its_cap_with_bounded_jitter() -> None:
    policy = RetryPolicy(
        error_base_delay=timedelta(minutes=1), error_max_delay=timedelta(minutes=5)
    )
    for streak, base in zip((1, 2, 3, 4, 5), (60, 120, 240, 300, 300), strict=True):
        decision = policy.decide_error("entry", streak, NOW, provider=True)
        assert decision.retry_at is not None
        delay = (decision.retry_at - NOW).total_seconds()
        assert base <= delay <= base * 1.25 + 1
    again = policy.decide_error("entry", 3, NOW, provider=True)
    assert again == policy.decide_error("entry", 3, NOW, provider=True)  # deterministic


def test_budgets_and_review_reasons() -> None:
    policy = RetryPolicy(error_budget=2, provider_error_budget=4, max_attempts=3)
    assert not policy.decide_error("e", 3, NOW, provider=True).escalate
    outage = policy.decide_error("e", 4, NOW, provider=True)
    assert (outage.escalate, outage.reason) == (True, ReviewReason.PROVIDER_UNAVAILABLE)
    broken = policy.decide_error("e", 2, NOW, provider=False, failure="internal")
    assert (broken.escalate, broken.reason) == (True, ReviewReason.ERRORS)
    assert "internal" in broken.detail
    spent = policy.decide("e", 3, NOW)
    assert (spent.escalate, spent.reason) == (True, ReviewReason.MAX_ATTEMPTS)
    assert spent.detail == "3 of 3 attempts failed"
