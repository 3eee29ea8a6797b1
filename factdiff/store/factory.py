"""``open_store``: a store from a SQLite path or a PostgreSQL DSN."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factdiff.store.backends import POSTGRES_SCHEMES, is_postgres
from factdiff.store.base import MemoryStore

__all__ = ["POSTGRES_SCHEMES", "is_postgres", "open_store"]


def open_store(target: str | Path, **options: Any) -> MemoryStore:
    """Open ``target``: a ``postgresql://`` DSN gives a store on PostgreSQL (needs the
    ``postgres`` extra), anything else is a SQLite file path (see ``MemoryStore.open`` for
    ``options``)."""
    return MemoryStore.open(target, **options)
