"""The store's vocabulary: tiers, statuses, events, attempts, and the typed errors it raises."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Generic, NamedTuple, TypeVar

from factdiff.errors import InputError, StoreError

T = TypeVar("T")


class Tier(enum.StrEnum):
    """Where an entry lives. ``cold`` holds the archived source of every ``warm`` entry."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"


class EntryStatus(enum.StrEnum):
    """``review`` entries wait for an operator and are never demoted automatically."""

    ACTIVE = "active"
    REVIEW = "review"


class EventType(enum.StrEnum):
    """Every kind of event the store records."""

    COMPRESSION_CLEAN = "compression_clean"
    COMPRESSION_ACCEPTABLE = "compression_acceptable"
    COMPRESSION_FAILURE = "compression_failure"
    ESCALATED_TO_REVIEW = "escalated_to_review"
    DEMOTED = "demoted"
    RESTORED = "restored"
    PROMOTED = "promoted"
    SCHEMA_REGISTERED = "schema_registered"
    REVIEW_RESOLVED = "review_resolved"


class AttemptOutcome(enum.StrEnum):
    """How one compression attempt ended (``error``: the pipeline itself failed)."""

    CLEAN = "clean"
    ACCEPTABLE_WITH_NOTES = "acceptable_with_notes"
    FAILED = "failed"
    ERROR = "error"


@dataclass(frozen=True)
class WarmView:
    """The warm form of an entry: narrative, the source's fact record, compression meta."""

    narrative: str
    record: dict[str, Any]
    meta: dict[str, Any]
    attempt_no: int
    compressed_at: datetime


@dataclass(frozen=True)
class Entry:
    """One memory entry as stored. ``content`` is set for hot entries, ``warm`` for warm ones.

    Listings made with ``with_content=False`` leave both ``None`` whatever the tier.
    """

    id: str
    agent_id: str
    tier: Tier
    status: EntryStatus
    occurred_at: datetime | None
    created_at: datetime
    last_used_at: datetime
    metadata: dict[str, Any]
    schema_name: str | None
    tags: tuple[str, ...]
    content_hash: str
    size_bytes: int
    attempt_count: int
    next_attempt_at: datetime | None
    content: str | None = None
    warm: WarmView | None = None


@dataclass(frozen=True)
class AttemptRecord:
    """One compression attempt: settings, diff, outcome, cost.

    ``attempt_no``, ``id`` and ``entry_id`` are filled by the store; pass them as ``None``.
    ``diff`` holds lists ``missing``/``changed``/``added`` of objects with a ``field`` key.
    """

    rung: int
    summarizer: str
    extractor: str
    method_version: str
    outcome: AttemptOutcome
    started_at: datetime
    finished_at: datetime
    duration_ms: float
    budget_words: int | None = None
    diff: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: Decimal | None = None
    error: str | None = None
    schema_name: str | None = None
    schema_version: int | None = None
    schema_hash: str | None = None
    attempt_no: int | None = None
    id: int | None = None
    entry_id: str | None = None


@dataclass(frozen=True)
class NewEvent:
    """An event to append; the store adds its id, entry, agent and time."""

    type: EventType
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Event:
    """A recorded event. ``id`` increases with every append."""

    id: int
    type: EventType
    entry_id: str | None
    agent_id: str | None
    at: datetime
    payload: dict[str, Any]


@dataclass(frozen=True)
class Claim:
    """A leased entry: only the holder of ``token`` may apply its outcome until
    ``expires_at`` (database clock), unless a ``heartbeat`` extends it."""

    entry: Entry
    token: str
    expires_at: datetime
    claimed_at: datetime


@dataclass(frozen=True)
class NewEntry:
    """An entry to add (see ``MemoryStore.add``; ``add_many`` takes many at once)."""

    agent_id: str
    content: str
    occurred_at: datetime | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    schema: str | None = None
    tags: tuple[str, ...] = ()
    last_used_at: datetime | None = None


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing in key order.

    ``total`` items match the listing's filters, ``offset`` of them come before this page, and
    ``next_after`` is the key to pass as ``after`` for the next page (``None``: this is the
    last one).
    """

    items: tuple[T, ...]
    total: int
    offset: int
    next_after: str | int | None


class StoredSchema(NamedTuple):
    """A registered fact schema version (unpacks as ``version, hash, definition, source``)."""

    version: int
    hash: str
    definition: dict[str, Any]
    source_text: str | None


class EntryNotFound(InputError):
    """No entry has this id."""

    def __init__(self, entry_id: str) -> None:
        self.entry_id = entry_id
        super().__init__(f"no entry with id {entry_id!r}: check the id with `factdiff show`")


class BadEntry(InputError):
    """One entry of a batch cannot be stored (``position`` counts from 1); nothing was."""

    def __init__(self, position: int, detail: str) -> None:
        self.position = position
        self.detail = detail
        super().__init__(f"entry {position}: {detail}")


class WrongTier(InputError):
    """The entry is not in the tier the operation needs."""


class SchemaNotRegistered(InputError):
    """No registered fact schema has this name (and version)."""


class SchemaVersionConflict(InputError):
    """A schema name and version is already registered with different content."""


class IntegrityError(StoreError):
    """Stored content does not match its hash: the store is corrupt for this entry."""

    def __init__(self, entry_id: str, detail: str) -> None:
        self.entry_id = entry_id
        super().__init__(
            f"entry {entry_id}: {detail}; the store is corrupt, run `factdiff verify` "
            "and restore the file from a backup"
        )


class StoreBusy(StoreError):
    """The store stayed locked by other writers through every retry."""
