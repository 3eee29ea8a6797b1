"""What a percentage applies to: the noun phrase a text ties it to, read only with confidence.

Four shapes are read, all within the percentage's own clause:

* ``20% off the annual plan``, ``12% of revenue``: the noun phrase after ``off`` or ``of``;
* ``a 20% discount on shipping`` (``discount``, ``reduction``, ``rebate``, ``markdown``,
  ``saving(s)``, ``cut``, then ``on``/``off``/``for``): the noun phrase after the preposition;
* ``a 5% late fee``, ``the 3.5 percent interest rate``: after an article or a possessive, the
  noun phrase the percentage modifies (a discount word alone, ``a 15% discount``, says no
  more than ``15% off`` and stays unbound);
* ``an interest rate of 3.5%``, ``a fee of 5%``: the noun phrase before ``of``.

A noun phrase is at most three words, ends at the first function word (preposition,
conjunction, auxiliary, pronoun, adverb of time) and loses its leading determiners; it is
returned lower-cased (``annual plan``). Anything else (``grew 20% last year``, ``20% more``,
``down 5% from March``) is unbound: ``None``. Deterministic and linear in the text around
the percentage.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["percent_subject"]

_DETERMINERS_TEXT: Final = (
    "the a an your our their his her its my this that these those any all each every"
)
_DETERMINERS: Final = frozenset(_DETERMINERS_TEXT.split())
_DISCOUNT_WORDS_TEXT: Final = (
    "discount discounts reduction reductions rebate rebates markdown markdowns "
    "saving savings cut cuts off"
)
_DISCOUNT_WORDS: Final = frozenset(_DISCOUNT_WORDS_TEXT.split())
_FUNCTION_WORDS_TEXT: Final = """
    on off of for to in at by with from into onto over under per as than then and or but nor
    so if when whenever while because since until till unless after before during through via
    is are was were be been being am will would can could should shall may might must do does
    did has have had it this that these those which who whom whose what where there here
    today tomorrow yesterday now again also only just more less most least very too up down
    out about around across against along among between beyond upon within without not no
    plus minus i you he she we they me him us them instead including excluding each every
    all any some both either neither such once twice applied apply applies
    """
_FUNCTION_WORDS: Final = frozenset(_FUNCTION_WORDS_TEXT.split())
"""Words that end a noun phrase (or that a noun phrase cannot start with)."""

_WORD: Final = r"[a-z][a-z'’-]*"
_PHRASE: Final = rf"(?P<np>{_WORD}(?:[ \t]+{_WORD}){{0,5}})"
_OBJECT_RE: Final = re.compile(
    rf"[ \t]+(?:(?P<disc>{'|'.join(sorted(_DISCOUNT_WORDS - {'off'}))})[ \t]+(?:on|off|for)"
    rf"|off|of)[ \t]+{_PHRASE}"
)
_MODIFIED_RE: Final = re.compile(rf"[ \t]*-?[ \t]*{_PHRASE}")
_DETERMINER_BEFORE_RE: Final = re.compile(
    rf"(?<![a-z])(?:{'|'.join(sorted(_DETERMINERS))})[ \t]+\Z"
)
_OF_BEFORE_RE: Final = re.compile(
    rf"(?<![a-z])(?P<np>{_WORD}(?:[ \t]+{_WORD}){{0,2}})[ \t]+of[ \t]+\Z"
)
_DISCOUNT_TAIL_RE: Final = re.compile(rf"[ \t]+(?:on|off|for)[ \t]+{_PHRASE}")
_BEHIND: Final = 48


def _noun_phrase(words: list[str]) -> str | None:
    """The leading noun phrase of ``words``: determiners dropped, at most three words, up to
    the first function word; None when nothing is left."""
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    kept: list[str] = []
    for word in words:
        if word in _FUNCTION_WORDS or word in _DETERMINERS or len(kept) == 3:
            break
        kept.append(word.strip("'’-"))
    phrase = " ".join(w for w in kept if w)
    return phrase or None


def _object(low: str, end: int) -> str | None:
    """The phrase after ``off``/``of``/``discount on`` right after the percentage."""
    m = _OBJECT_RE.match(low, end)
    return _noun_phrase(m["np"].split()) if m else None


def _modified(low: str, start: int, end: int) -> str | None:
    """``a 5% late fee``: the noun phrase the percentage modifies, after an article."""
    if not _DETERMINER_BEFORE_RE.search(low, max(0, start - 8), start):
        return None
    m = _MODIFIED_RE.match(low, end)
    if m is None:
        return None
    phrase = _noun_phrase(m["np"].split())
    if phrase is None or phrase.split()[0] not in _DISCOUNT_WORDS:
        return phrase
    tail = _DISCOUNT_TAIL_RE.match(low, m.start("np") + len(phrase.split()[0]))
    return _noun_phrase(tail["np"].split()) if tail else None


def _before_of(low: str, start: int, end: int) -> str | None:
    """``an interest rate of 3.5%``: the noun phrase before ``of`` (a discount word there
    defers to ``... of 20% on shipping``)."""
    m = _OF_BEFORE_RE.search(low, max(0, start - _BEHIND), start)
    if m is None:
        return None
    words = [w for w in m["np"].split() if w not in _DETERMINERS]
    while words and words[0] in _FUNCTION_WORDS:
        words = words[1:]
    if not words or any(w in _FUNCTION_WORDS for w in words):
        return None
    if words[-1] in _DISCOUNT_WORDS:
        tail = _DISCOUNT_TAIL_RE.match(low, end)
        return _noun_phrase(tail["np"].split()) if tail else None
    return " ".join(w.strip("'’-") for w in words[-3:]) or None


def percent_subject(low: str, start: int, end: int) -> str | None:
    """What the percentage at ``low[start:end]`` applies to (see the module docstring);
    ``low`` is the text lower-cased with its length kept."""
    return _object(low, end) or _modified(low, start, end) or _before_of(low, start, end)
