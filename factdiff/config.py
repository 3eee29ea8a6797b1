"""Component specs as strings: extractors, summarizers and retry ladders.

* extractor: ``rules`` (the deterministic default);
* summarizer: ``extractive`` or ``naive`` (offline);
* ladder: comma-separated rungs ``NAME[:BUDGET][:strict]`` where BUDGET is words (``60`` or
  ``60w``) or a share of the source's words (``0.35`` or ``0.35x``), e.g.
  ``naive:40,extractive:0.35,extractive:0.6:strict``. Each rung is stricter than the last
  anyway (it is told the facts the previous diff lost); ``strict`` raises strictness further.
"""

from __future__ import annotations

from factdiff.errors import UsageError
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor
from factdiff.pipeline import Rung
from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, Summarizer

EXTRACTORS = {"rules": RulesExtractor}
SUMMARIZERS: dict[str, type[ExtractiveSummarizer] | type[NaiveSummarizer]] = {
    "extractive": ExtractiveSummarizer,
    "naive": NaiveSummarizer,
}


def extractor_from_spec(spec: str) -> Extractor:
    """An extractor from its spec string."""
    factory = EXTRACTORS.get(spec.strip())
    if factory is None:
        raise UsageError(f"unknown extractor {spec!r}; known: {', '.join(EXTRACTORS)}")
    return factory()


def summarizer_from_spec(spec: str) -> Summarizer:
    """A summarizer from its spec string."""
    factory = SUMMARIZERS.get(spec.strip())
    if factory is None:
        raise UsageError(f"unknown summarizer {spec!r}; known: {', '.join(SUMMARIZERS)}")
    return factory()


def ladder_from_spec(spec: str) -> tuple[Rung, ...]:
    """A retry ladder from ``NAME[:BUDGET][:strict],...``."""
    rungs: list[Rung] = []
    for index, part in enumerate(p.strip() for p in spec.split(",")):
        if not part:
            raise UsageError(f"empty rung in ladder {spec!r}")
        name, *options = part.split(":")
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
