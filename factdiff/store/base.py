"""``MemoryStore``: the tiered memory store's facade, shared by every backend.

The store is made of parts (``factdiff.store.parts.StoreParts``): repositories over one
``Database`` (``factdiff.store.database``: a backend, an embedded SQLite file or a PostgreSQL
server, with its dialect's named statements), so both backends behave alike and one test
suite runs against both. The facade forwards their public methods (``factdiff.store.forward``)
and adds the few that span several parts (``add_many``, ``get``). What it needs from the
layers above (index rows, retrieval) it is given as ``StoreServices``
(``factdiff.store.indexing``).

Open a store with ``MemoryStore.open(path_or_dsn)`` (see ``factdiff.store.open_store``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from factdiff.errors import InputError
from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.activity import DailyActivity, read_daily_activity
from factdiff.store.api_keys import ApiKeys
from factdiff.store.attempts import Attempts
from factdiff.store.attestations import Attestations
from factdiff.store.backends import Backend, open_backend
from factdiff.store.cold_tier import ColdTier
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.correction import Corrections
from factdiff.store.database import Database
from factdiff.store.dialect import Dialect
from factdiff.store.entries import Entries
from factdiff.store.erasure import Erasure
from factdiff.store.event_log import EventLog
from factdiff.store.extraction_cache import ExtractionCache
from factdiff.store.forward import forward
from factdiff.store.indexing import StoreServices, default_services
from factdiff.store.integrity import Integrity
from factdiff.store.leases import Leases
from factdiff.store.migrate import Migrations
from factdiff.store.model import (
    BadEntry,
    Entry,
    EntryErased,
    EntryNotFound,
    NewEntry,
)
from factdiff.store.observe import Monitoring
from factdiff.store.outcomes import Outcomes
from factdiff.store.parts import StoreParts
from factdiff.store.reencoding import Reencoding
from factdiff.store.reevaluation import Reevaluations
from factdiff.store.reports import Reports
from factdiff.store.retrieval import Searches
from factdiff.store.reviews import Reviews
from factdiff.store.schemas import SchemaRegistry
from factdiff.store.search_index import SearchIndex
from factdiff.store.search_queries import SearchQueries
from factdiff.store.stats import Stats
from factdiff.store.ui_sessions import UiSessions

DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""Entries larger than this (UTF-8 bytes) are rejected with ``InputError``, never truncated."""

PAGE_SIZE = rowmap.PAGE_SIZE


