"""``Settings``: every key with its default and its bounds, and the sections built from them.

The keys are flat, as the settings file, the environment (``FACTDIFF_<KEY>``) and the flags
(``--<key>``) name them; ``SECTIONS`` says which section each belongs to, and the properties
``components``, ``demotion``, ``worker``, ``models`` and ``retrieval`` give the sections
(``factdiff.settings.sections``). Each default is defined here, once: ``DEFAULTS`` holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from factdiff.inputs.bounds import BYTES_MAX, CONCURRENCY_MAX, COUNT_MAX, PROCESSES_MAX
from factdiff.inputs.times import parse_duration
from factdiff.settings.model_params import ModelSettings, StructuredOutput
from factdiff.settings.retrieval import RetrievalSettings
from factdiff.settings.sections import (
    ComponentsSection,
    DemotionSection,
    HttpTransport,
    LogFormat,
    ModelsSection,
    Retention,
    WorkerSection,
    heartbeat_every,
)

__all__ = ["DEFAULTS", "SECTIONS", "ModelSettings", "Settings"]

Seconds = Annotated[float, BeforeValidator(parse_duration)]


def _positive(seconds: float) -> float:
    if seconds <= 0:
        raise ValueError("must be longer than zero")
    return seconds


PositiveSeconds = Annotated[float, BeforeValidator(parse_duration), AfterValidator(_positive)]


SECTIONS: Mapping[str, tuple[str, ...]] = {
    "components": ("extractor", "summarizer", "ladder", "allow_same_model"),
    "demotion": (
        "older_than",
        "max_attempts",
        "attempt_retention",
        "backoff",
        "error_backoff",
        "error_backoff_max",
        "error_budget",
        "provider_error_budget",
        "concurrency",
        "extract_workers",
        "max_source_bytes",
    ),
    "models": (
        "in_flight",
        "deadline",
        "requests_per_call",
        "max_tokens",
        "max_output_tokens",
        "llm_http",
        "structured_output",
        "models",
    ),
    "worker": ("lease", "heartbeat", "poll", "grace", "log_format"),
    "retrieval": ("promote_after", "promote_window", "search_touch"),
}
"""Section -> its keys (as the file names them; ``models`` is the per-model tables)."""


class Settings(BaseModel):
    """Every setting with its default (see ``factdiff.settings``); unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    extractor: str = "rules"
    """The extractor: ``rules``, ``provider:model`` (held to the rules floor) or
    ``jury:provider:model`` (rules and the model merged)."""
    summarizer: str = "extractive"
    """The summarizer of every rung: ``extractive``, ``naive`` or ``provider:model``."""
    ladder: str | None = None
    """The retry ladder, rungs ``NAME[:BUDGET][:strict]`` separated by commas (unset: the
    summarizer at 35%, 60% and 100% of the source's words)."""
    allow_same_model: bool = False
    """Let the extractor and a summarizer be the same model (their failures correlate)."""

    promote_after: int | str | None = None
    """Fetches of a warm source within ``promote_window`` above which it goes back to hot
    (unset: 3; ``never`` turns promotion off)."""
    promote_window: str | None = None
    """The window those fetches are counted over (unset: ``7d``)."""
    search_touch: str | None = None
    """What a search marks as used: ``hits``, ``top`` or ``none`` (unset: ``hits``)."""

    older_than: Seconds = 14 * 86400.0
    """Dormancy before a hot entry is due for demotion."""
    max_attempts: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    """Verified attempts before operator review (unset: one per rung)."""
    attempt_retention: Retention = "all"
    """``all``, or ``warm-clean``: an entry a clean attempt makes warm keeps no attempt rows."""
    backoff: PositiveSeconds = 3600.0
    """After failed verified attempt n: backoff x 4^(n-1), at most 2 days, +0-25% jitter."""
    error_backoff: PositiveSeconds = 60.0
    """After error attempt k of a streak: error_backoff x 2^(k-1), +0-25% jitter (a
    provider's Retry-After comes first)."""
    error_backoff_max: PositiveSeconds = 3600.0
    """The longest wait after an error attempt."""
    provider_error_budget: int = Field(default=8, ge=1, le=COUNT_MAX)
    """Provider outages in a row before review as ``provider_unavailable``."""
    error_budget: int = Field(default=3, ge=1, le=COUNT_MAX)
    """Other error attempts in a row (model output, internal) before review."""
    max_source_bytes: int = Field(default=1_048_576, ge=1, le=BYTES_MAX)
    """Larger entries go to review (``refused_input``) instead of being compressed."""
    concurrency: int | None = Field(default=None, ge=1, le=CONCURRENCY_MAX)
    """Entries in flight at once (unset: ``demote`` 1, ``worker`` 4)."""
    extract_workers: int | None = Field(default=None, ge=0, le=PROCESSES_MAX)
    """Processes for the offline extractor and summarizers (unset: none below concurrency
    8, else one per core, at most 8)."""

    in_flight: int | None = Field(default=None, ge=1, le=CONCURRENCY_MAX)
    """HTTP requests in flight per provider, across the process (unset: no bound)."""
    deadline: PositiveSeconds = 120.0
    """One model call, counted from its first request."""
    requests_per_call: int = Field(default=3, ge=1, le=COUNT_MAX)
    """HTTP requests per model call, retries included."""
    max_tokens: int = Field(default=4096, ge=1, le=COUNT_MAX)
    """The LLM extractor's output token budget."""
    max_output_tokens: int = Field(default=16384, ge=1, le=COUNT_MAX)
    """How far a truncated answer may raise the output budget (doubled per retry)."""
    llm_http: HttpTransport = "auto"
    """The HTTP transport under the provider SDKs: ``aiohttp``, ``httpx`` or ``auto``
    (aiohttp when installed)."""
    structured_output: StructuredOutput = "auto"
    """How models are asked for JSON: ``json_schema``, ``json_object``, ``prompt``, or
    ``auto`` (the first form each endpoint and model accepts, in that order)."""
    per_model: dict[str, ModelSettings] = Field(default_factory=dict, alias="models")
    """The ``[models."provider:model"]`` tables (``model(name)`` reads one)."""

    lease: PositiveSeconds = 60.0
    """How long a claimed entry is held without a heartbeat."""
    heartbeat: PositiveSeconds | None = None
    """Seconds between a worker's heartbeats; shorter than the lease (unset: a third of
    the lease, at least 50 ms)."""
    poll: PositiveSeconds = 1.0
    """A worker's wait when nothing is due."""
    grace: Seconds = 30.0
    """How long a worker finishes its entries after SIGTERM."""
    log_format: LogFormat = "text"
    """The worker's log lines: ``text`` or ``json`` (one object per line)."""

    @model_validator(mode="after")
    def _heartbeat_below_lease(self) -> Settings:
        if self.heartbeat is not None and self.heartbeat >= self.lease:
            raise ValueError(
                f"heartbeat ({self.heartbeat:g}s) must be shorter than lease ({self.lease:g}s)"
            )
        if self.heartbeat_every >= self.lease:
            raise ValueError(
                f"lease ({self.lease:g}s) is too short for its heartbeat (a third of the "
                "lease, at least 50ms): give a longer lease"
            )
        return self

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats: ``heartbeat``, else a third of the lease."""
        return heartbeat_every(self.lease, self.heartbeat)

    def model(self, name: str) -> ModelSettings:
        """The parameters of ``provider:model`` (defaults when none are set)."""
        return self.per_model.get(name) or ModelSettings()

    # -- sections ---------------------------------------------------------------------------

    @property
    def components(self) -> ComponentsSection:
        """Extractor, summarizer and ladder specs."""
        return ComponentsSection(
            self.extractor, self.summarizer, self.ladder, self.allow_same_model
        )

    @property
    def demotion(self) -> DemotionSection:
        """Dormancy, attempts, backoffs, budgets and concurrency."""
        return DemotionSection(**{key: getattr(self, key) for key in SECTIONS["demotion"]})

    @property
    def worker(self) -> WorkerSection:
        """Lease, heartbeat, poll, grace and log format."""
        return WorkerSection(**{key: getattr(self, key) for key in SECTIONS["worker"]})

    @property
    def models(self) -> ModelsSection:
        """Every model call's policy and the per-model parameters."""
        calls = {key: getattr(self, key) for key in SECTIONS["models"] if key != "models"}
        return ModelsSection(**calls, params=self.per_model)

    @property
    def retrieval(self) -> RetrievalSettings:
        """Promotion and touch, read and checked (``UsageError`` for a bad value)."""
        return RetrievalSettings.from_values(
            self.promote_after, self.promote_window, self.search_touch
        )


DEFAULTS = Settings()
"""Every default, in one object: code that needs a default reads it from here."""
