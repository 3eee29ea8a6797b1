"""``Database``: a backend and its dialect, the one place the store's parts run SQL through.

A backend (``factdiff.store.backends``: SQLite or PostgreSQL) runs SQL text; the dialect
(``factdiff.store.dialect``) names that text. ``Database`` joins them: a named statement in
the current transaction (``exec``, ``exec_many``, ``row``, ``one``, ``count``), a query's
rows (``rows``), one write transaction (``write``, joined by nested writes inside
``joined_writes``), one read snapshot (``read``) and keyset paging (``keyset_page``). The
store's repositories hold one ``Database`` each (the same one); nothing outside
``factdiff.store`` sees it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from itertools import islice
from typing import Any, TypeVar

from factdiff.store.backends import Backend, Cursor
from factdiff.store.backends.protocol import Row
from factdiff.store.dialect import Dialect
from factdiff.store.model import Page

T = TypeVar("T")
P = TypeVar("P")

__all__ = ["Database", "Row"]


class Database:
    """A backend with its dialect (see the module docstring)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.dialect: Dialect = backend.dialect
        self._join_local = threading.local()
        self.on_rollback: list[Callable[[], None]] = []
        """Run when ``write_each``'s transaction fails (drop caches of ids it wrote)."""

    def sql(self, key: str, **filters: bool) -> str:
        """The statement ``key`` with the ``filter_*`` blocks whose flag is true."""
        return self.dialect.sql(key, **filters)

    def run_script(self, script: str) -> None:
        """Run a migration script inside the current write transaction."""
        self.backend.run_script(script)

    def maintain(self, script: str) -> None:
        """Run a maintenance script (``VACUUM``...) outside any transaction."""
        self.backend.maintain(script)

    def vacuum(self) -> None:
        """Rewrite the store without free space or dead rows (the dialect's ``vacuum``
        script, over its own tables where it names ``{tables}``), outside any transaction."""
        script = self.sql("vacuum")
        if "{tables}" in script:
            tables = [str(name) for (name,) in self.rows(self.sql("vacuum_tables"), {})]
            script = script.replace("{tables}", ", ".join(tables))
        self.maintain(script)

    def exec(self, key: str, **params: Any) -> Cursor:
        """Run statement ``key`` inside the current transaction; returns the cursor."""
        return self.backend.execute(self.dialect.sql(key), params)

    def exec_many(self, key: str, rows: list[dict[str, Any]]) -> None:
        """Run statement ``key`` once per parameter set, inside the current transaction."""
        self.backend.execute_many(self.dialect.sql(key), rows)

    def row(self, key: str, **params: Any) -> Row | None:
        """The first row of statement ``key`` (in the current transaction, if any)."""
        return self.backend.fetch_one(self.dialect.sql(key), params)

    def rows(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql`` (in the current transaction, if any)."""
        return self.backend.fetch_all(sql, params)

    def one(self, key: str, **params: Any) -> Any:
        """The one value of a one-column statement (None when it returns no row)."""
        row = self.row(key, **params)
        if row is None:
            return None
        (value,) = row
        return value

    def count(self, key: str, **params: Any) -> int:
        """How many rows statement ``key`` changed."""
        return int(self.exec(key, **params).rowcount)

    def count_rows(self, sql: str, params: Mapping[str, Any]) -> int:
        """The count of a ``SELECT count(*)`` statement."""
        ((count,),) = self.rows(sql, params)
        return int(count)

    def write(self, work: Callable[[], T]) -> T:
        """Run ``work`` in one write transaction, retried a bounded number of times while the
        backend reports contention; rolled back on any error. Inside ``joined_writes``, in a
        savepoint of the open write transaction."""
        return self.backend.write(work, join=self.joining())

    @contextmanager
    def joined_writes(self) -> Iterator[None]:
        """Inside a write transaction: ``write`` calls made by this thread within the block
        run their work in that transaction instead of opening one."""
        before = getattr(self._join_local, "on", False)
        self._join_local.on = True
        try:
            yield
        finally:
            self._join_local.on = before

    def write_each(self, calls: Sequence[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        """Run ``calls`` one after another in one write transaction: one commit for all
        (group commit), each call's outcome in order, ``(True, result)`` or ``(False,
        exception)``.

        Every write a call makes (each ``write``: an outcome's fenced update and what it
        writes) runs in a savepoint of its own, so a call as a whole behaves as when run
        alone: a write that raises or that its fence refuses writes nothing, and leaves the
        other calls' writes alone; an exception a call raises is its own outcome. Nothing is
        visible to others before the commit. When the transaction fails (its begin or its
        commit), this raises and nothing of any call is stored: the caller may run each call
        again alone. A call that raises anything but an ``Exception`` (an interrupt) rolls
        every call back and propagates. On failure the ``on_rollback`` callbacks run (caches
        of ids written in the transaction are dropped).
        """

        def run_all() -> list[tuple[bool, Any]]:
            outcomes: list[tuple[bool, Any]] = []
            with self.joined_writes():
                for call in calls:
                    try:
                        outcomes.append((True, call()))
                    except Exception as exc:  # this call's own outcome
                        outcomes.append((False, exc))
            return outcomes

        try:
            return self.write(run_all)
        except BaseException:
            for forget in self.on_rollback:
                forget()
            raise

    def joining(self) -> bool:
        """Whether this thread's writes join the open write transaction."""
        return bool(getattr(self._join_local, "on", False))

    def read(self) -> AbstractContextManager[None]:
        """A read transaction: one consistent snapshot for several statements."""
        return self.backend.read()

    def keyset_page(
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
        """One page of the ``{name}_page`` listing after the key ``after`` (``start``: from
        the beginning), with how many items match in all and how many come before it
        (``{name}_count``), in one read snapshot; ``key`` is an item's key, and
        ``listed(page_sql, n)`` the items after ``after`` (``n`` of them when there are that
        many: ``row_items`` for a listing of one item per row)."""
        count_sql = self.sql(f"{name}_count", **filters)
        with self.read():
            total = self.count_rows(count_sql, {**params, "after": start})
            remaining = self.count_rows(count_sql, {**params, "after": after})
            found = list(islice(listed(self.sql(f"{name}_page", **filters), limit + 1), limit + 1))
        items = tuple(found[:limit])
        more = len(found) > limit
        next_after = (key(items[-1]) if items else after) if more else None
        return Page(items, total, total - remaining, next_after)

    def row_items(
        self, item: Callable[[Row], P], params: Mapping[str, Any], after: str | int
    ) -> Callable[[str, int], Iterable[P]]:
        """A ``keyset_page`` listing of one ``item`` per row of its page statement."""

        def listed(sql: str, n: int) -> Iterable[P]:
            return map(item, self.rows(sql, {**params, "after": after, "limit": n}))

        return listed
