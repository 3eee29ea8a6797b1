"""Words and context patterns of the numeric recognizers: currencies, units, cues."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

from factdiff.extraction.wordtrie import trie_alternation
from factdiff.values.units import _UNIT_ABBREVIATIONS, _UNIT_BY_WORD

_MODIFIERS: Final = (
    "more",
    "additional",
    "extra",
    "adult",
    "child",
    "senior",
    "student",
    "single",
    "double",
    "twin",
    "king",
    "queen",
    "standard",
    "deluxe",
    "large",
    "small",
    "medium",
    "regular",
    "economy",
    "business",
    "premium",
    "separate",
    "free",
)
"""Adjectives allowed between a number and its count noun (``2 adult tickets``)."""

_DURATION_WORDS: Final = (
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
)
"""Not quantities (DURATION is another module), but a clear numeric context for words."""


def _alternation(words: list[str]) -> str:
    """A trie-shaped regex alternation (longest match first), spaces matching runs of blanks."""
    return trie_alternation(words, _blank_runs)


def _blank_runs(char: str) -> str:
    return r"[ \t]+" if char == " " else re.escape(char)


# --------------------------------------------------------------------------- currencies

_CODES: Final = (
    "USD",
    "EUR",
    "GBP",
    "JPY",
    "CNY",
    "CAD",
    "AUD",
    "NZD",
    "CHF",
    "SEK",
    "NOK",
    "DKK",
    "PLN",
    "CZK",
    "HUF",
    "INR",
    "BRL",
    "MXN",
    "ZAR",
    "SGD",
    "HKD",
    "KRW",
    "RUB",
    "ILS",
    "AED",
    "SAR",
    "THB",
    "IDR",
    "MYR",
)

_SYMBOLS: Final[dict[str, str | None]] = {
    "US$": "USD",
    "CA$": "CAD",
    "C$": "CAD",
    "AU$": "AUD",
    "A$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
    "$": None,
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "Rs.": "INR",
    "Rs": "INR",
}
"""Currency symbols; ``None`` is the context's default currency."""

_CURRENCY_WORDS: Final[dict[str, tuple[str | None, Decimal]]] = {
    "us dollar": ("USD", Decimal(1)),
    "us dollars": ("USD", Decimal(1)),
    "dollar": (None, Decimal(1)),
    "dollars": (None, Decimal(1)),
    "buck": (None, Decimal(1)),
    "bucks": (None, Decimal(1)),
    "cent": (None, Decimal("0.01")),
    "cents": (None, Decimal("0.01")),
    "euro": ("EUR", Decimal(1)),
    "euros": ("EUR", Decimal(1)),
    "pound": ("GBP", Decimal(1)),
    "pounds": ("GBP", Decimal(1)),
    "quid": ("GBP", Decimal(1)),
    "pence": ("GBP", Decimal("0.01")),
    "yen": ("JPY", Decimal(1)),
    "rupee": ("INR", Decimal(1)),
    "rupees": ("INR", Decimal(1)),
}
"""Currency words -> (currency or ``None`` for the default, factor)."""

_CODE_ALT: Final = _alternation(list(_CODES))
_SYMBOL_ALT: Final = _alternation(list(_SYMBOLS))
_CURRENCY_WORD_ALT: Final = _alternation(list(_CURRENCY_WORDS))


# --------------------------------------------------------------------------- context regexes

_NUMBER_RIGHT_BAD_RE: Final = re.compile(r"[\w#]|-\w|[:/.,][0-9]")
_POSTCODE_LEFT_RE: Final = re.compile(r"(?<![\w])[A-Z]{2}[ \t]\Z")

_COUNT_NOUN_ALT: Final = _alternation(list(_UNIT_BY_WORD))
_MODIFIER_ALT: Final = _alternation(list(_MODIFIERS))
_WORD_CONTEXT_RE: Final = re.compile(
    rf"[ \t]*-?[ \t]*(?:(?:{_MODIFIER_ALT})[ \t]+)?"
    rf"(?:{_COUNT_NOUN_ALT}|{_alternation(list(_DURATION_WORDS))}|{_CURRENCY_WORD_ALT}"
    rf"|per[ \t]?cent|pounds|of[ \t]+(?:us|them|you|those|these))\b"
    rf"|[ \t]?(?:%|(?:{_CODE_ALT})\b|{_SYMBOL_ALT})",
    re.IGNORECASE,
)
"""After a weak number word: what makes it clearly a number (``two people``, ``one %``)."""

