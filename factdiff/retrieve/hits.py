"""``SearchHit``: one entry a search returns, as the agent reads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from factdiff.extraction.record import Fact, FactRecord
from factdiff.retrieve.gaps import KnownGap
from factdiff.retrieve.keys import record_facts
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.values.base import JSON


@dataclass(frozen=True)
class Match:
    """What of the query an entry matched.

    ``kind`` is ``fact`` (a query fact the entry's record holds: ``field`` is the record's
    field, ``value`` the canonical value) or ``text`` (a query word: ``field`` is ``text``,
    ``value`` the word). ``where`` says where the entry states it: ``text`` (the hit's text:
    the narrative of a warm entry, the source of a hot one) or ``archive`` (only the archived
    source of a warm entry).
    """

    kind: str
    field: str
    value: JSON
    where: str = "text"

    def to_json(self) -> dict[str, JSON]:
        """``{"kind", "field", "value", "where"}``."""
        return {"kind": self.kind, "field": self.field, "value": self.value, "where": self.where}


@dataclass(frozen=True)
class SearchHit:
    """One entry a search returned (see ``MemoryStore.search``)."""

    entry_id: str
    agent: str
    tier: str
    score: float
    """2 x (distinct distinctive query facts the entry holds) + relevance (0 to 1)."""
    matched: tuple[Match, ...]
    text: str
    """The narrative of a warm entry, the source of a hot one."""
    record_json: Mapping[str, JSON] | None = field(repr=False)
    """The entry's fact record as stored (``facts`` parses it on first use)."""
    known_gaps: tuple[KnownGap, ...]
    gap_hit: tuple[KnownGap, ...]
    """The known gaps the query asks about (by field name or by a value of the gap's type)."""
    schema: dict[str, JSON]
    """``{"name", "version"}`` of the entry's record."""
    occurred_at: datetime | None
    source: str | None = None
    """The archived source (hash-checked), when included."""
    coverage: CheckCoverage | None = field(default=None, repr=False)
    """The coverage of the check that made a warm entry (``None``: a hot entry, or a warm
    one written before coverage was kept)."""

    @property
    def verified_share(self) -> float | None:
        """Share of the source's sentences the check that made the warm entry verified (they
        carried a typed fact); ``None`` when no check was recorded."""
        return None if self.coverage is None else self.coverage.share

    @property
    def unverified(self) -> tuple[str, ...]:
        """The source sentences that check could not verify and the narrative dropped (read
        from the source on first use)."""
        return () if self.coverage is None else self.coverage.texts

    @cached_property
    def facts(self) -> FactRecord | None:
        """The entry's fact record: a warm entry's source record, a hot entry's extraction
        (made when it was added); parsed on first use."""
        from factdiff.retrieve.index import stored_record

        return None if self.record_json is None else stored_record(self.record_json)

    @property
    def archive_only(self) -> bool:
        """The entry matched nothing its narrative states: it matched in the archive only."""
        return bool(self.matched) and all(m.where == "archive" for m in self.matched)

    def to_json(self) -> dict[str, JSON]:
        """The ``factdiff search --json`` form of the hit."""
        return {
            "entry_id": self.entry_id,
            "agent": self.agent,
            "tier": self.tier,
            "score": round(self.score, 6),
            "matched": [m.to_json() for m in self.matched],
            "text": self.text,
            "facts": facts_json(self.facts),
            "known_gaps": [g.to_json() for g in self.known_gaps],
            "gap_hit": [g.to_json() for g in self.gap_hit],
            "schema": self.schema,
            "occurred_at": None if self.occurred_at is None else self.occurred_at.isoformat(),
            "source": self.source,
            "verified_share": rounded_share(self.verified_share),
            "unverified": list(self.unverified),
        }


def rounded_share(share: float | None) -> float | None:
    """A verified share as hits report it: rounded to 4 places (``None`` stays)."""
    return None if share is None else round(share, 4)


def facts_json(record: FactRecord | None) -> dict[str, JSON]:
    """A record as ``field -> [{"value", "text", "spans"}]`` (fields with a value only)."""
    if record is None:
        return {}
    found: dict[str, list[JSON]] = {}
    for name, fact in record_facts(record):
        found.setdefault(name, []).append(fact_json(fact))
    return dict(found)


def fact_json(fact: Fact) -> dict[str, JSON]:
    """One fact: canonical value, its text, evidence spans (and roles when the text gives
    them)."""
    data: dict[str, JSON] = {
        "value": fact.value.canonical(),
        "text": fact.text,
        "spans": [list(span) for span in fact.spans],
    }
    if fact.roles:
        data["roles"] = list(fact.roles)
    return data
