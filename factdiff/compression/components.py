"""Component specs as strings: extractors, summarizers and retry ladders.

* extractor: ``rules`` (the deterministic default), ``provider:model`` (an LLM extractor,
  e.g. ``openai:gpt-4.1-mini``) or ``jury:provider:model`` (rules + LLM merged; the
  recommended choice when a model is configured);
* summarizer: ``extractive`` or ``naive`` (offline), or ``provider:model``
  (``anthropic:claude-sonnet-4-5``, ``openai:qwen2.5:7b`` with ``OPENAI_BASE_URL`` set);
* ladder: comma-separated rungs ``NAME[:BUDGET][:strict]`` where BUDGET is words (``60`` or
  ``60w``) or a share of the source's words (``0.35`` or ``0.35x``), e.g.
  ``naive:40,extractive:0.35,extractive:0.6:strict`` or
  ``openai:gpt-4.1-mini:0.35x,anthropic:claude-sonnet-4-5:0.6x:strict``. Options are read from
  the right, so model names keep their own colons. Each rung is stricter than the last
  anyway (it is told the facts the previous diff lost); ``strict`` raises strictness further.

Every value comes from ``factdiff.settings`` (flag > environment > settings file > default);
this module only turns the resolved settings into objects: ``components`` takes the
``components`` section, and every model it builds takes the ``models`` section. Provider
keys and endpoints come from their usual variables (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``). A plain ``provider:model`` extractor is held
to the rules floor (``factdiff.extraction.jury.FlooredExtractor``). The extractor and the
summarizer must be different models, so that their failures are not correlated:
``check_distinct_models`` refuses the same model unless ``allow_same_model``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from factdiff.compression.pipeline import Rung
from factdiff.errors import UsageError
from factdiff.extraction.base import Extractor
from factdiff.providers.base import CallPolicy, ModelParams
from factdiff.providers.runtime import set_provider_limit
from factdiff.providers.spec import PROVIDERS, is_model_spec, parse_model_spec
from factdiff.settings import (
    DEFAULTS,
    ModelSettings,
    ModelsSection,
    Settings,
    resolve_settings,
)
from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, Summarizer
from factdiff.verify.check import DEFAULT_EXTRACTOR

if TYPE_CHECKING:
    from factdiff.extraction.llm import LLMExtractor
    from factdiff.values.base import JSON

EXTRACTORS: dict[str, Callable[[], Extractor]] = {"rules": lambda: DEFAULT_EXTRACTOR}
SUMMARIZERS: dict[str, type[ExtractiveSummarizer] | type[NaiveSummarizer]] = {
    "extractive": ExtractiveSummarizer,
    "naive": NaiveSummarizer,
}
JURY_PREFIX = "jury:"


_DEFAULT_MODELS = DEFAULTS.models


def call_policy(models: ModelsSection = _DEFAULT_MODELS) -> CallPolicy:
    """The policy of every model call: deadline, requests per call, output budget cap."""
    return CallPolicy(
        deadline_s=models.deadline,
        max_attempts=models.requests_per_call,
        max_output_tokens=models.max_output_tokens,
        http=models.llm_http,
    )


def model_params(name: str, models: ModelsSection = _DEFAULT_MODELS) -> ModelParams:
    """The parameters of model ``provider:model`` from the ``models`` section."""
    chosen = models.params.get(name) or ModelSettings()
    return ModelParams(
        token_param=chosen.token_param,
        temperature=chosen.temperature,
        max_tokens=chosen.max_tokens,
        max_output_tokens=chosen.max_output_tokens,
        structured_output=chosen.structured_output or models.structured_output,
        extra=dict(chosen.extra),
    )


def apply_provider_limits(models: ModelsSection) -> None:
    """Bound the requests in flight per provider (``in_flight``) for this process."""
    for provider in PROVIDERS:
        set_provider_limit(provider, models.in_flight)


def _llm_extractor(spec: str, models: ModelsSection) -> LLMExtractor:
    from factdiff.extraction.llm import LLMExtractor

    model = parse_model_spec(spec)
    return LLMExtractor(
        model,
        max_tokens=models.max_tokens,
        policy=call_policy(models),
        params=model_params(model.name, models),
    )


def extractor_from_spec(spec: str, models: ModelsSection = _DEFAULT_MODELS) -> Extractor:
    """An extractor from its spec string: ``rules``, ``provider:model`` (held to the rules
    floor) or ``jury:provider:model``."""
    name = spec.strip()
    factory = EXTRACTORS.get(name)
    if factory is not None:
        return factory()
    if name.startswith(JURY_PREFIX) and is_model_spec(name.removeprefix(JURY_PREFIX)):
        from factdiff.extraction.jury import JuryExtractor

        llm = _llm_extractor(name.removeprefix(JURY_PREFIX), models)
        return JuryExtractor(llm, rules=DEFAULT_EXTRACTOR)
    if is_model_spec(name):
        from factdiff.extraction.jury import FlooredExtractor

        return FlooredExtractor(_llm_extractor(name, models), rules=DEFAULT_EXTRACTOR)
    raise UsageError(
        f"unknown extractor {spec!r}; known: {', '.join(EXTRACTORS)}, provider:model, "
        f"jury:provider:model (providers: {', '.join(PROVIDERS)})"
    )


def summarizer_from_spec(spec: str, models: ModelsSection = _DEFAULT_MODELS) -> Summarizer:
    """A summarizer from its spec string: ``extractive``, ``naive`` or ``provider:model``."""
    name = spec.strip()
    factory = SUMMARIZERS.get(name)
    if factory is not None:
        return factory()
    if is_model_spec(name):
        from factdiff.summarize.llm import LLMSummarizer

        model = parse_model_spec(name)
        return LLMSummarizer(
            model, policy=call_policy(models), params=model_params(model.name, models)
        )
    raise UsageError(
        f"unknown summarizer {spec!r}; known: {', '.join(SUMMARIZERS)}, provider:model "
        f"(providers: {', '.join(PROVIDERS)})"
    )


def resolve_extractor_spec(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The extractor spec: flag, ``FACTDIFF_EXTRACTOR``, settings file, else ``rules``."""
    return resolve_settings({"extractor": _flag(flag)}, environ).extractor


