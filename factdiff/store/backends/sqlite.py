"""``SqliteBackend``: the store on an embedded SQLite file.

Every write runs in ``BEGIN IMMEDIATE`` (the write lock is taken before the first read, so a
busy database waits for ``busy_timeout`` instead of failing at once), retried a bounded
number of times when SQLite still reports the database busy. The file runs in WAL mode with
``synchronous=FULL`` (a commit that returned survives a crash) and ``foreign_keys=ON``.
Several processes on one host may share a file: SQLite has one writer at a time, and each
claim, heartbeat and outcome is one short write transaction. The database clock is the
function ``factdiff_now_us()``, registered on every connection under the name PostgreSQL's
migration gives it, so both dialects spell lease arithmetic alike. Rows are ``sqlite3.Row``s,
read by column name.

Listings stream with keyset pagination: each page is one short statement, so no read
transaction stays open while the caller works, and memory stays flat as the store grows.
One SQLite store belongs to one thread; open another for another thread or process (or open
it with ``check_same_thread=False`` and hand it over so that one thread uses it at a time).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from factdiff.errors import StoreError
from factdiff.store.backends.protocol import Row
from factdiff.store.dialect import Dialect, load_dialect
from factdiff.store.model import StoreBusy

T = TypeVar("T")

_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)
CLOCK_FUNCTION = "factdiff_now_us"
"""The database clock's SQL name, as on PostgreSQL: microseconds since the epoch (UTC)."""


class StatementClock:
    """The database clock on SQLite: the host's wall clock in microseconds since the epoch,
    read once per statement (as PostgreSQL's ``statement_timestamp()``), so a lease's expiry
    and the claim time a statement returns are taken at one instant."""

    def __init__(self) -> None:
        self._now: int | None = None

    def reset(self) -> None:
        """A new statement starts: the next reading takes the time again."""
        self._now = None

    def __call__(self) -> int:
        if self._now is None:
            self._now = time.time_ns() // 1000
        return self._now

    def install(self, conn: sqlite3.Connection) -> None:
        """Register the clock on ``conn`` as ``factdiff_now_us()``.

        Registered deterministic: SQLite then evaluates the argument-less call once per
        statement run (as PostgreSQL does a ``STABLE`` function), not once per row a claim
        scans past; non-deterministic, the Python call per leased row slowed claims by about
        a quarter. The value is the same either way (this clock is read once per statement);
        the function is in no index, view or constraint, where the flag would mislead SQLite.
        """
        conn.create_function(CLOCK_FUNCTION, 0, self, deterministic=True)


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)


