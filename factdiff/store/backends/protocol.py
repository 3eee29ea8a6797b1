"""``Backend``: what the store's logic needs from a database, and nothing more.

A backend runs the named statements of its dialect (``Dialect``) on its connection(s): one
statement inside the current transaction (``execute``, ``execute_many``), a query in the
current transaction or on its own (``fetch_one``, ``fetch_all``), one write transaction
retried on contention (``write``), one read snapshot (``read``), a migration script inside
the write (``run_script``) and a maintenance script outside any (``maintain``). It says
whether several threads may share it (``thread_safe``) and where it lives (``location``).
Rows come back readable by column name (``Row``).
The logic (``factdiff.store.base.MemoryStore``) holds one and never spells SQL itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from factdiff.store.dialect import Dialect

T = TypeVar("T")


class Row(Protocol):
    """A result row, read by column name (``row["agent_id"]``); a one-column row may be
    unpacked (``(count,) = row``). ``sqlite3.Row`` on SQLite, ``NamedRow`` on PostgreSQL."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...


class Cursor(Protocol):
    """The part of a driver's cursor the store uses."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Backend(Protocol):
    """A database the store runs on (see the module docstring)."""

    @property
    def dialect(self) -> Dialect:
        """The backend's SQL: named statements, declared schema and migrations."""

    @property
    def thread_safe(self) -> bool:
        """Whether several threads may share this backend (else one per thread)."""

    @property
    def location(self) -> str:
        """Where the store lives, for messages (a path, or a DSN without its password)."""

    def execute(self, sql: str, params: Mapping[str, Any]) -> Cursor:
        """Run ``sql`` inside the current transaction."""

    def execute_many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        """Run ``sql`` once per parameter set, inside the current transaction."""

    def fetch_one(self, sql: str, params: Mapping[str, Any]) -> Row | None:
        """The first row of ``sql`` (in the current transaction, if any)."""

    def fetch_all(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql`` (in the current transaction, if any)."""

    def write(self, work: Callable[[], T], *, join: bool = False) -> T:
        """Run ``work`` in one write transaction, retried a bounded number of times while the
        database reports contention, rolled back on any error; with ``join``, in this
        thread's open write transaction when there is one."""

    def read(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several statements."""

    def run_script(self, script: str) -> None:
        """Run a migration script inside the current write transaction."""

    def maintain(self, script: str) -> None:
        """Run a maintenance script (``VACUUM``...) outside any transaction."""

    def close(self) -> None:
        """Release the connection(s) (idempotent)."""
