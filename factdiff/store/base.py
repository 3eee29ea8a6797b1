"""``MemoryStore``: the tiered memory store's facade, shared by every backend.

The store holds a ``Database`` (``factdiff.store.database``: a backend, an embedded SQLite
file or a PostgreSQL server, with its dialect's named statements), so both backends behave
alike and one test suite runs against both. Its parts are repositories over that database
(``entries``, ``attestations``, ``leases``, ``reviews``, ``cold_tier``, ``event_log``,
``schemas``, ``migrate``, ``integrity``, ``observe``, ``reports``, ``api_keys``,
``compact_storage``, ``reencoding``, ``search_index``...), whose methods it forwards
(``factdiff.store.forward``), and, not yet converted, mixin modules (``outcomes``,
``stats``, ``retrieval``, ``reevaluation``). What it needs from the layers above (index
rows, retrieval) it is given as ``StoreServices`` (``factdiff.store.indexing``).

Open a store with ``MemoryStore.open(path_or_dsn)`` (see ``factdiff.store.open_store``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from factdiff.errors import InputError
from factdiff.store import codec, correction, erasure, schema_refs, search_index
from factdiff.store import rows as rowmap
from factdiff.store.activity import DailyActivity, read_daily_activity
from factdiff.store.api_keys import ApiKeys
from factdiff.store.attempts import Attempts
from factdiff.store.attestations import Attestations
from factdiff.store.backends import Backend, open_backend
from factdiff.store.cold_tier import ColdTier
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.correction import Correction
from factdiff.store.database import Database
from factdiff.store.dialect import Dialect
from factdiff.store.dictionaries import DictionaryCache
from factdiff.store.entries import Entries
from factdiff.store.erasure import Forgotten
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
    EntryStatus,
    NewEntry,
    NewEvent,
    Page,
    Tier,
    Tombstone,
)
from factdiff.store.observe import Monitoring
from factdiff.store.outcomes import Outcomes
from factdiff.store.plumbing import DatabaseAccess
from factdiff.store.reencoding import Reencoding
from factdiff.store.reevaluation import Reevaluations
from factdiff.store.reports import Reports
from factdiff.store.retrieval import Searches
from factdiff.store.reviews import Reviews
from factdiff.store.schema_resolver import SchemaResolver
from factdiff.store.schemas import SchemaRegistry
from factdiff.store.search_index import SearchIndex
from factdiff.store.stats import Stats
from factdiff.store.ui_sessions import UiSessions

DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""Entries larger than this (UTF-8 bytes) are rejected with ``InputError``, never truncated."""

PAGE_SIZE = rowmap.PAGE_SIZE


