"""``MemoryStore``: the tiered memory store's facade, shared by every backend.

The store holds a ``Database`` (``factdiff.store.database``: a backend, an embedded SQLite
file or a PostgreSQL server, with its dialect's named statements), so both backends behave
alike and one test suite runs against both. Its parts are repositories over that database
(``entries``, ``attestations``, ``activity``...) and, not yet converted, mixin modules
(``migrate``, ``outcomes``, ``leases``, ``reviews``, ``cold_tier``, ``event_log``,
``schemas``, ``extraction_cache``, ``stats``, ``integrity``, ``retrieval``, ``search_index``,
``compact_storage``, ``reevaluation``, ``reports``, ``api_keys``, ``ui_sessions``,
``observe``). What it needs from the layers above (index rows, retrieval) it is given as
``StoreServices`` (``factdiff.store.indexing``).

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
from factdiff.store.cold_tier import ColdTierMixin
from factdiff.store.compact_storage import CompactStorageMixin
from factdiff.store.correction import Correction
from factdiff.store.database import Database
from factdiff.store.dialect import Dialect
from factdiff.store.entries import Entries
from factdiff.store.erasure import Forgotten
from factdiff.store.event_log import EventLogMixin
from factdiff.store.extraction_cache import ExtractionCache
from factdiff.store.forward import forward
from factdiff.store.indexing import StoreServices, default_services
from factdiff.store.integrity import IntegrityMixin
from factdiff.store.leases import LeasesMixin
from factdiff.store.migrate import MigrationMixin
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
from factdiff.store.observe import ObserveMixin
from factdiff.store.outcomes import Outcomes
from factdiff.store.plumbing import DatabaseAccess
from factdiff.store.reevaluation import Reevaluations
from factdiff.store.reports import Reports
from factdiff.store.retrieval import Searches
from factdiff.store.reviews import ReviewsMixin
from factdiff.store.schemas import SchemaRegistryMixin
from factdiff.store.search_index import SearchIndexMixin
from factdiff.store.stats import Stats
from factdiff.store.ui_sessions import UiSessions

DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""Entries larger than this (UTF-8 bytes) are rejected with ``InputError``, never truncated."""

PAGE_SIZE = rowmap.PAGE_SIZE


class MemoryStore(
    DatabaseAccess,
    MigrationMixin,
    LeasesMixin,
    ReviewsMixin,
    ColdTierMixin,
    EventLogMixin,
    SchemaRegistryMixin,
    IntegrityMixin,
    SearchIndexMixin,
    CompactStorageMixin,
    ObserveMixin,
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
        self._db.on_rollback.append(self._forget_written_ids)
        self._ui_sessions = UiSessions(self._db)
        self._extraction_cache = ExtractionCache(self._db)
        self._api_keys = ApiKeys(self._db)
        self._reports = Reports(self._db)
        self._entries = Entries(self._db, max_entry_bytes, self._warm_view)
        self._max_entry_bytes = max_entry_bytes
        self._registered_hashes = {}
        self._init_compact()
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

    def _forget_written_ids(self) -> None:
        """Drop the ids cached from writes that were rolled back after their savepoint was
        released (dictionaries, identities, schema hashes read in the transaction): they may
        not exist, or be reused."""
        self._dictionaries.clear()
        self._identity_ids.clear()
        self._identity_values.clear()
        self._registered_hashes.clear()

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
        index = search_index.hot_index_docs(self, ids, items, facts=index_facts)

        def work() -> None:
            self._exec_many("insert_entry", rows)
            self._exec_many("insert_hot", contents)
            search_index.write_index_docs(self, index)

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
