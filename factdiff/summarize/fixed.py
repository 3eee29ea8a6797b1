"""``FixedSummarizer``: returns given texts, in order; for tests of pipelines and for replaying
known summaries through the verification."""

from __future__ import annotations

from collections.abc import Sequence

from factdiff.errors import UsageError
from factdiff.summarize.base import Summary, SummaryRequest

__all__ = ["FixedSummarizer"]


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
