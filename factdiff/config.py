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

Precedence (``resolve_extractor_spec`` / ``resolve_summarizer_spec``): a CLI flag, then the
environment (``FACTDIFF_EXTRACTOR``, ``FACTDIFF_SUMMARIZER``), then the settings file
(``factdiff.toml`` or ``FACTDIFF_CONFIG``, see ``factdiff.settings``), then the default
(``rules``, ``extractive``). Provider keys and endpoints come from their usual variables
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``).
The extractor and the summarizer must be different models, so that their failures are not
correlated: ``check_distinct_models`` refuses the same model unless ``allow_same_model``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from factdiff.errors import UsageError
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor
from factdiff.pipeline import Rung
from factdiff.providers.spec import PROVIDERS, is_model_spec, parse_model_spec
from factdiff.settings import load_settings
from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, Summarizer

EXTRACTORS = {"rules": RulesExtractor}
SUMMARIZERS: dict[str, type[ExtractiveSummarizer] | type[NaiveSummarizer]] = {
    "extractive": ExtractiveSummarizer,
    "naive": NaiveSummarizer,
}
DEFAULT_EXTRACTOR = "rules"
DEFAULT_SUMMARIZER = "extractive"
EXTRACTOR_ENV = "FACTDIFF_EXTRACTOR"
SUMMARIZER_ENV = "FACTDIFF_SUMMARIZER"
JURY_PREFIX = "jury:"


def extractor_from_spec(spec: str) -> Extractor:
    """An extractor from its spec string: ``rules``, ``provider:model``, ``jury:provider:model``."""
    name = spec.strip()
    factory = EXTRACTORS.get(name)
    if factory is not None:
        return factory()
    if name.startswith(JURY_PREFIX) and is_model_spec(name.removeprefix(JURY_PREFIX)):
        from factdiff.extract.jury import JuryExtractor
        from factdiff.extract.llm import LLMExtractor

        return JuryExtractor(LLMExtractor(parse_model_spec(name.removeprefix(JURY_PREFIX))))
    if is_model_spec(name):
        from factdiff.extract.llm import LLMExtractor

        return LLMExtractor(parse_model_spec(name))
    raise UsageError(
        f"unknown extractor {spec!r}; known: {', '.join(EXTRACTORS)}, provider:model, "
        f"jury:provider:model (providers: {', '.join(PROVIDERS)})"
    )


def summarizer_from_spec(spec: str) -> Summarizer:
    """A summarizer from its spec string: ``extractive``, ``naive`` or ``provider:model``."""
    name = spec.strip()
    factory = SUMMARIZERS.get(name)
    if factory is not None:
        return factory()
    if is_model_spec(name):
        from factdiff.summarize.llm import LLMSummarizer

        return LLMSummarizer(parse_model_spec(name))
    raise UsageError(
        f"unknown summarizer {spec!r}; known: {', '.join(SUMMARIZERS)}, provider:model "
        f"(providers: {', '.join(PROVIDERS)})"
    )


def resolve_extractor_spec(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The extractor spec: flag, ``FACTDIFF_EXTRACTOR``, settings file, else ``rules``."""
    configured = load_settings(environ).extractor
    return _resolve(flag, EXTRACTOR_ENV, configured or DEFAULT_EXTRACTOR, environ)


def resolve_summarizer_spec(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The summarizer spec: flag, ``FACTDIFF_SUMMARIZER``, settings file, else ``extractive``."""
    configured = load_settings(environ).summarizer
    return _resolve(flag, SUMMARIZER_ENV, configured or DEFAULT_SUMMARIZER, environ)


def _resolve(
    flag: str | None, variable: str, default: str, environ: Mapping[str, str] | None
) -> str:
    if flag is not None and flag.strip():
        return flag.strip()
    env = os.environ if environ is None else environ
    value = env.get(variable, "").strip()
    return value or default


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


def ladder_from_spec(spec: str) -> tuple[Rung, ...]:
    """A retry ladder from ``NAME[:BUDGET][:strict],...``."""
    rungs: list[Rung] = []
    for index, part in enumerate(p.strip() for p in spec.split(",")):
        if not part:
            raise UsageError(f"empty rung in ladder {spec!r}")
        name, options = _split_rung(part)
        rung = Rung(summarizer_from_spec(name), strictness=index)
        for option in options:
            rung = _apply_option(rung, option.strip(), part)
        rungs.append(rung)
    return tuple(rungs)


def ladder_for_summarizer(spec: str) -> tuple[Rung, ...]:
    """The default ladder shape (35%, 60%, 100% of the source) with one summarizer."""
    return ladder_from_spec(f"{spec}:0.35x,{spec}:0.6x:strict,{spec}:1.0x:strict")


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


def pipeline_components(
    *,
    extractor: str | None = None,
    summarizer: str | None = None,
    ladder: str | None = None,
    allow_same_model: bool = False,
    environ: Mapping[str, str] | None = None,
) -> tuple[Extractor, tuple[Rung, ...]]:
    """The extractor and retry ladder from flags, then environment, then defaults.

    ``ladder`` wins over ``summarizer``; a summarizer alone climbs the default ladder shape
    (35%, 60%, 100% of the source). The extractor and summarizers must be different models.
    """
    settings = load_settings(environ)
    extractor_spec = resolve_extractor_spec(extractor, environ)
    if not ladder and not summarizer:
        ladder = settings.ladder
    allow_same_model = allow_same_model or settings.allow_same_model
    summarizer_spec = None if ladder else resolve_summarizer_spec(summarizer, environ)
    summarizer_specs = ladder_summarizer_specs(ladder) if ladder else [str(summarizer_spec)]
    check_distinct_models(extractor_spec, summarizer_specs, allow_same_model=allow_same_model)
    rungs = ladder_from_spec(ladder) if ladder else ladder_for_summarizer(str(summarizer_spec))
    return extractor_from_spec(extractor_spec), rungs
