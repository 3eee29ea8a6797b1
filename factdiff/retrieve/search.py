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
   organisation, held by at most ``ranking.FACT_CAP`` entries (a value that many entries hold
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

Words held by more than ``ranking.TERM_CAP`` entries are left out (the database never ranks every
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

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.retrieve.hit_assembly import build_hits
from factdiff.retrieve.hits import SearchHit
from factdiff.retrieve.query import read_query
from factdiff.retrieve.ranking import rank
from factdiff.retrieve.schemas import GENERIC, SchemaResolver
from factdiff.schema.model import FactSchema
from factdiff.settings.retrieval import RetrievalSettings, TouchMode
from factdiff.store.model import Tier

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

__all__ = ["INCLUDE_SOURCE", "MAX_QUERY_CHARS", "TIERS", "record_use", "search"]

INCLUDE_SOURCE = ("always", "auto", "never")
TIERS = (Tier.HOT.value, Tier.WARM.value)
MAX_QUERY_CHARS = 10_000


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
    if touch and store.has_pending_facts():
        store.index_pending()
    with store.read_snapshot():
        ranked, terms = rank(store, parsed, k, agent, tier)
        rows = store.search_queries.hit_entries([c.entry_id for c in ranked[:k]])
    hits = build_hits(store, parsed, terms, ranked, rows, k, include_source, schemas)
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


# -- use -------------------------------------------------------------------------------


def _record_use(
    store: MemoryStore, hits: list[SearchHit], now: datetime, settings: RetrievalSettings
) -> None:
    """``record_use`` of a search's hits."""
    used = [(h.entry_id, h.tier == Tier.WARM.value and h.source is not None) for h in hits]
    record_use(store, used, now, settings)


def record_use(
    store: MemoryStore,
    used: Sequence[tuple[str, bool]],
    now: datetime,
    settings: RetrievalSettings,
) -> None:
    """What a search records of the entries it returned, ``used`` as (entry id, whether its
    archived source was fetched) in rank order: touch those the settings say (their dormancy
    clock restarts), count the sources fetched toward promotion (one write)."""
    if settings.touch is TouchMode.HITS:
        touched = [entry_id for entry_id, _ in used]
    elif settings.touch is TouchMode.TOP:
        touched = [entry_id for entry_id, _ in used[:1]]
    else:
        touched = []
    fetched = [entry_id for entry_id, source in used if source]
    if touched or fetched:
        store.search_queries.record_use(now, touched, fetched, settings)
