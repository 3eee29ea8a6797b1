"""The hits of a ranked search: each entry as the agent reads it, with what it matched and,
on need, its archived source."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from factdiff.extraction.rules import MAX_TEXT_CHARS
from factdiff.retrieve.context import EntryView, view_of
from factdiff.retrieve.gaps import KnownGap, gap_words
from factdiff.retrieve.hits import Match, SearchHit
from factdiff.retrieve.index import INDEX_EXTRACTOR
from factdiff.retrieve.keys import (
    comparable_types,
    indexed_keys,
    key_hash,
    record_keys,
    typed_facts,
)
from factdiff.retrieve.query import Query
from factdiff.retrieve.ranking import Candidate
from factdiff.retrieve.schemas import GENERIC, SchemaResolver
from factdiff.retrieve.terms import stated_terms
from factdiff.schema.builtin import builtin_schema
from factdiff.store.model import Tier
from factdiff.values.base import JSON

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry

__all__ = ["build_hits"]


@dataclass
class _Hit:
    """A ranked candidate with its entry as an agent reads it."""

    candidate: Candidate
    view: EntryView
    gap_hit: tuple[KnownGap, ...]
    narrative_keys: set[int] | None
    """The fact key hashes a warm entry's narrative states, as recorded."""


def build_hits(
    store: MemoryStore,
    query: Query,
    terms: tuple[str, ...],
    ranked: list[Candidate],
    rows: dict[str, tuple[Entry, bytes | None, set[int] | None]],
    k: int,
    include_source: str,
    schemas: SchemaResolver,
) -> list[SearchHit]:
    """The hits of the ``k`` best ``ranked`` candidates, from their ``rows``: a hit with an
    asked-about gap is moved below the hot hits that state it (see
    ``factdiff.retrieve.search``)."""
    loaded: list[_Hit] = []

    def load(upto: int) -> None:
        for candidate in ranked[len(loaded) : upto]:
            if candidate.entry_id not in rows:  # pragma: no cover - entries are never deleted
                continue
            entry, packed, said = rows[candidate.entry_id]
            view = view_of(entry, packed, schemas)
            loaded.append(_Hit(candidate, view, _gap_hit(query, view.gaps), said))

    load(k)
    if any(hit.gap_hit for hit in loaded):
        more = [c.entry_id for c in ranked[k : 2 * k + 10]]
        rows.update(store.search_queries.hit_entries(more))
        load(2 * k + 10)
        loaded[:] = _below_holders(loaded)
    return [_build(store, query, terms, hit, include_source) for hit in loaded[:k]]


def _gap_hit(query: Query, gaps: tuple[KnownGap, ...]) -> tuple[KnownGap, ...]:
    """The gaps the query asks about: it names the field, or holds a value of its type."""
    asked = []
    types = query.fact_types
    for gap in gaps:
        words = gap_words(gap)
        named = bool(words) and set(words) <= query.words
        if named or (gap.fact_type is not None and gap.fact_type in types):
            asked.append(gap)
    return tuple(asked)


def _holds(view: EntryView, gap: KnownGap) -> bool:
    """Whether an entry states a fact of the gap's field or type in the text it shows."""
    if view.record_json is None:
        return False
    lost = {g.field for g in view.gaps}
    if gap.field not in lost and view.record is not None and view.record.fields.get(gap.field):
        return True
    if gap.fact_type is None:
        return False
    return any(name not in lost for name, _ in typed_facts(view.record_json, {gap.fact_type}))


def _below_holders(hits: list[_Hit]) -> list[_Hit]:
    """Move each hit with an asked-about gap just below the last later hot hit that states a
    fact of that field or type and holds as many of the query's distinctive facts."""
    keys = []
    for index, hit in enumerate(hits):
        after = index
        for later in range(index + 1, len(hits)):
            other = hits[later]
            if (
                other.view.entry.tier is Tier.HOT
                and len(other.candidate.strong) >= len(hit.candidate.strong)
                and any(_holds(other.view, gap) for gap in hit.gap_hit)
            ):
                after = later
        keys.append((after, 1 if after > index else 0, index))
    order = sorted(range(len(hits)), key=lambda i: keys[i])
    return [hits[i] for i in order]


