"""The sections of the settings: what each runtime object takes.

``Settings`` (``factdiff.settings.model``) holds every key as the file, the environment and the
flags name it; its properties give these sections, so a runtime object takes only its part:

* ``components``: extractor, summarizer, ladder (``factdiff.compression.components``);
* ``demotion``: dormancy, attempts, backoffs, budgets, concurrency (``DemotionSettings``);
* ``worker``: how a worker holds what it claims, lease, heartbeat, poll and grace, and how it
  logs (``WorkerSettings``, and the runner both demotion paths share);
* ``models``: every model call's deadline, requests, output budgets, transport, and the
  per-model parameters (``CallPolicy``, ``ModelParams``);
* ``retrieval``: promotion and touch (``factdiff.settings.retrieval``);
* ``service``: what ``factdiff serve`` hands to each of its processes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from factdiff.settings.model_params import ModelSettings, StructuredOutput

__all__ = [
    "SERVE_DB_ENV",
    "SERVE_MAX_BODY_BYTES_ENV",
    "ComponentsSection",
    "DemotionSection",
    "ModelsSection",
    "ServiceSection",
    "WorkerSection",
    "heartbeat_every",
]

LogFormat = Literal["text", "json"]
Retention = Literal["all", "warm-clean"]
HttpTransport = Literal["auto", "aiohttp", "httpx"]
HEARTBEAT_MIN_SECONDS = 0.05
SERVE_DB_ENV = "FACTDIFF_SERVE_DB"
SERVE_MAX_BODY_BYTES_ENV = "FACTDIFF_SERVE_MAX_BODY_BYTES"


def heartbeat_every(lease: float, heartbeat: float | None) -> float:
    """Seconds between heartbeats: ``heartbeat`` when set, else a third of the lease (at
    least 50ms), so two heartbeats may fail before the lease is lost. The one rule every
    holder of a lease follows."""
    return heartbeat if heartbeat is not None else max(HEARTBEAT_MIN_SECONDS, lease / 3)


@dataclass(frozen=True)
class ComponentsSection:
    """Which extractor and summarizers compress (spec strings)."""

    extractor: str
    summarizer: str
    ladder: str | None
    allow_same_model: bool


@dataclass(frozen=True)
class DemotionSection:
    """How demotion picks, retries and runs entries (durations in seconds)."""

    older_than: float
    max_attempts: int | None
    attempt_retention: Retention
    backoff: float
    error_backoff: float
    error_backoff_max: float
    provider_error_budget: int
    error_budget: int
    max_source_bytes: int
    concurrency: int | None
    extract_workers: int | None


@dataclass(frozen=True)
class WorkerSection:
    """How a worker holds what it claims (seconds) and how it logs."""

    lease: float
    heartbeat: float | None
    poll: float
    grace: float
    log_format: LogFormat

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats (``heartbeat_every``)."""
        return heartbeat_every(self.lease, self.heartbeat)


@dataclass(frozen=True)
class ModelsSection:
    """Every model call's policy, and the parameters of each model."""

    in_flight: int | None
    deadline: float
    requests_per_call: int
    max_tokens: int
    max_output_tokens: int
    llm_http: HttpTransport
    structured_output: StructuredOutput
    params: Mapping[str, ModelSettings] = field(default_factory=dict)


@dataclass(frozen=True)
class ServiceSection:
    """What ``factdiff serve`` hands to each of its processes through the environment:
    the store (``FACTDIFF_SERVE_DB``) and the request body limit
    (``FACTDIFF_SERVE_MAX_BODY_BYTES``; None: the service's default)."""

    db: str
    max_body_bytes: int | None = None

    def to_environ(self) -> dict[str, str]:
        """The variables that carry this section to a process."""
        values = {SERVE_DB_ENV: self.db}
        if self.max_body_bytes is not None:
            values[SERVE_MAX_BODY_BYTES_ENV] = str(self.max_body_bytes)
        return values

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ServiceSection:
        """The section a ``factdiff serve`` process was given; ``RuntimeError`` without it."""
        db = environ.get(SERVE_DB_ENV)
        if not db:
            raise RuntimeError(f"{SERVE_DB_ENV} is not set: start the API with `factdiff serve`")
        limit = environ.get(SERVE_MAX_BODY_BYTES_ENV)
        return cls(db, int(limit) if limit else None)
