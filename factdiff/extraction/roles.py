"""Roles of schema-free atoms: the cue words beside a value that say which one it is.

A departure time and an arrival time are both times; what tells them apart is the word the
text puts next to each (``leaves at 10:11 and arrives at 11:01``). For every date, datetime,
time and money atom, the role is the set of role cues in its clause before it, after the
previous atom of its kind (so ``departs March 8th at 10:00`` gives the time its departure
role, and ``leaves at 10:11 and arrives at 11:01`` gives each time only its own cue), at most
:data:`ROLE_WINDOW` characters back. ``from``, ``until`` and ``till`` count only right
before a date or time (``from March 2nd``; ``from Phoenix to Sydney today`` gives ``today`` no
role), and ``to`` only after such a ``from`` (``from 10:00 to 12:00``).

A value under a key (JSON ``"price": 54.04``, keyword ``amount=-2400``) takes the role of the
key's words (``total_price`` is ``price+total``); under a key without a role word
(``"amount"``), the role of the key that holds its object (``"payment_history": [{...,
"amount": 4777.75}]`` is a ``payment``).

Release versions (identifiers such as ``v2.4.0``) take the release classes ``deploy`` and
``rollback`` the same way (:meth:`RoleCues.release_roles`), so a deployed and a rolled-back
version swapped are two changes.

A role is written as its sorted cue classes joined by ``+`` (``departure``, ``return``,
``departure+return`` for "the return flight departs at"). Cue classes group synonyms, so a
summary that writes ``departs`` for ``leaves`` keeps the role; a value written without any
role cue has no role and is never compared by role.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.recognizers.base import Match, lowered, vocabulary
from factdiff.extraction.wordfind import matches_starting_with
from factdiff.extraction.wordtrie import flexible_char, trie_alternation
from factdiff.values.base import FactType

ROLE_WINDOW = 72
"""At most this many characters between a role cue and its value."""

TEMPORAL_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "departure": (
            "leave", "leaves", "leaving", "depart", "departs", "departing", "departure",
            "departures", "departed", "take off", "takes off", "taking off", "took off",
            "fly out", "flying out", "flies out", "outbound", "set off", "sets off",
        ),
        "arrival": (
            "arrive", "arrives", "arriving", "arrival", "arrived", "land", "lands", "landing",
            "landed", "get in", "gets in", "getting in", "got in", "get there", "gets there",
            "getting there", "get you there",
        ),
        "return": (
            "return", "returns", "returning", "returned", "come back", "coming back",
            "comes back", "inbound",
        ),
        "check_in": ("check in", "check-in", "checking in", "checks in", "checkin"),
        "check_out": ("check out", "check-out", "checking out", "checks out", "checkout"),
        "pickup": ("pick up", "pick-up", "pickup", "picking up", "picked up", "pick it up"),
        "dropoff": ("drop off", "drop-off", "dropoff", "dropping off", "drop it off"),
        "start": ("start", "starts", "starting", "begin", "begins", "beginning", "commence"),
        "end": ("end", "ends", "ending", "last day", "finish", "finishes"),
        "due": (
            "due", "deadline", "deadlines", "expire", "expires", "expiring", "expired",
            "expiry", "expiration", "no later than",
        ),
        "delivery": (
            "ship", "ships", "shipping", "shipped", "shipment", "deliver", "delivers",
            "delivering", "delivered", "delivery", "dispatch", "dispatches", "dispatched",
        ),
        "renewal": ("renew", "renews", "renewing", "renewed", "renewal"),
    }
)  # fmt: skip
"""Role classes of dates, datetimes and times, each with the cue words that state it."""

DATED_MONEY_ROLES = frozenset({"refund", "payment", "deposit", "credit"})
"""Money role classes that also name what a date is for (``the refund is due by March 3``
is a ``due+refund`` date, ``the payment due on March 10`` a ``due+payment`` one)."""

MONEY_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "total": ("total", "totals", "totaling", "totalling", "totaled", "grand total", "in all"),
        "disputed": ("dispute", "disputes", "disputed", "disputing", "contested", "contests"),
        "refund": ("refund", "refunds", "refunded", "refunding", "reimburse", "reimbursed"),
        "balance": ("balance", "balances", "outstanding"),
        "price": ("price", "prices", "priced", "cost", "costs", "costing", "fare", "fares"),
        "fee": ("fee", "fees", "surcharge", "penalty"),
        "payment": ("pay", "pays", "paid", "paying", "payment", "charge", "charged", "charges"),
        "deposit": ("deposit", "deposits", "down payment"),
        "discount": ("discount", "discounts", "discounted", "rebate"),
        "tax": ("tax", "taxes", "vat"),
        "tip": ("tip", "tips", "gratuity"),
        "credit": ("credit", "credits", "credited"),
        "difference": ("difference",),
        "budget": ("budget", "limit", "maximum", "max"),
    }
)  # fmt: skip
"""Role classes of money amounts."""

RELEASE_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "deploy": (
            "deploy", "deploys", "deployed", "deploying", "deployment", "roll out", "rolls out",
            "rolled out", "rolling out", "rollout", "release", "released", "releases",
            "releasing", "upgrade", "upgrades", "upgraded", "upgrading", "promote", "promoted",
        ),
        "rollback": (
            "roll back", "rolls back", "rolled back", "rolling back", "rollback", "rollbacks",
            "revert", "reverts", "reverted", "reverting", "downgrade", "downgrades",
            "downgraded", "downgrading",
        ),
    }
)  # fmt: skip
"""Role classes of release versions (identifiers): what was deployed and what was rolled
back to (``deployed v2.4.0, rolled back to v2.3.1``)."""

_ADJACENT = {"from": "start", "until": "end", "till": "end", "to": "end"}
"""Prepositions that give a role only right before the value."""
_ADJACENT_GAP = re.compile(r"[ \t]+(?:(?:on|at|the|of)[ \t]+){0,2}\Z", re.IGNORECASE)

_FAMILY = {
    FactType.DATE: "date",
    FactType.DATETIME: "date",
    FactType.TIME: "time",
    FactType.MONEY: "money",
}
"""Atoms of one family bound each other's role windows."""
ROLE_TYPES = frozenset(_FAMILY)


