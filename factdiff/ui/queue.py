"""The review queue as a reviewer works it: filtered by agent, schema, field lost and age,
sorted, with counts per agent, schema and lost field.

The queue reads at most ``QUEUE_CAP`` entries in review (oldest first) and filters them with
their last attempt's diff; ``truncated`` says when more are waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.present.documents import attempt_json, entry_json
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import EntryStatus
from factdiff.store import rows as rowmap
from factdiff.ui.review_facts import review_state, schema_used

if TYPE_CHECKING:
    from factdiff.store import Entry, MemoryStore
    from factdiff.values.base import JSON

__all__ = ["QUEUE_CAP", "SORTS", "QueueFilters", "review_queue"]

QUEUE_CAP = 1000
"""Entries in review read per queue page."""

SortKey = tuple[str | int, ...]
"""A review's place in the queue's order."""

SORTS = ("age", "-age", "agent", "schema", "lost")
"""Orders: oldest first (``age``), newest first, by agent, by schema, most fields lost."""


@dataclass(frozen=True)
class QueueFilters:
    """What the reviewer asked for; ``None`` means any. ``older_than`` is a duration."""

    agent: str | None = None
    schema: str | None = None
    field: str | None = None
    older_than: timedelta | None = None
    sort: str = "age"

    def __post_init__(self) -> None:
        if self.sort not in SORTS:
            raise InputError(f"sort: one of {', '.join(SORTS)} (got {self.sort!r})")

    def to_json(self) -> dict[str, JSON]:
        """The filters as given, for the document and the page's form."""
        return {
            "agent": self.agent,
            "schema": self.schema,
            "field": self.field,
            "older_than_seconds": None
            if self.older_than is None
            else int(self.older_than.total_seconds()),
            "sort": self.sort,
        }


def review_queue(store: MemoryStore, filters: QueueFilters, now: datetime) -> dict[str, JSON]:
    """``{"filters", "reviews", "count", "waiting", "truncated", "counts"}``: each review
    has ``entry``, ``last_attempt``, ``fields_lost``, ``age_seconds``, ``schema`` (the one
    used, resolved as demotion resolves it: ``review_facts.schema_used``) and ``review``
    (why it waits: ``{"reason", "detail"}``); ``counts`` has ``agent``, ``schema`` and
    ``field`` -> how many waiting entries (before filtering)."""
    page = store.entry_page(status=EntryStatus.REVIEW, exclude_kept=True, limit=QUEUE_CAP)
    rows: list[tuple[SortKey, dict[str, JSON]]] = []
    counts: dict[str, dict[str, int]] = {"agent": {}, "schema": {}, "field": {}}
    resolver = SchemaResolver(store)
    for entry in page.items:
        attempts = store.attempts(entry.id)
        last = attempts[-1] if attempts else None
        lost = sorted({name for _, name in rowmap.diff_fields(last.diff if last else None)})
        used = schema_used(store, entry, attempts, resolver)
        schema = str(used["name"])
        age = (now - entry.created_at).total_seconds()
        _bump(counts["agent"], entry.agent_id)
        _bump(counts["schema"], schema)
        for name in lost:
            _bump(counts["field"], name)
        if not _matches(filters, entry.agent_id, schema, lost, age):
            continue
        review: dict[str, JSON] = {
            "entry": entry_json(entry),
            "last_attempt": attempt_json(last) if last else None,
            "fields_lost": lost,
            "age_seconds": int(age),
            "schema": used,
            "review": review_state(store, entry),
        }
        rows.append((_sort_key(filters.sort, entry, schema, lost, int(age)), review))
    rows.sort(key=lambda row: row[0])
    return {
        "filters": filters.to_json(),
        "reviews": [review for _, review in rows],
        "count": len(rows),
        "waiting": page.total,
        "truncated": page.total > len(page.items),
        "counts": {k: dict(sorted(v.items())) for k, v in counts.items()},
    }


def _bump(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


def _matches(filters: QueueFilters, agent: str, schema: str, lost: list[str], age: float) -> bool:
    if filters.agent is not None and agent != filters.agent:
        return False
    if filters.schema is not None and schema != filters.schema:
        return False
    if filters.field is not None and filters.field not in lost:
        return False
    return filters.older_than is None or age >= filters.older_than.total_seconds()


def _sort_key(sort: str, entry: Entry, schema: str, lost: list[str], age: int) -> SortKey:
    """Where a review goes in the ``sort`` order; ties by creation time, then id."""
    by_age = (entry.created_at.isoformat(), entry.id)
    if sort == "-age":
        return (-age, entry.id)
    if sort == "agent":
        return (entry.agent_id, *by_age)
    if sort == "schema":
        return (schema, *by_age)
    if sort == "lost":
        return (-len(lost), *by_age)
    return by_age
