"""Decisions and commitments: action verbs from a curated list, their polarity and object.

One regex pass finds the verb forms (on the lower-cased text); a past form (``refused``,
``cancelled``) is always a decision, a base, ``-s`` or ``-ing`` form only after a word that
makes it a verb (``to``, a modal or auxiliary, a pronoun: ``will refund``, ``I confirm``), so
the nouns ``refund`` and ``shipping address`` are not. Polarity is the negation scope used for
enum fields (``factdiff.extraction.negation``); the object is the first content words of the
rest of the clause (``the refund``, ``order #W123``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from types import MappingProxyType

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.negation import negated
from factdiff.extraction.recognizers.base import Match, lowered, vocabulary
from factdiff.values.decision import DecisionValue

VERB_CLASSES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "accept": ("agree", "approve", "accept", "confirm", "authorize", "authorise", "grant"),
        "refuse": ("refuse", "decline", "deny", "reject"),
        "cancel": ("cancel", "revoke"),
        "promise": ("promise", "guarantee"),
        "offer": ("offer", "propose"),
        "waive": ("waive",),
        "refund": ("refund", "reimburse"),
        "escalate": ("escalate",),
        "ship": ("ship", "dispatch"),
        "book": ("book", "reserve"),
        "exchange": ("exchange",),
    }
)
"""Decision classes: verbs of one class state one decision (a synonym swap is no change)."""

_IRREGULAR: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "deny": (("denied",), ("deny", "denies", "denying")),
        "cancel": (
            ("cancelled", "canceled"),
            ("cancel", "cancels", "cancelling", "canceling"),
        ),
        "ship": (("shipped",), ("ship", "ships", "shipping")),
        "grant": (("granted",), ("grant", "grants", "granting")),
    }
)


def verb_forms(verb: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(past forms, other forms) of a regular verb."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ee"):
        return (verb + "d",), (verb, verb + "s", verb + "ing")
    if verb.endswith("e"):
        return (verb + "d",), (verb, verb + "s", verb[:-1] + "ing")
    suffix = "es" if verb.endswith(("sh", "ch", "x", "s")) else "s"
    return (verb + "ed",), (verb, verb + suffix, verb + "ing")


@lru_cache(maxsize=1024)
def _pattern(forms: frozenset[str]) -> re.Pattern[str]:
    """One pattern finding ``forms`` as whole words (a text's few forms get their own)."""
    alternatives = "|".join(sorted(forms, key=lambda f: (-len(f), f)))
    return re.compile(rf"(?<![\w'’#-])(?:{alternatives})(?![\w'’-])")


class Lexicon:
    """The verb forms of some decision classes, and the one pattern that finds them."""

    def __init__(self, classes: Mapping[str, tuple[str, ...]]) -> None:
        self.class_of: dict[str, str] = {}
        self.past: set[str] = set()
        for name, verbs in classes.items():
            for verb in verbs:
                past, other = verb_forms(verb.strip().lower())
                self.past.update(past)
                for form in (*past, *other):
                    self.class_of.setdefault(form, name)
        self.forms = frozenset(self.class_of)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


DEFAULT_LEXICON = Lexicon(VERB_CLASSES)
"""The generic inventory's decision verbs."""
FORMS = DEFAULT_LEXICON.forms
"""Every inflected form the generic finder knows."""

_LICENSE = _words(
    "to will would shall should can could cannot may might must please do does did not never "
    "i we you they he she it who that which also just already now then still gladly happily "
    "certainly definitely immediately kindly is are am was were be been being has have had "
    "agent customer user representative airline company"
)
"""Words after which a base, ``-s`` or ``-ing`` form is a verb (``will refund``)."""
_PREVIOUS_WORD = re.compile(r"([a-z'’]+)[ \t]*$")
_WORD = re.compile(r"[\w#][\w#-]*")
_STOP = _words(
    "a an the to for of on in at by with your my our their his her its it this that these "
    "those them me you us him i we they he she be been is are was were will would please any "
    "all some and or but so as from now then just also up out off about into there here yes "
    "no not have has had do does did can could which what who again one ok okay sure"
)
OBJECT_WORDS = 4
"""At most this many content words of the clause after the verb make its object."""
_OBJECT_CHARS = 80


def _licensed(low: str, start: int) -> bool:
    found = _PREVIOUS_WORD.search(low, max(0, start - 24), start)
    if found is None:
        return False
    word = found.group(1)
    return word in _LICENSE or word.endswith(("n't", "n’t", "'ll", "’ll", "'m", "’m", "'re"))


def _stem(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("’s").lstrip("#")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _object(low: str, end: int, bounds: Boundaries) -> tuple[str, ...]:
    clauses = bounds.clauses
    i = bisect.bisect_left(clauses, end)
    stop = min(clauses[i] if i < len(clauses) else len(low), end + _OBJECT_CHARS)
    words: list[str] = []
    for found in _WORD.finditer(low, end, stop):
        word = _stem(found.group())
        if word and word not in _STOP and word not in words:
            words.append(word)
            if len(words) == OBJECT_WORDS:
                break
    return tuple(sorted(words))


def find_decisions(
    text: str, bounds: Boundaries | None = None, lexicon: Lexicon = DEFAULT_LEXICON
) -> Iterator[Match]:
    """Every decision ``text`` states: the verb's span, its class, polarity and object."""
    present = vocabulary(text) & lexicon.forms
    if not present:
        return
    low = lowered(text)
    bounds = bounds if bounds is not None else Boundaries.of(text)
    for found in _pattern(present).finditer(low):
        form = found.group()
        if form not in lexicon.past and not _licensed(low, found.start()):
            continue
        value = DecisionValue(
            lexicon.class_of[form],
            negated(text, found.start(), bounds),
            _object(low, found.end(), bounds),
        )
        yield Match(found.start(), found.end(), value)


def parse_decision(text: str) -> DecisionValue | None:
    """The first decision stated in ``text`` (a whole value string), or None."""
    for match in find_decisions(text):
        assert isinstance(match.value, DecisionValue)
        return match.value
    return None