def _cue_regex() -> tuple[re.Pattern[str], dict[str, tuple[str, str]]]:
    lookup: dict[str, tuple[str, str]] = {}
    tables = (("temporal", TEMPORAL_ROLES), ("money", MONEY_ROLES), ("release", RELEASE_ROLES))
    for family, table in tables:
        for role, words in table.items():
            for word in words:
                lookup[word] = (family, role)
    for word, role in _ADJACENT.items():
        lookup.setdefault(word, ("adjacent", role))
    alternation = trie_alternation(lookup, flexible_char)
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])"), lookup


_CUES, _LOOKUP = _cue_regex()
_FIRST_WORDS = frozenset(re.split("[ -]", cue)[0] for cue in _LOOKUP)
"""The first word of every cue: a text whose vocabulary has none holds no cue..."""
_GLUED = frozenset(re.split("[ -]", cue)[0] for cue in _LOOKUP if re.match("[a-z]+-", cue))
"""...except a hyphenated one written as one word (``checkin``): searched for always."""


def _cue_matches(text: str) -> Iterator[re.Match[str]]:
    """``_CUES.finditer`` on the lower-cased ``text``, the pattern tried only where the
    first word of a cue starts."""
    low = lowered(text)
    return matches_starting_with(_CUES, low, (vocabulary(text) & _FIRST_WORDS) | _GLUED)


_SPACES = re.compile(r"[ \t-]+")
_KEY_BEFORE = re.compile(r"""["']?([A-Za-z][A-Za-z0-9_]*)["']?[ \t]*[:=][ \t]*["']?\Z""")
_CONTAINER_KEY = re.compile(r"""["']([A-Za-z][A-Za-z0-9_]*)["'][ \t]*:[ \t]*[\[{]""")
_KEY_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_KEY_WINDOW = 160


_FROM_BEFORE = re.compile(r"(?i)(?<![\w-])from[ \t]+\Z")


def _key_before(text: str, end: int) -> re.Match[str] | None:
    """The ``key:`` or ``key =`` that ``text`` has right before ``end``, if any."""
    start = max(0, end - 48)
    tail = text[start:end]
    if tail.endswith(("'", '"')):
        tail = tail[:-1]
    if not tail.rstrip(" \t").endswith((":", "=")):
        return None  # what _KEY_BEFORE ends with is not there: no need to scan for it
    return _KEY_BEFORE.search(text, start, end)


def _same_family(cue_family: str, family: str) -> bool:
    """Whether a cue of ``cue_family`` (not ``adjacent``) names the role of an atom of
    ``family``: temporal cues of dates and times, money cues of amounts, release cues of
    versions."""
    if cue_family == "release" or family == "release":
        return cue_family == family
    return (cue_family == "money") == (family == "money")


def _applies(cue_family: str, role: str, family: str) -> bool:
    """Whether a cue in prose gives an atom its role: a cue of its family, or a money role of
    :data:`DATED_MONEY_ROLES` before a date."""
    return _same_family(cue_family, family) or (family == "date" and role in DATED_MONEY_ROLES)


def _key_classes(key: str, family: str) -> set[str]:
    """Role classes named by the words of a key (``total_price`` -> price, total)."""
    classes = set()
    for word in _KEY_WORD.findall(key):
        found = _LOOKUP.get(word.lower())
        if found is not None and found[0] != "adjacent" and _same_family(found[0], family):
            classes.add(found[1])
    return classes


def _holder(holders: Sequence[Match], starts: Sequence[int], left: int, start: int) -> str:
    """`` of <identifier>`` when exactly one holder lies inside ``[left, start)``, else
    ``""``."""
    i = bisect.bisect_left(starts, start) - 1
    if i < 0 or holders[i].start < left or holders[i].end > start:
        return ""
    if i > 0 and holders[i - 1].start >= left:
        return ""
    return f" of {holders[i].value.display()}"


