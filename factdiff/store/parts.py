"""``StoreParts``: the repositories a store is made of, built over one ``Database``.

Each part is a repository over the same ``Database`` (``factdiff.store.database``); a part
that needs another's work is given that part, or its bound methods, when it is built, so
the parts are built in dependency order: each after those it takes. Two pairs need each
other (the event log and the schema registry, the cold tier and the search index): one of
each pair reaches the other when called, not when built. ``MemoryStore``
(``factdiff.store.base``) holds one ``StoreParts`` and forwards its public methods to them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from factdiff.store.api_keys import ApiKeys
from factdiff.store.attempts import Attempts
from factdiff.store.attestations import Attestations
from factdiff.store.backends import Backend
from factdiff.store.cold_tier import ColdTier
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.correction import Corrections
from factdiff.store.database import Database
from factdiff.store.entries import Entries
from factdiff.store.erasure import Erasure
from factdiff.store.event_log import EventLog
from factdiff.store.extraction_cache import ExtractionCache
from factdiff.store.indexing import Indexer
from factdiff.store.integrity import Integrity
from factdiff.store.leases import Leases
from factdiff.store.migrate import Migrations
from factdiff.store.observe import Monitoring
from factdiff.store.outcomes import Outcomes
from factdiff.store.reencoding import Reencoding
from factdiff.store.reevaluation import Reevaluations
from factdiff.store.reports import Reports
from factdiff.store.reviews import Reviews
from factdiff.store.schema_resolver import SchemaResolver, SchemaSource
from factdiff.store.schemas import SchemaRegistry
from factdiff.store.search_index import SearchIndex
from factdiff.store.search_queries import SearchQueries
from factdiff.store.stats import Stats
from factdiff.store.ui_sessions import UiSessions

__all__ = ["StoreParts"]


class StoreParts:
    """The repositories of one store over ``backend`` (see the module docstring).

    ``max_entry_bytes``: the largest entry accepted; ``indexer``: the store's ``Indexer``
    (resolved when an index row is made); ``schema_source``: where the search index's
    schema resolvers read schemas (the facade, so that what it answers is what they read).
    """

    def __init__(
        self,
        backend: Backend,
        *,
        max_entry_bytes: int,
        indexer: Callable[[], Indexer],
        schema_source: SchemaSource,
    ) -> None:
        db = self.db = Database(backend)
        self.max_entry_bytes = max_entry_bytes
        self.ui_sessions = UiSessions(db)
        self.extraction_cache = ExtractionCache(db)
        self.api_keys = ApiKeys(db)
        self.reports = Reports(db)
        compact = self.compact = CompactStorage(db)
        entries = self.entries = Entries(db, max_entry_bytes, compact.warm_view)
        self.reencoding = Reencoding(db, compact, entries.load)
        events = self.event_log = EventLog(db, self._registered_hash)
        self.schemas = SchemaRegistry(db, events.append)
        self.erasure = Erasure(db, events, compact, self.reencoding)
        self.attestations = Attestations(db, self.erasure.tombstone)
        self.leases = Leases(db, entries.load)
        self.reviews = Reviews(db, events.append)
        index = self.search_index = SearchIndex(
            db,
            indexer,
            partial(SchemaResolver, schema_source),
            entries.load,
            self._read_cold,
        )
        self.cold_tier = ColdTier(
            db,
            events.append,
            cold_bytes=compact.cold_bytes,
            keep_accepted_summary=compact.keep_accepted_summary,
            reindex=index.index_rehydrated,
        )
        self.search_queries = SearchQueries(db, compact, self.cold_tier, events)
        self.corrections = Corrections(
            db,
            max_entry_bytes,
            erasure=self.erasure,
            cold_tier=self.cold_tier,
            search_index=index,
            events=events,
            reencoding=self.reencoding,
            compact=compact,
        )
        self._build_demotion_parts()
        self.stats = Stats(db, self.reports, compact.storage)
        self.migrations = Migrations(db, index.build_search_index)
        self.monitoring = Monitoring(db, self.reports, self.stats.lost_facts)
        self.integrity = Integrity(
            db,
            compact.cold_bytes,
            checks=(
                index.verify_retrieval,
                self.attestations.problems,
                index.unindexed_problems,
                compact.packed_problems,
            ),
        )

    def _build_demotion_parts(self) -> None:
        """Attempts, outcomes and re-evaluations: the parts demotion writes through."""
        db, compact, index = self.db, self.compact, self.search_index
        events, load = self.event_log, self.entries.load
        self.attempts = Attempts(
            db,
            tombstone=self.erasure.tombstone,
            registered_hash=self.schemas.registered_hash,
            identity_refs=compact.identity_refs,
            attempt_narrative=compact.attempt_narrative,
        )
        self.outcomes = Outcomes(
            db,
            self.attempts,
            load=load,
            tombstone=self.erasure.tombstone,
            event_rows=events.rows,
            insert_events=events.insert,
            agent_dictionary=compact.agent_dictionary,
            dictionary_hash=compact.dictionary_hash,
            profile_ref=compact.profile_ref,
            schema_lookup=index.schema_lookup,
            warm_index_doc=index.warm_doc,
            index_demoted=index.index_demoted,
        )
        self.reevaluations = Reevaluations(
            db,
            load=load,
            event_rows=events.rows,
            insert_events=events.insert,
            rehydrate=partial(self.cold_tier.rehydrate, touch=False),
            index_demoted=index.index_demoted,
            cold_bytes=compact.cold_bytes,
            agent_dictionary=compact.agent_dictionary,
            warm_params=compact.warm_params,
        )

    def _registered_hash(self, name: str, version: int) -> str | None:
        """The event log's reach into the registry (built after it)."""
        return self.schemas.registered_hash(name, version)

    def _read_cold(self, entry_id: str) -> str:
        """The search index's reach into the cold tier (built after it)."""
        return self.cold_tier.read_cold(entry_id)
