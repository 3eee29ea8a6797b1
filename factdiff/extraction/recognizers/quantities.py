"""Percentages and quantities in text: a numeric token and its unit."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from factdiff.extraction.recognizers.base import ExtractionContext, Match, lowered
from factdiff.extraction.recognizers.money import MoneyRecognizer
from factdiff.extraction.recognizers.numbers import _scan, _whole
from factdiff.extraction.recognizers.numeric_lexicon import (
    _PERCENT_MARKS,
    _PERCENT_RE,
    _UNIT_MARKS,
    _UNIT_RE,
)
from factdiff.extraction.recognizers.percent_subjects import percent_subject
from factdiff.values.base import FactType
from factdiff.values.numeric import PercentValue, QuantityValue
from factdiff.values.units import _UNIT_ABBREVIATIONS, _UNIT_BY_WORD


class PercentRecognizer:
    """Percentages: ``15%``, ``12,5 %``, ``15 percent``, ``fifteen per cent``, each with
    what it applies to when the text says it (``20% off the annual plan``; see
    ``percent_subjects``)."""

    fact_type: FactType = FactType.PERCENT

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every percentage in ``text``."""
        for tok in _scan(text, context):
            if text[tok.end : tok.end + 1] not in _PERCENT_MARKS:
                continue
            suffix = _PERCENT_RE.match(text, tok.end)
            if suffix:
                subject = percent_subject(lowered(text), tok.start, suffix.end())
                yield Match(tok.start, suffix.end(), PercentValue(tok.value, subject))


_PLURAL_ONLY: Final = frozenset(
    ("guest", "passenger", "traveler", "traveller", "attendee", "adult", "child", "kid", "infant")
)
"""Singular forms that only count "one": ``5 guest houses`` is not five guests."""


def _unit_of(match: re.Match[str]) -> str:
    if match["abbr"]:
        return _UNIT_ABBREVIATIONS[" ".join(match["abbr"].split())]
    if match["lb"]:
        return "lb"
    return _UNIT_BY_WORD[" ".join(match["word"].lower().split())]


_PARTY_BEFORE = re.compile(
    r"(?i)(?<![\w-])(?:table|party|booking|reservation)[ \t]+(?:for|of)[ \t]+\Z"
)
"""A party's size without its noun: ``a table for four``, ``a party of 6`` count people."""


class QuantityRecognizer:
    """Quantities: a number and a unit or count noun (``2 kg``, ``two people``, ``4-star``,
    ``5 pounds of coffee``), and a party's size (``a table for four``: 4 people). Durations
    (hours, days...) are not quantities, and neither is an amount with a currency before it
    (``a $81 ticket`` is money)."""

    fact_type: FactType = FactType.QUANTITY

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every quantity in ``text``."""
        money = iter(MoneyRecognizer().find(text, context))
        amount = next(money, None)
        for tok in _scan(text, context):
            while amount is not None and amount.end <= tok.start:
                amount = next(money, None)
            if amount is not None and amount.start < tok.start < amount.end:
                continue  # "$81 ticket": the currency before the number makes it money
            nxt = text[tok.end : tok.end + 1]
            suffix = _UNIT_RE.match(text, tok.end) if nxt in _UNIT_MARKS or nxt.isalpha() else None
            if suffix is None and _party(text, tok.start, tok.end):
                yield Match(tok.start, tok.end, QuantityValue(tok.value, "person"))
                continue
            if suffix and not (tok.value != 1 and (suffix["word"] or "").lower() in _PLURAL_ONLY):
                yield Match(tok.start, suffix.end(), QuantityValue(tok.value, _unit_of(suffix)))


_WORD_OR_DIGITS_AFTER = re.compile(r"[ \t]*(?:[a-z]|[-/:.,]\d)", re.IGNORECASE)
"""A word or more digits right after a number: it may count it or carry on (``2.5``)."""
_FOLLOWING_WORD = re.compile(r"[ \t]+(?:at|on|in|for|this|tonight|tomorrow|and|with|by)\b")
"""Words after a party's size that start the next phrase (``a table for four at 7``)."""


def _party(text: str, start: int, end: int) -> bool:
    """Whether the whole number at ``[start, end)`` is a party's size (:data:`_PARTY_BEFORE`),
    with no noun of its own after it (``a table for 2 people`` counts people already;
    ``a table for 2 at 7 pm``, ``table for four.`` count the party)."""
    if _PARTY_BEFORE.search(text, max(0, start - 24), start) is None:
        return False
    after = _WORD_OR_DIGITS_AFTER.match(text, end)
    return after is None or _FOLLOWING_WORD.match(text, end) is not None


def parse_percent(text: str, context: ExtractionContext) -> PercentValue | None:
    """Parse a whole string as a percentage (``"15%"``, ``"15 per cent"``)."""
    s = text.strip()
    value = _whole(s, PercentRecognizer(), context) if len(s) <= 200 else None
    return value if isinstance(value, PercentValue) else None


def parse_quantity(text: str, context: ExtractionContext) -> QuantityValue | None:
    """Parse a whole string as a quantity (``"2 kg"``, ``"two people"``)."""
    s = text.strip()
    value = _whole(s, QuantityRecognizer(), context) if len(s) <= 200 else None
    return value if isinstance(value, QuantityValue) else None
