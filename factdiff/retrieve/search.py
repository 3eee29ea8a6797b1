"""Search: the entries that answer a query, fact-aware, gap-aware, with their sources on need.

How a query is read:

* its **facts**: the rules extractor reads the query under the ``generic`` schema (and the
  agent's schema when ``agent`` is given), so ``$14,250``, ``14,250 USD`` and ``fourteen
  thousand two hundred fifty dollars`` are one money fact; each is looked up in the fact index
  by its canonical key (``factdiff.retrieve.keys``);
* its **words**: the text index is asked for the query's words (``factdiff.retrieve.terms``).

How entries are ranked (``score`` = 2 x distinctive facts held + relevance):

1. entries holding more of the query's **distinctive** facts first: an identifier, an
   amount, a full date or datetime, an email, a phone number, a URL, a person or an
   organisation, held by at most :data:`FACT_CAP` entries (a value that many entries hold
   does not single one out and counts as a weak fact instead);
2. then by **relevance**, between 0 and 1: the entry's text score relative to the best one
   among entries holding as many distinctive facts (bm25 on SQLite; bm25 computed from
   ``ts_rank_cd`` on PostgreSQL; both over the full source, hot or archived), blended with
   the share of the query's weak facts (times, numbers, quantities, dates without a year...)
   it holds, each side weighted by how many words and weak facts the query has. When k
   entries hold a distinctive fact, the text index is not asked for more; their order among
   themselves comes from the query's selective words.
3. **Gaps**: a warm entry whose known gaps the query asks about (it names the field, or holds
   a value of the gap's type) never ranks above a hot entry ranked after it that states a
   fact of that field or type and holds as many of the query's distinctive facts: it moves
   just below the last such entry.

Words held by more than :data:`TERM_CAP` entries are left out (the database never ranks every
entry that says ``the`` or ``train``; such words barely tell entries apart); when every word
is that common, entries holding the two rarest are found and ranked by all the words.

A warm hit shows its narrative and its source's fact record; each match says whether the
narrative states it (``where: "text"``) or only the archived source (``"archive"``). With
``include_source="auto"`` a warm hit carries its archived source (hash-checked) when the query
asks about one of its gaps, or a fact it matched is not in the narrative, or the narrative
states none of the words it matched. Unless ``touch`` is false, the search is recorded as use
(one write): hits are marked used (``RetrievalSettings.touch``), every source fetched counts
toward promotion, and an entry fetched more than ``promote_after`` times within
``promote_window`` goes back to hot (event ``promoted``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from factdiff.errors import InputError
from factdiff.extraction.rules import MAX_TEXT_CHARS
from factdiff.retrieve.context import EntryView, view_of
from factdiff.retrieve.gaps import KnownGap, gap_words
from factdiff.retrieve.hits import Match, SearchHit
from factdiff.retrieve.index import INDEX_EXTRACTOR
from factdiff.retrieve.keys import (
    DISTINCTIVE_TYPES,
    INDEXED_TYPES,
    comparable_types,
    indexed_keys,
    key_hash,
    key_text,
    query_keys,
    record_facts,
    record_keys,
    typed_facts,
)
from factdiff.retrieve.schemas import GENERIC, SchemaResolver
from factdiff.retrieve.terms import TextQuery, query_terms, stated_terms, words
from factdiff.schema.builtin import builtin_schema
from factdiff.schema.model import FactSchema
from factdiff.settings.retrieval import RetrievalSettings, TouchMode
from factdiff.store import search_index, search_queries
from factdiff.store.model import Tier
from factdiff.values.base import JSON, FactType, Value

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry

TERM_CAP = 2000
"""A word held by more entries than this only re-ranks entries found by rarer words."""
FACT_CAP = 200
"""A fact held by more entries than this is a weak match, whatever its type."""
INCLUDE_SOURCE = ("always", "auto", "never")
TIERS = (Tier.HOT.value, Tier.WARM.value)
MAX_QUERY_CHARS = 10_000


@dataclass(frozen=True)
class QueryFact:
    """One fact of the query and the index keys it looks up."""

    value: Value
    text: str
    keys: frozenset[str]
    hashes: tuple[int, ...]


@dataclass(frozen=True)
class Query:
    """A query as the indexes read it."""

    text: str
    terms: tuple[str, ...]
    words: frozenset[str]
    facts: tuple[QueryFact, ...]

    @property
    def fact_types(self) -> frozenset[FactType]:
        """The types of the query's facts (a datetime also counts as a date and a time)."""
        found: set[FactType] = set()
        for fact in self.facts:
            found.add(fact.value.type)
            if fact.value.type is FactType.DATETIME:
                found |= {FactType.DATE, FactType.TIME}
        return frozenset(found)


