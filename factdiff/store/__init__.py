"""The tiered memory store: hot entries, warm summaries, cold archives, on SQLite or PostgreSQL.

::

    with open_store("memory.db") as store:           # or "postgresql://host/db"
        entry_id = store.add("agent-1", text, now=now)
        for entry in store.due_for_demotion(now, timedelta(days=14)):
            ...                                        # compress() outside any transaction
            store.apply_compressed(entry.id, expected_attempts=entry.attempt_count, ...)

An entry is ``hot`` (full source) or ``warm`` (narrative + fact record + meta, with its
source archived ``cold``). Outcomes are applied in one transaction each, guarded by the
attempt count the caller read, so replays and concurrent workers never double-apply.
Workers on many machines share a PostgreSQL store through leases: ``claim`` ->
``heartbeat`` -> ``apply_*(..., lease_token=...)`` (see ``factdiff.demotion.worker``).
``forget`` erases entries (tombstones left, see ``erasure``); ``correct`` replaces a source.
The logic (``MemoryStore``, ``base``) holds a backend (``backends``: SQLite or PostgreSQL).
SQL lives in ``sql/common/``, ``sql/<dialect>/`` and ``migrations/<dialect>/``; see ``codec``
for the storage contracts (times, ids, hashes, NUL handling).
"""

from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore
from factdiff.store.codec import content_hash
from factdiff.store.correction import Correction
from factdiff.store.erasure import Forgotten
from factdiff.store.factory import is_postgres, open_store
from factdiff.store.model import (
    AttemptOutcome,
    AttemptRecord,
    BadEntry,
    BlankEntry,
    Claim,
    Entry,
    EntryErased,
    EntryNotFound,
    EntryStatus,
    Event,
    EventType,
    IntegrityError,
    KnownGap,
    NewEntry,
    NewEvent,
    Page,
    SchemaNotRegistered,
    SchemaVersionConflict,
    StoreBusy,
    StoredSchema,
    Tier,
    Tombstone,
    WarmMeta,
    WarmView,
    WrongTier,
)
from factdiff.store.sqlite import SqliteStore

__all__ = [
    "DEFAULT_MAX_ENTRY_BYTES",
    "AttemptOutcome",
    "AttemptRecord",
    "BadEntry",
    "BlankEntry",
    "Claim",
    "Correction",
    "Entry",
    "EntryErased",
    "EntryNotFound",
    "EntryStatus",
    "Event",
    "EventType",
    "Forgotten",
    "IntegrityError",
    "KnownGap",
    "MemoryStore",
    "NewEntry",
    "NewEvent",
    "Page",
    "SchemaNotRegistered",
    "SchemaVersionConflict",
    "SqliteStore",
    "StoreBusy",
    "StoredSchema",
    "Tier",
    "Tombstone",
    "WarmMeta",
    "WarmView",
    "WrongTier",
    "content_hash",
    "is_postgres",
    "open_store",
]
