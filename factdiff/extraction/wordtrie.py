"""Regex alternations of many words built as a trie, so matching costs the word's length.

``re`` tries the branches of ``a|b|c`` one after another at every position of the text; with
hundreds of cue words that dominates a scan. The same words written as a trie
(``l(?:and(?:ed|ing|s)?|eav(?:e|es|ing))``) fail at the first character that no word has.

A scan for words that start where a word starts (``\\b`` or ``(?<![\\w-])`` before them) still
runs the regex engine at every position. ``word_start_alternation`` writes the same words
so that the pattern begins with the class of their first letters, which ``re`` searches
for on its own, much faster, and only runs the rest where one is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

Trie = dict[str, "Trie"]
"""One node: the next letters, each with its node (``""`` marks a word's end)."""


def flexible_char(char: str) -> str:
    """A space matches any run of blanks, a hyphen an optional blank or hyphen."""
    if char == " ":
        return r"[ \t]+"
    if char == "-":
        return r"[ \t-]?"
    return re.escape(char)


def trie_alternation(words: Iterable[str], char: Callable[[str], str] = re.escape) -> str:
    """A regex matching exactly the given words (longest first at each branch); ``char``
    turns one character into its pattern (``flexible_char`` for phrases)."""
    return _pattern(_trie(words), char)


def word_start_alternation(
    words: Iterable[str], not_after: str = r"\w", char: Callable[[str], str] = re.escape
) -> str:
    """``(?<!not_after)`` followed by ``trie_alternation(words, char)``, matching the same,
    written to begin with the class of the words' first letters (see the module docstring):
    ``[ab](?<!not_after.)(?:(?<=a)rest-of-a-words|(?<=b)rest-of-b-words)``. ``not_after``
    is one character's pattern (a class); the words start with letters, and the pattern is
    for a case-sensitive regex (``re`` does not search for a class of cased letters alone
    under ``IGNORECASE``)."""
    root = _trie(words)
    firsts = sorted(c for c in root if c)
    if "" in root or not all(c.isalpha() for c in firsts):
        raise ValueError("word_start_alternation needs words that start with a letter")
    branches = [f"(?<={re.escape(c)})" + _pattern(root[c], char) for c in firsts]
    return f"[{''.join(firsts)}](?<!{not_after}.)(?:{'|'.join(branches)})"


def _trie(words: Iterable[str]) -> Trie:
    root: Trie = {}
    for word in sorted(set(words)):
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}
    return root


def _pattern(node: Trie, char: Callable[[str], str]) -> str:
    ends = "" in node
    branches = [char(c) + _pattern(child, char) for c, child in sorted(node.items()) if c]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        return f"(?:{body})?" if len(branches) > 1 or len(body) > 1 else f"{body}?"
    return body
