"""Accounting negatives: an amount alone in parentheses, where a ledger would put one.

``(1,250.00)``, ``($1,250.00)``, ``(USD 2,400)`` and ``$(1,250.00)`` are the negative
amounts ``-1,250.00`` and ``-$1,250.00`` when the parentheses are clearly an accounting
negative:

* they hold the number alone (``(2 items)``, ``(about $50)`` are asides), and the number has
  a currency sign inside or right before the ``(``, or a two-digit decimal part
  (``(1,250.00)``; ``(12)`` is an aside);
* they stand where an amount stands, not after a noun they would restate: at the start of a
  line or of the text, after ``:``, ``=``, ``|`` or a tab (a ledger cell); after a short label
  that starts its line (``Adjustment (1,250.00)``, ``Net income ($1,250.00)``: at most three
  words, capitalised, no article or possessive, so ``The camera ($502.28)`` is prose); or
  after a word that introduces an amount (``is``, ``was``, ``of``, ``at``, ``posted``,
  ``totals``...). ``your current camera ($502.28)`` restates a price: positive.
  ``$(1,250.00)`` is accounting notation wherever it stands.

A parenthesised amount right after another number is a conversion or a restatement
(``€50 ($54.20)``, ``50 EUR ($54.20)``), never a negative.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["accounting_position", "cents_lexeme", "enclosed"]

_LEDGER_MARKS: Final = frozenset({"", ":", "=", "|", "\n", "\t"})
_AMOUNT_WORDS_TEXT: Final = """
    is was are were be been being of at to by from equals equalled equaled totals totaled
    totalled totaling totalling reads read shows showed showing shown posted recorded booked
    amounting amounts came comes stands stood reported reports net minus
    """
_AMOUNT_WORDS: Final = frozenset(_AMOUNT_WORDS_TEXT.split())
"""Words after which a parenthesised amount is the amount itself, not an aside."""
_WORD_BEFORE_RE: Final = re.compile(r"(?<![\w-])([A-Za-z]+)[ \t]*\Z")
_LABEL_RE: Final = re.compile(
    r"(?:\A|\n)[ \t]*(?P<label>[A-Z][A-Za-z]*(?:[ \t]+[A-Za-z]+){0,2})[ \t]*\Z"
)
_NOT_LABEL_WORDS: Final = frozenset(
    ["the", "a", "an", "your", "my", "our", "their", "his", "her", "its", "this", "that", "i"]
)
_CENTS_RE: Final = re.compile(r"[0-9][0-9,.'’ \u202f]*[.,][0-9]{2}")
_BEHIND: Final = 40


def enclosed(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is alone in parentheses: ``(`` right before, ``)`` right
    after."""
    return start > 0 and text[start - 1] == "(" and text[end : end + 1] == ")"


def cents_lexeme(raw: str) -> bool:
    """Whether a digit lexeme has a two-digit decimal part (``1,250.00``, ``12,50``)."""
    return _CENTS_RE.fullmatch(raw) is not None


def accounting_position(text: str, paren: int) -> bool:
    """Whether the ``(`` at ``paren`` stands where a ledger puts an amount (see the module
    docstring)."""
    low = max(0, paren - _BEHIND)
    before = text[low:paren].rstrip(" ")
    if not before or before[-1] in _LEDGER_MARKS:
        return True
    word = _WORD_BEFORE_RE.search(before)
    if word is not None and word.group(1).lower() in _AMOUNT_WORDS:
        return True
    label = _LABEL_RE.search(text, low, paren)
    return label is not None and _NOT_LABEL_WORDS.isdisjoint(label["label"].lower().split())
