"""Organisations in text: names with a legal suffix or an organisation cue."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from factdiff.extraction.recognizers.base import ExtractionContext, Match, leftmost_longest
from factdiff.extraction.recognizers.name_scan import GAP as _GAP
from factdiff.extraction.recognizers.name_scan import WORD as _WORD
from factdiff.extraction.recognizers.name_scan import capitalised as _capitalised
from factdiff.extraction.wordtrie import word_start_alternation
from factdiff.values.base import FactType
from factdiff.values.names import (
    _ORG_TOKENS,
    _STOP,
    OrganizationValue,
    _fold,
    clean_organization_name,
)


def parse_organization(text: str, context: ExtractionContext) -> OrganizationValue | None:
    """Parse one whole organisation name (any non-empty name after cleaning)."""
    name = clean_organization_name(text)
    return OrganizationValue(name) if name is not None else None


_SHORT_SUFFIXES = ("AS", "ASA", "AB", "ApS", "Oy", "Oyj", "SA", "SAS", "SpA", "S.p.A", "SRL", "KG")
"""Nordic, French, Italian and German legal forms (``Nordlys AS``): after a name written in
capitals they are ordinary words (``AS SOON AS``), so only a capitalised name takes them."""
_SUFFIX_WORDS = (
    *("Corp", "Corporation", "Inc", "Incorporated", "LLC", "L.L.C", "LLP", "Ltd", "Limited"),
    *("Co", "Company", "GmbH", "plc", "PLC", "S.A", "AG", "N.V", "B.V", "Pty", "Group"),
    *("Holdings", "Technologies", "Industries", "Enterprises", "Associates", "Solutions"),
    *("Partners", "Labs", "Systems", "Ventures", "Capital"),
    *_SHORT_SUFFIXES,
)
_SUFFIX_WORD = re.compile(word_start_alternation(_SUFFIX_WORDS) + r"\b\.?")
_ORG_WORD = re.compile(r"(?:[^\W\d_]|\d)[\w'’&.-]*\Z")
_ORG_CUE = re.compile(
    r"\b(?:(?:work(?:s|ed|ing)?|employed)\s+(?:at|for|by)|(?:company|firm|vendor|supplier|"
    r"employer|manufacturer|carrier|provider|distributor|brand|startup|agency|insurer|"
    r"lender|contractor)(?:\s+(?:called|named))?)(?=[ \t])"
)
_ID_PAREN = re.compile(r"(?<![\w#-])([\w#-]{1,60})[ \t]?\(([^()\n]{2,60})\)")


_OF_HEADS = frozenset(
    (
        *("bank", "institute", "society", "association", "council", "chamber", "federation"),
        *("union", "league", "academy", "foundation", "university", "college", "ministry"),
        *("department", "board", "trust"),
    )
)
"""Words that an organisation's name joins to a place or a field with ``of`` (``Bank of
Montreal Ltd``, ``Institute of Physics Ltd``)."""


def _walk_back(text: str, end: int, max_tokens: int = 4) -> int | None:
    """Start of the capitalised words (``&`` joined, or ``of`` after an organisation head)
    ending at ``end``; a comma ends them (``Head of Finance, Alpenblick GmbH`` is
    ``Alpenblick GmbH``)."""
    words = text[max(0, end - 120) : end].split(" ")
    taken: list[str] = []
    start = end
    for word in reversed(words):
        if not word or word.endswith(","):
            break
        bare = word
        opened = bare.lstrip("([{\"'“‘")
        if opened != bare:
            if (
                opened
                and _ORG_WORD.match(opened)
                and _capitalised(opened)
                and (_fold(opened) not in _STOP)
            ):
                taken.append(opened)
                start -= len(word) + 1
                start += len(bare) - len(opened)
            break
        if bare in {"&", "of"} and taken:
            taken.append(bare)
            start -= len(word) + 1
            continue
        if not _ORG_WORD.match(bare) or not (_capitalised(bare) or bare.isupper()):
            break
        if taken and taken[-1] == "of":
            if _fold(bare) not in _OF_HEADS:
                break  # "Lena Fischer of Alpenblick GmbH": a person of a company
        elif (
            _fold(bare) in _STOP
            or (taken and _fold(bare) in _ORG_TOKENS)
            or len([t for t in taken if t not in {"&", "of"}]) >= (max_tokens)
        ):
            break
        taken.append(bare)
        start -= len(word) + 1
    while taken and taken[-1] in {"&", "of"}:
        start += len(taken.pop()) + 1
    return start + 1 if taken else None


class OrganizationRecognizer:
    """Finds organisations with precision first.

    * 1-4 capitalised words ending in a legal suffix or organisation head (``Acme Corp``,
      ``Globex Holdings``, ``Initech, Inc.``);
    * capitalised words after a cue: "works at/for", "employed by", "the company/vendor/
      supplier/carrier/brand ... (called)";
    * a one-word parenthesised name right after an ID-like token (``cust_482 (Acme)``).
    """

    fact_type = FactType.ORGANIZATION

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping organisation matches in text order."""
        return leftmost_longest(self._candidates(text))

    def _candidates(self, text: str) -> Iterator[Match]:
        for m in _SUFFIX_WORD.finditer(text):
            yield from self._suffixed(text, m)
        for m in _ORG_CUE.finditer(text):
            span = _scan_org(text, m.end())
            if span is not None:
                yield span
        for m in _ID_PAREN.finditer(text) if "(" in text else ():
            inner = m.group(2).strip()
            if not any(c.isdigit() for c in m.group(1)):
                continue
            if _ORG_WORD.match(inner) and _capitalised(inner) and _fold(inner) not in _STOP:
                start = m.start(2) + m.group(2).index(inner)
                yield Match(start, start + len(inner), OrganizationValue(inner))

    def _suffixed(self, text: str, m: re.Match[str]) -> Iterator[Match]:
        before = m.start()
        gap = text[max(0, before - 2) : before]
        if gap.endswith(", "):
            before -= 2
        elif gap.endswith(" "):
            before -= 1
        else:
            return
        start = _walk_back(text, before)
        if start is None or start >= before:
            return
        if m.group().rstrip(".") in _SHORT_SUFFIXES and text[start:before].isupper():
            return
        name = clean_organization_name(text[start : m.end()])
        if name is not None:
            yield Match(start, m.end(), OrganizationValue(name))


def _scan_org(text: str, pos: int) -> Match | None:
    """Capitalised words after a cue, through an optional legal suffix."""
    gap = _GAP.match(text, pos)
    pos = gap.end() if gap else pos
    start = end = pos
    count = 0
    while count < 5:
        m = _WORD.match(text, pos)
        if m is None or not _capitalised(m.group()) or _fold(m.group()) in _STOP:
            break
        end = (
            m.end()
            if not m.group().endswith(".") or _fold(m.group()) in _ORG_TOKENS
            else (m.end() - 1)
        )
        count += 1
        nxt = _GAP.match(text, m.end())
        if nxt is None or end < m.end():
            break
        pos = nxt.end()
    if count == 0:
        return None
    name = clean_organization_name(text[start:end])
    return Match(start, end, OrganizationValue(name)) if name is not None else None
