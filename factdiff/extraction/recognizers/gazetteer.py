"""People without a cue: a given-name gazetteer, capitalisation and sentence position.

A run of capitalised words is a person when it reads as one (``Daniel Okafor reports``):

* *Given [initial] Family*: the first word is a known given name, then up to three name
  words (initials, particles, known names, and one open-class surname);
* *Family Given [initial]*: a directory order (``Garcia Daniel``, ``Miller Nicole G``): a
  known given name after a known family name, or after any capitalised word that does not
  start a sentence.

Known names are the folded lists in ``factdiff/extraction/data`` (rebuilt from Faker's
MIT-licensed name lists by ``scripts/build_name_gazetteer.py``; read once, no network). A
common word, a place or organisation word, a title or a role never belongs to a name, and a
run that goes on into more capitalised words that are not names (``Grace Cathedral Choir``)
is not one. All-lower-case pairs count only when both words are known names of their kind
(``jeffrey sayre``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from factdiff.extraction.recognizers.base import Match, lowered
from factdiff.extraction.recognizers.name_lists import family_names, given_names, known_names
from factdiff.extraction.recognizers.name_scan import common, scan_lower_name, scan_name
from factdiff.values.names import (
    _ORG_TOKENS,
    _PLACE_TOKENS,
    _STOP,
    HONORIFICS,
    ROLES,
    PersonValue,
    _fold,
    clean_person_name,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_VENUE_WORDS = _words(
    """garden gardens grill kitchen cafe café caffe caffè bar bistro pizza pizzeria diner tavern
    pub inn food lodge cinema cinemas bakery house brasserie cantina trattoria steakhouse hall arena
    stadium club lounge market mall plaza tower bridge beach lake river mountain valley
    island bay harbor harbour airlines airways express records band orchestra choir bed
    breakfast apartment apartments suites resort field international airport man woman boy
    girl guy lady men women hills hill ranch glen keys polar pearl queen king villa grove
    heights park springs village downtown uptown center centre street st road rd avenue ave
    boulevard blvd drive dr lane ln way court ct place parkway highway square terrace"""
)
"""Words that end a venue's or a group's name, never a person's."""
_PLACE_STARTS = _words(
    """san santa santo são sao saint st ste el la las los le les fort mount mt port kings
    holy east west north south new lake van von de del di da villa casa case red asian"""
)
"""Words that start a place's name (``San Jose``, ``East Allen``), never a person's."""
_PLACE_NAMES = _words(
    """paris beverly atlanta sydney florence georgia austin dallas phoenix charlotte victoria
    jackson madison orlando houston lincoln adelaide camden brooklyn savannah carolina
    virginia helena regina chelsea trinity vegas denver berkeley aurora"""
)
"""Places that are also given names: never the given name of a *Family Given* pair."""
_CREDENTIALS = _words("psyd phd md lcsw lmft mft msw lpc dds dmd rn np ma ms mba esq jr sr")
"""Degrees and licences that may follow a name (``Alissa Scanlin Psyd``)."""
_HOLDERS = _words(
    """guest patient client member passenger tenant caller customer driver host chef captain
    pilot resident traveler traveller student teacher employee contractor vendor owner buyer
    seller applicant candidate visitor witness user uncle aunt auntie cousin friend"""
)
"""Nouns that announce a person (``Guest Priya Raman``): never a name's first word."""
_FUNCTION_WORDS = _words(
    """till until per each every via upon onto into than then date else someone somebody
    something anyone anybody anything everyone everybody everything nothing nobody"""
)
"""English function words that the name lists also hold (``per``, ``till``)."""
_NEVER = (
    _FUNCTION_WORDS
    | _STOP
    | _PLACE_TOKENS
    | _ORG_TOKENS
    | ROLES
    | HONORIFICS
    | _VENUE_WORDS
    | _HOLDERS
)
_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "del", "di", "la", "le", "bin"})
_TOKEN = r"[^\W\d_][^\W\d_]*(?:['’-][^\W\d_]+)*\.?"
_RUN = re.compile(rf"(?<![\w'’.-]){_TOKEN}(?:[ \t]{{1,2}}{_TOKEN})+")
_WORD = re.compile(r"[^ \t]+")
_SENTENCE_START = re.compile(r"(?:\A|[.!?:;\n\"“(]|\b(?:user|system|assistant|agent):)\s*\Z")


