"""Names that a text gives to things: a work, a place or a business called by a person's name.

A person's name also names films (``Gloria Bell``), restaurants (``Charlie Chan``) and boats
(``Riverboat Georgina``). The text says so where it introduces the name:

* after a work noun or a viewing or playing verb: ``the movie Dr. Strangelove``, ``the
  album Anchor``, ``watch Gloria Bell``, ``rent Gloria Bell``, ``play Din Don Dan``;
* after a place or work noun and ``called``/``named``/``titled``, or ``like``/``such as``
  before an instance of it: ``a restaurant called Cotto``, ``a place called Williams Art``,
  ``a film titled Shine``, ``a Chinese restaurant like Charlie Chan`` (an *event* called by
  a performer's name still names the performer, so events are not among these nouns);
* after the article ``the``: ``the Charlie Chan``, ``the Riverboat Georgina`` (a person is
  not ``the`` person, a venue is), except a band after ``by`` (``by the Dead South``) and a
  maker before a work noun (``the Ben Platt album``);
* in a list of three or more capitalised names, one of which reads as a title: it starts
  with the article ``A``/``An``, has a lower-case word or a colon inside (``A Madea Family
  Funeral, Auntie Mame, and Dr. Strangelove``; ``Dumbo, Hellboy, or Mad Max: Fury Road``),
  or two of which name neither a person nor a group (``Family, Gloria Bell, and Green
  Book``). Coordination joins like with like, so the names beside titles are titles too.

* after a venue noun and ``is``, the venue's name: ``the first available Chinese restaurant
  in the centre is Charlie Chan`` (not ``our contact at the hotel is Ana Ruiz``);

* before a price word said of it: ``Charlie Chan is amazing and cheap``;

* before its rating: ``Gloria Bell, with a rating of 6.7``, ``Dr. Strangelove which has an
  average rating of 8.4``, ``What about Gloria Bell? It has a 6.7 star rating`` (a work, a
  venue or a business is rated; a person is not, in what agents write).

Once a text uses a name so, every mention of that name in the same text is the thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from factdiff.extraction.recognizers.name_lists import family_names, given_names
from factdiff.values.names import _ORG_TOKENS, ROLES, _fold


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_THING_NOUNS = (
    r"(?:movie|film|show|series|song|album|track|single|book|novel|play|musical|restaurant"
    r"|hotel|attraction|place|venue|bar|pub|cafe|café|museum|gallery|theatre|theater|cinema"
    r"|location|property|apartment|building|church|shop|store|park|club|boat|spot|company"
    r"|business|brand|firm)s?"
)
_TITLE_WORD = r"(?:(?:dr|mr|mrs|ms|st|saint)\.?[ \t]+)?"
"""A title that the work's name may begin with (``the movie Dr. Strangelove``): a cue
before it finds the name after it."""
_THING_BEFORE = re.compile(
    r"(?:\b(?:the|a|an|this|that)[ \t]+" + _THING_NOUNS + r"|\b" + _THING_NOUNS
    + r"[ \t]+(?:called|named|titled|like|such[ \t]+as)|\b(?:rent|renting|play|playing)"
    r"|(?<![\w'’-])(?<!\bby[ \t])the)[ \t]+" + _TITLE_WORD + r"\Z"
)  # fmt: skip
_THE_BEFORE = re.compile(r"(?<![\w'’-])the[ \t]+\Z")
_CREDIT_AFTER = re.compile(
    r"[ \t]+(?:album|albums|song|songs|track|tracks|single|record|movie|movies|film|films"
    r"|show|concert|event|tour|fans?|band|account|checking|savings|family|case|file)\b"
)
"""``the Ben Platt album``, ``the Ana Ruiz account``: a person named as the maker or the
holder of something, not a thing called so."""


_RATED_AFTER = re.compile(
    r"(?::[ \t]+[\w'’]+(?:[ \t]+[\w'’]+){0,3}?)?"  # a subtitle: "Mad Max: Fury Road"
    r"[?.!,:]?[ \t]*(?:(?:it|which|that|its)(?:['’]s)?(?:[ \t]+(?:has|had|is|was))?|with|has)?"
    r"[ \t]*(?:a|an|the)?[ \t]*(?:[\w.]+[ \t]+){0,2}?(?:rating|rated)\b"
)
"""A rating right after a name (lower-cased text): the name is a work's, a venue's or a
business's."""


_PRICED_AFTER = re.compile(
    r"[ \t]*(?:is|was)[ \t]+(?:[a-z]+[ \t]+){0,3}?(?:cheap|expensive|pricey|affordable"
    r"|inexpensive|(?:moderately|reasonably)[ \t]+priced)\b"
)
"""A price word said of a name (lower-cased text): ``Charlie Chan is amazing and cheap`` is
a venue; a person is not cheap, in what agents write."""


