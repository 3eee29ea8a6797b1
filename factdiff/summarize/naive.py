"""The naive summarizer: the first sentences or turns up to the budget, facts ignored.

It exists to show the failure the fact diff catches: whatever the source states late (the
deadline, the credit memo) is silently gone.
"""

from __future__ import annotations

import re

from factdiff.summarize.base import Summary, SummaryRequest, validate_request
from factdiff.summarize.rendering import join_units, unit_text
from factdiff.summarize.text_units import count_words, split_units

__all__ = ["NaiveSummarizer"]

METHOD_VERSION = "naive/1"

_TOKEN = re.compile(r"\S+")
_ALNUM = re.compile(r"[^\W_]")


class NaiveSummarizer:
    """Leading units while they fit the word budget; a first unit too long is cut."""

    identity = "naive"
    method_version = METHOD_VERSION

    def summarize(self, request: SummaryRequest) -> Summary:
        """The first units of ``request.text`` within ``request.budget_words`` words."""
        validate_request(request)
        text, budget = request.text, request.budget_words
        layout = split_units(text)
        kept: list[str] = []
        words = 0
        for unit in layout.units:
            rendered = unit_text(text, unit)
            n = count_words(rendered)
            if words + n > budget:
                if not kept:
                    kept.append(_first_words(rendered, budget))
                break
            kept.append(rendered)
            words += n
        return Summary(
            text=join_units(layout, kept),
            summarizer=self.identity,
            method_version=METHOD_VERSION,
        )


def _first_words(text: str, budget: int) -> str:
    """``text`` cut after its ``budget``-th word."""
    seen = 0
    for m in _TOKEN.finditer(text):
        if _ALNUM.search(m.group()):
            seen += 1
            if seen == budget:
                return text[: m.end()]
    return text
