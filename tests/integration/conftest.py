"""Backends for the store tests: every ``store`` test runs on SQLite and on PostgreSQL.

PostgreSQL tests need ``FACTDIFF_TEST_PG_DSN``; without it they skip with that reason. When
``FACTDIFF_REQUIRE_PG=1`` (as in ``.ci/run``) an unreachable server fails them instead.
Each test gets its own schema (``t_<random>``, via ``search_path`` in the DSN), dropped after.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from factdiff.store import MemoryStore, open_store

PG_ENV = "FACTDIFF_TEST_PG_DSN"
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


def admin_dsn() -> str:
    """The test server's DSN; skips (or fails under ``FACTDIFF_REQUIRE_PG=1``) without one."""
    dsn = os.environ.get(PG_ENV, "").strip()
    required = os.environ.get("FACTDIFF_REQUIRE_PG") == "1"
    if not dsn:
        if required:
            pytest.fail(f"FACTDIFF_REQUIRE_PG=1 but {PG_ENV} is not set")
        pytest.skip(f"{PG_ENV} is not set: PostgreSQL tests skipped")
    try:
        import psycopg

        with psycopg.connect(dsn, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        if required:
            pytest.fail(f"PostgreSQL at {dsn} is unreachable and FACTDIFF_REQUIRE_PG=1: {exc}")
        pytest.skip(f"PostgreSQL at {dsn} is unreachable: {exc}")
    return dsn


def schema_dsn(dsn: str, schema: str) -> str:
    """``dsn`` with ``search_path`` set to ``schema``."""
    joiner = "&" if "?" in dsn else "?"
    return f"{dsn}{joiner}options=-csearch_path%3D{schema}"


def create_schema(dsn: str) -> tuple[str, str]:
    """A fresh schema on the server: ``(name, dsn using it)``."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    return name, schema_dsn(dsn, name)


def drop_schema(dsn: str, name: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND query LIKE %s",
            (f"%{name}%",),
        )
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@pytest.fixture
def pg_dsn() -> Iterator[str]:
    """A DSN whose ``search_path`` is a fresh schema, dropped after the test."""
    base = admin_dsn()
    name, dsn = create_schema(base)
    try:
        yield dsn
    finally:
        drop_schema(base, name)


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh store lives: a SQLite path or a PostgreSQL DSN."""
    if request.param == "sqlite":
        return str(tmp_path / "memory.db")
    dsn: str = request.getfixturevalue("pg_dsn")
    return dsn


@pytest.fixture
def store(target: str) -> Iterator[MemoryStore]:
    with open_store(target) as s:
        yield s


def raw(store: MemoryStore, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Run SQL behind the store's back (``?`` placeholders) on its own connection."""
    if store.dialect.name == "sqlite":
        conn = sqlite3.connect(store.backend.path)  # type: ignore[attr-defined]
        try:
            with conn:
                return conn.execute(sql, params).fetchall()
        finally:
            conn.close()
    import psycopg

    with psycopg.connect(store.backend.dsn, autocommit=True) as pg:  # type: ignore[attr-defined]
        cur = pg.execute(sql.replace("?", "%s"), params)
        return cur.fetchall() if cur.description else []


def raw_error() -> tuple[type[Exception], ...]:
    """The driver errors ``raw`` raises for a rejected statement."""
    import psycopg

    return (sqlite3.Error, psycopg.Error)
