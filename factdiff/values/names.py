"""People and organisations: values, recognizers and parsers.

Person names compare by a key of folded tokens (casefold, diacritics and periods removed)
after titles and roles are stripped and ``Last, First`` is reordered: ``Marcus Chen``,
``CTO Marcus Chen``, ``Chen, Marcus``, ``Mr. Marcus Chen`` and ``marcus chen`` are one key.
``same_as`` also accepts a shorter form of the same name that keeps the surname (``Chen``,
``Mr. Chen``, ``Marcus J. Chen``, ``M. Chen`` for ``Marcus Chen``) but never a different
first name or surname (``Marcus Lee``, ``Mark Chen``): there is no fuzzy matching.

Organisations compare casefolded with punctuation normalised, a leading ``the`` and trailing
legal suffixes (:data:`LEGAL_SUFFIXES`) removed: ``Acme Corp``, ``Acme Corporation``,
``ACME Corp.`` and ``Acme`` are one key.

Both recognizers put precision first: a person needs a clear cue (title, role, "my name
is", "spoke with", ...); an organisation needs a legal suffix or an organisation cue.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import (
    EXACT,
    JSON,
    ExtractionContext,
    FactType,
    Match,
    Tolerance,
    Value,
    leftmost_longest,
    register_decoder,
)

__all__ = [
    "HONORIFICS",
    "LEGAL_SUFFIXES",
    "ROLES",
    "OrganizationRecognizer",
    "OrganizationValue",
    "PersonRecognizer",
    "PersonValue",
    "organization_key",
    "parse_organization",
    "parse_person",
    "person_key",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


HONORIFICS: frozenset[str] = _words(
    "mr mrs ms miss mx dr prof professor sir dame lord lady rev reverend fr hon judge "
    "capt captain col colonel gen general lt sgt officer detective det"
)
"""Titles stripped from person names (folded, without the period)."""

ROLES: frozenset[str] = _words(
    "ceo cto cfo coo cio cmo cpo cso cro vp svp evp avp gm md president chairman chairwoman "
    "chair director manager head founder cofounder co-founder owner partner principal "
    "supervisor agent rep representative engineer lead coordinator analyst consultant "
    "attorney lawyer counsel nurse doctor physician dentist technician specialist "
    "administrator admin secretary treasurer executive officer associate intern "
    "recruiter advisor adviser accountant architect designer developer"
)
"""Roles stripped from person names when they lead or trail it (``CTO Marcus Chen``)."""

_MULTIWORD_ROLES = ("vice president", "general manager", "account manager", "sales rep")
_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md", "esq"})

LEGAL_SUFFIXES: frozenset[str] = _words(
    "corp corporation inc incorporated llc llp lp ltd limited co company gmbh plc sa ag "
    "nv bv pty srl spa sarl kk oy ab as"
)
"""Legal-form words dropped from organisation keys (folded, periods removed)."""

_ORG_HEADS = _words(
    "group holdings technologies technology industries enterprises associates solutions "
    "partners labs systems ventures capital bank"
)

_MONTHS_DAYS = _words(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday "
    "saturday sunday mon tue tues wed thu thur thurs fri sat sun"
)
_STOP = _MONTHS_DAYS | _words(
    "today tomorrow yesterday tonight morning afternoon evening noon midnight i you he she we "
    "they it me him her us them my your his our their the a an this that these those here "
    "there not so very just also sorry looking interested glad happy fine good great okay ok "
    "sure yes no yeah hi hello hey thanks thank please calling trying going from in at on "
    "with for to and or but if of by customer service support team department sales billing "
    "help desk office center centre assistant user none null true false unknown new all any "
    "what who when where why how which street st road rd avenue ave drive boulevard blvd "
    "lane ln suite apt way place court square parkway highway hotel restaurant house college "
    "museum church school hospital airport station centre park theatre theater university "
    "god christmas easter english spanish french chinese german american british "
    "will can could would should may might must shall do does did done have has had be is "
    "are was were am being been get got let well still"
)
_PLACE_TOKENS = _words(
    "street st road rd avenue ave drive boulevard blvd lane ln suite way place court square "
    "parkway highway hotel restaurant house college museum church school hospital airport "
    "station centre center park theatre theater university hostel inn lodge gallery bridge "
    "market cafe bar pub shop store mall plaza hall club stadium arena clinic dental medical "
    "healthcare salon airline airlines"
)
_ORG_TOKENS = LEGAL_SUFFIXES | _ORG_HEADS | frozenset({"university", "bank", "hotel"})


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _fold(token: str) -> str:
    """Casefolded token without diacritics and periods."""
    return _strip_marks(token).casefold().replace(".", "").replace("’", "'")


_PAREN = re.compile(r"\([^()]*\)")
_POSSESSIVE = re.compile(r"['’]s\Z")
_EDGE_PUNCT = " \t\r\n\"'“”‘’`,;:!?()[]{}<>*_-"
_WS = re.compile(r"\s+")


def _is_role(tokens: list[str], i: int) -> int:
    """Number of tokens starting at ``i`` that form a title or role (0 if none)."""
    pair = " ".join(_fold(t) for t in tokens[i : i + 2])
    if pair in _MULTIWORD_ROLES:
        return 2
    folded = _fold(tokens[i])
    return 1 if folded in HONORIFICS or folded in ROLES else 0


def _strip_roles(tokens: list[str]) -> list[str]:
    while tokens and (n := _is_role(tokens, 0)):
        tokens = tokens[n:]
    while tokens and _is_role(tokens, len(tokens) - 1):
        tokens = tokens[:-1]
    return tokens


def _reorder_commas(text: str) -> str:
    """``Chen, Marcus`` -> ``Marcus Chen``; ``Marcus Chen, CTO`` -> ``Marcus Chen``."""
    parts = [p.strip() for p in text.split(",")]
    kept = [p for p in parts if _strip_roles(p.split())]
    suffixes = [p for p in kept[1:] if _fold(p) in _NAME_SUFFIXES]
    names = [p for p in kept if p not in suffixes]
    if len(names) == 2:
        names = [names[1], names[0]]
    return " ".join(names + suffixes)


def clean_person_name(text: str) -> str | None:
    """Display form of a person name, or None when nothing name-like remains."""
    cleaned = _WS.sub(" ", _PAREN.sub(" ", unicodedata.normalize("NFKC", text)))
    cleaned = _POSSESSIVE.sub("", cleaned.strip(_EDGE_PUNCT)).strip(_EDGE_PUNCT)
    if "," in cleaned:
        cleaned = _reorder_commas(cleaned)
    tokens = _strip_roles(cleaned.split())
    tokens = [t.strip(",;:") for t in tokens if t.strip(",;:")]
    if not tokens or not any(c.isalpha() for t in tokens for c in t):
        return None
    if all(t.islower() for t in tokens if any(c.isalpha() for c in t)) or all(
        t.isupper() for t in tokens if len(t.rstrip(".")) > 1
    ):
        tokens = [_title(t) for t in tokens]
    return " ".join(tokens)


def _title(token: str) -> str:
    return token if len(token.rstrip(".")) <= 1 else token.title()


def person_key(name: str) -> tuple[str, ...]:
    """Folded tokens of a cleaned name: the identity of a person value."""
    return tuple(f for f in (_fold(t).strip("'-") for t in name.split()) if f)


def _surname_index(tokens: tuple[str, ...]) -> int:
    i = len(tokens) - 1
    while i > 0 and tokens[i] in _NAME_SUFFIXES:
        i -= 1
    return i


def _token_matches(a: str, b: str) -> bool:
    return a == b or (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


def _is_shorter_form(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """``short`` is an in-order subset of ``long`` (initials allowed) keeping the surname."""
    s_last, l_last = short[_surname_index(short)], long[_surname_index(long)]
    if s_last != l_last or len(s_last) < 2:
        return False
    j = 0
    for token in short:
        while j < len(long) and not _token_matches(token, long[j]):
            j += 1
        if j == len(long):
            return False
        j += 1
    return True


@dataclass(frozen=True)
class PersonValue(Value):
    """A person, by cleaned display name (``Marcus Chen``)."""

    type: ClassVar[FactType] = FactType.PERSON
    name: str

    def canonical(self) -> JSON:
        """The cleaned display name."""
        return self.name

    def key(self) -> object:
        """Folded name tokens in First ... Last order."""
        return person_key(self.name)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Equal keys, or one name is a shorter form of the other keeping the surname."""
        if not isinstance(other, PersonValue):
            return False
        mine, theirs = person_key(self.name), person_key(other.name)
        if not mine or not theirs:
            return mine == theirs
        if mine == theirs:
            return True
        short, long = sorted((mine, theirs), key=len)
        return _is_shorter_form(short, long)

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "name": self.name}


