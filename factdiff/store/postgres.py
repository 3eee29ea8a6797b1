"""``PostgresStore``: the memory store opened on a PostgreSQL server (``postgres`` extra).

A ``MemoryStore`` whose backend is a ``PostgresBackend`` (see
``factdiff.store.backends.postgres`` for the pool, transactions and retries).
``open_store(dsn)``, the one way to open a store, gives the same store; this name remains
for callers that open a server explicitly or extend the class.
"""

from __future__ import annotations

from typing import Any, Self

from factdiff.store.backends.postgres import DEFAULT_CONNECT_TIMEOUT, PostgresBackend
from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore
from factdiff.store.dsn import redact

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "PostgresBackend", "PostgresStore", "redact"]


class PostgresStore(MemoryStore):
    """The store on a PostgreSQL schema."""

    @classmethod
    def connect(
        cls,
        dsn: str,
        *,
        create: bool = True,
        check_version: bool = True,
        read_only: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        **options: Any,
    ) -> Self:
        """Open the store named by ``dsn`` (options as for ``MemoryStore.open`` and
        ``PostgresBackend.connect``)."""
        backend = PostgresBackend.connect(dsn, create=create, read_only=read_only, **options)
        return cls.from_backend(
            backend,
            create=create,
            check_version=check_version,
            read_only=read_only,
            max_entry_bytes=max_entry_bytes,
        )
