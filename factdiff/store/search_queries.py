"""The statements retrieval ranks with: term and fact counts, candidates, scores, hit rows,
and the write that records a search's use (touches, source fetches, promotion).

``factdiff.retrieve.search`` builds the queries and ranks; ``SearchQueries``, a repository
over the store's ``Database`` (``MemoryStore.search_queries``), runs its statements
(``search_*`` in ``sql/<dialect>/retrieval.sql``). A text query is any ``TextMatch``
(``factdiff.retrieve.terms.TextQuery``): it gives the dialect's match expression and weights
as statement parameters.

Promotion (``promote``) brings a warm entry back to hot with the same steps as
``MemoryStore.restore`` (hot content from the verified archive, warm row and archive
removed, tier hot) plus a ``promoted`` event: keep the two in step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.cold_tier import ColdTier
from factdiff.store.compact_storage import WARM_COLUMNS, CompactStorage
from factdiff.store.database import Database
from factdiff.store.event_log import EventLog
from factdiff.store.model import EntryNotFound, EventType, NewEvent, Tier
from factdiff.store.search_index import unpack_keys

if TYPE_CHECKING:
    from factdiff.store.model import Entry


class TextMatch(Protocol):
    """A text query as its statements take it."""

    def params(self, dialect: str) -> dict[str, Any]:
        """``{"query": the dialect's match expression, "weights": JSON}``."""
        ...


class PromotionRule(Protocol):
    """When fetching a warm entry's source brings it back to hot (``RetrievalSettings``)."""

    @property
    def promote_after(self) -> int | None:
        """Fetches within the window above which the entry is promoted (None: never)."""
        ...

    @property
    def promote_window(self) -> timedelta:
        """The window fetches are counted in."""
        ...


class SearchQueries:
    """The statements retrieval ranks with, on one store (see the module docstring): over
    ``db``, reading warm views through ``compact``, promoting through ``cold_tier`` and
    logging promotions to ``events``."""

    def __init__(
        self, db: Database, compact: CompactStorage, cold_tier: ColdTier, events: EventLog
    ) -> None:
        self._db = db
        self._compact = compact
        self._cold_tier = cold_tier
        self._events = events

    def term_counts(self, terms: Sequence[str], cap: int) -> dict[str, int]:
        """How many entries hold each of ``terms`` (counted up to ``cap``)."""
        if not terms:
            return {}
        params = {"terms": json.dumps(list(terms)), "cap": cap}
        rows = self._db.rows(self._db.sql("search_term_counts"), params)
        return {str(term): int(count) for term, count in rows}

    def text_candidates(
        self, query: TextMatch, limit: int, agent: str | None, tier: str | None
    ) -> list[tuple[int, float]]:
        """The best ``limit`` docs for the text query, with their scores (higher is better)."""
        params: dict[str, Any] = {
            **query.params(self._db.dialect.name),
            "limit": limit,
            "agent": agent,
            "tier": tier,
        }
        if agent is None and tier is None:
            sql = self._db.sql("search_text")
        else:
            sql = self._db.sql(
                "search_text_filtered", agent=agent is not None, tier=tier is not None
            )
        return [(int(doc), float(score)) for doc, score in self._db.rows(sql, params)]

    def text_scores(self, query: TextMatch, docs: Iterable[int]) -> dict[int, float]:
        """The text scores of ``docs`` for ``query`` (docs that do not match are left out)."""
        chosen = sorted(set(docs))
        if not chosen:
            return {}
        params = {**query.params(self._db.dialect.name), "docs": json.dumps(chosen)}
        rows = self._db.rows(self._db.sql("search_text_scores"), params)
        return {int(doc): float(score) for doc, score in rows}

    def fact_counts(self, key_hashes: Iterable[int], cap: int) -> dict[int, int]:
        """How many entries hold each fact key (counted up to ``cap``)."""
        keys = sorted(set(key_hashes))
        if not keys:
            return {}
        params = {"keys": json.dumps(keys), "cap": cap}
        rows = self._db.rows(self._db.sql("search_fact_counts"), params)
        return {int(key): int(count) for key, count in rows}

    def fact_docs(self, key_hashes: Iterable[int]) -> set[int]:
        """The docs holding any of the fact keys."""
        keys = sorted(set(key_hashes))
        if not keys:
            return set()
        rows = self._db.rows(self._db.sql("search_fact_docs"), {"keys": json.dumps(keys)})
        return {int(doc) for _, doc in rows}

    def fact_hits(self, key_hashes: Iterable[int], docs: Iterable[int]) -> dict[int, set[int]]:
        """doc -> the ``key_hashes`` it holds (docs holding none are left out)."""
        params = {
            "keys": json.dumps(sorted(set(key_hashes))),
            "docs": json.dumps(sorted(set(docs))),
        }
        held: dict[int, set[int]] = {}
        for key, doc in self._db.rows(self._db.sql("search_fact_hits"), params):
            held.setdefault(int(doc), set()).add(int(key))
        return held

    def doc_entries(self, docs: Iterable[int]) -> dict[int, tuple[str, str, str]]:
        """doc -> (entry id, agent, tier)."""
        params = {"docs": json.dumps(sorted(set(docs)))}
        rows = self._db.rows(self._db.sql("search_docs_entries"), params)
        return {int(doc): (str(eid), str(agent), str(tier)) for doc, eid, agent, tier in rows}

    def hot_record(self, entry_id: str) -> bytes | None:
        """A hot entry's packed fact record, if the store has it."""
        data = self._db.one("select_hot_record", entry_id=entry_id)
        return None if data is None else bytes(data)

    def narrative_keys(self, entry_id: str) -> set[int] | None:
        """The fact key hashes a warm entry's narrative states (None if not recorded)."""
        found = self._db.one("select_narrative_keys", entry_id=entry_id)
        return None if found is None else unpack_keys(found)

    def hit_entries(
        self, entry_ids: Sequence[str]
    ) -> dict[str, tuple[Entry, bytes | None, set[int] | None]]:
        """The entries as a search shows them, in one statement: entry id -> (the entry with its
        content or warm view, its packed hot record, the key hashes its narrative states)."""
        if not entry_ids:
            return {}
        rows = self._db.rows(self._db.sql("search_hit_rows"), {"ids": json.dumps(list(entry_ids))})
        found: dict[str, tuple[Entry, bytes | None, set[int] | None]] = {}
        for row in rows:
            entry = rowmap.entry(row)
            warm = row[rowmap.FULL_WARM : rowmap.FULL_WARM + WARM_COLUMNS]
            if entry.tier is Tier.HOT:
                content = None if row["content"] is None else codec.decode_content(row["content"])
                entry = replace(entry, content=content)
            elif warm[0] is not None:
                entry = replace(entry, warm=self._compact.warm_view(entry, warm))
            packed = None if row["hot_record"] is None else bytes(row["hot_record"])
            keys = None if row["narrative_keys"] is None else unpack_keys(row["narrative_keys"])
            found[entry.id] = (entry, packed, keys)
        return found

    def doc_span(self) -> int:
        """About how many entries the indexes hold (the highest doc number)."""
        return int(self._db.one("search_doc_span"))

    def record_use(
        self,
        now: datetime,
        touched: Sequence[str],
        fetched: Sequence[str],
        settings: PromotionRule,
    ) -> list[str]:
        """One write: mark ``touched`` as used, count a source fetch for each of ``fetched``,
        and promote those whose fetches within the window now exceed
        ``settings.promote_after``. Returns the promoted ids."""
        now_us = codec.to_micros(now, "now")
        since = now_us - codec.duration_micros(settings.promote_window, "promote_window")

        def work() -> list[str]:
            for entry_id in touched:
                self._db.exec("touch", id=entry_id, now=now_us)
            promoted = []
            for entry_id in fetched:
                self._db.exec("insert_source_fetch", entry_id=entry_id, at=now_us)
                if settings.promote_after is None:
                    continue
                count = int(self._db.one("count_source_fetches", entry_id=entry_id, since=since))
                if count > settings.promote_after and self.promote(
                    entry_id, now_us, count, settings
                ):
                    promoted.append(entry_id)
            return promoted

        return self._db.write(work)

    def promote(
        self,
        entry_id: str,
        now_us: int,
        fetches: int,
        settings: PromotionRule,
    ) -> bool:
        """Bring a warm entry back to hot (inside a write); ``False`` if it is not warm."""
        row = self._db.row("select_entry", id=entry_id)
        if row is None:
            raise EntryNotFound(entry_id)
        entry = rowmap.entry(row)
        if entry.tier is not Tier.WARM:
            return False
        self._cold_tier.rehydrate(entry, now_us)
        payload = {
            "fetches": fetches,
            "window_seconds": settings.promote_window.total_seconds(),
            "promote_after": settings.promote_after,
            "content_hash": entry.content_hash,
        }
        self._events.append(
            [NewEvent(EventType.PROMOTED, payload)], entry_id, entry.agent_id, now_us
        )
        return True