def read_query(query: str, schemas: Iterable[FactSchema]) -> Query:
    """The words and facts of ``query`` (facts read under each schema, merged by key)."""
    facts: dict[str, QueryFact] = {}
    for schema in schemas:
        record = INDEX_EXTRACTOR.extract(query, schema, None)
        for _, fact in record_facts(record):
            value = fact.value
            if value.type not in INDEXED_TYPES or key_text(value) in facts:
                continue
            keys = frozenset(query_keys(value))
            hashes = tuple(sorted({key_hash(k) for k in keys}))
            facts[key_text(value)] = QueryFact(value, fact.text, keys, hashes)
    return Query(query, query_terms(query), frozenset(words(query)), tuple(facts.values()))


@dataclass
class Candidate:
    """An entry the indexes found for the query, with its evidence."""

    doc: int
    entry_id: str
    agent: str
    tier: str
    text: float = 0.0
    strong: set[int] = field(default_factory=set)
    """Indexes of the distinctive query facts it holds."""
    weak: set[int] = field(default_factory=set)
    """Indexes of the other query facts it holds."""
    score: float = 0.0


@dataclass(frozen=True)
class _FactStats:
    """Per query fact: how many entries hold it, its weight, and whether it is distinctive."""

    held_by: int
    weight: float
    distinctive: bool


def search(
    store: MemoryStore,
    query: str,
    *,
    agent: str | None = None,
    k: int = 10,
    tiers: Sequence[str] = TIERS,
    include_source: str = "auto",
    touch: bool = True,
    now: datetime | None = None,
    settings: RetrievalSettings | None = None,
) -> list[SearchHit]:
    """The ``k`` best entries for ``query`` (see the module docstring)."""
    tier = _check(query, k, tiers, include_source)
    settings = settings or RetrievalSettings()
    schemas = SchemaResolver(store)
    reading = [schemas.for_indexing(None, agent or "", ())] if agent else []
    parsed = read_query(query, _distinct([schemas.for_indexing(GENERIC, "", ()), *reading]))
    if touch and search_index.has_pending(store):
        search_index.index_pending(store)
    with store.read_snapshot():
        ranked, terms = _rank(store, parsed, k, agent, tier)
        rows = search_queries.hit_entries(store, [c.entry_id for c in ranked[:k]])
    hits = _hits(store, parsed, terms, ranked, rows, k, include_source, schemas)
    if touch:
        _record_use(store, hits, now or datetime.now(UTC), settings)
    return hits


def _check(query: str, k: int, tiers: Sequence[str], include_source: str) -> str | None:
    if not query.strip():
        raise InputError("the query is empty: give words, an identifier, an amount or a date")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(
            f"the query is {len(query):,} characters; at most {MAX_QUERY_CHARS:,}: shorten it"
        )
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k})")
    if include_source not in INCLUDE_SOURCE:
        raise InputError(
            f"include_source must be one of {', '.join(INCLUDE_SOURCE)} (got {include_source!r})"
        )
    chosen = {str(t) for t in tiers}
    if not chosen or not chosen <= set(TIERS):
        raise InputError(f"tiers must be hot, warm or both (got {', '.join(map(str, tiers))})")
    return None if chosen == set(TIERS) else chosen.pop()


def _distinct(schemas: Iterable[FactSchema]) -> list[FactSchema]:
    seen: dict[str, FactSchema] = {}
    for schema in schemas:
        seen.setdefault(schema.hash, schema)
    return list(seen.values())


# -- ranking (one read snapshot) -------------------------------------------------------


