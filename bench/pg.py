"""A throwaway PostgreSQL schema per benchmark run, so runs never meet each other's tables."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class PgSchema:
    """A schema made for one run: its ``name`` and a ``dsn`` whose search path is it."""

    name: str
    dsn: str


def create_schema(dsn: str, prefix: str) -> PgSchema:
    """A new schema ``<prefix>_<random hex>`` on the server of ``dsn``."""
    import psycopg

    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    joiner = "&" if "?" in dsn else "?"
    return PgSchema(name, f"{dsn}{joiner}options=-csearch_path%3D{name}")


def drop_schema(dsn: str, name: str, tries: int = 20) -> None:
    """Drop the schema ``name``, retrying while connections of ended processes linger."""
    import psycopg

    for attempt in range(tries):
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '2s'")
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            return
        except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
            if attempt == tries - 1:
                raise
            time.sleep(0.5)


@contextmanager
def pg_schema(dsn: str, prefix: str) -> Iterator[PgSchema]:
    """A schema for the block, dropped when it ends (see ``create_schema``)."""
    schema = create_schema(dsn, prefix)
    try:
        yield schema
    finally:
        drop_schema(dsn, schema.name)
