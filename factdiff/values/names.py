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
from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value, register_decoder

__all__ = [
    "HONORIFICS",
    "LEGAL_SUFFIXES",
    "ROLES",
    "OrganizationValue",
    "PersonValue",
    "family_name",
    "organization_key",
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
    "recruiter advisor adviser accountant architect designer developer psychiatrist "
    "psychologist counselor counsellor therapist pediatrician dermatologist optometrist "
    "chiropractor"
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
    "street st road rd avenue ave drive boulevard blvd lane ln suite ste way place court square "
    "parkway highway hotel restaurant house college museum church school hospital airport "
    "station centre center park theatre theater university hostel inn lodge gallery bridge "
    "market cafe bar pub shop store mall plaza hall club stadium arena clinic dental medical "
    "healthcare salon airline airlines apartment apartments resort spa palace cathedral "
    "chapel cuisine dining banquets grill bistro pizzeria diner tavern cinema cinemas bakery "
    "brasserie cantina trattoria steakhouse pier piers district midtown downtown terminal "
    "zoo aquarium library motel casino winery brewery memorial monument"
)
_ORG_TOKENS = LEGAL_SUFFIXES | _ORG_HEADS | frozenset({"university", "bank", "hotel"})


def _strip_marks(text: str) -> str:
    if text.isascii():
        return text  # NFKD leaves ASCII as it is, and no ASCII character is a mark
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


def family_name(name: str) -> str | None:
    """The word of a cleaned name that a shorter form must keep (``Okafor`` of ``Daniel Okafor
    Jr.``), or None for a one-word name."""
    words = [w for w in name.split() if _fold(w).strip("'-")]
    if len(words) < 2:
        return None
    return words[_surname_index(tuple(_fold(w).strip("'-") for w in words))]


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