def _build(
    store: MemoryStore, query: Query, terms: tuple[str, ...], hit: _Hit, include_source: str
) -> SearchHit:
    candidate, view = hit.candidate, hit.view
    entry, warm = view.entry, view.entry.tier is Tier.WARM
    archive = _Archive(store, entry.id)
    stated_keys = _narrative_keys(view, hit.narrative_keys) if warm else None
    matched = [
        *_fact_matches(query, candidate, view.record_json, stated_keys),
        *_text_matches(terms, view, archive if warm else None),
    ]
    in_text = any(m.kind == "text" and m.where == "text" for m in matched)
    wants_source = include_source == "always" or (
        include_source == "auto"
        and (
            bool(hit.gap_hit)
            or any(m.kind == "fact" and m.where == "archive" for m in matched)
            or (candidate.text > 0 and not in_text)
        )
    )
    return SearchHit(
        entry_id=entry.id,
        agent=entry.agent_id,
        tier=entry.tier.value,
        score=candidate.score,
        matched=tuple(matched),
        text=view.text,
        record_json=view.record_json,
        known_gaps=view.gaps,
        gap_hit=hit.gap_hit,
        schema={"name": view.schema_name, "version": view.schema_version},
        occurred_at=entry.occurred_at,
        source=archive.text() if warm and wants_source else None,
        coverage=view.coverage,
    )


class _Archive:
    """A warm entry's archived source, read (and hash-checked) at most once."""

    def __init__(self, store: MemoryStore, entry_id: str) -> None:
        self._store, self._entry_id = store, entry_id
        self._text: str | None = None

    def text(self) -> str:
        if self._text is None:
            self._text = self._store.read_cold(self._entry_id)
        return self._text


def _narrative_keys(view: EntryView, recorded: set[int] | None) -> set[int]:
    """The fact key hashes a warm entry's narrative states (recorded at compression; read
    again from the narrative if the store lacks them)."""
    if recorded is not None:
        return recorded
    record = view.record
    if record is None:
        return set()
    schema = view.schema or builtin_schema(GENERIC)
    said = INDEX_EXTRACTOR.extract(view.text[:MAX_TEXT_CHARS], schema, record.reference)
    return {key_hash(k) for k in record_keys(said)}


def _fact_matches(
    query: Query,
    candidate: Candidate,
    record: Mapping[str, JSON] | None,
    stated: set[int] | None,
) -> list[Match]:
    """The query facts the entry holds, re-checked against its record, field by field;
    ``stated``: the key hashes the hit's text states (None: all of them, a hot entry)."""
    held_facts = sorted(candidate.strong | candidate.weak)
    if record is None or not held_facts:
        return []
    wanted = [query.facts[i] for i in held_facts]
    types = frozenset(t for fact in wanted for t in comparable_types(fact.value.type))
    matches: list[Match] = []
    seen: set[tuple[str, str]] = set()
    for name, held in typed_facts(record, types):
        keys = indexed_keys(held.value)
        shared = {k for fact in wanted for k in fact.keys & keys}
        if not shared:
            continue
        value = held.value.canonical()
        if (name, str(value)) in seen:
            continue
        seen.add((name, str(value)))
        said = stated is None or any(key_hash(k) in stated for k in shared)
        matches.append(Match("fact", name, value, "text" if said else "archive"))
    return matches


def _text_matches(terms: tuple[str, ...], view: EntryView, archive: _Archive | None) -> list[Match]:
    """The query words the entry states: in its text, or (warm) only in its archive."""
    shown = stated_terms(terms, view.text)
    matches = [Match("text", "text", term, "text") for term in shown]
    rest = [t for t in terms if t not in shown]
    if archive is not None and rest:
        archived = stated_terms(rest, archive.text())
        matches.extend(Match("text", "text", term, "archive") for term in archived)
    return matches
