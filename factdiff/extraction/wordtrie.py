"""Regex alternations of many words built as a trie, so matching costs the word's length.

``re`` tries the branches of ``a|b|c`` one after another at every position of the text; with
hundreds of cue words that dominates a scan. The same words written as a trie
(``l(?:and(?:ed|ing|s)?|eav(?:e|es|ing))``) fail at the first character that no word has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

Trie = dict[str, Any]


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
    root: Trie = {}
    for word in sorted(set(words)):
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = {}
    return _pattern(root, char)


def _pattern(node: Trie, char: Callable[[str], str]) -> str:
    ends = "" in node
    branches = [char(c) + _pattern(child, char) for c, child in sorted(node.items()) if c]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        return f"(?:{body})?" if len(branches) > 1 or len(body) > 1 else f"{body}?"
    return body
