"""``NamedRow``: PostgreSQL's rows readable by column name, as ``sqlite3.Row`` is on SQLite.

A ``NamedRow`` is a tuple (so it unpacks, compares and slices as one) whose ``row["name"]``
finds the column by name; the first of two columns with one name wins, as in
``sqlite3.Row``. The name index is built once per distinct column list, not per row.
``named_rows`` is the psycopg row factory that makes them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

import psycopg
from psycopg.rows import RowMaker, no_result


class NamedRow(tuple[Any, ...]):
    """A row read by column name or position (see the module docstring)."""

    __slots__ = ()
    _index: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            try:
                key = self._index[key]
            except KeyError:
                raise IndexError(f"no column named {key!r}") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._index)


@lru_cache(maxsize=1024)
def row_class(names: tuple[str, ...]) -> type[NamedRow]:
    """The ``NamedRow`` class of rows with these columns."""
    index: dict[str, int] = {}
    for position, name in enumerate(names):
        index.setdefault(name, position)
    return type("NamedRow", (NamedRow,), {"__slots__": (), "_index": index})


def named_rows(cursor: psycopg.Cursor[Any]) -> RowMaker[NamedRow]:
    """psycopg row factory: each row as a ``NamedRow``."""
    description = cursor.description
    if description is None:
        return no_result
    return row_class(tuple(column.name for column in description))
