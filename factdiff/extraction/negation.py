"""Negation scope: whether a cue phrase is negated in its own clause.

A cue is negated when an odd number of negators stand before it in its clause, each at
most :data:`SCOPE_WORDS` words before it (``did not agree to pay``, ``never authorized``,
``refused to pay``, ``no longer wants``); two negators cancel (``did not refuse to pay``).
Negators: ``not``, ``n't``, ``never``, ``no``, ``no longer``, ``without``, ``cannot`` (and
``couldnot``, ``wouldnot``, ``didnot``, as they are often typed), and the verbs of refusal
``refuse``, ``decline``, ``deny``, ``fail`` in any tense.
"""

from __future__ import annotations

import re

from factdiff.extraction.clauses import Boundaries

SCOPE_WORDS = 3
"""A negator governs a cue at most this many words after it."""
_WINDOW = 64

_NEGATOR = re.compile(
    r"(?<![\w'’])(?:not|never|no(?:[ \t]+longer)?|without|cannot|nor|(?:could|would|did)not"
    r"|\w+n['’]t"
    r"|refus(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|den(?:y|ies|ied|ying)|fail(?:s|ed|ing)?)"
    r"(?![\w'’])",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'’]+")


def negated(text: str, start: int, bounds: Boundaries) -> bool:
    """Whether the phrase starting at ``start`` is negated in its clause."""
    left = max(bounds.clause_start(start), start - _WINDOW)
    window = text[left:start]
    words = [(m.start(), m.end()) for m in _WORD.finditer(window)]
    count = 0
    for found in _NEGATOR.finditer(window):
        after = sum(1 for s, _ in words if s >= found.end())
        if after <= SCOPE_WORDS:
            count += 1
    return count % 2 == 1
