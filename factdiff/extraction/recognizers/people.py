"""People in text: names after a title, a role or an introduction (and, through
``person_cues`` and ``gazetteer``, after other cues and without one)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from factdiff.extraction.recognizers.base import (
    CueRuns,
    ExtractionContext,
    Match,
    finditer_folded,
    leftmost_longest,
    lowered,
)
from factdiff.extraction.recognizers.gazetteer import find_plain_people
from factdiff.extraction.recognizers.name_scan import (
    WORD,
    NameSpan,
    capitalised,
    common,
    scan_name,
)
from factdiff.extraction.recognizers.named_things import things_named
from factdiff.extraction.recognizers.person_cues import find_cued_people
from factdiff.extraction.wordtrie import trie_alternation, word_start_alternation
from factdiff.values.base import FactType
from factdiff.values.names import (
    ROLES,
    PersonValue,
    _fold,
    clean_person_name,
)


def parse_person(text: str, context: ExtractionContext) -> PersonValue | None:
    """Parse one whole person name (any non-empty name after cleaning)."""
    name = clean_person_name(text)
    return PersonValue(name) if name is not None else None


_TITLES = ("Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Sir", "Dame", "Rev", "Fr", "Capt", "Det")
_TITLE_CUE = re.compile(word_start_alternation(_TITLES) + r"\b\.?(?=[ \t])")


def _words(text: str) -> tuple[str, ...]:
    """The blank-separated words of ``text``."""
    return tuple(text.split())


def _either_case(*words: str) -> tuple[str, ...]:
    """Each word capitalised and as written (``manager``: ``Manager``, ``manager``)."""
    return tuple(form for word in words for form in (word[0].upper() + word[1:], word))


# The cue words are regex tries (``wordtrie``): an alternation of dozens of words tried one
# after another at every position of the text cost most of this recognizer's time. For the
# same reason the introduction phrases first check that a word starts where they are tried.
_ROLE_WORDS = (
    *_words(
        """CEO CTO CFO COO CIO CMO CPO VP SVP EVP President Director Officer officer Engineer
        engineer Chairman Chairwoman Detective Doctor doctor Nurse nurse Senator Governor
        Mayor Judge Professor Coach on-call"""
    ),
    *_either_case(
        *_words(
            """manager agent representative supervisor founder attorney technician
            consultant recruiter colleague boss landlord dentist therapist lead director
            controller buyer analyst coordinator specialist administrator accountant
            champion sponsor psychiatrist psychologist counselor counsellor physician
            surgeon pediatrician dermatologist optometrist chiropractor"""
        ),
        "on call",
    ),
)
_ROLE_CUE = re.compile(r"\b" + trie_alternation(_ROLE_WORDS) + r"(?:,(?=[ \t]))?(?=[ \t])")
_HOLDER_WORDS = _either_case(
    *_words(
        """guest patient client member passenger tenant caller customer driver host chef
        captain pilot resident traveler traveller student teacher employee contractor vendor
        owner buyer seller applicant candidate visitor witness"""
    )
)
_HOLDER_CUE = re.compile(r"(?<![\w-])" + trie_alternation(_HOLDER_WORDS) + r"(?=[ \t])")
"""Nouns for the person holding a role in a transaction (``Guest Priya Raman``): weaker than a
title, so the name after them needs a first and a last name and must not run on into more
capitalised words (``Guest Services Desk`` is not a person)."""
_PAYING_VERBS = _words(
    """send sends sent sending transfer transfers transferred transferring wire wired pay pays
    paid paying give gave owe owes owed lend lent"""
)
_RECIPIENT_CUE = re.compile(
    r"(?i:\b" + trie_alternation(_PAYING_VERBS) + r"\b)"
    r"(?P<what>(?:[ \t]+[\w$.,]+){0,5}?)[ \t]+(?i:to)(?=[ \t]+[A-Z])"
)


_ROLE_RUNS = CueRuns(_ROLE_WORDS)
_HOLDER_RUNS = CueRuns(_HOLDER_WORDS)
_PAYING_RUNS = CueRuns(_PAYING_VERBS)
"""A text without one of these cue words is not scanned for them (``CueRuns``)."""


_MONEY_OBJECT = re.compile(r"(?i)[$€£¥₹0-9]|\b(?:money|it|funds|cash|payment|bucks|dollars)\b")
"""Money sent to someone (``send $780 to Li``, ``transfer 270 bucks to Svetlana``, ``send it
to Justin``): the capitalised word right after ``to`` is a person unless it is a common,
place or organisation word. What is sent must be money (an amount, ``money``, ``it``...), so
``the order was sent to Texas`` names no one."""
_POSSESSIVES = _words(
    "my his her your their our the full customer's caller's client's patient's guest's"
)
_MEETING_VERBS = _words("spoke speaking talked talking spoken met meeting")
_PERSON_NOUNS = _words(
    """guy man woman lady gentleman person someone somebody agent rep representative customer
    user employee colleague friend doctor technician manager girl boy"""
)
_PHRASE_CUE = re.compile(
    r"(?i)\b(?=[^\W\d_])(?:(?P<name>(?:"
    + trie_alternation(_POSSESSIVES)
    + r"\s+|(?<![\w'’]\s)(?<![\w'’]))"
    r"name(?:\s+is|'s|\s*:))|(?P<greet>this\s+is)|(?P<self>i'm|i\s+am|i’m)|"
    + trie_alternation(_MEETING_VERBS)
    + r"\s+(?:with|to)|(?:appointment|consultation)\s+with|ask(?:ed)?\s+for|"
    r"contact(?:\s+person)?\s*:|contact|signed\s+by|assigned\s+to|"
    + trie_alternation(_PERSON_NOUNS)
    + r"\s+(?:named|called))(?=[ \t])"
)
_PHRASE_CUE_LOWER = re.compile(_PHRASE_CUE.pattern.removeprefix("(?i)"))
"""``_PHRASE_CUE`` for the lower-cased copy of an ASCII text: the same matches (every letter
of the pattern is lower-case), found without case folding (``finditer_folded``), nearly
twice as fast."""


_GREETING_BEFORE = re.compile(
    r"(?i)\b(?:hi|hello|hey|yes|yeah|oh|morning|afternoon|evening),?\s*\Z"
)
_STRONG_AFTER = re.compile(r"(?i)\s+(?:from|speaking|calling|here|with)\b")
_INTRO_AFTER = re.compile(
    r"(?i)\s*(?:[,.!?;]|\Z)|\s+(?:from|with|at|of|here|speaking|calling|and)\b"
)
_LAST_FIRST = re.compile(r",[ \t]")
_JSON_NAME = re.compile(
    r"\"first_?name\"\s{0,3}:\s{0,3}\"([^\"\\]{1,60})\"\s{0,3},\s{0,3}"
    r"\"last_?name\"\s{0,3}:\s{0,3}\"([^\"\\]{1,60})\"",
    re.IGNORECASE,
)
_PREV_WORD = re.compile(r"([^\W\d_]+|\d+)\W{0,2}\Z")


def _street_abbreviation(text: str, start: int) -> bool:
    """``Dr``/``St`` after a capitalised word or number reads as a street (``Lassen Dr``)."""
    prev = _PREV_WORD.search(text, max(0, start - 40), start)
    if prev is None:
        return False
    word = prev.group(1)
    return word.isdigit() or (word[0].isupper() and _fold(word) not in ROLES)


class PersonRecognizer:
    """Finds person names (1-4 capitalised tokens) in clear person contexts only.

    Cues: a title (``Mr.``, ``Dr``...), a role (``CTO``, ``manager``, ``agent``...), a holder
    noun before a first and last name (``Guest Priya Raman``, ``patient Ana Ruiz``), the
    recipient of a transfer or payment (``send $780 to Li``), "my name
    is"/"name:" (also ``Last, First``), "this is X" after a greeting and before "from"/
    punctuation, "I'm X" before punctuation/"from", "spoke with/to", "appointment with",
    "consultation with", "ask for", "contact",
    "a man named", and JSON ``first_name``/``last_name`` pairs; recipients, relatives,
    credits and messages (``person_cues``); and names without a cue (``gazetteer``). Months,
    days, common words and organisation words (Corp, Inc, Bank...) are never name tokens.
    """

    fact_type = FactType.PERSON

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping person matches in text order, except names that the text
        gives to a thing (``named_things``)."""
        candidates = list(self._candidates(text))
        if not candidates:
            return iter(())
        low = lowered(text)
        things = things_named(text, low, {low[m.start : m.end] for m in candidates})
        if things:
            candidates = [m for m in candidates if low[m.start : m.end] not in things]
        return leftmost_longest(candidates)

    def _candidates(self, text: str) -> Iterator[Match]:
        for m in _TITLE_CUE.finditer(text):
            if m.group().startswith("Dr") and _street_abbreviation(text, m.start()):
                continue
            yield from self._emit(text, m.end(), cue=m.group())
        for m in _ROLE_CUE.finditer(text) if _ROLE_RUNS.may_occur_in(text) else ():
            yield from self._emit(text, m.end())
        for m in _HOLDER_CUE.finditer(text) if _HOLDER_RUNS.may_occur_in(text) else ():
            yield from self._holder(text, m.end())
        for m in _RECIPIENT_CUE.finditer(text) if _PAYING_RUNS.may_occur_in(text) else ():
            if _MONEY_OBJECT.search(m.group("what")):
                yield from self._recipient(text, m.end())
        for m in finditer_folded(text, _PHRASE_CUE, _PHRASE_CUE_LOWER):
            yield from self._phrase(text, m)
        yield from find_plain_people(text)
        yield from find_cued_people(text)
        for m in _JSON_NAME.finditer(text):
            name = clean_person_name(f"{m.group(1)} {m.group(2)}")
            if name is not None:
                yield Match(m.start(1), m.end(2), PersonValue(name), ((m.start(1), m.end(1)),))

    def _phrase(self, text: str, cue: re.Match[str]) -> Iterator[Match]:
        span = scan_name(text, cue.end())
        if span is None:
            return
        if cue.group("greet") and not (
            _STRONG_AFTER.match(text, span.end)
            or (
                _GREETING_BEFORE.search(text, max(0, cue.start() - 16), cue.start())
                and _INTRO_AFTER.match(text, span.end)
            )
        ):
            return
        if cue.group("self") and not _INTRO_AFTER.match(text, span.end):
            return
        if cue.group("name") and len(span.tokens) == 1:
            yield from self._last_first(text, span)
            return
        yield from self._emit_span(span)

    def _last_first(self, text: str, span: NameSpan) -> Iterator[Match]:
        comma = _LAST_FIRST.match(text, span.end)
        first = scan_name(text, comma.end(), max_tokens=2) if comma else None
        if first is not None and _INTRO_AFTER.match(text, first.end):
            name = clean_person_name(f"{' '.join(span.tokens)}, {' '.join(first.tokens)}")
            if name is not None:
                yield Match(span.start, first.end, PersonValue(name))
                return
        yield from self._emit_span(span)

    def _holder(self, text: str, pos: int) -> Iterator[Match]:
        span = scan_name(text, pos, max_tokens=3)
        if span is None or len(span.tokens) < 2:
            return
        if any(common(token) for token in span.tokens):
            return
        after = WORD.match(text, span.end + 1) if text[span.end : span.end + 1] == " " else None
        if after is not None and capitalised(after.group()):
            return  # "Guest Services Desk Team": a run of capitals, not a name
        yield from self._emit_span(span)

    def _recipient(self, text: str, pos: int) -> Iterator[Match]:
        span = scan_name(text, pos, max_tokens=3)
        if span is None or any(common(token) for token in span.tokens):
            return
        after = WORD.match(text, span.end + 1) if text[span.end : span.end + 1] == " " else None
        if after is not None and capitalised(after.group()):
            return
        yield from self._emit_span(span)

    def _emit(self, text: str, pos: int, cue: str = "") -> Iterator[Match]:
        span = scan_name(text, pos)
        if span is not None:
            yield from self._emit_span(span)

    def _emit_span(self, span: NameSpan) -> Iterator[Match]:
        name = clean_person_name(" ".join(span.tokens))
        if name is not None:
            yield Match(span.start, span.end, PersonValue(name))
