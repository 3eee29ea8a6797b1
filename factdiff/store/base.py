"""``MemoryStore``: the tiered memory store's logic, shared by every backend.

The store holds a backend (``factdiff.store.backends``: an embedded SQLite file or a
PostgreSQL server) that supplies the plumbing: running a named statement of its dialect, one
write transaction (``_write``), one read snapshot (``_read``) and migration scripts.
Everything else (tiers, outcomes fenced by attempt count and lease token, events, schemas,
cache, statistics) lives here once, so both backends behave alike and one test suite runs
against both.

Open a store with ``MemoryStore.open(path_or_dsn)`` (see ``factdiff.store.open_store``).

Leases (``claim``/``heartbeat``/``release``) let many workers share one store: a claim marks
due entries with a fresh token and an expiry computed on the database clock; an outcome
applied with ``lease_token=`` commits only while that lease is still held and unexpired.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar

from factdiff.accounting import ModelCall
from factdiff.errors import InputError, MigrationRequired, StoreError
from factdiff.store import codec, correction, erasure, search_index
from factdiff.store import rows as rowmap
from factdiff.store.api_keys import ApiKeysMixin
from factdiff.store.backends import Backend, Cursor, open_backend
from factdiff.store.compact_storage import WARM_COLUMNS, CompactStorageMixin
from factdiff.store.correction import Correction
from factdiff.store.dialect import Dialect, Migration
from factdiff.store.erasure import Forgotten
from factdiff.store.model import (
    AttemptOutcome,
    AttemptRecord,
    BadEntry,
    Claim,
    Entry,
    EntryErased,
    EntryNotFound,
    EntryStatus,
    Event,
    EventType,
    IntegrityError,
    NewEntry,
    NewEvent,
    Page,
    SchemaNotRegistered,
    SchemaVersionConflict,
    StoredSchema,
    Tier,
    Tombstone,
    WarmMeta,
    WrongTier,
)
from factdiff.store.observe import ObserveMixin
from factdiff.store.reevaluation import ReevaluationMixin
from factdiff.store.reports import ReportingMixin
from factdiff.store.search_index import SearchIndexMixin

if TYPE_CHECKING:
    from factdiff.record import FactRecord

T = TypeVar("T")
Row = rowmap.Row

DEFAULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024
"""Entries larger than this (UTF-8 bytes) are rejected with ``InputError``, never truncated."""

PAGE_SIZE = 256
SEARCH_INDEX_VERSION = 6
"""The schema version that added the search indexes (``migrate`` fills them for old entries)."""
COMPACT_VERSION = 9
"""The schema version of the compact tiers (``migrate`` re-encodes older warm rows)."""
_MIN_KEY = -(2**63)
_DONE = frozenset({AttemptOutcome.CLEAN, AttemptOutcome.ACCEPTABLE_WITH_NOTES})


class MemoryStore(
    SearchIndexMixin,
    CompactStorageMixin,
    ReevaluationMixin,
    ReportingMixin,
    ApiKeysMixin,
    ObserveMixin,
):
    """Entries in hot and warm tiers with cold archives, attempts, events, schemas, cache.

    Open with ``MemoryStore.open(path_or_dsn)``; use as a context manager or call
    ``close()``. Every method that records a time takes ``now`` (timezone-aware): the store
    never reads the wall clock, except the database clock for lease arithmetic.
    """

    def __init__(self, backend: Backend, *, max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES) -> None:
        self._backend = backend
        self._dialect = backend.dialect
        self._max_entry_bytes = max_entry_bytes
        self._init_compact()

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
        **options: Any,
    ) -> Self:
        """Open the store at ``target``: a ``postgresql://`` DSN or a SQLite file path.

        ``create``: an empty store is migrated (and a missing SQLite file created; otherwise
        it raises ``StoreError``). ``check_version``: an older schema raises
        ``MigrationRequired`` and a newer one ``StoreError``; pass ``False`` to open a store
        only to ``migrate()`` it. ``read_only``: open without writing (a write then raises
        ``StoreError``). Other ``options`` go to the backend (``dialect``;
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
    ) -> Self:
        """The store on an open ``backend`` (options as for ``open``); the backend is closed
        when the version check fails."""
        store = cls(backend, max_entry_bytes=max_entry_bytes)
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
    def max_entry_bytes(self) -> int:
        """The largest entry ``add`` accepts, in UTF-8 bytes."""
        return self._max_entry_bytes

    def _check_version(self, create: bool) -> None:
        current, expected = self.schema_version(), self._dialect.version
        if current == 0 and create and self._object_count() == 0:
            self.migrate()
        elif current < expected:
            raise MigrationRequired(
                f"store {self.location} is at schema version {current}, this factdiff needs "
                f"{expected}: run `factdiff migrate`"
            )
        elif current > expected:
            raise StoreError(
                f"store {self.location} is at schema version {current}, newer than this "
                f"factdiff ({expected}): upgrade factdiff"
            )

    # -- migrations ------------------------------------------------------------------------

    def schema_version(self) -> int:
        """The version of the last migration applied to the store (0 for an empty one)."""
        if not self._one("has_migrations_table"):
            return 0
        return int(self._one("schema_version"))

    def _object_count(self) -> int:
        return int(self._one("user_object_count"))

    def migrate(self) -> int:
        """Apply every pending migration, each in its own transaction; returns how many.

        Then fill the search indexes and re-encode warm entries stored before the compact
        tiers (``recode``): both resumable, so an interrupted ``migrate`` is finished by
        running it again."""
        applied = 0
        for migration in self._dialect.migrations:
            if self._write(partial(self._apply_migration, migration)):
                applied += 1
        if self.schema_version() >= SEARCH_INDEX_VERSION:
            self.build_search_index()
        if self.schema_version() >= COMPACT_VERSION:
            self.recode(now=self.db_now())
        return applied

    def _apply_migration(self, migration: Migration) -> bool:
        self._lock_migrations()
        current = self.schema_version()
        if current == 0 and self._object_count() > 0:
            raise StoreError(f"{self.location} is not a factdiff store: choose another one")
        if current > self._dialect.version:
            raise StoreError(
                f"store {self.location} is at schema version {current}, newer than this "
                f"factdiff ({self._dialect.version}): upgrade factdiff"
            )
        if migration.version <= current:
            return False
        self._run_script(migration.sql)
        self._exec("record_migration", version=migration.version, name=migration.name)
        return True

    def _lock_migrations(self) -> None:
        """Serialise concurrent migrations (inside the migration's transaction)."""
        self._exec("lock_migrations").fetchall()

    # -- plumbing (the backend's part) -----------------------------------------------------

    def _sql(self, key: str, **filters: bool) -> str:
        return self._dialect.sql(key, **filters)

    def _run_script(self, script: str) -> None:
        """Run a migration script inside the current write transaction."""
        self._backend.run_script(script)

    def _maintain(self, script: str) -> None:
        """Run a maintenance script (``VACUUM``...) outside any transaction."""
        self._backend.maintain(script)

    def _exec(self, key: str, **params: Any) -> Cursor:
        """Run statement ``key`` inside the current transaction; returns the cursor, whose
        ``rowcount`` and ``fetchone()`` the store uses."""
        return self._backend.execute(self._dialect.sql(key), params)

    def _exec_many(self, key: str, rows: list[dict[str, Any]]) -> None:
        """Run statement ``key`` once per parameter set, inside the current transaction."""
        self._backend.execute_many(self._dialect.sql(key), rows)

    def _row(self, key: str, **params: Any) -> Row | None:
        """The first row of statement ``key`` (in the current transaction, if any)."""
        return self._backend.fetch_one(self._dialect.sql(key), params)

    def _rows(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql`` (in the current transaction, if any)."""
        return self._backend.fetch_all(sql, params)

    def _write(self, work: Callable[[], T]) -> T:
        """Run ``work`` in one write transaction, retried a bounded number of times while the
        backend reports contention; rolled back on any error. Inside ``_joined_writes``, in
        the open write transaction."""
        return self._backend.write(work, join=self._joining())

    @contextmanager
    def _joined_writes(self) -> Iterator[None]:
        """Inside a write transaction: ``_write`` calls made by this thread within the block
        run their work in that transaction instead of opening one (an erasure step that
        calls a store operation made of several writes)."""
        local = self.__dict__.setdefault("_join_local", threading.local())
        before = getattr(local, "on", False)
        local.on = True
        try:
            yield
        finally:
            local.on = before

    def _joining(self) -> bool:
        """Whether this thread's writes join the open write transaction (``_joined_writes``)."""
        local = self.__dict__.get("_join_local")
        return local is not None and bool(getattr(local, "on", False))

    def _read(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several statements."""
        return self._backend.read()

    def _one(self, key: str, **params: Any) -> Any:
        row = self._row(key, **params)
        return None if row is None else row[0]

    def _count(self, key: str, **params: Any) -> int:
        return int(self._exec(key, **params).rowcount)

    def _append_events(
        self, events: list[NewEvent], entry_id: str | None, agent_id: str | None, now: int
    ) -> None:
        self._insert_events(rowmap.event_rows(events), entry_id, agent_id, now)

    def _insert_events(
        self,
        rows: list[tuple[str, str, bytes | None]],
        entry_id: str | None,
        agent_id: str | None,
        now: int,
    ) -> None:
        """Insert events whose (type, payload, packed payload) were made before the
        transaction (``rowmap.event_rows``)."""
        for kind, payload, packed in rows:
            self._exec(
                "insert_event",
                type=kind,
                entry_id=entry_id,
                agent_id=agent_id,
                at=now,
                payload=payload,
                packed=packed,
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
        ``InputError`` for an empty agent id, lone surrogates, or content over the limit.
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

    def _entry_params(
        self, entry_id: str, item: NewEntry, now: datetime, now_us: int
    ) -> tuple[dict[str, Any], bytes]:
        if not item.agent_id.strip():
            raise InputError("agent id must not be empty")
        data = codec.encode_content(item.content, self._max_entry_bytes)
        schema = item.schema
        params = {
            "id": entry_id,
            "agent_id": codec.check_text(item.agent_id, "agent id"),
            "occurred_at": codec.opt_micros(item.occurred_at, "occurred_at"),
            "occurred_offset": codec.offset_minutes(item.occurred_at),
            "created_at": now_us,
            "last_used_at": codec.to_micros(item.last_used_at or now, "last_used_at"),
            "metadata": codec.dump_json(dict(item.metadata), "metadata"),
            "schema_name": None if schema is None else codec.check_text(schema, "schema name"),
            "tags": codec.dump_json([codec.check_text(t, "tag") for t in item.tags], "tags"),
            "content_hash": codec.content_hash(data),
            "size_bytes": len(data),
        }
        return params, data

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
        script = self._sql("vacuum")
        if "{tables}" in script:
            tables = [str(row[0]) for row in self._rows(self._sql("vacuum_tables"), {})]
            script = script.replace("{tables}", ", ".join(tables))
        self._maintain(script)

    def _load(self, entry_id: str) -> Entry | None:
        row = self._row("select_entry_full", id=entry_id)  # one statement: one snapshot
        if row is None:
            return None
        entry = rowmap.entry(row)
        if entry.tier is Tier.HOT:
            data = row[rowmap.FULL_CONTENT]
            return replace(entry, content=None if data is None else codec.decode_content(data))
        warm = row[rowmap.FULL_WARM : rowmap.FULL_WARM + WARM_COLUMNS]
        return replace(entry, warm=None if warm[0] is None else self._warm_view(entry, warm))

    def touch(self, entry_id: str, now: datetime) -> None:
        """Record a use of the entry: its dormancy clock restarts at ``now``."""
        now_us = codec.to_micros(now, "now")

        def work() -> int:
            return self._count("touch", id=entry_id, now=now_us)

        if self._write(work) == 0:
            raise EntryNotFound(entry_id)

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
        if tier is Tier.COLD:
            raise InputError("entries live in the hot or warm tier; cold holds their archives")
        sql = self._sql(
            "entries_page",
            agent=agent is not None,
            tier=tier is not None,
            status=status is not None,
        )
        params: dict[str, Any] = {
            "agent": agent,
            "tier": None if tier is None else Tier(tier).value,
            "status": None if status is None else EntryStatus(status).value,
        }
        return self._stream(sql, params, limit, with_content, due=False)

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
        if tier is Tier.COLD:
            raise InputError("entries live in the hot or warm tier; cold holds their archives")
        if limit < 0:
            raise InputError(f"limit must not be negative (got {limit})")
        filters = {
            "agent": agent is not None,
            "tier": tier is not None,
            "status": status is not None,
            "tag": tag is not None,
            "unkept": exclude_kept,
        }
        params: dict[str, Any] = {
            "agent": agent,
            "tier": None if tier is None else Tier(tier).value,
            "status": None if status is None else EntryStatus(status).value,
            "tag": tag,
        }
        count_sql = self._sql("entries_count", **filters)
        with self._read():
            total = int(self._rows(count_sql, {**params, "after": ""})[0][0])
            remaining = int(self._rows(count_sql, {**params, "after": after})[0][0])
            rows = self._rows(
                self._sql("entries_page", **filters), {**params, "after": after, "limit": limit + 1}
            )
        items = tuple(rowmap.entry(row) for row in rows[:limit])
        more = len(rows) > limit
        next_after = (items[-1].id if items else after) if more else None
        return Page(items, total, total - remaining, next_after)

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
        now_us = codec.to_micros(now, "now")
        params: dict[str, Any] = {
            "threshold": now_us - older_than // timedelta(microseconds=1),
            "now": now_us,
            "agent": agent,
        }
        sql = self._sql("due_page" if agent is None else "due_page_agent")
        return self._stream(sql, params, limit, with_content, due=True)

    def _stream(
        self, sql: str, params: dict[str, Any], limit: int | None, with_content: bool, due: bool
    ) -> Iterator[Entry]:
        remaining = limit
        keys: dict[str, Any] = {"after": "", "after_used": _MIN_KEY, "after_id": ""}
        while remaining is None or remaining > 0:
            page = PAGE_SIZE if remaining is None else min(PAGE_SIZE, remaining)
            rows = self._rows(sql, {**params, **keys, "limit": page})
            for row in rows:
                entry = rowmap.entry(row)
                keys = {"after": entry.id, "after_used": row[6], "after_id": entry.id}
                if with_content:
                    fresh = self._load(entry.id)
                    if fresh is None or (due and not rowmap.is_due(fresh)):
                        continue
                    entry = fresh
                yield entry
                if remaining is not None:
                    remaining -= 1
                    if remaining == 0:
                        return
            if len(rows) < page:
                return

    # -- compression outcomes --------------------------------------------------------------

    def apply_compressed(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        narrative: str,
        record: Mapping[str, Any],
        meta: WarmMeta,
        attempt: AttemptRecord,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
        expected_errors: int | None = None,
        keep_attempts: bool = True,
        narrative_facts: FactRecord | None = None,
        from_review: bool = False,
    ) -> bool:
        """Demote a hot entry to warm in one transaction; ``False`` (no change) if stale.

        ``from_review``: the entry is in review and an operator approved or edited its
        summary; it must still be in review, and leaves it (status active, tier warm).

        Stale means the entry is no longer hot and active (or was erased), its attempt count
        differs from
        ``expected_attempts`` (another run already applied an outcome) or, when given, its
        error attempt count from ``expected_errors``, or the lease is lost: with
        ``lease_token`` the entry must still hold that unexpired lease (database clock);
        without, it must hold no live lease at all. The first statement is that fenced
        update, so a refused outcome writes nothing. Otherwise: the attempt is recorded (as
        the entry's next attempt row, with its model calls), the warm row written, the source
        archived to cold (verified against its hash before commit), the hot content removed,
        the tier set to warm, the error streak and the lease cleared, and ``events`` appended.
        Without ``keep_attempts`` (attempt retention ``warm-clean``) the entry keeps no
        attempt row: this attempt is not written and earlier ones are deleted (its model
        calls and events stay).
        """
        if not narrative.strip():
            raise InputError(f"entry {entry_id}: refusing to write an empty warm narrative")
        if AttemptOutcome(attempt.outcome) not in _DONE:
            raise InputError(
                f"apply_compressed needs a clean or acceptable attempt, not {attempt.outcome}"
            )
        now_us = codec.to_micros(now, "now")
        narrative_text = codec.check_text(narrative, "narrative")
        attempt_rows = self._attempt_rows(entry_id, attempt, now_us, narrative_text)
        event_rows = rowmap.event_rows(events)
        state = self._load(entry_id)
        if state is None and erasure.tombstone(self, entry_id) is not None:
            return False  # erased meanwhile: the outcome is stale
        if state is None:
            raise EntryNotFound(entry_id)
        wanted = EntryStatus.REVIEW if from_review else EntryStatus.ACTIVE
        current = rowmap.is_current(replace(state, status=EntryStatus.ACTIVE), expected_attempts)
        if not current or state.status is not wanted or state.content is None:
            return False
        data = codec.encode_content(state.content, max_bytes=2**63)
        dictionary = self._agent_dictionary(state.agent_id, now_us)
        packed = self._verified_archive(entry_id, data, state.content_hash, dictionary[1])
        warm = {
            "id": entry_id,
            "now": now_us,
            **self._warm_params(
                entry_id,
                state.content,
                narrative_text,
                record,
                meta,
                state.content_hash,
                now_us,
                dictionary,
            ),
        }
        index = search_index.warm_index_doc(
            self, entry_id, state.content, narrative, record, narrative_facts
        )

        def work() -> bool:
            fenced = self._exec(
                "set_warm_reviewed" if from_review else "set_warm",
                id=entry_id,
                expected=expected_attempts,
                expected_errors=expected_errors,
                token=lease_token,
            ).fetchone()
            if fenced is None:
                return False
            attempt_no = int(fenced[0])
            self._insert_attempt(attempt_no, *attempt_rows)
            if not keep_attempts:
                self._exec("delete_entry_attempts", id=entry_id)
            self._exec("insert_warm", **warm, attempt_no=attempt_no)
            self._exec(
                "insert_cold",
                id=entry_id,
                codec=codec.COLD_CODEC,
                data=packed,
                content_hash=codec.digest_bytes(state.content_hash),
                size_bytes=len(data),
                now=now_us,
                dictionary_id=dictionary[0],
            )
            self._exec("delete_hot", id=entry_id)
            search_index.index_demoted(self, index)
            self._insert_events(event_rows, entry_id, state.agent_id, now_us)
            return True

        return self._write(work)

    def _verified_archive(
        self,
        entry_id: str,
        data: bytes,
        expected_hash: str,
        dictionary: codec.CodecDictionary | None,
    ) -> bytes:
        if codec.content_hash(data) != expected_hash:
            raise IntegrityError(entry_id, "hot content does not match its content hash")
        packed = codec.archive(data, dictionary)
        restored = codec.unarchive(codec.COLD_CODEC, packed, dictionary)
        if codec.content_hash(restored) != expected_hash:
            raise IntegrityError(entry_id, "cold archive does not round-trip")  # pragma: no cover
        return packed

    def apply_failed(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
        expected_errors: int | None = None,
    ) -> bool:
        """Record a failed (or refused) attempt in one transaction; ``False`` if stale.

        The attempt counts toward the ladder and ``max_attempts``. Stale as for
        ``apply_compressed`` (attempt counts, tier, status, lease). The entry stays hot with
        its content; ``next_attempt_at`` is its backoff (``None``: due again at once);
        ``escalate`` sets its status to ``review`` so that demotion skips it until
        ``resolve_review``. The error streak and the lease are cleared.
        """
        if AttemptOutcome(attempt.outcome) in _DONE:
            raise InputError(f"apply_failed needs a failed or error attempt, not {attempt.outcome}")
        return self._apply_kept_hot(
            "set_failed",
            entry_id,
            expected_attempts,
            expected_errors,
            attempt,
            next_attempt_at,
            escalate,
            events,
            now,
            lease_token,
        )

    def apply_error(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        expected_errors: int,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
    ) -> bool:
        """Record an attempt that verified nothing (a provider, model output or internal
        error) in one transaction; ``False`` if stale (as for ``apply_failed``).

        It does not count toward the ladder or ``max_attempts``: the entry's error attempt
        count and error streak grow instead, ``next_attempt_at`` is the error backoff, and
        ``escalate`` (the error budget is spent) sends it to review. The lease is cleared.
        """
        if AttemptOutcome(attempt.outcome) is not AttemptOutcome.ERROR:
            raise InputError(f"apply_error needs an error attempt, not {attempt.outcome}")
        return self._apply_kept_hot(
            "set_errored",
            entry_id,
            expected_attempts,
            expected_errors,
            attempt,
            next_attempt_at,
            escalate,
            events,
            now,
            lease_token,
        )

    def _apply_kept_hot(
        self,
        statement: str,
        entry_id: str,
        expected_attempts: int,
        expected_errors: int | None,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None,
    ) -> bool:
        now_us = codec.to_micros(now, "now")
        attempt_rows = self._attempt_rows(entry_id, attempt, now_us)
        next_us = codec.opt_micros(next_attempt_at, "next_attempt_at")
        event_rows = rowmap.event_rows(events)

        def work() -> bool:
            row = self._row("select_entry", id=entry_id)
            if row is None and erasure.tombstone(self, entry_id) is not None:
                return False  # erased meanwhile: the outcome is stale
            if row is None:
                raise EntryNotFound(entry_id)
            fenced = self._exec(
                statement,
                id=entry_id,
                expected=expected_attempts,
                expected_errors=expected_errors,
                next_attempt_at=next_us,
                escalate=bool(escalate),
                token=lease_token,
            ).fetchone()
            if fenced is None:
                return False
            self._insert_attempt(int(fenced[0]), *attempt_rows)
            self._insert_events(event_rows, entry_id, str(row[1]), now_us)
            return True

        return self._write(work)

    @staticmethod
    def _attempt_rows(
        entry_id: str, attempt: AttemptRecord, now_us: int, narrative: str | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The attempt's and its model calls' parameters, made (and checked) before the
        transaction; the attempt number is set inside it. ``narrative``: the warm narrative
        written with the attempt (its summary is then stored once, there)."""
        calls = [rowmap.model_call_params(entry_id, 0, call, now_us) for call in attempt.calls]
        return rowmap.attempt_params(entry_id, 0, attempt, narrative), calls

    def _insert_attempt(
        self, attempt_no: int, attempt: dict[str, Any], calls: list[dict[str, Any]]
    ) -> None:
        self._exec("insert_attempt", **{**attempt, "attempt_no": attempt_no})
        for call in calls:
            self._exec("insert_model_call", **{**call, "attempt_no": attempt_no})

    # -- leases ----------------------------------------------------------------------------

    def claim(
        self,
        worker_id: str,
        *,
        now: datetime | None = None,
        older_than: timedelta = timedelta(days=14),
        lease_seconds: float = 60.0,
        limit: int = 1,
        agent: str | None = None,
        with_content: bool = True,
    ) -> list[Claim]:
        """Lease up to ``limit`` due entries to ``worker_id`` in one short statement.

        Due means hot, active, unused since ``now - older_than``, past its backoff, and not
        under a live lease (an expired lease is simply claimed again). ``now`` defaults to
        the database clock; the lease expiry is always the database clock plus
        ``lease_seconds``. Each claim gets its own random token. On PostgreSQL the rows are
        picked with ``FOR UPDATE SKIP LOCKED`` so concurrent claimers never wait on or
        share an entry; the claim commits at once. With ``with_content`` every claimed
        entry is then re-read with its hot content (outside the claim's transaction).
        Claims come in due order (``last_used_at``, id).
        """
        if limit < 1:
            return []
        if lease_seconds <= 0:
            raise InputError(f"lease_seconds must be positive (got {lease_seconds})")
        params: dict[str, Any] = {
            "owner": codec.check_text(worker_id, "worker id"),
            "now": codec.opt_micros(now, "now"),
            "older_than": older_than // timedelta(microseconds=1),
            "lease": round(lease_seconds * 1_000_000),
            "limit": int(limit),
            "agent": agent,
        }
        key = "claim" if agent is None else "claim_agent"
        rows = self._write(lambda: self._exec(key, **params).fetchall())
        claims = sorted(
            (
                Claim(
                    entry=rowmap.entry(row),
                    token=str(row[rowmap.CLAIM_TOKEN]),
                    expires_at=codec.from_micros(row[rowmap.CLAIM_EXPIRES]),
                    claimed_at=codec.from_micros(row[rowmap.CLAIM_NOW]),
                )
                for row in rows
            ),
            key=lambda c: (c.entry.last_used_at, c.entry.id),
        )
        if not with_content:
            return claims
        loaded: list[Claim] = []
        for claim in claims:
            fresh = self._load(claim.entry.id)
            if fresh is None or not rowmap.is_due(fresh):  # pragma: no cover - leased rows
                self.release(claim.token)
                continue
            loaded.append(replace(claim, entry=fresh))
        return loaded

    def heartbeat(self, token: str, lease_seconds: float = 60.0) -> datetime | None:
        """Extend a live lease to the database clock plus ``lease_seconds``.

        Returns the new expiry, or ``None`` when the lease is lost (expired, released, or
        its outcome already applied): an expired lease is never revived, so two workers
        never hold one entry at the same time.
        """
        lease = round(lease_seconds * 1_000_000)
        row = self._write(lambda: self._exec("heartbeat", token=token, lease=lease).fetchone())
        return None if row is None else codec.from_micros(row[0])

    def release(self, token: str) -> bool:
        """Give a lease back (the entry is due again at once); ``False`` if it was not held."""
        return self._write(lambda: self._count("release", token=token)) == 1

    def leases(self) -> list[tuple[str, str, str, datetime]]:
        """Live and expired leases: ``(entry_id, worker_id, token, expires_at)``."""
        rows = self._rows(self._sql("select_leases"), {})
        return [(str(r[0]), str(r[1]), str(r[2]), codec.from_micros(r[3])) for r in rows]

    def db_now(self) -> datetime:
        """The database clock (the one leases are measured on)."""
        return codec.from_micros(int(self._one("db_now")))

    def resolve_review(self, entry_id: str, now: datetime, note: str = "") -> bool:
        """Return a ``review`` entry to ``active`` (due again at once) with a
        ``review_resolved`` event; ``False`` if it was not in review."""
        now_us = codec.to_micros(now, "now")
        payload = {"note": codec.check_text(note, "note")}

        def work() -> bool:
            row = self._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            if self._count("set_resolved", id=entry_id) != 1:
                return False
            self._exec("delete_kept_hot", id=entry_id)
            event = NewEvent(EventType.REVIEW_RESOLVED, payload)
            self._append_events([event], entry_id, str(row[1]), now_us)
            return True

        return self._write(work)

    def resolve_reviews(
        self,
        now: datetime,
        *,
        agent: str | None = None,
        reason: str | None = None,
        note: str = "",
    ) -> list[str]:
        """Return every ``review`` entry (of ``agent``; whose latest ``escalated_to_review``
        event gives ``reason`` as its ``reason`` or ``failure_class``) to ``active``, each with
        a ``review_resolved`` event; returns their ids in id order. Entries an operator kept
        hot (``keep_hot``) stay as they are.

        Entries are taken a page at a time, one transaction per page; an entry resolved
        meanwhile by someone else is skipped, never resolved twice.
        """
        now_us = codec.to_micros(now, "now")
        payload = {"note": codec.check_text(note, "note")}
        if reason is not None:
            payload["reason"] = codec.check_text(reason, "reason")
        sql = self._sql("entries_page", agent=agent is not None, status=True, unkept=True)
        params = {"agent": agent, "status": EntryStatus.REVIEW.value, "limit": PAGE_SIZE}
        resolved: list[str] = []
        after = ""
        while True:
            rows = self._rows(sql, {**params, "after": after})
            if not rows:
                return resolved
            after = str(rows[-1][0])
            chosen = [
                (str(row[0]), str(row[1]))
                for row in rows
                if reason is None or self._escalated_for(str(row[0]), reason)
            ]

            def work(batch: list[tuple[str, str]] = chosen) -> list[str]:
                done = []
                for entry_id, agent_id in batch:
                    if self._count("set_resolved", id=entry_id) == 1:
                        event = NewEvent(EventType.REVIEW_RESOLVED, payload)
                        self._append_events([event], entry_id, agent_id, now_us)
                        done.append(entry_id)
                return done

            if chosen:
                resolved.extend(self._write(work))
            if len(rows) < PAGE_SIZE:
                return resolved

    def keep_hot(self, entry_id: str, now: datetime, *, key_name: str, reason: str) -> bool:
        """Keep an entry in review hot for good: demotion never takes it, the review queue
        leaves it out (``exclude_kept``), bulk resolution skips it; a ``kept_hot`` event
        records who and why. ``False`` if it was kept already; ``WrongTier`` unless it is
        hot and in review. ``resolve_review`` of the entry undoes it."""
        now_us = codec.to_micros(now, "now")
        params = {
            "id": entry_id,
            "now": now_us,
            "key_name": codec.check_text(key_name, "key name"),
            "reason": codec.check_text(reason, "reason"),
        }

        def work() -> bool:
            row = self._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            entry = rowmap.entry(row)
            if entry.tier is not Tier.HOT or entry.status is not EntryStatus.REVIEW:
                raise WrongTier(
                    f"entry {entry_id} is {entry.tier.value} and {entry.status.value}: only a "
                    "hot entry in review can be kept hot"
                )
            if self._count("insert_kept_hot", **params) != 1:
                return False
            payload = {"key": key_name, "reason": reason}
            self._append_events(
                [NewEvent(EventType.KEPT_HOT, payload)], entry_id, entry.agent_id, now_us
            )
            return True

        return self._write(work)

    def kept_hot(self, entry_id: str) -> dict[str, Any] | None:
        """``{"kept_at", "key", "reason"}`` when an operator kept the entry hot, else None."""
        row = self._row("select_kept_hot", id=entry_id)
        if row is None:
            return None
        return {
            "kept_at": codec.from_micros(int(row[0])).isoformat(),
            "key": str(row[1]),
            "reason": str(row[2]),
        }

    def _escalated_for(self, entry_id: str, reason: str) -> bool:
        row = self._row("last_escalation", id=entry_id)
        if row is None:
            return False
        found = rowmap.event_payload(row[0], row[1])
        return isinstance(found, dict) and reason in (
            found.get("reason"),
            found.get("failure_class"),
        )

    def attempts(self, entry_id: str) -> list[AttemptRecord]:
        """The entry's compression history, oldest first (redacted for an erased entry)."""
        with self._read():
            if (
                self._row("select_entry", id=entry_id) is None
                and erasure.tombstone(self, entry_id) is None
            ):
                raise EntryNotFound(entry_id)
            rows = self._rows(self._sql("select_attempts"), {"id": entry_id})
        return [rowmap.attempt(row, self._attempt_narrative(row[24], row[25])) for row in rows]

    def last_must_keep(self, entry_id: str) -> tuple[dict[str, Any], ...]:
        """The must-keep facts (JSON) of the entry's last verified attempt when it failed;
        empty when it passed, when there is none, or for attempts stored before must-keep
        facts were (schema version 4)."""
        row = self._row("select_last_verified", id=entry_id)
        if row is None or row[0] != AttemptOutcome.FAILED.value or row[1] is None:
            return ()
        return tuple(codec.load_json(row[1]))

    def model_calls(self, entry_id: str) -> list[tuple[int, ModelCall]]:
        """Every model call made for the entry, as ``(attempt_no, call)``, oldest first."""
        rows = self._rows(self._sql("select_model_calls"), {"id": entry_id})
        return [rowmap.model_call(row) for row in rows]

    # -- cold tier -------------------------------------------------------------------------

    def read_cold(self, entry_id: str) -> str:
        """The archived source of a warm entry, checked against its hash on every read."""
        with self._read():
            row = self._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            cold = self._row("select_cold", id=entry_id)
        if cold is None:
            raise WrongTier(f"entry {entry_id} is {row[2]}: it has no cold archive")
        return codec.decode_content(self._cold_bytes(entry_id, cold, str(row[10])))

    def restore(self, entry_id: str, now: datetime) -> None:
        """Bring a warm entry back to hot from its verified cold archive, in one transaction.

        The warm row and the archive are removed, ``last_used_at`` becomes ``now`` and a
        ``restored`` event is appended. ``WrongTier`` if the entry is already hot.
        """
        now_us = codec.to_micros(now, "now")

        def work() -> None:
            row = self._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            entry = rowmap.entry(row)
            if entry.tier is not Tier.WARM:
                raise WrongTier(f"entry {entry_id} is {entry.tier}: nothing to restore")
            data = self._rehydrate(entry, now_us)
            payload = {"content_hash": entry.content_hash, "size_bytes": len(data)}
            event = NewEvent(EventType.RESTORED, payload)
            self._append_events([event], entry_id, entry.agent_id, now_us)

        self._write(work)

    def _rehydrate(self, entry: Entry, now_us: int, *, touch: bool = True) -> bytes:
        """Inside a write: the warm ``entry`` becomes hot again from its verified archive
        (warm row and archive removed, search index updated); returns the source bytes.
        Restore, promotion and re-evaluation all go through here. With ``touch`` its
        ``last_used_at`` becomes now (a use); without, it keeps its dormancy (due at once
        for recompression)."""
        cold = self._row("select_cold", id=entry.id)
        if cold is None:
            raise IntegrityError(entry.id, "warm entry has no cold archive")
        data = self._cold_bytes(entry.id, cold, entry.content_hash)
        self._keep_accepted_summary(entry.id)
        self._exec("insert_hot", id=entry.id, content=data)
        self._exec("delete_warm", id=entry.id)
        self._exec("delete_cold", id=entry.id)
        if touch:
            self._exec("set_restored", id=entry.id, now=now_us)
        else:
            self._exec("set_rehydrated_due", id=entry.id)
        search_index.index_rehydrated(self, entry, data)
        return data

    # -- events ----------------------------------------------------------------------------

    def events(
        self,
        entry_id: str | None = None,
        *,
        agent: str | None = None,
        type: EventType | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> Iterator[Event]:
        """Events in append order, filtered (``since`` inclusive, ``until`` exclusive)."""
        sql = self._sql(
            "events_page",
            entry=entry_id is not None,
            agent=agent is not None,
            type=type is not None,
            since=since is not None,
            until=until is not None,
        )
        params: dict[str, Any] = {
            "entry_id": entry_id,
            "agent": agent,
            "type": None if type is None else EventType(type).value,
            "since": codec.opt_micros(since, "since"),
            "until": codec.opt_micros(until, "until"),
        }
        return self._stream_events(sql, params, limit)

    def event_page(
        self,
        entry_id: str | None = None,
        *,
        agent: str | None = None,
        type: EventType | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        after: int = 0,
        limit: int = 200,
    ) -> Page[Event]:
        """One page of events in append order after the event id ``after`` (0: from the
        start), filtered as ``events``, with how many match in all; one read snapshot."""
        if limit < 0:
            raise InputError(f"limit must not be negative (got {limit})")
        filters = {
            "entry": entry_id is not None,
            "agent": agent is not None,
            "type": type is not None,
            "since": since is not None,
            "until": until is not None,
        }
        params: dict[str, Any] = {
            "entry_id": entry_id,
            "agent": agent,
            "type": None if type is None else EventType(type).value,
            "since": codec.opt_micros(since, "since"),
            "until": codec.opt_micros(until, "until"),
        }
        count_sql = self._sql("events_count", **filters)
        with self._read():
            total = int(self._rows(count_sql, {**params, "after": 0})[0][0])
            remaining = int(self._rows(count_sql, {**params, "after": after})[0][0])
            rows = self._rows(
                self._sql("events_page", **filters), {**params, "after": after, "limit": limit + 1}
            )
        items = tuple(rowmap.event(row) for row in rows[:limit])
        more = len(rows) > limit
        next_after = (items[-1].id if items else after) if more else None
        return Page(items, total, total - remaining, next_after)

    def last_event_id(self) -> int:
        """The id of the newest event (0 when there is none)."""
        return int(self._one("last_event_id"))

    def _stream_events(
        self, sql: str, params: dict[str, Any], limit: int | None
    ) -> Iterator[Event]:
        after, remaining = 0, limit
        while remaining is None or remaining > 0:
            page = PAGE_SIZE if remaining is None else min(PAGE_SIZE, remaining)
            rows = self._rows(sql, {**params, "after": after, "limit": page})
            for row in rows:
                after = int(row[0])
                yield rowmap.event(row)
            if remaining is not None:
                remaining -= len(rows)
            if len(rows) < page:
                return

    # -- schemas ---------------------------------------------------------------------------

    def register_schema(
        self,
        name: str,
        version: int,
        hash: str,
        definition: Mapping[str, Any],
        *,
        source_text: str | None = None,
        now: datetime,
    ) -> bool:
        """Register a schema version; ``True`` if new, ``False`` if already registered.

        The same name and version with another hash raises ``SchemaVersionConflict``.
        A new registration appends a ``schema_registered`` event.
        """
        now_us = codec.to_micros(now, "now")
        params: dict[str, Any] = {
            "name": codec.check_text(name, "schema name"),
            "version": int(version),
            "hash": hash,
            "definition": codec.dump_json(dict(definition), "schema definition"),
            "source_text": None
            if source_text is None
            else codec.check_text(source_text, "schema source"),
            "now": now_us,
        }

        def registered() -> bool:
            row = self._row("select_schema", name=name, version=int(version))
            if row is None:
                return False
            if row[2] == hash:
                return True
            raise SchemaVersionConflict(
                f"schema {name!r} version {version} is already registered with hash "
                f"{row[2]}, not {hash}: bump the schema's version"
            )

        def work() -> bool:
            if registered():
                return False
            if self._count("insert_schema", **params) != 1:
                registered()  # a concurrent registration won: same hash, or a conflict
                return False
            payload = {"name": name, "version": int(version), "hash": hash}
            event = NewEvent(EventType.SCHEMA_REGISTERED, payload)
            self._append_events([event], None, None, now_us)
            return True

        return self._write(work)

    def get_schema_definition(self, name: str, version: int | None = None) -> StoredSchema:
        """A registered schema version (the latest when ``version`` is ``None``)."""
        if version is None:
            row = self._row("select_latest_schema", name=name)
        else:
            row = self._row("select_schema", name=name, version=int(version))
        if row is None:
            which = "any version" if version is None else f"version {version}"
            raise SchemaNotRegistered(
                f"schema {name!r} ({which}) is not registered in this store: register it first"
            )
        source = None if row[4] is None else str(row[4])
        return StoredSchema(int(row[1]), str(row[2]), codec.load_json(row[3]), source)

    def schema_versions(self) -> list[tuple[str, int, str]]:
        """Every registered schema version as ``(name, version, hash)``, by name and version."""
        rows = self._rows(self._sql("select_schema_versions"), {})
        return [(str(name), int(version), str(hash)) for name, version, hash in rows]

    def set_agent_schema(
        self, agent_id: str, schema_name: str | None, tag: str | None = None
    ) -> None:
        """Map an agent (or one of its tags) to a schema name; ``None`` removes the mapping."""
        key = "" if tag is None else codec.check_text(tag, "tag")

        def work() -> None:
            if schema_name is None:
                self._exec("delete_agent_schema", agent=agent_id, tag=key)
            else:
                name = codec.check_text(schema_name, "schema name")
                self._exec("upsert_agent_schema", agent=agent_id, tag=key, schema_name=name)

        self._write(work)

    def schema_for(self, agent_id: str, tags: tuple[str, ...] = ()) -> str | None:
        """The schema for an agent's entry: the first of ``tags`` with a mapping wins, then
        the agent's default, else ``None``."""
        rows = self._rows(self._sql("select_agent_schemas"), {"agent": agent_id})
        mapping = {str(tag): str(name) for tag, name in rows}
        for tag in tags:
            if tag and tag in mapping:
                return mapping[tag]
        return mapping.get("")

    # -- extraction cache ------------------------------------------------------------------

    def cached_extraction(
        self, content_hash: str, schema_hash: str, extractor_id: str
    ) -> dict[str, Any] | None:
        """The cached fact record for this source, schema and extractor, if any."""
        text = self._one(
            "select_extraction",
            content_hash=content_hash,
            schema_hash=schema_hash,
            extractor_id=extractor_id,
        )
        if text is None:
            return None
        record: dict[str, Any] = codec.load_json(text)
        return record

    def put_extraction(
        self, content_hash: str, schema_hash: str, extractor_id: str, record: Mapping[str, Any]
    ) -> None:
        """Cache a fact record; the first record stored for a key is kept."""
        params = {
            "content_hash": content_hash,
            "schema_hash": schema_hash,
            "extractor_id": extractor_id,
            "record": codec.dump_json(dict(record), "fact record"),
        }
        self._write(lambda: self._exec("insert_extraction", **params))

    # -- reporting -------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts for ``factdiff stats``.

        ``tiers`` (entries per tier; ``cold`` counts archives), ``entries`` (tier -> status
        -> count), ``attempts`` (outcome -> count, and ``total``), ``failure_rate`` (per
        schema name and version: attempts, failed-or-error attempts, rate), ``facts_lost``
        (field -> missing/changed/added counts over failed and acceptable attempts),
        ``events`` (type -> count), ``usage`` (per summarizer: attempts, tokens in and out of
        every call made for them, cost in USD; None when some billed attempt has no known
        price; summed in floating point on SQLite), ``model_usage`` (per model and role:
        calls, HTTP requests, failed calls, tokens, cost, None when unknown), ``storage``
        (bytes per tier, see ``storage()``).
        """
        with self._read():
            by_status = self._rows(self._sql("count_entries"), {})
            cold = int(self._one("count_cold"))
            outcomes = self._rows(self._sql("count_attempts"), {})
            rates = self._rows(self._sql("failure_by_schema"), {})
            event_counts = self._rows(self._sql("count_events"), {})
            usage = self._rows(self._sql("usage_by_summarizer"), {})
            by_model = self._rows(self._sql("usage_by_model"), {})
        entries: dict[str, dict[str, int]] = {t.value: {} for t in (Tier.HOT, Tier.WARM)}
        for tier, status, count in by_status:
            entries.setdefault(str(tier), {})[str(status)] = int(count)
        attempts = {o.value: 0 for o in AttemptOutcome}
        attempts.update({str(o): int(n) for o, n in outcomes})
        attempts["total"] = sum(attempts.values())
        return {
            "tiers": {t: sum(s.values()) for t, s in entries.items()} | {Tier.COLD.value: cold},
            "entries": entries,
            "attempts": attempts,
            "failure_rate": [
                {
                    "schema": name,
                    "version": version,
                    "attempts": int(total),
                    "failed": int(failed),
                    "rate": int(failed) / int(total),
                }
                for name, version, total, failed in rates
            ],
            "facts_lost": self._facts_lost(),
            "events": {str(t): int(n) for t, n in event_counts},
            "usage": [
                {
                    "summarizer": str(name),
                    "attempts": int(count),
                    "tokens_in": int(tokens_in),
                    "tokens_out": int(tokens_out),
                    "cost_usd": None if cost is None else f"{Decimal(str(cost)):.6f}",
                }
                for name, count, tokens_in, tokens_out, cost in usage
            ],
            "model_usage": [
                {
                    "model": str(model),
                    "role": str(role),
                    "calls": int(calls),
                    "http_calls": int(http_calls),
                    "failed_calls": int(failed),
                    "tokens_in": int(tokens_in),
                    "tokens_out": int(tokens_out),
                    "cost_usd": None if cost is None else f"{Decimal(str(cost)):.6f}",
                }
                for model, role, calls, http_calls, failed, tokens_in, tokens_out, cost in by_model
            ],
            "storage": self.storage(),
        }

    def _facts_lost(self) -> dict[str, dict[str, int]]:
        counts: dict[str, Counter[str]] = {}
        sql, after = self._sql("lossy_diffs_page"), 0
        while True:
            rows = self._rows(sql, {"after": after, "limit": PAGE_SIZE})
            for attempt_id, diff_text, packed in rows:
                after = int(attempt_id)
                for kind, name in rowmap.diff_fields(rowmap.attempt_diff(diff_text, packed)):
                    counts.setdefault(name, Counter())[kind] += 1
            if len(rows) < PAGE_SIZE:
                break
        ordered = sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        return {
            name: {kind: c[kind] for kind in ("missing", "changed", "added")} for name, c in ordered
        }

    def verify(self) -> list[str]:
        """Re-derive every hot and cold content hash, every warm narrative and fact record
        hash (decoding the compact encodings, zstd dictionaries checked against their hash)
        and every attestation, check that every entry is in exactly one tier and in the
        search indexes and that packed attempts and events decode; returns one line per
        problem (empty when the store is sound)."""
        problems: list[str] = []
        for entry_id, data, expected in self._pages("hot_page", 32):
            if codec.content_hash(bytes(data)) != expected:
                problems.append(f"entry {entry_id}: hot content does not match its hash")
        for entry_id, cold_codec, data, cold_hash, expected, dict_id in self._pages(
            "cold_page", 32
        ):
            cold = (cold_codec, data, cold_hash, None, dict_id)
            try:
                self._cold_bytes(str(entry_id), cold, str(expected))
            except IntegrityError as exc:
                problems.append(str(exc))
        for entry_id, tier, hot, warm, cold in self._rows(self._sql("tier_violations"), {}):
            problems.append(
                f"entry {entry_id}: tier {tier} but hot={bool(hot)} warm={bool(warm)} "
                f"cold={bool(cold)}"
            )
        problems.extend(search_index.verify_retrieval(self))
        problems.extend(self._packed_problems())
        return problems

    def _pages(self, key: str, size: int) -> Iterator[Row]:
        sql, after = self._sql(key), ""
        while True:
            rows = self._rows(sql, {"after": after, "limit": size})
            for row in rows:
                after = str(row[0])
                yield row
            if len(rows) < size:
                return