def clean_organization_name(text: str) -> str | None:
    """Display form of an organisation name, or None when empty."""
    cleaned = _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip(" \t\"'“”‘’`,;:!?()[]{}<>")
    cleaned = _POSSESSIVE.sub("", cleaned).strip()
    return cleaned if any(c.isalnum() for c in cleaned) else None


_ORG_PUNCT = re.compile(r"[^\w\s]")


def organization_key(name: str) -> tuple[str, ...]:
    """Folded tokens without a leading ``the``, punctuation and trailing legal suffixes."""
    folded = _strip_marks(unicodedata.normalize("NFKC", name)).casefold()
    folded = folded.replace("&", " and ").replace(".", "").replace("'", "").replace("’", "")
    tokens = _ORG_PUNCT.sub(" ", folded).split()
    if len(tokens) > 1 and tokens[0] == "the":
        tokens = tokens[1:]
    stripped = list(tokens)
    while len(stripped) > 1 and stripped[-1] in LEGAL_SUFFIXES:
        stripped.pop()
    return tuple(stripped)


@dataclass(frozen=True)
class OrganizationValue(Value):
    """An organisation, by cleaned display name (``Acme Corp``)."""

    type: ClassVar[FactType] = FactType.ORGANIZATION
    name: str

    def canonical(self) -> JSON:
        """The cleaned display name."""
        return self.name

    def key(self) -> object:
        """See :func:`organization_key`."""
        return organization_key(self.name)

    def to_json(self) -> dict[str, JSON]:
        """Tagged JSON form."""
        return {"type": self.type.value, "name": self.name}


