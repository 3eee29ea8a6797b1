"""``SqliteStore``: the memory store opened on an embedded SQLite file.

A ``MemoryStore`` whose backend is a ``SqliteBackend`` (see ``factdiff.store.backends.sqlite``
for the transactions, locking and read-only opening). ``open_store(path)``, the one way to
open a store, gives the same store; this name remains for callers that open a file
explicitly or extend the class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from factdiff.store.backends.sqlite import SqliteBackend, split_statements
from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore

__all__ = ["SqliteBackend", "SqliteStore", "split_statements"]


class SqliteStore(MemoryStore):
    """The store on one SQLite file, whatever the path looks like."""

    @classmethod
    def connect(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        check_version: bool = True,
        read_only: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        **options: Any,
    ) -> Self:
        """Open the store at ``path`` (options as for ``MemoryStore.open`` and
        ``SqliteBackend.connect``)."""
        backend = SqliteBackend.connect(path, create=create, read_only=read_only, **options)
        return cls.from_backend(
            backend,
            create=create,
            check_version=check_version,
            read_only=read_only,
            max_entry_bytes=max_entry_bytes,
        )
