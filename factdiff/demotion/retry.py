"""Retries in one vocabulary: a policy object that returns a decision.

Two schedules, never mixed:

* a **verified** attempt that failed climbs the ladder and counts toward ``max_attempts``;
* an **error** attempt verified nothing (the provider was unavailable, the model answered
  unusably, or something unexpected broke): it never climbs the ladder or counts toward
  ``max_attempts``. It backs off on its own schedule, and only a streak of them beyond the
  error budget sends the entry to review, with a reason of its own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from factdiff.inputs.times import MAX_DURATION, later
from factdiff.present.wording import plural
from factdiff.settings import DEFAULTS, DemotionSection

__all__ = ["RetryDecision", "RetryPolicy", "ReviewReason"]

MIN_DELAY = timedelta(seconds=1)
"""No retry is scheduled sooner: an entry is never due again within the pass that failed it."""


class ReviewReason:
    """The stable ``reason`` of an ``escalated_to_review`` event (``detail`` says more)."""

    MAX_ATTEMPTS = "max_attempts"
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    REFUSED_INPUT = "refused_input"
    CONTEXT_TOO_LONG = "context_too_long"
    ERRORS = "errors"


@dataclass(frozen=True)
class RetryDecision:
    """Either retry at ``retry_at``, or stop and escalate to operator review.

    ``reason`` is the stable review reason when escalating (``ReviewReason``); ``detail`` a
    line for people."""

    retry_at: datetime | None
    escalate: bool
    detail: str
    reason: str = ""


def _seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with bounded, deterministic jitter, on two schedules.

    After failed verified attempt ``n`` (1-based) of ``max_attempts``::

        delay = min(max_delay, base_delay * factor ** (n - 1)) * (1 + jitter * u)

    After error attempt ``k`` of a streak (1-based)::

        delay = retry_after                                    when the provider gave one
        delay = min(error_max_delay, error_base_delay * error_factor ** (k - 1)) * (1 + jitter * u)

    where ``u`` in [0, 1) is derived from a hash of (entry id, n or k), so two workers agree and
    a rerun schedules the same time, while many entries failing together still spread out.
    No delay is shorter than one second or longer than ``MAX_DURATION``, and no retry is
    scheduled past ``TIME_MAX`` (``factdiff.inputs.times``). At ``n >= max_attempts`` the
    decision is to escalate (``max_attempts``); at ``k >= provider_error_budget`` for a
    provider outage (``provider_unavailable``), ``k >= error_budget`` for any other error.
    """

    max_attempts: int = 3
    base_delay: timedelta = field(default_factory=lambda: _seconds(DEFAULTS.backoff))
    factor: float = 4.0
    max_delay: timedelta = timedelta(days=2)
    jitter: float = 0.25
    error_base_delay: timedelta = field(default_factory=lambda: _seconds(DEFAULTS.error_backoff))
    error_factor: float = 2.0
    error_max_delay: timedelta = field(default_factory=lambda: _seconds(DEFAULTS.error_backoff_max))
    error_budget: int = DEFAULTS.error_budget
    provider_error_budget: int = DEFAULTS.provider_error_budget

    @classmethod
    def from_section(cls, demotion: DemotionSection, rungs: int) -> RetryPolicy:
        """The policy of the ``demotion`` section for a ladder of ``rungs`` rungs (at most
        one verified attempt per rung unless ``max_attempts`` is set)."""
        return cls(
            max_attempts=demotion.max_attempts or rungs,
            base_delay=_seconds(demotion.backoff),
            error_base_delay=_seconds(demotion.error_backoff),
            error_max_delay=_seconds(demotion.error_backoff_max),
            error_budget=demotion.error_budget,
            provider_error_budget=demotion.provider_error_budget,
        )

    def decide(
        self, entry_id: str, attempt: int, now: datetime, not_before: datetime | None = None
    ) -> RetryDecision:
        """The decision after failed verified attempt number ``attempt`` (1-based)."""
        if attempt >= self.max_attempts:
            return RetryDecision(
                None,
                True,
                f"{attempt} of {plural(self.max_attempts, 'attempt')} failed",
                ReviewReason.MAX_ATTEMPTS,
            )
        base, cap = self.base_delay.total_seconds(), self.max_delay.total_seconds()
        seconds = _grown(base, self.factor, attempt - 1, cap)
        retry_at = self._at(now, seconds, f"{entry_id}:{attempt}")
        if not_before is not None and not_before > retry_at:
            retry_at = not_before
        return RetryDecision(retry_at, False, f"attempt {attempt + 1} at {retry_at.isoformat()}")

    def decide_error(
        self,
        entry_id: str,
        streak: int,
        now: datetime,
        *,
        provider: bool,
        retry_after: float | None = None,
        failure: str = "",
    ) -> RetryDecision:
        """The decision after error attempt number ``streak`` in a row (1-based).

        ``provider``: the provider was unavailable (its own, larger budget);
        ``retry_after``: the seconds it asked for, honoured as given; ``failure`` names the
        failure class for the detail line.
        """
        budget = self.provider_error_budget if provider else self.error_budget
        if streak >= budget:
            reason = ReviewReason.PROVIDER_UNAVAILABLE if provider else ReviewReason.ERRORS
            return RetryDecision(
                None,
                True,
                f"{plural(streak, 'error attempt')} in a row (budget {budget}), the last {failure}",
                reason,
            )
        if retry_after is not None:
            wait = min(max(MIN_DELAY.total_seconds(), retry_after), MAX_DURATION)
            retry_at = later(now, timedelta(seconds=wait))
        else:
            seconds = _grown(
                self.error_base_delay.total_seconds(),
                self.error_factor,
                streak - 1,
                self.error_max_delay.total_seconds(),
            )
            retry_at = self._at(now, seconds, f"{entry_id}:error:{streak}")
        return RetryDecision(retry_at, False, f"retry at {retry_at.isoformat()} ({failure})")

    def _at(self, now: datetime, seconds: float, seed: str) -> datetime:
        seconds *= 1 + self.jitter * _unit_interval(seed)
        seconds = min(max(MIN_DELAY.total_seconds(), round(seconds)), MAX_DURATION)
        return later(now, timedelta(seconds=seconds))


def _grown(base: float, factor: float, steps: int, cap: float) -> float:
    """``min(cap, base * factor ** steps)``, without overflowing for a long streak."""
    try:
        return min(cap, base * factor**steps)
    except OverflowError:
        return cap


def _unit_interval(seed: str) -> float:
    digest = hashlib.sha256(seed.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64