_MEMBER = (
    r"[A-ZÀ-Þ][\w'’.-]*:?"
    r"(?:[ \t]+(?:[A-ZÀ-Þ][\w'’.-]*:?|the|a|an|is|de|di|da|del|la|le|van|von))*"
)
_SEPARATOR = re.compile(r",[ \t]+(?:(?:and|or)[ \t]+)?|[ \t]+(?:and|or)[ \t]+")
_LIST = re.compile(rf"(?<![\w'’.-]){_MEMBER}(?:(?:{_SEPARATOR.pattern}){_MEMBER}){{2,}}(?![\w'’-])")
"""Three or more capitalised names joined by commas, ``and`` or ``or``."""
_TITLE_SHAPE = re.compile(
    r"(?:\A|[ \t])(?:A|An)[ \t]+[A-ZÀ-Þ]\S*[ \t]+[A-ZÀ-Þ]|[ \t](?:the|a|an|is)[ \t]"
)
"""A list member written as a work's title: the article ``A``/``An`` before two more words
(``A Madea Family Funeral``, also after the words that open the list: ``There's A Madea
Family Funeral``; ``A Smith`` is an initial), or an article or ``is`` inside
(``A Star is Born``). A colon inside a member after the first also makes one (``Mad Max:
Fury Road``); in the first, it may end a label (``Present: Ana Ruiz``)."""
_BEFORE_NAME = re.compile(r"(?:(?:dr|mr|mrs|ms|miss|prof|auntie|aunt|uncle)\.?[ \t]+)*")
"""What may stand before a name in a list member that is the name (``Dr. Strangelove``)."""
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")


_GROUP_WORDS = _words(
    """team teams department dept division unit group committee board staff crew office desk
    support sales billing marketing legal finance accounting engineering operations ops hr it
    procurement security facilities management leadership compliance payroll logistics
    shipping warehouse product design research qa admin administration"""
)
"""Words naming a group of people: a group is listed beside people (``Ana Ruiz, Marketing and
Legal``), so it says nothing about the list's kind."""


def _unnamed_thing(member: str, names: Iterable[str]) -> bool:
    """Whether a list member names neither a person nor a group: it holds no person's name,
    no group, organisation or role word, no known given name, and a word that is no known
    family name either (``Family``, ``Green Book``, ``Ramen Shop``; not ``Mei Chen``)."""
    low = member.lower()
    if any(name in low for name in names):
        return False
    words = [_fold(word) for word in _WORD.findall(member)]
    given, family = given_names(), family_names()
    return (
        bool(words)
        and not any(
            word in _GROUP_WORDS or word in _ORG_TOKENS or word in ROLES or word in given
            for word in words
        )
        and any(word not in family for word in words)
    )


def _listed_with_titles(text: str, names: Iterable[str]) -> set[str]:
    """The ``names`` (lower-cased) that ``text`` lists beside a title (see the module
    docstring): a whole member (after a title such as ``Dr.``) or a part of a member written
    as a title."""
    found: set[str] = set()
    for listed in _LIST.finditer(text):
        members = _SEPARATOR.split(listed.group())
        titled = [
            _TITLE_SHAPE.search(member) is not None or (i > 0 and ":" in member)
            for i, member in enumerate(members)
        ]
        if not any(titled) and sum(_unnamed_thing(member, names) for member in members) < 2:
            continue
        for member, title in zip(members, titled, strict=True):
            low = member.lower().rstrip(".")
            for name in names:
                at = low.find(name)
                if at < 0 or (at > 0 and low[at - 1].isalnum()):
                    continue
                whole = at + len(name) == len(low) and _BEFORE_NAME.fullmatch(low, 0, at)
                if title or whole:
                    found.add(name)
    return found


_VENUE_IS = re.compile(
    r"(?<![\w'’-])(?P<det>the|a|an|this|that|one|my|our|your)[ \t]+"
    r"(?:(?!(?:at|of|from|with|for|in|to|by|about|the|a|an)[ \t])[\w-]+[ \t]+){0,3}?"
    r"(?:restaurant|hotel|guesthouse|guest[ \t]+house|attraction|museum|bar|pub|cafe|café"
    r"|cinema|theatre|theater|gallery|college|venue)"
    r"(?:[ \t]+(?:in|near|on|around|closest|nearest|nearby|available|that|which|i|you|we)"
    r"\b[^.?!\n,;:]{0,40}?)?[ \t]+(?:is|was)[ \t]+\Z"
)
_PREPOSITION_BEFORE = re.compile(r"\b(?:at|of|from|with|for|in|to|by|about)[ \t]+\Z")


def _venue_is(low: str, pos: int) -> bool:
    """Whether the name at ``pos`` is what a venue noun is (``the first available Chinese
    restaurant in the centre is Charlie Chan``); not when the venue is a preposition's
    object (``our contact at the hotel is Ana Ruiz``)."""
    found = _VENUE_IS.search(low, max(0, pos - 90), pos)
    return found is not None and not _PREPOSITION_BEFORE.search(
        low, max(0, found.start() - 12), found.start()
    )


def things_named(text: str, low: str, names: Iterable[str]) -> frozenset[str]:
    """The ``names`` (lower-cased) that ``text`` (``low``: lower-cased, the same length)
    introduces as a thing (see the module docstring). After ``the``, the article must be
    written in lower case and the name capitalised (``The Chainsmokers``, ``the dead south``
    are bands)."""
    names = set(names)
    things = _listed_with_titles(text, names) if "," in text else set()
    for name in names - things:
        pos = low.find(name)
        while pos >= 0:
            end = pos + len(name)
            whole = (pos == 0 or not low[pos - 1].isalnum()) and (
                end == len(low) or not low[end].isalnum()
            )
            if whole and (
                _RATED_AFTER.match(low, end) or _PRICED_AFTER.match(low, end) or _venue_is(low, pos)
            ):
                things.add(name)
                break
            before = _THING_BEFORE.search(low, max(0, pos - 40), pos) if whole else None
            if before is not None and not (
                _THE_BEFORE.search(before.group())
                and (
                    _CREDIT_AFTER.match(low, end)
                    or not text[pos].isupper()
                    or not text.startswith("the", before.start())
                )
            ):
                things.add(name)
                break
            pos = low.find(name, pos + 1)
    return frozenset(things)
