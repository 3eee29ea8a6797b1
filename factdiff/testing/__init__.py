"""Fakes for testing code built on factdiff: one per pipeline stage.

* ``FixedSummarizer`` returns the texts it was given, one per call (then repeats the last);
* ``FixedExtractor`` returns a prepared record for each text it knows, else delegates;
* ``ScriptedLLMServer`` is a real HTTP server on 127.0.0.1 speaking the OpenAI chat
  completions and Anthropic messages wire formats, answering from a script of ``Answer``s
  (valid output, latency, 429, 5xx, 529, dropped connections, trickles, truncation, refusal...)
  so LLM pipelines can be tested through the real SDK clients, offline.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor
from factdiff.record import FactRecord
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import FixedSummarizer
from factdiff.testing.llm_server import Answer, RecordedRequest, ScriptedLLMServer


class FixedExtractor:
    """An extractor that answers from a table of prepared records."""

    identity = "fixed"

    def __init__(
        self, records: Mapping[str, FactRecord], fallback: Extractor | None = None
    ) -> None:
        self.records = dict(records)
        self.fallback = fallback or RulesExtractor()

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The prepared record for ``text``, else the fallback extractor's."""
        if text in self.records:
            return self.records[text]
        return self.fallback.extract(text, schema, reference)


__all__ = [
    "Answer",
    "FixedExtractor",
    "FixedSummarizer",
    "RecordedRequest",
    "ScriptedLLMServer",
]
