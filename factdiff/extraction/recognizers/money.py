"""Money in text: currency symbols, codes and words around a numeric token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Final

from factdiff.extraction.recognizers.accounting import (
    accounting_position,
    cents_lexeme,
    enclosed,
)
from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.number_words import parse_number_words
from factdiff.extraction.recognizers.numbers import (
    _PLAIN_POINT_RE,
    _digit_number_ok,
    _Num,
    _scan,
    _whole,
    parse_number,
)
from factdiff.extraction.recognizers.numeric_lexicon import (
    _AFTER_NUMBER_RE,
    _CODE_ALT,
    _CURRENCY_WORDS,
    _JSON_AFTER_RE,
    _JSON_KEY_RE,
    _LETTER_SCALE_RE,
    _LETTER_SCALES,
    _PREFIX_MARKS,
    _PREFIX_RE,
    _PRICE_CUE_RE,
    _SCALE_MARKS,
    _SUFFIX_FIRST,
    _SUFFIX_RE,
    _SYMBOLS,
    _UNIT_RE,
)
from factdiff.values.base import FactType
from factdiff.values.numeric import _CTX, MoneyValue


def _default_currency(ctx: ExtractionContext) -> str:
    """The context's currency for ``$`` and ``dollars``; "" (no money) if not an ISO code."""
    code = ctx.default_currency.strip().upper()
    return code if re.fullmatch(r"[A-Z]{3}", code) else ""


def _symbol_currency(symbol: str, ctx: ExtractionContext) -> str:
    return _SYMBOLS.get(symbol) or _default_currency(ctx)


def _word_currency(word: str, ctx: ExtractionContext) -> tuple[str, Decimal]:
    currency, factor = _CURRENCY_WORDS[" ".join(word.lower().split())]
    return currency or _default_currency(ctx), factor


def _before(text: str, pos: int, limit: int = 2) -> str:
    """The character before ``pos``, skipping up to ``limit`` blanks ("" at the start)."""
    stop = max(0, pos - limit - 1)
    while pos > stop and text[pos - 1] in " \t":
        pos -= 1
    return text[pos - 1] if pos > 0 else ""


def _prefix(text: str, tok: _Num, floor: int) -> re.Match[str] | None:
    """The currency symbol or code right before ``tok``; a code right after another number
    is that number's suffix (``2050 USD 1 bed``), not a prefix of ``tok``."""
    mark = _before(text, tok.start, 1)
    if not (mark in _PREFIX_MARKS or "A" <= mark <= "Z"):
        return None
    prefix = _PREFIX_RE.search(text, max(floor, tok.start - 8), tok.start)
    if prefix and prefix["code"] and _AFTER_NUMBER_RE.search(text, 0, prefix.start()):
        return None
    return prefix


def _money_at(text: str, tok: _Num, ctx: ExtractionContext, floor: int) -> Match | None:
    """The money amount built around ``tok``, if a currency marks it."""
    start, end, amount, currency = tok.start, tok.end, tok.value, ""
    negative = amount < 0
    prefix = _prefix(text, tok, floor)
    if prefix:
        start = prefix.start()
        negative = negative or bool(prefix["neg"])
        currency = _symbol_currency(prefix["sym"], ctx) if prefix["sym"] else prefix["code"]
    if not tok.words and not tok.scaled and text[end : end + 1] in _SCALE_MARKS:
        scale = _LETTER_SCALE_RE.match(text, end)
        if scale:
            amount = _CTX.multiply(amount, _LETTER_SCALES[scale["scale"].lower()])
            end = scale.end()
    nxt = text[end : end + 2].lstrip(" \t")[:1]
    suffix = _SUFFIX_RE.match(text, end) if nxt and nxt in _SUFFIX_FIRST else None
    if suffix:
        if suffix["word"]:
            found, factor = _word_currency(suffix["word"], ctx)
        else:
            found, factor = suffix["code"] or _symbol_currency(suffix["sym"], ctx), Decimal(1)
        if not currency:
            currency, amount, end = found, _CTX.multiply(amount, factor), suffix.end()
        elif found == currency and factor == 1:
            end = suffix.end()
    if not currency:
        if text[tok.start - 1 : tok.start] == "(":  # only then can "$(1,250.00)" be one
            outer = _outer_currency(text, tok, ctx, floor)
            if outer is not None:
                return outer
        return _json_money(text, tok, ctx) or _cued_money(text, tok, ctx)
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return None
    if suffix is not None and suffix["word"]:
        end, amount = _and_cents(text, end, amount)
    start, end, negative = _accounting(text, start, end, floor, negative)
    amount = -abs(amount) if negative else abs(amount)
    return Match(start, end, MoneyValue(amount, currency))


_AND_CENTS_RE = re.compile(
    r"[ \t]+and[ \t]+(?P<n>\d{1,2}|[a-z]+(?:[ -][a-z]+)?)[ \t]+cents?\b", re.IGNORECASE
)


def _and_cents(text: str, end: int, amount: Decimal) -> tuple[int, Decimal]:
    """``... dollars and fifty cents``: the cents belong to the amount (2380.50), not to a
    second amount of 0.50."""
    m = _AND_CENTS_RE.match(text, end)
    if m is None or amount != amount.to_integral_value():
        return end, amount
    raw = m["n"]
    cents = int(raw) if raw.isdigit() else parse_number_words(raw.replace("-", " "))
    if cents is None or not 0 < cents < 100:
        return end, amount
    return m.end(), amount + Decimal(cents) / 100


