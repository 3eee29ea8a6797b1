"""``PostgresBackend``: the store on a PostgreSQL server (psycopg 3 and a pool).

The backend is thread-safe: every statement or transaction borrows a connection from a
``psycopg_pool.ConnectionPool`` (checked before use, so a connection the server dropped is
replaced rather than handed out) and returns it at once. Connections run in autocommit; a
write is one explicit transaction (``write``), retried a bounded number of times on a
serialization failure or a deadlock, and a read of several statements is one
``REPEATABLE READ`` snapshot (``read``). No transaction stays open between calls, so none
is open while a worker runs a model. Transactions do not use pipeline mode on purpose: a
pipelined transaction waiting for its client's next statement is ``active`` on the server,
out of reach of ``idle_in_transaction_session_timeout``, so a frozen client would keep its
row locks for ever; statement by statement, the server ends such a session and rolls it back.
Rows are ``NamedRow``s (``backends.named_rows``), read by column name.

Select the schema with the DSN, e.g. ``postgresql://host/db?options=-csearch_path%3Dfactdiff``;
tables are created in ``current_schema()``, and a schema so named that does not exist yet is
created when the store is opened to create (``migrate``; ``backends.pg_schema``). Times are
stored as on SQLite (bigint microseconds); lease arithmetic uses ``factdiff_now_us()``, the
server's clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pgerrors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from factdiff.errors import StoreError
from factdiff.store.backends.named_rows import named_rows
from factdiff.store.backends.pg_schema import ensure_schema
from factdiff.store.backends.protocol import Row
from factdiff.store.dialect import Dialect, load_dialect
from factdiff.store.dsn import redact
from factdiff.store.model import StoreBusy

T = TypeVar("T")

_RETRYABLE = (pgerrors.SerializationFailure, pgerrors.DeadlockDetected)
DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the server at start-up (a ``connect_timeout`` in the DSN wins)."""

POOL_WAIT = 10.0
"""Seconds a statement waits for a free pooled connection before ``StoreError``."""

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "PostgresBackend", "redact"]