class MemoryStore:
    """Entries in hot and warm tiers with cold archives, attempts, events, schemas, cache.

    Open with ``factdiff.store.open_store(path_or_dsn)``; use as a context manager or call
    ``close()``. Every method that records a time takes ``now`` (timezone-aware): the store
    never reads the wall clock, except the database clock for lease arithmetic.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        services: StoreServices[MemoryStore] | None = None,
    ) -> None:
        self._services = services
        self._parts = StoreParts(
            backend,
            max_entry_bytes=max_entry_bytes,
            indexer=lambda: self.services.indexer,
            schema_source=self,
        )
        self._searches = Searches(self)

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        target: str | Path,
        *,
        create: bool = True,
        check_version: bool = True,
        read_only: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        services: StoreServices[MemoryStore] | None = None,
        **options: Any,
    ) -> Self:
        """Open the store at ``target``: a ``postgresql://`` DSN or a SQLite file path; the
        same as ``factdiff.store.open_store`` (the one way factdiff opens a store), kept for
        ``factdiff.Store.open`` and subclasses.

        ``create``: an empty store is migrated (and a missing SQLite file created; otherwise
        it raises ``StoreError``). ``check_version``: an older schema raises
        ``MigrationRequired`` and a newer one ``StoreError``; pass ``False`` to open a store
        only to ``migrate()`` it. ``read_only``: open without writing (a write then raises
        ``StoreError``). ``services``: the indexer and retrieval the store uses
        (``factdiff.store.indexing``; default: the rules-based ones the package root wires).
        Other ``options`` go to the backend (``dialect``;
        ``busy_timeout_ms``/``busy_retries`` for SQLite; ``pool_size``,
        ``application_name``... for PostgreSQL, see ``factdiff.store.backends``).
        """
        backend = open_backend(target, create=create, read_only=read_only, **options)
        return cls.from_backend(
            backend,
            create=create,
            check_version=check_version,
            read_only=read_only,
            max_entry_bytes=max_entry_bytes,
            services=services,
        )

    @classmethod
    def from_backend(
        cls,
        backend: Backend,
        *,
        create: bool = True,
        check_version: bool = True,
        read_only: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        services: StoreServices[MemoryStore] | None = None,
    ) -> Self:
        """The store on an open ``backend`` (options as for ``open``); the backend is closed
        when the version check fails."""
        store = cls(backend, max_entry_bytes=max_entry_bytes, services=services)
        try:
            if check_version:
                store._parts.migrations.check_version(create and not read_only)
        except BaseException:
            backend.close()
            raise
        return store

    @property
    def backend(self) -> Backend:
        """The database this store runs on."""
        return self._parts.db.backend

    @property
    def thread_safe(self) -> bool:
        """Whether several threads may share this object (else open one store per thread)."""
        return self.backend.thread_safe

    @property
    def location(self) -> str:
        """Where the store lives, for messages (a path, or a DSN without its password)."""
        return self.backend.location

    @property
    def dialect(self) -> Dialect:
        """The backend's SQL."""
        return self._parts.db.dialect

    def close(self) -> None:
        """Release the connection(s) (idempotent)."""
        self.backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def services(self) -> StoreServices[MemoryStore]:
        """The indexer and retrieval this store uses (resolved on first use)."""
        if self._services is None:
            self._services = default_services()
        return self._services

    def read_snapshot(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several reads."""
        return self._parts.db.read()

    @property
    def attestations(self) -> Attestations:
        """The attestation rows: recorded, read back and checked (``factdiff.retrieve.attest``
        renders and compares the contexts)."""
        return self._parts.attestations

    @property
    def search_queries(self) -> SearchQueries:
        """The statements retrieval ranks with and the write that records a search's use
        (``factdiff.retrieve`` runs them)."""
        return self._parts.search_queries

    def daily_activity(self) -> DailyActivity:
        """Attempts per UTC day and outcome, review decisions per day and type (the
        dashboard's), in one read snapshot."""
        return read_daily_activity(self._parts.db)

    @property
    def max_entry_bytes(self) -> int:
        """The largest entry ``add`` accepts, in UTF-8 bytes."""
        return self._parts.max_entry_bytes

    # -- plumbing (the database's part) ----------------------------------------------------

    @property
    def database(self) -> Database:
        """The backend with its dialect, which the store's parts run their SQL through."""
        return self._parts.db

    write_each = forward("_parts.db", Database.write_each)

    # -- entries ---------------------------------------------------------------------------

    def add(
        self,
        agent_id: str,
        content: str,
        *,
        now: datetime,
        occurred_at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
        schema: str | None = None,
        tags: tuple[str, ...] = (),
        last_used_at: datetime | None = None,
    ) -> str:
        """Store a new hot entry and return its id (a ULID from ``now``).

        ``last_used_at`` defaults to ``now`` (imports may pass an older time). Raises
        ``BlankEntry`` for empty or whitespace-only content, ``BadSchemaName`` for a schema
        name that breaks the naming rule (``factdiff.schema.names``; ``NAME@VERSION`` is a
        name too), and ``InputError`` for an empty agent id, lone surrogates, or content over
        the limit. A well-formed name need not be registered yet (demotion reports it).
        """
        entry = NewEntry(
            agent_id, content, occurred_at, dict(metadata or {}), schema, tags, last_used_at
        )
        return self.add_many([entry], now=now)[0]

    def add_many(
        self, entries: Iterable[NewEntry], *, now: datetime, index_facts: bool = True
    ) -> list[str]:
        """Store many hot entries in one transaction (all or none); returns their ids in order.

        Each entry is checked as ``add`` checks it before anything is written; the
        error for a bad one is ``BadEntry`` (an ``InputError`` with its ``position``, from 1)
        when there are several. The ids come from ``now`` and sort in the order given.
        Every entry is indexed for search in the same transaction (its words, and the facts
        of its rules extraction); with ``index_facts=False`` only its words, its facts being
        indexed later by ``index_pending`` (or the next search) - for fast bulk loads.
        """
        items = list(entries)
        ids = codec.new_entry_ids(now, len(items))
        now_us = codec.to_micros(now, "now")
        rows: list[dict[str, Any]] = []
        contents: list[dict[str, Any]] = []
        for position, (entry_id, item) in enumerate(zip(ids, items, strict=True), start=1):
            try:
                row, data = self._parts.entries.params(entry_id, item, now, now_us)
            except InputError as exc:
                if len(items) == 1:
                    raise
                raise BadEntry(position, str(exc)) from None
            rows.append(row)
            contents.append({"id": entry_id, "content": data})
        if not rows:
            return []
        db, search_index = self._parts.db, self._parts.search_index
        index = search_index.hot_docs(ids, items, facts=index_facts)

        def work() -> None:
            db.exec_many("insert_entry", rows)
            db.exec_many("insert_hot", contents)
            search_index.write_docs(index)

        db.write(work)
        return ids

    def get(self, entry_id: str) -> Entry:
        """The entry with its hot content or warm view; ``EntryErased`` (an
        ``EntryNotFound``) if it was erased, ``EntryNotFound`` if unknown."""
        entry = self._parts.entries.load(entry_id)
        if entry is None:
            stone = self._parts.erasure.tombstone(entry_id)
            raise EntryNotFound(entry_id) if stone is None else EntryErased(stone)
        return entry

    def vacuum(self) -> None:
        """Rewrite the store without the free space or dead rows where erased content may
        linger (SQLite: ``VACUUM`` with ``secure_delete``, then the write-ahead log emptied;
        PostgreSQL: ``VACUUM FULL`` of the store's own tables). Locks the store while it runs."""
        self._parts.db.vacuum()

    def prime_dictionary(self, agent_id: str, now: datetime) -> bool:
        """Train the agent's first zstd dictionary now, when it has none and enough entries:
        what its first warm write would otherwise do on its way (the same samples, so the
        same dictionary, stored at ``now``). Whether the agent has a dictionary after."""
        found, _ = self._parts.compact.agent_dictionary(agent_id, codec.to_micros(now, "now"))
        return found is not None

    # -- entries (Entries) --
    touch = forward("_parts.entries", Entries.touch)
    entries = forward("_parts.entries", Entries.entries)
    entry_page = forward("_parts.entries", Entries.entry_page)
    due_for_demotion = forward("_parts.entries", Entries.due_for_demotion)

    # -- erasure and correction (Erasure, Corrections) --
    forget = forward("_parts.erasure", Erasure.forget)
    forget_agent = forward("_parts.erasure", Erasure.forget_agent)
    tombstone = forward("_parts.erasure", Erasure.tombstone)
    correct = forward("_parts.corrections", Corrections.correct)

    # -- ui sessions (UiSessions) --
    start_ui_session = forward("_parts.ui_sessions", UiSessions.start_ui_session)
    ui_session_key = forward("_parts.ui_sessions", UiSessions.ui_session_key)
    end_ui_session = forward("_parts.ui_sessions", UiSessions.end_ui_session)

    # -- extraction cache (ExtractionCache) --
    cached_extraction = forward("_parts.extraction_cache", ExtractionCache.cached_extraction)
    put_extraction = forward("_parts.extraction_cache", ExtractionCache.put_extraction)

    # -- api keys (ApiKeys) --
    create_api_key = forward("_parts.api_keys", ApiKeys.create_api_key)
    api_key_for = forward("_parts.api_keys", ApiKeys.api_key_for)
    api_keys = forward("_parts.api_keys", ApiKeys.api_keys)
    revoke_api_key = forward("_parts.api_keys", ApiKeys.revoke_api_key)

    # -- reports (Reports) --
    registered_schemas = forward("_parts.reports", Reports.registered_schemas)
    agent_schema_assignments = forward("_parts.reports", Reports.agent_schema_assignments)
    agent_counts = forward("_parts.reports", Reports.agent_counts)
    agent_coverage = forward("_parts.reports", Reports.agent_coverage)
    review_backlog = forward("_parts.reports", Reports.review_backlog)
    recent_outcomes = forward("_parts.reports", Reports.recent_outcomes)
    reevaluation_results = forward("_parts.reports", Reports.reevaluation_results)
    reevaluation_by_agent = forward("_parts.reports", Reports.reevaluation_by_agent)
    loss_attempts = forward("_parts.reports", Reports.loss_attempts)

    # -- event log (EventLog) --
    events = forward("_parts.event_log", EventLog.events)
    event_page = forward("_parts.event_log", EventLog.event_page)
    last_event_id = forward("_parts.event_log", EventLog.last_event_id)

    # -- schema registry (SchemaRegistry) --
    register_schema = forward("_parts.schemas", SchemaRegistry.register_schema)
    get_schema_definition = forward("_parts.schemas", SchemaRegistry.get_schema_definition)
    schema_versions = forward("_parts.schemas", SchemaRegistry.schema_versions)
    set_agent_schema = forward("_parts.schemas", SchemaRegistry.set_agent_schema)
    schema_for = forward("_parts.schemas", SchemaRegistry.schema_for)

    # -- leases (Leases) --
    claim = forward("_parts.leases", Leases.claim)
    heartbeat = forward("_parts.leases", Leases.heartbeat)
    release = forward("_parts.leases", Leases.release)
    leases = forward("_parts.leases", Leases.leases)
    db_now = forward("_parts.leases", Leases.db_now)

    # -- review queue (Reviews) --
    resolve_review = forward("_parts.reviews", Reviews.resolve_review)
    resolve_reviews = forward("_parts.reviews", Reviews.resolve_reviews)
    keep_hot = forward("_parts.reviews", Reviews.keep_hot)
    kept_hot = forward("_parts.reviews", Reviews.kept_hot)
    review_reason = forward("_parts.reviews", Reviews.review_reason)

    # -- cold tier (ColdTier) --
    read_cold = forward("_parts.cold_tier", ColdTier.read_cold)
    restore = forward("_parts.cold_tier", ColdTier.restore)

    # -- migrations (Migrations) --
    schema_version = forward("_parts.migrations", Migrations.schema_version)
    migrate = forward("_parts.migrations", Migrations.migrate)

    # -- monitoring (Monitoring) --
    metrics_snapshot = forward("_parts.monitoring", Monitoring.metrics_snapshot)

    # -- integrity (Integrity) --
    verify = forward("_parts.integrity", Integrity.verify)

    # -- compact storage (CompactStorage) --
    latest_dictionary = forward("_parts.compact", CompactStorage.latest_dictionary)
    prune_clean_attempts = forward("_parts.compact", CompactStorage.prune_clean_attempts)
    storage = forward("_parts.compact", CompactStorage.storage)

    # -- re-encoding (Reencoding) --
    retire_dictionaries_trained_on = forward(
        "_parts.reencoding", Reencoding.retire_dictionaries_trained_on
    )
    retire_agent_dictionaries = forward("_parts.reencoding", Reencoding.retire_agent_dictionaries)

    # -- search index (SearchIndex) --
    index_pending = forward("_parts.search_index", SearchIndex.index_pending)
    has_pending_facts = forward("_parts.search_index", SearchIndex.has_pending)
    build_search_index = forward("_parts.search_index", SearchIndex.build_search_index)

    # -- outcomes (Outcomes, Attempts) --
    apply_compressed = forward("_parts.outcomes", Outcomes.apply_compressed)
    apply_failed = forward("_parts.outcomes", Outcomes.apply_failed)
    apply_error = forward("_parts.outcomes", Outcomes.apply_error)
    attempts = forward("_parts.attempts", Attempts.attempts)
    last_must_keep = forward("_parts.attempts", Attempts.last_must_keep)
    model_calls = forward("_parts.attempts", Attempts.model_calls)

    # -- stats (Stats) --
    stats = forward("_parts.stats", Stats.stats)
    failure_by_schema = forward("_parts.stats", Stats.failure_by_schema)
    failure_by_agent = forward("_parts.stats", Stats.failure_by_agent)
    lost_facts = forward("_parts.stats", Stats.lost_facts)
    facts_lost = forward("_parts.stats", Stats.facts_lost)
    review_backlog_summary = forward("_parts.stats", Stats.review_backlog_summary)
    model_usage = forward("_parts.stats", Stats.model_usage)
    llm_cost = forward("_parts.stats", Stats.llm_cost)

    # -- retrieval (Searches) --
    search = forward("_searches", Searches.search)
    render_context = forward("_searches", Searches.render_context)
    attest = forward("_searches", Searches.attest)
    check_attestation = forward("_searches", Searches.check_attestation)

    # -- re-evaluation (Reevaluations) --
    warm_schema_versions = forward("_parts.reevaluations", Reevaluations.warm_schema_versions)
    enqueue_reevaluations = forward("_parts.reevaluations", Reevaluations.enqueue_reevaluations)
    warm_candidates = forward("_parts.reevaluations", Reevaluations.warm_candidates)
    pending_reevaluations = forward("_parts.reevaluations", Reevaluations.pending_reevaluations)
    claim_reevaluations = forward("_parts.reevaluations", Reevaluations.claim_reevaluations)
    heartbeat_reevaluation = forward("_parts.reevaluations", Reevaluations.heartbeat_reevaluation)
    release_reevaluation = forward("_parts.reevaluations", Reevaluations.release_reevaluation)
    finish_reevaluation = forward("_parts.reevaluations", Reevaluations.finish_reevaluation)
    finish_reevaluations = forward("_parts.reevaluations", Reevaluations.finish_reevaluations)
    warm_state = forward("_parts.reevaluations", Reevaluations.warm_state)
