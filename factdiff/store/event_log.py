"""The event log: events are appended by the writes that cause them, in the same
transaction (``EventLog.append``, an ``AppendEvents``); ``EventLog`` reads them back.

``EventLog`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods. A stored diff names its schema by reference: ``rows`` elides the hash the registry
holds (``registered_hash``) and the readers restore it (``schema_refs``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from itertools import islice

from factdiff.errors import InputError
from factdiff.store import codec, schema_refs
from factdiff.store import rows as rowmap
from factdiff.store.database import Database, Row
from factdiff.store.model import (
    Event,
    EventType,
    NewEvent,
    Page,
)

PAGE_SIZE = rowmap.PAGE_SIZE

AppendEvents = Callable[[list[NewEvent], str | None, str | None, int], None]
"""Append events (of an entry and its agent, or of none) at a time in microseconds, inside
the current write."""

EventRows = list[tuple[str, str, bytes | None]]
"""Events as stored, made before the transaction: (type, payload, packed payload)."""

Params = dict[str, str | int | None]


def _event_query(
    entry_id: str | None,
    agent: str | None,
    type: EventType | None,
    since: datetime | None,
    until: datetime | None,
) -> tuple[dict[str, bool], Params]:
    """The listing filters in use and their parameters (shared by ``events`` and
    ``event_page``)."""
    filters = {
        "entry": entry_id is not None,
        "agent": agent is not None,
        "type": type is not None,
        "since": since is not None,
        "until": until is not None,
    }
    params: Params = {
        "entry_id": entry_id,
        "agent": agent,
        "type": None if type is None else EventType(type).value,
        "since": codec.opt_micros(since, "since"),
        "until": codec.opt_micros(until, "until"),
    }
    return filters, params


class EventLog:
    """The event log of one store, read (see the module docstring)."""

    def __init__(self, db: Database, registered_hash: schema_refs.Registered) -> None:
        self._db = db
        self._registered_hash = registered_hash

    # -- appending (inside the callers' write transactions) --------------------------------

    def append(
        self, events: list[NewEvent], entry_id: str | None, agent_id: str | None, now: int
    ) -> None:
        """Append ``events`` of an entry and its agent (or of none) at ``now``
        (microseconds), inside the current write: ``insert`` of their ``rows``."""
        self.insert(self.rows(events), entry_id, agent_id, now)

    def rows(self, events: list[NewEvent]) -> EventRows:
        """The rows of ``events`` as stored (``rowmap.event_rows``), each diff's schema hash
        stored once (``schema_refs``); made before the transaction."""
        registered = self._registered_hash
        return rowmap.event_rows([schema_refs.elide_event(e, registered) for e in events])

    def insert(self, rows: EventRows, entry_id: str | None, agent_id: str | None, now: int) -> None:
        """Insert events whose rows were made before the transaction (``rows``), two to a
        row (schema version 14: a row of two holds events ``id - 1`` and ``id``), so that a
        demotion's verification event and its ``demoted`` pay one row and its index
        entries."""
        for start in range(0, len(rows), 2):
            kind, payload, packed = rows[start]
            params: dict[str, str | int | bytes | None] = {
                "type": kind,
                "entry_id": entry_id,
                "agent_id": agent_id,
                "at": now,
                "payload": payload,
                "packed": packed,
            }
            if start + 1 == len(rows):
                self._db.exec("insert_event", **params)
                continue
            then_kind, then_payload, then_packed = rows[start + 1]
            self._db.exec(
                "insert_event_pair",
                **params,
                then_type=then_kind,
                then_payload=then_payload,
                then_packed=then_packed,
            )

    # -- reading ---------------------------------------------------------------------------

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
        filters, params = _event_query(entry_id, agent, type, since, until)
        sql = self._db.sql("events_page", **filters)
        if limit is None:
            return self._listed(sql, params, 0, PAGE_SIZE)
        if limit <= 0:
            return iter(())
        return islice(self._listed(sql, params, 0, min(PAGE_SIZE, limit)), limit)

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
        filters, params = _event_query(entry_id, agent, type, since, until)
        return self._db.keyset_page(
            "events",
            filters,
            params,
            start=0,
            after=after,
            limit=limit,
            key=lambda event: event.id,
            listed=lambda sql, n: self._listed(sql, params, after, n),
        )

    def last_event_id(self) -> int:
        """The id of the newest event (0 when there is none)."""
        return int(self._db.one("last_event_id"))

    def _events(self, row: Row) -> list[Event]:
        """The events of an ``events`` row (one, or two: ``rowmap.events``), their diffs'
        schema hashes restored (``schema_refs``)."""
        registered = self._registered_hash
        return [schema_refs.restore_event(e, registered) for e in rowmap.events(row)]

    def _listed(self, sql: str, params: Params, after: int, page: int) -> Iterator[Event]:
        """The events after the event id ``after`` that ``sql`` (``events_page`` with its
        filters) lists, read ``page`` rows at a time. A row of two matches when either of
        its events does, so each event is checked against ``after`` and the type here."""
        kind, cursor = params["type"], after
        while True:
            rows = self._db.rows(sql, {**params, "after": cursor, "limit": page})
            for row in rows:
                cursor = int(row["id"])
                for event in self._events(row):
                    if event.id > after and (kind is None or event.type.value == kind):
                        yield event
            if len(rows) < page:
                return
