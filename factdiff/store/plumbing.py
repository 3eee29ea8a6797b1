"""``DatabaseAccess``: the store's parts that are not repositories yet reach the database
through these one-line delegates to ``Database`` (``factdiff.store.database``).

``MemoryStore`` inherits them; a part that becomes a repository over ``Database`` stops
using them. Tests inject faults by replacing ``_exec`` or ``_row`` on a store, which the
parts still calling them honour.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from factdiff.store.backends import Cursor
from factdiff.store.database import Database, Row
from factdiff.store.model import Page

T = TypeVar("T")
P = TypeVar("P")

__all__ = ["DatabaseAccess"]


class DatabaseAccess:
    """Private delegates to the store's ``Database`` (see the module docstring)."""

    _db: Database

    def _sql(self, key: str, **filters: bool) -> str:
        return self._db.sql(key, **filters)

    def _run_script(self, script: str) -> None:
        """Run a migration script inside the current write transaction."""
        self._db.run_script(script)

    def _maintain(self, script: str) -> None:
        """Run a maintenance script (``VACUUM``...) outside any transaction."""
        self._db.maintain(script)

    def _exec(self, key: str, **params: Any) -> Cursor:
        """Run statement ``key`` inside the current transaction (``Database.exec``)."""
        return self._db.exec(key, **params)

    def _exec_many(self, key: str, rows: list[dict[str, Any]]) -> None:
        """Run statement ``key`` once per parameter set (``Database.exec_many``)."""
        self._db.exec_many(key, rows)

    def _row(self, key: str, **params: Any) -> Row | None:
        """The first row of statement ``key`` (``Database.row``)."""
        return self._db.row(key, **params)

    def _rows(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql`` (``Database.rows``)."""
        return self._db.rows(sql, params)

    def _write(self, work: Callable[[], T]) -> T:
        """Run ``work`` in one write transaction (``Database.write``)."""
        return self._db.write(work)

    def _joined_writes(self) -> AbstractContextManager[None]:
        """Inside a write transaction: ``_write`` calls made by this thread within the block
        run their work in that transaction (``Database.joined_writes``)."""
        return self._db.joined_writes()

    def _joining(self) -> bool:
        """Whether this thread's writes join the open write transaction (``_joined_writes``)."""
        return self._db.joining()

    def _read(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several statements."""
        return self._db.read()

    def _one(self, key: str, **params: Any) -> Any:
        """The one value of a one-column statement (None when it returns no row)."""
        row = self._row(key, **params)
        if row is None:
            return None
        (value,) = row
        return value

    def _keyset_page(
        self,
        name: str,
        filters: Mapping[str, bool],
        params: Mapping[str, Any],
        *,
        start: str | int,
        after: str | int,
        limit: int,
        key: Callable[[P], str | int],
        listed: Callable[[str, int], Iterable[P]],
    ) -> Page[P]:
        """One page of a keyset listing (``Database.keyset_page``)."""
        return self._db.keyset_page(
            name, filters, params, start=start, after=after, limit=limit, key=key, listed=listed
        )

    def _row_items(
        self, item: Callable[[Row], P], params: Mapping[str, Any], after: str | int
    ) -> Callable[[str, int], Iterable[P]]:
        """A ``_keyset_page`` listing of one ``item`` per row of its page statement."""
        return self._db.row_items(item, params, after)

    def _count_rows(self, sql: str, params: Mapping[str, Any]) -> int:
        """The count of a ``SELECT count(*)`` statement."""
        return self._db.count_rows(sql, params)

    def _count(self, key: str, **params: Any) -> int:
        return int(self._exec(key, **params).rowcount)

    def _insert_events(
        self,
        rows: list[tuple[str, str, bytes | None]],
        entry_id: str | None,
        agent_id: str | None,
        now: int,
    ) -> None:
        """Insert events whose (type, payload, packed payload) were made before the
        transaction (``rowmap.event_rows``), two to a row (schema version 14: a row of two
        holds events ``id - 1`` and ``id``), so that a demotion's verification event and its
        ``demoted`` pay one row and its index entries."""
        for start in range(0, len(rows), 2):
            kind, payload, packed = rows[start]
            params: dict[str, Any] = {
                "type": kind,
                "entry_id": entry_id,
                "agent_id": agent_id,
                "at": now,
                "payload": payload,
                "packed": packed,
            }
            if start + 1 == len(rows):
                self._exec("insert_event", **params)
                continue
            then_kind, then_payload, then_packed = rows[start + 1]
            self._exec(
                "insert_event_pair",
                **params,
                then_type=then_kind,
                then_payload=then_payload,
                then_packed=then_packed,
            )
