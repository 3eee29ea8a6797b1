"""``factdiff models check``: can every configured model do its role's work, before work is
spent on it?

For each endpoint and model the settings name (the extractor, every summarizer of the
ladder), one probe: is the endpoint reachable (a refused connection is said as such), does it
list the model, and then the role's own work on the built-in worked example: the extractor
one extraction (which finds the structured-output form the endpoint takes, and its facts),
a summarizer one summary (with the verifier's outcome on it). Latency and tokens of each.
A role can do its work when each of its models did; offline components always can.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from factdiff.compression.components import (
    call_policy,
    ladder_summarizer_specs,
    model_of,
    model_params,
)
from factdiff.errors import FactdiffError, ProviderError
from factdiff.extraction.llm import LLMExtractor
from factdiff.inputs.json_toml import JSON
from factdiff.present.safe_text import one_line
from factdiff.providers import meter
from factdiff.providers.base import Usage
from factdiff.providers.client import LLMClient
from factdiff.providers.spec import parse_model_spec
from factdiff.schema.builtin import builtin_schema
from factdiff.settings import Settings
from factdiff.summarize.base import SummaryRequest
from factdiff.summarize.llm import LLMSummarizer
from factdiff.verify.check import check, extract

__all__ = ["EXAMPLE_SCHEMA", "ModelProbe", "RoleCheck", "check_models"]

EXAMPLE_SCHEMA = "customer_service"
SUMMARY_SHARE = 0.35
"""The probe's summary budget, as a share of the example's words (the ladder's first rung)."""


@dataclass(frozen=True)
class Work:
    """What one probe's work took: its latency, its model calls and their tokens."""

    latency_ms: float | None
    calls: list[dict[str, JSON]]
    tokens_in: int
    tokens_out: int

    def to_json(self) -> dict[str, JSON]:
        """``latency_ms``, ``calls``, ``tokens_in``, ``tokens_out``."""
        return {
            "latency_ms": self.latency_ms,
            "calls": list(self.calls),
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
        }


@dataclass(frozen=True)
class ExtractionProbe:
    """The extractor's probe: one extraction of the example and the facts it found."""

    ok: bool
    error: str | None
    facts: dict[str, JSON]
    work: Work

    def to_json(self) -> dict[str, JSON]:
        """``ok``, ``error``, ``facts`` and the work's figures."""
        return {"ok": self.ok, "error": self.error, "facts": self.facts, **self.work.to_json()}


@dataclass(frozen=True)
class SummaryProbe:
    """A summarizer's probe: one summary of the example and its verification (``words``,
    ``outcome`` and ``missing`` when it summarized)."""

    ok: bool
    error: str | None
    text: str | None
    budget_words: int
    work: Work
    words: int = 0
    outcome: str = ""
    missing: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        """``ok``, ``error``, ``text``, ``budget_words`` (then ``words``, ``outcome`` and
        ``missing`` when ok) and the work's figures."""
        data: dict[str, JSON] = {
            "ok": self.ok,
            "error": self.error,
            "text": self.text,
            "budget_words": self.budget_words,
        }
        if self.ok:
            data.update(words=self.words, outcome=self.outcome, missing=list(self.missing))
        return {**data, **self.work.to_json()}


@dataclass
class ModelProbe:
    """What one endpoint and model answered."""

    model: str
    base_url: str | None
    roles: list[str]
    reachable: bool | None = None
    listed: bool | None = None
    error: str | None = None
    structured_output: str | None = None
    extraction: ExtractionProbe | None = None
    summary: SummaryProbe | None = None

    def can(self, role: str) -> bool:
        """Whether this model did ``role``'s work."""
        work = self.extraction if role == "extractor" else self.summary
        return work is not None and work.ok

    def to_json(self) -> dict[str, JSON]:
        """The probe as JSON (``models check --json``)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "roles": self.roles,
            "reachable": self.reachable,
            "listed": self.listed,
            "error": self.error,
            "structured_output": self.structured_output,
            "extraction": None if self.extraction is None else self.extraction.to_json(),
            "summary": None if self.summary is None else self.summary.to_json(),
        }


@dataclass
class RoleCheck:
    """One configured role, its component and whether it can do its work."""

    role: str
    spec: str
    models: list[str] = field(default_factory=list)
    ok: bool = True

    def to_json(self) -> dict[str, JSON]:
        """The role as JSON."""
        return {"role": self.role, "spec": self.spec, "models": self.models, "ok": self.ok}


def _roles(settings: Settings) -> list[RoleCheck]:
    roles = [RoleCheck("extractor", settings.extractor)]
    specs = ladder_summarizer_specs(settings.ladder) if settings.ladder else [settings.summarizer]
    summarizer = settings.ladder or settings.summarizer
    roles.append(RoleCheck("summarizer", summarizer))
    for role in roles:
        names = [settings.extractor] if role.role == "extractor" else specs
        for name in names:
            model = model_of(name)
            if model is not None and model not in role.models:
                role.models.append(model)
    return roles


def check_models(settings: Settings, example: str) -> tuple[list[RoleCheck], list[ModelProbe]]:
    """Probe every model the settings configure on ``example`` (an entry text); each role
    says whether it can work."""
    roles = _roles(settings)
    probes: dict[str, ModelProbe] = {}
    for role in roles:
        for model in role.models:
            probe = probes.get(model)
            if probe is None:
                client = _client(model, settings)
                probe = probes[model] = ModelProbe(model, client.spec.base_url, [])
                _reach(probe, client)
            probe.roles.append(role.role)
    for probe in probes.values():
        if probe.reachable is False:
            continue
        client = _client(probe.model, settings)
        if "extractor" in probe.roles:
            probe.extraction = _extraction(client, settings, example)
            probe.structured_output = client.structured_form
        if "summarizer" in probe.roles:
            probe.summary = _summary(client, example)
    for role in roles:
        role.ok = all(probes[m].can(role.role) for m in role.models)
    return roles, list(probes.values())


def _client(model: str, settings: Settings) -> LLMClient:
    return LLMClient(
        parse_model_spec(model),
        policy=call_policy(settings.models),
        params=model_params(model, settings.models),
    )


def _reach(probe: ModelProbe, client: LLMClient) -> None:
    """Reachable and listed: one ``GET /models``. An endpoint that answers with an error
    status is reachable (and does not list models); no answer at all is not."""
    try:
        listed = client.list_models()
    except ProviderError as exc:
        probe.reachable = exc.status_code is not None
        probe.error = one_line(str(exc))
        return
    except FactdiffError as exc:
        probe.reachable, probe.error = False, one_line(str(exc))
        return
    probe.reachable = True
    probe.listed = client.spec.model in listed


@contextmanager
def _timed() -> Iterator[tuple[Usage, dict[str, float]]]:
    clock: dict[str, float] = {}
    started = time.perf_counter()
    with meter.metered() as usage:
        yield usage, clock
    clock["ms"] = round((time.perf_counter() - started) * 1000, 1)


def _work(usage: Usage, clock: dict[str, float]) -> Work:
    return Work(
        clock.get("ms"),
        [
            {
                "outcome": call.outcome,
                "http_calls": call.http_calls,
                "latency_ms": round(call.duration_ms, 1),
                "tokens_in": call.tokens_in,
                "tokens_out": call.tokens_out,
            }
            for call in usage.records
        ],
        usage.tokens_in,
        usage.tokens_out,
    )


def _extraction(client: LLMClient, settings: Settings, example: str) -> ExtractionProbe:
    schema = builtin_schema(EXAMPLE_SCHEMA)
    extractor = LLMExtractor(client, max_tokens=settings.max_tokens)
    error: str | None = None
    with _timed() as (usage, clock):
        try:
            record = extractor.extract(example, schema)
        except FactdiffError as exc:
            error = one_line(str(exc))
            record = None
    if record is None:
        return ExtractionProbe(False, error, {}, _work(usage, clock))
    many = {spec.name: spec.many for spec in schema.fields}
    facts = record.public_json(many)["facts"]
    assert isinstance(facts, dict)
    found = {k: v for k, v in facts.items() if v not in (None, [])}
    return ExtractionProbe(True, error, found, _work(usage, clock))


def _summary(client: LLMClient, example: str) -> SummaryProbe:
    schema = builtin_schema(EXAMPLE_SCHEMA)
    text = example
    budget = max(10, round(len(text.split()) * SUMMARY_SHARE))
    source_record = extract(text, schema)
    request = SummaryRequest(text, schema, source_record, budget)
    error: str | None = None
    with _timed() as (usage, clock):
        try:
            summary = LLMSummarizer(client).summarize(request)
        except FactdiffError as exc:
            error = one_line(str(exc))
            summary = None
    if summary is None:
        return SummaryProbe(False, error, None, budget, _work(usage, clock))
    verdict = check(text, summary.text, schema)
    return SummaryProbe(
        True,
        error,
        summary.text,
        budget,
        _work(usage, clock),
        words=len(summary.text.split()),
        outcome=verdict.outcome.value,
        missing=tuple(sorted({f.field for f in verdict.diff.missing})),
    )