_CONTRACTION = re.compile(r"['’](?:s|m|re|ll|d|ve|t)\Z")


def _common(folded: str) -> bool:
    core = _CONTRACTION.sub("", folded.rstrip("."))  # "There's", "I'm": their stem
    return core in _NEVER or (core.endswith("s") and core[:-1] in _NEVER)


def _initial(token: str) -> bool:
    core = token.rstrip(".")
    return len(core) == 1 and core.isupper()


def _capital(token: str) -> bool:
    core = token.rstrip(".")
    return bool(core) and core[0].isupper() and (len(core) == 1 or not core.isupper())


def _lower(token: str) -> bool:
    return token.islower() and not token.endswith(".")


@lru_cache(maxsize=1 << 16)
def _fold_word(word: str) -> str:
    """A run's word as the name lists hold it (cached: a text's words repeat)."""
    return _fold(word.rstrip("."))


class _Run:
    """The tokens of one run of words, with their spans."""

    def __init__(self, text: str, match: re.Match[str], folded: list[str]) -> None:
        self.text = text
        self.tokens: list[tuple[str, int, int]] = [
            (word.group(), word.start(), word.end())
            for word in _WORD.finditer(text, match.start(), match.end())
        ]
        self._folded = folded

    def folded(self, i: int) -> str:
        return self._folded[i]

    def may_start_name(self, i: int, given: frozenset[str], family: frozenset[str]) -> bool:
        """Whether a name may start at token ``i``: only where it or the next word is a known
        name, or an initial follows two words (``_person_at`` finds none elsewhere)."""
        here = self._folded[i]
        return (
            here in given
            or here in family
            or self._folded[i + 1] in given
            or (i + 2 < len(self.tokens) and _initial(self.tokens[i + 2][0]))
        )


_INITIAL_WORD = re.compile(r"(?<![^ \t])[^\W\d_]\.?(?![^ \t])")
"""A one-letter word (``G``, ``S.``): where ``_initial`` may hold."""


def _may_hold_name(
    run: str, folded: list[str], given: frozenset[str], family: frozenset[str]
) -> bool:
    """Whether any word of a run is a known name or an initial (``_Run.may_start_name``
    holds nowhere in it otherwise)."""
    return (
        not given.isdisjoint(folded)
        or not family.isdisjoint(folded)
        or any(_initial(found.group()) for found in _INITIAL_WORD.finditer(run))
    )


def find_plain_people(text: str) -> Iterator[Match]:
    """Person names that no cue announces (see the module docstring), except names that the
    same text uses as a venue (see ``_venues``)."""
    given, family = given_names(), family_names()
    found: list[Match] = []
    for run_match in _RUN.finditer(text):
        folded = [_fold_word(word) for word in run_match.group().split()]
        if not _may_hold_name(run_match.group(), folded, given, family):
            continue
        run = _Run(text, run_match, folded)
        i, last_end = 0, -1
        while i < len(run.tokens) - 1:
            if not run.may_start_name(i, given, family):
                i += 1
                continue
            taken = _person_at(run, i, given, family, after_name=i == last_end)
            if taken is None:
                i += 1
                continue
            end_index, match = taken
            if not _credited(text, match.end) and not _json_key(text, match.start, match.end):
                found.append(match)
            i = last_end = end_index
    if not found:
        return iter(())
    low = lowered(text)
    venues = _venues(text, low, {low[m.start : m.end] for m in found})
    return (match for match in found if low[match.start : match.end] not in venues)


_BY = re.compile(r"(?:[ \t]+[A-Z][\w'’]*){0,2}[ \t]+by[ \t]+")
"""``by`` after a name, or after the one or two capitalised words that end its title (``No
More Sad Songs by Little Mix``)."""


def _credited(text: str, end: int) -> bool:
    """Whether a name is followed by ``by`` and a credited name (``Kara Kul by Mark Petrie``,
    ``jesus and jack daniels by justin moore``): a work's title, not a person."""
    by = _BY.match(text, end)
    if by is None:
        return False
    span = scan_name(text, by.end()) or scan_lower_name(text, by.end(), known_names())
    return span is not None and not any(common(token) for token in span.tokens)


_KEY_AFTER = re.compile(r'"[ \t]*:')