def _rank(
    store: MemoryStore, query: Query, k: int, agent: str | None, tier: str | None
) -> tuple[list[Candidate], tuple[str, ...]]:
    """The candidates in rank order, and the query words the text index ranked them by."""
    total = max(1, search_queries.doc_span(store))
    stats, counts = _fact_stats(store, query, total)
    terms = text_terms(query, stats)
    strong = [
        hashed
        for fact, stat in zip(query.facts, stats, strict=True)
        if stat.distinctive
        for hashed in fact.hashes
        if 0 < counts.get(hashed, 0) <= FACT_CAP
    ]
    candidates = _candidates(store, search_queries.fact_docs(store, strong), agent, tier)
    text_query = _text_query(store, terms, total)
    if text_query is not None and len(candidates) < k:
        # Entries holding a distinctive fact outrank every text-only entry: the text index
        # is asked for more only when they are fewer than k.
        found = search_queries.text_candidates(store, text_query, 2 * k + 10, agent, tier)
        new = {doc for doc, _ in found} - candidates.keys()
        candidates.update(_candidates(store, new, agent, tier))
        for doc, score in found:
            if doc in candidates:
                candidates[doc].text = score
    _holdings(store, query, stats, candidates)
    if text_query is not None and not text_query.all_of:
        _rescore(store, text_query.narrowed(), candidates, 2 * k + 10)
    searched = () if text_query is None else text_query.every
    _score(len(searched), stats, candidates)
    return _ordered(candidates.values(), lambda c: -c.score), searched


def _ordered(candidates: Iterable[Candidate], key: Callable[[Candidate], Any]) -> list[Candidate]:
    """Candidates by ``key``, ties newest entry first (entry ids sort by creation time)."""
    newest_first = sorted(candidates, key=lambda c: c.entry_id, reverse=True)
    return sorted(newest_first, key=key)


def _candidates(
    store: MemoryStore, docs: set[int], agent: str | None, tier: str | None
) -> dict[int, Candidate]:
    """The docs' entries that pass the filters."""
    if not docs:
        return {}
    found: dict[int, Candidate] = {}
    for doc, (entry_id, owner, entry_tier) in search_queries.doc_entries(store, docs).items():
        if (agent is None or owner == agent) and (tier is None or entry_tier == tier):
            found[doc] = Candidate(doc, entry_id, owner, entry_tier)
    return found


def text_terms(query: Query, stats: Sequence[_FactStats]) -> tuple[str, ...]:
    """The query's words for the text index: all of them but the words of a distinctive
    fact that singles out at most one entry (``INV-9182`` held by one entry is found as a
    fact; ``inv`` and ``9182`` would only cost time). A fact many entries hold keeps its
    words: how an entry writes it still tells them apart."""
    covered = {
        word
        for fact, stat in zip(query.facts, stats, strict=True)
        if stat.distinctive and stat.held_by <= 1
        for word in words(fact.text)
    }
    return tuple(t for t in query.terms if t not in covered)


def _text_query(store: MemoryStore, terms: Sequence[str], total: int) -> TextQuery | None:
    """The words the text index finds and ranks entries by: those held by at most
    ``TERM_CAP`` entries (a word nearly every entry holds, ``the`` or ``user``, tells none
    apart and would cost time); when every word is that common, entries holding the two
    rarest, ranked by all. None when the index holds none of ``terms``."""
    counts = search_queries.term_counts(store, terms, TERM_CAP + 1)
    present = tuple(t for t in terms if counts.get(t, 0) > 0)
    if not present:
        return None
    weights = {t: _idf(total, counts[t]) for t in present}
    selective = tuple(t for t in present if counts[t] <= TERM_CAP)
    if selective:
        return TextQuery(selective, selective, False, weights)
    rarest = tuple(sorted(present, key=lambda t: (counts[t], present.index(t)))[:2])
    return TextQuery(rarest, present, True, weights)


def _idf(total: int, held_by: int) -> float:
    """bm25's inverse document frequency."""
    return math.log(1 + (total - held_by + 0.5) / (held_by + 0.5))