@register_decoder(FactType.PERSON.value)
def _decode_person(data: dict[str, JSON]) -> Value:
    return PersonValue(str(data["name"]))


@register_decoder(FactType.ORGANIZATION.value)
def _decode_organization(data: dict[str, JSON]) -> Value:
    return OrganizationValue(str(data["name"]))


def parse_person(text: str, context: ExtractionContext) -> PersonValue | None:
    """Parse one whole person name (any non-empty name after cleaning)."""
    name = clean_person_name(text)
    return PersonValue(name) if name is not None else None


def parse_organization(text: str, context: ExtractionContext) -> OrganizationValue | None:
    """Parse one whole organisation name (any non-empty name after cleaning)."""
    name = clean_organization_name(text)
    return OrganizationValue(name) if name is not None else None


# --------------------------------------------------------------------------- scanning

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*\.?")
_GAP = re.compile(r"[ \t]{1,2}")
_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "del", "di", "la", "le", "bin"})


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    tokens: tuple[str, ...]


def _capitalised(word: str) -> bool:
    core = word.rstrip(".")
    if not core or not core[0].isupper():
        return False
    return len(core) == 1 or not core.isupper()


def _scan_name(text: str, pos: int, max_tokens: int = 4) -> _Span | None:
    """Capitalised name tokens starting at ``pos`` (after optional spaces), or None."""
    gap = _GAP.match(text, pos)
    pos = gap.end() if gap else pos
    start = pos
    tokens: list[tuple[str, int]] = []
    while len(tokens) < max_tokens:
        m = _WORD.match(text, pos)
        if m is None:
            break
        word = m.group()
        if tokens and _fold(word) in _PARTICLES:
            tokens.append((word, m.end()))
        elif not _capitalised(word):
            if _fold(word) in _PLACE_TOKENS | _ORG_TOKENS:
                return None
            break
        elif _fold(word) in _ORG_TOKENS:
            return None
        elif len(word) == 2 and word.endswith("."):
            tokens.append((word, m.end()))
        elif _fold(word) in _PLACE_TOKENS:
            return None
        elif _fold(word) in _STOP or _fold(word) in HONORIFICS or _fold(word) in ROLES:
            break
        elif word.endswith("."):
            tokens.append((word[:-1], m.end() - 1))
            break
        else:
            tokens.append((word, m.end()))
        nxt = _GAP.match(text, m.end())
        if nxt is None:
            break
        pos = nxt.end()
    while tokens and (_fold(tokens[-1][0]) in _PARTICLES or tokens[-1][0].endswith(".")):
        tokens.pop()
    if not tokens:
        return None
    return _Span(start, tokens[-1][1], tuple(t for t, _ in tokens))