def _json_key(text: str, start: int, end: int) -> bool:
    """Whether a name is a whole JSON object key (``{"Tea Kettle": "9832717871"}``): a key
    labels its value, it names no one."""
    return text[start - 1 : start] == '"' and _KEY_AFTER.match(text, end) is not None


def _starts_sentence(text: str, pos: int) -> bool:
    """Whether the word at ``pos`` is the first of a sentence or a turn."""
    return _SENTENCE_START.search(text, max(0, pos - 24), pos) is not None


_AT_BEFORE = re.compile(
    r"(?<!appointment)(?<!appointments)[ \t]+(?:at|in)[ \t]+(?:the[ \t]+)?\Z"
    r"|\b(?:headed|heading|going|drive|driving|ride|cab|taxi|directions)[ \t]+to[ \t]+\Z"
)
_VENUE_AFTER = re.compile(
    r"(?:[ \t]*[.?!][ \t]+it)?[ \t]+(?:is|was)[ \t]+(?:a|an|the)\b[^.?!\n]{0,30}?"
    r"\b(?:restaurant|hotel|guesthouse|guest[ \t]+house|bar|pub|cafe|café|venue"
    r"|attraction|museum|theatre|theater|college|club|shop|store|joint|eatery|diner"
    r"|bistro|pizzeria|steakhouse|bakery)\b"
    r"|[ \t]*,?[ \t]*(?:(?:which|that)[ \t]+is[ \t]+)?located[ \t]+at\b"
)


_OWNED_AFTER = re.compile(
    r"(?:['’]s)?[ \t]+(?!(?:for|in|on|at|and|or|to|with|by|from|near|is|was|the|a|an)\b)[a-z]"
)


def _possessive(text: str, name: str, end: int) -> bool:
    """Whether a name is a possessive before what it owns (``Ana Ruiz's house``; with the
    ending in the name or after it); a possessive alone names a venue (``a table at Rosie
    Mccann's for March 2nd``), and so does one before capitalised words (``Rosie Mccann's
    Irish Pub``)."""
    if not (name.endswith(("'s", "’s")) or text.startswith(("'s", "’s"), end)):
        return False
    return _OWNED_AFTER.match(text, end) is not None


def _venues(text: str, low: str, names: set[str]) -> frozenset[str]:
    """The names (lower-cased) that ``text`` (``low``: lower-cased) also uses as a place:
    after ``at``/``in`` (``a table at Charlie Chan``; ``an appointment at`` a practitioner is
    no venue) or a way there (``headed to Willard Hicks``; not as a possessive before what it
    owns: ``driving to Ana Ruiz's house``, see ``_possessive``); before ``is a ...
    restaurant`` (``Curry Queen is a cheap restaurant``, ``Charlie Chan? It is a good
    restaurant``) or ``located at`` an address (``Charlie Chan , located at Regent Street``;
    a practitioner too is ``located in`` a town): a person is met or called, a
    venue is where things happen. Every mention of such a name goes."""
    venues = set()
    for name in names:
        pos = low.find(name)
        while pos >= 0:
            end = pos + len(name)
            whole = (pos == 0 or not low[pos - 1].isalnum()) and (
                end == len(low) or not low[end].isalnum()
            )
            if whole and (
                (_AT_BEFORE.search(low, max(0, pos - 24), pos) and not _possessive(text, name, end))
                or _VENUE_AFTER.match(low, end)
            ):
                venues.add(name)
                break
            pos = low.find(name, pos + 1)
    return frozenset(venues)


def _person_at(
    run: _Run, i: int, given: frozenset[str], family: frozenset[str], after_name: bool
) -> tuple[int, Match] | None:
    word = run.tokens[i][0]
    first = run.folded(i)
    if _common(first) or _initial(word) or first in _PLACE_STARTS or word.endswith("."):
        return None  # a name never runs on past a full stop
    if i > 0 and (
        run.folded(i - 1) in _PLACE_STARTS or (not after_name and _inside_proper_name(run, i))
    ):
        return None
    if _lower(word):
        return _lower_pair(run, i, given, family)
    if not _capital(word):
        return None
    nxt, nxt_folded = run.tokens[i + 1][0], run.folded(i + 1)
    if first in _PLACE_NAMES and nxt_folded not in family:
        return None
    if first in given and not _lower(nxt) and (_initial(nxt) or not _common(nxt_folded)):
        return _given_first(run, i, given, family)
    if (
        nxt_folded in given
        and nxt_folded not in _PLACE_NAMES
        and not _common(nxt_folded)
        and _capital(nxt)
        and not _initial(nxt)
        and first not in given
        and (
            first in family
            or (nxt_folded not in family and not _starts_sentence(run.text, run.tokens[i][1]))
            or _subject_of_sentence(run, i)
        )
    ):
        end = _past_initial(run, i + 2)
        if _runs_on(run, end, heads_only=True) or _LABEL_AFTER.match(
            run.text, run.tokens[end - 1][2]
        ):
            return None
        return _emit(run, i, end)
    if _directory_entry(run, i):
        return _emit(run, i, i + 3)
    return None


