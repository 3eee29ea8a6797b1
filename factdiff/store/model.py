"""The store's vocabulary: tiers, statuses, events, attempts, warm meta, and the typed errors
it raises."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Generic, NamedTuple, TypeVar

from factdiff.errors import InputError, StoreError
from factdiff.providers.accounting import ModelCall
from factdiff.schema.model import Criticality, SchemaRef
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.values.base import FactType

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
    REEVALUATED = "reevaluated"
    REEVALUATION_FAILED = "reevaluation_failed"
    ERASED = "erased"
    CORRECTED = "corrected"
    REVIEW_APPROVED = "review_approved"
    REVIEW_EDITED = "review_edited"
    KEPT_HOT = "kept_hot"


class AttemptOutcome(enum.StrEnum):
    """How one compression attempt ended (``error``: the pipeline itself failed)."""

    CLEAN = "clean"
    ACCEPTABLE_WITH_NOTES = "acceptable_with_notes"
    FAILED = "failed"
    ERROR = "error"


@dataclass(frozen=True)
class KnownGap:
    """A fact an accepted summary lost (by policy only ``important`` ones): retrieval reads
    the value from the warm entry's fact record, or the source from cold."""

    field: str
    """A schema field name, or ``inventory.<type>``."""
    criticality: Criticality
    fact_type: FactType | None
    """None only for warm entries written before gaps were typed."""

    def to_json(self) -> dict[str, Any]:
        """``{"field", "criticality", "type"}``."""
        return {
            "field": self.field,
            "criticality": self.criticality.value,
            "type": None if self.fact_type is None else self.fact_type.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KnownGap:
        """Inverse of ``to_json``."""
        kind = data.get("type")
        return cls(
            field=str(data["field"]),
            criticality=Criticality(data.get("criticality", Criticality.IMPORTANT.value)),
            fact_type=None if kind is None else FactType(kind),
        )


_META_KEYS = frozenset(
    {
        "schema",
        "extractor",
        "summarizer",
        "method_version",
        "budget_words",
        "rung",
        "outcome",
        "compressed_at",
        "lost_important_fields",
        "known_gaps",
        "attempt_count",
        "source_content_hash",
        "source_facts_digest",
        "coverage",
    }
)


@dataclass(frozen=True)
class WarmMeta:
    """How a warm entry was made: schema, models, budget, rung, and its known gaps.

    Stored as JSON with the keys warm entries have always had (``lost_important_fields``
    included, as field names) plus ``known_gaps``; rows written before gaps were typed load
    with gaps read from ``lost_important_fields`` (important, type unknown). Keys this
    version does not know are kept in ``extra`` and written back unchanged. ``coverage``
    (``CheckCoverage``: what the check verified, the unverified sentences the summary
    dropped) is ``None`` for rows written before it was kept, and then not in the JSON.
    """

    schema: SchemaRef
    extractor: str
    summarizer: str
    method_version: str
    budget_words: int | None
    rung: int
    outcome: AttemptOutcome
    compressed_at: datetime
    attempt_count: int
    source_content_hash: str
    source_facts_digest: str | None = None
    known_gaps: tuple[KnownGap, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    coverage: CheckCoverage | None = None

    @property
    def lost_important_fields(self) -> tuple[str, ...]:
        """The field names of the known gaps (the original key)."""
        return tuple(gap.field for gap in self.known_gaps)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON object."""
        return {
            **self.extra,
            "schema": self.schema.to_json(),
            "extractor": self.extractor,
            "summarizer": self.summarizer,
            "method_version": self.method_version,
            "budget_words": self.budget_words,
            "rung": self.rung,
            "outcome": self.outcome.value,
            "compressed_at": self.compressed_at.isoformat(),
            "lost_important_fields": list(self.lost_important_fields),
            "known_gaps": [gap.to_json() for gap in self.known_gaps],
            "attempt_count": self.attempt_count,
            "source_content_hash": self.source_content_hash,
            "source_facts_digest": self.source_facts_digest,
            **({} if self.coverage is None else {"coverage": self.coverage.to_json()}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], source: str | None = None) -> WarmMeta:
        """The meta of a stored row, old or new (see the class docstring); ``source``: the
        entry's source, which the coverage's dropped sentences are read from."""
        gaps = data.get("known_gaps")
        if isinstance(gaps, list):
            known = tuple(KnownGap.from_json(g) for g in gaps if isinstance(g, Mapping))
        else:
            known = tuple(
                KnownGap(str(name), Criticality.IMPORTANT, None)
                for name in data.get("lost_important_fields") or ()
            )
        budget = data.get("budget_words")
        covered = data.get("coverage")
        return cls(
            schema=SchemaRef.from_json(data["schema"]),
            extractor=str(data.get("extractor", "")),
            summarizer=str(data.get("summarizer", "")),
            method_version=str(data.get("method_version", "")),
            budget_words=None if budget is None else int(budget),
            rung=int(data.get("rung", 0)),
            outcome=AttemptOutcome(data.get("outcome", AttemptOutcome.CLEAN.value)),
            compressed_at=datetime.fromisoformat(str(data["compressed_at"])),
            attempt_count=int(data.get("attempt_count", 0)),
            source_content_hash=str(data.get("source_content_hash", "")),
            source_facts_digest=data.get("source_facts_digest"),
            known_gaps=known,
            extra={k: v for k, v in data.items() if k not in _META_KEYS},
            coverage=None if covered is None else CheckCoverage.from_json(covered, source),
        )


@dataclass(frozen=True)
class WarmView:
    """The warm form of an entry: narrative, the source's fact record, compression meta."""

    narrative: str
    record: dict[str, Any]
    meta: WarmMeta
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
    """Verified attempts (passed, failed or refused): they climb the ladder."""
    next_attempt_at: datetime | None
    content: str | None = None
    warm: WarmView | None = None
    error_attempts: int = 0
    """Attempts that verified nothing (provider, model output or internal errors)."""
    error_streak: int = 0
    """Error attempts since the last verified attempt (the error budget counts these)."""


@dataclass(frozen=True)
class AttemptRecord:
    """One compression attempt: settings, diff, outcome, cost, and its model calls.

    ``attempt_no``, ``id`` and ``entry_id`` are filled by the store; pass them as ``None``.
    ``diff`` holds lists ``missing``/``changed``/``added`` of objects with a ``field`` key.
    ``failure_class`` names why an ``error`` attempt verified nothing; ``must_keep`` (failed
    attempts) the facts the next attempt must keep, as ``{"field", "fact"}`` JSON objects;
    ``calls`` every model call made for the attempt (stored in ``model_calls``).
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
    failure_class: str | None = None
    must_keep: tuple[dict[str, Any], ...] | None = None
    calls: tuple[ModelCall, ...] = ()
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


class EntryErased(EntryNotFound):
    """The entry was erased (``factdiff forget``): only its tombstone is left."""

    def __init__(self, tombstone: Tombstone) -> None:
        self.tombstone = tombstone
        InputError.__init__(
            self,
            f"entry {tombstone.entry_id} was erased at {tombstone.erased_at.isoformat()}: "
            "its content is gone (`factdiff show` prints its tombstone)",
        )
        self.entry_id = tombstone.entry_id


@dataclass(frozen=True)
class Tombstone:
    """What is left of an erased entry: who, when, why, and the hash of what it held."""

    entry_id: str
    agent_id: str
    tier: str
    """The tier the entry was in when it was erased."""
    erased_at: datetime
    reason: str
    content_hash: str

    def to_json(self) -> dict[str, Any]:
        """``{"entry_id", "agent_id", "tier", "erased_at", "reason", "content_hash"}``."""
        return {
            "entry_id": self.entry_id,
            "agent_id": self.agent_id,
            "tier": self.tier,
            "erased_at": self.erased_at.isoformat(),
            "reason": self.reason,
            "content_hash": self.content_hash,
        }


class BadEntry(InputError):
    """One entry of a batch cannot be stored (``position`` counts from 1); nothing was."""

    def __init__(self, position: int, detail: str) -> None:
        self.position = position
        self.detail = detail
        super().__init__(f"entry {position}: {detail}")


class BlankEntry(InputError):
    """An entry's text is empty or only whitespace: there is nothing to remember. Every way
    in (CLI, HTTP, MCP, Python) meets this one rule at the store's door, with this message."""

    MESSAGE = "the entry's text is empty or only whitespace: give it some content"

    def __init__(self, where: str = "") -> None:
        super().__init__(f"{where}: {self.MESSAGE}" if where else self.MESSAGE)

    @classmethod
    def refuse(cls, text: str, where: str = "") -> None:
        """Raise for a blank ``text`` (``where`` names it, e.g. the file it came from)."""
        if not text.strip():
            raise cls(where)


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
