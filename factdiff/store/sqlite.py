"""``SqliteStore``: the memory store on an embedded SQLite file.

Every write runs in ``BEGIN IMMEDIATE`` (the write lock is taken before the first read, so a
busy database waits for ``busy_timeout`` instead of failing at once), retried a bounded
number of times when SQLite still reports the database busy. The file runs in WAL mode with
``synchronous=FULL`` (a commit that returned survives a crash) and ``foreign_keys=ON``.
Several processes on one host may share a file: SQLite has one writer at a time, and each
claim, heartbeat and outcome is one short write transaction.

Listings stream with keyset pagination: each page is one short statement, so no read
transaction stays open while the caller works, and memory stays flat as the store grows.
One ``SqliteStore`` belongs to one thread; open another for another thread or process.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from factdiff.errors import StoreError
from factdiff.store.base import DEFAULT_MAX_ENTRY_BYTES, MemoryStore, Row
from factdiff.store.dialect import Dialect, load_dialect
from factdiff.store.model import StoreBusy

T = TypeVar("T")

_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED (primary codes)


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


def _connect_read_only(path: Path, dialect: Dialect, busy_timeout_ms: int) -> sqlite3.Connection:
    """A read-only connection (``mode=ro``; ``immutable`` where WAL cannot be read otherwise)."""
    uri = path.resolve().as_uri()
    wal = path.with_name(path.name + "-wal")
    choices = [f"{uri}?mode=ro"]
    if not wal.exists() or wal.stat().st_size == 0:
        choices.append(f"{uri}?mode=ro&immutable=1")
    error: sqlite3.Error | None = None
    for choice in choices:
        try:
            conn = sqlite3.connect(choice, uri=True, isolation_level=None)
        except sqlite3.Error as exc:
            error = exc
            continue
        try:
            _run_setup(conn, dialect, "setup_read_only", busy_timeout_ms)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except sqlite3.Error as exc:
            conn.close()
            error = exc
            continue
        return conn
    raise StoreError(f"cannot read store {path}: {error}")


class SqliteStore(MemoryStore):
    """The store on one SQLite file (see the module docstring)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        dialect: Dialect,
        *,
        max_entry_bytes: int,
        busy_retries: int,
    ) -> None:
        super().__init__(dialect, max_entry_bytes=max_entry_bytes)
        self._conn = conn
        self._path = path
        self._busy_retries = busy_retries

    @classmethod
    def connect(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        check_version: bool = True,
        read_only: bool = False,
        max_entry_bytes: int = DEFAULT_MAX_ENTRY_BYTES,
        busy_timeout_ms: int = 5000,
        busy_retries: int = 5,
        dialect: Dialect | None = None,
    ) -> SqliteStore:
        """Open the store at ``path``.

        ``create``: a missing or empty file is created and migrated; otherwise a missing
        file raises ``StoreError``. ``check_version``: an older schema raises
        ``MigrationRequired`` and a newer one ``StoreError``; pass ``False`` to open a store
        only to ``migrate()`` it. ``read_only``: open an existing file without writing to it
        (``mode=ro``), so a file with mode 0444 or in a read-only directory can be read; a
        write then raises ``StoreError``. In a read-only directory where SQLite cannot create
        the ``-shm`` index and no ``-wal`` file exists, the file is opened ``immutable``:
        every commit is then in the main file, and nobody can be writing it there.
        """
        path = Path(path)
        if (read_only or not create) and not path.exists():
            raise StoreError(f"no store at {path}: run `factdiff migrate` to create one")
        dialect = dialect or load_dialect("sqlite")
        if read_only:
            conn = _connect_read_only(path, dialect, busy_timeout_ms)
        else:
            try:
                conn = sqlite3.connect(path, isolation_level=None)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot open store {path}: {exc}") from exc
        store = cls(conn, path, dialect, max_entry_bytes=max_entry_bytes, busy_retries=busy_retries)
        try:
            if not read_only:
                store._setup(busy_timeout_ms)
            if check_version:
                store._check_version(create and not read_only)
        except BaseException:
            conn.close()
            raise
        return store

    def _setup(self, busy_timeout_ms: int) -> None:
        try:
            _run_setup(self._conn, self._dialect, "setup", busy_timeout_ms)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot use store {self._path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    @property
    def path(self) -> Path:
        """The store's file."""
        return self._path

    @property
    def location(self) -> str:
        """The store's file, as text."""
        return str(self._path)

    # -- plumbing --------------------------------------------------------------------------

    def _run_script(self, script: str) -> None:
        for statement in split_statements(script):
            self._conn.execute(statement)

    def _maintain(self, script: str) -> None:
        try:
            for statement in split_statements(script):
                self._conn.execute(statement).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"store {self._path}: {exc}") from exc

    def _exec(self, key: str, **params: Any) -> sqlite3.Cursor:
        return self._conn.execute(self._sql(key), params)

    def _exec_many(self, key: str, rows: list[dict[str, Any]]) -> None:
        self._conn.executemany(self._sql(key), rows)

    def _row(self, key: str, **params: Any) -> Row | None:
        try:
            row: Row | None = self._conn.execute(self._sql(key), params).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"store {self._path}: {exc}") from exc
        return row

    def _rows(self, sql: str, params: Mapping[str, Any]) -> list[Row]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"store {self._path}: {exc}") from exc

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute(self._sql("rollback"))
        except sqlite3.Error:
            pass

    def _write(self, work: Callable[[], T]) -> T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, retrying while busy (or in
        the open one, inside ``_joined_writes``)."""
        if self._joining() and self._conn.in_transaction:
            return work()
        for attempt in range(self._busy_retries + 1):
            try:
                self._exec("begin_write")
                result = work()
                self._exec("commit")
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
                raise StoreError(f"store {self._path}: {exc}") from exc
            except BaseException:
                self._rollback()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _read(self) -> Iterator[None]:
        """A read transaction: one consistent snapshot for several statements."""
        try:
            self._exec("begin_read")
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"store {self._path}: {exc}") from exc
        finally:
            self._rollback()
