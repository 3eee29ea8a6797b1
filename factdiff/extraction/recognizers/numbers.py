"""The numeric token scanner, plain numbers, and the decimal-comma convention."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Final, NamedTuple

from factdiff.extraction.recognizers.accounting import (
    accounting_position,
    cents_lexeme,
    enclosed,
)
from factdiff.extraction.recognizers.base import ExtractionContext, Match, Recognizer, vocabulary
from factdiff.extraction.recognizers.number_words import (
    _JOINERS,
    _NUMBER_WORD_ALT,
    _SCALES,
    _SMALL,
    _TENS,
    _WORD_TOKEN_RE,
    _longest_number,
    parse_number_words,
)
from factdiff.extraction.recognizers.numeric_lexicon import (
    _CODE_ALT,
    _CODES,
    _NUMBER_RIGHT_BAD_RE,
    _POSTCODE_LEFT_RE,
    _SYMBOL_ALT,
    _SYMBOLS,
    _WORD_CONTEXT_RE,
)
from factdiff.values.base import FactType, Value
from factdiff.values.numeric import _CTX, _MAX_LEXEME, NumberValue

# --------------------------------------------------------------------------- scanner

_DIGITS_RE: Final = re.compile(
    r"(?=[-−0-9])(?<![\w#+.,:/@'’\u202f])(?<!\w-)"
    r"(?P<sign>[-−](?=[0-9]))?"
    r"(?P<num>[0-9]{1,3}(?P<g>[ \u202f'’])[0-9]{3}(?![0-9])(?:(?P=g)[0-9]{3}(?![0-9]))*+"
    r"(?:[.,][0-9]++)?(?![.,]?[0-9])"
    r"|[0-9]++(?:[.,][0-9]++)*+)"
    r"(?:[ \t]+(?P<scale>(?i:thousand|million|billion|trillion|lakhs?|crores?))\b"
    r"|[ \t]?(?P<abbr>Mio|Mrd|mio|mrd|bn|mn)(?:\.|\b))?"
)
_PLAIN_DIGITS_RE: Final = re.compile(r"[0-9]++(?:[.,][0-9]++)*+")
_SPACED_RE: Final = re.compile(r"[0-9]{1,3}(?:[ \u202f'’][0-9]{3})+(?:[.,][0-9]+)?")
_INDIAN_RE: Final = re.compile(r"[1-9][0-9]?(?:,[0-9]{2})+,[0-9]{3}(?:\.[0-9]+)?")
_COMMA_FRACTION_RE: Final = re.compile(r"[0-9]+,[0-9]{1,2}")
_CURRENCY_BEFORE_RE: Final = re.compile(r"(?:[$€£¥₹]|(?<![A-Za-z])(?:[A-Z]{3}|Rs\.?))[ \t]?\Z")
_CURRENCY_AFTER_RE: Final = re.compile(
    r"[ \t]?(?:[$€£¥₹%]|[A-Z]{3}(?![A-Za-z])|(?i:euros?|dollars?|pounds?|rupees?)\b)"
)
_ABBR_SCALES: Final = {"mio": 10**6, "mrd": 10**9, "bn": 10**9, "mn": 10**6}
_WORD_SCALES: Final = {**_SCALES, "lakh": 10**5, "lakhs": 10**5, "crore": 10**7, "crores": 10**7}
_WORDS_RE: Final = re.compile(
    r"(?=[abdefhmnostzABDEFHMNOSTZ])(?<![\w-])"
    r"(?:an?[ \t]+(?=(?:hundred|thousand|million|billion|trillion|dozen)\b))?"
    rf"(?:{_NUMBER_WORD_ALT})\b"
    rf"(?:(?:[ \t]+and[ \t]+|[ \t]+|[ \t]*-[ \t]*)(?:{_NUMBER_WORD_ALT})\b)*+",
    re.IGNORECASE,
)
_GROUPED_POINT_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_PLAIN_POINT_RE: Final = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_GROUPED_COMMA_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:\.[0-9]{3})+(?:,[0-9]+)?")
_PLAIN_COMMA_RE: Final = re.compile(r"[0-9]+(?:,[0-9]+)?")


def _lexeme_value(lexeme: str, decimal_comma: bool, local_comma: bool = False) -> Decimal | None:
    """Read a digit lexeme (``1,234.5``) under the text's separator convention.

    Whatever the convention: digits grouped by a space, a narrow no-break space or an
    apostrophe (``1 250,50``, ``1'250.50``) end with their decimal part after the last ``.``
    or ``,``; Indian grouping (``1,25,000``) is read in decimal-point texts; and with
    ``local_comma`` (a currency or scale beside the number) a comma before 1-2 final digits
    is a decimal comma (``250,50 €``, ``3,5 Mio.``).
    """
    if len(lexeme) > _MAX_LEXEME:
        return None
    if _SPACED_RE.fullmatch(lexeme):
        body = "".join(c for c in lexeme if c in "0123456789.,")
        return Decimal(body.replace(",", "."))
    if local_comma and _COMMA_FRACTION_RE.fullmatch(lexeme):
        return Decimal(lexeme.replace(",", "."))
    if decimal_comma:
        if _GROUPED_COMMA_RE.fullmatch(lexeme) or _PLAIN_COMMA_RE.fullmatch(lexeme):
            return Decimal(lexeme.replace(".", "").replace(",", "."))
        if _PLAIN_POINT_RE.fullmatch(lexeme):  # not a valid thousands grouping: a decimal point
            return Decimal(lexeme)
        return None
    if (
        _GROUPED_POINT_RE.fullmatch(lexeme)
        or _PLAIN_POINT_RE.fullmatch(lexeme)
        or _INDIAN_RE.fullmatch(lexeme)
    ):
        return Decimal(lexeme.replace(",", ""))
    return None


class _Num(NamedTuple):
    """A numeric token in a text."""

    start: int
    end: int
    value: Decimal
    words: bool
    weak: bool
    """A number word that needs a numeric context to count (``one``, ``a dozen``)."""
    raw: str
    """The digit lexeme without sign ("" for words)."""
    scaled: bool


def _currency_beside(text: str, start: int, end: int) -> bool:
    return bool(
        _CURRENCY_BEFORE_RE.search(text, max(0, start - 5), start)
        or _CURRENCY_AFTER_RE.match(text, end)
    )


def _scan_digits(text: str, ctx: ExtractionContext) -> Iterator[_Num]:
    """Digit tokens. Digits grouped by plain spaces (``1 250 000``) are one number only with
    a currency beside them; without one they may be several numbers or one, so no part of
    them is read (never a value from half a number)."""
    for m in _DIGITS_RE.finditer(text):
        num, scale = m["num"], m["scale"] or m["abbr"]
        beside = _currency_beside(text, m.start(), m.end())
        if m["g"] == " " and not beside:
            continue
        value = _lexeme_value(num, ctx.decimal_comma, beside or scale is not None)
        if value is None:
            continue
        if scale:
            factor = _WORD_SCALES.get(scale.lower()) or _ABBR_SCALES[scale.lower()]
            value = _CTX.multiply(value, Decimal(factor))
        if m["sign"]:
            value = -value
        yield _Num(m.start(), m.end(), value, False, False, num, bool(scale))


def _scan_words(text: str) -> Iterator[_Num]:
    for m in _WORDS_RE.finditer(text):
        after = text[m.end() : m.end() + 2]
        if after[:1] == "-" and after[1:2].isalpha():
            continue  # glued to a word: "twenty-five-year-old"
        spans = [(t.start(), t.end()) for t in _WORD_TOKEN_RE.finditer(text, m.start(), m.end())]
        tokens = [text[s:e].lower() for s, e in spans]
        i = 0
        while i < len(tokens):
            word = tokens[i]
            if word in _SMALL and (i + 1 == len(tokens) or tokens[i + 1] not in _JOINERS):
                value = _SMALL[word]  # fast path: a lone "one", "twelve"
                yield _Num(spans[i][0], spans[i][1], Decimal(value), True, value <= 10, "", False)
                i += 1
                continue
            found = _longest_number(tokens, i)
            if found is None:
                i += 1
                continue
            j, value = found
            weak = tokens[i] in ("a", "an") or (j - i == 1 and value <= 10)
            yield _Num(spans[i][0], spans[j - 1][1], Decimal(value), True, weak, "", False)
            i = j


_NUMBER_WORDS: Final = frozenset([*_SMALL, *_TENS, *_SCALES, "hundred", "dozen"])
"""A text without any of these words has no number-word token."""
_last_scan: tuple[str, bool, list[_Num]] = ("", False, [])
"""The previous scan: the four recognizers usually run one after another on one text."""


def _scan(text: str, ctx: ExtractionContext) -> list[_Num]:
    """Every numeric token in ``text``, in order, without overlaps."""
    global _last_scan  # noqa: PLW0603 - a one-entry cache of a pure function
    cached_text, cached_comma, cached = _last_scan
    if cached_comma == ctx.decimal_comma and (cached_text is text or cached_text == text):
        return cached
    words = [] if _NUMBER_WORDS.isdisjoint(vocabulary(text)) else list(_scan_words(text))
    tokens = sorted([*_scan_digits(text, ctx), *words], key=lambda n: n.start)
    result: list[_Num] = []
    for tok in tokens:
        if not result or tok.start >= result[-1].end:
            result.append(tok)
    _last_scan = (text, ctx.decimal_comma, result)
    return result


# --------------------------------------------------------------------------- recognizers


def _digit_number_ok(text: str, tok: _Num) -> bool:
    """False for digits that look like a piece of an identifier, phone or postcode."""
    if _NUMBER_RIGHT_BAD_RE.match(text, tok.end):
        return False
    if not tok.scaled and tok.raw.isdigit():
        if len(tok.raw) >= 7 or (len(tok.raw) >= 2 and tok.raw[0] == "0"):
            return False
        if len(tok.raw) == 5 and _POSTCODE_LEFT_RE.search(text, max(0, tok.start - 4), tok.start):
            return False
    return not (tok.start > 0 and text[tok.start - 1] == '"' and text[tok.end : tok.end + 1] == '"')


class NumberRecognizer:
    """Plain numbers: digits that are not part of an identifier, and number words in a
    clear numeric context (``two people``; a bare ``one`` is not a number). A number with
    cents alone in parentheses where an amount stands is an accounting negative
    (``Adjustment: (1,250.00)`` is -1250; see ``accounting``)."""

    fact_type: FactType = FactType.NUMBER

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield every number in ``text``."""
        for tok in _scan(text, context):
            if tok.words:
                if tok.weak and not _WORD_CONTEXT_RE.match(text, tok.end):
                    continue
            elif not _digit_number_ok(text, tok):
                continue
            elif (
                text[tok.start - 1 : tok.start] == "("
                and tok.value > 0
                and enclosed(text, tok.start, tok.end)
                and cents_lexeme(tok.raw)
                and accounting_position(text, tok.start - 1)
            ):
                yield Match(tok.start - 1, tok.end + 1, NumberValue(-tok.value))
                continue
            yield Match(tok.start, tok.end, NumberValue(tok.value))


# --------------------------------------------------------------------------- parsers

_JSON_NUMBER_RE: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,2})?")
_SIGNED_RE: Final = re.compile(
    r"(?P<sign>[-−+])?[ \t]*(?P<num>[0-9]+(?:[.,][0-9]+)*)"
    r"(?:[ \t]+(?P<scale>(?i:thousand|million|billion|trillion)))?"
)


