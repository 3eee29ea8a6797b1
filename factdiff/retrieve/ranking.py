"""Ranking: the entries the indexes find for a query, in rank order (the rules:
``factdiff.retrieve.search``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from factdiff.retrieve.keys import DISTINCTIVE_TYPES
from factdiff.retrieve.query import Query
from factdiff.retrieve.terms import TextQuery, words

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

__all__ = ["FACT_CAP", "TERM_CAP", "Candidate", "FactStats", "ordered", "rank", "text_terms"]

TERM_CAP = 2000
"""A word held by more entries than this only re-ranks entries found by rarer words."""
FACT_CAP = 200
"""A fact held by more entries than this is a weak match, whatever its type."""

RankKey = TypeVar("RankKey", float, tuple[int, int])
"""What candidates are sorted by: a score, or counts of facts held."""


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
class FactStats:
    """Per query fact: how many entries hold it, its weight, and whether it is distinctive."""

    held_by: int
    weight: float
    distinctive: bool


def rank(
    store: MemoryStore, query: Query, k: int, agent: str | None, tier: str | None
) -> tuple[list[Candidate], tuple[str, ...]]:
    """The candidates in rank order, and the query words the text index ranked them by."""
    total = max(1, store.search_queries.doc_span())
    stats, counts = _fact_stats(store, query, total)
    terms = text_terms(query, stats)
    strong = [
        hashed
        for fact, stat in zip(query.facts, stats, strict=True)
        if stat.distinctive
        for hashed in fact.hashes
        if 0 < counts.get(hashed, 0) <= FACT_CAP
    ]
    candidates = _candidates(store, store.search_queries.fact_docs(strong), agent, tier)
    text_query = _text_query(store, terms, total)
    if text_query is not None and len(candidates) < k:
        # Entries holding a distinctive fact outrank every text-only entry: the text index
        # is asked for more only when they are fewer than k.
        found = store.search_queries.text_candidates(text_query, 2 * k + 10, agent, tier)
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
    return ordered(candidates.values(), lambda c: -c.score), searched


def ordered(
    candidates: Iterable[Candidate], key: Callable[[Candidate], RankKey]
) -> list[Candidate]:
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
    for doc, (entry_id, owner, entry_tier) in store.search_queries.doc_entries(docs).items():
        if (agent is None or owner == agent) and (tier is None or entry_tier == tier):
            found[doc] = Candidate(doc, entry_id, owner, entry_tier)
    return found


def text_terms(query: Query, stats: Sequence[FactStats]) -> tuple[str, ...]:
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
    counts = store.search_queries.term_counts(terms, TERM_CAP + 1)
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
) -> tuple[list[FactStats], dict[int, int]]:
    """Per query fact its stats, and how many entries hold each key (up to ``FACT_CAP`` + 1)."""
    counts = store.search_queries.fact_counts(
        (h for fact in query.facts for h in fact.hashes), FACT_CAP + 1
    )
    stats = []
    for fact in query.facts:
        held_by = min((n for h in fact.hashes if (n := counts.get(h, 0)) > 0), default=0)
        weight = _idf(total, held_by) if held_by else 0.0
        distinctive = fact.value.type in DISTINCTIVE_TYPES and 0 < held_by <= FACT_CAP
        stats.append(FactStats(held_by, weight, distinctive))
    return stats, counts


def _holdings(
    store: MemoryStore, query: Query, stats: list[FactStats], candidates: dict[int, Candidate]
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
    held = store.search_queries.fact_hits(hashes, candidates)
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
    strong = ordered(
        (c for c in candidates.values() if c.strong), lambda c: (-len(c.strong), -len(c.weak))
    )
    scores = store.search_queries.text_scores(query, (c.doc for c in strong[:pool]))
    for candidate in strong:
        candidate.text = scores.get(candidate.doc, 0.0)


def _score(terms: int, stats: list[FactStats], candidates: dict[int, Candidate]) -> None:
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