_TITLE_CUE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Rev|Fr|Capt|Det)\b\.?(?=[ \t])")
_ROLE_CUE = re.compile(
    r"\b(?:CEO|CTO|CFO|COO|CIO|CMO|CPO|VP|SVP|EVP|President|Director|[Mm]anager|[Aa]gent|"
    r"[Rr]epresentative|[Ss]upervisor|Officer|officer|Engineer|engineer|[Ff]ounder|Chairman|"
    r"Chairwoman|[Aa]ttorney|Detective|Doctor|doctor|Nurse|nurse|[Tt]echnician|[Cc]onsultant|"
    r"[Rr]ecruiter|[Cc]olleague|[Bb]oss|[Ll]andlord|[Dd]entist|[Tt]herapist|Senator|Governor|"
    r"Mayor|Judge|Professor|Coach|[Ll]ead|[Dd]irector|[Cc]ontroller|[Bb]uyer|[Aa]nalyst|"
    r"[Cc]oordinator|[Ss]pecialist|[Aa]dministrator|[Aa]ccountant|[Cc]hampion|[Ss]ponsor|"
    r"on-call|[Oo]n call)(?:,(?=[ \t]))?(?=[ \t])"
)
_PHRASE_CUE = re.compile(
    r"(?i)\b(?:(?P<name>(?:(?:my|his|her|your|their|our|the|full|customer's|caller's|"
    r"client's|patient's|guest's)\s+|(?<![\w'’]\s)(?<![\w'’]))name(?:\s+is|'s|\s*:))|(?P<greet>this\s+is)|"
    r"(?P<self>i'm|i\s+am|i’m)|(?:spoke|speaking|talked|talking|spoken|met|meeting)\s+"
    r"(?:with|to)|(?:appointment|consultation)\s+with|ask(?:ed)?\s+for|contact(?:\s+person)?\s*:|contact|signed\s+by|assigned\s+to|"
    r"(?:guy|man|woman|lady|gentleman|person|someone|somebody|agent|rep|representative|"
    r"customer|user|employee|colleague|friend|doctor|technician|manager|girl|boy)\s+"
    r"(?:named|called))(?=[ \t])"
)
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

    Cues: a title (``Mr.``, ``Dr``...), a role (``CTO``, ``manager``, ``agent``...), "my name
    is"/"name:" (also ``Last, First``), "this is X" after a greeting and before "from"/
    punctuation, "I'm X" before punctuation/"from", "spoke with/to", "appointment with",
    "consultation with", "ask for", "contact",
    "a man named", and JSON ``first_name``/``last_name`` pairs. Months, days, common words
    and organisation words (Corp, Inc, Bank...) are never name tokens.
    """

    fact_type = FactType.PERSON

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping person matches in text order."""
        return leftmost_longest(self._candidates(text))

    def _candidates(self, text: str) -> Iterator[Match]:
        for m in _TITLE_CUE.finditer(text):
            if m.group().startswith("Dr") and _street_abbreviation(text, m.start()):
                continue
            yield from self._emit(text, m.end(), cue=m.group())
        for m in _ROLE_CUE.finditer(text):
            yield from self._emit(text, m.end())
        for m in _PHRASE_CUE.finditer(text):
            yield from self._phrase(text, m)
        for m in _JSON_NAME.finditer(text):
            name = clean_person_name(f"{m.group(1)} {m.group(2)}")
            if name is not None:
                yield Match(m.start(1), m.end(2), PersonValue(name), ((m.start(1), m.end(1)),))

    def _phrase(self, text: str, cue: re.Match[str]) -> Iterator[Match]:
        span = _scan_name(text, cue.end())
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

    def _last_first(self, text: str, span: _Span) -> Iterator[Match]:
        comma = _LAST_FIRST.match(text, span.end)
        first = _scan_name(text, comma.end(), max_tokens=2) if comma else None
        if first is not None and _INTRO_AFTER.match(text, first.end):
            name = clean_person_name(f"{' '.join(span.tokens)}, {' '.join(first.tokens)}")
            if name is not None:
                yield Match(span.start, first.end, PersonValue(name))
                return
        yield from self._emit_span(span)

    def _emit(self, text: str, pos: int, cue: str = "") -> Iterator[Match]:
        span = _scan_name(text, pos)
        if span is not None:
            yield from self._emit_span(span)

    def _emit_span(self, span: _Span) -> Iterator[Match]:
        name = clean_person_name(" ".join(span.tokens))
        if name is not None:
            yield Match(span.start, span.end, PersonValue(name))


