"""People named by what happens to them: recipients, relatives, credits and messages.

Four cue families, each a general English construction, found with one regex each:

* *recipients*: ``the checking account of Philip``, ``make the transfer to Jasbir``,
  ``thirty dollars to Diego``, ``the recipient is Uncle Richard``,
  ``sending Yumi $1,200``, ``transfer 1,790 bucks to mom``;
* *relatives and friends*: ``uncle Richard``, ``my friend Yumi``; a kinship word alone is the
  person where money is sent (``to my Mom``, ``the account of Dad``);
* *credits*: ``directed by Morton DaCosta``, ``starring Missi Pyle``, ``stars Carson Daly``,
  ``a song by Halsey``, ``the album Prequelle by Ghost``, ``The director is Elaine May``,
  ``a movie with Missi Pyle``, ``with Chuck Waters in it``, ``has Buddy Guy in it`` (a
  number before ``star`` rates a hotel: ``a great 4 star is Hilton Philadelphia``);
* *messages*: ``let Ana know``, ``tell Grace``, ``ask Omar``.

Where the cue is weak (a recipient without an amount, a message verb) the name must hold a
known given or family name of the gazetteer, so ``go to Denver`` and ``call Uber`` name no
one; after a strong cue (an account holder, a credit, ``let ... know``) any capitalised name
that is not a common, place or organisation word counts. A lower-case name counts only when
its first word is a known name (``directed by harry elfont``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from factdiff.extraction.recognizers.base import CueRuns, Match, lowered, vocabulary
from factdiff.extraction.recognizers.gazetteer import _PLACE_NAMES, _PLACE_STARTS
from factdiff.extraction.recognizers.name_lists import given_names, known_names
from factdiff.extraction.recognizers.name_scan import (
    GAP,
    NameSpan,
    common,
    scan_lower_name,
    scan_name,
)
from factdiff.extraction.wordfind import matches_starting_with
from factdiff.extraction.wordtrie import trie_alternation
from factdiff.values.names import _STOP, PersonValue, _fold, clean_person_name


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_KIN = _words(
    """mom mum mommy mother dad daddy father grandma grandpa grandmother grandfather granny
    brother sister son daughter wife husband uncle aunt auntie cousin nephew niece fiance
    fiancee"""
)
_FRIENDS = _words("friend roommate flatmate neighbor neighbour boyfriend girlfriend partner")
_SENDING = _words(
    """transfer transfers transferred transferring send sends sent sending pay pays paid
    paying payment wire wired give gives gave giving owe owes owed lend lent"""
)
_MONEY_OBJECT = re.compile(r"(?i)[$€£¥₹0-9]|\b(?:money|it|them|funds|cash|bucks|dollars)\b")
"""What is sent is money (``send it to``, ``transfer 270 bucks to``): a strong cue."""
_TRANSFERS = frozenset({"transfer", "transfers", "transferred", "transferring", "payment"})
_POSSESSORS = _words("my your his her their our")
_CREDIT_VERBS = _words(
    "directed written produced sung performed composed narrated created hosted presented"
)
_WORKS = _words("song songs album albums track tracks single music movie movies film films")
_CREDITED = _words("actor actress director artist singer star")
_PERFORMERS = _words("artist singer band rapper songwriter composer")
_MESSAGE_VERBS = _words(
    """tell tells told telling ask asks asked asking remind reminded notify notified inform
    informed email emailed text texted call called phone phoned message messaged"""
)

_OPT_POSSESSOR = r"(?:[ \t]+(?:" + trie_alternation(_POSSESSORS) + r"))?"
_CUES = re.compile(
    r"(?i)\b(?:"
    r"(?P<holder>(?:account|checking|savings)[ \t]+(?:of|belonging[ \t]+to|for)"
    r"|(?:recipient|payee|beneficiary)(?:[ \t]+(?:is|was|will[ \t]+be))?"
    r"|(?:dollars|bucks|euros|pounds|\$[0-9][0-9,.]*)[ \t]+to)" + _OPT_POSSESSOR + "|"
    r"(?P<send>" + trie_alternation(_SENDING) + r")"
    r"(?P<what>(?:[ \t]+[\w$€£.,]+){0,5}?)[ \t]+to" + _OPT_POSSESSOR + "|"
    r"(?P<pay>send|sending|sent|pay|paying|paid|give|giving|gave|owe|owes)(?=[ \t]+[^\W\d_])|"
    r"(?P<kin>" + trie_alternation(_KIN + _FRIENDS) + r")|"
    r"(?P<credit>" + trie_alternation(_CREDIT_VERBS) + r")[ \t]+by|"
    r"(?P<work>" + trie_alternation(_WORKS) + r")\b[^.?!\n]{0,60}?[ \t]by|"
    r"(?P<screen>movie|movies|film|films|show|shows)\b[^.?!\n]{0,30}?[ \t]with|"
    r"(?P<title>by)|"
    r"(?P<starring>starring(?:[ \t]+with)?|stars|the[ \t]+(?:"
    + trie_alternation(_PERFORMERS)
    + r"))|"
    r"(?<!\d[ \t])(?<!\d-)(?P<credited>" + trie_alternation(_CREDITED) + r")"
    r"(?:[ \t]+of[ \t]+the[ \t]+(?:movie|film|show|song))?[ \t]+(?:is|was)|"
    r"(?P<cast>with|has|have)|"
    r"(?P<message>" + trie_alternation(_MESSAGE_VERBS) + r")"
    r")(?=[ \t])"
)
_CUES_LOWER = re.compile(_CUES.pattern.removeprefix("(?i)"))
_CUE_WORDS = (*_KIN, *_FRIENDS, *_SENDING, *_CREDIT_VERBS, *_WORKS, *_CREDITED, *_MESSAGE_VERBS)
_CUE_RUNS = CueRuns(
    (
        *_CUE_WORDS, *_PERFORMERS, "account", "checking", "savings", "recipient", "payee",
        "beneficiary", "dollars", "bucks", "euros", "pounds", "to", "starring", "stars", "with",
        "has", "have", "by",
    )
)  # fmt: skip
_AMOUNT_AFTER = re.compile(r"[ \t]+(?:[$€£¥₹]|\d)")
_IN_IT = re.compile(r"(?i)[ \t]+in[ \t]+(?:it|the[ \t]+(?:movie|film|cast|lead|show))\b")
_LET_KNOW = re.compile(
    r"\b[Ll]et[ \t]+(?P<name>[^\W\d_][\w'’.-]*(?:[ \t]+[^\W\d_][\w'’.-]*){0,3}?)\.?[ \t]+know\b"
)
"""``let Elaine May know``, ``let Laure de Clermont-Tonnerre know``, ``let julia meade know``:
whoever is told, a person or a group, whatever its words after the first (see ``_told``)."""
_KIN_FOLDED = frozenset(_KIN)
_THE_BAND = re.compile(r"[ \t]+[Tt]he(?=[ \t]+[A-Z])")
_NOUN_AFTER = re.compile(r"[ \t]+(?!(?:in|and|as|to|for|please|or|the|on|at)\b)[a-z]")
_INSTRUMENT_AFTER = re.compile(r"(?i)[ \t]+(?:(?:credit|debit|gift)[ \t]+)?(?:card|wallet)s?\b")
"""A payment instrument after a name (``your Visa card``, ``a Google wallet``)."""
_PASSIVE_AFTER = re.compile(r"(?i)[ \t]+by\b")
_NOT_PEOPLE = frozenset(
    _words(
        """anything something someone somebody anyone anybody everyone everybody everything
        nothing nobody none one else this that it which who"""
    )
)
_KINDS = (
    "holder", "send", "pay", "kin", "credit", "work", "screen", "title", "starring",
    "credited", "cast", "message",
)  # fmt: skip


def _known(span: NameSpan) -> bool:
    """Whether a name holds a known given or family name (and is not a place name alone)."""
    known = known_names()
    folded = [_fold(token) for token in span.tokens]
    if len(folded) == 1 and folded[0] in _PLACE_NAMES:
        return False
    return any(word in known for word in folded)


def _kin_alone(text: str, pos: int) -> NameSpan | None:
    """A kinship word standing for the person (``to my Mom``), or the name after it (``to my
    son Justin``)."""
    gap = GAP.match(text, pos)
    start = gap.end() if gap else pos
    word = re.match(r"[^\W\d_]+\b", text[start : start + 16])
    if word is None or _fold(word.group()) not in _KIN_FOLDED:
        return None
    named = scan_name(text, start + word.end(), max_tokens=3)
    if named is not None and not any(common(token) for token in named.tokens):
        return named
    return NameSpan(start, start + word.end(), (word.group(),))


def _name(text: str, pos: int, strong: bool) -> NameSpan | None:
    """The name at ``pos``: capitalised (any, after a strong cue; known, after a weak one),
    else, after a strong cue, lower-case with a known first word."""
    span = scan_name(text, pos)
    if span is not None:
        if any(common(token) for token in span.tokens) or _fold(span.tokens[0]) in _PLACE_STARTS:
            return None
        return span if strong or _known(span) else None
    return scan_lower_name(text, pos, known_names()) if strong else None


_BEFORE_KIN = re.compile(r"(?i)\b(?:my|your|his|her|their|our|to|of|for|and)[ \t]+\Z")


def _kin_name(text: str, cue: re.Match[str]) -> NameSpan | None:
    """The name after ``uncle``/``my friend``: a capitalised kinship word counts only after a
    possessive or a preposition (``to Uncle Richard``; ``Auntie Mame`` is a title)."""
    if text[cue.start()].isupper() and not _BEFORE_KIN.search(
        text, max(0, cue.start() - 8), cue.start()
    ):
        return None
    span = scan_name(text, cue.end(), max_tokens=3)
    if span is None or any(common(token) for token in span.tokens):
        return None
    return span


_TITLE_WORD = re.compile(r"([^\W\d_][^\W\d_'’]*)[ \t]+\Z")
_CLAUSE_START = re.compile(r"(?:\A|[.!?:;\n\"“(,]|\b(?:user|system|assistant|agent):)[ \t]*\Z")


def _after_title(text: str, by: int) -> bool:
    """Whether ``by`` follows a title (``Lotus Flower by Radiohead``): a capitalised word
    that neither starts a clause (``Pay by card``) nor is a common word."""
    word = _TITLE_WORD.search(text, max(0, by - 40), by)
    if word is None or not word.group(1)[0].isupper() or common(word.group(1)):
        return False
    return _CLAUSE_START.search(text, max(0, word.start() - 12), word.start()) is None


_FIRST_WORDS = frozenset(
    re.split(r"[^a-z]", word)[0]
    for word in (
        *_CUE_WORDS, *_PERFORMERS, *_POSSESSORS, "account", "checking", "savings", "recipient",
        "payee", "beneficiary", "dollars", "bucks", "euros", "pounds", "movie", "movies", "film",
        "films", "show", "shows", "by", "starring", "stars", "the", "with", "has", "have",
    )
)  # fmt: skip
"""The first letters-only word of every cue (``_CUES`` begins each alternative with one, or
with an amount's ``$``)."""


def _cue_matches(text: str) -> Iterator[re.Match[str]]:
    """``_CUES`` matches in ``text``: on an ASCII text, the lower-cased pattern tried only
    where a cue's first word (or a ``$``) starts, the same matches as a scan of every
    position (``matches_at``); other texts are scanned with case folding."""
    if not text.isascii():
        return _CUES.finditer(text)
    if not _CUE_RUNS.may_occur_in(text):
        return iter(())
    low = lowered(text)
    firsts = vocabulary(text) & _FIRST_WORDS
    return matches_starting_with(_CUES_LOWER, low, firsts | ({"$"} & set(text)))


def find_cued_people(text: str) -> Iterator[Match]:
    """Person names announced by one of the cue families (see the module docstring)."""
    spans = [_after_cue(text, cue) for cue in _cue_matches(text)]
    spans.extend(
        _before_cue(text, cue.start())
        for cue in _TRAILING.finditer(text)
        if not _PASSIVE_AFTER.match(text, cue.end())  # "Something directed by ..."
    )
    spans.extend(_told(match) for match in _LET_KNOW.finditer(text))
    seen: set[tuple[int, int]] = set()
    for span in spans:
        if span is not None and (span.start, span.end) not in seen:
            seen.add((span.start, span.end))
            name = clean_person_name(" ".join(span.tokens))
            if name is not None:
                yield Match(span.start, span.end, PersonValue(name))


_TRAILING = re.compile(
    r"(?i)[ \t]+(?:directed|(?:stars|starred|acted|acts|appears|appeared)[ \t]+in"
    r"|is[ \t]+(?:acting|starring)"
    r"|is[ \t]+(?:the|one[ \t]+of[ \t]+the)[ \t]+(?:main[ \t]+|lead[ \t]+|leading[ \t]+)?"
    r"(?:director|actor|actress|star|stars|hero|heroine|cast|lead)"
    r"|is[ \t]+in[ \t]+(?:that|the|this)[ \t]+(?:movie|film)|stars(?=[ \t]*[.,!?]))\b"
    r"|[ \t]?['’]s[ \t]+(?:checking[ \t]+|savings[ \t]+|bank[ \t]+)?account\b"
)
"""What follows a person: a credit (``Megumi Han acted in it``, ``Morton DaCosta is the
director``) or an account holder (``Grace 's checking account``)."""
_WORDS_BEFORE = re.compile(r"(?:[^\W\d_][\w'’.-]*[ \t]+){0,3}[^\W\d_][\w'’.-]*\Z")


def _told(match: re.Match[str]) -> NameSpan | None:
    """The name in ``let ... know``: its first word is capitalised and not a common word
    (``let Me know``, ``let The team know``), or a known given name (``let julia meade
    know``)."""
    tokens = tuple(match.group("name").split())
    first = tokens[0]
    if _fold(first) in _STOP or common(first):
        return None
    if not first[0].isupper() and _fold(first) not in given_names():
        return None
    return NameSpan(match.start("name"), match.end("name"), tokens)


def _before_cue(text: str, pos: int) -> NameSpan | None:
    """The name that ends at ``pos``: the longest run of capitalised name words (at most
    four), or of lower-case words whose first is a known name."""
    words = _WORDS_BEFORE.search(text, max(0, pos - 80), pos)
    if words is None:
        return None
    tokens: list[tuple[str, int]] = []
    cursor = words.start()
    for word in words.group().split():
        start = text.index(word, cursor)
        cursor = start + len(word)
        tokens.append((word, start))
    lower = tokens[-1][0].islower()
    keep: list[tuple[str, int]] = []
    for word, start in reversed(tokens):
        if common(word) or word.endswith(".") or word.islower() != lower:
            break
        if not lower and not word[0].isupper():
            break
        keep.insert(0, (word, start))
    while keep and _fold(keep[0][0]) in _NOT_PEOPLE:
        keep.pop(0)
    if not keep or _fold(keep[0][0]) in _PLACE_STARTS or _fold(keep[-1][0]) in _NOT_PEOPLE:
        return None
    span = NameSpan(keep[0][1], pos, tuple(word for word, _ in keep))
    if lower and (len(keep) < 2 or not _known(span)):
        return None
    return span


def _after_cue(text: str, cue: re.Match[str]) -> NameSpan | None:
    end = cue.end()
    kind = next(name for name in _KINDS if cue.group(name) is not None)
    if kind in ("holder", "send"):
        strong = kind == "holder" or bool(
            _MONEY_OBJECT.search(cue.group("what") or "")
            or _fold(cue.group("send") or "") in _TRANSFERS
        )
        span = _name(text, end, strong=strong) or _kin_alone(text, end)
        if span is not None and _INSTRUMENT_AFTER.match(text, span.end):
            return None  # "to your Visa card": a payment instrument's brand, not a payee
        if span is None and kind == "send":  # "send Yumi 80 bucks to their account"
            span = _name(text, cue.end("send"), strong=True)
            return span if span is not None and _AMOUNT_AFTER.match(text, span.end) else None
        return span
    if kind == "pay":
        span = _name(text, end, strong=True)
        if span is not None and span.tokens[0][0].isupper():
            return span if _AMOUNT_AFTER.match(text, span.end) else None
        return None
    if kind == "kin":
        return _kin_name(text, cue)
    if kind == "screen":  # "a movie with Missi Pyle", not "with Mandarin subtitles"
        span = _name(text, end, strong=True)
        return span if span is not None and not _NOUN_AFTER.match(text, span.end) else None
    if kind in ("credit", "work", "title"):
        if kind == "title" and not _after_title(text, cue.start()):
            return None
        if text[end - 2] == "B" and not _CLAUSE_START.search(text, max(0, end - 14), end - 2):
            return None  # "Courtyard By Marriott": a capitalised "By" is inside a name
        band = _THE_BAND.match(text, end)  # "by the Dead South", "by The Chainsmokers"
        return _name(text, band.end() if band else end, strong=True)
    if kind in ("starring", "credited"):
        if _inside_title(text, cue.start()):
            return None  # "A Star is Born Soundtrack", "the album Stars Dance"
        return _name(text, end, strong=True)
    if kind == "cast":
        span = _name(text, end, strong=True)
        return span if span is not None and _IN_IT.match(text, span.end) else None
    if _fold(cue.group("message")) in _NAMING and not _SUBJECT_BEFORE.search(
        text, max(0, cue.start() - 12), cue.start()
    ):
        return None  # "a hotel called Hilton ...": a thing's name, not a message
    return _name(text, end, strong=False)


_THE_BEFORE = re.compile(r"(?i)(?<![\w'’-])the[ \t]+\Z")


def _inside_title(text: str, start: int) -> bool:
    """Whether a credit word written with a capital (``Star``, ``Stars``) is a word of a
    title: it opens no clause, not even after ``The`` (``The Star is Tom Hanks``)."""
    if not text[start].isupper():
        return False
    the = _THE_BEFORE.search(text, max(0, start - 8), start)
    at = the.start() if the else start
    return _CLAUSE_START.search(text, max(0, at - 14), at) is None


_NAMING = frozenset({"called"})
_SUBJECT_BEFORE = re.compile(
    r"(?i)(?:\A|[.!?;\n]|\b(?:i|you|he|she|we|they|who|have|has|had|just|already|also|never"
    r"|then|and|i've|we've|they've))[ \t]*\Z"
)
"""``called`` is a message only after its subject (``I called Ana``, ``she has called
Omar``) or opening a sentence (``Called Ana``); after anything else it names (``a hotel
called Hilton``, ``It's called Shine``, ``an event called Allan Rayman``)."""