_LABEL_AFTER = re.compile(r"(?:[ \t]+\d+)?[ \t]*:(?:\*\*)?[ \t]+(?:\*\*)?[A-Z0-9$]")
"""A pair in directory order that labels a value (``Skin Tone: Dark``, ``**Address Line 1:**
157 Oak Street``) names a field, not a person."""


def _past_initial(run: _Run, end: int) -> int:
    """``end``, or one token further when that token is an initial (``Garcia Daniel A``)."""
    return end + 1 if end < len(run.tokens) and _initial(run.tokens[end][0]) else end


_VERB_AFTER = re.compile(
    r"[ \t]+(?:is|was|has|had|will|can|could|would|does|did|works|specializes|specialises"
    r"|practices|offers|sees|accepts)\b"
)


def _subject_of_sentence(run: _Run, i: int) -> bool:
    """A *Family Given* pair that starts a sentence is a name only as the subject of a verb
    (``Leininger Anne is a Family Counselor``), not after an imperative (``Call Anne``), and
    when the text never writes its first word in lower case."""
    word, end = run.tokens[i][0], run.tokens[i + 1][2]
    if not _VERB_AFTER.match(run.text, end):
        return False
    return re.search(rf"(?<![\w'’-]){re.escape(word.lower())}(?![\w'’-])", run.text) is None


def _directory_entry(run: _Run, i: int) -> bool:
    """``Barskyex Bryna G``, ``Schmall Rahima S.``: two name words and an initial that ends
    the run, the order of a directory listing, whether or not the names are known."""
    if i + 2 >= len(run.tokens) or run.tokens[i + 2][0] in ("I", "I."):
        return False  # the pronoun, not an initial
    if not _initial(run.tokens[i + 2][0]):
        return False
    if i + 3 < len(run.tokens) and _capital(run.tokens[i + 3][0]):
        return False
    first, nxt = run.tokens[i][0], run.tokens[i + 1][0]
    return (
        _capital(nxt)
        and not _initial(nxt)
        and not _common(run.folded(i + 1))
        and not first.endswith(".")
        and not nxt.endswith(".")
        and not re.search(r"['’]s\Z", first)
    )


def _given_first(
    run: _Run, i: int, given: frozenset[str], family: frozenset[str]
) -> tuple[int, Match] | None:
    end = i + 1
    open_surname = False
    while end < len(run.tokens) and end - i < 4:
        word, folded = run.tokens[end][0], run.folded(end)
        if _initial(word) or folded in _PARTICLES:
            end += 1
            continue
        if not _capital(word) or _common(folded):
            break
        if (folded in _PLACE_STARTS and folded not in _PARTICLES) or (
            folded in _PLACE_NAMES and folded not in family
        ):
            return None  # "Amelie San Francisco", "Amber Run Brooklyn": at a place
        known = folded in given or folded in family
        if not known and open_surname:
            break
        open_surname = open_surname or not known
        end += 1
        if word.endswith("."):
            break  # the sentence ends here: "Mindy Gledhill. Find me..."
    while end > i + 1 and (_initial(run.tokens[end - 1][0]) or run.folded(end - 1) in _PARTICLES):
        end -= 1
    if end == i + 1 or _runs_on(run, end):
        return None
    return _emit(run, i, end)


_THING_HEADS = _VENUE_WORDS | _ORG_TOKENS | _PLACE_TOKENS
_INSTITUTIONS = _words(
    """restaurant hotel museum gallery church school hospital airport station theatre theater
    university college clinic cafe pub apartments resort"""
)