def _accounting(
    text: str, start: int, end: int, floor: int, negative: bool
) -> tuple[int, int, bool]:
    """Widen ``($2,400)`` to a negative amount when the parentheses hold just the amount
    and stand where an amount stands (``factdiff.extraction.recognizers.accounting``)."""
    if start - 1 < max(floor, 0) or not enclosed(text, start, end):
        return start, end, negative
    if not accounting_position(text, start - 1):
        return start, end, negative
    return start - 1, end + 1, True


def _outer_currency(text: str, tok: _Num, ctx: ExtractionContext, floor: int) -> Match | None:
    """``$(1,250.00)``: a currency right before the parentheses of an accounting negative."""
    if tok.words or tok.value < 0 or not enclosed(text, tok.start, tok.end):
        return None
    paren = tok.start - 1
    if _before(text, paren, 0) not in _PREFIX_MARKS and not _before(text, paren, 1).isupper():
        return None
    prefix = _PREFIX_RE.search(text, max(floor, paren - 8), paren)
    if prefix is None or prefix["neg"]:
        return None
    currency = _symbol_currency(prefix["sym"], ctx) if prefix["sym"] else prefix["code"]
    if not currency:
        return None
    return Match(prefix.start(), tok.end + 1, MoneyValue(-abs(tok.value), currency))


def _json_money(text: str, tok: _Num, ctx: ExtractionContext) -> Match | None:
    """A bare number under a money key in JSON or keyword arguments (``"price": 54.04``)."""
    if tok.words or tok.scaled or _before(text, tok.start) not in (":", "="):
        return None
    if not _PLAIN_POINT_RE.fullmatch(tok.raw):
        return None
    if not _JSON_KEY_RE.search(text, max(0, tok.start - 64), tok.start):
        return None
    if not _JSON_AFTER_RE.match(text, tok.end):
        return None
    amount, currency = Decimal(tok.raw), _default_currency(ctx)
    if not currency:
        return None
    value = MoneyValue(-amount if tok.value < 0 else amount, currency)
    return Match(tok.start, tok.end, value)


def _cued_money(text: str, tok: _Num, ctx: ExtractionContext) -> Match | None:
    """A bare amount right after a price cue (``The fee is 150.19``, ``costs 16.5``,
    ``a total of 600.79``, ``The balance is -1,250.00``), in the default currency; see
    :data:`_PRICE_CUE_RE`. With cents, alone in parentheses where an amount stands, it is an
    accounting negative (``The balance is (1,250.00)``; see ``accounting``)."""
    if tok.words or tok.scaled or not _digit_number_ok(text, tok):
        return None
    start, end, amount = tok.start, tok.end, tok.value
    if (
        amount > 0
        and text[start - 1 : start] == "("
        and enclosed(text, start, end)
        and cents_lexeme(tok.raw)
        and accounting_position(text, start - 1)
    ):
        start, end, amount = start - 1, end + 1, -amount  # "The balance is (1,250.00)"
    cue = _PRICE_CUE_RE.search(text, max(0, start - 64), start)
    if cue is None or (cue["weak"] and "." not in tok.raw) or _UNIT_RE.match(text, tok.end):
        return None
    currency = _default_currency(ctx)
    return Match(start, end, MoneyValue(amount, currency)) if currency else None


class MoneyRecognizer:
    """Money: ``$14,250``, ``14,250 USD``, ``USD 14250.00``, ``$14.25k``, ``10.50 pounds``,
    ``fourteen thousand dollars``, ``-$2,400``, accounting negatives ``($2,400)`` and
    ``$(2,400.00)`` (see ``accounting``), bare numbers
    under money keys in JSON or keyword arguments (``"price": 54.04``), and bare numbers
    right after a price cue in prose (``The fee is 150.19``); the last two are in the
    context's default currency.

    A currency code between two numbers belongs to the first (``2050 USD 1 bed``), and a
    list dash before an amount (``- $50.88``) is not a minus sign.
    """

    fact_type: FactType = FactType.MONEY

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every amount of money in ``text``."""
        if _cache and _cache[0][0] is text and _cache[0][1] == context:
            yield from _cache[0][2]
            return
        found = []
        floor = 0
        for tok in _scan(text, context):
            if tok.start < floor:
                continue
            match = _money_at(text, tok, context, floor)
            if match is not None:
                floor = match.end
                found.append(match)
        _cache[:] = [(text, context, found)]
        yield from found


_cache: list[tuple[str, ExtractionContext, list[Match]]] = []
"""The previous text's amounts (the quantity recognizer needs them too)."""


_CODE_AROUND_RE: Final = re.compile(
    rf"(?P<pre>{_CODE_ALT})[ \t]*(?P<a>.+)|(?P<b>.+?)[ \t]*(?P<post>{_CODE_ALT})"
)


def parse_money(text: str, context: ExtractionContext) -> MoneyValue | None:
    """Parse a whole string as money (``"$14,250"``, ``"USD14250"``, ``"($2,400)"``).
    A bare number (``"54.04"``) is an amount in the context's default currency."""
    s = text.strip()
    if len(s) > 200 or not s:
        return None
    negative = False
    if s[0] == "(" and s[-1] == ")":
        s, negative = s[1:-1].strip(), True
    value = _whole(s, MoneyRecognizer(), context)
    if not isinstance(value, MoneyValue):
        value = _money_from_parts(s, context)
    if value is None or not negative:
        return value
    return MoneyValue(-abs(value.amount), value.currency)


def _money_from_parts(s: str, context: ExtractionContext) -> MoneyValue | None:
    m = _CODE_AROUND_RE.fullmatch(s)
    currency = (m["pre"] or m["post"]) if m else _default_currency(context)
    if not currency:
        return None
    number = parse_number((m["a"] or m["b"]) if m else s, context)
    return MoneyValue(number.amount, currency) if number else None
