"""Roles of people: the role noun a text writes right beside a name.

A note names who did what by the noun it puts beside a name: ``customer Ana Ruiz``, ``agent
Priya Raman``, ``Bo Chen (technician)``, ``Ana Ruiz, the customer,``. That noun is the
person's role, as a cue word is a date's or an amount's (``factdiff.extraction.roles``), so
two people's roles exchanged in a summary are changes. Synonyms share one class (``client``,
``caller``, ``guest`` are ``customer``; ``rep`` is ``agent``). Only a noun right before the
name (a colon, a comma or a title may stand between) or right after it in apposition counts:
in ``the agent told customer Ana Ruiz`` Ana Ruiz is the customer and no one is the agent.
A name written without such a noun has no role and is never compared by role.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from factdiff.extraction.recognizers.base import Match
from factdiff.extraction.wordtrie import trie_alternation

PERSON_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "customer": (
            "customer", "client", "caller", "guest", "patient", "passenger", "tenant",
            "buyer", "requester", "subscriber", "account holder", "cardholder",
        ),
        "agent": (
            "agent", "rep", "representative", "advisor", "adviser", "associate",
            "support agent", "service agent", "assignee",
        ),
        "technician": ("technician", "tech", "engineer", "installer", "field engineer"),
        "on_call": ("on-call", "on call", "oncall", "on-call engineer", "on call engineer"),
        "owner": (
            "owner", "case owner", "ticket owner", "incident owner", "postmortem owner",
            "account owner",
        ),
        "sales": (
            "account executive", "ae", "sdr", "sales rep", "salesperson", "account manager",
        ),
        "manager": ("manager", "supervisor", "team lead", "lead"),
        "driver": ("driver", "courier"),
    }
)  # fmt: skip
"""Role classes of people, each with the nouns that state it."""

_CLASS_OF = {noun: role for role, nouns in PERSON_ROLES.items() for noun in nouns}
_NOUN = trie_alternation(tuple(_CLASS_OF))
_BEFORE = re.compile(
    rf"(?<![\w'’-])(?P<noun>{_NOUN})(?:[ \t]*[:,])?[ \t]+"
    r"(?:(?:mr|mrs|ms|miss|mx|dr|prof)\.?[ \t]+)?\Z",
    re.IGNORECASE,
)
"""``customer Ana Ruiz``, ``Agent: Priya Raman``, ``the technician, Bo Chen``, ``the
customer, Mrs. Olga Petrova``."""
_AFTER = re.compile(
    rf"[ \t]*(?:\([ \t]*(?:the[ \t]+)?(?P<paren>{_NOUN})[ \t]*\)"
    rf"|,[ \t]+(?:the|our|your|their|a|an)[ \t]+(?P<apposed>{_NOUN})(?![\w'’-]))",
    re.IGNORECASE,
)
"""``Ana Ruiz (customer)``, ``Priya Raman, our agent``; not ``Ana Ruiz, the customer's
daughter``."""
_WINDOW = 40


def person_roles(text: str, people: list[Match]) -> list[str]:
    """The role class of each person match in ``text`` (``""`` for none)."""
    return [_role(text, match) for match in people]


def _role(text: str, match: Match) -> str:
    before = _BEFORE.search(text, max(0, match.start - _WINDOW), match.start)
    after = _AFTER.match(text, match.end)
    nouns = [
        found.lower()
        for found in (
            before.group("noun") if before else None,
            after.group("paren") or after.group("apposed") if after else None,
        )
        if found
    ]
    classes = sorted({_CLASS_OF[re.sub(r"[ \t]+", " ", noun)] for noun in nouns})
    return "+".join(classes)
