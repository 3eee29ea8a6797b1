"""``open_store``: the one way to open a store, from a SQLite path or a PostgreSQL DSN.

Every caller in factdiff opens its store here. The other spellings are kept for the public
API and for subclasses, and open the same store: ``MemoryStore.open`` (also
``factdiff.Store.open``), ``MemoryStore.from_backend`` (a store on a backend already
connected), ``SqliteStore.connect`` and ``PostgresStore.connect`` (a subclass on one backend
whatever the target looks like).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdiff.store.backends import POSTGRES_SCHEMES, is_postgres, open_backend
from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore

__all__ = ["POSTGRES_SCHEMES", "is_postgres", "open_store"]


def open_store(
    target: str | Path,
    *,
    create: bool = True,
    check_version: bool = True,
    read_only: bool = False,
    max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
    **options: Any,
) -> MemoryStore:
    """Open the store at ``target``: a ``postgresql://`` DSN gives a store on PostgreSQL
    (needs the ``postgres`` extra), anything else is a SQLite file path.

    ``create``: an empty store is migrated (and a missing SQLite file created; otherwise it
    raises ``StoreError``). ``check_version``: an older schema raises ``MigrationRequired``
    and a newer one ``StoreError``; pass ``False`` to open a store only to ``migrate()`` it.
    ``read_only``: open without writing (a write then raises ``StoreError``). Other
    ``options`` go to the backend (``dialect``; ``busy_timeout_ms``/``busy_retries`` for
    SQLite; ``pool_size``, ``application_name``... for PostgreSQL, see
    ``factdiff.store.backends``).
    """
    backend = open_backend(target, create=create, read_only=read_only, **options)
    return MemoryStore.from_backend(
        backend,
        create=create,
        check_version=check_version,
        read_only=read_only,
        max_entry_bytes=max_entry_bytes,
    )