_PREFIX_RE: Final = re.compile(
    rf"(?P<neg>(?<![\w*-])[-−])?"
    rf"(?:(?<![^\W\d_])(?P<sym>{_SYMBOL_ALT})|(?<!\w)(?P<code>{_CODE_ALT}))[ \t]?\Z"
)
_LETTER_SCALE_RE: Final = re.compile(r"(?P<scale>mn|bn|MM|Mn|Bn|BN|[kKmMbB])(?!\w)")
_SUFFIX_RE: Final = re.compile(
    rf"[ \t]?(?P<sym>{_SYMBOL_ALT})(?![ \t]?[-−(]?[0-9])"
    rf"|[ \t]?(?P<code>{_CODE_ALT})(?!\w)"
    rf"|[ \t]+(?P<word>(?i:{_CURRENCY_WORD_ALT}))(?![\w])(?![ \t]+of\b)"
)
_LETTER_SCALES: Final[dict[str, Decimal]] = {
    "k": Decimal(10**3),
    "m": Decimal(10**6),
    "mn": Decimal(10**6),
    "mm": Decimal(10**6),
    "b": Decimal(10**9),
    "bn": Decimal(10**9),
}
_MONEY_KEYS: Final = (
    "price|amount|total|subtotal|balance|cost|fee|fees|refund|charge|paid|payment|tax|tip"
    "|fare|rent|salary|budget"
)
_JSON_KEY_RE: Final = re.compile(
    rf'(?:"(?:[A-Za-z0-9]+_)*(?:{_MONEY_KEYS})"[ \t]*:'
    rf"|(?<![\w])(?:[A-Za-z0-9]+_)*(?:{_MONEY_KEYS})[ \t]*=)[ \t]*\Z",
    re.IGNORECASE,
)
_JSON_AFTER_RE: Final = re.compile(r"[ \t]*(?:[,}\]);\r\n]|\Z)")
_AFTER_NUMBER_RE: Final = re.compile(r"[0-9][ \t]?\Z")
_PRICE_CUE_RE: Final = re.compile(
    r"(?<![\w-])(?:(?P<strong>price|fee|cost|fare|charge|rent)s?|costing"
    r"|(?P<weak>total|amount|subtotal|balance|pay|paying|paid))"
    r"(?:[ \t]+(?:for|of|on)[ \t]+(?:(?:the|a|an|your|each|one|per)[ \t]+)?[a-z]+"
    r"(?:[ \t]+#?[a-z0-9-]*[0-9][a-z0-9-]*)?[ \t]*"
    r"(?::|=|is|was|will[ \t]+be|would[ \t]+be|comes[ \t]+to)"
    r"|[ \t]*(?::|=|is|was|will[ \t]+be|would[ \t]+be|comes[ \t]+to|of))?"
    r"(?:[ \t]+(?:only|just))?[ \t]*\Z",
    re.IGNORECASE,
)
"""A price word directly before a bare number, with at most a copula, ``of`` or ``:``
between (``The fee is``, ``costs``, ``a total of``), or ``for``/``of``/``on`` + one noun (and
its number) + a copula (``the cost for the ticket is``, ``the balance on account 88-1102
is``; not ``the fee of the first 3``). After
``total``/``amount``/``balance``/``pay`` the number needs a decimal point (``total of 5``
counts, ``paid 3 times`` too)."""
_PREFIX_MARKS: Final = frozenset("$€£¥₹-−.s")
_SCALE_MARKS: Final = frozenset("kKmMbB")
_SUFFIX_FIRST: Final = frozenset(
    c for w in (*_SYMBOLS, *_CODES, *_CURRENCY_WORDS) for c in (w[0], w[0].upper())
)
_PERCENT_MARKS: Final = frozenset("% \t")
_UNIT_MARKS: Final = frozenset(" \t-")
_PERCENT_RE: Final = re.compile(r"[ \t]?%|[ \t]+(?i:per[ \t]?cent|pct)\b")
_ABBREVIATION_ALT: Final = _alternation(list(_UNIT_ABBREVIATIONS))
_UNIT_RE: Final = re.compile(
    rf"(?:[ \t]?-?[ \t]?)(?P<abbr>{_ABBREVIATION_ALT})(?![\w])"
    rf"|(?:[ \t]+|[ \t]*-[ \t]*)(?:(?P<mod>(?i:{_MODIFIER_ALT}))[ \t]+)?"
    rf"(?:(?P<word>(?i:{_COUNT_NOUN_ALT}))\b|(?P<lb>(?i:pounds?))(?=[ \t]+of\b))"
)