class MemoryStore(
    DatabaseAccess,
):
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
        services: StoreServices | None = None,
    ) -> None:
        self._services = services
        self._backend = backend
        self._dialect = backend.dialect
        self._db = Database(backend)
        self._attestations = Attestations(self._db, self.tombstone)
        self._ui_sessions = UiSessions(self._db)
        self._extraction_cache = ExtractionCache(self._db)
        self._api_keys = ApiKeys(self._db)
        self._reports = Reports(self._db)
        self._compact = CompactStorage(self._db)
        self._entries = Entries(self._db, max_entry_bytes, self._warm_view)
        self._reencoding = Reencoding(self._db, self._compact, self._entries.load)
        self._max_entry_bytes = max_entry_bytes
        # built after the parts whose bound methods they take
        self._schemas = SchemaRegistry(self._db, self._append_events)
        self._event_log = EventLog(self._db, self._schemas.registered_hash)
        self._leases = Leases(self._db, self._entries.load)
        self._reviews = Reviews(self._db, self._append_events)
        self._cold_tier = ColdTier(
            self._db,
            self._append_events,
            cold_bytes=self._cold_bytes,
            keep_accepted_summary=self._keep_accepted_summary,
            reindex=partial(search_index.index_rehydrated, self),
        )
        self._search_index = SearchIndex(
            self._db,
            lambda: self.services.indexer,
            partial(SchemaResolver, self),
            self._entries.load,
            self.read_cold,
        )
        self._attempts = Attempts(
            self._db,
            tombstone=self.tombstone,
            registered_hash=self._registered_hash,
            identity_refs=self._identity_refs,
            attempt_narrative=self._attempt_narrative,
        )
        self._outcomes = Outcomes(
            self._db,
            self._attempts,
            load=self._load,
            tombstone=self.tombstone,
            event_rows=self._event_rows,
            insert_events=self._insert_events,
            agent_dictionary=self._agent_dictionary,
            dictionary_hash=self._dictionary_hash,
            profile_ref=self._profile_ref,
            schema_lookup=partial(search_index.schema_lookup, self),
            warm_index_doc=partial(search_index.warm_index_doc, self),
            index_demoted=partial(search_index.index_demoted, self),
        )
        self._stats = Stats(self._db, self._reports, self.storage)
        self._searches = Searches(self)
        self._reevaluations = Reevaluations(
            self._db,
            load=self._load,
            event_rows=self._event_rows,
            insert_events=self._insert_events,
            rehydrate=partial(self._rehydrate, touch=False),
            index_demoted=partial(search_index.index_demoted, self),
            cold_bytes=self._cold_bytes,
            agent_dictionary=self._agent_dictionary,
            warm_params=self._warm_params,
        )
        self._migrations = Migrations(self._db, self.build_search_index)
        self._monitoring = Monitoring(self._db, self._reports, self.lost_facts)
        self._integrity = Integrity(
            self._db,
            self._cold_bytes,
            checks=(
                partial(search_index.verify_retrieval, self),
                self._attestations.problems,
                partial(search_index.unindexed_problems, self),
                self._packed_problems,
            ),
        )

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
        services: StoreServices | None = None,
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
        services: StoreServices | None = None,
    ) -> Self:
        """The store on an open ``backend`` (options as for ``open``); the backend is closed
        when the version check fails."""
        store = cls(backend, max_entry_bytes=max_entry_bytes, services=services)
        try:
            if check_version:
                store._check_version(create and not read_only)
        except BaseException:
            backend.close()
            raise
        return store

    @property
    def backend(self) -> Backend:
        """The database this store runs on."""
        return self._backend

    @property
    def thread_safe(self) -> bool:
        """Whether several threads may share this object (else open one store per thread)."""
        return self._backend.thread_safe

    @property
    def location(self) -> str:
        """Where the store lives, for messages (a path, or a DSN without its password)."""
        return self._backend.location

    @property
    def dialect(self) -> Dialect:
        """The backend's SQL."""
        return self._dialect

    def close(self) -> None:
        """Release the connection(s) (idempotent)."""
        self._backend.close()

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
    def services(self) -> StoreServices:
        """The indexer and retrieval this store uses (resolved on first use)."""
        if self._services is None:
            self._services = default_services()
        return self._services

    def read_snapshot(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several reads."""
        return self._db.read()

    @property
    def attestations(self) -> Attestations:
        """The attestation rows: recorded, read back and checked (``factdiff.retrieve.attest``
        renders and compares the contexts)."""
        return self._attestations

    def daily_activity(self) -> DailyActivity:
        """Attempts per UTC day and outcome, review decisions per day and type (the
        dashboard's), in one read snapshot."""
        return read_daily_activity(self._db)

    @property
    def max_entry_bytes(self) -> int:
        """The largest entry ``add`` accepts, in UTF-8 bytes."""
        return self._max_entry_bytes

    # -- plumbing (the database's part) ----------------------------------------------------

    @property
    def database(self) -> Database:
        """The backend with its dialect, which the store's parts run their SQL through."""
        return self._db

    write_each = forward("_db", Database.write_each)

    def _append_events(
        self, events: list[NewEvent], entry_id: str | None, agent_id: str | None, now: int
    ) -> None:
        self._insert_events(self._event_rows(events), entry_id, agent_id, now)

    def _event_rows(self, events: list[NewEvent]) -> list[tuple[str, str, bytes | None]]:
        """The rows of ``events`` as stored (``rowmap.event_rows``), each diff's schema hash
        stored once (``schema_refs``); made before the transaction."""
        return rowmap.event_rows(
            [schema_refs.elide_event(e, self._registered_hash) for e in events]
        )

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
                row, data = self._entry_params(entry_id, item, now, now_us)
            except InputError as exc:
                if len(items) == 1:
                    raise
                raise BadEntry(position, str(exc)) from None
            rows.append(row)
            contents.append({"id": entry_id, "content": data})
        if not rows:
            return []
        index = self._search_index.hot_docs(ids, items, facts=index_facts)

        def work() -> None:
            self._exec_many("insert_entry", rows)
            self._exec_many("insert_hot", contents)
            self._search_index.write_docs(index)

        self._write(work)
        return ids

    def get(self, entry_id: str) -> Entry:
        """The entry with its hot content or warm view; ``EntryErased`` (an
        ``EntryNotFound``) if it was erased, ``EntryNotFound`` if unknown."""
        entry = self._load(entry_id)
        if entry is None:
            stone = erasure.tombstone(self, entry_id)
            raise EntryNotFound(entry_id) if stone is None else EntryErased(stone)
        return entry

    # -- erasure and correction ------------------------------------------------------------

    def forget(
        self,
        entry_ids: Iterable[str],
        *,
        now: datetime,
        reason: str = "",
        owner: str | None = None,
        on_step: Callable[[str], None] | None = None,
    ) -> list[Forgotten]:
        """Erase these entries' content from every place the store keeps it, one transaction
        per entry, leaving tombstones and ``erased`` events (see ``factdiff.store.erasure``).
        Idempotent; an unknown id (or, with ``owner``, another agent's) raises
        ``EntryNotFound`` before anything is erased."""
        return erasure.forget(self, entry_ids, now=now, reason=reason, owner=owner, on_step=on_step)

    def forget_agent(
        self,
        agent: str,
        *,
        now: datetime,
        reason: str = "",
        on_step: Callable[[str], None] | None = None,
    ) -> list[Forgotten]:
        """Erase every entry of ``agent`` (as ``forget``)."""
        return erasure.forget_agent(self, agent, now=now, reason=reason, on_step=on_step)

    def tombstone(self, entry_id: str) -> Tombstone | None:
        """The tombstone of an erased entry (None if ``entry_id`` was not erased)."""
        return erasure.tombstone(self, entry_id)

    def correct(
        self, entry_id: str, content: str, *, now: datetime, reason: str = ""
    ) -> Correction:
        """Replace an entry's source with ``content`` (a warm entry is restored first), in
        one transaction (see ``factdiff.store.correction``)."""
        return correction.correct(self, entry_id, content, now=now, reason=reason)

    def vacuum(self) -> None:
        """Rewrite the store without the free space or dead rows where erased content may
        linger (SQLite: ``VACUUM`` with ``secure_delete``, then the write-ahead log emptied;
        PostgreSQL: ``VACUUM FULL`` of the store's own tables). Locks the store while it runs."""
        self._db.vacuum()

    def prime_dictionary(self, agent_id: str, now: datetime) -> bool:
        """Train the agent's first zstd dictionary now, when it has none and enough entries:
        what its first warm write would otherwise do on its way (the same samples, so the
        same dictionary, stored at ``now``). Whether the agent has a dictionary after."""
        found, _ = self._agent_dictionary(agent_id, codec.to_micros(now, "now"))
        return found is not None

    def _entry_params(
        self, entry_id: str, item: NewEntry, now: datetime, now_us: int
    ) -> tuple[dict[str, Any], bytes]:
        return self._entries.params(entry_id, item, now, now_us)

    def _load(self, entry_id: str) -> Entry | None:
        """The entry with its content or warm view (``Entries.load``; None if unknown)."""
        return self._entries.load(entry_id)

    def touch(self, entry_id: str, now: datetime) -> None:
        """Record a use of the entry: its dormancy clock restarts at ``now``."""
        self._entries.touch(entry_id, now)

    def entries(
        self,
        agent: str | None = None,
        tier: Tier | None = None,
        status: EntryStatus | None = None,
        limit: int | None = None,
        *,
        with_content: bool = True,
    ) -> Iterator[Entry]:
        """Entries in id order (creation order), streamed page by page.

        With ``with_content`` each entry is re-read with its content or warm view as it is
        yielded; without, ``content`` and ``warm`` stay ``None`` (cheap listings).
        """
        return self._entries.entries(agent, tier, status, limit, with_content=with_content)

    def entry_page(
        self,
        *,
        agent: str | None = None,
        tier: Tier | None = None,
        status: EntryStatus | None = None,
        tag: str | None = None,
        exclude_kept: bool = False,
        after: str = "",
        limit: int = 100,
    ) -> Page[Entry]:
        """One page of entries in id order after the id ``after`` (``""``: from the start),
        with how many match the filters (``tag``: entries carrying that tag;
        ``exclude_kept``: not those kept hot by an operator) in all; one read snapshot. No
        content is loaded."""
        return self._entries.entry_page(
            agent=agent,
            tier=tier,
            status=status,
            tag=tag,
            exclude_kept=exclude_kept,
            after=after,
            limit=limit,
        )

    def due_for_demotion(
        self,
        now: datetime,
        older_than: timedelta,
        agent: str | None = None,
        limit: int | None = None,
        *,
        with_content: bool = True,
    ) -> Iterator[Entry]:
        """Hot, active entries unused since ``now - older_than`` whose backoff has expired.

        Ordered by ``last_used_at`` then id, streamed through a partial index. With
        ``with_content`` each entry is re-read as it is yielded and skipped if it has left
        the hot tier or active status meanwhile.
        """
        return self._entries.due_for_demotion(
            now, older_than, agent, limit, with_content=with_content
        )

    # -- ui sessions (UiSessions) --
    start_ui_session = forward("_ui_sessions", UiSessions.start_ui_session)
    ui_session_key = forward("_ui_sessions", UiSessions.ui_session_key)
    end_ui_session = forward("_ui_sessions", UiSessions.end_ui_session)

    # -- extraction cache (ExtractionCache) --
    cached_extraction = forward("_extraction_cache", ExtractionCache.cached_extraction)
    put_extraction = forward("_extraction_cache", ExtractionCache.put_extraction)

    # -- api keys (ApiKeys) --
    create_api_key = forward("_api_keys", ApiKeys.create_api_key)
    api_key_for = forward("_api_keys", ApiKeys.api_key_for)
    api_keys = forward("_api_keys", ApiKeys.api_keys)
    revoke_api_key = forward("_api_keys", ApiKeys.revoke_api_key)

    # -- reports (Reports) --
    registered_schemas = forward("_reports", Reports.registered_schemas)
    agent_schema_assignments = forward("_reports", Reports.agent_schema_assignments)
    agent_counts = forward("_reports", Reports.agent_counts)
    review_backlog = forward("_reports", Reports.review_backlog)
    recent_outcomes = forward("_reports", Reports.recent_outcomes)
    reevaluation_results = forward("_reports", Reports.reevaluation_results)
    reevaluation_by_agent = forward("_reports", Reports.reevaluation_by_agent)
    loss_attempts = forward("_reports", Reports.loss_attempts)

    # -- event log (EventLog) --
    events = forward("_event_log", EventLog.events)
    event_page = forward("_event_log", EventLog.event_page)
    last_event_id = forward("_event_log", EventLog.last_event_id)

    # -- schema registry (SchemaRegistry) --
    register_schema = forward("_schemas", SchemaRegistry.register_schema)
    get_schema_definition = forward("_schemas", SchemaRegistry.get_schema_definition)
    schema_versions = forward("_schemas", SchemaRegistry.schema_versions)
    set_agent_schema = forward("_schemas", SchemaRegistry.set_agent_schema)
    schema_for = forward("_schemas", SchemaRegistry.schema_for)
    _registered_hash = forward("_schemas", SchemaRegistry.registered_hash)

    # -- leases (Leases) --
    claim = forward("_leases", Leases.claim)
    heartbeat = forward("_leases", Leases.heartbeat)
    release = forward("_leases", Leases.release)
    leases = forward("_leases", Leases.leases)
    db_now = forward("_leases", Leases.db_now)

    # -- review queue (Reviews) --
    resolve_review = forward("_reviews", Reviews.resolve_review)
    resolve_reviews = forward("_reviews", Reviews.resolve_reviews)
    keep_hot = forward("_reviews", Reviews.keep_hot)
    kept_hot = forward("_reviews", Reviews.kept_hot)
    review_reason = forward("_reviews", Reviews.review_reason)

    # -- cold tier (ColdTier) --
    read_cold = forward("_cold_tier", ColdTier.read_cold)
    restore = forward("_cold_tier", ColdTier.restore)
    _rehydrate = forward("_cold_tier", ColdTier.rehydrate)

    # -- migrations (Migrations) --
    schema_version = forward("_migrations", Migrations.schema_version)
    migrate = forward("_migrations", Migrations.migrate)
    _check_version = forward("_migrations", Migrations.check_version)

    # -- monitoring (Monitoring) --
    metrics_snapshot = forward("_monitoring", Monitoring.metrics_snapshot)

    # -- integrity (Integrity) --
    verify = forward("_integrity", Integrity.verify)

    # -- compact storage (CompactStorage) --
    latest_dictionary = forward("_compact", CompactStorage.latest_dictionary)
    prune_clean_attempts = forward("_compact", CompactStorage.prune_clean_attempts)
    storage = forward("_compact", CompactStorage.storage)
    _warm_view = forward("_compact", CompactStorage.warm_view)
    _cold_bytes = forward("_compact", CompactStorage.cold_bytes)
    _attempt_narrative = forward("_compact", CompactStorage.attempt_narrative)
    _keep_accepted_summary = forward("_compact", CompactStorage.keep_accepted_summary)
    _identity_refs = forward("_compact", CompactStorage.identity_refs)
    _profile_ref = forward("_compact", CompactStorage.profile_ref)
    _warm_params = forward("_compact", CompactStorage.warm_params)
    _dictionary_hash = forward("_compact", CompactStorage.dictionary_hash)
    _agent_dictionary = forward("_compact", CompactStorage.agent_dictionary)
    _packed_problems = forward("_compact", CompactStorage.packed_problems)

    @property
    def _dictionaries(self) -> DictionaryCache:
        """The compact storage's loaded dictionaries (erasure and correction drop them)."""
        return self._compact.dictionaries

    # -- re-encoding (Reencoding) --
    retire_dictionaries_trained_on = forward(
        "_reencoding", Reencoding.retire_dictionaries_trained_on
    )
    retire_agent_dictionaries = forward("_reencoding", Reencoding.retire_agent_dictionaries)

    # -- search index (SearchIndex) --
    index_pending = forward("_search_index", SearchIndex.index_pending)
    build_search_index = forward("_search_index", SearchIndex.build_search_index)

    # -- outcomes (Outcomes, Attempts) --
    apply_compressed = forward("_outcomes", Outcomes.apply_compressed)
    apply_failed = forward("_outcomes", Outcomes.apply_failed)
    apply_error = forward("_outcomes", Outcomes.apply_error)
    attempts = forward("_attempts", Attempts.attempts)
    last_must_keep = forward("_attempts", Attempts.last_must_keep)
    model_calls = forward("_attempts", Attempts.model_calls)

    # -- stats (Stats) --
    stats = forward("_stats", Stats.stats)
    failure_by_schema = forward("_stats", Stats.failure_by_schema)
    failure_by_agent = forward("_stats", Stats.failure_by_agent)
    lost_facts = forward("_stats", Stats.lost_facts)
    facts_lost = forward("_stats", Stats.facts_lost)
    review_backlog_summary = forward("_stats", Stats.review_backlog_summary)
    model_usage = forward("_stats", Stats.model_usage)
    llm_cost = forward("_stats", Stats.llm_cost)

    # -- retrieval (Searches) --
    search = forward("_searches", Searches.search)
    render_context = forward("_searches", Searches.render_context)
    attest = forward("_searches", Searches.attest)
    check_attestation = forward("_searches", Searches.check_attestation)

    # -- re-evaluation (Reevaluations) --
    warm_schema_versions = forward("_reevaluations", Reevaluations.warm_schema_versions)
    enqueue_reevaluations = forward("_reevaluations", Reevaluations.enqueue_reevaluations)
    warm_candidates = forward("_reevaluations", Reevaluations.warm_candidates)
    pending_reevaluations = forward("_reevaluations", Reevaluations.pending_reevaluations)
    claim_reevaluations = forward("_reevaluations", Reevaluations.claim_reevaluations)
    heartbeat_reevaluation = forward("_reevaluations", Reevaluations.heartbeat_reevaluation)
    release_reevaluation = forward("_reevaluations", Reevaluations.release_reevaluation)
    finish_reevaluation = forward("_reevaluations", Reevaluations.finish_reevaluation)
    finish_reevaluations = forward("_reevaluations", Reevaluations.finish_reevaluations)
    warm_state = forward("_reevaluations", Reevaluations.warm_state)
