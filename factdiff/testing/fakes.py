"""The fakes of ``factdiff.testing``: one per pipeline stage that has no real offline twin
(``FixedSummarizer`` lives with the summarizers and is re-exported here)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR
from factdiff.schema.model import FactSchema
from factdiff.summarize.fixed import FixedSummarizer

__all__ = ["FixedExtractor", "FixedSummarizer"]


class FixedExtractor:
    """An extractor that answers from a table of prepared records."""

    identity = "fixed"

    def __init__(
        self, records: Mapping[str, FactRecord], fallback: Extractor | None = None
    ) -> None:
        self.records = dict(records)
        self.fallback = fallback or DEFAULT_EXTRACTOR

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The prepared record for ``text``, else the fallback extractor's."""
        if text in self.records:
            return self.records[text]
        return self.fallback.extract(text, schema, reference)
