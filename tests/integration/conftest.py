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
from factdiff.store.dialect import Dialect, load_dialect, to_pyformat

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


_RECODE_BEFORE_0012 = {  # the re-encoding scan while archives were rows of cold_archive
    "recode_page": "SELECT w.entry_id FROM warm_entries AS w JOIN cold_archive AS c"
    " USING (entry_id) WHERE w.entry_id > :after AND (w.encoding = 0 OR c.codec = 'zlib')"
    " ORDER BY w.entry_id LIMIT :limit",
    "count_recode_pending": "SELECT count(*) FROM warm_entries AS w JOIN cold_archive AS c"
    " USING (entry_id) WHERE w.encoding = 0 OR c.codec = 'zlib'",
}

_ATTEMPT_BEFORE_0015 = {  # an attempt's identities were text in its own row
    kind: "INSERT INTO attempts (entry_id, attempt_no, rung, summarizer, extractor,"
    " method_version, budget_words, outcome, diff, summary, started_at, finished_at,"
    " duration_ms, tokens_in, tokens_out, cost_usd, error, schema_name, schema_version,"
    " schema_hash, failure_class, must_keep, packed)"
    f" SELECT :entry_id, :attempt_no, :rung, {fields}, :budget_words, :outcome, :diff,"
    " :summary, :started_at, :finished_at, :duration_ms, :tokens_in, :tokens_out, :cost_usd,"
    " :error, " + schema + ", :schema_hash, :failure_class, :must_keep, :packed"
    " FROM store_identities WHERE id = :identity_ref"
    for kind, fields, schema in (
        (
            "sqlite",
            "json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')",
            "json_extract(value, '$[3]'), json_extract(value, '$[4]')",
        ),
        (
            "postgres",
            "value::jsonb ->> 0, value::jsonb ->> 1, value::jsonb ->> 2",
            "value::jsonb ->> 3, (value::jsonb ->> 4)::integer",
        ),
    )
}

_EVENTS_BEFORE_0014 = {  # two events of one write were two rows
    "insert_event_pair": "INSERT INTO events (type, entry_id, agent_id, at, payload, packed)"
    " VALUES (:type, :entry_id, :agent_id, :at, :payload, :packed),"
    " (:then_type, :entry_id, :agent_id, :at, :then_payload, :then_packed)",
}


def dialect_at(kind: str, version: int, **queries: str) -> Dialect:
    """The ``kind`` dialect with its migrations up to ``version`` (a store of an older
    factdiff), the statements ``migrate`` runs on such a store as that factdiff wrote them,
    and ``queries`` (``:name`` parameters) in place of today's."""
    from dataclasses import replace

    current = load_dialect(kind)
    old = dict(_RECODE_BEFORE_0012) if version < 12 else {}
    if version < 14:
        old.update(_EVENTS_BEFORE_0014)
    if version < 15:
        old["insert_attempt"] = _ATTEMPT_BEFORE_0015[kind]
    old.update(queries)
    if kind == "postgres":
        old = {key: to_pyformat(sql) for key, sql in old.items()}
    return replace(
        current,
        migrations=tuple(m for m in current.migrations if m.version <= version),
        queries={**current.queries, **old},
    )