def split_statements(script: str) -> Iterator[str]:
    """The complete SQL statements of a script (triggers with ``BEGIN ... END`` included)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""


def _run_setup(conn: sqlite3.Connection, dialect: Dialect, key: str, busy_timeout_ms: int) -> None:
    setup = dialect.sql(key).replace("{busy_timeout_ms}", str(int(busy_timeout_ms)))
    for statement in split_statements(setup):
        conn.execute(statement).fetchall()


def _connect_read_only(
    path: Path,
    dialect: Dialect,
    busy_timeout_ms: int,
    clock: StatementClock,
    check_same_thread: bool = True,
) -> sqlite3.Connection:
    """A read-only connection (``mode=ro``; ``immutable`` where WAL cannot be read otherwise)."""
    uri = path.resolve().as_uri()
    wal = path.with_name(path.name + "-wal")
    choices = [f"{uri}?mode=ro"]
    if not wal.exists() or wal.stat().st_size == 0:
        choices.append(f"{uri}?mode=ro&immutable=1")
    error: sqlite3.Error | None = None
    for choice in choices:
        try:
            conn = sqlite3.connect(
                choice, uri=True, isolation_level=None, check_same_thread=check_same_thread
            )
        except sqlite3.Error as exc:
            error = exc
            continue
        try:
            conn.row_factory = sqlite3.Row
            clock.install(conn)
            _run_setup(conn, dialect, "setup_read_only", busy_timeout_ms)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except sqlite3.Error as exc:
            conn.close()
            error = exc
            continue
        return conn
    raise StoreError(f"cannot read store {path}: {error}")


class SqliteBackend:
    """One SQLite file behind one connection (see the module docstring)."""

    thread_safe = False

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        dialect: Dialect,
        *,
        busy_retries: int,
        clock: StatementClock,
    ) -> None:
        self._conn = conn
        self._clock = clock
        self._path = path
        self._dialect = dialect
        self._busy_retries = busy_retries
        self._savepoints = 0

    @classmethod
    def connect(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        read_only: bool = False,
        busy_timeout_ms: int = 5000,
        busy_retries: int = 5,
        dialect: Dialect | None = None,
        check_same_thread: bool = True,
    ) -> SqliteBackend:
        """Open the file at ``path``.

        ``create``: a missing file is created; otherwise a missing file raises
        ``StoreError``. ``read_only``: open an existing file without writing to it
        (``mode=ro``), so a file with mode 0444 or in a read-only directory can be read; a
        write then raises ``StoreError``. In a read-only directory where SQLite cannot create
        the ``-shm`` index and no ``-wal`` file exists, the file is opened ``immutable``:
        every commit is then in the main file, and nobody can be writing it there.
        ``check_same_thread=False``: the connection may be handed from thread to thread (the
        caller then makes sure that only one thread uses it at a time, as the service's
        store pool does); by default it refuses any thread but the one that opened it.
        """
        path = Path(path)
        if (read_only or not create) and not path.exists():
            raise StoreError(f"no store at {path}: run `factdiff migrate` to create one")
        dialect = dialect or load_dialect("sqlite")
        clock = StatementClock()
        if read_only:
            conn = _connect_read_only(path, dialect, busy_timeout_ms, clock, check_same_thread)
        else:
            try:
                conn = sqlite3.connect(
                    path, isolation_level=None, check_same_thread=check_same_thread
                )
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open store {path}: {exc}") from exc
            try:
                conn.row_factory = sqlite3.Row
                clock.install(conn)
                _run_setup(conn, dialect, "setup", busy_timeout_ms)
            except sqlite3.Error as exc:
                conn.close()
                raise StoreError(f"cannot use store {path}: {exc}") from exc
        return cls(conn, path, dialect, busy_retries=busy_retries, clock=clock)

    @property
    def dialect(self) -> Dialect:
        """The SQLite dialect."""
        return self._dialect

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection (for tests and tools that inspect the file's settings)."""
        return self._conn

    @property
    def path(self) -> Path:
        """The store's file."""
        return self._path

    @property
    def location(self) -> str:
        """The store's file, as text."""
        return str(self._path)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def _error(self, exc: sqlite3.Error) -> StoreError:
        return StoreError(f"store {self._path}: {exc}")

    def run_script(self, script: str) -> None:
        """Run a migration script statement by statement, inside the current write."""
        for statement in split_statements(script):
            self._conn.execute(statement)

    def maintain(self, script: str) -> None:
        """Run a maintenance script outside any transaction."""
        try:
            for statement in split_statements(script):
                self._conn.execute(statement).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def execute(self, sql: str, params: Mapping[str, Any]) -> sqlite3.Cursor:
        """Run ``sql`` (errors surface through ``write``)."""
        self._clock.reset()
        return self._conn.execute(sql, params)

    def execute_many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        """Run ``sql`` once per parameter set."""
        self._clock.reset()
        self._conn.executemany(sql, rows)

    def fetch_one(self, sql: str, params: Mapping[str, Any]) -> Row | None:
        """The first row of ``sql``."""
        self._clock.reset()
        try:
            row: Row | None = self._conn.execute(sql, params).fetchone()
            return row
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def fetch_all(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        """All rows of ``sql``."""
        self._clock.reset()
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute(self._dialect.sql("rollback"))
        except sqlite3.Error:
            pass

    def write(self, work: Callable[[], T], *, join: bool = False) -> T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, retrying while busy (with
        ``join``, in a savepoint of the open one if any)."""
        if join and self._conn.in_transaction:
            return self._in_savepoint(work)
        begin, commit = self._dialect.sql("begin_write"), self._dialect.sql("commit")
        for attempt in range(self._busy_retries + 1):
            try:
                self._conn.execute(begin)
                result = work()
                self._conn.execute(commit)
                return result
            except sqlite3.Error as exc:
                self._rollback()
                if _is_busy(exc) and attempt < self._busy_retries:
                    time.sleep(0.05 * 2**attempt)
                    continue
                if _is_busy(exc):
                    raise StoreBusy(
                        f"store {self._path} stayed locked by other writers: try again later"
                    ) from exc
                raise self._error(exc) from exc
            except BaseException:
                self._rollback()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _in_savepoint(self, work: Callable[[], T]) -> T:
        """``work`` inside the open write transaction, in a savepoint: when it raises, its
        statements are undone and the transaction goes on without them (a driver error
        surfaces as ``StoreError``, as from a write of its own; a busy one stays a driver
        error, for the outer write's retry)."""
        self._savepoints += 1
        name = f"factdiff_write_{self._savepoints}"
        try:
            self._conn.execute(f"SAVEPOINT {name}")
            try:
                result = work()
            except BaseException as exc:
                try:
                    self._conn.execute(f"ROLLBACK TO {name}")
                    self._conn.execute(f"RELEASE {name}")
                except sqlite3.Error:
                    pass  # the transaction itself is gone: the outer write rolls back
                if isinstance(exc, sqlite3.Error) and not _is_busy(exc):
                    raise self._error(exc) from exc
                raise
            self._conn.execute(f"RELEASE {name}")
            return result
        finally:
            self._savepoints -= 1

    @contextmanager
    def read(self) -> Iterator[None]:
        """A read transaction: one consistent snapshot for several statements (inside an
        open write transaction, that transaction's own view)."""
        if self._conn.in_transaction:
            yield
            return
        try:
            self._conn.execute(self._dialect.sql("begin_read"))
            yield
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            self._rollback()