def _fact_stats(
    store: MemoryStore, query: Query, total: int
) -> tuple[list[_FactStats], dict[int, int]]:
    """Per query fact its stats, and how many entries hold each key (up to ``FACT_CAP`` + 1)."""
    counts = search_queries.fact_counts(
        store, (h for fact in query.facts for h in fact.hashes), FACT_CAP + 1
    )
    stats = []
    for fact in query.facts:
        held_by = min((n for h in fact.hashes if (n := counts.get(h, 0)) > 0), default=0)
        weight = _idf(total, held_by) if held_by else 0.0
        distinctive = fact.value.type in DISTINCTIVE_TYPES and 0 < held_by <= FACT_CAP
        stats.append(_FactStats(held_by, weight, distinctive))
    return stats, counts


def _holdings(
    store: MemoryStore, query: Query, stats: list[_FactStats], candidates: dict[int, Candidate]
) -> None:
    """Which query facts each candidate holds."""
    hashes = {
        h
        for fact, stat in zip(query.facts, stats, strict=True)
        if stat.held_by
        for h in fact.hashes
    }
    if not hashes or not candidates:
        return
    held = search_queries.fact_hits(store, hashes, candidates)
    for doc, keys in held.items():
        candidate = candidates.get(doc)
        if candidate is None:
            continue
        for index, (fact, stat) in enumerate(zip(query.facts, stats, strict=True)):
            if keys.intersection(fact.hashes):
                (candidate.strong if stat.distinctive else candidate.weak).add(index)


def _rescore(
    store: MemoryStore,
    query: TextQuery,
    candidates: dict[int, Candidate],
    pool: int,
) -> None:
    """Text scores of the (at most ``pool``) best entries holding a distinctive query fact,
    over the query's selective words only (a word most entries hold would not tell them
    apart): the text only orders them among themselves."""
    strong = _ordered(
        (c for c in candidates.values() if c.strong), lambda c: (-len(c.strong), -len(c.weak))
    )
    scores = search_queries.text_scores(store, query, (c.doc for c in strong[:pool]))
    for candidate in strong:
        candidate.text = scores.get(candidate.doc, 0.0)


def _score(terms: int, stats: list[_FactStats], candidates: dict[int, Candidate]) -> None:
    """``score`` = 2 x distinctive facts held + relevance; the text share is relative to the
    best text score among entries holding as many distinctive facts."""
    best: dict[int, float] = {}
    for c in candidates.values():
        best[len(c.strong)] = max(best.get(len(c.strong), 0.0), c.text)
    weak_total = sum(s.weight for s in stats if s.held_by and not s.distinctive)
    weak_count = sum(1 for s in stats if s.held_by and not s.distinctive)
    for c in candidates.values():
        top = best[len(c.strong)]
        term_count = terms if top > 0 else 0
        parts = term_count + weak_count
        text_share = c.text / top if top > 0 else 0.0
        weak_share = sum(stats[i].weight for i in c.weak) / weak_total if weak_total else 0.0
        relevance = (term_count * text_share + weak_count * weak_share) / parts if parts else 0.0
        c.score = 2 * len(c.strong) + min(1.0, relevance)


# -- hits ------------------------------------------------------------------------------


@dataclass
class _Hit:
    """A ranked candidate with its entry as an agent reads it."""

    candidate: Candidate
    view: EntryView
    gap_hit: tuple[KnownGap, ...]
    narrative_keys: set[int] | None
    """The fact key hashes a warm entry's narrative states, as recorded."""


def _hits(
    store: MemoryStore,
    query: Query,
    terms: tuple[str, ...],
    ranked: list[Candidate],
    rows: dict[str, tuple[Entry, bytes | None, set[int] | None]],
    k: int,
    include_source: str,
    schemas: SchemaResolver,
) -> list[SearchHit]:
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
        rows.update(search_queries.hit_entries(store, more))
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


# -- use -------------------------------------------------------------------------------


def _record_use(
    store: MemoryStore, hits: list[SearchHit], now: datetime, settings: RetrievalSettings
) -> None:
    """Touch the hits the settings say, count the sources fetched, promote (one write)."""
    if settings.touch is TouchMode.HITS:
        touched = [h.entry_id for h in hits]
    elif settings.touch is TouchMode.TOP:
        touched = [h.entry_id for h in hits[:1]]
    else:
        touched = []
    fetched = [h.entry_id for h in hits if h.tier == Tier.WARM.value and h.source is not None]
    if touched or fetched:
        search_queries.record_use(store, now, touched, fetched, settings)