class RoleCues:
    """Role cue occurrences of one text, for role queries on its atoms."""

    def __init__(self, text: str, bounds: Boundaries) -> None:
        self.text = text
        self.bounds = bounds
        self.found: list[tuple[int, int, str, str]] = []
        for m in _cue_matches(text):
            key = _SPACES.sub(" ", m.group())
            family, role = _LOOKUP.get(key) or _LOOKUP.get(m.group().lower(), ("", ""))
            if family:
                self.found.append((m.start(), m.end(), family, role))
        self.starts = [f[0] for f in self.found]

    def roles(self, atoms: Sequence[Match], holders: Sequence[Match] = ()) -> list[str]:
        """The role of each atom (``""`` for none), atoms in text order. ``holders`` are the
        text's identifiers, in text order: an atom with a role also takes the one identifier
        before it in its sentence, after the previous atom of its kind (``invoice INV-7 is due
        on March 10`` is ``due of INV-7``), so two invoices' due dates exchanged are changes;
        with two identifiers there (``INV-7 and INV-8 are due on ...``) it takes none, and a
        value under a key none (a JSON object names its identifier anywhere, often after)."""
        holder_starts = [h.start for h in holders]
        out: list[str] = []
        last_end: dict[str, int] = {}
        previous: dict[str, Match] = {}
        any_end = 0
        for atom in atoms:
            family = _FAMILY.get(atom.value.type)
            if family is None or not self.found:
                out.append("")
                continue
            floor = max(last_end.get(family, 0), atom.start - ROLE_WINDOW)
            left = max(self.bounds.clause_start(atom.start), floor)
            role = self._role(atom, family, left, previous.get(family), any_end)
            if role and holders and _key_before(self.text, atom.start) is None:
                reach = max(self.bounds.sentence_start(atom.start), floor)
                role += _holder(holders, holder_starts, reach, atom.start)
            out.append(role)
            last_end[family] = atom.end
            previous[family] = atom
            any_end = max(any_end, atom.end)
        return out

    def _key_role(self, atom: Match, family: str) -> str | None:
        """The role of a value under a key, or None when the value is not under one."""
        key = _key_before(self.text, atom.start)
        if key is None:
            return None
        classes = _key_classes(key.group(1), family)
        if not classes:
            window = self.text[max(0, key.start() - _KEY_WINDOW) : key.start()]
            containers = list(_CONTAINER_KEY.finditer(window))
            if containers:
                classes = _key_classes(containers[-1].group(1), family)
        return "+".join(sorted(classes))

    def _role(
        self, atom: Match, family: str, left: int, previous: Match | None, other_end: int
    ) -> str:
        """Cue classes in ``[left, atom.start)``; when an atom of another kind stands between
        and cues follow it, only those (``leaving on monday arriving by 21:00``: arrival)."""
        keyed = self._key_role(atom, family)
        if keyed is not None:
            return keyed
        at = self._at(other_end)
        if left < other_end and any(
            other_end <= f[0] and f[1] <= atom.start and self._gives(f, family)
            for f in self.found[at : at + 4]
        ):
            left = other_end
        classes: set[str] = set()
        i = self._at(left)
        while i < len(self.found) and self.found[i][1] <= atom.start:
            start, end, cue_family, role = self.found[i]
            i += 1
            if cue_family == "adjacent":
                if family in ("money", "release") or not _ADJACENT_GAP.fullmatch(
                    self.text, end, atom.start
                ):
                    continue
                word = self.text[start:end].lower()
                if word == "to" and not self._after_from(previous, start):
                    continue
                classes.add(role)
            elif _applies(cue_family, role, family):
                classes.add(role)
        return "+".join(sorted(classes))

    @staticmethod
    def _gives(found: tuple[int, int, str, str], family: str) -> bool:
        """Whether a cue occurrence counts as a cue after another atom (see ``_role``): a
        release cue for versions only, every other cue for the other atoms."""
        return (found[2] == "release") == (family == "release")

    def release_roles(self, versions: Sequence[Match]) -> list[str]:
        """The role of each release version (identifiers, in text order; ``""`` for none):
        the release cues in its clause before it, after the previous version, at most
        :data:`ROLE_WINDOW` characters back. A version right after ``from`` is the one left
        behind: it takes no role, and the version after it shares its cues (``rolled back
        from v2.4.0 to v2.3.1``: v2.3.1 is ``rollback``)."""
        out: list[str] = []
        floor = 0
        for version in versions:
            left = max(self.bounds.clause_start(version.start), floor, version.start - ROLE_WINDOW)
            if _FROM_BEFORE.search(self.text, max(0, version.start - 12), version.start):
                out.append("")
                continue
            out.append(self._role(version, "release", left, None, 0))
            floor = version.end
        return out

    def _at(self, pos: int) -> int:
        return bisect.bisect_left(self.starts, pos)

    def _after_from(self, previous: Match | None, to_start: int) -> bool:
        """``to`` right after ``from <value>`` in the same clause."""
        if previous is None or not self.bounds.same_clause(previous.end, to_start):
            return False
        gap = self.text[max(0, previous.start - 24) : previous.start].lower()
        return re.search(r"(?<![\w-])from[ \t]+(?:(?:on|at|the)[ \t]+){0,2}\Z", gap) is not None