def resolve_summarizer_spec(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The summarizer spec: flag, ``FACTDIFF_SUMMARIZER``, settings file, else ``extractive``."""
    return resolve_settings({"summarizer": _flag(flag)}, environ).summarizer


def _flag(value: str | None) -> str | None:
    return value.strip() if value is not None and value.strip() else None


def model_of(spec: str) -> str | None:
    """The ``provider:model`` a component spec calls, if any (``jury:`` stripped)."""
    name = spec.strip().removeprefix(JURY_PREFIX)
    if not is_model_spec(name):
        return None
    provider, _, model = name.partition(":")
    return f"{provider}:{model.strip()}"


def check_distinct_models(
    extractor_spec: str, summarizer_specs: Iterable[str], *, allow_same_model: bool = False
) -> None:
    """Refuse an extractor and a summarizer on the same model (correlated failures)."""
    extractor_model = model_of(extractor_spec)
    if extractor_model is None or allow_same_model:
        return
    for spec in summarizer_specs:
        if model_of(spec) == extractor_model:
            raise UsageError(
                f"the extractor and the summarizer are both {extractor_model}: their mistakes "
                "would agree and the diff would not see them; use another model for one of "
                "them, or pass allow_same_model to override"
            )


def ladder_summarizer_specs(spec: str) -> list[str]:
    """The summarizer spec of every rung of a ladder spec."""
    return [_split_rung(part.strip())[0] for part in spec.split(",") if part.strip()]


_OPTION = re.compile(r"^(?:strict|\d+w?|\d*\.\d+x?|\d+x)$")


def _split_rung(part: str) -> tuple[str, list[str]]:
    """``NAME[:BUDGET][:strict]`` with NAME possibly ``provider:model:tag``."""
    pieces = part.split(":")
    if not is_model_spec(part):
        return pieces[0], pieces[1:]
    options: list[str] = []
    while len(pieces) > 2 and len(options) < 2 and _OPTION.match(pieces[-1].strip()):
        options.insert(0, pieces.pop())
    return ":".join(pieces), options


def ladder_from_spec(spec: str, models: ModelsSection = _DEFAULT_MODELS) -> tuple[Rung, ...]:
    """A retry ladder from ``NAME[:BUDGET][:strict],...``."""
    rungs: list[Rung] = []
    built: dict[str, Summarizer] = {}
    for index, part in enumerate(p.strip() for p in spec.split(",")):
        if not part:
            raise UsageError(f"empty rung in ladder {spec!r}")
        name, options = _split_rung(part)
        if name not in built:
            built[name] = summarizer_from_spec(name, models)
        rung = Rung(built[name], strictness=index)
        for option in options:
            rung = _apply_option(rung, option.strip(), part)
        rungs.append(rung)
    return tuple(rungs)


def ladder_for_summarizer(spec: str, models: ModelsSection = _DEFAULT_MODELS) -> tuple[Rung, ...]:
    """The default ladder shape (35%, 60%, 100% of the source) with one summarizer."""
    return ladder_from_spec(f"{spec}:0.35x,{spec}:0.6x:strict,{spec}:1.0x:strict", models)


def _apply_option(rung: Rung, option: str, part: str) -> Rung:
    if option == "strict":
        return Rung(
            rung.summarizer,
            rung.budget_words,
            rung.budget_ratio,
            rung.min_words,
            rung.strictness + 1,
        )
    try:
        if option.endswith("x") or "." in option:
            ratio = float(option.removesuffix("x"))
            if not 0 < ratio <= 1:
                raise ValueError
            return Rung(rung.summarizer, None, ratio, rung.min_words, rung.strictness)
        words = int(option.removesuffix("w"))
        if words <= 0:
            raise ValueError
        return Rung(rung.summarizer, words, rung.budget_ratio, rung.min_words, rung.strictness)
    except ValueError:
        raise UsageError(
            f"bad rung option {option!r} in {part!r}: use words (60), a share (0.35x) or strict"
        ) from None


def components(settings: Settings) -> tuple[Extractor, tuple[Rung, ...]]:
    """The extractor and retry ladder of resolved settings (the one place they are built):
    the specs of its ``components`` section, each model with its ``models`` section.

    ``ladder`` wins over ``summarizer``; a summarizer alone climbs the default ladder shape
    (35%, 60%, 100% of the source). The extractor and summarizers must be different models.
    """
    specs, models = settings.components, settings.models
    summarizer_specs = ladder_summarizer_specs(specs.ladder) if specs.ladder else [specs.summarizer]
    check_distinct_models(
        specs.extractor, summarizer_specs, allow_same_model=specs.allow_same_model
    )
    rungs = (
        ladder_from_spec(specs.ladder, models)
        if specs.ladder
        else ladder_for_summarizer(specs.summarizer, models)
    )
    return extractor_from_spec(specs.extractor, models), rungs


def pipeline_components(
    *,
    extractor: str | None = None,
    summarizer: str | None = None,
    ladder: str | None = None,
    allow_same_model: bool = False,
    environ: Mapping[str, str] | None = None,
) -> tuple[Extractor, tuple[Rung, ...]]:
    """The extractor and retry ladder from flags, then environment, file and defaults."""
    flags: dict[str, JSON] = {
        "extractor": _flag(extractor),
        "summarizer": _flag(summarizer),
        "ladder": _flag(ladder),
        "allow_same_model": True if allow_same_model else None,
    }
    return components(resolve_settings(flags, environ))
