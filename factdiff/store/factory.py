"""``open_store``: a store from a SQLite path or a PostgreSQL DSN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdiff.errors import StoreError
from factdiff.store.base import MemoryStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL server (a ``postgresql://`` DSN)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def open_store(target: str | Path, **options: Any) -> MemoryStore:
    """Open ``target``: a ``postgresql://`` DSN gives a ``PostgresStore`` (needs the
    ``postgres`` extra), anything else is a SQLite file path (``SqliteStore``).

    ``options`` go to the backend's ``connect``: ``create``, ``check_version``,
    ``max_entry_bytes`` and ``dialect`` for both; ``busy_timeout_ms``/``busy_retries`` for
    SQLite; ``pool_size`` and ``application_name`` for PostgreSQL.
    """
    if is_postgres(target):
        try:
            from factdiff.store.postgres import PostgresStore
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise StoreError(
                f"PostgreSQL needs psycopg ({exc}): pip install 'factdiff[postgres]'"
            ) from None
        return PostgresStore.connect(str(target), **options)
    from factdiff.store.sqlite import SqliteStore

    return SqliteStore.connect(target, **options)
