"""The fakes of ``factdiff.testing``: one per pipeline stage that has no real offline twin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from factdiff.errors import UsageError
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import Summary, SummaryRequest

__all__ = ["FixedExtractor", "FixedSummarizer"]


class FixedSummarizer:
    """A fake that returns given texts, in order, repeating the last one.

    For tests of pipelines: ``FixedSummarizer(["bad summary", "good summary"])`` fails the
    first attempt and passes the retry.
    """

    def __init__(self, texts: str | Sequence[str], identity: str = "fixed") -> None:
        self._texts = (texts,) if isinstance(texts, str) else tuple(texts)
        if not self._texts:
            raise UsageError("FixedSummarizer needs at least one text")
        self._identity = identity
        self.calls: list[SummaryRequest] = []

    @property
    def identity(self) -> str:
        """The identity given at construction (``fixed`` by default)."""
        return self._identity

    def summarize(self, request: SummaryRequest) -> Summary:
        """Return the next text; the request is recorded in ``calls``."""
        text = self._texts[min(len(self.calls), len(self._texts) - 1)]
        self.calls.append(request)
        return Summary(text=text, summarizer=self._identity, method_version="fixed/1")


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
