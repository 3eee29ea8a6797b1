"""The databases a store runs on: ``open_backend`` picks one from a path or a DSN.

``SqliteBackend`` (``backends.sqlite``) keeps the store in an embedded file;
``PostgresBackend`` (``backends.postgres``, the ``postgres`` extra) on a server. Both follow
``Backend`` (``backends.protocol``), the small surface the store's logic uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdiff.errors import StoreError
from factdiff.store.backends.protocol import Backend, Cursor
from factdiff.store.backends.sqlite import SqliteBackend

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

__all__ = ["POSTGRES_SCHEMES", "Backend", "Cursor", "SqliteBackend", "is_postgres", "open_backend"]


def is_postgres(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL server (a ``postgresql://`` DSN)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def open_backend(target: str | Path, **options: Any) -> Backend:
    """Connect to ``target``: a ``postgresql://`` DSN gives a ``PostgresBackend`` (needs the
    ``postgres`` extra), anything else is a SQLite file path (``SqliteBackend``).

    ``options`` go to the backend's ``connect``: ``create``, ``read_only`` and ``dialect``
    for both; ``busy_timeout_ms``/``busy_retries`` for SQLite; ``pool_size``,
    ``application_name``... for PostgreSQL.
    """
    if is_postgres(target):
        try:
            from factdiff.store.backends.postgres import PostgresBackend
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise StoreError(
                f"PostgreSQL needs psycopg ({exc}): pip install 'factdiff[postgres]'"
            ) from None
        return PostgresBackend.connect(str(target), **options)
    return SqliteBackend.connect(target, **options)