_SUFFIX_WORD = re.compile(
    r"\b(?:Corp|Corporation|Inc|Incorporated|LLC|L\.L\.C|LLP|Ltd|Limited|Co|Company|GmbH|"
    r"plc|PLC|S\.A|AG|N\.V|B\.V|Pty|Group|Holdings|Technologies|Industries|Enterprises|"
    r"Associates|Solutions|Partners|Labs|Systems|Ventures|Capital)\b\.?"
)
_ORG_WORD = re.compile(r"(?:[^\W\d_]|\d)[\w'’&.-]*\Z")
_ORG_CUE = re.compile(
    r"\b(?:(?:work(?:s|ed|ing)?|employed)\s+(?:at|for|by)|(?:company|firm|vendor|supplier|"
    r"employer|manufacturer|carrier|provider|distributor|brand|startup|agency|insurer|"
    r"lender|contractor)(?:\s+(?:called|named))?)(?=[ \t])"
)
_ID_PAREN = re.compile(r"(?<![\w#-])([\w#-]{1,60})[ \t]?\(([^()\n]{2,60})\)")


def _walk_back(text: str, end: int, max_tokens: int = 4) -> int | None:
    """Start of the capitalised words (``&``/``of``/``and`` joined) ending at ``end``."""
    words = text[max(0, end - 120) : end].split(" ")
    taken: list[str] = []
    start = end
    for word in reversed(words):
        if not word:
            break
        bare = word.rstrip(",")
        opened = bare.lstrip("([{\"'“‘")
        if opened != bare:
            if (
                opened
                and _ORG_WORD.match(opened)
                and _capitalised(opened)
                and (_fold(opened) not in _STOP)
            ):
                taken.append(opened)
                start -= len(word) + 1
                start += len(bare) - len(opened)
            break
        if bare in {"&", "of"} and taken:
            taken.append(bare)
            start -= len(word) + 1
            continue
        if not _ORG_WORD.match(bare) or not (_capitalised(bare) or bare.isupper()):
            break
        if (
            _fold(bare) in _STOP
            or (taken and _fold(bare) in _ORG_TOKENS)
            or len([t for t in taken if t not in {"&", "of"}]) >= (max_tokens)
        ):
            break
        taken.append(bare)
        start -= len(word) + 1
    while taken and taken[-1] in {"&", "of"}:
        start += len(taken.pop()) + 1
    return start + 1 if taken else None


class OrganizationRecognizer:
    """Finds organisations with precision first.

    * 1-4 capitalised words ending in a legal suffix or organisation head (``Acme Corp``,
      ``Globex Holdings``, ``Initech, Inc.``);
    * capitalised words after a cue: "works at/for", "employed by", "the company/vendor/
      supplier/carrier/brand ... (called)";
    * a one-word parenthesised name right after an ID-like token (``cust_482 (Acme)``).
    """

    fact_type = FactType.ORGANIZATION

    def find(self, text: str, context: ExtractionContext) -> Iterable[Match]:
        """Yield non-overlapping organisation matches in text order."""
        return leftmost_longest(self._candidates(text))

    def _candidates(self, text: str) -> Iterator[Match]:
        for m in _SUFFIX_WORD.finditer(text):
            yield from self._suffixed(text, m)
        for m in _ORG_CUE.finditer(text):
            span = _scan_org(text, m.end())
            if span is not None:
                yield span
        for m in _ID_PAREN.finditer(text):
            inner = m.group(2).strip()
            if not any(c.isdigit() for c in m.group(1)):
                continue
            if _ORG_WORD.match(inner) and _capitalised(inner) and _fold(inner) not in _STOP:
                start = m.start(2) + m.group(2).index(inner)
                yield Match(start, start + len(inner), OrganizationValue(inner))

    def _suffixed(self, text: str, m: re.Match[str]) -> Iterator[Match]:
        before = m.start()
        gap = text[max(0, before - 2) : before]
        if gap.endswith(", "):
            before -= 2
        elif gap.endswith(" "):
            before -= 1
        else:
            return
        start = _walk_back(text, before)
        if start is None or start >= before:
            return
        name = clean_organization_name(text[start : m.end()])
        if name is not None:
            yield Match(start, m.end(), OrganizationValue(name))


def _scan_org(text: str, pos: int) -> Match | None:
    """Capitalised words after a cue, through an optional legal suffix."""
    gap = _GAP.match(text, pos)
    pos = gap.end() if gap else pos
    start = end = pos
    count = 0
    while count < 5:
        m = _WORD.match(text, pos)
        if m is None or not _capitalised(m.group()) or _fold(m.group()) in _STOP:
            break
        end = (
            m.end()
            if not m.group().endswith(".") or _fold(m.group()) in _ORG_TOKENS
            else (m.end() - 1)
        )
        count += 1
        nxt = _GAP.match(text, m.end())
        if nxt is None or end < m.end():
            break
        pos = nxt.end()
    if count == 0:
        return None
    name = clean_organization_name(text[start:end])
    return Match(start, end, OrganizationValue(name)) if name is not None else None
