"""Number words (``twenty-five``, ``a hundred and five``): a small explicit grammar."""

from __future__ import annotations

import re
from typing import Final

from factdiff.extraction.recognizers.numeric_lexicon import _alternation
from factdiff.values.numeric import _MAX_WORD_TOKENS

# --------------------------------------------------------------------------- number words

_SMALL: Final[dict[str, int]] = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS: Final[dict[str, int]] = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        [
            "twenty",
            "thirty",
            "forty",
            "fifty",
            "sixty",
            "seventy",
            "eighty",
            "ninety",
        ]
    )
}
_SCALES: Final[dict[str, int]] = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_NUMBER_WORD_ALT: Final = _alternation([*_SMALL, *_TENS, *_SCALES, "hundred", "dozen"])


def _below_hundred(tokens: list[str], i: int) -> tuple[int, int] | None:
    """Parse 1..99 (``seven``, ``fifteen``, ``forty two``) at ``i``."""
    if i >= len(tokens):
        return None
    word = tokens[i]
    if word in _TENS:
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if nxt in _SMALL and 0 < _SMALL[nxt] < 10:
            return _TENS[word] + _SMALL[nxt], i + 2
        return _TENS[word], i + 1
    if word in _SMALL and word != "zero":
        return _SMALL[word], i + 1
    return None


def _group(tokens: list[str], i: int, first: bool) -> tuple[int, int] | None:
    """The longest group below a scale word at ``i`` (``two hundred and five``, ``a hundred``)."""
    if tokens[i] in ("a", "an"):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not first or nxt not in ("hundred", "dozen", *_SCALES):
            return None
        if nxt != "hundred":
            return 1, i + 1
        value, j = 100, i + 2
    else:
        head = _below_hundred(tokens, i)
        if head is None:
            return None
        value, j = head
        if j >= len(tokens) or tokens[j] != "hundred":
            return value, j
        value, j = value * 100, j + 1
    k = j + 1 if j < len(tokens) and tokens[j] == "and" else j
    tail = _below_hundred(tokens, k)
    return (value + tail[0], tail[1]) if tail else (value, j)


def _longest_number(tokens: list[str], i: int) -> tuple[int, int] | None:
    """The longest number phrase starting at token ``i``, as (end index, value).

    Grammar: groups below 1000 (``[X hundred [and]] [tens [units] | teen | unit]``, where X
    may be 1..99 or ``a``) joined by strictly decreasing scale words (thousand, million,
    billion, trillion), optionally ``and`` after a scale; or ``zero``; or ``[group] dozen``.
    """
    if tokens[i] == "zero":
        return i + 1, 0
    total, last_scale, pos, best = 0, 0, i, None
    while pos < len(tokens) and pos - i < _MAX_WORD_TOKENS:
        group = _group(tokens, pos, pos == i)
        if group is None or (last_scale and group[0] >= last_scale):
            break
        value, pos = group
        best = (pos, total + value)
        word = tokens[pos] if pos < len(tokens) else ""
        if word == "dozen":
            if not last_scale and value < 100:
                best = (pos + 1, value * 12)
            break
        scale = _SCALES.get(word, 0)
        if not scale or value >= 1000 or (last_scale and scale >= last_scale):
            break
        total, last_scale, pos = total + value * scale, scale, pos + 1
        best = (pos, total)
        if pos < len(tokens) and tokens[pos] == "and":
            pos += 1
    return best


_JOINERS: Final = frozenset(("hundred", "dozen", "and", *_SCALES))
"""Words that can continue a number phrase after a unit word."""
_WORD_TOKEN_RE: Final = re.compile(r"[A-Za-z]+")


def parse_number_words(text: str) -> int | None:
    """Parse a whole number phrase (``"one thousand two hundred"``) or return ``None``."""
    tokens = _WORD_TOKEN_RE.findall(text.lower())
    rest = _WORD_TOKEN_RE.sub("", text)
    if not tokens or len(tokens) > _MAX_WORD_TOKENS or rest.strip(" \t-"):
        return None
    found = _longest_number(tokens, 0)
    return found[1] if found and found[0] == len(tokens) else None
