"""Reading a name where a cue says one starts: capitalised tokens, then the lower-case form.

Shared by the cue-based person recognizer (``people``) and its cue families
(``person_cues``): a scan returns the span and tokens of the name or ``None``; it never
decides whether a cue was there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factdiff.extraction.recognizers.name_lists import family_names, given_names
from factdiff.values.names import _ORG_TOKENS, _PLACE_TOKENS, _STOP, HONORIFICS, ROLES, _fold

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\.?")
GAP = re.compile(r"[ \t]{1,2}")
PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "del", "di", "la", "le", "bin"})
NOT_NAMES = _STOP | _PLACE_TOKENS | _ORG_TOKENS | ROLES | HONORIFICS
_PLACE_OR_ORG_TOKENS = _PLACE_TOKENS | _ORG_TOKENS


@dataclass(frozen=True)
class NameSpan:
    """Where a scanned name stands and its tokens."""

    start: int
    end: int
    tokens: tuple[str, ...]


def capitalised(word: str) -> bool:
    """``Ana``, ``O'Shea``, ``J.``; not ``ana`` nor an all-capitals word (``USD``)."""
    core = word.rstrip(".")
    if not core or not core[0].isupper():
        return False
    return len(core) == 1 or not core.isupper()


def common(token: str) -> bool:
    """A word that is a common word, a place or organisation word (or its plural)."""
    folded = _fold(token)
    return folded in NOT_NAMES or (folded.endswith("s") and folded[:-1] in NOT_NAMES)


_CAPITAL_AFTER = re.compile(r"[ \t]{1,2}[A-Z]")


def _surname_here(tokens: list[tuple[str, int]], folded: str, text: str, end: int) -> bool:
    """Whether a place word is a family name here: one the lists hold (``Park``,
    ``Church``), after a known given name, and ending the name (``CFO Linda Park called``;
    not ``Linda Park Hotel``)."""
    return (
        len(tokens) == 1
        and folded in family_names()
        and _fold(tokens[0][0]) in given_names()
        and _CAPITAL_AFTER.match(text, end) is None
    )


def scan_name(text: str, pos: int, max_tokens: int = 4) -> NameSpan | None:
    """Capitalised name tokens starting at ``pos`` (after optional spaces), or None."""
    gap = GAP.match(text, pos)
    pos = gap.end() if gap else pos
    start = pos
    tokens: list[tuple[str, int]] = []
    while len(tokens) < max_tokens:
        m = WORD.match(text, pos)
        if m is None:
            break
        word = m.group()
        folded = _fold(word).removesuffix("'s")  # "Globex Corporation's CFO": its stem
        if tokens and folded in PARTICLES:
            tokens.append((word, m.end()))
        elif not capitalised(word):
            if folded in _PLACE_OR_ORG_TOKENS:
                return None
            break
        elif folded in _ORG_TOKENS:
            return None
        elif len(word) == 2 and word.endswith("."):
            tokens.append((word, m.end()))
        elif folded in _PLACE_TOKENS:
            if not _surname_here(tokens, folded, text, m.end()):
                return None
            tokens.append((word, m.end()))
            break
        elif folded in ROLES and len(tokens) == 1 and _fold(tokens[0][0]) not in PARTICLES:
            return None  # "Family Counselor", "Sales Manager": a compound role, no name
        elif folded in _STOP or folded in HONORIFICS or folded in ROLES:
            break
        elif word.endswith("."):
            tokens.append((word[:-1], m.end() - 1))
            break
        else:
            tokens.append((word, m.end()))
        nxt = GAP.match(text, m.end())
        if nxt is None:
            break
        pos = nxt.end()
    while tokens and (_fold(tokens[-1][0]) in PARTICLES or tokens[-1][0].endswith(".")):
        tokens.pop()
    if not tokens:
        return None
    return NameSpan(start, tokens[-1][1], tuple(t for t, _ in tokens))


def scan_lower_name(
    text: str, pos: int, known: frozenset[str], max_tokens: int = 3
) -> NameSpan | None:
    """A lower-case name after a strong cue (``directed by harry elfont``): up to
    ``max_tokens`` lower-case words that are not common words, the first of them a ``known``
    name (folded); an initial (``nicole g``) may end it."""
    gap = GAP.match(text, pos)
    pos = gap.end() if gap else pos
    start = pos
    tokens: list[tuple[str, int]] = []
    while len(tokens) < max_tokens:
        m = WORD.match(text, pos)
        if m is None:
            break
        word = m.group().rstrip(".")
        if not word.islower() or common(word) or (len(word) == 1 and not tokens):
            break
        tokens.append((word, m.start() + len(word)))
        if len(word) == 1:
            break
        nxt = GAP.match(text, m.end())
        if nxt is None:
            break
        pos = nxt.end()
    if not tokens or _fold(tokens[0][0]) not in known:
        return None
    return NameSpan(start, tokens[-1][1], tuple(t for t, _ in tokens))