_POSSESSIVE = ("'s", "’s")


def _runs_on(run: _Run, end: int, heads_only: bool = False) -> bool:
    """Whether the name that ends before token ``end`` goes on into a longer name: a capitalised
    word that is not a common word (``Grace Cathedral Choir``; unless ``heads_only``: a name in
    directory order may have three words, ``Ariela Ora Karasov``, but not before a venue word,
    ``Burma Ruby Burmese Cuisine``; or the name ends in a possessive: ``Aiko Tanaka's Osaka
    flight``), a venue, place or organisation word (``John Bentley's Restaurant``, ``Country Sharon
    Apartments``), or a lower-case institution noun (``Lynne Strover gallery``); a degree (``Psyd``)
    or a full stop ends the name."""
    if end >= len(run.tokens) or run.tokens[end - 1][0].endswith("."):
        return False
    after, after_folded = run.tokens[end][0], run.folded(end)
    if _lower(after):
        return after_folded in _INSTITUTIONS
    if not _capital(after) or _initial(after) or after_folded in _CREDENTIALS:
        return False
    if after_folded in _THING_HEADS:
        return True
    if heads_only:
        return _venue_ahead(run, end + 1)
    possessive = run.tokens[end - 1][0].endswith(_POSSESSIVE)
    return not possessive and not _common(after_folded)


def _venue_ahead(run: _Run, start: int) -> bool:
    """Whether the capitalised words from token ``start`` on (two at most, the run of a
    name's third word) end in a venue, place or organisation word: ``Burma Ruby Burmese
    Cuisine`` names a restaurant."""
    for index in range(start, min(start + 2, len(run.tokens))):
        if not _capital(run.tokens[index][0]):
            return False
        if run.folded(index) in _THING_HEADS:
            return True
        if run.tokens[index][0].endswith("."):
            return False
    return False


_DESCRIBERS = _words(
    """psychiatrist psychologist counselor counsellor therapist physician surgeon dentist
    doctor writer songwriter singer artist actor actress rapper composer musician pianist
    guitarist drummer producer comedian brother sister mother father mom mum dad son daughter
    wife husband grandma grandpa nephew niece"""
)
"""Capitalised words that describe the person named after them (in a title-cased phrase or
a heading): never the head of a longer name."""


def _inside_proper_name(run: _Run, i: int) -> bool:
    """Whether token ``i`` follows a capitalised word that is neither a common word nor the
    first of a sentence (``Arte Carrillo Gil``, ``Cinemix Par Chloe``): the tail of a longer
    name (a venue, a work), not a person's name."""
    prev, prev_folded = run.tokens[i - 1][0], run.folded(i - 1)
    if not _capital(prev) or _initial(prev) or prev.endswith(".") or _common(prev_folded):
        return False
    if prev_folded in _DESCRIBERS:
        return False  # "Psychiatrist Garcia Daniel", "Brother Eden Douglas"
    return not _starts_sentence(run.text, run.tokens[i - 1][1])


def _lower_pair(
    run: _Run, i: int, given: frozenset[str], family: frozenset[str]
) -> tuple[int, Match] | None:
    """Two lower-case known names, given then family (``jeffrey sayre``) or family then
    given when an initial ends it (``miller nicole g``)."""
    word = run.tokens[i + 1][0]
    first, second = run.folded(i), run.folded(i + 1)
    if not _lower(word) or _common(second) or len(second) < 3 or len(first) < 3:
        return None
    if first in given and second in family:
        return _emit(run, i, i + 2)
    if first in family and second in given and second not in _PLACE_NAMES:
        end = _past_lower_initial(run, i + 2)
        return _emit(run, i, end) if end > i + 2 else None
    return None


def _past_lower_initial(run: _Run, end: int) -> int:
    if end < len(run.tokens) and len(run.tokens[end][0]) == 1 and run.tokens[end][0].islower():
        return end + 1
    return end


def _emit(run: _Run, i: int, end: int) -> tuple[int, Match] | None:
    start, stop = run.tokens[i][1], run.tokens[end - 1][2]
    if run.text[stop - 1] == "." and not _initial(run.tokens[end - 1][0]):
        stop -= 1
    name = clean_person_name(run.text[start:stop])
    if name is None:
        return None
    return end, Match(start, stop, PersonValue(name))
