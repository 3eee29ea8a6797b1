"""Summarizers: source text + schema + fact record + budget -> narrative summary.

``ExtractiveSummarizer`` is the deterministic offline default (facts first, then the gist);
``NaiveSummarizer`` takes the first sentences and shows what the fact diff catches;
``FixedSummarizer`` returns given texts (for tests; also re-exported by ``factdiff.testing``).
"""

from factdiff.summarize.base import (
    EmptySourceError,
    Summarizer,
    Summary,
    SummaryRequest,
    facts_by_criticality,
)
from factdiff.summarize.extractive import ExtractiveSummarizer
from factdiff.summarize.fixed import FixedSummarizer
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
