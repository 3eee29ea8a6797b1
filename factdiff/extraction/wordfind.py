"""Whole-word occurrences of a text's own few words, found with ``str.find``, and a regex
tried only where they start.

A text names few of a long word list (its vocabulary says which). Finding just those with
``str.find`` costs a few C-level scans, where a regex of the whole list runs the engine at
every position, and a regex of the present words must be compiled for each new set of words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple


class Word(NamedTuple):
    """One occurrence: where it starts and ends, and which listed word it is."""

    start: int
    end: int
    word: str


def find_words(
    low: str,
    words: Iterable[str],
    not_before: str = "'’-",
    not_after: str = "'’-",
    plural: bool = False,
) -> list[Word]:
    r"""Every occurrence of ``words`` in the lower-cased ``low`` with no letter, digit or
    ``_`` on either side, nor a character of ``not_before`` before it or of ``not_after``
    after it (with ``plural``, the plural's ``s`` may end the occurrence: ``es`` after a
    sibilant, ``buses``), in text order: what a regex ``(?<![\w...])(?:car(?:s)?|bus(?:es)?
    ...)(?![\w...])`` finds (each word with its own :func:`plural_ending`)."""
    found: list[Word] = []
    for word in words:
        ending = plural_ending(word)
        for at in _occurrences(low, word):
            end = at + len(word)
            if (
                plural
                and low.startswith(ending, end)
                and not _joins(low, end + len(ending), not_after)
            ):
                end += len(ending)
            if not _joins(low, at - 1, not_before) and not _joins(low, end, not_after):
                found.append(Word(at, end, word))
    found.sort()
    return found


def plural_ending(word: str) -> str:
    """The ending of ``word``'s regular plural: ``es`` after a sibilant (``bus``), else ``s``."""
    return "es" if word.endswith(("s", "x", "z", "ch", "sh")) else "s"


def _joins(low: str, index: int, others: str) -> bool:
    """Whether the character at ``index`` (if any) joins a word: a letter, digit, ``_`` or one
    of ``others``."""
    if index < 0 or index >= len(low):
        return False
    char = low[index]
    return char.isalnum() or char == "_" or char in others


def word_starts(low: str, words: Iterable[str]) -> list[int]:
    """Where each of ``words`` occurs in ``low`` (inside other words too), in text order: the
    only places a regex that begins with one of them can match."""
    return sorted({at for word in words for at in _occurrences(low, word)})


def matches_at(
    pattern: re.Pattern[str], text: str, starts: Iterable[int]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` where every match begins at one of ``starts`` (in text
    order): the pattern is tried there only, a start inside the previous match skipped."""
    last_end = 0
    for at in starts:
        found = pattern.match(text, at) if at >= last_end else None
        if found is not None:
            last_end = found.end()
            yield found


def matches_starting_with(
    pattern: re.Pattern[str], low: str, words: Iterable[str]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(low)`` for a pattern whose every match begins with one of
    ``words``: tried only where they occur (``word_starts``, ``matches_at``)."""
    return matches_at(pattern, low, word_starts(low, words))


def _occurrences(low: str, word: str) -> Iterator[int]:
    """Where ``word`` occurs in ``low`` (overlapping occurrences too), in text order."""
    at = low.find(word)
    while at >= 0:
        yield at
        at = low.find(word, at + 1)
