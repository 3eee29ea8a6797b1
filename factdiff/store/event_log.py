"""Reading the event log of ``MemoryStore`` (events are appended by the writes that cause
them, in the same transaction)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from factdiff.errors import InputError
from factdiff.store import codec, schema_refs
from factdiff.store import rows as rowmap
from factdiff.store.model import (
    Event,
    EventType,
    Page,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

PAGE_SIZE = rowmap.PAGE_SIZE


def _store(mixin: EventLogMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


def _event_query(
    entry_id: str | None,
    agent: str | None,
    type: EventType | None,
    since: datetime | None,
    until: datetime | None,
) -> tuple[dict[str, bool], dict[str, Any]]:
    """The listing filters in use and their parameters (shared by ``events`` and
    ``event_page``)."""
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
    return filters, params


class EventLogMixin:
    """Reading the event log of ``MemoryStore`` (see the module docstring)."""

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
        store = _store(self)
        filters, params = _event_query(entry_id, agent, type, since, until)
        sql = store._sql("events_page", **filters)
        return store._stream_events(sql, params, limit)

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
        store = _store(self)
        if limit < 0:
            raise InputError(f"limit must not be negative (got {limit})")
        filters, params = _event_query(entry_id, agent, type, since, until)
        return store._keyset_page(
            "events",
            filters,
            params,
            start=0,
            after=after,
            limit=limit,
            item=store._event,
            key=lambda event: event.id,
        )

    def _event(self, row: rowmap.Row) -> Event:
        """The event of an ``events`` row, its diff's schema hash restored (``schema_refs``)."""
        return schema_refs.restore_event(rowmap.event(row), _store(self)._registered_hash)

    def last_event_id(self) -> int:
        """The id of the newest event (0 when there is none)."""
        store = _store(self)
        return int(store._one("last_event_id"))

    def _stream_events(
        self, sql: str, params: dict[str, Any], limit: int | None
    ) -> Iterator[Event]:
        store = _store(self)
        after, remaining = 0, limit
        while remaining is None or remaining > 0:
            page = PAGE_SIZE if remaining is None else min(PAGE_SIZE, remaining)
            rows = store._rows(sql, {**params, "after": after, "limit": page})
            for row in rows:
                after = int(row["id"])
                yield store._event(row)
            if remaining is not None:
                remaining -= len(rows)
            if len(rows) < page:
                return
