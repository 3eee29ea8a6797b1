"""Names that a text gives to things: a work, a place or a business called by a person's name.

A person's name also names films (``Gloria Bell``), restaurants (``Charlie Chan``) and boats
(``Riverboat Georgina``). The text says so where it introduces the name:

* after a work noun or a viewing verb: ``the movie Dr. Strangelove``, ``the album Anchor``,
  ``watch Gloria Bell``, ``rent Gloria Bell``;
* after a place or work noun and ``called``/``named``/``titled``: ``a restaurant called
  Cotto``, ``a place called Williams Art``, ``a film titled Shine`` (an *event* called by a
  performer's name still names the performer, so events are not among these nouns);
* after the article ``the``: ``the Charlie Chan``, ``the Riverboat Georgina`` (a person is
  not ``the`` person, a venue is), except a band after ``by`` (``by the Dead South``) and a
  maker before a work noun (``the Ben Platt album``).

Once a text uses a name so, every mention of that name in the same text is the thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
    + r"[ \t]+(?:called|named|titled)|\b(?:rent|renting)"
    r"|(?<![\w'’-])(?<!\bby[ \t])the)[ \t]+" + _TITLE_WORD + r"\Z"
)  # fmt: skip
_THE_BEFORE = re.compile(r"(?<![\w'’-])the[ \t]+\Z")
_CREDIT_AFTER = re.compile(
    r"[ \t]+(?:album|albums|song|songs|track|tracks|single|record|movie|movies|film|films"
    r"|show|concert|event|tour|fans?|band|account|checking|savings|family|case|file)\b"
)
"""``the Ben Platt album``, ``the Ana Ruiz account``: a person named as the maker or the
holder of something, not a thing called so."""


def things_named(text: str, low: str, names: Iterable[str]) -> frozenset[str]:
    """The ``names`` (lower-cased) that ``text`` (``low``: lower-cased, the same length)
    introduces as a thing (see the module docstring). After ``the``, the article must be
    written in lower case and the name capitalised (``The Chainsmokers``, ``the dead south``
    are bands)."""
    things = set()
    for name in set(names):
        pos = low.find(name)
        while pos >= 0:
            end = pos + len(name)
            whole = (pos == 0 or not low[pos - 1].isalnum()) and (
                end == len(low) or not low[end].isalnum()
            )
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
