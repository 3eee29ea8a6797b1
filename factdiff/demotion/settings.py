"""How demotion compresses, retries and holds entries: ``DemotionSettings``, built from the
demotion and worker sections of ``factdiff.settings.Settings``, and the default offline ladder."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from factdiff.compression.engine import Rung
from factdiff.demotion.retry import RetryPolicy
from factdiff.extraction.base import Extractor
from factdiff.settings import DEFAULTS, Settings, heartbeat_every
from factdiff.summarize import ExtractiveSummarizer
from factdiff.verify.check import DEFAULT_EXTRACTOR
from factdiff.verify.policy import DEFAULT_POLICY, Policy

__all__ = ["DemotionSettings", "default_ladder"]


def default_ladder() -> tuple[Rung, ...]:
    """The offline ladder: extractive at 35% of the source, then 60% and stricter, then 100%."""
    extractive = ExtractiveSummarizer()
    return (
        Rung(extractive, budget_ratio=0.35, strictness=0),
        Rung(extractive, budget_ratio=0.6, strictness=1),
        Rung(extractive, budget_ratio=1.0, strictness=2),
    )


@dataclass(frozen=True)
class DemotionSettings:
    """How demotion compresses, retries and holds entries: the objects built from
    ``factdiff.settings.Settings`` (``from_settings``), whose values are the defaults here."""

    older_than: timedelta = timedelta(seconds=DEFAULTS.older_than)
    ladder: tuple[Rung, ...] = field(default_factory=default_ladder)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    policy: Policy = DEFAULT_POLICY
    extractor: Extractor = DEFAULT_EXTRACTOR
    max_source_bytes: int = DEFAULTS.max_source_bytes
    lease_seconds: float = DEFAULTS.lease
    heartbeat_seconds: float | None = DEFAULTS.heartbeat
    extract_workers: int | None = DEFAULTS.extract_workers
    attempt_retention: str = DEFAULTS.attempt_retention
    """``all`` keeps every attempt; ``warm-clean`` keeps no attempt row of an entry that a
    clean attempt made warm (its events, model calls and warm meta stay)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> DemotionSettings:
        """Components and policies from resolved settings (``factdiff.settings``): its
        ``components`` and ``models`` sections build the extractor and the ladder, its
        ``demotion`` section the rest, its ``worker`` section the lease of a pass."""
        from factdiff.compression.components import apply_provider_limits, components

        extractor, ladder = components(settings)
        apply_provider_limits(settings.models)
        demotion, worker = settings.demotion, settings.worker
        return cls(
            older_than=timedelta(seconds=demotion.older_than),
            ladder=ladder,
            extractor=extractor,
            retry=RetryPolicy.from_section(demotion, len(ladder)),
            max_source_bytes=demotion.max_source_bytes,
            lease_seconds=worker.lease,
            heartbeat_seconds=worker.heartbeat,
            extract_workers=demotion.extract_workers,
            attempt_retention=demotion.attempt_retention,
        )

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats (``factdiff.settings.heartbeat_every``)."""
        return heartbeat_every(self.lease_seconds, self.heartbeat_seconds)
