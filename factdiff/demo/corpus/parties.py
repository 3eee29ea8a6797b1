"""The people and companies of the demo: customer and account parties, names, phones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from factdiff.demo.corpus.phrasing import _email_local
from factdiff.demo.corpus.tables import (
    EU_SUFFIXES,
    FIRST_NAMES,
    LAST_NAMES,
    UK_SUFFIXES,
    US_SUFFIXES,
)
from factdiff.demo.corpus.timekeeping import US_ZONES, ZONES, _Zone


@dataclass(frozen=True)
class _Party:
    """A customer or prospect: account id, company, contact person and their details."""

    account_id: str
    company: str
    person: str
    role: str
    email: str
    phone: str
    zone: _Zone


def _company(rng: Random, stem: str, zone: _Zone) -> str:
    suffixes = {"EUR": EU_SUFFIXES, "GBP": UK_SUFFIXES}.get(zone.currency, US_SUFFIXES)
    return f"{stem} {rng.choice(suffixes)}"


def _phone(rng: Random, zone: _Zone) -> str:
    if zone.currency == "GBP":
        return f"+44 20 7946 0{rng.randrange(100, 1000)}"
    if zone.currency == "EUR":
        return f"+49 30 23125 {rng.randrange(100, 1000)}"
    area = rng.choice(("212", "312", "415", "617", "206", "512", "303"))
    number = f"555-01{rng.randrange(10, 100)}"
    return f"({area}) {number}" if rng.random() < 0.5 else f"+1 {area} {number.replace('-', ' ')}"


def _parties(rng: Random, prefix: str, roles: Sequence[str], stems: Sequence[str]) -> list[_Party]:
    """A pool of customers (one per company stem), so that accounts recur across entries."""
    numbers = rng.sample(range(100, 9999), len(stems))
    parties = []
    for stem, number in zip(stems, numbers, strict=True):
        zone = rng.choice(ZONES if prefix == "acct_" else (*US_ZONES, *US_ZONES, *ZONES[4:]))
        person = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        domain = stem.split()[0].lower() + rng.choice((".com", ".io", ".co"))
        parties.append(
            _Party(
                account_id=f"{prefix}{number}",
                company=_company(rng, stem, zone),
                person=person,
                role=rng.choice(roles),
                email=f"{_email_local(person)}@{domain}",
                phone=_phone(rng, zone),
                zone=zone,
            )
        )
    return parties


def _person(rng: Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
