"""Summarizers: source text + schema + fact record + budget -> narrative summary.

``ExtractiveSummarizer`` is the deterministic offline default (facts first, then the gist);
``NaiveSummarizer`` takes the first sentences and shows what the fact diff catches;
``FixedSummarizer`` (a test fake, at home in ``factdiff.testing``) returns given texts.
"""

from typing import Any

from factdiff.summarize.base import (
    EmptySourceError,
    Summarizer,
    Summary,
    SummaryRequest,
    facts_by_criticality,
)
from factdiff.summarize.extractive import ExtractiveSummarizer
from factdiff.summarize.naive import NaiveSummarizer
from factdiff.summarize.text_units import count_words

__all__ = [
    "EmptySourceError",
    "ExtractiveSummarizer",
    "FixedSummarizer",
    "NaiveSummarizer",
    "Summarizer",
    "Summary",
    "SummaryRequest",
    "count_words",
    "facts_by_criticality",
]


def __getattr__(name: str) -> Any:
    """``FixedSummarizer`` from its home, ``factdiff.testing``, on first use."""
    if name == "FixedSummarizer":
        from factdiff.testing.fakes import FixedSummarizer

        return FixedSummarizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
