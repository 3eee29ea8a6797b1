"""Retries in one vocabulary: a policy object that returns a decision."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class RetryDecision:
    """Either retry at ``retry_at``, or stop and escalate to operator review."""

    retry_at: datetime | None
    escalate: bool
    reason: str


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with bounded, deterministic jitter.

    After failed attempt ``n`` (1-based) of ``max_attempts``::

        delay = min(max_delay, base_delay * factor ** (n - 1)) * (1 + jitter * u)

    where ``u`` in [0, 1) is derived from a hash of (entry id, n), so two workers agree and a
    rerun schedules the same time, while many entries failing together still spread out.
    At ``n >= max_attempts`` the decision is to escalate (no more automatic retries).
    ``not_before`` (a provider's Retry-After) is honoured when it is later.
    """

    max_attempts: int = 3
    base_delay: timedelta = timedelta(hours=1)
    factor: float = 4.0
    max_delay: timedelta = timedelta(days=2)
    jitter: float = 0.25

    def decide(
        self, entry_id: str, attempt: int, now: datetime, not_before: datetime | None = None
    ) -> RetryDecision:
        """The decision after failed attempt number ``attempt`` (1-based)."""
        if attempt >= self.max_attempts:
            return RetryDecision(None, True, f"{attempt} of {self.max_attempts} attempts failed")
        seconds = min(
            self.max_delay.total_seconds(),
            self.base_delay.total_seconds() * self.factor ** (attempt - 1),
        )
        seconds *= 1 + self.jitter * _unit_interval(f"{entry_id}:{attempt}")
        retry_at = now + timedelta(seconds=round(seconds))
        if not_before is not None and not_before > retry_at:
            retry_at = not_before
        return RetryDecision(retry_at, False, f"attempt {attempt + 1} at {retry_at.isoformat()}")


def _unit_interval(seed: str) -> float:
    digest = hashlib.sha256(seed.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64