def parse_number(text: str, context: ExtractionContext) -> NumberValue | None:
    """Parse a whole string as a number: ``"3,350"``, ``"-2400"``, ``"2400.0"``, ``"1e3"``,
    ``"1.5 million"``, ``"twenty-five"``. ``None`` if it is anything else."""
    s = text.strip()
    if len(s) > 200:
        return None
    m = _SIGNED_RE.fullmatch(s)
    if m:
        value = _lexeme_value(m["num"], context.decimal_comma)
        if value is not None:
            if m["scale"]:
                value = _CTX.multiply(value, Decimal(_SCALES[m["scale"].lower()]))
            return NumberValue(-value if m["sign"] in ("-", "−") else value)
    if _JSON_NUMBER_RE.fullmatch(s):
        return NumberValue(Decimal(s))
    words = parse_number_words(s)
    return NumberValue(Decimal(words)) if words is not None else None


def _whole(text: str, recognizer: Recognizer, context: ExtractionContext) -> Value | None:
    """The value of the one match of ``recognizer`` that spans all of ``text``."""
    for match in recognizer.find(text, context):
        if match.start == 0 and match.end == len(text):
            return match.value
    return None


# --------------------------------------------------------------------------- detection

_CUR_MARK: Final = rf"(?:%|{_SYMBOL_ALT}|(?:{_CODE_ALT})\b)"
_COMMA_EVIDENCE: Final = (
    r"(?<![\w.,])[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+(?![\w.,])"
    rf"|(?<![\w.,])[0-9]+,[0-9]{{1,2}}(?![\w.,])[ \t]?{_CUR_MARK}"
    rf"|{_CUR_MARK}[ \t]?[0-9]+,[0-9]{{1,2}}(?![\w.,])"
)
_POINT_EVIDENCE: Final = (
    r"(?<![\w.,])[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+(?![\w.,])"
    rf"|(?<![\w.,])[0-9]+\.[0-9]{{1,2}}(?![\w.,])[ \t]?{_CUR_MARK}"
    rf"|{_CUR_MARK}[ \t]?[0-9]+\.[0-9]{{1,2}}(?![\w.,])"
)
_EVIDENCE_FIRST: Final = "".join(sorted({"%", *(word[0] for word in (*_SYMBOLS, *_CODES))}))
_EVIDENCE_START: Final = rf"(?=[0-9{re.escape(_EVIDENCE_FIRST)}])"
"""Where a piece of evidence can start: checked first, so that the alternatives are only
tried there (the same matches, found several times faster)."""
_COMMA_EVIDENCE_RE: Final = re.compile(rf"{_EVIDENCE_START}(?:{_COMMA_EVIDENCE})")
_POINT_EVIDENCE_RE: Final = re.compile(rf"{_EVIDENCE_START}(?:{_POINT_EVIDENCE})")


_DIGIT_COMMA_DIGIT: Final = re.compile(r"[0-9],[0-9]")


def detect_decimal_comma(text: str) -> bool:
    """True when ``text`` writes decimals with a comma, judged from unambiguous evidence:
    ``1.234,56``, or a 1-2 digit comma fraction beside a currency or ``%`` (``3,50 €``,
    ``12,5 %``), outnumbering the same evidence for a decimal point. Otherwise False."""
    if _DIGIT_COMMA_DIGIT.search(text) is None:
        return False  # every piece of evidence has a digit, a comma and a digit
    commas = sum(1 for _ in _COMMA_EVIDENCE_RE.finditer(text))
    if not commas:
        return False
    points = sum(1 for _ in _POINT_EVIDENCE_RE.finditer(text))
    return commas > points
