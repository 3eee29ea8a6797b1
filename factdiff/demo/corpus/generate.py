"""``generate_corpus``: the three agents in turn over eight weeks, one seeded ``Random``."""

from __future__ import annotations

from datetime import date, timedelta
from random import Random

from factdiff.demo.corpus.entry import DemoEntry
from factdiff.demo.corpus.ops import _ops_entry
from factdiff.demo.corpus.parties import _parties
from factdiff.demo.corpus.sales import _sales_entry
from factdiff.demo.corpus.support import _support_entry
from factdiff.demo.corpus.tables import (
    AGENTS,
    COMPANY_STEMS,
    SALES_TITLES,
    SPAN_DAYS,
    SUPPORT_ROLES,
)


def _day(rng: Random, start: date, weekends: bool) -> date:
    day = start + timedelta(days=rng.randrange(SPAN_DAYS))
    if not weekends and day.weekday() >= 5:
        day -= timedelta(days=day.weekday() - 4)
    return day


def generate_corpus(
    count: int = 300, seed: int = 7, start: date = date(2026, 2, 2)
) -> list[DemoEntry]:
    """``count`` entries spread over eight weeks from ``start``, the agents in turn.

    The same arguments always give the same entries, ordered by ``occurred_at``.
    """
    rng = Random(seed)
    stems = rng.sample(COMPANY_STEMS, len(COMPANY_STEMS))
    half = len(stems) // 2
    customers = _parties(rng, "cust_", SUPPORT_ROLES, stems[:half])
    accounts = _parties(rng, "acct_", SALES_TITLES, stems[half:])
    entries = []
    for i in range(count):
        agent_id, schema = AGENTS[i % len(AGENTS)]
        if agent_id == "support-bot":
            made = _support_entry(rng, _day(rng, start, weekends=False), customers)
        elif agent_id == "ops-agent":
            made = _ops_entry(rng, _day(rng, start, weekends=True))
        else:
            made = _sales_entry(rng, _day(rng, start, weekends=False), accounts)
        instant, content, tags = made
        entries.append(DemoEntry(agent_id, schema, instant, content, tags))
    return sorted(entries, key=lambda e: (e.occurred_at, e.agent_id, e.content))
