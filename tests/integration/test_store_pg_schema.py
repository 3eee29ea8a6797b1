"""The schema a PostgreSQL DSN names (``options=-csearch_path%3DNAME``) on a fresh database:
``factdiff migrate`` creates it, or says in one line what to do when the role may not."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import pytest

from factdiff.store import open_store
from tests.integration.conftest import admin_dsn, drop_schema, schema_dsn

pytestmark = pytest.mark.postgres


def migrate(dsn: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "FACTDIFF_DB"}
    return subprocess.run(
        [sys.executable, "-m", "factdiff.cli", "migrate", "--db", dsn],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


def tables_in(base: str, schema: str) -> set[str]:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)
        ).fetchall()
    return {row[0] for row in rows}


@pytest.fixture
def fresh_name() -> Iterator[str]:
    """A schema name nobody has created (its lower-case form is dropped after the test)."""
    base = admin_dsn()
    suffix = secrets.token_hex(5)
    yield f"Fresh_{suffix}"
    drop_schema(base, f"fresh_{suffix}")
    drop_schema(base, f'"Fresh_{suffix}"')


def test_migrate_creates_the_schema_the_dsn_names(fresh_name: str) -> None:
    """The documented DSN on a database without that schema: migrate creates it (an
    unquoted name in lower case, as the server resolves it) and the store works."""
    base = admin_dsn()
    dsn = schema_dsn(base, fresh_name)
    run = migrate(dsn)
    assert run.returncode == 0, run.stderr
    assert "factdiff_migrations" in tables_in(base, fresh_name.lower())
    with open_store(dsn) as store:
        entry_id = store.add("agent", "Invoice INV-1 is due 2026-03-01.", now=datetime.now(UTC))
        assert store.get(entry_id).content == "Invoice INV-1 is due 2026-03-01."


def test_opening_to_create_creates_a_quoted_schema(fresh_name: str) -> None:
    """A quoted name keeps its case; opening the store (``create``, the default) is enough."""
    base = admin_dsn()
    dsn = schema_dsn(base, f"%22{fresh_name}%22")
    with open_store(dsn) as store:
        assert store.schema_version() == store.dialect.version
    assert "factdiff_migrations" in tables_in(base, fresh_name)


@pytest.fixture
def plain_role() -> Iterator[str]:
    """A login role with no privilege to create schemas (dropped after)."""
    import psycopg

    base = admin_dsn()
    role = "t_role_" + secrets.token_hex(5)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
    try:
        yield role
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (role,),
            )
            conn.execute(f"DROP ROLE IF EXISTS {role}")


def as_role(dsn: str, role: str) -> str:
    parts = urlsplit(dsn)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{role}@{host}"))


def test_a_role_that_may_not_create_the_schema_is_told_in_one_line(
    fresh_name: str, plain_role: str
) -> None:
    dsn = schema_dsn(as_role(admin_dsn(), plain_role), fresh_name)
    run = migrate(dsn)
    assert run.returncode == 1, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"schema '{fresh_name.lower()}' does not exist" in lines[0]
    assert f"role '{plain_role}' may not create it" in lines[0]
    assert f'CREATE SCHEMA "{fresh_name.lower()}" AUTHORIZATION "{plain_role}"' in lines[0]
