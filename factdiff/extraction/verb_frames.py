"""What the words around a decision verb make of it (see ``decisions``).

* a phrasal verb counts with its particle only (``turned down the offer``, ``called it off``),
  and not in its literal sense (``turned down the volume``);
* a note's bare present with a time states a decision (``Replacement ships next Tuesday``);
* a third party's future payment is a commitment (``the customer will pay``), and a decision
  verb's infinitive after a verb of consent, promise or refusal is the decision itself
  (``agreed to waive the fee``);
* a verb of consent before a clause states a fact, not a decision (``billing confirmed
  INV-2231 was paid``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType

from factdiff.extraction.transactions import BY_AFTER, NOUNS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PHRASAL_VERBS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {
        "refuse": (("turn", "down"),),
        "cancel": (("call", "off"),),
        "waive": (("write", "off"),),
    }
)
"""Phrasal verbs of a decision class (verb, particle): ``turned down the offer``, ``called
it off``, ``wrote off the $45 fee`` (the generic lexicon's)."""

LITERAL_OBJECTS: Mapping[tuple[str, str], frozenset[str]] = MappingProxyType(
    {
        ("turn", "down"): _words(
            """volume heat heating heater temperature thermostat music sound radio tv television
            light lights lamp brightness ac fan speed power bass noise stereo speaker speakers
            screen"""
        ),
    }
)
"""What a phrasal verb (verb, particle) acts on in its literal sense: ``turned down the
volume`` is no refusal."""


def literal_phrasal(verb: str, particle: str, obj: tuple[str, ...]) -> bool:
    """Whether a phrasal verb's object (its words) makes it literal (``turned down the heat``,
    ``turned the music down``), so that it states no decision."""
    literal = LITERAL_OBJECTS.get((verb, particle))
    return literal is not None and not literal.isdisjoint(obj)


_NOTE_SUBJECT = re.compile(
    r"[ \t]*(?:(?:the|your|my|our|their|his|her|this|that|a|new)[ \t]+)?"
    r"(?:[a-z-]+[ \t]+){0,2}?(?P<noun>[a-z]+)[ \t]+$"
)
_NOUN_ENDINGS = ("ment", "tion", "sion", "ance", "ence", "age", "ure", "ery")
_SUBJECT_NOUNS = _words(
    "order package parcel item unit part device product shipment replacement box kit router "
    "modem laptop phone tablet card subscription plan membership account policy warranty "
    "contract"
)
"""Nouns a note states a decision of with a bare ``-s`` form (``Replacement ships next
Tuesday``): the transaction nouns, these, and words with a noun's ending; ``cancels`` is no
noun, so any word may head its subject."""
_DAY_WORDS = (
    r"today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun"
)
_WHEN_AFTER = re.compile(
    rf"[ \t]+(?:(?:{_DAY_WORDS})|(?:on|by|next|this|in|within)[ \t]+(?:{_DAY_WORDS}|week|month"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june"
    r"|july|august|september|october|november|december|\d))(?![a-z])"
)
_NOTE_PRESENT = frozenset(("ship", "cancel", "refund"))
"""Decision classes a note states in the bare present (``ships``, ``cancels``, ``refunds``)."""


def note_present(low: str, start: int, end: int, kind: str, clause_start: int) -> bool:
    """Whether an ``-s`` form of a :data:`_NOTE_PRESENT` class is a note's present stating a
    decision: its subject, a noun phrase of at most three words (after a determiner) whose
    head is a noun (:data:`_SUBJECT_NOUNS`), opens the clause and a time follows
    (``Replacement ships next Tuesday``, ``the replacement unit ships tomorrow``, ``your
    subscription cancels on May 1``; not ``Cruise ships this week``)."""
    if kind not in _NOTE_PRESENT or low[end - 1] != "s" or not _WHEN_AFTER.match(low, end):
        return False
    subject = _NOTE_SUBJECT.fullmatch(low, clause_start, start)
    if subject is None:
        return False
    noun = subject.group("noun")
    return (
        kind == "cancel" or noun in NOUNS or noun in _SUBJECT_NOUNS or noun.endswith(_NOUN_ENDINGS)
    )


_PRONOUN_OBJECTS = "it|them|this|that|him|her|me|us|you|everything|all"
_PHRASE_DETERMINERS = "the|a|an|this|that|your|our|their|his|her"


@functools.cache
def _particle_patterns(particle: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The patterns of :func:`particle_after` for one particle: right after the verb, and
    after its object."""
    right = re.compile(rf"[ \t]+{particle}(?![\w'’-])")
    later = re.compile(
        rf"[ \t]+(?:(?:{_PRONOUN_OBJECTS})|(?:{_PHRASE_DETERMINERS})(?:[ \t]+[\w$#.,'’-]+){{1,3}}?)"
        rf"[ \t]+{particle}(?![\w'’-])(?![ \t]+(?:{_PHRASE_DETERMINERS}|my|its)(?![\w'’-]))"
    )
    return right, later


def particle_after(low: str, end: int, particle: str, clause_end: int) -> int | None:
    """Where a phrasal verb's ``particle`` ends when it follows the verb form ending at
    ``end``: right after it (``turned down the offer``: the particle's end), or after a
    pronoun or a short noun phrase and before no determiner (``called it off``, ``turned the
    offer down``: ``end`` itself; not ``turned the car down the street``). None otherwise."""
    right, later = _particle_patterns(particle)
    found = right.match(low, end, clause_end)
    if found is not None:
        return found.end()
    return end if later.match(low, end, clause_end) is not None else None


_WILL_BEFORE = re.compile(
    r"(?<![\w'’])(?P<subject>[a-z]+)(?:[ \t]+(?:will|shall|is[ \t]+going[ \t]+to|are[ \t]+going"
    r"[ \t]+to)|['’]ll)[ \t]+(?:(?:also|then|now|still)[ \t]+)?$"
)
COMMITTING_SUBJECTS_ = _words(
    "he she they customer client caller guest buyer tenant patient member user owner company"
)
"""Third parties whose future payment is a commitment reported (``the customer will pay``,
``she'll pay``); the speaker's or the listener's is a proposal or a wish (``I'll rent it``,
``the price you'll pay``), and a thing's no one's (``the amount will transfer``)."""


_NO_ONE = _words(
    "i we you it this that these those there here which what who everyone nobody today "
    "tonight tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday then "
    "now also"
)
"""Capitalised words before ``will`` that name no third party (``Tomorrow will ...``)."""


def future_commitment(text: str, low: str, start: int) -> bool:
    """Whether a transaction verb's base form at ``start`` follows a third party's future: a
    commitment (``the customer will pay``, ``Okafor is going to pay``)."""
    found = _WILL_BEFORE.search(low, max(0, start - 40), start)
    if found is None:
        return False
    subject = found.group("subject")
    if subject in COMMITTING_SUBJECTS_:
        return True
    first = found.start("subject")
    return subject not in _NO_ONE and text[first].isupper()  # a name: "Okafor will pay"


COMMITTING = frozenset(("agree", "accept", "promise", "guarantee", "refuse", "decline"))
"""Verbs whose infinitive complement may be a decision of its own (``agreed to waive``)."""
_COMPLEMENT = re.compile(r"[ \t]+to[ \t]+(?P<verb>[a-z]+)(?![\w'’-])")


def infinitive_decision(low: str, end: int, forms: frozenset[str], past: set[str]) -> str | None:
    """The base form among ``forms`` (not ``past``) after ``to`` right after ``end``
    (``agreed to waive``: ``waive``), or None."""
    found = _COMPLEMENT.match(low, end)
    if found is None:
        return None
    form = found.group("verb")
    return form if form in forms and form not in past else None


ASSERTING = frozenset(("agree", "accept", "confirm"))
"""Verbs that, before a clause, state that something is so, not a decision taken (``billing
confirmed INV-2231 was paid``, ``I agree that the fee is wrong``)."""
_CLAUSE_AFTER = re.compile(
    r"[ \t]+(?!to\b)(?:that[ \t]+)?"
    r"(?:(?!(?:that|which|who|whom|whose|and|or|but|then)\b)[\w#$.,'’/-]+[ \t]+){1,5}?"
    r"(?:is|are|was|were|has|have|had|will|would|went|got|goes|isn['’]t|aren['’]t|wasn['’]t"
    r"|weren['’]t|hasn['’]t|haven['’]t|hadn['’]t|won['’]t)(?![\w'’])"
)
"""A clause after a verb: ``that`` (optional), a subject of one to five words (no relative
pronoun or conjunction among them: ``the booking that was made`` is an object and its clause,
``the credit and was happy`` two clauses; no ``to`` first: ``agreed to the refund``) and a
finite verb."""


_CHECKED_WITH = re.compile(r"[ \t]+with(?![\w'’])")
"""``confirmed with billing``: checked with someone, no decision."""


_STATE_AFTER = re.compile(
    r"[ \t]+(?:(?:the|your|my|our|their|his|her|its)[ \t]+)?(?:[\w-]+[ \t]+){1,3}?"
    r"(?:restored|resolved|fixed|repaired|received|delivered|paid|done|complete|completed"
    r"|working|operational|online|back)(?![\w'’-])[ \t]*(?:[.,;:!?)]|and(?![\w'’-])|\Z)"
)
"""A clause without its verb after ``confirm``: a noun phrase and the state it is in
(``confirmed service restored``, ``confirmed the parcel delivered``)."""


def asserts(low: str, verb: str, end: int, stop: int) -> bool:
    """Whether the active form of ``verb`` ending at ``end`` states that something is so: it
    is followed, before ``stop``, by a clause (:data:`_CLAUSE_AFTER`), or it is ``confirm``
    before ``with`` (a passive states the outcome: ``it is confirmed with reference ...``) or
    before a noun phrase and its state (:data:`_STATE_AFTER`)."""
    if verb == "confirm" and (
        _CHECKED_WITH.match(low, end, stop) or _STATE_AFTER.match(low, end, stop)
    ):
        return True
    found = _CLAUSE_AFTER.match(low, end, stop)
    return found is not None and ", " not in found.group()  # a comma ends the subject


_OPENING = re.compile(r"(?:\A|[(\[,;:–—-])[ \t]*\Z")
"""What may stand right before a participle that opens a clause of its own: a bracket, a
comma, a semicolon, a colon or a dash (or the clause start)."""


def attribution(low: str, start: int, end: int, clause_start: int) -> bool:
    """Whether a consent verb's participle at ``start`` opens a clause of its own before
    ``by`` (``cancelled SUB-771; confirmed by agent Luis Romero``, ``(approved by her
    manager)``): it names who stands behind the decision stated before it, not a decision of
    its own."""
    if BY_AFTER.match(low, end) is None:
        return False
    before = low[clause_start:start]
    return not before.strip() or _OPENING.search(low, max(0, start - 8), start) is not None
