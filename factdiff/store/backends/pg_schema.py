"""The PostgreSQL schema a DSN selects, created when it does not exist yet.

A store's tables go to ``current_schema()``: the first schema of the connection's
``search_path`` that exists. A DSN such as ``postgresql://host/db?options=-csearch_path%3Dfactdiff``
on a fresh database names a schema that does not exist, so nothing is selected and the
first ``CREATE TABLE`` would fail with a raw server error. ``ensure_schema`` creates the
first schema the ``search_path`` names (``$user`` is skipped: a role's own schema is only
used when it exists), or says in one line what to do when the role may not create it.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import errors as pgerrors
from psycopg import sql

from factdiff.errors import StoreError
from factdiff.store.dialect import Dialect

__all__ = ["ensure_schema", "search_path_schemas"]


def search_path_schemas(search_path: str) -> list[str]:
    """The schema names of a ``search_path`` setting, as the server resolves them: quoted
    names kept as written (``""`` is one quote), unquoted ones in lower case; ``$user``
    and empty items are left out."""
    names: list[str] = []
    for item in _items(search_path):
        if item.startswith('"') and item.endswith('"') and len(item) >= 2:
            name = item[1:-1].replace('""', '"')
        else:
            name = item.lower()
        if name and name != "$user":
            names.append(name)
    return names


def _items(search_path: str) -> list[str]:
    """The comma-separated items of ``search_path`` (commas inside quotes kept), stripped."""
    items: list[str] = []
    current: list[str] = []
    quoted = False
    for char in search_path:
        if char == '"':
            quoted = not quoted
        if char == "," and not quoted:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return items


def ensure_schema(conn: psycopg.Connection[Any], dialect: Dialect, location: str) -> None:
    """Create the schema ``conn``'s ``search_path`` names first when none of its schemas
    exists; ``StoreError`` says what to do when none is named or it cannot be created."""
    selected = conn.execute(dialect.sql("selected_schema")).fetchone()
    assert selected is not None
    current, search_path, role = selected[0], selected[1], selected[2]
    if current is not None:
        return
    names = search_path_schemas(search_path)
    if not names:
        raise StoreError(
            f"store {location}: no schema is selected (search_path is {search_path!r}): name "
            "one in the DSN, e.g. ?options=-csearch_path%3Dfactdiff"
        )
    name = names[0]
    try:
        conn.execute(sql.SQL(dialect.sql("create_schema")).format(schema=sql.Identifier(name)))
    except pgerrors.InsufficientPrivilege:
        raise StoreError(
            f"store {location}: schema {name!r} does not exist and role {role!r} may not "
            f'create it: have an owner of the database run CREATE SCHEMA "{name}" '
            f'AUTHORIZATION "{role}", or name an existing schema in the DSN\'s search_path'
        ) from None
    except pgerrors.UniqueViolation:  # created by another process meanwhile
        pass
