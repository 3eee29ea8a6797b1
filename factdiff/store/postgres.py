"""``PostgresStore``: the memory store on a PostgreSQL server (psycopg 3 and a pool).

The store is thread-safe: every statement or transaction borrows a connection from a
``psycopg_pool.ConnectionPool`` (checked before use, so a connection the server dropped is
replaced rather than handed out) and returns it at once. Connections run in autocommit; a
write is one explicit transaction (``_write``), retried a bounded number of times on a
serialization failure or a deadlock, and a read of several statements is one
``REPEATABLE READ`` snapshot (``_read``). No transaction stays open between calls, so none
is open while a worker runs a model. Transactions run in pipeline mode: statements are sent
without waiting for each other's results (only a result the code reads waits), so a
transaction costs two or three round trips instead of one per statement and a busy client
leaves the server idle inside a transaction for less time (migration scripts excepted).

Select the schema with the DSN, e.g. ``postgresql://host/db?options=-csearch_path%3Dfactdiff``;
tables are created in ``current_schema()``. Times are stored as on SQLite (bigint
microseconds); lease arithmetic uses ``factdiff_now_us()``, the server's clock.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pgerrors
from psycopg_pool import ConnectionPool, PoolTimeout

from factdiff.errors import StoreError
from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore, Row
from factdiff.store.dialect import Dialect, load_dialect
from factdiff.store.model import StoreBusy

T = TypeVar("T")

_RETRYABLE = (pgerrors.SerializationFailure, pgerrors.DeadlockDetected)
_PASSWORD = re.compile(r"(://[^:/@]+:)[^@]*@")


def redact(dsn: str) -> str:
    """The DSN without its password, for messages."""
    return _PASSWORD.sub(r"\1***@", dsn)


class PostgresStore(MemoryStore):
    """The store on a PostgreSQL schema (see the module docstring)."""

    thread_safe = True

    def __init__(
        self,
        pool: ConnectionPool[psycopg.Connection[Any]],
        dsn: str,
        dialect: Dialect,
        *,
        max_entry_bytes: int,
        retries: int,
    ) -> None:
        super().__init__(dialect, max_entry_bytes=max_entry_bytes)
        self._pool = pool
        self._dsn = dsn
        self._retries = retries
        self._local = threading.local()

    @classmethod
    def connect(
        cls,
        dsn: str,
        *,
        create: bool = True,
        check_version: bool = True,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        pool_size: int = 4,
        connect_timeout: float = 10.0,
        retries: int = 5,
        application_name: str = "factdiff",
        idle_in_transaction_timeout: float = 5.0,
        dialect: Dialect | None = None,
    ) -> PostgresStore:
        """Open the store named by ``dsn`` with a pool of up to ``pool_size`` connections.

        ``create``: an empty schema is migrated; ``check_version`` as for SQLite. An
        unreachable server raises ``StoreError`` after ``connect_timeout`` seconds.
        ``idle_in_transaction_timeout``: the server ends a session that stalls inside a
        transaction this long (a frozen or SIGSTOPped process would otherwise keep its row
        locks, and claims skip locked rows); the store's transactions never wait on the
        client for more than milliseconds.
        """
        dialect = dialect or load_dialect("postgres")
        idle_ms = max(1, round(idle_in_transaction_timeout * 1000))
        setup = dialect.sql("setup").replace("{idle_ms}", str(idle_ms))

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.execute(setup)

        pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={
                "autocommit": True,
                "application_name": application_name,
                "connect_timeout": max(1, round(connect_timeout)),
            },
            configure=configure,
            check=ConnectionPool.check_connection,
            timeout=connect_timeout,
            open=False,
            name=application_name,
        )
        try:
            pool.open(wait=True, timeout=connect_timeout)
        except (PoolTimeout, psycopg.Error) as exc:
            pool.close()
            raise StoreError(
                f"cannot reach PostgreSQL at {redact(dsn)}: {exc}; check the DSN and that "
                "the server is running"
            ) from exc
        store = cls(pool, dsn, dialect, max_entry_bytes=max_entry_bytes, retries=retries)
        try:
            if check_version:
                store._check_version(create)
        except BaseException:
            pool.close()
            raise
        return store

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

    # -- plumbing --------------------------------------------------------------------------

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

    def _error(self, exc: psycopg.Error) -> StoreError:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return StoreError(f"store {self.location}: {message}")

    def _run_script(self, script: str) -> None:
        conn = self._current()
        if conn is None:  # pragma: no cover - migrations always run inside _write
            raise StoreError("a migration must run inside a transaction")
        conn.execute(script.encode("utf-8"))

    def _exec(self, key: str, **params: Any) -> psycopg.Cursor[Any]:
        conn = self._current()
        if conn is None:  # pragma: no cover - every write goes through _write
            raise StoreError(f"statement {key} needs a transaction")
        return conn.execute(self._sql(key), params)

    def _row(self, key: str, **params: Any) -> Row | None:
        try:
            with self._connection() as conn:
                row: Row | None = conn.execute(self._sql(key), params).fetchone()
        except psycopg.Error as exc:
            raise self._error(exc) from exc
        return row

    def _rows(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        try:
            with self._connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise self._error(exc) from exc

    @contextmanager
    def _pipeline(self, conn: psycopg.Connection[Any]) -> Iterator[None]:
        """Pipeline mode, except for migration scripts (several commands per execute)."""
        if getattr(self._local, "migrating", False):
            yield
            return
        with conn.pipeline() as pipeline:
            self._local.pipeline = pipeline
            try:
                yield
            finally:
                self._local.pipeline = None

    def _count(self, key: str, **params: Any) -> int:
        """Rows changed by statement ``key`` (waits for its result: a pipeline sync)."""
        cursor = self._exec(key, **params)
        pipeline: psycopg.Pipeline | None = getattr(self._local, "pipeline", None)
        if pipeline is not None:
            pipeline.sync()
        return int(cursor.rowcount)

    def migrate(self) -> int:
        """Apply every pending migration (scripts run outside pipeline mode)."""
        self._local.migrating = True
        try:
            return super().migrate()
        finally:
            self._local.migrating = False

    def _write(self, work: Callable[[], T]) -> T:
        """Run ``work`` in one transaction; retry serialization failures and deadlocks."""
        if self._current() is not None:  # pragma: no cover - no nested writes
            raise StoreError("nested write transaction")
        for attempt in range(self._retries + 1):
            try:
                with self._pool.connection() as conn, self._pipeline(conn):
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

    @contextmanager
    def _read(self) -> Iterator[None]:
        """A ``REPEATABLE READ`` read-only transaction (one snapshot)."""
        if self._current() is not None:  # pragma: no cover - reads never nest in writes
            yield
            return
        try:
            with self._pool.connection() as conn, conn.pipeline():
                self._local.conn = conn
                try:
                    with conn.transaction():
                        conn.execute(self._sql("begin_read"))
                        yield
                finally:
                    self._local.conn = None
        except psycopg.Error as exc:
            raise self._error(exc) from exc
        except PoolTimeout as exc:
            raise StoreError(f"store {self.location}: no connection available: {exc}") from exc