def one_line(exc: BaseException) -> str:
    """A driver error as one line (libpq's messages span several)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines) or type(exc).__name__


def _named(dsn: str, key: str) -> str | None:
    """The value the DSN gives ``key``, if any."""
    try:
        value = conninfo_to_dict(dsn).get(key)
    except psycopg.ProgrammingError:
        return None
    return None if value is None else str(value)


def _timeout_from(dsn: str, default: float) -> float:
    given = _named(dsn, "connect_timeout")
    try:
        return float(given) if given is not None else default
    except ValueError:
        return default


class PostgresBackend:
    """A PostgreSQL schema behind a connection pool (see the module docstring)."""

    thread_safe = True

    def __init__(
        self,
        pool: ConnectionPool[psycopg.Connection[Any]],
        dsn: str,
        dialect: Dialect,
        *,
        retries: int,
    ) -> None:
        self._pool = pool
        self._dsn = dsn
        self._dialect = dialect
        self._retries = retries
        self._local = threading.local()

    @classmethod
    def connect(
        cls,
        dsn: str,
        *,
        create: bool = True,
        read_only: bool = False,
        pool_size: int = 4,
        connect_timeout: float | None = None,
        retries: int = 5,
        application_name: str = "factdiff",
        idle_in_transaction_timeout: float = 5.0,
        dialect: Dialect | None = None,
    ) -> PostgresBackend:
        """Connect to ``dsn`` with a pool of up to ``pool_size`` connections.

        ``create``: the schema the DSN's ``search_path`` names is created when it does not
        exist (``backends.pg_schema``); ``read_only``: every transaction is read-only. The
        server is tried once first: if it cannot be reached within ``connect_timeout``
        seconds (default: the DSN's ``connect_timeout``, else ``DEFAULT_CONNECT_TIMEOUT``; a
        refused connection fails at once) a one-line ``StoreError`` says so, without the
        DSN's password.
        ``application_name`` names the connections on the server, unless the DSN names them
        (``?application_name=...`` wins).
        ``idle_in_transaction_timeout``: the server ends a session that stalls inside a
        transaction this long (a frozen or SIGSTOPped process would otherwise keep its row
        locks, and claims skip locked rows); the store's transactions never wait on the
        client for more than milliseconds.
        """
        dialect = dialect or load_dialect("postgres")
        timeout = connect_timeout or _timeout_from(dsn, DEFAULT_CONNECT_TIMEOUT)
        idle_ms = max(1, round(idle_in_transaction_timeout * 1000))
        setup = [dialect.sql("setup").replace("{idle_ms}", str(idle_ms))]
        if read_only:
            setup.append(dialect.sql("setup_read_only"))
        options: dict[str, Any] = {
            "autocommit": True,
            "row_factory": named_rows,
            "application_name": _named(dsn, "application_name") or application_name,
            "connect_timeout": max(2, round(timeout)),
        }
        try:
            probe = psycopg.connect(dsn, **options)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot reach PostgreSQL at {redact(dsn)}: {one_line(exc)}; check the DSN "
                "and that the server is running"
            ) from None
        with probe:
            if create and not read_only:
                try:
                    ensure_schema(probe, dialect, redact(dsn))
                except psycopg.Error as exc:
                    raise StoreError(f"store {redact(dsn)}: {one_line(exc)}") from None

        def configure(conn: psycopg.Connection[Any]) -> None:
            for statement in setup:
                conn.execute(statement)

        pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs=options,
            configure=configure,
            check=ConnectionPool.check_connection,
            timeout=max(timeout, POOL_WAIT),
            open=False,
            name=application_name,
        )
        try:
            pool.open(wait=True, timeout=timeout)
        except (PoolTimeout, psycopg.Error) as exc:
            pool.close()
            raise StoreError(
                f"cannot reach PostgreSQL at {redact(dsn)}: {one_line(exc)}; check the DSN and "
                "that the server is running"
            ) from None
        return cls(pool, dsn, dialect, retries=retries)

    @property
    def dialect(self) -> Dialect:
        """The PostgreSQL dialect."""
        return self._dialect

    def close(self) -> None:
        """Close the pool and its connections (idempotent)."""
        self._pool.close()

    @property
    def location(self) -> str:
        """The DSN without its password."""
        return redact(self._dsn)

    @property
    def dsn(self) -> str:
        """The DSN this store was opened with."""
        return self._dsn

    def _current(self) -> psycopg.Connection[Any] | None:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        return conn

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        current = self._current()
        if current is not None:
            yield current
            return
        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreError(f"store {self.location}: no connection available: {exc}") from exc

    def _in_transaction(self, what: str) -> psycopg.Connection[Any]:
        conn = self._current()
        if conn is None:  # pragma: no cover - every write goes through write()
            raise StoreError(f"{what} needs a transaction")
        return conn

    def _error(self, exc: psycopg.Error) -> StoreError:
        return StoreError(f"store {self.location}: {one_line(exc)}")

    def run_script(self, script: str) -> None:
        """Run a migration script inside the current write transaction."""
        self._in_transaction("a migration").execute(script.encode("utf-8"))

    def maintain(self, script: str) -> None:
        """Run a maintenance script outside any transaction."""
        try:
            with self._connection() as conn:
                conn.execute(script.encode("utf-8"))
        except psycopg.Error as exc:
            raise self._error(exc) from exc

    def execute(self, sql: str, params: Mapping[str, Any]) -> psycopg.Cursor[Any]:
        """Run ``sql`` inside the current transaction."""
        return self._in_transaction("a statement").execute(sql, params)

    def execute_many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        """Run ``sql`` once per parameter set, inside the current transaction."""
        with self._in_transaction("a statement").cursor() as cursor:
            cursor.executemany(sql, rows)

    def fetch_one(self, sql: str, params: Mapping[str, Any]) -> Row | None:
        """The first row of ``sql``."""
        try:
            with self._connection() as conn:
                row: Row | None = conn.execute(sql, params).fetchone()
        except psycopg.Error as exc:
            raise self._error(exc) from exc
        return row

    def fetch_all(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql``."""
        try:
            with self._connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise self._error(exc) from exc

    def write(self, work: Callable[[], T], *, join: bool = False) -> T:
        """Run ``work`` in one transaction; retry serialization failures and deadlocks (with
        ``join``, in a savepoint of the open one if any)."""
        current = self._current()
        if current is not None and join:
            return self._in_savepoint(current, work)
        if self._current() is not None:  # pragma: no cover - no nested writes
            raise StoreError("nested write transaction")
        for attempt in range(self._retries + 1):
            try:
                with self._pool.connection() as conn:
                    self._local.conn = conn
                    try:
                        with conn.transaction():
                            return work()
                    finally:
                        self._local.conn = None
            except _RETRYABLE as exc:
                if attempt < self._retries:
                    time.sleep(0.02 * 2**attempt)
                    continue
                raise StoreBusy(
                    f"store {self.location}: contention persisted through every retry"
                ) from exc
            except PoolTimeout as exc:
                raise StoreError(f"store {self.location}: no connection available: {exc}") from exc
            except psycopg.Error as exc:
                raise self._error(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _in_savepoint(self, conn: psycopg.Connection[Any], work: Callable[[], T]) -> T:
        """``work`` inside the open transaction, in a savepoint: when it raises, its
        statements are undone and the transaction goes on without them (a driver error
        surfaces as ``StoreError``; a serialization failure or deadlock stays a driver
        error, for the outer write's retry)."""
        try:
            with conn.transaction():
                return work()
        except _RETRYABLE:
            raise
        except psycopg.Error as exc:
            raise self._error(exc) from exc

    @contextmanager
    def read(self) -> Iterator[None]:
        """A ``REPEATABLE READ`` read-only transaction (one snapshot)."""
        if self._current() is not None:  # pragma: no cover - reads never nest in writes
            yield
            return
        try:
            with self._pool.connection() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        conn.execute(self._dialect.sql("begin_read"))
                        yield
                finally:
                    self._local.conn = None
        except psycopg.Error as exc:
            raise self._error(exc) from exc
        except PoolTimeout as exc:
            raise StoreError(f"store {self.location}: no connection available: {exc}") from exc
